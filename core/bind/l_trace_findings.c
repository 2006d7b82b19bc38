/* Binding: the findings primitives (core/trace_findings.c) over a core.trace object. Rules (lua/rules/NAME.lua)
 * call these through the model gpuflame.findings hands them; every function takes the trace first.
 *
 *   core.trace_findings.tables(tr) → {known=bool, runtime=bool, kernel=, memcpy=, memset=, overhead=, nvtx=,
 *                               graph_trace=, sync=, vulkan=, opengl=, dx12=}
 *   core.trace_findings.nvtx_range(tr, "text[@domain]") → start, end, pid, tid | nil
 *   win = nil | {start=, ["end"]=, pid=, tid=}            -- nsys's start=/end=/nvtx= filter
 *   names = {like = {...}, not_like = {...}}              -- SQLite LIKE patterns
 *   core.trace_findings.api_calls(tr, win, names, limit) → rows {dur, start, pid, tid, name, display_name, corr},
 *       {count=, total=} (of every match, before the limit)
 *   core.trace_findings.copies(tr, win, q) → rows {dur, start, bytes, src_kind, dst_kind, mem_kind, pid, device,
 *       context, stream, name, api_pid, api_tid}, {count=, total=, bytes=}   q = {kind="memcpy"|"memset",
 *       api=names, small_h2d_bytes=, skip_same_device=, pageable_only=, mem_kinds={...}, limit=}
 *   core.trace_findings.gaps(tr, win, min_gap_ns, limit) → rows {dur, start, pid, device, context}
 *   core.trace_findings.prefetch(tr, works, threads) → job | nil: gaps and launches on a second thread (below)
 *   core.trace_findings.low_util(tr, win, chunks, threshold, limit) → rows {in_use, in_use_text, dur, start, pid,
 *       device, context}
 *   core.trace_findings.launches(tr, win, min_kernels, limit) → rows, summary (with the stream's side: delay_median,
 *       waits, wait_total, gap_total; findings.h)
 *   core.trace_findings.graphs(tr, win, names) → rows, summary
 *   core.trace_findings.busy(tr, win, comm_names, by_rank) → rows {device, device_name, rank (label, by_rank),
 *       ops, first, last, busy, idle, kernel_busy, compute, comm, copy, h2d, d2h, d2d, p2p, memset,
 *       overlap}, {first=, last=}   (docs/SEMANTICS.md; comm_names: the communication kernels)
 *   core.trace_findings.kernel_match(tr, win, names) → rows */
#include <stdlib.h>
#include <string.h>

#include "trace_findings.h"
#include "trace_findings_nsys.h"
#include "trace_findings_own.h"
#include "l_trace.h"
#include "l_util.h"
#include "threads.h"
#include "trace_rules_job.h"
#include "trace_rawnames.h"

static void setstr(lua_State *L, const gf_trace *t, const char *k, int32_t id)
{
    if (id < 0)
        return;
    size_t len;
    const char *s = gf_strtab_get(t->str, id, &len);
    lua_pushlstring(L, s, len);
    lua_setfield(L, -2, k);
}

static void read_win(lua_State *L, int idx, gf_fwin *w)
{
    gf_fwin_init(w);
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "start");
    lua_getfield(L, idx, "end");
    if (!lua_isnil(L, -2) || !lua_isnil(L, -1))
        w->filtered = 1;
    if (!lua_isnil(L, -2))
        w->start = (int64_t)luaL_checkinteger(L, -2);
    if (!lua_isnil(L, -1))
        w->end = (int64_t)luaL_checkinteger(L, -1);
    lua_pop(L, 2);
    lua_Integer pid = gf_opt_int_field(L, idx, "pid", -1), tid = gf_opt_int_field(L, idx, "tid", -1);
    if (pid >= 0) {
        w->filtered = 1;
        w->pid = (int32_t)pid;
        w->tid = (int32_t)tid;
    }
}

/* names = {like = {...}, not_like = {...}}; the strings stay on the Lua stack (anchored in the table) */
typedef struct names_buf {
    const char *like[32], *not_like[32];
    gf_like_set set;
} names_buf;

