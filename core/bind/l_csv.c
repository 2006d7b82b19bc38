/* Binding: streaming CSV reader (core/csv.c).
 *
 *   local r = core.csv.open(path, {skip_preamble=, header_hint=, allow_short_rows=, display_name=})
 *   r:columns() → {"Time (%)", ...}; r:ncols(); r:find({"Name", "Kernel Name"}) → 1-based index or nil
 *   while r:next() do local name = r:field(i); local ns = r:int(j); local x = r:num(k) end
 *   r:line() (file line of the current row), r:rows(), r:row() → {fields...}, r:close()
 * Errors are {code, msg} tables naming file, line and column (see csv.h). */
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "l_csv.h"
#include "l_util.h"

#define CSV_MT "gpuflame.csv"

typedef struct ud {
    gf_csv *c;
} ud;

static gf_csv *check(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, CSV_MT);
    if (!u->c)
        gf_lua_raisef(L, GF_EXIT_ERROR, "CSV reader is closed");
    return u->c;
}

gf_csv *gf_lua_checkcsv(lua_State *L, int idx)
{
    ud *u = luaL_checkudata(L, idx, CSV_MT);
    if (!u->c)
        gf_lua_raisef(L, GF_EXIT_ERROR, "CSV reader is closed");
    return u->c;
}

static size_t check_col(lua_State *L, gf_csv *c, int idx)
{
    lua_Integer i = luaL_checkinteger(L, idx);
    if (i < 1 || (size_t)i > gf_csv_ncols(c))
        gf_lua_raisef(L, GF_EXIT_ERROR, "%s: column %lld out of range (1..%zu)", gf_csv_path(c), (long long)i,
                      gf_csv_ncols(c));
    return (size_t)i - 1;
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    gf_csv_opts o = {0};
    o.skip_preamble = gf_opt_bool_field(L, 2, "skip_preamble", 0);
    o.header_hint = gf_opt_string_field(L, 2, "header_hint", NULL);
    o.allow_short_rows = gf_opt_bool_field(L, 2, "allow_short_rows", 0);
    o.display_name = gf_opt_string_field(L, 2, "display_name", NULL);
    ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->c = NULL;
    luaL_setmetatable(L, CSV_MT);
    gf_err err;
    if (gf_csv_open(&u->c, path, &o, &err) != 0)
        return gf_lua_raise(L, &err);
    return 1;
}

static int m_close(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, CSV_MT);
    gf_csv_close(u->c);
    u->c = NULL;
    return 0;
}

static int m_ncols(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_csv_ncols(check(L)));
    return 1;
}

static int m_columns(lua_State *L)
{
    gf_csv *c = check(L);
    size_t n = gf_csv_ncols(c);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, gf_csv_colname(c, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* find(aliases) with aliases a string or a list of strings → 1-based column index or nil */
static int m_find(lua_State *L)
{
    gf_csv *c = check(L);
    if (lua_type(L, 2) == LUA_TSTRING) {
        const char *a[1] = {lua_tostring(L, 2)};
        int i = gf_csv_find(c, a, 1);
        if (i < 0)
            return 0;
        lua_pushinteger(L, i + 1);
        return 1;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    if (n <= 0)
        return 0;
    const char **a = lua_newuserdatauv(L, sizeof(char *) * (size_t)n, 0); /* freed by the GC */
    for (lua_Integer k = 1; k <= n; k++) {
        lua_rawgeti(L, 2, k);
        a[k - 1] = lua_tostring(L, -1); /* the table keeps the string alive */
        lua_pop(L, 1);
        if (!a[k - 1])
            return gf_lua_raisef(L, GF_EXIT_ERROR, "csv find: alias %lld is not a string", (long long)k);
    }
    int i = gf_csv_find(c, a, (size_t)n);
    if (i < 0)
        return 0;
    lua_pushinteger(L, i + 1);
    return 1;
}

static int m_next(lua_State *L)
{
    gf_err err;
    int rc = gf_csv_next(check(L), &err);
    if (rc < 0)
        return gf_lua_raise(L, &err);
    lua_pushboolean(L, rc == 1);
    return 1;
}

static int m_field(lua_State *L)
{
    gf_csv *c = check(L);
    size_t n;
    const char *s = gf_csv_field(c, check_col(L, c, 2), &n);
    lua_pushlstring(L, s, n);
    return 1;
}

static int m_int(lua_State *L)
{
    gf_csv *c = check(L);
    size_t col = check_col(L, c, 2);
    if (lua_toboolean(L, 3) && gf_csv_is_blank(c, col))
        return 0; /* optional: blank → nil */
    int64_t v;
    gf_err err;
    if (gf_csv_int64(c, col, &v, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)v);
    return 1;
}

static int m_num(lua_State *L)
{
    gf_csv *c = check(L);
    size_t col = check_col(L, c, 2);
    if (lua_toboolean(L, 3) && gf_csv_is_blank(c, col))
        return 0;
    double v;
    gf_err err;
    if (gf_csv_double(c, col, &v, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushnumber(L, v);
    return 1;
}

static int m_row(lua_State *L)
{
    gf_csv *c = check(L);
    size_t nf = gf_csv_nfields(c);
    lua_createtable(L, (int)nf, 0);
    for (size_t i = 0; i < nf; i++) {
        size_t n;
        const char *s = gf_csv_field(c, i, &n);
        lua_pushlstring(L, s, n);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int m_line(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_csv_line(check(L)));
    return 1;
}

static int m_rows(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_csv_rows(check(L)));
    return 1;
}

static int m_path(lua_State *L)
{
    lua_pushstring(L, gf_csv_path(check(L)));
    return 1;
}

static int l_gc(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, CSV_MT);
    gf_csv_close(u->c);
    u->c = NULL;
    return 0;
}

static const luaL_Reg methods[] = {
    {"close", m_close}, {"ncols", m_ncols}, {"columns", m_columns}, {"find", m_find}, {"next", m_next},
    {"field", m_field}, {"int", m_int},     {"num", m_num},         {"row", m_row},   {"line", m_line},
    {"rows", m_rows},   {"path", m_path},   {NULL, NULL},
};

int gf_luaopen_csv(lua_State *L)
{
    gf_new_class(L, CSV_MT, methods, l_gc);
    lua_newtable(L);
    lua_pushcfunction(L, l_open);
    lua_setfield(L, -2, "open");
    return 1;
}
