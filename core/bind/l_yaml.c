/* Binding: YAML (core/yamltree.c). core.yaml.load(path) / core.yaml.decode(text[, name]) → Lua value;
 * null is core.json.null, sequences are marked as JSON arrays. */
#include <stdlib.h>

#include "l_util.h"
#include "l_yaml.h"
#include "yamltree.h"

void gf_lua_push_yv(lua_State *L, const gf_yv *v)
{
    luaL_checkstack(L, 4, "YAML nesting");
    if (!v) {
        lua_pushlightuserdata(L, NULL);
        return;
    }
    switch (v->kind) {
    case GF_YV_NULL: lua_pushlightuserdata(L, NULL); break;
    case GF_YV_BOOL: lua_pushboolean(L, v->b); break;
    case GF_YV_INT: lua_pushinteger(L, (lua_Integer)v->i); break;
    case GF_YV_BIGINT: lua_pushnumber(L, strtod(v->s, NULL)); break;
    case GF_YV_FLOAT: lua_pushnumber(L, v->f); break;
    case GF_YV_STR: lua_pushlstring(L, v->s, v->len); break;
    case GF_YV_SEQ:
        lua_createtable(L, (int)v->n, 0);
        if (luaL_getmetatable(L, "gpuflame.json.array") == LUA_TTABLE)
            lua_setmetatable(L, -2);
        else
            lua_pop(L, 1);
        for (size_t i = 0; i < v->n; i++) {
            gf_lua_push_yv(L, v->items[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    case GF_YV_MAP:
        lua_createtable(L, 0, (int)v->n);
        for (size_t i = 0; i < v->n; i++) {
            lua_pushlstring(L, v->keys[i], v->klens[i]);
            gf_lua_push_yv(L, v->items[i]);
            lua_rawset(L, -3);
        }
        break;
    }
}

static int l_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int status;
    gf_err err;
    gf_yv *v = gf_yaml_load_file(path, &status, &err);
    if (!v)
        return gf_lua_raise(L, &err);
    gf_lua_push_yv(L, v);
    gf_yv_free(v);
    return 1;
}

static int l_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "YAML input");
    int status;
    gf_err err;
    gf_yv *v = gf_yaml_load_string(text, len, name, &status, &err);
    if (!v)
        return gf_lua_raise(L, &err);
    gf_lua_push_yv(L, v);
    gf_yv_free(v);
    return 1;
}

int gf_luaopen_yaml(lua_State *L)
{
    static const luaL_Reg fns[] = {{"load", l_load}, {"decode", l_decode}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
