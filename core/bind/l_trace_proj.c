/* core.trace_proj: the timeline's NVTX projection computed on a second thread while the rules run
 * (core/trace_proj_job.c), for lua/gpuflame/trace.lua's nvtx_proj_start.
 *
 *   core.trace_proj.parallel(threads) → whether policy limits.threads gives the projection a thread of its own
 *   local job = core.trace_proj.start(tr, sqlite_path, max, threads) -- nil: threads resolve to 1 (no thread)
 *   local n, read_s, wait_s = job:finish() -- joins the thread, merges the events into tr (tr:add_nvtx_proj's
 *                               result); the projection's wall seconds on its thread, finish's wait for it
 *   job:close() → bool       -- joins and frees (also __close and __gc): never a thread left running; true
 *                               when the job was still open (nothing merged)
 *
 * While the job runs it holds tr (core/bind/l_trace.h gf_lua_trace_hold): the methods that change a trace
 * raise an error, and a trace collected first joins the thread before it is freed. */
#include <lauxlib.h>
#include <lua.h>

#include "l_trace.h"
#include "l_util.h"
#include "mem.h"
#include "threads.h"
#include "trace.h"
#include "trace_proj_job.h"

#define JOB_MT "gpuflame.trace_proj_job"

static void free_proj_job(void *job)
{
    gf_trace_nvtx_proj_job_free(job);
}

static int l_start(lua_State *L)
{
    const gf_trace *t = gf_lua_check_trace(L, 1);
    const char *path = luaL_checkstring(L, 2);
    lua_Integer max = luaL_checkinteger(L, 3);
    lua_Integer threads = luaL_optinteger(L, 4, 0);
    if (max < 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "nvtx_proj start: max must be >= 0");
    if (threads < 0 || threads > 1024)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "threads must be 0..1024");
    if (gf_threads_resolve((int)threads, 2) < 2) {
        lua_pushnil(L); /* one thread: the caller projects in one call (tr:add_nvtx_proj) */
        return 1;
    }
    gf_trace_job *u = lua_newuserdatauv(L, sizeof *u, 1);
    *u = (gf_trace_job){NULL, free_proj_job};
    luaL_setmetatable(L, JOB_MT);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1); /* the trace lives while the job does */
    gf_lua_trace_hold(L, 1, u, "its NVTX projection"); /* raises when another job holds it: nothing started yet */
    gf_err err;
    if (!(u->job = gf_trace_nvtx_proj_start(t, path, (size_t)max, &err))) {
        gf_lua_trace_job_release(L, -1, u);
        return gf_lua_raise(L, &err);
    }
    return 1;
}

static int l_parallel(lua_State *L)
{
    lua_Integer threads = luaL_optinteger(L, 1, 0);
    lua_pushboolean(L, threads >= 0 && threads <= 1024 && gf_threads_resolve((int)threads, 2) >= 2);
    return 1;
}

static int m_finish(lua_State *L)
{
    gf_trace_job *u = luaL_checkudata(L, 1, JOB_MT);
    gf_nvtx_proj_job *job = u->job;
    if (!job)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "nvtx_proj job: finished or closed already");
    lua_getiuservalue(L, 1, 1);
    gf_trace *t = gf_lua_check_trace(L, -1);
    gf_err err;
    size_t added = 0;
    gf_mem_release_free(); /* the rules' Lua garbage, collected just before (views/timeline.lua): issue 42 */
    int rc = gf_trace_nvtx_proj_finish(t, job, &added, &err);
    double read_s, wait_s;
    gf_trace_nvtx_proj_times(job, &read_s, &wait_s);
    gf_lua_trace_job_release(L, 1, u); /* joined: the trace is the caller's again */
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)added);
    lua_pushnumber(L, read_s);
    lua_pushnumber(L, wait_s);
    return 3;
}

/* close() → true when the job was still open (its thread joined, nothing merged), false when done already */
static int m_close(lua_State *L)
{
    return gf_lua_trace_job_close(L, JOB_MT);
}

int gf_luaopen_trace_proj(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"finish", m_finish},
        {"close", m_close},
        {NULL, NULL},
    };
    gf_new_class(L, JOB_MT, methods, m_close);
    luaL_getmetatable(L, JOB_MT);
    lua_pushcfunction(L, m_close);
    lua_setfield(L, -2, "__close"); /* `local job <close>`: joined when a Lua error unwinds past it */
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"start", l_start},
        {"parallel", l_parallel},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
