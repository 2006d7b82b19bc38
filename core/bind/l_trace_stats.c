/* The Trace userdata's statistics methods (core/trace_stats.c, trace_ranks.c): kernel_stats, launch_stats,
 * gpu_idle, processes, work, rank_stats, rank_kernel_totals. l_trace.c adds them to the class (gf_lua_trace_stats);
 * this file is not a module of its own. */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "l_trace.h"
#include "l_util.h"
#include "trace_ranks.h"
#include "trace_stats.h"
#include "trace_nvtx_group.h"
#include "trace_work.h"

static int kind_arg(lua_State *L, int idx, int def)
{
    const char *k = luaL_optstring(L, idx, NULL);
    if (!k)
        return def;
    for (int i = 0; i < GF_EV_NKINDS; i++)
        if (strcmp(k, gf_ev_kind_names[i]) == 0)
            return i;
    return gf_lua_raisef(L, GF_EXIT_USAGE, "unknown event kind '%s'", k);
}

static void push_names(lua_State *L, gf_trace *t, const int32_t *v)
{
    lua_createtable(L, GF_PROC_NAMES, 0);
    for (int k = 0; k < GF_PROC_NAMES && v[k] >= 0; k++) {
        gf_lua_trace_str(L, t, v[k]);
        lua_rawseti(L, -2, k + 1);
    }
}

/* tr:processes([prefixes]) → {{pid=, events=, gpu_events=, devices={...}, threads={...}, markers={...}}...}:
 * threads and markers are the process's thread and NVTX names that start with one of prefixes */
static int m_processes(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_proc_info *p;
    size_t n, npre;
    gf_err err;
    const char **pre = gf_lua_str_list(L, 2, &npre);
    int rc = gf_trace_processes(t, pre, npre, &p, &n, &err);
    free(pre);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        gf_lua_setint(L, "pid", p[i].pid);
        gf_lua_setint(L, "events", (lua_Integer)p[i].events);
        gf_lua_setint(L, "gpu_events", (lua_Integer)p[i].gpu_events);
        lua_createtable(L, 8, 0);
        for (int k = 0, j = 0; k < 8; k++)
            if (p[i].devices[k] >= 0) {
                gf_lua_trace_str(L, t, p[i].devices[k]);
                lua_rawseti(L, -2, ++j);
            }
        lua_setfield(L, -2, "devices");
        push_names(L, t, p[i].threads);
        lua_setfield(L, -2, "threads");
        push_names(L, t, p[i].markers);
        lua_setfield(L, -2, "markers");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(p);
    return 1;
}

static int m_rank_stats(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    size_t nn, ni;
    const char **nccl = gf_lua_str_list(L, 2, &nn);
    const char **iter = gf_lua_str_list(L, 3, &ni);
    gf_rank_stat *s;
    gf_err err;
    int n = gf_trace_rank_stats(t, nccl, nn, iter, ni, &s, &err);
    free(nccl);
    free(iter);
    if (n < 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const gf_rank_stat *r = &s[i];
        lua_createtable(L, 0, 10);
        if (r->rank >= 0)
            gf_lua_trace_str(L, t, t->rank_label[r->rank]);
        else
            lua_pushstring(L, t->source ? t->source : "?");
        lua_setfield(L, -2, "label");
        gf_lua_setint(L, "first", r->first);
        gf_lua_setint(L, "last", r->last);
        gf_lua_setint(L, "busy", r->busy_ns);
        gf_lua_setint(L, "idle", r->idle_ns);
        gf_lua_setint(L, "kernel", r->kernel_ns);
        gf_lua_setint(L, "nccl", r->nccl_ns);
        gf_lua_setint(L, "kernels", (lua_Integer)r->kernels);
        lua_createtable(L, (int)r->niters, 0);
        for (size_t k = 0; k < r->niters; k++) {
            lua_createtable(L, 0, 5);
            gf_lua_trace_str(L, t, gf_trace_nvtx_group(t, r->iters[k].name)); /* policy nvtx.group */
            lua_setfield(L, -2, "name");
            gf_lua_setint(L, "start", r->iters[k].start);
            gf_lua_setint(L, "dur", r->iters[k].dur);
            gf_lua_setint(L, "compute", r->iters[k].compute_ns);
            gf_lua_setint(L, "nccl", r->iters[k].nccl_ns);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "iterations");
        lua_rawseti(L, -2, i + 1);
    }
    gf_rank_stats_free(s, (size_t)n);
    return 1;
}

