/* Binding: NVTX run analysis (core/nvtx.h; core/nvtx*.c).
 *   core.nvtx.manifest(path)          → manifest as a Lua table (spec errors for missing/invalid/...)
 *   core.nvtx.analyze(opts)           → {warnings = {...}, iterations = n, ...}; writes opts.out atomically
 *       opts: manifest_file, host_csv, gpu_csv, out, nsys_version, manifest_path, trace_path,
 *             host_report, gpu_report (the provenance strings), legacy_names (reports of nsys < 2023.1),
 *             validated_version ("YYYY.R", required: policy analyze.validated_version),
 *             source (provenance.source, e.g. "export"; absent: no key)
 *   core.nvtx.open()                  → session: read_host(p), read_gpu(p), host_count(), gpu_count(),
 *                                        host_row(i), gpu_row(i)
 *   core.nvtx.version_family(s)       → year, release_is_1 (or nil)
 *   core.nvtx.summary(list)           → the §9 duration summary (for tests) */
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "l_util.h"
#include "l_yaml.h"
#include "nvtx.h"
#include "yamltree.h"

#define NVTX_MT "gpuflame.nvtx"

typedef struct lnvtx {
    gf_nvtx *nv;
} lnvtx;

static int l_manifest(lua_State *L)
{
    gf_err err;
    gf_yv *m = gf_nvtx_load_manifest(luaL_checkstring(L, 1), &err);
    if (!m)
        return gf_lua_raise(L, &err);
    gf_lua_push_yv(L, m);
    gf_yv_free(m);
    return 1;
}

static const char *req_string(lua_State *L, int t, const char *k)
{
    const char *v = gf_opt_string_field(L, t, k, NULL);
    if (!v)
        gf_lua_raisef(L, GF_EXIT_USAGE, "nvtx.analyze: option '%s' is required", k);
    return v;
}

