/* Binding: the Trace model (core/trace*.c).
 *
 *   local tr = core.trace.open_sqlite(path, {max_events=, keep_partners=, stacks=, cpu={osrt=, samples=, running=},
 *                                           threads=, narrow=, unordered=})  (narrow: the GPU stacks' columns only,
 *                                           trace_sqlite.h; unordered: with narrow, not sorted by start: for a page's
 *                                           stacks alone, tr:count() and core.trace_flame.stacks without a step)
 *   local tr = core.trace.open_csv({api=, gpu=, api_cols={start=1,...}, gpu_cols={...}, max_events=, keep_partners=})
 *   tr:count(), tr:total(), tr:counts(), tr:totals(), tr:lanes(), tr:warnings(), tr:warn(msg), tr:source(),
 *   tr:clock_alignment([text]), tr:nvtx_names() → {[id] = text}, tr:set_nvtx_groups({[id] = text}) (gpuflame.nvtx_group)
 *   tr:trim(n [, keep_partners]), tr:event(i), tr:flame() → {total=, entries=, stacks=, launches=}
 *   tr:write_timeline(template_text, out_path, slots, template_name [, flame_min])  -- slot data = the JSON;
 *     slots.title is required (policy timeline.title); a {json = function} slot is called once the page's
 *     columns are compressing (the trace refuses changes meanwhile)
 *   tr:timeline_json(title [, flame_min]) → string (tests), tr:write_chrome_trace(path), tr:write_launch_folded(path)
 *   tr:kernel_stats([kind]), tr:launch_stats(late_ns), tr:gpu_idle(short_gap_ns) → lists of rows
 * Several reports (trace_ranks.c):
 *   core.trace.merge({tr...}, {offsets={ns...}, ranks={label...}, spec={{src=1, pid=, rank=1}...},
 *                    max_events=, keep_partners= [, touch={string...}]}) → merged trace (src and rank 1-based;
 *                    pid nil = default; touch: the sources are digests, core.mpi.digest, with these lane touches)
 *   core.trace.open_sqlite_workers({path...}, {workers=, scratch=, stacks=, keep_partners=}) → {trace...}
 *   core.trace.sqlite_meta(path, {ENV_NAME...}) → {session_start=, session_field=, host=, kv={[k]=v}}
 *   tr:processes() → {{pid=, events=, gpu_events=, devices={...}}...}, tr:ranks() → {label...}
 *   tr:work([nvtx_depth]) → per kernel name, copy direction, memset, NVTX name: count, total_ns, bytes, blocks, threads
 *   tr:rank_stats({nccl prefix...}, {iteration prefix...}) → per rank rows (see trace_ranks.h)
 *   tr:rank_kernel_totals([kind]) → {{rank=label|nil, name=, total=, count=}...}
 * A trace is also a render slot: core.render.render(t, {data = {data = tr}}, out). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "l_render.h"
#include "l_stacks.h"
#include "l_util.h"
#include "render.h"
#include "trace.h"
#include "trace_csv.h"
#include "trace_ranks.h"
#include "trace_sqlite.h"
#include "sqlite_meta.h"
#include "trace_stats.h"
#include "trace_workers.h"
#include "log.h"
#include "mem.h"
#include "l_trace.h"
#include "trace_build.h"
#include "trace_json.h"
#include "trace_proj.h"
#include "trace_trim.h"
#include "trace_nvtx_group.h"

#define TRACE_MT "gpuflame.trace"

typedef struct ud {
    gf_trace *t;
    const char *title; /* for the slot writer; owned by the caller during a render */
    const char *initial_view; /* slots.initial_view (policy timeline.initial_view) or NULL */
    double flame_min;  /* launchFlame folding threshold (share of the total) */
    int compress;      /* slots.compress (policy timeline.compress) */
    int threads;       /* slots.threads (policy limits.threads) */
    lua_Integer view_events, preview_min; /* slots.view_events, slots.preview_min_events (policy timeline.*) */
    gf_trace_job *job; /* gf_lua_trace_hold: a thread reads the trace until the job is freed */
    const char *busy;  /* what that thread is, for the error of a changing method */
    gf_timeline_page *page; /* during write_timeline: the page begun before its template is rendered */
} ud;

static ud *check_ud(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, TRACE_MT);
    if (!u->t)
        gf_lua_raisef(L, GF_EXIT_ERROR, "trace is closed");
    return u;
}

static gf_trace *check(lua_State *L)
{
    return check_ud(L)->t;
}

/* The trace, for a method that changes it: never while a thread reads it (gf_lua_trace_hold). */
static gf_trace *check_idle(lua_State *L)
{
    ud *u = check_ud(L);
    if (u->job)
        gf_lua_raisef(L, GF_EXIT_ERROR, "trace is busy: %s is still running", u->busy);
    if (u->page) /* a slot's json function (write_timeline): the page's workers read the trace */
        gf_lua_raisef(L, GF_EXIT_ERROR, "trace is busy: its timeline page is being written");
    return u->t;
}

