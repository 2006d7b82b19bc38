/* Binding: the hierarchical GPU flamegraph over a trace (core/trace_flame.c).
 *
 *   core.trace_flame.stacks(tr, S, {levels = {"process", "nvtx", ...}, startend = bool, nolaunch = "...",
 *                                   step = nil | {start=, ["end"]=, pid=, rank=},
 *                                   processes = {{pid=, rank=, name=}...} (optional: process frames by name),
 *                                   fold = {share=, min=, name=} (optional: for a page, core/flame_fold.c),
 *                                   use_up = bool (optional: tr is read by nothing after, and has no events after)})
 *     adds tr's GPU operations to the Stacks S (weights in ns, instances, frame kinds); with step, only those
 *     launched inside it (core/trace_steps.h); returns the raw names behind each NVTX frame of a grouped
 *     trace ({[frame text] = {raw text, ...}}; {} when not grouped); with fold, S may come folded in part
 *     (its prefold(): the distinct stacks there would be, and what was folded)
 *   core.trace_flame.write_speedscope(tr, path, {levels = ..., startend =, nolaunch =, name =, max_events =})
 *     speedscope's file: the sampled profile of the same stacks, then an evented profile per stream
 * Every option is required (policy flamegraph.levels, .nvtx_startend, .nolaunch_frame, .speedscope_events). */
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "l_stacks.h"
#include "l_trace_flame.h"
#include "l_trace.h"
#include "l_util.h"
#include "trace_flame.h"

void gf_lua_check_flame_levels(lua_State *L, int idx, gf_gpu_flame_opts *o, int *lv)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "levels");
    if (!lua_istable(L, -1))
        gf_lua_raisef(L, GF_EXIT_USAGE, "flamegraph: levels must be a list");
    size_t n = lua_rawlen(L, -1);
    if (n == 0 || n > GF_FL_NLEVELS)
        gf_lua_raisef(L, GF_EXIT_USAGE, "flamegraph: levels must list 1 to %d levels", GF_FL_NLEVELS);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        const char *s = lua_tostring(L, -1);
        int k = -1;
        for (int j = 0; s && j < GF_FL_NLEVELS; j++)
            if (strcmp(s, gf_flame_level_names[j]) == 0)
                k = j;
        if (k < 0)
            gf_lua_raisef(L, GF_EXIT_USAGE, "flamegraph: unknown level '%s'", s ? s : "?");
        lv[i] = k;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, idx, "startend");
    if (!lua_isboolean(L, -1))
        gf_lua_raisef(L, GF_EXIT_USAGE, "flamegraph: startend must be a boolean");
    *o = (gf_gpu_flame_opts){lv, n, lua_toboolean(L, -1), gf_req_string_field(L, idx, "nolaunch"),
                             NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0.0, 0};
    lua_pop(L, 1);
}

/* opts at idx → o (levels into lv) */
static void check_opts(lua_State *L, int idx, gf_gpu_flame_opts *o, int *lv)
{
    gf_lua_check_flame_levels(L, idx, o, lv);
    lua_getfield(L, idx, "processes"); /* optional: {{pid=, rank=(0-based, or absent), name=}...} */
    if (lua_istable(L, -1)) {
        size_t np = lua_rawlen(L, -1);
        /* one userdata holds the three arrays (freed by the GC, also when a field raises); it stays on the
         * stack while the caller's call runs (the names are anchored by the opts table) */
        size_t sz = np * (sizeof(int64_t) + sizeof(int32_t) + sizeof(char *)) + 1;
        char *mem = lua_newuserdatauv(L, sz, 0);
        lua_insert(L, -2);
        int64_t *pid = (int64_t *)(void *)mem;
        const char **name = (const char **)(void *)(mem + np * sizeof(int64_t));
        int32_t *rank = (int32_t *)(void *)(mem + np * (sizeof(int64_t) + sizeof(char *)));
        for (size_t i = 0; i < np; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            if (!lua_istable(L, -1))
                gf_lua_raisef(L, GF_EXIT_USAGE, "flamegraph: processes[%zu] must be a table", i + 1);
            pid[i] = gf_req_int_field(L, -1, "pid");
            lua_getfield(L, -1, "rank");
            rank[i] = lua_isinteger(L, -1) ? (int32_t)lua_tointeger(L, -1) : -1;
            lua_pop(L, 1);
            name[i] = gf_req_string_field(L, -1, "name");
            lua_pop(L, 1);
        }
        o->proc_pid = pid;
        o->proc_rank = rank;
        o->proc_name = name;
        o->nproc = np;
    }
    lua_pop(L, 1);
    lua_getfield(L, idx, "fold"); /* optional: {share=, min=, name=}, the page's (policy flamegraph.fold_share) */
    if (lua_istable(L, -1)) {
        o->fold_share = gf_opt_num_field(L, -1, "share", 0);
        o->fold_min_stacks = gf_req_int_field(L, -1, "min");
        o->fold_name = gf_req_string_field(L, -1, "name"); /* anchored by the opts table */
    }
    lua_pop(L, 1);
}

