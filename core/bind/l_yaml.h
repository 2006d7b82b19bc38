/* Shared by the bindings that hand YAML values to Lua (l_yaml.c, l_nvtx.c). */
#ifndef GF_L_YAML_H
#define GF_L_YAML_H

#include <lua.h>
#include "yamltree.h"

void gf_lua_push_yv(lua_State *L, const gf_yv *v);

#endif
