/* The Stacks userdata of core/bind/l_stacks.c, for other bindings (l_trace, l_stacks_diff). */
#ifndef GF_L_STACKS_H
#define GF_L_STACKS_H

#include <lua.h>
#include "stacks.h"

/* The gf_stacks of the Stacks userdata at idx (raises on anything else or a freed one). */
gf_stacks *gf_lua_checkstacks(lua_State *L, int idx);

#endif
