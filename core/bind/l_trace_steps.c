/* Binding: steps over a core.trace object (core/trace_steps.c, issue 40).
 *
 *   win = {start=, ["end"]=, pid= (the range's proc), tid=, rank= (index, -1 none), level= (-1: start/end range),
 *          outer= (true: a gap between steps, whose nvtx are its thread's outermost ranges in it)}
 *   core.trace_steps.compute(tr, {win...}, {comm LIKE patterns} [, {kernels = bool, nvtx = bool}]) → per step
 *       {kernels, copies, memsets, launches, kernel_ns, devices = {{device, device_name, ops, first, last, busy,
 *       idle, compute, comm, copy, h2d, d2h, d2d, p2p, memset, overlap}...}, kernels_by_name = {{name, count,
 *       total}...}, nvtx = {{name, count, total}...}}; the 4th argument's false fields leave those lists empty
 *       (not summed: a caller that needs only the times, gpuflame.steps.loop)
 *   core.trace_steps.ranges_key(tr [, threads]) → an integer, equal while the trace's NVTX ranges are the same ones
 *   core.trace_steps.nvtx_names(tr) → {{name, id, rank, pid, tid, level, domain (named domains
 *       only), count, total}...}
 *   core.trace_steps.nvtx_ranges(tr, {id...}) → {{start, ["end"], pid, tid, proc, name, rank, rank_label, level}...}
 *       pid, tid: the lane's; proc: the process correlation uses (the rank's index in merged traces)
 * rank: the rank's index (-1 none); rank_label: its label, absent without ranks. */
#include <stdlib.h>
#include <string.h>

#include "l_trace.h"
#include "l_util.h"
#include "trace_findings.h"
#include "trace_findings_own.h"
#include "threads.h"
#include "trace_steps.h"

static void set_rank(lua_State *L, const gf_trace *t, int32_t rank)
{
    gf_lua_setint(L, "rank", rank);
    if (rank >= 0 && (size_t)rank < t->nranks) {
        gf_lua_trace_str(L, t, t->rank_label[rank]);
        lua_setfield(L, -2, "rank_label");
    }
}

static gf_step_win *read_wins(lua_State *L, int idx, size_t *n)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    size_t nw = lua_rawlen(L, idx);
    gf_step_win *w = lua_newuserdatauv(L, (nw ? nw : 1) * sizeof *w, 0); /* freed with the stack */
    for (size_t k = 0; k < nw; k++) {
        lua_rawgeti(L, idx, (lua_Integer)k + 1);
        int top = lua_gettop(L);
        luaL_checktype(L, top, LUA_TTABLE);
        w[k] = (gf_step_win){gf_req_int_field(L, top, "start"), gf_req_int_field(L, top, "end"),
                             gf_req_int_field(L, top, "pid"), gf_opt_int_field(L, top, "tid", -1),
                             (int32_t)gf_opt_int_field(L, top, "rank", -1),
                             (int32_t)gf_opt_int_field(L, top, "level", -1), 0};
        lua_getfield(L, top, "outer");
        w[k].outer = lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
    *n = nw;
    return w;
}

/* name sums of one kind into field `key` of each step table (steps table at -1) */
static void push_sums(lua_State *L, const gf_trace *t, const gf_step_name *r, size_t n, const char *key)
{
    for (size_t k = 0; k < n; k++) {
        lua_rawgeti(L, -1, (lua_Integer)r[k].step + 1);
        lua_getfield(L, -1, key);
        lua_createtable(L, 0, 3);
        gf_lua_trace_str(L, t, r[k].name);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "count", r[k].count);
        gf_lua_setint(L, "total", r[k].total);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 2);
    }
}

static void push_devices(lua_State *L, const gf_trace *t, const gf_busy_row *rows, size_t n)
{
#define BUSY(member) GF_LFIELD(gf_busy_row, member, #member)
    static const gf_lua_field fields[] = {
        BUSY(device), BUSY(ops),  BUSY(first), BUSY(last), BUSY(busy), BUSY(kernel_busy), BUSY(compute),
        BUSY(comm),   BUSY(copy), BUSY(h2d),   BUSY(d2h),  BUSY(d2d),  BUSY(p2p),         BUSY(memset),
        BUSY(overlap),
    };
#undef BUSY
    for (size_t k = 0; k < n; k++) {
        lua_rawgeti(L, -1, (lua_Integer)rows[k].rank + 1); /* the row's group is its step */
        lua_getfield(L, -1, "devices");
        lua_createtable(L, 0, GF_NFIELDS(fields) + 2);
        gf_lua_setfields(L, &rows[k], fields, GF_NFIELDS(fields));
        gf_lua_setint(L, "idle", (rows[k].last - rows[k].first) - rows[k].busy);
        if (rows[k].devname >= 0) {
            gf_lua_trace_str(L, t, rows[k].devname);
            lua_setfield(L, -2, "device_name");
        }
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 2);
    }
}

