/* The Trace userdata of core/bind/l_trace.c, for other bindings that compute over it (core/bind/l_findings.c, l_model.c, l_mpi.c). */
#ifndef GF_L_TRACE_H
#define GF_L_TRACE_H

#include <lauxlib.h>
#include <lua.h>

#include "trace.h"

/* The trace at stack index idx (a `core.trace` object); raises a Lua error when it is not one or closed. */
gf_trace *gf_lua_check_trace(lua_State *L, int idx);

/* Pushes a `core.trace` object that owns t (a finished trace; freed with the object). */
void gf_lua_push_trace(lua_State *L, gf_trace *t);

/* A job's userdata that reads a trace on another thread (core/bind/l_trace_proj.c, l_flame_job.c,
 * l_trace_findings.c): job and the function that joins and frees it. The trace is the userdata's uservalue 1. */
typedef struct gf_trace_job {
    void *job;
    void (*free_job)(void *);
} gf_trace_job;

/* The trace at idx held by u (u->job set): while held, the methods that change a trace raise "trace is busy:
 * <what> is still running" (what: a static string), and the trace's __gc first joins and frees u's job so
 * that no thread reads a freed trace. Holding a trace held already raises an error. */
void gf_lua_trace_hold(lua_State *L, int idx, gf_trace_job *u, const char *what);
/* Joins and frees u's job, when it still has one, and releases the trace's hold when u holds it (the trace
 * is uservalue 1 of the job's userdata at ud_idx); also for a job that failed to start after the hold. */
void gf_lua_trace_job_release(lua_State *L, int ud_idx, gf_trace_job *u);
/* job:close() of the class mt (also __close and __gc): true when the job was still open. */
int gf_lua_trace_job_close(lua_State *L, const char *mt);

/* String id of t's table pushed as a Lua string. */
void gf_lua_trace_str(lua_State *L, const gf_trace *t, int32_t id);
/* The strings of the list at idx (not a table: NULL, *n = 0) as a malloc'd array of borrowed pointers,
 * valid while the table is on the stack. */
const char **gf_lua_str_list(lua_State *L, int idx, size_t *n);
/* The NVTX groups' table at idx ({[name id] = grouped text}: nvtx_group.lua) handed to set(ctx, raw name ids,
 * texts, their lengths, n, err) (gf_trace_set_nvtx_group's arguments); raises on a bad table or set's error. */
typedef int (*gf_lua_groups_setter)(void *ctx, const int32_t *raw, const char *const *text, const size_t *len,
                                    size_t n, gf_err *err);
void gf_lua_set_nvtx_groups(lua_State *L, int idx, gf_lua_groups_setter set, void *ctx);
/* The statistics methods of the class (l_trace_stats.c). */
extern const luaL_Reg gf_lua_trace_stats[];

#endif
