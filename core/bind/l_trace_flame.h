/* core/bind/l_trace_flame.c's raw NVTX names table, for core/bind/l_flame_job.c. */
#ifndef GF_L_TRACE_FLAME_H
#define GF_L_TRACE_FLAME_H

#include <lua.h>
#include "trace_flame.h"

/* Pushes {[frame text of s] = {raw name of t, ...}} in first-seen order; frees raw's arrays. */
void gf_lua_push_flame_raw(lua_State *L, const gf_trace *t, const gf_stacks *s, gf_flame_raw *raw);

#endif
