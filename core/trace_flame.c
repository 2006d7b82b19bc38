/* The hierarchical GPU flamegraph over a Trace (trace_flame.h): launches found by correlation id, the NVTX
 * path of each launch found by a sweep per thread, stacks aggregated in the collapse table; and its
 * speedscope file with one evented profile per stream. */
#include "trace_flame.h"
#include "mem.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame_fold.h"
#include "hmap.h"
#include "jsonout.h"
#include "path_trie.h"
#include "trace_nvtx_group.h"

const char *const gf_flame_level_names[GF_FL_NLEVELS] = {"process", "rank", "device", "stream",
                                                         "nvtx",    "callchain", "api", "kernel"};

/* Every GPU operation looks up its process, API call and kernel frames, twice where the page folds: in a table
 * of a few names, a lookup in the names' hash map missed the cache (4 % of the hierarchical page's CPU on the 1M
 * bench, issue 42). */
enum { FRAME_CACHE = 256 };

typedef struct fl {
    const gf_trace *t;
    const gf_gpu_flame_opts *o;
    gf_stacks *s;
    gf_err *err;
    gf_launch_index *lx; /* the launches of GPU work */
    int32_t *launch;     /* or, for a trace used up (use_up_columns), each GPU operation's launch (-1: none) */
    int32_t *node;   /* per event: a launch's NVTX path node (-1: no range) */
    gf_path_trie trie; /* of the NVTX paths */
    gf_hmap names; /* (what << 40) ^ value → frame id (strtab names, NVTX names, processes, streams) */
    uint64_t ckey[FRAME_CACHE]; /* a direct-mapped cache of names in front of it: by key's low bits */
    uint32_t cval[FRAME_CACHE]; /* (UINT32_MAX: empty) */
    uint32_t *ids;
    size_t idcap;
    size_t launches, swept; /* the launches of GPU work; those swept so far */
    gf_nvtx_fold *fold; /* a page's fold of the NVTX frames decided before the stacks are made, or NULL */
    gf_hmap contexts;   /* with fold: lane << 40 | (pid + 1) → the fold's context of a GPU operation */
    gf_stacks_prefold prefold; /* what the fold did, for the stacks' table */
} fl;

/* the launch call of GPU operation i, or -1 */
static int64_t launch_of(fl *f, size_t i)
{
    if (f->launch)
        return f->launch[i];
    int64_t p = gf_launch_index_find(f->lx, f->t, i);
    return p >= 0 && f->t->kind[p] == GF_EV_API ? p : -1;
}

/* x freed, and unless it is own (on the stack) its memory too */
static void drop_launches(gf_launch_index *x, gf_launch_index *own)
{
    if (!x)
        return;
    gf_launch_index_free(x);
    if (x != own)
        free(x);
}

static const gf_detail *detail_of(const gf_trace *t, size_t i)
{
    return t->detail[i] >= 0 ? &t->details[t->detail[i]] : NULL;
}

/* The frame id already made for names key k, or UINT32_MAX. */
static uint32_t known_frame(fl *f, uint64_t k)
{
    size_t slot = (size_t)k & (FRAME_CACHE - 1);
    if (f->cval[slot] != UINT32_MAX && f->ckey[slot] == k)
        return f->cval[slot];
    int64_t *v = gf_hmap_get(&f->names, k);
    if (!v)
        return UINT32_MAX;
    f->ckey[slot] = k;
    f->cval[slot] = (uint32_t)*v;
    return (uint32_t)*v;
}

/* The frame id of a text made once per key (what: 1 strtab name, 2 NVTX name, 3 process, 4 stream, 5 rank,
 * 6 no launch, 7 fold). */
static uint32_t frame_for(fl *f, int what, uint64_t key, const char *text, int kind)
{
    uint64_t k = ((uint64_t)what << 56) ^ gf_hash_u64(key);
    uint32_t id = known_frame(f, k);
    if (id != UINT32_MAX)
        return id;
    id = gf_stacks_intern(f->s, text, strlen(text));
    if (id == UINT32_MAX || gf_stacks_set_frame_kind(f->s, id, kind) != 0 || !gf_hmap_put(&f->names, k, id, NULL))
        return UINT32_MAX;
    return id;
}

static uint32_t str_frame(fl *f, int32_t sid, int kind)
{
    const char *s = sid >= 0 ? gf_strtab_get(f->t->str, sid, NULL) : "?";
    return frame_for(f, 1, ((uint64_t)kind << 32) | (uint32_t)sid, s ? s : "?", kind);
}

/* A grouped trace (nvtx_group): raw name id raw is behind NVTX frame id. */
static int note_raw(fl *f, uint32_t id, int32_t raw)
{
    gf_flame_raw *r = f->o->raw;
    if (!r || !f->t->nvtx_group.n)
        return 0;
    void **const cols[] = {(void **)&r->frame, (void **)&r->name};
    const size_t elem[] = {sizeof *r->frame, sizeof *r->name};
    if (gf_grow_cols(cols, elem, 2, &r->cap, r->n + 1, 64) != 0)
        return -1;
    r->frame[r->n] = id;
    r->name[r->n++] = raw;
    return 0;
}

/* The key of NVTX range i's frame in f->names: its domain and name. */
static uint64_t nvtx_frame_key(const fl *f, size_t i)
{
    const gf_detail *d = detail_of(f->t, i);
    int32_t dom = d ? d->domain : -1;
    return ((uint64_t)2 << 56) ^ gf_hash_u64(((uint64_t)(uint32_t)(dom + 1) << 32) | (uint32_t)f->t->name[i]);
}