void gf_lua_trace_hold(lua_State *L, int idx, gf_trace_job *job, const char *what)
{
    ud *u = luaL_checkudata(L, idx, TRACE_MT);
    if (u->job)
        gf_lua_raisef(L, GF_EXIT_ERROR, "trace is busy: %s is still running", u->busy);
    u->job = job;
    u->busy = what;
}

/* Joins and frees the job: a trace collected first (l_gc) or the job's release. */
static void free_job(gf_trace_job *job)
{
    if (job->job)
        job->free_job(job->job);
    job->job = NULL;
}

void gf_lua_trace_job_release(lua_State *L, int ud_idx, gf_trace_job *job)
{
    free_job(job);
    if (lua_getiuservalue(L, ud_idx, 1) == LUA_TUSERDATA) {
        ud *u = luaL_testudata(L, -1, TRACE_MT);
        if (u && u->job == job) /* a hold of this job's only: also after a start that failed */
            u->job = NULL;
    }
    lua_pop(L, 1);
}

int gf_lua_trace_job_close(lua_State *L, const char *mt)
{
    gf_trace_job *job = luaL_checkudata(L, 1, mt);
    int open = job->job != NULL;
    gf_lua_trace_job_release(L, 1, job);
    lua_pushboolean(L, open);
    return 1;
}

gf_trace *gf_lua_check_trace(lua_State *L, int idx)
{
    ud *u = luaL_checkudata(L, idx, TRACE_MT);
    if (!u->t)
        gf_lua_raisef(L, GF_EXIT_ERROR, "trace is closed");
    return u->t;
}

static ud *new_ud(lua_State *L)
{
    ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    memset(u, 0, sizeof *u);
    luaL_setmetatable(L, TRACE_MT);
    u->t = gf_trace_new();
    if (!u->t)
        gf_lua_raisef(L, GF_EXIT_ERROR, "trace: out of memory");
    return u;
}

void gf_lua_push_trace(lua_State *L, gf_trace *t)
{
    ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    memset(u, 0, sizeof *u);
    u->t = t;
    luaL_setmetatable(L, TRACE_MT);
}

static void begin(lua_State *L, gf_trace *t, int opts)
{
    lua_Integer max = gf_opt_int_field(L, opts, "max_events", 0);
    if (max < 0)
        gf_lua_raisef(L, GF_EXIT_USAGE, "max_events must be >= 0");
    gf_err err;
    if (gf_trace_begin(t, (size_t)max, gf_opt_bool_field(L, opts, "keep_partners", 1), &err) != 0)
        gf_lua_raise(L, &err);
}

/* opts.cpu = {osrt=, samples=, running=, max_samples=} (policy timeline.cpu); absent: none */
static gf_sqlite_opts sqlite_opts(lua_State *L, int idx)
{
    gf_sqlite_opts o = {gf_opt_bool_field(L, idx, "stacks", 0), {0, 0}, 0, gf_opt_bool_field(L, idx, "narrow", 0),
                        gf_opt_bool_field(L, idx, "unordered", 0)};
    lua_Integer threads = gf_opt_int_field(L, idx, "threads", 0);
    if (threads < 0 || threads > 1024)
        gf_lua_raisef(L, GF_EXIT_USAGE, "threads must be 0..1024");
    o.threads = (int)threads;
    lua_getfield(L, idx, "cpu");
    if (lua_istable(L, -1)) {
        int t = lua_gettop(L);
        o.cpu.what = (gf_opt_bool_field(L, t, "osrt", 0) ? GF_CPU_OSRT : 0) |
                     (gf_opt_bool_field(L, t, "samples", 0) ? GF_CPU_SAMPLES : 0) |
                     (gf_opt_bool_field(L, t, "running", 0) ? GF_CPU_RUNNING : 0);
        lua_Integer max = gf_opt_int_field(L, t, "max_samples", 0);
        if (max < 0)
            gf_lua_raisef(L, GF_EXIT_USAGE, "cpu.max_samples must be >= 0");
        o.cpu.max_samples = max;
    } else if (!lua_isnil(L, -1)) {
        gf_lua_raisef(L, GF_EXIT_USAGE, "cpu must be a table {osrt=, samples=, running=, max_samples=}");
    }
    lua_pop(L, 1);
    return o;
}

static int l_open_sqlite(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    ud *u = new_ud(L);
    begin(L, u->t, 2);
    gf_sqlite_opts o = sqlite_opts(L, 2);
    gf_err err;
    if (gf_trace_import_sqlite(u->t, path, &o, &err) != 0) {
        gf_trace_free(u->t);
        u->t = NULL;
        return gf_lua_raise(L, &err);
    }
    return 1;
}