static int l_analyze(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *mf = req_string(L, 1, "manifest_file");
    const char *hc = req_string(L, 1, "host_csv");
    const char *gc = req_string(L, 1, "gpu_csv");
    const char *out = gf_opt_string_field(L, 1, "out", NULL);
    gf_nvtx_input in;
    memset(&in, 0, sizeof in);
    in.nsys_version = gf_opt_string_field(L, 1, "nsys_version", "unknown");
    in.manifest_path = req_string(L, 1, "manifest_path");
    in.trace_path = req_string(L, 1, "trace_path");
    in.host_report = req_string(L, 1, "host_report");
    in.gpu_report = req_string(L, 1, "gpu_report");
    in.schema_version = (int)gf_opt_int_field(L, 1, "schema_version", 1);
    in.validated_version = gf_req_string_field(L, 1, "validated_version");
    {
        int64_t vy, vr;
        if (!gf_nvtx_version_release(in.validated_version, &vy, &vr) || vr < 0)
            return gf_lua_raisef(L, GF_EXIT_USAGE, "validated_version must be a release YYYY.R (got \"%s\")",
                                 in.validated_version);
    }
    const char *kc = gf_opt_string_field(L, 1, "kern_csv", NULL);
    const char *tc = gf_opt_string_field(L, 1, "trace_csv", NULL);
    in.kern_report = gf_opt_string_field(L, 1, "kern_report", NULL);
    in.trace_report = gf_opt_string_field(L, 1, "trace_report", NULL);
    in.source = gf_opt_string_field(L, 1, "source", NULL);
    gf_err err;
    gf_yv *m = gf_nvtx_load_manifest(mf, &err);
    if (!m)
        return gf_lua_raise(L, &err);
    in.manifest = m;
    gf_nvtx *nv = gf_nvtx_new();
    gf_nvtx_result res;
    memset(&res, 0, sizeof res);
    int rc = -1;
    if (nv)
        gf_nvtx_set_legacy_names(nv, gf_opt_bool_field(L, 1, "legacy_names", 0));
    if (!nv)
        gf_errf(&err, GF_EXIT_ERROR, "out of memory");
    else if (gf_nvtx_read_host(nv, hc, &err) == 0 && gf_nvtx_read_gpu(nv, gc, &err) == 0 &&
             (in.schema_version != 2 || gf_nvtx_read_cuda(nv, kc, tc, &err) == 0) &&
             gf_nvtx_analyze(nv, &in, &res, &err) == 0)
        rc = out ? gf_write_atomic(out, res.json, res.json_len, &err) : 0;
    size_t nhost = nv ? gf_nvtx_host_count(nv) : 0, ngpu = nv ? gf_nvtx_gpu_count(nv) : 0;
    gf_nvtx_free(nv);
    gf_yv_free(m);
    if (rc != 0) {
        gf_nvtx_result_free(&res);
        return gf_lua_raise(L, &err);
    }
    lua_createtable(L, 0, 10);
    lua_createtable(L, (int)res.nwarnings, 0);
    for (size_t i = 0; i < res.nwarnings; i++) {
        lua_pushstring(L, res.warnings[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "warnings");
    if (!out) {
        lua_pushlstring(L, res.json, res.json_len);
        lua_setfield(L, -2, "json");
    }
    lua_pushinteger(L, (lua_Integer)res.iterations);
    lua_setfield(L, -2, "iterations");
    lua_pushinteger(L, (lua_Integer)res.host_iterations);
    lua_setfield(L, -2, "host_iterations");
    lua_pushinteger(L, (lua_Integer)res.gpu_iterations);
    lua_setfield(L, -2, "gpu_iterations");
    lua_pushinteger(L, (lua_Integer)res.host_groups);
    lua_setfield(L, -2, "host_groups");
    lua_pushinteger(L, (lua_Integer)res.gpu_groups);
    lua_setfield(L, -2, "gpu_groups");
    lua_pushinteger(L, (lua_Integer)nhost);
    lua_setfield(L, -2, "host_rows");
    lua_pushinteger(L, (lua_Integer)ngpu);
    lua_setfield(L, -2, "gpu_rows");
    gf_nvtx_result_free(&res);
    return 1;
}

static lnvtx *check(lua_State *L)
{
    return luaL_checkudata(L, 1, NVTX_MT);
}

static int l_open(lua_State *L)
{
    lnvtx *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->nv = gf_nvtx_new();
    luaL_setmetatable(L, NVTX_MT);
    if (!u->nv)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    return 1;
}

static int m_read_host(lua_State *L)
{
    gf_err err;
    if (gf_nvtx_read_host(check(L)->nv, luaL_checkstring(L, 2), &err))
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)gf_nvtx_host_count(check(L)->nv));
    return 1;
}

static int m_read_gpu(lua_State *L)
{
    gf_err err;
    if (gf_nvtx_read_gpu(check(L)->nv, luaL_checkstring(L, 2), &err))
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)gf_nvtx_gpu_count(check(L)->nv));
    return 1;
}

static int m_host_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_nvtx_host_count(check(L)->nv));
    return 1;
}

static int m_gpu_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_nvtx_gpu_count(check(L)->nv));
    return 1;
}

static void push_name(lua_State *L, gf_nvtx *nv, uint32_t id, int colon)
{
    size_t len;
    const char *s = gf_nvtx_string(nv, id, &len);
    lua_pushlstring(L, s, len);
    lua_setfield(L, -2, "name");
    if (colon)
        lua_pushfstring(L, ":%s", s);
    else
        lua_pushlstring(L, s, len);
    lua_setfield(L, -2, "raw_name");
}

static int m_host_row(lua_State *L)
{
    gf_nvtx *nv = check(L)->nv;
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (size_t)i > gf_nvtx_host_count(nv))
        return 0;
    const gf_nvtx_host_row *r = &gf_nvtx_host_rows(nv)[i - 1];
#define HOST(member, key) GF_LFIELD(gf_nvtx_host_row, member, key)
    static const gf_lua_field fields[] = {
        HOST(start, "start_ns"), HOST(end, "end_ns"), HOST(dur, "duration_ns"), HOST(dchild, "child_duration_ns"),
        HOST(dnonchild, "exclusive_duration_ns"), HOST(pid, "pid"), HOST(tid, "tid"), HOST(lvl, "level"),
        HOST(nchild, "child_count"), HOST(rid, "range_id"),
    };