/* An NVTX range's frame: "domain:name" as nsys's NVTX reports name it (the name grouped: nvtx_group). */
static uint32_t nvtx_frame(fl *f, size_t i)
{
    uint64_t k = nvtx_frame_key(f, i);
    int64_t *v = gf_hmap_get(&f->names, k);
    if (v)
        return (uint32_t)*v;
    const gf_detail *d = detail_of(f->t, i);
    int32_t dom = d ? d->domain : -1;
    const char *nm = gf_strtab_get(f->t->str, gf_trace_nvtx_group(f->t, f->t->name[i]), NULL);
    const char *dn = dom >= 0 ? gf_strtab_get(f->t->str, dom, NULL) : NULL;
    size_t a = dn ? strlen(dn) + 1 : 0, b = strlen(nm);
    char *buf = malloc(a + b + 1);
    if (!buf)
        return UINT32_MAX;
    if (dn) {
        memcpy(buf, dn, a - 1);
        buf[a - 1] = ':';
    }
    memcpy(buf + a, nm, b + 1);
    uint32_t id = gf_stacks_intern(f->s, buf, a + b);
    free(buf);
    if (id == UINT32_MAX || gf_stacks_set_frame_kind(f->s, id, GF_FRAME_NVTX) != 0 ||
        !gf_hmap_put(&f->names, k, id, NULL) || note_raw(f, id, f->t->name[i]) != 0)
        return UINT32_MAX;
    return id;
}

static int is_range(const fl *f, size_t i)
{
    if (f->t->kind[i] != GF_EV_NVTX || gf_ev_is_nvtx_mark(f->t, i))
        return 0;
    const gf_detail *d = detail_of(f->t, i);
    return (d && d->nvtx_level >= 0) || f->o->startend; /* push/pop ranges carry their nesting level */
}

static int by_range_order(const void *a, const void *b, void *ctx)
{
    const gf_trace *t = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (t->start[x] != t->start[y])
        return t->start[x] < t->start[y] ? -1 : 1;
    int64_t ex = t->start[x] + t->dur[x], ey = t->start[y] + t->dur[y];
    if (ex != ey)
        return ex > ey ? -1 : 1; /* the enclosing one first */
    return x < y ? -1 : x > y;
}

static uint64_t thread_key(const gf_lane *l)
{
    return ((uint64_t)(uint32_t)(l->rank + 1) << 48) ^ ((uint64_t)(l->pid & 0xFFFFFF) << 24) ^
           (uint64_t)(l->tid & 0xFFFFFF);
}

/* ranges in by_range_order. They come in event order, which a finished trace keeps by start (an unordered one
 * too where the NVTX import put each thread's ranges in start order, as it does for an export it reads whole):
 * then only each run of one start needs sorting (the enclosing range first), not the whole thread's (the 2.2M
 * ranges of the 368 MB export: 5 ms, where sorting them all took 50-80 ms); else all of them are sorted. */
static void sort_ranges(const gf_trace *t, uint32_t *ranges, size_t nr)
{
    for (size_t i = 1; i < nr; i++)
        if (t->start[ranges[i]] < t->start[ranges[i - 1]]) {
            qsort_r(ranges, nr, sizeof *ranges, by_range_order, (void *)t);
            return;
        }
    for (size_t lo = 0, hi; lo < nr; lo = hi) {
        for (hi = lo + 1; hi < nr && t->start[ranges[hi]] == t->start[ranges[lo]]; hi++)
            ;
        if (hi - lo > 1)
            qsort_r(ranges + lo, hi - lo, sizeof *ranges, by_range_order, (void *)t);
    }
}

/* A table that grows by doubling rehashes every entry about once more. When a sweep or the stacks have gone
 * through 1/PROJECT_AT of their input, the table is sized once for what the rest will add at the same rate:
 * where nearly every launch has a path and a stack of its own (a step number in every path: 2.2M of each on
 * the 368 MB export), the rehashes go; where paths repeat, the projection is small and nothing changes. */
enum { PROJECT_AT = 8, PROJECT_MIN = 4096 };

/* Counts one item of total done; 1 when that was the one after which its table is sized (PROJECT_AT). */
static int projection_point(size_t *done, size_t total)
{
    return ++*done == total / PROJECT_AT && *done >= PROJECT_MIN;
}

/* A thread's sweep goes SWEEP_BATCH launches at a time: their paths first, then their nodes; SWEEP_AHEAD
 * launches ahead of the one given its nodes, what the trie reads first to find that launch's first new range
 * is fetched (when its parent's node and its frame are known by then). Where nearly every launch has a path of
 * its own, the trie's lookups in its one table waited on memory (89 % of their time on the 368 MB export's 2.2M
 * paths, issue 42; core/path_trie.c now keeps most children in lists). */
enum { SWEEP_BATCH = 64, SWEEP_AHEAD = 2 };

typedef struct sweep {
    fl *f;
    const uint32_t *ranges;
    size_t nr, ri;   /* the thread's ranges; the next one to begin */
    uint32_t *act;   /* the ranges begun and not ended */
    size_t na;
    uint32_t *paths; /* the batch's paths: launch j's is paths[off[j] .. off[j + 1]) */
    size_t pcap, off[SWEEP_BATCH + 1];
    uint32_t *prev;  /* the last path given nodes, and those nodes */
    int32_t *pnode;
    size_t np;
    int32_t prev_node;
} sweep;