static void import_progress(void *ctx, size_t done, size_t n, const char *path)
{
    (void)ctx;
    gf_log(GF_LOG_INFO, "imported %zu/%zu reports (%s)", done, n, path);
}

/* core.trace.open_sqlite_workers({path...}, {workers=, scratch=, stacks=, keep_partners=}) → {trace...}:
 * one worker process per export, at most `workers` at a time (trace_workers.h) */
static int l_open_sqlite_workers(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t n = lua_rawlen(L, 1);
    /* userdata, so that a Lua error below frees them */
    const char **paths = lua_newuserdatauv(L, (n ? n : 1) * sizeof *paths, 0);
    gf_trace **out = lua_newuserdatauv(L, (n ? n : 1) * sizeof *out, 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (lua_Integer)i + 1);
        paths[i] = luaL_checkstring(L, -1); /* stays referenced by the argument table */
        lua_pop(L, 1);
    }
    lua_getfield(L, 2, "scratch");
    const char *scratch = luaL_checkstring(L, -1);
    lua_Integer workers = gf_opt_int_field(L, 2, "workers", 1);
    gf_import_job job = {paths, n, sqlite_opts(L, 2), gf_opt_bool_field(L, 2, "keep_partners", 1),
                         workers < 1 ? 1 : (int)workers, scratch, import_progress, NULL};
    gf_err err;
    if (gf_trace_import_workers(&job, out, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        ud *u = lua_newuserdatauv(L, sizeof *u, 0);
        memset(u, 0, sizeof *u); /* every field, the hold's job included, starts empty */
        u->t = out[i];
        luaL_setmetatable(L, TRACE_MT);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* cols table: {start=1, duration=2, ...} 1-based → 0-based struct */
static void read_cols(lua_State *L, int idx, gf_trace_csv_cols *c)
{
    gf_trace_csv_cols_init(c);
    if (lua_type(L, idx) != LUA_TTABLE)
        return;
    static const char *const gk[3] = {"grid_x", "grid_y", "grid_z"};
    static const char *const bk[3] = {"block_x", "block_y", "block_z"};
    c->start = (int)gf_opt_int_field(L, idx, "start", 0) - 1;
    c->dur = (int)gf_opt_int_field(L, idx, "duration", 0) - 1;
    c->corr = (int)gf_opt_int_field(L, idx, "corr", 0) - 1;
    c->name = (int)gf_opt_int_field(L, idx, "name", 0) - 1;
    c->device = (int)gf_opt_int_field(L, idx, "device", 0) - 1;
    c->stream = (int)gf_opt_int_field(L, idx, "stream", 0) - 1;
    for (int i = 0; i < 3; i++) {
        c->grid[i] = (int)gf_opt_int_field(L, idx, gk[i], 0) - 1;
        c->block[i] = (int)gf_opt_int_field(L, idx, bk[i], 0) - 1;
    }
    c->regs = (int)gf_opt_int_field(L, idx, "regs", 0) - 1;
    c->bytes = (int)gf_opt_int_field(L, idx, "bytes", 0) - 1;
    c->bytes_scale = gf_opt_num_field(L, idx, "bytes_scale", 1);
    c->pid = (int)gf_opt_int_field(L, idx, "pid", 0) - 1;
    c->tid = (int)gf_opt_int_field(L, idx, "tid", 0) - 1;
    c->thread = (int)gf_opt_int_field(L, idx, "thread", 0) - 1;
}

static int l_open_csv(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *api = gf_opt_string_field(L, 1, "api", NULL);
    const char *gpu = gf_opt_string_field(L, 1, "gpu", NULL);
    if (!api && !gpu)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "open_csv needs api= and/or gpu= paths");
    gf_trace_csv_cols ac, gc;
    lua_getfield(L, 1, "api_cols");
    read_cols(L, lua_gettop(L), &ac);
    lua_pop(L, 1);
    lua_getfield(L, 1, "gpu_cols");
    read_cols(L, lua_gettop(L), &gc);
    lua_pop(L, 1);
    ud *u = new_ud(L);
    begin(L, u->t, 1);
    gf_err err;
    if (gf_trace_import_csv(u->t, api, &ac, gpu, &gc, &err) != 0) {
        gf_trace_free(u->t);
        u->t = NULL;
        return gf_lua_raise(L, &err);
    }
    return 1;
}

static int l_gc(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, TRACE_MT);
    if (u->job)
        free_job(u->job);
    u->job = NULL;
    gf_trace_free(u->t);
    u->t = NULL;
    return 0;
}

static int m_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check(L)->n);
    return 1;
}

static int m_total(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check(L)->total);
    return 1;
}

static int m_counts(lua_State *L)
{
    gf_trace *t = check(L);
    lua_Integer c[GF_EV_NKINDS] = {0};
    for (size_t i = 0; i < t->n; i++)
        c[t->kind[i]]++;
    lua_createtable(L, 0, GF_EV_NKINDS);
    for (int k = 0; k < GF_EV_NKINDS; k++) {
        lua_pushinteger(L, c[k]);
        lua_setfield(L, -2, gf_ev_kind_names[k]);
    }
    return 1;
}

