/* core.flame_job: the hierarchical flamegraph's stacks (and the page's fold of them) built on a second
 * thread while the findings panel's rules run (core/trace_flame_job.c), for lua/gpuflame/flamegraph.lua's
 * start_from_trace.
 *
 *   core.flame_job.start(tr, S, F, {levels=, startend=, nolaunch=}, {share=, min=, name=}, threads, groups)
 *       → job, or nil when policy limits.threads (threads) resolves to 1 (the caller builds serially)
 *     groups true: the thread finds the launches' partners, then waits for job:set_groups(map) (the
 *     caller's NVTX grouping of tr, computed meanwhile: nvtx_group.map), which sets them on tr as
 *     tr:set_nvtx_groups(map) would; finish before it goes on with the names as they are
 *     S receives tr's GPU stacks (core.trace_flame.stacks's), F their fold (gf_stacks_fold with
 *     ceil(S:total() * share) when share > 0 and S has more than min stacks and a total > 0)
 *   job:finish() → raw, nodes, weight, run_s, wait_s, run_cpu, caller_cpu: joins; raw as
 *     core.trace_flame.stacks returns it; nodes > 0 when F holds the fold (its frames folded and their
 *     weight), 0: the page draws S; the work's wall seconds on its thread, finish's wait for it, the work's
 *     CPU seconds, and the calling thread's CPU seconds while it ran (the rules)
 *   job:set_groups(map): see start's groups; once
 *   job:close() → bool: joins and frees (also __close and __gc); true when still open
 *
 * While the job runs it holds tr (core/bind/l_trace.h gf_lua_trace_hold: the methods that change a trace
 * raise, a trace collected first joins the thread), and S and F are its uservalues: the caller must not
 * touch them until finish. */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "l_stacks.h"
#include "l_trace.h"
#include "l_trace_flame.h"
#include "l_util.h"
#include "threads.h"
#include "trace_flame_job.h"

#define JOB_MT "gpuflame.flame_job"

static void free_flame_job(void *job)
{
    gf_trace_flame_job_free(job);
}

static int l_start(lua_State *L)
{
    const gf_trace *t = gf_lua_check_trace(L, 1);
    gf_stacks *s = gf_lua_checkstacks(L, 2), *f = gf_lua_checkstacks(L, 3);
    int lv[GF_FL_NLEVELS];
    gf_gpu_flame_opts o;
    gf_lua_check_flame_levels(L, 4, &o, lv);
    luaL_checktype(L, 5, LUA_TTABLE);
    lua_getfield(L, 5, "share");
    double share = luaL_checknumber(L, -1);
    lua_pop(L, 1);
    lua_Integer min = gf_req_int_field(L, 5, "min");
    const char *name = gf_req_string_field(L, 5, "name");
    lua_Integer threads = luaL_optinteger(L, 6, 0);
    int groups = lua_toboolean(L, 7);
    if (threads < 0 || threads > 1024)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "threads must be 0..1024");
    if (s == f)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "flame_job: the stacks and their fold must be two tables");
    if (gf_threads_resolve((int)threads, 2) < 2) {
        lua_pushnil(L);
        return 1;
    }
    gf_trace_job *u = lua_newuserdatauv(L, sizeof *u, 3);
    *u = (gf_trace_job){NULL, free_flame_job};
    luaL_setmetatable(L, JOB_MT);
    for (int k = 1; k <= 3; k++) { /* the trace and both tables live while the job does */
        lua_pushvalue(L, k);
        lua_setiuservalue(L, -2, k);
    }
    /* raises when another job holds it: nothing started yet */
    gf_lua_trace_hold(L, 1, u, "the flamegraph's stack build");
    gf_err err;
    if (!(u->job = gf_trace_flame_job_start(t, &o, s, f, share, (int64_t)min, name, (int)threads, groups, &err))) {
        gf_lua_trace_job_release(L, -1, u);
        return gf_lua_raise(L, &err);
    }
    return 1;
}

static int m_finish(lua_State *L)
{
    gf_trace_job *u = luaL_checkudata(L, 1, JOB_MT);
    gf_flame_job *job = u->job;
    if (!job)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "flame job: finished or closed already");
    lua_getiuservalue(L, 1, 1);
    const gf_trace *t = gf_lua_check_trace(L, -1);
    lua_getiuservalue(L, 1, 2);
    const gf_stacks *s = gf_lua_checkstacks(L, -1);
    gf_flame_raw raw;
    gf_fold_stats st;
    gf_err err;
    int rc = gf_trace_flame_job_finish(job, &raw, &st, &err);
    double run_s, wait_s, run_cpu, caller_cpu;
    gf_trace_flame_job_times(job, &run_s, &wait_s, &run_cpu, &caller_cpu);
    gf_lua_trace_job_release(L, 1, u); /* joined: the trace and the tables are the caller's again */
    if (rc != 0) {
        free(raw.frame);
        free(raw.name);
        return gf_lua_raise(L, &err);
    }
    gf_lua_push_flame_raw(L, t, s, &raw);
    lua_pushinteger(L, (lua_Integer)st.nodes);
    lua_pushinteger(L, (lua_Integer)st.weight);
    lua_pushnumber(L, run_s);
    lua_pushnumber(L, wait_s);
    lua_pushnumber(L, run_cpu);
    lua_pushnumber(L, caller_cpu);
    return 7;
}

typedef struct groups_to {
    gf_flame_job *job;
    gf_trace *t;
} groups_to;

static int set_through_job(void *ctx, const int32_t *raw, const char *const *text, const size_t *len, size_t n,
                           gf_err *err)
{
    groups_to *g = ctx;
    return gf_trace_flame_job_set_groups(g->job, g->t, raw, text, len, n, err);
}

static int m_set_groups(lua_State *L)
{
    gf_trace_job *u = luaL_checkudata(L, 1, JOB_MT);
    if (!u->job)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "flame job: finished or closed already");
    lua_getiuservalue(L, 1, 1);
    groups_to g = {u->job, gf_lua_check_trace(L, -1)};
    lua_pop(L, 1);
    gf_lua_set_nvtx_groups(L, 2, set_through_job, &g);
    return 0;
}

static int m_close(lua_State *L)
{
    return gf_lua_trace_job_close(L, JOB_MT);
}

int gf_luaopen_flame_job(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"finish", m_finish},
        {"set_groups", m_set_groups},
        {"close", m_close},
        {NULL, NULL},
    };
    gf_new_class(L, JOB_MT, methods, m_close);
    luaL_getmetatable(L, JOB_MT);
    lua_pushcfunction(L, m_close);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"start", l_start},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