static size_t common_prefix(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    size_t same = 0;
    while (same < na && same < nb && a[same] == b[same])
        same++;
    return same;
}

/* The path of launch e (the ranges that hold it, outermost first) appended to w->paths. */
static int path_of(sweep *w, uint32_t e, size_t j)
{
    const gf_trace *t = w->f->t;
    int64_t cs = t->start[e], ce = cs + t->dur[e];
    while (w->ri < w->nr && t->start[w->ranges[w->ri]] <= cs)
        w->act[w->na++] = w->ranges[w->ri++];
    if (GF_GROW(w->paths, w->pcap, w->off[j] + w->na + 1, 256) != 0)
        return -1;
    size_t k = 0, n = w->off[j];
    for (size_t a = 0; a < w->na; a++) {
        int64_t end = t->start[w->act[a]] + t->dur[w->act[a]];
        if (end < cs)
            continue; /* ended before this call: before every later one too */
        w->act[k++] = w->act[a];
        if (end >= ce)
            w->paths[n++] = w->act[a];
    }
    w->na = k;
    w->off[j + 1] = n;
    return 0;
}

/* Fetches what the trie reads first for launch j's first range not in the path before it, when that can be
 * known now. */
static void prefetch_path(const sweep *w, size_t j)
{
    const fl *f = w->f;
    const uint32_t *path = w->paths + w->off[j], *before = j ? w->paths + w->off[j - 1] : w->prev;
    size_t n = w->off[j + 1] - w->off[j], nb = j ? w->off[j] - w->off[j - 1] : w->np;
    size_t same = common_prefix(path, n, before, nb);
    if (same == n || (same && f->node[path[same - 1]] < 0))
        return;
    int64_t *fr = gf_hmap_get(&f->names, nvtx_frame_key(f, path[same]));
    if (fr)
        gf_path_trie_prefetch(&f->trie, same ? f->node[path[same - 1]] : -1, (uint32_t)*fr);
}

/* The trie nodes of launch j's path: the ranges it shares with the last path (the outer ones, mostly) keep
 * their nodes, only the rest is looked up (their frames and nodes exist already, so nothing is made in
 * another order). A range's node is also noted on it (f->node), for prefetch_path's guess. */
static int nodes_of(sweep *w, size_t j, uint32_t e)
{
    fl *f = w->f;
    const uint32_t *path = w->paths + w->off[j];
    size_t n = w->off[j + 1] - w->off[j];
    if (n != w->np || memcmp(path, w->prev, n * sizeof *path) != 0) {
        size_t same = common_prefix(path, n, w->prev, w->np);
        int32_t node = same ? w->pnode[same - 1] : -1;
        for (size_t p = same; p < n && node >= -1; p++) {
            uint32_t fr = nvtx_frame(f, path[p]);
            node = fr == UINT32_MAX ? -2 : gf_path_trie_child(&f->trie, node, fr);
            w->pnode[p] = node;
            f->node[path[p]] = node;
        }
        if (node < -1)
            return gf_oom(f->err, "flamegraph");
        memcpy(w->prev, path, n * sizeof *path);
        w->np = n;
        w->prev_node = node;
    }
    f->node[e] = w->prev_node;
    if (projection_point(&f->swept, f->launches))
        gf_path_trie_project(&f->trie, PROJECT_AT);
    return 0;
}

