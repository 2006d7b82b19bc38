/* Binding: the collapse table (core/stacks.c).
 *
 *   core.stacks.new() → S
 *   core.stacks.read_folded(path) → S, {lines, stacks, bad, first_bad, first_bad_why}
 *   core.stacks.read_folded(path, {two_columns = true}) → S_before, S_after, stats (difffolded.pl's
 *     "stack BEFORE AFTER" lines)
 *   core.stacks.from_summary_csv(reader, name_col, weight_col, {prefix=, unit_ns=}) → S, {rows, used, ...}
 *   core.stacks.stream_summary_csv(reader, name_col, weight_col, {prefix=, unit_ns=}, path|"-") → stats
 *   core.stacks.from_perf_script(path|"-" [, {max_line=}]) → S,
 *       {lines, samples, frames, skipped_frames, orphan_frames}
 *   core.stacks.is_sqlite(path) → bool
 *   S:add(frames (list or "a;b"), weight)  S:add_total(prefix, name, total_ns, unit_ns)
 *   S:count() S:total() S:nframes() S:max_depth() S:meta() S:set_meta(json|nil)
 *   S:write_folded(path|"-"|nil [, {meta=bool}]) (nil → returns the text; meta = true: a "# {json}" first
 *   line, off by default: gpuflame keeps the metadata in a sidecar, lua/gpuflame/sidecar.lua)
 *   S:write_speedscope(path, {name=, unit=})  S:tree_json() → text  S:top(n) → {{stack=, weight=}...}
 *   S:leaves() → {{name=, weight=}...} per distinct leaf frame (first-seen order)
 *   S:fold(min, name [, threads]) → F, {nodes=, weight=} (a page's fold)
 *   S:prefold() → {raw=, nodes=, weight=} of a table folded in part as it was made, or nil
 * A Stacks value can be a render slot ({data = S}): it writes the flamegraph tree JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "l_csv.h"
#include "l_stacks.h"
#include "l_util.h"
#include "stacks_perf.h"
#include "render.h"
#include "sqlite_kernels.h"
#include "stacks.h"

#define STACKS_MT "gpuflame.stacks"

typedef struct ud {
    gf_stacks *s;
} ud;

static gf_stacks *check(lua_State *L, int idx)
{
    ud *u = luaL_checkudata(L, idx, STACKS_MT);
    if (!u->s)
        gf_lua_raisef(L, GF_EXIT_ERROR, "stacks object is freed");
    return u->s;
}

gf_stacks *gf_lua_checkstacks(lua_State *L, int idx)
{
    ud *u = luaL_checkudata(L, idx, STACKS_MT);
    if (!u->s)
        gf_lua_raisef(L, GF_EXIT_ERROR, "stacks object is freed");
    return u->s;
}

static gf_stacks *push_new(lua_State *L)
{
    ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->s = NULL;
    luaL_setmetatable(L, STACKS_MT);
    u->s = gf_stacks_new();
    if (!u->s)
        gf_lua_raisef(L, GF_EXIT_ERROR, "stacks: out of memory");
    return u->s;
}

static int l_new(lua_State *L)
{
    push_new(L);
    return 1;
}

static int l_read_folded(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int two = gf_opt_bool_field(L, 2, "two_columns", 0);
    gf_stacks *s = push_new(L);
    gf_stacks *s2 = two ? push_new(L) : NULL;
    gf_folded_stats st;
    gf_err err;
    if (gf_stacks_read_folded2(s, s2, path, &st, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, 0, 5);
    gf_lua_setint(L, "lines", (lua_Integer)st.lines);
    gf_lua_setint(L, "stacks", (lua_Integer)st.stacks);
    gf_lua_setint(L, "bad", (lua_Integer)st.bad);
    gf_lua_setint(L, "first_bad", (lua_Integer)st.first_bad);
    lua_pushstring(L, st.first_bad_why);
    lua_setfield(L, -2, "first_bad_why");
    return two ? 3 : 2;
}

/* `perf script` text folded in C (core/stacks_perf.c): comm;root;...;leaf, one count per sample. */
static int l_from_perf_script(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_Integer max_line = gf_opt_int_field(L, 2, "max_line", 0);
    if (max_line < 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "from_perf_script: max_line must be >= 0");
    gf_stacks *s = push_new(L);
    gf_perf_fold_stats st;
    gf_err err;
    if (gf_perf_fold_file(s, path, (size_t)max_line, &st, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, 0, 5);
    gf_lua_setint(L, "lines", (lua_Integer)st.lines);
    gf_lua_setint(L, "samples", (lua_Integer)st.samples);
    gf_lua_setint(L, "frames", (lua_Integer)st.frames);
    gf_lua_setint(L, "skipped_frames", (lua_Integer)st.skipped_frames);
    gf_lua_setint(L, "orphan_frames", (lua_Integer)st.orphan_frames);
    return 2;
}

/* opts.bad_weight: "error" (default) or "one" (count 1, the reference's behaviour) */
static int bad_weight_strict(lua_State *L, int idx)
{
    const char *bw = gf_opt_string_field(L, idx, "bad_weight", "error");
    if (strcmp(bw, "one") == 0)
        return 0;
    if (strcmp(bw, "error") != 0)
        luaL_error(L, "bad_weight must be \"error\" or \"one\", got \"%s\"", bw);
    return 1;
}

static int l_from_summary_csv(lua_State *L)
{
    gf_csv *c = gf_lua_checkcsv(L, 1);
    lua_Integer nc = luaL_checkinteger(L, 2), wc = luaL_checkinteger(L, 3);
    const char *prefix = gf_opt_string_field(L, 4, "prefix", "");
    lua_Integer unit = gf_req_int_field(L, 4, "unit_ns");
    int strict = bad_weight_strict(L, 4);
    if (nc < 1 || wc < 1 || (size_t)nc > gf_csv_ncols(c) || (size_t)wc > gf_csv_ncols(c))
        return gf_lua_raisef(L, GF_EXIT_ERROR, "from_summary_csv: column out of range");
    gf_stacks *s = push_new(L);
    gf_summary_stats st;
    gf_err err;
    if (gf_stacks_from_summary_csv_ex(s, c, (size_t)nc - 1, (size_t)wc - 1, prefix, unit, strict, &st, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, 0, 4);
    gf_lua_setint(L, "rows", (lua_Integer)st.rows);
    gf_lua_setint(L, "used", (lua_Integer)st.used);
    gf_lua_setint(L, "skipped_empty", (lua_Integer)st.skipped_empty);
    gf_lua_setint(L, "unparsed_weight", (lua_Integer)st.unparsed_weight);
    return 2;
}

/* stream_summary_csv(reader, name_col, weight_col, {prefix=, unit_ns=}, path|"-") → stats: folded lines only */
static int l_stream_summary_csv(lua_State *L)
{
    gf_csv *c = gf_lua_checkcsv(L, 1);
    lua_Integer nc = luaL_checkinteger(L, 2), wc = luaL_checkinteger(L, 3);
    const char *prefix = gf_opt_string_field(L, 4, "prefix", "");
    lua_Integer unit = gf_req_int_field(L, 4, "unit_ns");
    int strict = bad_weight_strict(L, 4);
    const char *path = luaL_checkstring(L, 5);
    if (nc < 1 || wc < 1 || (size_t)nc > gf_csv_ncols(c) || (size_t)wc > gf_csv_ncols(c))
        return gf_lua_raisef(L, GF_EXIT_ERROR, "stream_summary_csv: column out of range");
    gf_summary_stats st;
    gf_err err;
    gf_out o;
    FILE *f = stdout;
    int to_file = strcmp(path, "-") != 0;
    if (to_file) {
        if (gf_out_open(&o, path, &err) != 0)
            return gf_lua_raise(L, &err);
        f = o.fp;
    }
    if (gf_summary_csv_write_folded_ex(c, (size_t)nc - 1, (size_t)wc - 1, prefix, unit, strict, f, &st, &err) != 0) {
        if (to_file)
            gf_out_fail(&o, &err);
        return gf_lua_raise(L, &err);
    }
    if (to_file ? gf_out_commit_unless_interrupted(&o, &err) != 0 : fflush(stdout) != 0) {
        if (!to_file)
            gf_errf(&err, GF_EXIT_ERROR, "write error on stdout");
        return gf_lua_raise(L, &err);
    }
    lua_createtable(L, 0, 4);
    gf_lua_setint(L, "rows", (lua_Integer)st.rows);
    gf_lua_setint(L, "used", (lua_Integer)st.used);
    gf_lua_setint(L, "skipped_empty", (lua_Integer)st.skipped_empty);
    gf_lua_setint(L, "unparsed_weight", (lua_Integer)st.unparsed_weight);
    return 1;
}

static int l_is_sqlite(lua_State *L)
{
    lua_pushboolean(L, gf_is_sqlite_file(luaL_checkstring(L, 1)));
    return 1;
}

static int m_add(lua_State *L)
{
    gf_stacks *s = check(L, 1);
    lua_Integer w = luaL_checkinteger(L, 3);
    gf_err err;
    if (lua_type(L, 2) == LUA_TSTRING) {
        size_t len;
        const char *str = lua_tolstring(L, 2, &len);
        const char *last = NULL;
        for (size_t i = len; i-- > 0;)
            if (str[i] == ';') {
                last = str + i;
                break;
            }
        char *prefix = NULL;
        if (last) {
            prefix = strndup(str, (size_t)(last - str));
            if (!prefix)
                return gf_lua_raisef(L, GF_EXIT_ERROR, "stacks: out of memory");
        }
        const char *leaf = last ? last + 1 : str;
        int rc = gf_stacks_add_prefixed(s, prefix, leaf, len - (size_t)(leaf - str), w, &err);
        free(prefix);
        if (rc != 0)
            return gf_lua_raise(L, &err);
        return 0;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    if (n < 1)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "stacks:add: empty stack");
    uint32_t *ids = lua_newuserdatauv(L, sizeof(uint32_t) * (size_t)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        size_t len;
        const char *f = lua_tolstring(L, -1, &len);
        if (!f)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "stacks:add: frame %lld is not a string", (long long)i);
        ids[i - 1] = gf_stacks_intern(s, f, len);
        lua_pop(L, 1);
        if (ids[i - 1] == UINT32_MAX)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "stacks: out of memory");
    }
    if (gf_stacks_add_ids(s, ids, (size_t)n, w, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int m_add_total(lua_State *L)
{
    gf_stacks *s = check(L, 1);
    const char *prefix = luaL_optstring(L, 2, "");
    size_t len;
    const char *name = luaL_checklstring(L, 3, &len);
    gf_err err;
    if (gf_stacks_add_total(s, prefix, name, len, luaL_checkinteger(L, 4), luaL_checkinteger(L, 5), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int m_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_stacks_count(check(L, 1)));
    return 1;
}

static int m_total(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_stacks_total(check(L, 1)));
    return 1;
}

static int m_nframes(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_stacks_nframes(check(L, 1)));
    return 1;
}

static int m_max_depth(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_stacks_max_depth(check(L, 1)));
    return 1;
}

static int m_meta(lua_State *L)
{
    const char *m = gf_stacks_meta(check(L, 1));
    if (!m)
        return 0;
    lua_pushstring(L, m);
    return 1;
}

static int m_set_meta(lua_State *L)
{
    if (gf_stacks_set_meta(check(L, 1), luaL_optstring(L, 2, NULL)) != 0)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "stacks: out of memory");
    return 0;
}