static void read_list(lua_State *L, int tidx, const char *key, const char **out, size_t *n)
{
    *n = 0;
    lua_getfield(L, tidx, key);
    if (lua_istable(L, -1)) {
        lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
        if (len > 32)
            gf_lua_raisef(L, GF_EXIT_USAGE, "at most 32 %s patterns", key);
        for (lua_Integer i = 1; i <= len; i++) {
            lua_rawgeti(L, -1, i);
            if (!lua_isstring(L, -1))
                gf_lua_raisef(L, GF_EXIT_USAGE, "%s patterns must be strings", key);
            out[(*n)++] = lua_tostring(L, -1);
            lua_pop(L, 1); /* the string lives on in the table */
        }
    } else if (!lua_isnil(L, -1)) {
        gf_lua_raisef(L, GF_EXIT_USAGE, "%s must be a list of patterns", key);
    }
    lua_pop(L, 1);
}

static gf_like_set *read_names(lua_State *L, int idx, names_buf *b)
{
    memset(b, 0, sizeof *b);
    if (lua_isnoneornil(L, idx))
        return NULL;
    luaL_checktype(L, idx, LUA_TTABLE);
    read_list(L, idx, "like", b->like, &b->set.nlike);
    read_list(L, idx, "not_like", b->not_like, &b->set.nnot_like);
    b->set.like = b->like;
    b->set.not_like = b->not_like;
    return &b->set;
}

static int64_t lane_stream(const gf_trace *t, size_t i)
{
    return t->lane[i] >= 0 ? t->lanes[t->lane[i]].stream : -1;
}

static int64_t lane_dev(const gf_trace *t, size_t i)
{
    return t->lane[i] >= 0 ? t->lanes[t->lane[i]].devnum : -1;
}

static int64_t lane_tid(const gf_trace *t, size_t i)
{
    return t->lane[i] >= 0 ? t->lanes[t->lane[i]].tid : -1;
}

static int l_tables(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    static const struct {
        const char *k;
        uint32_t bit;
    } b[] = {{"runtime", GF_TABLE_RUNTIME}, {"kernel", GF_TABLE_KERNEL},   {"memcpy", GF_TABLE_MEMCPY},
             {"memset", GF_TABLE_MEMSET},   {"overhead", GF_TABLE_OVERHEAD}, {"nvtx", GF_TABLE_NVTX},
             {"graph_trace", GF_TABLE_GRAPH_TRACE}, {"sync", GF_TABLE_SYNC}, {"vulkan", GF_TABLE_VULKAN},
             {"opengl", GF_TABLE_OPENGL}, {"dx12", GF_TABLE_DX12}};
    lua_createtable(L, 0, 12);
    lua_pushboolean(L, (t->tables & GF_TABLE_KNOWN) != 0);
    lua_setfield(L, -2, "known");
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        lua_pushboolean(L, (t->tables & b[i].bit) != 0);
        lua_setfield(L, -2, b[i].k);
    }
    return 1;
}

static int l_nvtx_range(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    const char *spec = luaL_checkstring(L, 2);
    int64_t s, e;
    int32_t pid, tid;
    if (!gf_find_nvtx_range(t, spec, &s, &e, &pid, &tid))
        return 0;
    lua_pushinteger(L, s);
    lua_pushinteger(L, e);
    lua_pushinteger(L, pid);
    lua_pushinteger(L, tid);
    return 4;
}

