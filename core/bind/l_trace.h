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

/* A job that reads the trace at idx on another thread (core/bind/l_trace_proj.c) holds it: while held, the
 * methods that change a trace raise an error, and the trace's __gc first calls join(arg) so that no thread
 * reads a freed trace. join NULL releases it; holding a trace held already raises an error. */
void gf_lua_trace_hold(lua_State *L, int idx, void (*join)(void *), void *arg);
/* The same, the error of a changing method saying "trace is busy: <what> is still running" (a static
 * string; gf_lua_trace_hold's is "its NVTX projection"). */
void gf_lua_trace_hold_as(lua_State *L, int idx, void (*join)(void *), void *arg, const char *what);

/* String id of t's table pushed as a Lua string. */
void gf_lua_trace_str(lua_State *L, const gf_trace *t, int32_t id);
/* The strings of the list at idx (not a table: NULL, *n = 0) as a malloc'd array of borrowed pointers,
 * valid while the table is on the stack. */
const char **gf_lua_str_list(lua_State *L, int idx, size_t *n);
/* The statistics methods of the class (l_trace_stats.c). */
extern const luaL_Reg gf_lua_trace_stats[];

#endif