typedef int (*stream_fn)(lua_State *L, gf_stacks *s, FILE *f, gf_err *err);

/* Runs fn into path (atomic), "-" (stdout) or nil (returns a string). */
static int to_target(lua_State *L, gf_stacks *s, int pidx, stream_fn fn)
{
    const char *path = luaL_optstring(L, pidx, NULL);
    gf_err err;
    if (!path) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
        int rc = fn(L, s, f, &err);
        fclose(f);
        if (rc != 0) {
            free(buf);
            return gf_lua_raise(L, &err);
        }
        lua_pushlstring(L, buf, len);
        free(buf);
        return 1;
    }
    if (strcmp(path, "-") == 0) {
        if (fn(L, s, stdout, &err) != 0)
            return gf_lua_raise(L, &err);
        if (fflush(stdout) != 0) /* e.g. a closed pipe (`| head`): err was never filled */
            return gf_lua_raisef(L, GF_EXIT_ERROR, "standard output: %s", strerror(errno));
        return 0;
    }
    gf_out o;
    if (gf_out_open(&o, path, &err) != 0)
        return gf_lua_raise(L, &err);
    if (fn(L, s, o.fp, &err) != 0) {
        gf_out_fail(&o, &err);
        return gf_lua_raise(L, &err);
    }
    if (gf_out_commit_unless_interrupted(&o, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int folded_fn(lua_State *L, gf_stacks *s, FILE *f, gf_err *err)
{
    return gf_stacks_write_folded(s, f, gf_opt_bool_field(L, 3, "meta", 0), err);
}

static int m_write_folded(lua_State *L)
{
    return to_target(L, check(L, 1), 2, folded_fn);
}

static int speedscope_fn(lua_State *L, gf_stacks *s, FILE *f, gf_err *err)
{
    return gf_stacks_write_speedscope(s, f, gf_opt_string_field(L, 3, "name", "gpuflame"),
                                      gf_opt_string_field(L, 3, "unit", "none"), err);
}

static int m_write_speedscope(lua_State *L)
{
    return to_target(L, check(L, 1), 2, speedscope_fn);
}

static int tree_fn(lua_State *L, gf_stacks *s, FILE *f, gf_err *err)
{
    (void)L;
    return gf_stacks_write_tree_json(s, f, err);
}

static int m_tree_json(lua_State *L)
{
    lua_settop(L, 1);
    return to_target(L, check(L, 1), 2, tree_fn);
}

typedef struct wi {
    size_t i;
    int64_t w;
} wi;

static int by_weight(const void *a, const void *b)
{
    const wi *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int m_top(lua_State *L)
{
    gf_stacks *s = check(L, 1);
    lua_Integer want = luaL_optinteger(L, 2, 10);
    size_t n = gf_stacks_count(s);
    wi *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    for (size_t i = 0; i < n; i++) {
        v[i].i = i;
        gf_stacks_get(s, i, NULL, &v[i].w);
    }
    qsort(v, n, sizeof *v, by_weight);
    size_t k = want < 0 ? 0 : (size_t)want < n ? (size_t)want : n;
    lua_createtable(L, (int)k, 0);
    luaL_Buffer b;
    for (size_t j = 0; j < k; j++) {
        size_t depth;
        int64_t w;
        const uint32_t *ids = gf_stacks_get(s, v[j].i, &depth, &w);
        lua_createtable(L, 0, 3);
        luaL_buffinit(L, &b);
        for (size_t d = 0; d < depth; d++) {
            size_t fl;
            const char *f = gf_stacks_frame(s, ids[d], &fl);
            if (d)
                luaL_addchar(&b, ';');
            luaL_addlstring(&b, f, fl);
        }
        luaL_pushresult(&b);
        lua_setfield(L, -2, "stack");
        size_t fl;
        const char *leaf = gf_stacks_frame(s, ids[depth - 1], &fl);
        lua_pushlstring(L, leaf, fl);
        lua_setfield(L, -2, "leaf");
        gf_lua_setint(L, "weight", w);
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    free(v);
    return 1;
}

/* S:leaves() → {{name=, weight=, count=|nil}...}: count = instances when the stacks have them */
static int m_leaves(lua_State *L)
{
    gf_stacks *s = check(L, 1);
    size_t n = gf_stacks_count(s);
    int inst = gf_stacks_has_instances(s);
    int64_t *w = malloc((n ? n : 1) * sizeof *w), *c = malloc((n ? n : 1) * sizeof *c);
    if (!w || !c) {
        free(w);
        free(c);
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        gf_stacks_get(s, i, NULL, &w[i]);
        c[i] = gf_stacks_instances(s, i);
    }
    const int64_t *cols[2] = {w, c};
    uint32_t *leaves;
    int64_t *sums;
    size_t nl;
    gf_err err;
    int rc = gf_stacks_leaf_sums(s, cols, 2, &leaves, &sums, &nl, &err);
    free(w);
    free(c);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)nl, 0);
    for (size_t k = 0; k < nl; k++) {
        size_t fl;
        const char *f = gf_stacks_frame(s, leaves[k], &fl);
        lua_createtable(L, 0, 3);
        lua_pushlstring(L, f, fl);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "weight", sums[k * 2]);
        if (inst)
            gf_lua_setint(L, "count", sums[k * 2 + 1]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    free(leaves);
    free(sums);
    return 1;
}

/* S:kind_sums(kind) → {{name=, weight=, count=}...}, {weight=, count=} (the stacks without such a frame) */
/* stacks:fold(min_value, fold_name[, threads]) → the folded table (gf_stacks_fold; threads: policy limits.threads,
 * default 1), {nodes = N, weight = W} */
static int m_fold(lua_State *L)
{
    gf_stacks *s = check(L, 1);
    lua_Integer min = luaL_checkinteger(L, 2);
    const char *name = luaL_checkstring(L, 3);
    lua_Integer threads = luaL_optinteger(L, 4, 1);
    if (threads < 0 || threads > 1024)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "threads must be 0..1024");
    gf_stacks *out = push_new(L);
    gf_fold_stats st;
    gf_err err;
    if (gf_stacks_fold(s, (int64_t)min, name, (int)threads, out, &st, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, 0, 2);
    gf_lua_setint(L, "nodes", (int64_t)st.nodes);
    gf_lua_setint(L, "weight", st.weight);
    return 2;
}

/* S:prefold() → {raw =, nodes =, weight =} of a table folded in part as it was made (core/flame_fold.c), or nil */
static int m_prefold(lua_State *L)
{
    const gf_stacks_prefold *p = gf_stacks_get_prefold(check(L, 1));
    if (!p)
        return 0;
    lua_createtable(L, 0, 3);
    gf_lua_setint(L, "raw", (int64_t)p->raw);
    gf_lua_setint(L, "nodes", (int64_t)p->done.nodes);
    gf_lua_setint(L, "weight", p->done.weight);
    return 1;
}

static int m_kind_sums(lua_State *L)
{
    gf_stacks *s = check(L, 1);
    const char *k = luaL_checkstring(L, 2);
    int kind = -1;
    for (int i = 1; i < GF_FRAME_NKINDS; i++)
        if (strcmp(k, gf_frame_kind_names[i]) == 0)
            kind = i;
    if (kind < 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "unknown frame kind '%s'", k);
    uint32_t *frames;
    int64_t *sums, outside[2];
    size_t n;
    gf_err err;
    if (gf_stacks_kind_sums(s, kind, &frames, &sums, &n, outside, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t j = 0; j < n; j++) {
        size_t fl;
        const char *f = gf_stacks_frame(s, frames[j], &fl);
        lua_createtable(L, 0, 3);
        lua_pushlstring(L, f, fl);
        lua_setfield(L, -2, "name");
        gf_lua_setint(L, "weight", sums[j * 2]);
        gf_lua_setint(L, "count", sums[j * 2 + 1]);
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    lua_createtable(L, 0, 2);
    gf_lua_setint(L, "weight", outside[0]);
    gf_lua_setint(L, "count", outside[1]);
    free(frames);
    free(sums);
    return 2;
}

static int l_gc(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, STACKS_MT);
    gf_stacks_free(u->s);
    u->s = NULL;
    return 0;
}

static int slot_writer(FILE *out, void *p, gf_err *err)
{
    ud *u = p;
    if (!u->s)
        return gf_errf(err, GF_EXIT_ERROR, "stacks object is freed");
    return gf_stacks_write_tree_json(u->s, out, err);
}

static const gf_slot_writer_ref tree_writer = {slot_writer};

static const luaL_Reg methods[] = {
    {"add", m_add},
    {"add_total", m_add_total},
    {"count", m_count},
    {"total", m_total},
    {"nframes", m_nframes},
    {"max_depth", m_max_depth},
    {"meta", m_meta},
    {"set_meta", m_set_meta},
    {"write_folded", m_write_folded},
    {"write_speedscope", m_write_speedscope},
    {"tree_json", m_tree_json},
    {"top", m_top},
    {"leaves", m_leaves},
    {"kind_sums", m_kind_sums},
    {"fold", m_fold},
    {"prefold", m_prefold},
    {NULL, NULL},
};

int gf_luaopen_stacks(lua_State *L)
{
    gf_new_class(L, STACKS_MT, methods, l_gc);
    luaL_getmetatable(L, STACKS_MT);
    lua_pushlightuserdata(L, (void *)&tree_writer);
    lua_setfield(L, -2, GF_SLOT_WRITER_FIELD);
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"new", l_new},
        {"read_folded", l_read_folded},
        {"from_summary_csv", l_from_summary_csv},
        {"stream_summary_csv", l_stream_summary_csv},
        {"from_perf_script", l_from_perf_script},
        {"is_sqlite", l_is_sqlite},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