static int m_rank_kernel_totals(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_rank_total *v;
    size_t n;
    gf_err err;
    if (gf_trace_rank_kernel_totals(t, kind_arg(L, 2, GF_EV_KERNEL), &v, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        if (v[i].rank >= 0) {
            gf_lua_trace_str(L, t, t->rank_label[v[i].rank]);
            lua_setfield(L, -2, "rank");
        }
        gf_lua_trace_str(L, t, v[i].name);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "total", v[i].total_ns);
        gf_lua_setint(L, "count", (lua_Integer)v[i].count);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(v);
    return 1;
}

/* tr:work(nvtx_depth [, step]) → {{kind = "kernel"|"copy"|"memset"|"nvtx", name=, count=, total_ns=, bytes=, blocks=,
 * threads=}...}: the work the capture did (core/trace_work.h) */
static int m_work(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    static const char *const kinds[] = {"kernel", "copy", "memset", "nvtx"};
    int depth = (int)luaL_optinteger(L, 2, 0);
    gf_work_row *w;
    size_t n;
    gf_err err;
    int rc;
    if (lua_istable(L, 3)) { /* a step {start=, ["end"]=, pid=, rank=}: its work alone */
        gf_step_win st = {gf_req_int_field(L, 3, "start"), gf_req_int_field(L, 3, "end"), gf_req_int_field(L, 3, "pid"),
                          -1, (int32_t)gf_opt_int_field(L, 3, "rank", -1), -1, 0};
        rc = gf_trace_work_step(t, depth, &st, &w, &n, &err);
    } else {
        rc = gf_trace_work(t, depth, &w, &n, &err);
    }
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 7);
        lua_pushstring(L, kinds[w[i].kind]);
        lua_setfield(L, -2, "kind");
        if (w[i].name >= 0)
            gf_lua_trace_str(L, t, w[i].name);
        else
            lua_pushstring(L, "?");
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "count", w[i].count);
        gf_lua_setint(L, "total_ns", w[i].total_ns);
        gf_lua_setint(L, "bytes", w[i].bytes);
        gf_lua_setint(L, "blocks", w[i].blocks);
        gf_lua_setint(L, "threads", w[i].threads);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(w);
    return 1;
}

static int m_kernel_stats(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    int kind = kind_arg(L, 2, GF_EV_KERNEL);
    gf_name_stat *s;
    size_t n;
    gf_err err;
    if (gf_trace_name_stats(t, kind, &s, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 6);
        gf_lua_trace_str(L, t, s[i].name);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "count", (lua_Integer)s[i].count);
        gf_lua_setint(L, "total", s[i].total);
        gf_lua_setint(L, "min", s[i].min);
        gf_lua_setint(L, "max", s[i].max);
        lua_pushnumber(L, (lua_Number)s[i].total / (lua_Number)s[i].count);
        lua_setfield(L, -2, "mean");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(s);
    return 1;
}

static int m_launch_stats(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_launch_stat *s;
    size_t n;
    gf_err err;
    if (gf_trace_launch_stats(t, luaL_checkinteger(L, 2), &s, &n, &err) != 0) /* policy timeline.late_launch_ns */
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 10);
        gf_lua_trace_str(L, t, s[i].name);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "kernels", (lua_Integer)s[i].kernels);
        gf_lua_setint(L, "launched", (lua_Integer)s[i].launched);
        gf_lua_setint(L, "kernel_total", s[i].kernel_total);
        gf_lua_setint(L, "api_total", s[i].api_total);
        gf_lua_setint(L, "api_max", s[i].api_max);
        gf_lua_setint(L, "delay_total", s[i].delay_total);
        gf_lua_setint(L, "delay_max", s[i].delay_max);
        gf_lua_setint(L, "shorter_than_launch", (lua_Integer)s[i].shorter_than_launch);
        gf_lua_setint(L, "late", (lua_Integer)s[i].late);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(s);
    return 1;
}

static int m_gpu_idle(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_idle_stat *s;
    size_t n;
    gf_err err;
    if (gf_trace_gpu_idle(t, luaL_checkinteger(L, 2), &s, &n, &err) != 0) /* policy timeline.short_gap_ns */
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 10);
        gf_lua_trace_str(L, t, t->lanes[s[i].lane].label);
        lua_setfield(L, -2, "lane");
        gf_lua_setint(L, "ops", (lua_Integer)s[i].ops);
        gf_lua_setint(L, "span", s[i].span);
        gf_lua_setint(L, "busy", s[i].busy);
        gf_lua_setint(L, "idle", s[i].idle);
        gf_lua_setint(L, "host_wait", s[i].host_wait);
        gf_lua_setint(L, "kernel_wait", s[i].kernel_wait);
        gf_lua_setint(L, "other", s[i].other);
        gf_lua_setint(L, "gaps", (lua_Integer)s[i].gaps);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(s);
    return 1;
}

const luaL_Reg gf_lua_trace_stats[] = {
    {"kernel_stats", m_kernel_stats},
    {"launch_stats", m_launch_stats},
    {"gpu_idle", m_gpu_idle},
    {"processes", m_processes},
    {"work", m_work},
    {"rank_stats", m_rank_stats},
    {"rank_kernel_totals", m_rank_kernel_totals},
    {NULL, NULL},
};
