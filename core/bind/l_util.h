/* Helpers shared by the thin Lua binding files (core/bind/l_*.c). */
#ifndef GF_L_UTIL_H
#define GF_L_UTIL_H

#include <lua.h>
#include <lauxlib.h>
#include <stddef.h>
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

/* A C struct's numeric members as the fields of a result table, described once per struct instead of one
 * gf_lua_setint line per member per binding. The member's C type is taken by _Generic, so a described
 * field cannot be read with the wrong width. */
enum { GF_LF_INT, GF_LF_UINT, GF_LF_LONG, GF_LF_ULONG, GF_LF_DOUBLE, GF_LF_UCHAR };
typedef struct gf_lua_field {
    const char *key;
    size_t offset;
    unsigned char kind;
    unsigned char as_integer; /* a double that is integral by construction: pushed as an integer */
} gf_lua_field;
#define GF_LF_KIND(type, member)                                                                               \
    _Generic(((type *)0)->member, int: GF_LF_INT, unsigned int: GF_LF_UINT, long: GF_LF_LONG,                    \
             unsigned long: GF_LF_ULONG, double: GF_LF_DOUBLE, unsigned char: GF_LF_UCHAR)
#define GF_LFIELD(type, member, key) {key, offsetof(type, member), GF_LF_KIND(type, member), 0}
#define GF_LFIELD_INT(type, member, key) {key, offsetof(type, member), GF_LF_KIND(type, member), 1}
#define GF_NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
/* t[field.key] = row's member for each field, into the table on top of the stack. */
void gf_lua_setfields(lua_State *L, const void *row, const gf_lua_field *fields, size_t n);

#endif