static int m_totals(lua_State *L)
{
    gf_trace *t = check(L);
    lua_createtable(L, 0, GF_EV_NKINDS);
    for (int k = 0; k < GF_EV_NKINDS; k++) {
        lua_pushinteger(L, (lua_Integer)t->total_kind[k]);
        lua_setfield(L, -2, gf_ev_kind_names[k]);
    }
    return 1;
}

/* tr:nvtx_names() → {[name id] = text} of the NVTX ranges; tr:set_nvtx_groups({[name id] = grouped text})
 * (policy nvtx.group, applied in Lua: gpuflame.nvtx_group) */
static int m_nvtx_names(lua_State *L)
{
    gf_trace *t = check(L);
    int32_t *ids;
    size_t n;
    gf_err err;
    if (gf_trace_nvtx_name_ids(t, &ids, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, 0, n > INT_MAX ? INT_MAX : (int)n);
    for (size_t k = 0; k < n; k++) {
        gf_lua_trace_str(L, t, ids[k]);
        lua_rawseti(L, -2, ids[k]);
    }
    free(ids);
    return 1;
}

static int set_on_trace(void *t, const int32_t *raw, const char *const *text, const size_t *len, size_t n,
                        gf_err *err)
{
    return gf_trace_set_nvtx_group(t, raw, text, len, n, err);
}

static int m_set_nvtx_groups(lua_State *L)
{
    gf_lua_set_nvtx_groups(L, 2, set_on_trace, check_idle(L));
    return 0;
}

void gf_lua_trace_str(lua_State *L, const gf_trace *t, int32_t id)
{
    size_t len;
    const char *s = gf_strtab_get(t->str, id, &len);
    lua_pushlstring(L, s, len);
}

static void push_lane(lua_State *L, gf_trace *t, size_t l)
{
    const gf_lane *ln = &t->lanes[l];
    lua_createtable(L, 0, 8);
    if (ln->rank >= 0 && (size_t)ln->rank < t->nranks) {
        gf_lua_trace_str(L, t, t->rank_label[ln->rank]);
        lua_setfield(L, -2, "rank");
    }
    gf_lua_trace_str(L, t, ln->label);
    lua_setfield(L, -2, "label");
    lua_pushstring(L, gf_lane_kind_names[ln->kind]);
    lua_setfield(L, -2, "kind");
    if (ln->kind == GF_LANE_GPU) {
        if (ln->device >= 0) {
            gf_lua_trace_str(L, t, ln->device);
            lua_setfield(L, -2, "device");
        }
        lua_pushinteger(L, ln->stream);
        lua_setfield(L, -2, "stream");
        lua_pushboolean(L, ln->sync);
        lua_setfield(L, -2, "sync");
    } else {
        if (ln->kind == GF_LANE_CPU && ln->sub) {
            lua_pushstring(L, ln->sub == GF_SUB_SAMPLES ? "samples" : "running");
            lua_setfield(L, -2, "sub");
        }
        lua_pushinteger(L, ln->pid);
        lua_setfield(L, -2, "pid");
        lua_pushinteger(L, ln->tid);
        lua_setfield(L, -2, "tid");
        if (ln->tname >= 0) {
            gf_lua_trace_str(L, t, ln->tname);
            lua_setfield(L, -2, "thread");
        }
    }
}

static int m_lanes(lua_State *L);

static lua_Integer ptr_len(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TTABLE ? (lua_Integer)luaL_len(L, idx) : 0;
}

const char **gf_lua_str_list(lua_State *L, int idx, size_t *n)
{
    *n = 0;
    if (lua_type(L, idx) != LUA_TTABLE)
        return NULL;
    lua_Integer len = ptr_len(L, idx);
    const char **v = malloc((size_t)(len ? len : 1) * sizeof *v);
    if (!v)
        gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, idx, i);
        v[(*n)++] = lua_tostring(L, -1) ? lua_tostring(L, -1) : "";
        lua_pop(L, 1);
    }
    return v;
}

