/* Binding: `nsys stats` reports from an SQLite export (core/stats*.c, docs/REPORTS.md).
 *
 *   core.stats.reports() → { {name=, old=, summary=, args=bool}, ... }
 *   local db = core.stats.open(path [, name])   -- exit 6 naming the file when it is not an export; name:
 *                                                 what messages call it (a model file's tables: the model)
 *   db:run(report, {out = PATH | "-", format = "csv"|"json", mem_bytes = bool, names = "base"|"mangled"})
 *     → {rows = N, skipped = "<db> does not contain ..." | nil}
 *       PATH is written atomically (a 0-byte file when the report has no row or is skipped, as nsys);
 *       "-" writes to stdout.
 *   db:close() */
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "l_util.h"
#include "stats.h"

#define STATS_MT "gpuflame.stats"

typedef struct ud {
    gf_stats_db *d;
} ud;

static gf_stats_db *check(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, STATS_MT);
    if (!u->d)
        gf_lua_raisef(L, GF_EXIT_ERROR, "stats: export is closed");
    return u->d;
}

static int l_reports(lua_State *L)
{
    lua_newtable(L);
    int i = 0;
    for (const gf_stats_report *r = gf_stats_reports; r->name; r++) {
        lua_createtable(L, 0, 4);
        lua_pushstring(L, r->name);
        lua_setfield(L, -2, "name");
        if (r->old) {
            lua_pushstring(L, r->old);
            lua_setfield(L, -2, "old");
        }
        lua_pushstring(L, r->summary);
        lua_setfield(L, -2, "summary");
        lua_pushboolean(L, r->args);
        lua_setfield(L, -2, "args");
        lua_rawseti(L, -2, ++i);
    }
    return 1;
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->d = NULL;
    luaL_setmetatable(L, STATS_MT);
    gf_err err;
    u->d = gf_stats_open(path, &err);
    if (!u->d)
        return gf_lua_raise(L, &err);
    const char *name = luaL_optstring(L, 2, NULL);
    char *n = name ? strdup(name) : NULL;
    if (name && !n)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    if (n) {
        free(u->d->path);
        u->d->path = n;
    }
    return 1;
}

static int m_run(lua_State *L)
{
    gf_stats_db *d = check(L);
    const char *report = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    const char *out = gf_opt_string_field(L, 3, "out", "-");
    const char *format = gf_opt_string_field(L, 3, "format", "csv");
    const char *names = gf_opt_string_field(L, 3, "names", NULL);
    gf_stats_opts o = {0, 0, GF_KNAME_DEMANGLED};
    if (strcmp(format, "json") == 0)
        o.format = GF_STATS_JSON;
    else if (strcmp(format, "csv") != 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "stats: unknown format '%s' (csv or json)", format);
    o.mem_bytes = gf_opt_bool_field(L, 3, "mem_bytes", 0);
    if (names && strcmp(names, "base") == 0)
        o.kname = GF_KNAME_BASE;
    else if (names && strcmp(names, "mangled") == 0)
        o.kname = GF_KNAME_MANGLED;
    else if (names)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "stats: unknown report argument '%s' (base or mangled)", names);
    gf_stats_res res;
    gf_err err;
    int rc;
    if (strcmp(out, "-") == 0) {
        rc = gf_stats_run(d, report, &o, stdout, &res, &err);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            clearerr(stdout);
            return gf_lua_raisef(L, GF_EXIT_ERROR, "stdout: cannot write output");
        }
    } else {
        gf_out f;
        if (gf_out_open(&f, out, &err) != 0)
            return gf_lua_raise(L, &err);
        rc = gf_stats_run(d, report, &o, f.fp, &res, &err);
        if (rc != 0) {
            if (ferror(f.fp))
                gf_out_fail(&f, &err);
            else
                gf_out_abort(&f);
            return gf_lua_raise(L, &err);
        }
        if (gf_out_commit_unless_interrupted(&f, &err) != 0)
            return gf_lua_raise(L, &err);
    }
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, (lua_Integer)res.rows);
    lua_setfield(L, -2, "rows");
    if (res.skipped[0]) {
        lua_pushstring(L, res.skipped);
        lua_setfield(L, -2, "skipped");
    }
    return 1;
}

static int m_close(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, STATS_MT);
    gf_stats_close(u->d);
    u->d = NULL;
    return 0;
}

int gf_luaopen_stats(lua_State *L)
{
    static const luaL_Reg methods[] = {{"run", m_run}, {"close", m_close}, {NULL, NULL}};
    gf_new_class(L, STATS_MT, methods, m_close);
    static const luaL_Reg fns[] = {{"open", l_open}, {"reports", l_reports}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
