/* Binding: per-name GPU kernel / CUDA API totals straight from an SQLite export (core/sqlite_kernels.c).
 *
 *   core.sqlite_kernels.totals(path, "kernels"|"api") → {{name=, total_ns=, count=}...} [, why when empty]
 */
#include "l_util.h"
#include "sqlite_kernels.h"

static int l_totals(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    static const char *const kinds[] = {"kernels", "api", NULL};
    int what = luaL_checkoption(L, 2, "kernels", kinds) == 1 ? GF_SQL_API : GF_SQL_KERNELS;
    gf_name_total *t;
    size_t n;
    char why[256];
    gf_err err;
    if (gf_sqlite_totals(path, what, &t, &n, why, sizeof why, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, t[i].name);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "total_ns", t[i].total_ns);
        gf_lua_setint(L, "count", t[i].count);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    gf_name_totals_free(t, n);
    if (n == 0) {
        lua_pushstring(L, why);
        return 2;
    }
    return 1;
}

int gf_luaopen_sqlite_kernels(lua_State *L)
{
    static const luaL_Reg fns[] = {{"totals", l_totals}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
