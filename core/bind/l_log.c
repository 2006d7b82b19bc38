/* Binding: logging. core.log.write(level, msg), set_level, level, add_secret, redact, and
 * escape(text [, keep_lines]) → text with every byte that is not printable UTF-8 as \xNN (core/textsafe.h). */
#include <stdlib.h>

#include "l_util.h"
#include "log.h"
#include "textsafe.h"

static int l_write(lua_State *L)
{
    gf_log((int)luaL_checkinteger(L, 1), "%s", luaL_checkstring(L, 2));
    return 0;
}

static int l_set_level(lua_State *L)
{
    gf_log_set_level((int)luaL_checkinteger(L, 1));
    return 0;
}

static int l_level(lua_State *L)
{
    lua_pushinteger(L, gf_log_get_level());
    return 1;
}

static int l_add_secret(lua_State *L)
{
    gf_log_add_secret(luaL_checkstring(L, 1));
    return 0;
}

static int l_redact(lua_State *L)
{
    char *s = gf_log_redact(luaL_checkstring(L, 1));
    if (!s)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    lua_pushstring(L, s);
    free(s);
    return 1;
}

static int l_escape(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char *out = gf_text_escape(s, n, lua_toboolean(L, 2));
    if (!out)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    lua_pushstring(L, out);
    free(out);
    return 1;
}

int gf_luaopen_log(lua_State *L)
{
    static const luaL_Reg fns[] = {{"write", l_write},           {"set_level", l_set_level}, {"level", l_level},
                                   {"add_secret", l_add_secret}, {"redact", l_redact},       {"escape", l_escape},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