static int l_merge(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer ns = ptr_len(L, 1);
    gf_trace **src = malloc((size_t)(ns ? ns : 1) * sizeof *src);
    int64_t *off = calloc((size_t)(ns ? ns : 1), sizeof *off);
    if (!src || !off) {
        free(src);
        free(off);
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    }
    for (lua_Integer i = 1; i <= ns; i++) {
        lua_rawgeti(L, 1, i);
        ud *u = luaL_testudata(L, -1, TRACE_MT);
        src[i - 1] = u && !u->job ? u->t : NULL; /* never one a thread reads (gf_lua_trace_hold) */
        lua_pop(L, 1);
        if (!src[i - 1]) {
            free(src);
            free(off);
            return gf_lua_raisef(L, GF_EXIT_USAGE, "merge: item %d is not an open trace", (int)i);
        }
    }
    lua_getfield(L, 2, "offsets");
    for (lua_Integer i = 1; i <= ns && lua_type(L, -1) == LUA_TTABLE; i++) {
        lua_rawgeti(L, -1, i);
        off[i - 1] = (int64_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "ranks");
    int ranks_idx = lua_gettop(L);
    size_t nr;
    const char **labels = gf_lua_str_list(L, ranks_idx, &nr);
    lua_getfield(L, 2, "spec");
    int spec_idx = lua_gettop(L);
    lua_Integer nsp = ptr_len(L, spec_idx);
    gf_rank_spec *sp = malloc((size_t)(nsp ? nsp : 1) * sizeof *sp);
    if (!sp) {
        free(src);
        free(off);
        free(labels);
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    }
    for (lua_Integer i = 1; i <= nsp; i++) {
        lua_rawgeti(L, spec_idx, i);
        int e = lua_gettop(L);
        sp[i - 1].src = (size_t)(gf_opt_int_field(L, e, "src", 1) - 1);
        sp[i - 1].pid = gf_opt_int_field(L, e, "pid", -1);
        sp[i - 1].rank = (int32_t)(gf_opt_int_field(L, e, "rank", 0) - 1);
        lua_pop(L, 1);
    }
    lua_Integer max = gf_opt_int_field(L, 2, "max_events", 0);
    int keep = gf_opt_bool_field(L, 2, "keep_partners", 1);
    /* digests (core.mpi.digest): touch[i] = source i's lane touches, packed int64 pairs */
    lua_getfield(L, 2, "touch");
    int digests = lua_istable(L, -1), oom = 0;
    int64_t **touch = digests ? calloc((size_t)ns + 1, sizeof *touch) : NULL;
    size_t *ntouch = digests ? calloc((size_t)ns + 1, sizeof *ntouch) : NULL;
    oom = digests && (!touch || !ntouch);
    for (lua_Integer i = 0; !oom && digests && i < ns; i++) {
        lua_rawgeti(L, -1, i + 1);
        size_t len = 0;
        const char *p = lua_tolstring(L, -1, &len);
        if ((touch[i] = malloc(len + 1)) && p)
            memcpy(touch[i], p, len);
        oom = !touch[i];
        ntouch[i] = len / (2 * sizeof(int64_t));
        lua_pop(L, 1);
    }
    ud *u = new_ud(L);
    gf_err err;
    int rc = oom ? gf_errf(&err, GF_EXIT_ERROR, "merge: out of memory")
             : !touch ? gf_trace_merge(u->t, src, (size_t)ns, off, labels, nr, sp, (size_t)nsp, max > 0 ? (size_t)max : 0,
                                     keep, &err)
                    : gf_trace_merge_digests(u->t, src, (size_t)ns, off, labels, nr, sp, (size_t)nsp,
                                             max > 0 ? (size_t)max : 0, keep, (const int64_t *const *)touch, ntouch, &err);
    for (lua_Integer i = 0; touch && i < ns; i++)
        free(touch[i]);
    free(touch);
    free(ntouch);
    free(src);
    free(off);
    free(labels);
    free(sp);
    if (rc != 0) {
        gf_trace_free(u->t);
        u->t = NULL;
        return gf_lua_raise(L, &err);
    }
    return 1;
}

static int l_sqlite_meta(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t ne;
    const char **names = gf_lua_str_list(L, 2, &ne);
    gf_capture_meta m;
    gf_err err;
    int rc = gf_sqlite_capture_meta(path, names, ne, &m, &err);
    free(names);
    if (rc != 0) {
        gf_capture_meta_free(&m);
        return gf_lua_raise(L, &err);
    }
    lua_createtable(L, 0, 4);
    if (m.session_start >= 0) {
        lua_pushinteger(L, m.session_start);
        lua_setfield(L, -2, "session_start");
        lua_pushstring(L, m.session_field);
        lua_setfield(L, -2, "session_field");
    }
    if (m.host) {
        lua_pushstring(L, m.host);
        lua_setfield(L, -2, "host");
    }
    lua_createtable(L, 0, (int)m.nkv);
    for (size_t i = 0; i < m.nkv; i++) {
        lua_pushstring(L, m.kv[i].value);
        lua_setfield(L, -2, m.kv[i].key);
    }
    lua_setfield(L, -2, "kv");
    gf_capture_meta_free(&m);
    return 1;
}

static int m_ranks(lua_State *L)
{
    gf_trace *t = check(L);
    lua_createtable(L, (int)t->nranks, 0);
    for (size_t r = 0; r < t->nranks; r++) {
        gf_lua_trace_str(L, t, t->rank_label[r]);
        lua_rawseti(L, -2, (lua_Integer)r + 1);
    }
    return 1;
}

static int m_lanes(lua_State *L)
{
    gf_trace *t = check(L);
    lua_createtable(L, (int)t->nlanes, 0);
    for (size_t l = 0; l < t->nlanes; l++) {
        push_lane(L, t, l);
        lua_rawseti(L, -2, (lua_Integer)l + 1);
    }
    return 1;
}

static int m_warnings(lua_State *L)
{
    gf_trace *t = check(L);
    lua_createtable(L, (int)t->nwarnings, 0);
    for (size_t i = 0; i < t->nwarnings; i++) {
        lua_pushstring(L, t->warnings[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int m_warn(lua_State *L)
{
    gf_trace_warn(check(L), "%s", luaL_checkstring(L, 2));
    return 0;
}

/* tr:clock_alignment() → the sentence saying how merged reports' clocks were aligned (nil: not set);
 * tr:clock_alignment(text) sets it (the timeline data and the Chrome trace state it) */
static int m_clock_alignment(lua_State *L)
{
    gf_trace *t = check(L);
    if (!lua_isnoneornil(L, 2)) {
        char *c = strdup(luaL_checkstring(L, 2));
        if (!c)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
        free(t->clock);
        t->clock = c;
    }
    if (t->clock)
        lua_pushstring(L, t->clock);
    else
        lua_pushnil(L);
    return 1;
}

/* tr:source() → the input's file name; tr:source(path) names another (the .nsys-rep an export came from) */
static int m_source(lua_State *L)
{
    gf_trace *t = check(L);
    if (!lua_isnoneornil(L, 2) && gf_trace_set_source(t, luaL_checkstring(L, 2)) != 0)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    lua_pushstring(L, t->source ? t->source : "");
    return 1;
}

static int m_trim(lua_State *L)
{
    gf_trace *t = check_idle(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    if (n < 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "trim: N must be >= 0");
    gf_err err;
    if (gf_trace_trim(t, (size_t)n, lua_isnoneornil(L, 3) ? 1 : lua_toboolean(L, 3), &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)t->n);
    return 1;
}

/* add_nvtx_proj(sqlite_path, max) → the number of NVTX ranges projected onto the GPU added as events
 * (gf_trace_add_nvtx_proj; max 0 keeps them all) */
static int m_add_nvtx_proj(lua_State *L)
{
    gf_trace *t = check_idle(L);
    const char *path = luaL_checkstring(L, 2);
    lua_Integer max = luaL_checkinteger(L, 3);
    if (max < 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "add_nvtx_proj: max must be >= 0");
    gf_err err;
    size_t added;
    if (gf_trace_add_nvtx_proj(t, path, (size_t)max, &added, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)added);
    return 1;
}

static void push_stack(lua_State *L, gf_trace *t, int32_t s)
{
    size_t a = t->stack_off[s], b = t->stack_off[s + 1];
    lua_createtable(L, (int)(b - a), 0);
    for (size_t f = a; f < b; f++) {
        gf_lua_trace_str(L, t, t->frames[f]);
        lua_rawseti(L, -2, (lua_Integer)(f - a) + 1);
    }
}

/* event(i) (1-based) → {start, dur, kind, name, lane, corr, pid, stack = {frames} or nil, detail fields} */
static int m_event(lua_State *L)
{
    gf_trace *t = check(L);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (size_t)i > t->n)
        return 0;
    size_t k = (size_t)i - 1;
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, t->start[k]);
    lua_setfield(L, -2, "start");
    lua_pushinteger(L, t->dur[k]);
    lua_setfield(L, -2, "dur");
    lua_pushstring(L, gf_ev_kind_names[t->kind[k]]);
    lua_setfield(L, -2, "kind");
    gf_lua_trace_str(L, t, t->name[k]);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, t->lane[k] + 1);
    lua_setfield(L, -2, "lane");
    lua_pushinteger(L, t->corr[k]);
    lua_setfield(L, -2, "corr");
    lua_pushinteger(L, t->pid[k]);
    lua_setfield(L, -2, "pid");
    if (t->stack[k] >= 0) {
        push_stack(L, t, t->stack[k]);
        lua_setfield(L, -2, "stack");
    }
    if (t->detail[k] >= 0) {
        const gf_detail *d = &t->details[t->detail[k]];
        if (d->bytes >= 0) {
            lua_pushinteger(L, d->bytes);
            lua_setfield(L, -2, "bytes");
        }
        if (d->regs >= 0) {
            lua_pushinteger(L, d->regs);
            lua_setfield(L, -2, "regs");
        }
        if (d->grid[0] >= 0) {
            lua_pushfstring(L, "%d,%d,%d", d->grid[0], d->grid[1], d->grid[2]);
            lua_setfield(L, -2, "grid");
        }
        if (d->block[0] >= 0) {
            lua_pushfstring(L, "%d,%d,%d", d->block[0], d->block[1], d->block[2]);
            lua_setfield(L, -2, "block");
        }
        if (d->copy >= 0) {
            gf_lua_trace_str(L, t, d->copy);
            lua_setfield(L, -2, "copy");
        }
        if (d->domain >= 0) {
            gf_lua_trace_str(L, t, d->domain);
            lua_setfield(L, -2, "domain");
        }
        if (d->nvtx_level >= 0) {
            lua_pushinteger(L, d->nvtx_level);
            lua_setfield(L, -2, "nvtx_level");
        }
    }
    return 1;
}

static int m_flame(lua_State *L)
{
    gf_trace *t = check(L);
    int64_t total = 0, gpu = 0;
    for (size_t e = 0; e < t->nflame; e++) {
        total += t->flame[e].weight;
        if (t->flame[e].gpu)
            gpu += t->flame[e].weight;
    }
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, total);
    lua_setfield(L, -2, "total");
    lua_pushinteger(L, gpu);
    lua_setfield(L, -2, "gpu_total");
    lua_pushinteger(L, (lua_Integer)t->nflame);
    lua_setfield(L, -2, "entries");
    lua_pushinteger(L, (lua_Integer)t->nstacks);
    lua_setfield(L, -2, "stacks");
    lua_pushinteger(L, (lua_Integer)t->launches_with_stack);
    lua_setfield(L, -2, "launches");
    return 1;
}

static gf_timeline_opts timeline_opts(const ud *u)
{
    gf_timeline_opts o = {u->title,       u->flame_min,   u->initial_view, u->compress,
                          u->view_events, u->preview_min, u->threads};
    return o;
}

static int timeline_writer(FILE *out, void *p, gf_err *err)
{
    ud *u = p;
    gf_timeline_opts o = timeline_opts(u);
    if (u->page)
        return gf_trace_timeline_write(u->t, u->page, out, &o, err);
    gf_mem_release_free(); /* the Lua garbage collected before the page (views/timeline.lua): issue 42 */
    return gf_trace_write_timeline_json(u->t, out, &o, err);
}

static int timeline_preview_writer(FILE *out, void *p, gf_err *err)
{
    ud *u = p;
    gf_timeline_opts o = timeline_opts(u);
    o.compress = 0;
    return gf_trace_timeline_write_preview(u->t, u->page, out, &o, err);
}

static const gf_slot_writer_ref timeline_ref = {timeline_writer};

/* write_timeline(template_text, out_path, slots, template_name [, flame_min_fraction]): slots are text
 * values ({{title}} etc., title required) or {json = TEXT} ({{json:name}}, e.g. the findings panel's
 * data), or {json = function() return TEXT end}, called once the page's columns are compressing; the data
 * slot ({{json:data}}) is this trace's timeline JSON.
 * flame_min_fraction absent: 0, every (stack, kernel) pair kept. */
static int m_write_timeline(lua_State *L)
{
    ud *u = check_ud(L);
    if (u->page)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "trace is busy: its timeline page is being written");
    size_t tl;
    const char *tmpl = luaL_checklstring(L, 2, &tl);
    const char *out = luaL_checkstring(L, 3);
    const char *tname = luaL_checkstring(L, 5);
    const char *title = gf_req_string_field(L, 4, "title");
    gf_slot slots[32];
    size_t n = 0;
    slots[n++] = (gf_slot){"data", GF_SLOT_WRITER, NULL, 0, timeline_writer, u};
    slots[n++] = (gf_slot){"preview", GF_SLOT_WRITER, NULL, 0, timeline_preview_writer, u};
    if (lua_type(L, 4) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, 4) && n < 32) {
            if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "data") != 0 &&
                strcmp(lua_tostring(L, -2), "preview") != 0) {
                if (lua_type(L, -1) == LUA_TSTRING) {
                    gf_slot *s = &slots[n++];
                    memset(s, 0, sizeof *s);
                    s->name = lua_tostring(L, -2);
                    s->kind = GF_SLOT_TEXT;
                    s->value = lua_tolstring(L, -1, &s->len);
                } else if (lua_type(L, -1) == LUA_TTABLE) { /* {json = TEXT}: made script-safe by the renderer */
                    int jt = lua_getfield(L, -1, "json");
                    if (jt != LUA_TSTRING && jt != LUA_TFUNCTION)
                        return gf_lua_raisef(L, GF_EXIT_USAGE,
                                             "write_timeline: slot '%s' must be a string, {json = TEXT} or "
                                             "{json = function returning TEXT}", lua_tostring(L, -3));
                    gf_slot *s = &slots[n++];
                    memset(s, 0, sizeof *s);
                    s->name = lua_tostring(L, -3);
                    s->kind = GF_SLOT_JSON;
                    if (jt == LUA_TSTRING)
                        s->value = lua_tolstring(L, -1, &s->len); /* kept alive by the slot's table */
                    lua_pop(L, 1);
                }
            }
            lua_pop(L, 1);
        }
    }
    u->title = title; /* kept alive by the slots table */
    lua_getfield(L, 4, "initial_view");
    u->initial_view = lua_tostring(L, -1); /* also kept alive by the slots table */
    lua_pop(L, 1);
    u->compress = gf_opt_bool_field(L, 4, "compress", 0);
    /* 0: no preview, and a busiest view of the median event's width (the page clamps it to its minimum) */
    u->view_events = gf_opt_int_field(L, 4, "view_events", 0);
    u->preview_min = gf_opt_int_field(L, 4, "preview_min_events", 0);
    lua_Integer threads = gf_opt_int_field(L, 4, "threads", 0);
    if (threads < 0 || threads > 1024)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "write_timeline: threads must be 0..1024");
    u->threads = (int)threads;
    u->flame_min = luaL_optnumber(L, 6, 0);
    gf_err err;
    /* the page begun before the template is rendered: its columns compress while the preview is written */
    gf_mem_release_free(); /* the Lua garbage collected before the page (views/timeline.lua): issue 42 */
    gf_timeline_opts o = timeline_opts(u);
    int rc = gf_trace_timeline_begin(u->t, &o, &u->page, &err);
    if (rc == 0 && gf_lua_lazy_slots(L, 4, slots, n) != 0) { /* a Lua error: the page's workers joined, then raised */
        gf_trace_timeline_free(u->page);
        u->page = NULL;
        return lua_error(L);
    }
    if (rc == 0)
        rc = gf_render_file(tname, tmpl, tl, slots, n, out, &err);
    gf_trace_timeline_free(u->page);
    u->page = NULL;
    u->title = NULL;
    u->initial_view = NULL;
    u->compress = 0;
    u->view_events = u->preview_min = 0;
    u->threads = 0;
    u->flame_min = 0;
    if (rc != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int m_timeline_json(lua_State *L)
{
    gf_trace *t = check(L);
    gf_timeline_opts o = {luaL_checkstring(L, 2), luaL_optnumber(L, 3, 0), NULL, lua_toboolean(L, 4), 0, 0, 0};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    gf_err err;
    int rc = gf_trace_write_timeline_json(t, f, &o, &err);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return gf_lua_raise(L, &err);
    }
    lua_pushlstring(L, buf, len);
    free(buf);
    return 1;
}