/* field `key` of the options table at idx: absent (or no table) is true */
static int want(lua_State *L, int idx, const char *key)
{
    if (!lua_istable(L, idx))
        return 1;
    lua_getfield(L, idx, key);
    int v = lua_isnil(L, -1) || lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

static int l_compute(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    int want_kernels = want(L, 4, "kernels"), want_nvtx = want(L, 4, "nvtx");
    size_t nw, ncomm = 0;
    gf_step_win *w = read_wins(L, 2, &nw);
    const char **comm = lua_istable(L, 3) ? gf_lua_str_list(L, 3, &ncomm) : NULL;
    gf_like_set ls = {comm, ncomm, NULL, 0};
    gf_err err;
    int32_t *ev = NULL;
    gf_step_count *cnt = malloc((nw ? nw : 1) * sizeof *cnt);
    gf_busy_row *rows = NULL;
    gf_step_name *kr = NULL, *nr = NULL;
    size_t nrows = 0, nk = 0, nn = 0;
    int rc = cnt ? 0 : gf_errf(&err, GF_EXIT_ERROR, "steps: out of memory");
    if (rc == 0)
        rc = gf_steps_assign(t, w, nw, &ev, &err);
    if (rc == 0)
        rc = gf_steps_count(t, ev, nw, cnt, &err);
    if (rc == 0)
        rc = gf_find_busy_groups(t, ncomm ? &ls : NULL, ev, &rows, &nrows, &err);
    if (rc == 0 && want_kernels)
        rc = gf_steps_kernels(t, ev, &kr, &nk, &err);
    if (rc == 0 && want_nvtx)
        rc = gf_steps_nvtx(t, w, nw, &nr, &nn, &err);
    free(comm);
    free(ev);
    if (rc != 0) {
        free(cnt);
        free(rows);
        free(kr);
        return gf_lua_raise(L, &err);
    }
    lua_createtable(L, (int)nw, 0);
    for (size_t k = 0; k < nw; k++) {
        lua_createtable(L, 0, 8);
        gf_lua_setint(L, "kernels", cnt[k].kernels);
        gf_lua_setint(L, "copies", cnt[k].copies);
        gf_lua_setint(L, "memsets", cnt[k].memsets);
        gf_lua_setint(L, "launches", cnt[k].launches);
        gf_lua_setint(L, "kernel_ns", cnt[k].kernel_ns);
        const char *lists[] = {"devices", "kernels_by_name", "nvtx"};
        for (int j = 0; j < 3; j++) {
            lua_newtable(L);
            lua_setfield(L, -2, lists[j]);
        }
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    push_devices(L, t, rows, nrows);
    push_sums(L, t, kr, nk, "kernels_by_name");
    push_sums(L, t, nr, nn, "nvtx");
    free(cnt);
    free(rows);
    free(kr);
    free(nr);
    return 1;
}

static int l_ranges_key(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    /* policy limits.threads: 0 is every core (gf_threads_resolve), not one */
    int threads = gf_threads_resolve((int)luaL_optinteger(L, 2, 1), 2);
    lua_pushinteger(L, (lua_Integer)gf_steps_ranges_key(t, threads));
    return 1;
}

static int l_nvtx_names(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_nvtx_name *r;
    size_t n;
    gf_err err;
    if (gf_steps_nvtx_names(t, &r, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        /* 8 fields (9 with a domain): Lua sizes a table's hash part to a power of two, so each field more,
         * a rank_label that steps.find does not read, would double it (33k rows, 16 MB on a 5M-event export:
         * issue 42, the timeline's peak RSS) */
        lua_createtable(L, 0, r[k].domain >= 0 ? 9 : 8);
        gf_lua_trace_str(L, t, r[k].name);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "id", r[k].name);
        gf_lua_setint(L, "rank", r[k].rank);
        gf_lua_setint(L, "pid", r[k].pid);
        gf_lua_setint(L, "tid", r[k].tid);
        gf_lua_setint(L, "level", r[k].level);
        if (r[k].domain >= 0) {
            gf_lua_trace_str(L, t, r[k].domain);
            lua_setfield(L, -2, "domain");
        }
        gf_lua_setint(L, "count", r[k].count);
        gf_lua_setint(L, "total", r[k].total);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(r);
    return 1;
}

static int l_nvtx_ranges(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t nid = lua_rawlen(L, 2);
    int32_t *ids = lua_newuserdatauv(L, (nid ? nid : 1) * sizeof *ids, 0);
    for (size_t k = 0; k < nid; k++) {
        lua_rawgeti(L, 2, (lua_Integer)k + 1);
        ids[k] = (int32_t)luaL_checkinteger(L, -1);
        lua_pop(L, 1);
    }
    gf_nvtx_range *r;
    size_t n;
    gf_err err;
    if (gf_steps_nvtx_ranges(t, ids, nid, &r, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_createtable(L, 0, 9);
        gf_lua_setint(L, "start", r[k].start);
        gf_lua_setint(L, "end", r[k].end);
        gf_lua_setint(L, "pid", r[k].pid);
        gf_lua_setint(L, "tid", r[k].tid);
        gf_lua_setint(L, "proc", r[k].proc);
        gf_lua_setint(L, "level", r[k].level);
        gf_lua_trace_str(L, t, r[k].name);
        lua_setfield(L, -2, "name");
        set_rank(L, t, r[k].rank);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(r);
    return 1;
}

int gf_luaopen_trace_steps(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"compute", l_compute},
        {"nvtx_names", l_nvtx_names},
        {"ranges_key", l_ranges_key},
        {"nvtx_ranges", l_nvtx_ranges},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