/* the optional step = {start=, ["end"]=, pid=, rank=} of opts at idx into *w (o->step set when given) */
static void check_step(lua_State *L, int idx, gf_gpu_flame_opts *o, gf_step_win *w)
{
    lua_getfield(L, idx, "step");
    int top = lua_gettop(L);
    if (lua_istable(L, top)) {
        *w = (gf_step_win){gf_req_int_field(L, top, "start"), gf_req_int_field(L, top, "end"),
                           gf_req_int_field(L, top, "pid"), -1, (int32_t)gf_opt_int_field(L, top, "rank", -1), -1, 0};
        o->step = w;
    }
    lua_pop(L, 1);
}

/* {[frame text] = {raw name, ...}} in first-seen order; frees raw's arrays */
void gf_lua_push_flame_raw(lua_State *L, const gf_trace *t, const gf_stacks *s, gf_flame_raw *raw)
{
    lua_createtable(L, 0, 0);
    for (size_t k = 0; k < raw->n; k++) {
        size_t len;
        const char *fr = gf_stacks_frame(s, raw->frame[k], &len);
        lua_pushlstring(L, fr, len);
        if (lua_rawget(L, -2) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 1, 0);
            lua_pushlstring(L, fr, len);
            lua_pushvalue(L, -2);
            lua_rawset(L, -4);
        }
        gf_lua_trace_str(L, t, raw->name[k]);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 1);
    }
    free(raw->frame);
    free(raw->name);
    raw->frame = NULL;
    raw->name = NULL;
    raw->n = raw->cap = 0;
}

static int l_stacks(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_stacks *s = gf_lua_checkstacks(L, 2);
    int lv[GF_FL_NLEVELS];
    gf_gpu_flame_opts o;
    check_opts(L, 3, &o, lv);
    gf_step_win w;
    check_step(L, 3, &o, &w);
    gf_flame_raw raw = {NULL, NULL, 0, 0};
    o.raw = &raw;
    gf_err err;
    int rc = gf_opt_bool_field(L, 3, "use_up", 0) ? gf_trace_gpu_stacks_use_up(t, &o, s, &err)
                                                  : gf_trace_gpu_stacks(t, &o, s, NULL, &err);
    if (rc != 0) {
        free(raw.frame);
        free(raw.name);
        return gf_lua_raise(L, &err);
    }
    gf_lua_push_flame_raw(L, t, s, &raw);
    return 1;
}

static int l_write_speedscope(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    const char *path = luaL_checkstring(L, 2);
    int lv[GF_FL_NLEVELS];
    gf_gpu_flame_opts o;
    check_opts(L, 3, &o, lv);
    const char *name = gf_req_string_field(L, 3, "name");
    lua_Integer max = gf_req_int_field(L, 3, "max_events");
    if (max < 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "speedscope: max_events must be >= 0");
    gf_out out;
    gf_err err;
    if (gf_out_open(&out, path, &err) != 0)
        return gf_lua_raise(L, &err);
    if (gf_trace_write_gpu_speedscope(t, &o, name, (size_t)max, out.fp, &err) != 0) {
        gf_out_fail(&out, &err);
        return gf_lua_raise(L, &err);
    }
    if (gf_out_commit_unless_interrupted(&out, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

int gf_luaopen_trace_flame(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"stacks", l_stacks},
        {"write_speedscope", l_write_speedscope},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