static int write_file(lua_State *L, int (*fn)(const gf_trace *, FILE *, gf_err *))
{
    gf_trace *t = check(L);
    const char *path = luaL_checkstring(L, 2);
    gf_out o;
    gf_err err;
    if (gf_out_open(&o, path, &err) != 0)
        return gf_lua_raise(L, &err);
    if (fn(t, o.fp, &err) != 0) {
        gf_out_fail(&o, &err);
        return gf_lua_raise(L, &err);
    }
    if (gf_out_commit_unless_interrupted(&o, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int m_write_chrome(lua_State *L)
{
    return write_file(L, gf_trace_write_chrome);
}

static int m_write_folded(lua_State *L)
{
    return write_file(L, gf_trace_write_launch_folded);
}

static int m_launch_stacks(lua_State *L)
{
    gf_trace *t = check(L);
    gf_stacks *s = gf_lua_checkstacks(L, 2);
    gf_err err;
    if (gf_trace_launch_stacks(t, s, lua_toboolean(L, 3), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

int gf_luaopen_trace(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"count", m_count},
        {"total", m_total},
        {"counts", m_counts},
        {"totals", m_totals},
        {"lanes", m_lanes},
        {"warnings", m_warnings},
        {"warn", m_warn},
        {"source", m_source},
        {"clock_alignment", m_clock_alignment},
        {"trim", m_trim},
        {"add_nvtx_proj", m_add_nvtx_proj},
        {"event", m_event},
        {"flame", m_flame},
        {"write_timeline", m_write_timeline},
        {"timeline_json", m_timeline_json},
        {"write_chrome_trace", m_write_chrome},
        {"write_launch_folded", m_write_folded},
        {"launch_stacks", m_launch_stacks},
        {"ranks", m_ranks},
        {"nvtx_names", m_nvtx_names},
        {"set_nvtx_groups", m_set_nvtx_groups},
        {NULL, NULL},
    };
    gf_new_class(L, TRACE_MT, methods, l_gc);
    luaL_getmetatable(L, TRACE_MT);
    lua_getfield(L, -1, "__index");
    luaL_setfuncs(L, gf_lua_trace_stats, 0); /* the statistics methods (l_trace_stats.c) */
    lua_pop(L, 1);
    lua_pushlightuserdata(L, (void *)&timeline_ref);
    lua_setfield(L, -2, GF_SLOT_WRITER_FIELD);
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"open_sqlite", l_open_sqlite},
        {"open_csv", l_open_csv},
        {"open_sqlite_workers", l_open_sqlite_workers},
        {"merge", l_merge},
        {"sqlite_meta", l_sqlite_meta},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
