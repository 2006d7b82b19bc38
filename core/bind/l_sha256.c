/* Binding: SHA-256 hex digests, as require("gpuflame.core").sha256:
 *   sha256.hex(string) → 64 hex digits;  sha256.file(path) → 64 hex digits of the file's content
 *   (raises exit 6 naming the file when it cannot be read). */
#include "l_util.h"
#include "sha256.h"

static int l_hex(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char out[65];
    gf_sha256_hex(s, n, out);
    lua_pushstring(L, out);
    return 1;
}

static int l_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char out[65];
    gf_err err;
    if (gf_sha256_file(path, out, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushstring(L, out);
    return 1;
}

int gf_luaopen_sha256(lua_State *L)
{
    static const luaL_Reg fns[] = {{"hex", l_hex}, {"file", l_file}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