static int by_start(const void *a, const void *b, void *ctx)
{
    const gf_trace *t = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (t->start[x] != t->start[y])
        return t->start[x] < t->start[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* An unordered trace's launches of one thread in the order a sorted trace has them (by start, then arrival):
 * already so where the export's table is in start order, as nsys writes it. */
static void sort_calls(const gf_trace *t, uint32_t *calls, size_t nc)
{
    for (size_t i = 1; i < nc; i++)
        if (t->start[calls[i]] < t->start[calls[i - 1]]) {
            qsort_r(calls, nc, sizeof *calls, by_start, (void *)t);
            return;
        }
}

/* One thread's launches against its ranges: the path of each launch. */
static int sweep_thread(fl *f, uint32_t *calls, size_t nc, uint32_t *ranges, size_t nr)
{
    if (f->t->unordered)
        sort_calls(f->t, calls, nc);
    sort_ranges(f->t, ranges, nr);
    sweep w = {.f = f, .ranges = ranges, .nr = nr, .prev_node = -1};
    w.act = malloc((nr ? nr : 1) * sizeof *w.act);
    w.prev = malloc((nr ? nr : 1) * sizeof *w.prev);
    w.pnode = malloc((nr ? nr : 1) * sizeof *w.pnode);
    int rc = !w.act || !w.prev || !w.pnode ? gf_oom(f->err, "flamegraph") : 0;
    for (size_t c0 = 0; c0 < nc && rc == 0; c0 += SWEEP_BATCH) {
        size_t m = nc - c0 < SWEEP_BATCH ? nc - c0 : SWEEP_BATCH;
        for (size_t j = 0; j < m && rc == 0; j++) {
            if (path_of(&w, calls[c0 + j], j) != 0)
                rc = gf_oom(f->err, "flamegraph");
            else if (j < SWEEP_AHEAD)
                prefetch_path(&w, j);
        }
        for (size_t j = 0; j < m && rc == 0; j++) {
            rc = nodes_of(&w, j, calls[c0 + j]);
            if (j + SWEEP_AHEAD < m)
                prefetch_path(&w, j + SWEEP_AHEAD);
        }
    }
    free(w.act);
    free(w.paths);
    free(w.prev);
    free(w.pnode);
    return rc;
}

/* The NVTX path node of every launch of GPU work: events bucketed by lane, then one sweep per thread. */
static int nvtx_paths(fl *f)
{
    const gf_trace *t = f->t;
    size_t nl = t->nlanes ? t->nlanes : 1;
    size_t *cnt = calloc(nl + 1, sizeof *cnt);
    uint32_t *ev = NULL;
    uint8_t *swept = calloc(t->n ? t->n : 1, 1); /* a launch of GPU work, or an NVTX range */
    gf_hmap nvtx_lane;
    gf_hmap_init(&nvtx_lane);
    int rc = 0;
    if (!cnt || !swept) {
        rc = gf_oom(f->err, "flamegraph");
        goto done;
    }
    for (size_t i = 0; i < t->n; i++) {
        f->node[i] = -1;
        int64_t p = launch_of(f, i);
        if (p >= 0 && !swept[p]) {
            swept[p] = 1;
            f->launches++; /* an estimate for the projection: the launches of threads with no ranges count too */
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        if (!swept[i])
            swept[i] = (uint8_t)is_range(f, i);
        cnt[t->lane[i] + 1] += swept[i];
    }
    for (size_t l = 0; l < nl; l++)
        cnt[l + 1] += cnt[l];
    size_t *fill = malloc(nl * sizeof *fill);
    ev = gf_mem_scratch((cnt[nl] ? cnt[nl] : 1) * sizeof *ev);
    if (!fill || !ev) {
        free(fill);
        rc = gf_oom(f->err, "flamegraph");
        goto done;
    }
    memcpy(fill, cnt, nl * sizeof *fill);
    for (size_t i = 0; i < t->n; i++)
        if (swept[i])
            ev[fill[t->lane[i]]++] = (uint32_t)i;
    free(fill);
    for (size_t l = 0; l < t->nlanes; l++)
        if (t->lanes[l].kind == GF_LANE_NVTX && !gf_hmap_put(&nvtx_lane, thread_key(&t->lanes[l]), (int64_t)l, NULL)) {
            rc = gf_oom(f->err, "flamegraph");
            goto done;
        }
    for (size_t l = 0; l < t->nlanes && rc == 0; l++) {
        if (t->lanes[l].kind != GF_LANE_CPU || cnt[l + 1] == cnt[l])
            continue;
        int64_t *nv = gf_hmap_get(&nvtx_lane, thread_key(&t->lanes[l]));
        if (!nv)
            continue;
        rc = sweep_thread(f, ev + cnt[l], cnt[l + 1] - cnt[l], ev + cnt[*nv], cnt[*nv + 1] - cnt[*nv]);
    }
done:
    free(cnt);
    free(ev);
    free(swept);
    gf_hmap_free(&nvtx_lane);
    return rc;
}

static int push_id(fl *f, size_t *k, uint32_t id)
{
    if (id == UINT32_MAX)
        return -1;
    if (GF_GROW(f->ids, f->idcap, *k + 1, 64) != 0)
        return -1;
    f->ids[(*k)++] = id;
    return 0;
}

static uint32_t process_frame(fl *f, const gf_lane *gl, int64_t pid)
{
    const gf_trace *t = f->t;
    uint64_t key = ((uint64_t)(uint32_t)(gl->rank + 1) << 32) ^ (uint64_t)pid;
    uint32_t known = known_frame(f, ((uint64_t)3 << 56) ^ gf_hash_u64(key));
    if (known != UINT32_MAX)
        return known;
    for (size_t i = 0; i < f->o->nproc; i++)
        if (f->o->proc_pid[i] == pid && f->o->proc_rank[i] == gl->rank)
            return frame_for(f, 3, key, f->o->proc_name[i], GF_FRAME_PROCESS);
    const char *pname = NULL;
    for (size_t l = 0; l < t->nlanes && !pname; l++) /* the main thread's name names the process */
        if (t->lanes[l].kind == GF_LANE_CPU && t->lanes[l].pid == pid && t->lanes[l].tid == pid &&
            t->lanes[l].rank == gl->rank && t->lanes[l].tname >= 0)
            pname = gf_strtab_get(t->str, t->lanes[l].tname, NULL);
    char buf[600];
    if (pid < 0)
        snprintf(buf, sizeof buf, "process ?");
    else if (pname && *pname)
        snprintf(buf, sizeof buf, "%.500s [%" PRId64 "]", pname, pid);
    else
        snprintf(buf, sizeof buf, "pid %" PRId64, pid);
    return frame_for(f, 3, key, buf, GF_FRAME_PROCESS);
}

/* ---- a page's fold of the NVTX frames, decided before the stacks are made (flame_fold.h) ---- */

/* The key of GPU operation i's context in f->contexts; 0 when its lane or pid do not fit one (then no fold). */
static int context_key(const gf_trace *t, size_t i, int64_t p, uint64_t *key)
{
    int64_t pid = t->pid[i] >= 0 ? t->pid[i] : p >= 0 ? t->pid[p] : -1;
    if (pid + 1 >= ((int64_t)1 << 40) || (uint64_t)t->lane[i] >= ((uint64_t)1 << 23))
        return 0;
    *key = ((uint64_t)t->lane[i] << 40) | (uint64_t)(pid + 1);
    return 1;
}

/* the NVTX node in the folded tree of GPU operation i, launched by p */
static int32_t fold_node(fl *f, size_t i, int64_t p)
{
    uint64_t key;
    int64_t *c = context_key(f->t, i, p, &key) ? gf_hmap_get(&f->contexts, key) : NULL;
    return c ? gf_nvtx_fold_node(f->fold, (int32_t)*c, f->node[p]) : f->node[p];
}

static int launch_levels(fl *f, size_t *k, int level, size_t i, int64_t p)
{
    const gf_trace *t = f->t;
    if (level == GF_FL_API)
        return push_id(f, k, str_frame(f, t->name[p], GF_FRAME_API));
    if (level == GF_FL_NVTX) {
        size_t at = *k;
        for (int32_t n = f->fold ? fold_node(f, i, p) : f->node[p]; n >= 0; n = f->trie.parent[n])
            if (push_id(f, k, f->trie.frame[n]) != 0)
                return -1;
        for (size_t a = at, b = *k; a + 1 < b; a++, b--) { /* the walk went innermost first */
            uint32_t x = f->ids[a];
            f->ids[a] = f->ids[b - 1];
            f->ids[b - 1] = x;
        }
        return 0;
    }
    if (t->stack[p] < 0) /* GF_FL_CALLCHAIN: frames are stored innermost first */
        return 0;
    for (size_t j = t->stack_off[t->stack[p] + 1]; j-- > t->stack_off[t->stack[p]];)
        if (push_id(f, k, str_frame(f, t->frames[j], GF_FRAME_CALLCHAIN)) != 0)
            return -1;
    return 0;
}

/* The frames of levels [from, to) of o->levels of GPU operation i, launched by p (-1: not in the capture),
 * appended to f->ids at *k; *marked counts the no-launch frames pushed (one per stack). 0, or -1 on OOM. */
static int levels_of(fl *f, size_t i, int64_t p, size_t *k, size_t from, size_t to, int *marked)
{
    const gf_trace *t = f->t;
    const gf_lane *gl = &t->lanes[t->lane[i]];
    int64_t pid = t->pid[i] >= 0 ? t->pid[i] : p >= 0 ? t->pid[p] : -1;
    char buf[48];
    for (size_t li = from; li < to; li++) {
        int lv = f->o->levels[li], r = 0;
        switch (lv) {
        case GF_FL_PROCESS:
            r = push_id(f, k, process_frame(f, gl, pid));
            break;
        case GF_FL_RANK:
            if (gl->rank >= 0 && (size_t)gl->rank < t->nranks)
                r = push_id(f, k, str_frame(f, t->rank_label[gl->rank], GF_FRAME_RANK));
            break;
        case GF_FL_DEVICE:
            r = push_id(f, k, str_frame(f, gl->device, GF_FRAME_DEVICE));
            break;
        case GF_FL_STREAM:
            snprintf(buf, sizeof buf, gl->stream >= 0 ? "stream %" PRId64 : "stream ?", gl->stream);
            r = push_id(f, k, frame_for(f, 4, (uint64_t)gl->stream, buf, GF_FRAME_STREAM));
            break;
        case GF_FL_KERNEL:
            r = push_id(f, k, str_frame(f, t->name[i], t->kind[i] == GF_EV_KERNEL ? GF_FRAME_KERNEL : GF_FRAME_COPY));
            break;
        default: /* the launch side: NVTX, backtrace, API call */
            if (p >= 0)
                r = launch_levels(f, k, lv, i, p);
            else if (!(*marked)++)
                r = push_id(f, k, frame_for(f, 6, 0, f->o->nolaunch, GF_FRAME_NOLAUNCH));
        }
        if (r != 0)
            return -1;
    }
    return 0;
}

/* The NVTX level's index when the levels are context levels, NVTX, then API call and kernel (kernel last): the
 * shapes flame_fold.h knows; else -1 (a backtrace level, NVTX under the kernel, ...). */
static long fold_nvtx_level(const gf_gpu_flame_opts *o)
{
    long at = -1;
    for (size_t li = 0; li < o->nlevels; li++) {
        int lv = o->levels[li];
        if (lv == GF_FL_NVTX)
            at = (long)li;
        else if (at < 0 ? lv > GF_FL_STREAM : lv != GF_FL_API && lv != GF_FL_KERNEL)
            return -1;
    }
    return at >= 0 && o->levels[o->nlevels - 1] == GF_FL_KERNEL ? at : -1;
}

/* GPU operation i's context in the fold, made from its frames above the NVTX level (levels [0, at)) the first
 * time its lane and pid are met (f->ids is free: no stack is being made). -1 on OOM, -2: the key does not fit. */
static int32_t fold_context(fl *f, size_t i, int64_t p, size_t at)
{
    uint64_t key;
    if (!context_key(f->t, i, p, &key))
        return -2;
    int64_t *v = gf_hmap_get(&f->contexts, key);
    if (v)
        return (int32_t)*v;
    size_t k = 0;
    int marked = 0;
    if (levels_of(f, i, p, &k, 0, at, &marked) != 0)
        return -1;
    int32_t c = gf_nvtx_fold_context(f->fold, f->ids, k);
    return c >= 0 && gf_hmap_put(&f->contexts, key, c, NULL) ? c : -1;
}

/* Each GPU operation (of the step, with in_step) added to the fold: its context, its NVTX node, the frames under
 * the NVTX level (level at) and its weight. 0, -1 on OOM, -2 when the fold does not apply. */
static int fold_ops(fl *f, const int32_t *in_step, size_t at)
{
    const gf_trace *t = f->t;
    for (size_t i = 0; i < t->n; i++) {
        if (!gf_ev_is_gpu_work(t->kind[i]) || (in_step && in_step[i] < 0))
            continue;
        int64_t p = launch_of(f, i);
        int32_t c = fold_context(f, i, p, at);
        size_t k = 0;
        int marked = 0;
        if (c < 0)
            return c;
        if (levels_of(f, i, p, &k, at + 1, f->o->nlevels, &marked) != 0)
            return -1;
        if (k < 1 || k > 2)
            return -2;
        uint64_t tail = ((uint64_t)f->ids[0] << 32) | (k == 2 ? f->ids[1] : UINT32_MAX);
        int32_t node = p < 0 ? GF_NVTX_FOLD_NO_LAUNCH : f->node[p] >= 0 ? f->node[p] : GF_NVTX_FOLD_NONE;
        if (gf_nvtx_fold_add(f->fold, c, node, tail, t->dur[i] > 0 ? t->dur[i] : 0) != 0)
            return -1;
    }
    return 0;
}

static int32_t fold_child(void *arg, int32_t parent, uint32_t frame)
{
    return gf_path_trie_child(&((fl *)arg)->trie, parent, frame);
}

/* With o->fold_name (a page), where the levels allow it and the page folds (more than o->fold_min_stacks
 * distinct stacks, o->fold_share > 0): f->fold maps each operation's NVTX node to its node in the folded tree
 * (f->prefold says what it folded); else f->fold stays NULL. 0, or -1 on OOM. */
static int fold_prepare(fl *f, const int32_t *in_step)
{
    const gf_gpu_flame_opts *o = f->o;
    long at = fold_nvtx_level(o);
    size_t ops = 0;
    for (size_t i = 0; i < f->t->n && at >= 0; i++)
        ops += gf_ev_is_gpu_work(f->t->kind[i]) != 0;
    /* No more stacks than operations: the page does not fold. No more NVTX paths than fold_min_stacks: the raw
     * stacks are few enough to make (this pass would mostly cost, the page being the same either way). */
    if (at < 0 || !(o->fold_share > 0) || o->fold_min_stacks < 0 || ops <= (size_t)o->fold_min_stacks ||
        f->trie.n <= (size_t)o->fold_min_stacks)
        return 0;
    if (!(f->fold = gf_nvtx_fold_new(f->trie.parent, f->trie.frame, f->trie.n)))
        return gf_oom(f->err, "flamegraph fold");
    int rc = fold_ops(f, in_step, (size_t)at);
    size_t stacks = gf_nvtx_fold_stacks(f->fold), nodes = 0;
    int64_t total = gf_nvtx_fold_total(f->fold), weight = 0;
    if (rc == 0 && total > 0 && stacks > (size_t)o->fold_min_stacks) {
        int64_t min = (int64_t)ceil((double)total * o->fold_share); /* fg.fold's math.ceil(stacks:total() * share) */
        uint32_t frame = frame_for(f, 7, 0, o->fold_name, GF_FRAME_NONE);
        rc = frame == UINT32_MAX ? -1 : gf_nvtx_fold_map(f->fold, min, frame, fold_child, f, &nodes, &weight);
        f->prefold = (gf_stacks_prefold){frame, stacks, {nodes, weight}};
    }
    if (rc == -1)
        return gf_oom(f->err, "flamegraph fold");
    if (rc != 0 || nodes == 0) { /* the stacks made raw: gf_stacks_fold folds what there is */
        gf_nvtx_fold_free(f->fold);
        f->fold = NULL;
    }
    return 0;
}

/* The frames of GPU operation i into f->ids from at; returns where they end or -1 (OOM). */
static long stack_of(fl *f, size_t i, size_t at)
{
    const gf_trace *t = f->t;
    size_t k = at;
    int marked = 0;
    if (levels_of(f, i, launch_of(f, i), &k, 0, f->o->nlevels, &marked) != 0)
        return -1;
    if (k == at) { /* no level had a frame for it (levels = {"nvtx"} outside every range): counted as its leaf */
        int kind = t->kind[i] == GF_EV_KERNEL ? GF_FRAME_KERNEL : GF_FRAME_COPY;
        if (push_id(f, &k, str_frame(f, t->name[i], kind)) != 0)
            return -1;
    }
    return (long)k;
}

/* Stacks are found BATCH at a time, and each one's slot in the stacks' table is fetched before the first is
 * added: where nearly every stack is new, an add was a wait on memory at that slot (85 % of its time on
 * the 368 MB export's 2.2M stacks, issue 42). */
enum { BATCH = 16 };

typedef struct batch {
    size_t n, ev[BATCH], end[BATCH]; /* stack j: event ev[j], frames f->ids[end[j - 1] (0 for j = 0) .. end[j]) */
    uint64_t hash[BATCH];            /* and its hash (gf_stacks_prefetch's) */
    size_t ngpu, seen, made0;        /* for the projection (PROJECT_AT) */
} batch;

static int add_batch(fl *f, batch *b, int32_t *evs)
{
    const gf_trace *t = f->t;
    for (size_t j = 0, at = 0; j < b->n; at = b->end[j++]) {
        size_t i = b->ev[j], idx;
        int rc = gf_stacks_add_hashed(f->s, f->ids + at, b->end[j] - at, b->hash[j], t->dur[i] > 0 ? t->dur[i] : 0,
                                      &idx, f->err);
        if (rc != 0)
            return rc;
        if (projection_point(&b->seen, b->ngpu)) {
            size_t made = gf_stacks_count(f->s) - b->made0, more = made * (PROJECT_AT - 1);
            (void)gf_stacks_reserve(f->s, more, more * gf_stacks_max_depth(f->s)); /* failing: grown as before */
        }
        gf_stacks_add_instances(f->s, idx, 1);
        if (evs)
            evs[i] = (int32_t)idx;
    }
    b->n = 0;
    return 0;
}

/* The stack of every GPU operation (of the step, with in_step) added to f->s; evs[i]: event i's stack. */
static int add_stacks(fl *f, const int32_t *in_step, int32_t *evs)
{
    const gf_trace *t = f->t;
    batch b = {.made0 = gf_stacks_count(f->s)};
    for (size_t i = 0; i < t->n; i++)
        b.ngpu += gf_ev_is_gpu_work(t->kind[i]) != 0;
    for (size_t i = 0; i < t->n; i++) {
        if (evs)
            evs[i] = -1;
        if (!gf_ev_is_gpu_work(t->kind[i]) || (in_step && in_step[i] < 0))
            continue;
        size_t at = b.n ? b.end[b.n - 1] : 0;
        long end = stack_of(f, i, at);
        if (end < 0)
            return gf_oom(f->err, "flamegraph");
        b.hash[b.n] = gf_stacks_prefetch(f->s, f->ids + at, (size_t)end - at);
        b.ev[b.n] = i;
        b.end[b.n++] = (size_t)end;
        int rc = b.n == BATCH ? add_batch(f, &b, evs) : 0;
        if (rc != 0)
            return rc;
    }
    return add_batch(f, &b, evs);
}

/* A trace the caller uses up (gf_trace_gpu_stacks_use_up), once its NVTX paths are found: each GPU operation's
 * launch noted (4 bytes an event, the launch index freed), then the columns nothing after reads freed: the
 * starts, correlation ids, details and arrival order, and the launch stacks where no level shows them. The fold's
 * and the stacks' tables then reuse that memory instead of fresh pages (issue 42: the hierarchical page of the
 * 1M bench peaked at 298 MB, 241 MB so). */
static int use_up_columns(fl *f, gf_trace *own, gf_launch_index *index)
{
    int32_t *launch = gf_mem_scratch((own->n ? own->n : 1) * sizeof *launch);
    if (!launch)
        return gf_oom(f->err, "flamegraph");
    for (size_t i = 0; i < own->n; i++)
        launch[i] = gf_ev_is_gpu_work(own->kind[i]) ? (int32_t)launch_of(f, i) : -1;
    f->launch = launch;
    drop_launches(f->lx, index);
    f->lx = NULL;
    int callchain = 0;
    for (size_t li = 0; li < f->o->nlevels; li++)
        callchain |= f->o->levels[li] == GF_FL_CALLCHAIN;
    void **const cols[] = {(void **)&own->start, (void **)&own->corr, (void **)&own->detail, (void **)&own->seq,
                           (void **)&own->details, callchain ? NULL : (void **)&own->stack};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        if (cols[c]) {
            free(*cols[c]);
            *cols[c] = NULL;
        }
    own->ndetails = 0;
    return 0;
}

/* gf_trace_gpu_stacks, and with own (== t) gf_trace_gpu_stacks_use_up's: own's columns freed as they are done
 * with (use_up_columns), all of them at the end. */
static int gpu_stacks(const gf_trace *t, gf_trace *own, const gf_gpu_flame_opts *o, gf_stacks *s, int32_t **ev_stack,
                      gf_err *err)
{
    if (!t->finished || (t->unordered && (o->step || ev_stack))) {
        drop_launches(o->launches, NULL);
        if (own)
            gf_trace_free_events(own);
        return gf_errf(err, GF_EXIT_ERROR, "trace: flamegraph %s", t->finished ? "of one step or per event of an "
                       "unordered trace" : "before finish");
    }
    fl f = {.t = t, .o = o, .s = s, .err = err};
    memset(f.cval, 0xff, sizeof f.cval);
    gf_path_trie_init(&f.trie);
    gf_hmap_init(&f.names);
    gf_hmap_init(&f.contexts);
    int32_t *evs = NULL;
    int32_t *in_step = NULL; /* before the first goto done: done frees it */
    int rc = 0;
    gf_launch_index index;
    if (o->launches)
        f.lx = o->launches; /* found beside the caller's NVTX grouping (trace_flame_job.c) */
    else if ((rc = gf_launch_index_build(t, &index, err)) != 0)
        goto done;
    else
        f.lx = &index;
    f.node = gf_mem_scratch((t->n ? t->n : 1) * sizeof *f.node);
    if (ev_stack)
        evs = gf_mem_scratch((t->n ? t->n : 1) * sizeof *evs);
    if (!f.node || (ev_stack && !evs)) {
        rc = gf_oom(f.err, "flamegraph");
        goto done;
    }
    if (o->step && (rc = gf_steps_assign(t, o->step, 1, &in_step, err)) != 0)
        goto done;
    int want_nvtx = 0;
    for (size_t li = 0; li < o->nlevels; li++)
        want_nvtx |= o->levels[li] == GF_FL_NVTX;
    if (want_nvtx) {
        if ((rc = nvtx_paths(&f)) != 0)
            goto done;
    } else {
        for (size_t i = 0; i < t->n; i++)
            f.node[i] = -1;
    }
    if (own && (rc = use_up_columns(&f, own, &index)) != 0)
        goto done;
    if (want_nvtx && o->fold_name && (rc = fold_prepare(&f, in_step)) != 0)
        goto done;
    /* no more trie nodes are made (the stacks walk the nodes' parents): its lists and table go before the
     * stacks' table is made */
    gf_path_trie_done(&f.trie);
    rc = add_stacks(&f, in_step, evs);
    if (rc == 0 && f.fold)
        gf_stacks_set_prefold(s, &f.prefold);
done:
    gf_nvtx_fold_free(f.fold);
    gf_hmap_free(&f.contexts);
    free(in_step);
    drop_launches(f.lx, &index);
    free(f.launch);
    free(f.node);
    free(f.ids);
    gf_path_trie_free(&f.trie);
    gf_hmap_free(&f.names);
    if (rc != 0 || !ev_stack)
        free(evs);
    else
        *ev_stack = evs;
    if (own)
        gf_trace_free_events(own);
    return rc;
}

int gf_trace_gpu_stacks(const gf_trace *t, const gf_gpu_flame_opts *o, gf_stacks *s, int32_t **ev_stack,
                        gf_err *err)
{
    return gpu_stacks(t, NULL, o, s, ev_stack, err);
}

int gf_trace_gpu_stacks_use_up(gf_trace *t, const gf_gpu_flame_opts *o, gf_stacks *s, gf_err *err)
{
    return gpu_stacks(t, t, o, s, NULL, err);
}

/* ---- speedscope: evented profiles per stream ---- */

typedef struct ev_ctx {
    const gf_trace *t;
    const gf_stacks *s;
    const int32_t *evs;
    size_t max_events;
} ev_ctx;

static void ev(FILE *out, int *first, char type, uint32_t frame, int64_t at)
{
    fprintf(out, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRId64 "}", *first ? "" : ",", type, frame, at);
    *first = 0;
}

static void write_lane(const ev_ctx *c, FILE *out, const gf_lane *lane, const uint32_t *evi, size_t n)
{
    const gf_trace *t = c->t;
    fputs(",{\"type\":\"evented\",\"name\":", out);
    const char *lab = gf_strtab_get(t->str, lane->label, NULL);
    gf_json_file_string(out, lab, strlen(lab));
    int64_t first_at = t->start[evi[0]], last = INT64_MIN;
    fprintf(out, ",\"unit\":\"nanoseconds\",\"startValue\":%" PRId64 ",\"events\":[", first_at);
    int first = 1;
    for (size_t k = 0; k < n; k++) {
        size_t i = evi[k], depth;
        const uint32_t *ids = gf_stacks_get(c->s, (size_t)c->evs[i], &depth, NULL);
        int64_t a = t->start[i] > last ? t->start[i] : last, b = t->start[i] + t->dur[i];
        if (b < a)
            b = a;
        for (size_t d = 0; d < depth; d++)
            ev(out, &first, 'O', ids[d], a);
        for (size_t d = depth; d-- > 0;)
            ev(out, &first, 'C', ids[d], b);
        last = b;
    }
    fprintf(out, "],\"endValue\":%" PRId64 "}", last > first_at ? last : first_at);
}

static int write_evented(void *ctx, FILE *out, gf_err *err)
{
    const ev_ctx *c = ctx;
    const gf_trace *t = c->t;
    size_t nl = t->nlanes ? t->nlanes : 1, left = c->max_events ? c->max_events : SIZE_MAX;
    size_t *cnt = calloc(nl + 1, sizeof *cnt), *fill = malloc(nl * sizeof *fill);
    uint32_t *evi = gf_mem_scratch((t->n ? t->n : 1) * sizeof *evi);
    if (!cnt || !fill || !evi) {
        free(cnt);
        free(fill);
        free(evi);
        return gf_oom(err, "speedscope");
    }
    for (size_t i = 0; i < t->n && left > 0; i++) /* the earliest max_events operations, bucketed by stream */
        if (c->evs[i] >= 0) {
            cnt[t->lane[i] + 1]++;
            left--;
        }
    for (size_t l = 0; l < nl; l++)
        cnt[l + 1] += cnt[l];
    memcpy(fill, cnt, nl * sizeof *fill);
    left = cnt[nl];
    for (size_t i = 0; i < t->n && left > 0; i++)
        if (c->evs[i] >= 0) {
            evi[fill[t->lane[i]]++] = (uint32_t)i;
            left--;
        }
    for (size_t l = 0; l < t->nlanes; l++)
        if (cnt[l + 1] > cnt[l])
            write_lane(c, out, &t->lanes[l], evi + cnt[l], cnt[l + 1] - cnt[l]);
    free(cnt);
    free(fill);
    free(evi);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "write error (speedscope)");
    return 0;
}

int gf_trace_write_gpu_speedscope(const gf_trace *t, const gf_gpu_flame_opts *o, const char *name,
                                  size_t max_events, FILE *out, gf_err *err)
{
    gf_stacks *s = gf_stacks_new();
    int32_t *evs = NULL;
    if (!s)
        return gf_oom(err, "speedscope");
    int rc = gf_trace_gpu_stacks(t, o, s, &evs, err);
    if (rc == 0) {
        ev_ctx c = {t, s, evs, max_events};
        rc = gf_stacks_write_speedscope_ex(s, out, name, "nanoseconds", write_evented, &c, err);
    }
    free(evs);
    gf_stacks_free(s);
    return rc;
}
