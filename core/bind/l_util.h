/* Helpers shared by the thin Lua binding files (core/bind/l_*.c). */
#ifndef GF_L_UTIL_H
#define GF_L_UTIL_H

#include <lua.h>
#include <lauxlib.h>
#include "gf_err.h"

/* Raises a structured error {code=, msg=} built from err. Never returns. */
int gf_lua_raise(lua_State *L, const gf_err *err);
/* Same, formatted. Never returns. */
int gf_lua_raisef(lua_State *L, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Optional table fields: return def when the field is absent or nil; raise a usage error on a wrong type. */
const char *gf_opt_string_field(lua_State *L, int tidx, const char *key, const char *def);
lua_Integer gf_opt_int_field(lua_State *L, int tidx, const char *key, lua_Integer def);
lua_Number gf_opt_num_field(lua_State *L, int tidx, const char *key, lua_Number def);
int gf_opt_bool_field(lua_State *L, int tidx, const char *key, int def);

/* Required table fields: values that are policy decisions (a unit, a threshold, a title) have no
 * default in C; the Lua caller passes the policy's. A missing field or a wrong type is a usage error. */
lua_Integer gf_req_int_field(lua_State *L, int tidx, const char *key);
const char *gf_req_string_field(lua_State *L, int tidx, const char *key);

/* Registers a metatable `tname` with the given methods in __index and optional __gc. */
/* t[k] = v for the table on top of the stack (result tables of the bindings). */
void gf_lua_setint(lua_State *L, const char *k, lua_Integer v);
void gf_lua_setnum(lua_State *L, const char *k, lua_Number v);
void gf_new_class(lua_State *L, const char *tname, const luaL_Reg *methods, lua_CFunction gc);

#endif
