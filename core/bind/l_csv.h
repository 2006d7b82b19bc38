/* For other bindings that take a CSV reader argument (e.g. core.stacks.from_summary_csv). */
#ifndef GF_L_CSV_H
#define GF_L_CSV_H

#include <lua.h>
#include "csv.h"

/* The open gf_csv behind the core.csv reader at idx (raises if it is not one or is closed). */
gf_csv *gf_lua_checkcsv(lua_State *L, int idx);

#endif