#undef HOST
    lua_createtable(L, 0, GF_NFIELDS(fields) + 3);
    push_name(L, nv, r->name, r->colon);
    gf_lua_setfields(L, r, fields, GF_NFIELDS(fields));
    if (r->has_parent)
        gf_lua_setint(L, "parent_id", r->parent);
    return 1;
}

static int m_gpu_row(lua_State *L)
{
    gf_nvtx *nv = check(L)->nv;
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (size_t)i > gf_nvtx_gpu_count(nv))
        return 0;
    const gf_nvtx_gpu_row *r = &gf_nvtx_gpu_rows(nv)[i - 1];
#define GPU(member, key) GF_LFIELD(gf_nvtx_gpu_row, member, key)
    static const gf_lua_field fields[] = {
        GPU(pstart, "projected_start_ns"), GPU(pdur, "projected_duration_ns"), GPU(ostart, "original_start_ns"),
        GPU(odur, "original_duration_ns"), GPU(pid, "pid"), GPU(tid, "tid"), GPU(ngpu, "gpu_operation_count"),
        GPU(lvl, "level"), GPU(nchild, "child_count"), GPU(rid, "range_id"),
    };
#undef GPU
    lua_createtable(L, 0, GF_NFIELDS(fields) + 4);
    push_name(L, nv, r->name, r->colon);
    size_t sl;
    const char *st = gf_nvtx_string(nv, r->style, &sl);
    lua_pushlstring(L, st, sl);
    lua_setfield(L, -2, "style");
    gf_lua_setfields(L, r, fields, GF_NFIELDS(fields));
    if (r->has_parent)
        gf_lua_setint(L, "parent_id", r->parent);
    return 1;
}

static int m_gc(lua_State *L)
{
    lnvtx *u = luaL_checkudata(L, 1, NVTX_MT);
    gf_nvtx_free(u->nv);
    u->nv = NULL;
    return 0;
}

static int l_version_family(lua_State *L)
{
    int64_t year;
    int rel1;
    if (!gf_nvtx_version_family(luaL_checkstring(L, 1), &year, &rel1))
        return 0;
    lua_pushinteger(L, (lua_Integer)year);
    lua_pushboolean(L, rel1);
    return 2;
}

static int l_summary(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t n = lua_rawlen(L, 1);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (lua_Integer)i + 1);
        v[i] = (int64_t)luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    if (n == 0) {
        free(v);
        lua_pushnil(L);
        return 1;
    }
    gf_nvtx_summary s;
    gf_nvtx_summarize(v, n, &s);
    free(v);
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)s.total);
    lua_setfield(L, -2, "total_ns");
    lua_pushnumber(L, s.mean);
    lua_setfield(L, -2, "mean_ns");
    if (s.median_is_int)
        lua_pushinteger(L, (lua_Integer)s.median_i);
    else
        lua_pushnumber(L, s.median_f);
    lua_setfield(L, -2, "median_ns");
    lua_pushinteger(L, (lua_Integer)s.min);
    lua_setfield(L, -2, "minimum_ns");
    lua_pushinteger(L, (lua_Integer)s.max);
    lua_setfield(L, -2, "maximum_ns");
    lua_pushnumber(L, s.stddev);
    lua_setfield(L, -2, "stddev_ns");
    return 1;
}

int gf_luaopen_nvtx(lua_State *L)
{
    static const luaL_Reg methods[] = {{"read_host", m_read_host},   {"read_gpu", m_read_gpu},
                                       {"host_count", m_host_count}, {"gpu_count", m_gpu_count},
                                       {"host_row", m_host_row},     {"gpu_row", m_gpu_row},
                                       {NULL, NULL}};
    gf_new_class(L, NVTX_MT, methods, m_gc);
    static const luaL_Reg fns[] = {{"manifest", l_manifest},
                                   {"analyze", l_analyze},
                                   {"open", l_open},
                                   {"version_family", l_version_family},
                                   {"summary", l_summary},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
