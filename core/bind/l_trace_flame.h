/* core/bind/l_trace_flame.c's options check and raw NVTX names table, for core/bind/l_flame_job.c. */
#ifndef GF_L_TRACE_FLAME_H
#define GF_L_TRACE_FLAME_H

#include <lua.h>
#include "trace_flame.h"

/* The levels, startend and nolaunch of the options table at idx into o (levels into lv, GF_FL_NLEVELS
 * entries); o's other fields cleared. Raises a usage error naming the bad field. */
void gf_lua_check_flame_levels(lua_State *L, int idx, gf_gpu_flame_opts *o, int *lv);

/* Pushes {[frame text of s] = {raw name of t, ...}} in first-seen order; frees raw's arrays. */
void gf_lua_push_flame_raw(lua_State *L, const gf_trace *t, const gf_stacks *s, gf_flame_raw *raw);

#endif