static int l_api_calls(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    names_buf nb;
    gf_like_set *ls = read_names(L, 3, &nb);
    lua_Integer limit = luaL_optinteger(L, 4, -1);
    size_t *idx, n;
    gf_err err;
    if (gf_find_api_calls(t, &w, ls, -1, &idx, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    lua_createtable(L, (int)shown, 0);
    for (size_t k = 0; k < shown; k++) {
        size_t i = idx[k];
        lua_createtable(L, 0, 7);
        gf_lua_setint(L, "dur", t->dur[i]);
        gf_lua_setint(L, "start", t->start[i]);
        gf_lua_setint(L, "pid", t->pid[i]);
        gf_lua_setint(L, "tid", lane_tid(t, i));
        gf_lua_setint(L, "corr", t->corr[i]);
        setstr(L, t, "name", gf_trace_event_raw_name(t, i));
        setstr(L, t, "display_name", t->name[i]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    int64_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += t->dur[idx[k]];
    lua_createtable(L, 0, 2);
    gf_lua_setint(L, "count", (lua_Integer)n);
    gf_lua_setint(L, "total", total);
    free(idx);
    return 2;
}

static int l_copies(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    luaL_checktype(L, 3, LUA_TTABLE);
    gf_copy_query q;
    memset(&q, 0, sizeof q);
    const char *kind = gf_opt_string_field(L, 3, "kind", "memcpy");
    if (strcmp(kind, "memcpy") == 0)
        q.kind = GF_EV_MEMCPY;
    else if (strcmp(kind, "memset") == 0)
        q.kind = GF_EV_MEMSET;
    else
        return gf_lua_raisef(L, GF_EXIT_USAGE, "copies: kind must be memcpy or memset (got %s)", kind);
    lua_getfield(L, 3, "api");
    names_buf nb;
    gf_like_set *ls = read_names(L, lua_gettop(L), &nb);
    if (ls)
        q.api = *ls;
    q.small_h2d_bytes = gf_opt_int_field(L, 3, "small_h2d_bytes", -1);
    q.skip_same_device = gf_opt_bool_field(L, 3, "skip_same_device", 0);
    q.pageable_only = gf_opt_bool_field(L, 3, "pageable_only", 0);
    lua_Integer limit = gf_opt_int_field(L, 3, "limit", -1);
    q.limit = -1;
    lua_getfield(L, 3, "mem_kinds");
    if (lua_istable(L, -1)) {
        for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
            lua_rawgeti(L, -1, i);
            lua_Integer k = luaL_checkinteger(L, -1);
            if (k < 0 || k > 31)
                return gf_lua_raisef(L, GF_EXIT_USAGE, "copies: mem_kinds are 0..31");
            q.mem_kinds |= 1u << k;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    gf_copy_row *rows;
    size_t n;
    gf_err err;
    if (gf_find_copies(t, &w, &q, &rows, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    lua_createtable(L, (int)shown, 0);
    for (size_t k = 0; k < shown; k++) {
        size_t i = rows[k].gpu, a = rows[k].api;
        const gf_detail *d = t->detail[i] >= 0 ? &t->details[t->detail[i]] : NULL;
        lua_createtable(L, 0, 14);
        gf_lua_setint(L, "dur", t->dur[i]);
        gf_lua_setint(L, "start", t->start[i]);
        if (d && d->bytes >= 0)
            gf_lua_setint(L, "bytes", d->bytes);
        if (d && d->src_kind >= 0)
            gf_lua_setint(L, "src_kind", d->src_kind);
        if (d && d->dst_kind >= 0)
            gf_lua_setint(L, "dst_kind", d->dst_kind);
        if (d && d->mem_kind >= 0)
            gf_lua_setint(L, "mem_kind", d->mem_kind);
        gf_lua_setint(L, "pid", t->pid[i]);
        gf_lua_setint(L, "device", lane_dev(t, i));
        gf_lua_setint(L, "context", d ? d->context : -1);
        gf_lua_setint(L, "stream", lane_stream(t, i));
        gf_lua_setint(L, "corr", t->corr[i]);
        setstr(L, t, "name", gf_trace_event_raw_name(t, a));
        gf_lua_setint(L, "api_pid", t->pid[a]);
        gf_lua_setint(L, "api_tid", lane_tid(t, a));
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    int64_t total = 0, bytes = 0;
    for (size_t k = 0; k < n; k++) {
        total += t->dur[rows[k].gpu];
        const gf_detail *d = t->detail[rows[k].gpu] >= 0 ? &t->details[t->detail[rows[k].gpu]] : NULL;
        if (d && d->bytes > 0)
            bytes += d->bytes;
    }
    lua_createtable(L, 0, 3);
    gf_lua_setint(L, "count", (lua_Integer)n);
    gf_lua_setint(L, "total", total);
    gf_lua_setint(L, "bytes", bytes);
    free(rows);
    return 2;
}

static void push_gaps(lua_State *L, const gf_gap_row *rows, size_t n)
{
    static const gf_lua_field fields[] = {
        GF_LFIELD(gf_gap_row, dur, "dur"), GF_LFIELD(gf_gap_row, start, "start"), GF_LFIELD(gf_gap_row, pid, "pid"),
        GF_LFIELD(gf_gap_row, device, "device"), GF_LFIELD(gf_gap_row, context, "context"),
    };
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_createtable(L, 0, GF_NFIELDS(fields));
        gf_lua_setfields(L, &rows[k], fields, GF_NFIELDS(fields));
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

static int l_gaps(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    lua_Integer min_gap = luaL_checkinteger(L, 3);
    lua_Integer limit = luaL_optinteger(L, 4, -1);
    gf_gap_row *rows;
    size_t n;
    gf_err err;
    if (gf_find_gaps(t, &w, min_gap, limit, &rows, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    push_gaps(L, rows, n);
    free(rows);
    return 1;
}

static int l_low_util(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    lua_Integer chunks = luaL_checkinteger(L, 3);
    lua_Number threshold = luaL_checknumber(L, 4);
    lua_Integer limit = luaL_optinteger(L, 5, -1);
    if (chunks < 1 || chunks > 1000000)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "chunks must be between 1 and 1000000");
    gf_util_row *rows;
    size_t n;
    gf_err err;
    if (gf_find_low_util(t, &w, (int)chunks, threshold, limit, &rows, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    /* dur and start are integral in practice (chunk bounds are whole nanoseconds): kept exact as integers */
    static const gf_lua_field fields[] = {
        GF_LFIELD(gf_util_row, avg, "in_use"), GF_LFIELD_INT(gf_util_row, dur, "dur"),
        GF_LFIELD_INT(gf_util_row, start, "start"), GF_LFIELD(gf_util_row, pid, "pid"),
        GF_LFIELD(gf_util_row, device, "device"), GF_LFIELD(gf_util_row, context, "context"),
    };
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_createtable(L, 0, GF_NFIELDS(fields) + 1);
        gf_lua_setfields(L, &rows[k], fields, GF_NFIELDS(fields));
        lua_pushstring(L, rows[k].avg_text);
        lua_setfield(L, -2, "in_use_text");
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(rows);
    return 1;
}

#define LAUNCH(member) GF_LFIELD(gf_launch_row, member, #member)
static const gf_lua_field launch_fields[] = {
    LAUNCH(kernels),   LAUNCH(launched),    LAUNCH(kernel_total), LAUNCH(kernel_max), LAUNCH(api_total),
    LAUNCH(api_max),   LAUNCH(delay_total), LAUNCH(delay_min),    LAUNCH(delay_max),  LAUNCH(tiny),
};
#undef LAUNCH
#define LAUNCH_SUM(member) GF_LFIELD(gf_launch_sum, member, #member)
static const gf_lua_field launch_sum_fields[] = {
    LAUNCH_SUM(kernels),      LAUNCH_SUM(launched),  LAUNCH_SUM(tiny),        LAUNCH_SUM(names),
    LAUNCH_SUM(storms),       LAUNCH_SUM(kernel_total), LAUNCH_SUM(api_total), LAUNCH_SUM(delay_total),
    LAUNCH_SUM(delay_median), LAUNCH_SUM(waits),        LAUNCH_SUM(wait_total), LAUNCH_SUM(gap_total),
};
#undef LAUNCH_SUM

/* launches's two results: the rows (at most limit; -1: all) and the summary with every storm's name */
static void push_launches(lua_State *L, const gf_trace *t, const gf_launch_row *rows, size_t n,
                          const gf_launch_sum *sum, lua_Integer limit)
{
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    lua_createtable(L, (int)shown, 0);
    for (size_t k = 0; k < shown; k++) {
        const gf_launch_row *r = &rows[k];
        lua_createtable(L, 0, GF_NFIELDS(launch_fields) + 2);
        setstr(L, t, "name", r->name);
        gf_lua_setfields(L, r, launch_fields, GF_NFIELDS(launch_fields));
        lua_pushboolean(L, r->storm);
        lua_setfield(L, -2, "storm");
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    /* storms beyond the shown rows are still counted in the summary */
    lua_createtable(L, 0, GF_NFIELDS(launch_sum_fields) + 1);
    gf_lua_setfields(L, sum, launch_sum_fields, GF_NFIELDS(launch_sum_fields));
    lua_createtable(L, 0, 0);
    for (size_t k = 0, j = 0; k < n; k++)
        if (rows[k].storm) {
            size_t len;
            const char *s = gf_strtab_get(t->str, rows[k].name, &len);
            lua_pushlstring(L, s, len);
            lua_rawseti(L, -2, (lua_Integer)++j);
        }
    lua_setfield(L, -2, "storm_names");
}

static int l_launches(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    lua_Integer min_kernels = luaL_optinteger(L, 3, 1);
    lua_Integer limit = luaL_optinteger(L, 4, -1);
    gf_launch_row *rows;
    gf_launch_sum sum;
    size_t n;
    gf_err err;
    if (gf_find_launches(t, &w, min_kernels < 0 ? 0 : (uint64_t)min_kernels, &rows, &n, &sum, &err) != 0)
        return gf_lua_raise(L, &err);
    push_launches(L, t, rows, n, &sum, limit);
    free(rows);
    return 2;
}

/* core.trace_findings.prefetch(tr, works, threads) → job | nil: the works computed on a second thread
 * (core/trace_rules_job.h), in order, while the caller runs other rules; nil when policy limits.threads
 * (threads) resolves to 1. works = { {kind = "gaps", win =, min_gap =, limit =} | {kind = "launches", win =,
 * min_kernels =}, ... }. job:gaps(i) → gaps's rows of works[i]; job:launches(i, limit) → launches's rows and
 * summary of works[i]; each result is taken once. job:close() (also __close, __gc) joins and frees. While
 * the job runs it holds tr (gf_lua_trace_hold: the methods that change a trace raise). The caller promises
 * that no other scratch-heavy pass runs meanwhile (the job takes no gf_mem_gate). */
#define RULES_JOB_MT "gpuflame.rules_job"

static void free_rules_job(void *job)
{
    gf_rules_job_free(job);
}

/* works[k] added to job; -1 for want of memory. Raises on a malformed entry. */
static int add_work(lua_State *L, int works, lua_Integer k, gf_rules_job *job)
{
    lua_rawgeti(L, works, k);
    luaL_checktype(L, -1, LUA_TTABLE);
    int e = lua_gettop(L);
    const char *kind = gf_req_string_field(L, e, "kind");
    lua_getfield(L, e, "win");
    gf_fwin w;
    read_win(L, lua_gettop(L), &w);
    lua_pop(L, 1);
    int idx;
    if (strcmp(kind, "gaps") == 0) {
        idx = gf_rules_job_add_gaps(job, &w, gf_req_int_field(L, e, "min_gap"), gf_opt_int_field(L, e, "limit", -1));
    } else if (strcmp(kind, "launches") == 0) {
        lua_Integer mk = gf_opt_int_field(L, e, "min_kernels", 1);
        idx = gf_rules_job_add_launches(job, &w, mk < 0 ? 0 : (uint64_t)mk);
    } else {
        return gf_lua_raisef(L, GF_EXIT_USAGE, "prefetch: unknown kind of work '%s'", kind);
    }
    lua_pop(L, 1);
    return idx;
}

static int l_prefetch(lua_State *L)
{
    const gf_trace *t = gf_lua_check_trace(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer threads = luaL_optinteger(L, 3, 0);
    if (threads < 0 || threads > 1024)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "threads must be 0..1024");
    lua_Integer nworks = (lua_Integer)lua_rawlen(L, 2);
    if (nworks == 0 || gf_threads_resolve((int)threads, 2) < 2) {
        lua_pushnil(L);
        return 1;
    }
    gf_trace_job *u = lua_newuserdatauv(L, sizeof *u, 1);
    *u = (gf_trace_job){NULL, free_rules_job};
    luaL_setmetatable(L, RULES_JOB_MT);
    gf_rules_job *job = u->job = gf_rules_job_new(t);
    if (!job)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory (findings)");
    for (lua_Integer k = 1; k <= nworks; k++)
        if (add_work(L, 2, k, job) < 0)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory (findings)"); /* __gc frees the job */
    lua_pushvalue(L, 1); /* the trace lives while the job does */
    lua_setiuservalue(L, -2, 1);
    /* raises when another job holds it */
    gf_lua_trace_hold(L, 1, u, "the rules' work on the second thread");
    gf_rules_job_start(job);
    return 1;
}

static gf_rules_job *check_open_job(lua_State *L)
{
    gf_trace_job *u = luaL_checkudata(L, 1, RULES_JOB_MT);
    if (!u->job)
        gf_lua_raisef(L, GF_EXIT_ERROR, "rules job: closed already");
    return u->job;
}

static int m_job_gaps(lua_State *L)
{
    gf_rules_job *job = check_open_job(L);
    int idx = (int)luaL_checkinteger(L, 2) - 1;
    gf_gap_row *rows;
    size_t n;
    gf_err err;
    if (gf_rules_job_take_gaps(job, idx, &rows, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    push_gaps(L, rows, n);
    free(rows);
    return 1;
}

static int m_job_launches(lua_State *L)
{
    gf_rules_job *job = check_open_job(L);
    int idx = (int)luaL_checkinteger(L, 2) - 1;
    lua_Integer limit = luaL_optinteger(L, 3, -1);
    lua_getiuservalue(L, 1, 1);
    const gf_trace *t = gf_lua_check_trace(L, -1);
    gf_launch_row *rows;
    gf_launch_sum sum;
    size_t n;
    gf_err err;
    if (gf_rules_job_take_launches(job, idx, &rows, &n, &sum, &err) != 0)
        return gf_lua_raise(L, &err);
    push_launches(L, t, rows, n, &sum, limit);
    free(rows);
    return 2;
}

static int m_job_close(lua_State *L)
{
    return gf_lua_trace_job_close(L, RULES_JOB_MT);
}

static int l_graphs(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    names_buf nb;
    gf_like_set *ls = read_names(L, 3, &nb);
    gf_graph_row *rows;
    gf_graph_sum sum;
    size_t n;
    gf_err err;
    if (gf_find_graphs(t, &w, ls, &rows, &n, &sum, &err) != 0)
        return gf_lua_raise(L, &err);
#define GRAPH(member) GF_LFIELD(gf_graph_row, member, #member)
#define GRAPH_SUM(member) GF_LFIELD(gf_graph_sum, member, #member)
    static const gf_lua_field fields[] = {
        GRAPH(graph), GRAPH(launches), GRAPH(kernels), GRAPH(kernel_total), GRAPH(execs), GRAPH(exec_total),
    };
    static const gf_lua_field sum_fields[] = {
        GRAPH_SUM(calls),        GRAPH_SUM(call_total),        GRAPH_SUM(kernels),
        GRAPH_SUM(kernel_total), GRAPH_SUM(node_kernels),      GRAPH_SUM(node_kernel_total),
        GRAPH_SUM(launched_kernels), GRAPH_SUM(execs),         GRAPH_SUM(exec_total),
    };
#undef GRAPH
#undef GRAPH_SUM
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_createtable(L, 0, GF_NFIELDS(fields));
        gf_lua_setfields(L, &rows[k], fields, GF_NFIELDS(fields));
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_createtable(L, 0, GF_NFIELDS(sum_fields) + 1);
    gf_lua_setfields(L, &sum, sum_fields, GF_NFIELDS(sum_fields));
    lua_pushboolean(L, sum.collapsed);
    lua_setfield(L, -2, "collapsed");
    free(rows);
    return 2;
}

static int l_busy(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    names_buf nb;
    gf_like_set *comm = read_names(L, 3, &nb);
    if (comm && comm->nlike == 0)
        comm = NULL; /* no pattern: no kernel is communication */
    int by_rank = lua_toboolean(L, 4);
    gf_busy_row *rows;
    size_t n;
    int64_t f, l;
    gf_err err;
    if (gf_find_busy(t, &w, comm, by_rank, &rows, &n, &f, &l, &err) != 0)
        return gf_lua_raise(L, &err);
#define BUSY(member) GF_LFIELD(gf_busy_row, member, #member)
    static const gf_lua_field fields[] = {
        BUSY(device),  BUSY(ops),  BUSY(first), BUSY(last), BUSY(busy), BUSY(kernel_busy), BUSY(compute),
        BUSY(comm),    BUSY(copy), BUSY(h2d),   BUSY(d2h),  BUSY(d2d),  BUSY(p2p),         BUSY(memset),
        BUSY(overlap),
    };
#undef BUSY
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_createtable(L, 0, GF_NFIELDS(fields) + 3);
        gf_lua_setfields(L, &rows[k], fields, GF_NFIELDS(fields));
        gf_lua_setint(L, "idle", (rows[k].last - rows[k].first) - rows[k].busy);
        setstr(L, t, "device_name", rows[k].devname);
        if (rows[k].rank >= 0 && (size_t)rows[k].rank < t->nranks)
            setstr(L, t, "rank", t->rank_label[rows[k].rank]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_createtable(L, 0, 2);
    gf_lua_setint(L, "first", f);
    gf_lua_setint(L, "last", l);
    free(rows);
    return 2;
}

static int l_kernel_match(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    gf_fwin w;
    read_win(L, 2, &w);
    names_buf nb;
    gf_like_set *ls = read_names(L, 3, &nb);
    gf_match_row *rows;
    size_t n;
    gf_err err;
    if (gf_find_kernel_match(t, &w, ls, &rows, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        lua_createtable(L, 0, 9);
        gf_lua_setint(L, "pid", rows[k].pid);
        gf_lua_setint(L, "device", rows[k].device);
        gf_lua_setint(L, "kernels", (lua_Integer)rows[k].kernels);
        gf_lua_setint(L, "total", rows[k].total);
        gf_lua_setint(L, "max", rows[k].max);
        gf_lua_setint(L, "busy", rows[k].busy);
        gf_lua_setint(L, "device_busy", rows[k].device_busy);
        gf_lua_setint(L, "first", rows[k].first);
        gf_lua_setint(L, "last", rows[k].last);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(rows);
    return 1;
}

static int l_like(lua_State *L)
{
    lua_pushboolean(L, gf_like(luaL_checkstring(L, 1), luaL_checkstring(L, 2)));
    return 1;
}

int gf_luaopen_trace_findings(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"tables", l_tables},   {"nvtx_range", l_nvtx_range}, {"api_calls", l_api_calls},
        {"copies", l_copies},   {"gaps", l_gaps},             {"low_util", l_low_util},
        {"launches", l_launches}, {"graphs", l_graphs},       {"busy", l_busy},
        {"kernel_match", l_kernel_match}, {"like", l_like},   {"prefetch", l_prefetch},
        {NULL, NULL},
    };
    static const luaL_Reg job_methods[] = {
        {"gaps", m_job_gaps},
        {"launches", m_job_launches},
        {"close", m_job_close},
        {NULL, NULL},
    };
    gf_new_class(L, RULES_JOB_MT, job_methods, m_job_close);
    luaL_getmetatable(L, RULES_JOB_MT);
    lua_pushcfunction(L, m_job_close);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
    luaL_newlib(L, fns);
    return 1;
}
