#include "l_util.h"

#include <stdio.h>

int gf_lua_raise(lua_State *L, const gf_err *err)
{
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, err->code ? err->code : GF_EXIT_ERROR);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, err->msg);
    lua_setfield(L, -2, "msg");
    if (luaL_getmetatable(L, "gpuflame.error") == LUA_TTABLE)
        lua_setmetatable(L, -2);
    else
        lua_pop(L, 1);
    return lua_error(L);
}

int gf_lua_raisef(lua_State *L, int code, const char *fmt, ...)
{
    gf_err err;
    va_list ap;
    va_start(ap, fmt);
    gf_verrf(&err, code, fmt, ap);
    va_end(ap);
    return gf_lua_raise(L, &err);
}

static int field_type(lua_State *L, int tidx, const char *key)
{
    if (lua_type(L, tidx) != LUA_TTABLE)
        return LUA_TNIL;
    return lua_getfield(L, tidx, key);
}

const char *gf_opt_string_field(lua_State *L, int tidx, const char *key, const char *def)
{
    tidx = lua_absindex(L, tidx);
    int t = field_type(L, tidx, key);
    if (lua_type(L, tidx) != LUA_TTABLE)
        return def;
    const char *v = def;
    if (t == LUA_TSTRING)
        v = lua_tostring(L, -1); /* the table keeps the string alive */
    else if (t != LUA_TNIL)
        gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' must be a string (got %s)", key, lua_typename(L, t));
    lua_pop(L, 1);
    return v;
}

lua_Integer gf_opt_int_field(lua_State *L, int tidx, const char *key, lua_Integer def)
{
    tidx = lua_absindex(L, tidx);
    if (lua_type(L, tidx) != LUA_TTABLE)
        return def;
    int t = lua_getfield(L, tidx, key);
    lua_Integer v = def;
    if (t == LUA_TNUMBER) {
        int isint;
        v = lua_tointegerx(L, -1, &isint);
        if (!isint)
            gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' must be an integer", key);
    } else if (t != LUA_TNIL) {
        gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' must be an integer (got %s)", key, lua_typename(L, t));
    }
    lua_pop(L, 1);
    return v;
}

lua_Number gf_opt_num_field(lua_State *L, int tidx, const char *key, lua_Number def)
{
    tidx = lua_absindex(L, tidx);
    if (lua_type(L, tidx) != LUA_TTABLE)
        return def;
    int t = lua_getfield(L, tidx, key);
    lua_Number v = def;
    if (t == LUA_TNUMBER)
        v = lua_tonumber(L, -1);
    else if (t != LUA_TNIL)
        gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' must be a number (got %s)", key, lua_typename(L, t));
    lua_pop(L, 1);
    return v;
}

int gf_opt_bool_field(lua_State *L, int tidx, const char *key, int def)
{
    tidx = lua_absindex(L, tidx);
    if (lua_type(L, tidx) != LUA_TTABLE)
        return def;
    int t = lua_getfield(L, tidx, key);
    int v = def;
    if (t == LUA_TBOOLEAN)
        v = lua_toboolean(L, -1);
    else if (t != LUA_TNIL)
        gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' must be a boolean (got %s)", key, lua_typename(L, t));
    lua_pop(L, 1);
    return v;
}

void gf_lua_setint(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

void gf_lua_setnum(lua_State *L, const char *k, lua_Number v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

void gf_lua_setfields(lua_State *L, const void *row, const gf_lua_field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const void *p = (const char *)row + fields[i].offset;
        switch (fields[i].kind) {
        case GF_LF_INT: lua_pushinteger(L, *(const int *)p); break;
        case GF_LF_UINT: lua_pushinteger(L, *(const unsigned int *)p); break;
        case GF_LF_LONG: lua_pushinteger(L, *(const long *)p); break;
        case GF_LF_ULONG: lua_pushinteger(L, (lua_Integer) * (const unsigned long *)p); break;
        case GF_LF_UCHAR: lua_pushinteger(L, *(const unsigned char *)p); break;
        default:
            if (fields[i].as_integer)
                lua_pushinteger(L, (lua_Integer) * (const double *)p);
            else
                lua_pushnumber(L, *(const double *)p);
        }
        lua_setfield(L, -2, fields[i].key);
    }
}

void gf_new_class(lua_State *L, const char *tname, const luaL_Reg *methods, lua_CFunction gc)
{
    if (luaL_newmetatable(L, tname)) {
        lua_newtable(L);
        luaL_setfuncs(L, methods, 0);
        lua_setfield(L, -2, "__index");
        if (gc) {
            lua_pushcfunction(L, gc);
            lua_setfield(L, -2, "__gc");
        }
    }
    lua_pop(L, 1);
}

lua_Integer gf_req_int_field(lua_State *L, int tidx, const char *key)
{
    tidx = lua_absindex(L, tidx);
    if (lua_type(L, tidx) != LUA_TTABLE || lua_getfield(L, tidx, key) == LUA_TNIL)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' is required (its value comes from the policy)", key);
    lua_pop(L, 1);
    return gf_opt_int_field(L, tidx, key, 0);
}

const char *gf_req_string_field(lua_State *L, int tidx, const char *key)
{
    tidx = lua_absindex(L, tidx);
    if (lua_type(L, tidx) != LUA_TTABLE || lua_getfield(L, tidx, key) == LUA_TNIL)
        return (gf_lua_raisef(L, GF_EXIT_USAGE, "option '%s' is required (its value comes from the policy)", key),
                NULL);
    lua_pop(L, 1);
    return gf_opt_string_field(L, tidx, key, NULL);
}
