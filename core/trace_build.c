/* The Trace builder (trace_build.h; trace.h, "Building"): lanes, stacks and events as the importers add
 * them, the bounded build's min-heap of the longest events, the partner pass, and gf_trace_finish, where the model is
 * finished (events in start order, lanes in display order and labelled, the launch-stack flame). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "trace.h"
#include "trace_build.h"
#include "trace_build_int.h"
#include "trace_order.h"

static void gf_trace_build_free(gf_trace_build *b)
{
    if (!b)
        return;
    free(b->ev);
    free(b->det);
    free(b->cdet);
    gf_hmap_free(&b->cdet_map);
    free(b->seq);
    free(b->heap);
    free(b->extra);
    free(b->extra_det);
    gf_hmap_free(&b->wanted);
    free(b->want_bits);
    gf_hmap_free(&b->lane_map);
    gf_hmap_free(&b->stack_map);
    gf_hmap_free(&b->api_map);
    gf_hmap_free(&b->flame_map);
    free(b->apis);
    free(b);
}

int gf_trace_begin(gf_trace *t, size_t max_events, int keep_partners, gf_err *err)
{
    if (t->b || t->finished)
        return gf_errf(err, GF_EXIT_ERROR, "trace: already built");
    t->b = calloc(1, sizeof *t->b);
    t->b_free = gf_trace_build_free;
    if (!t->b)
        return gf_oom(err, "trace");
    t->b->max = max_events;
    t->b->keep_partners = keep_partners;
    return 0;
}

int64_t gf_trace_last_seq(const gf_trace *t)
{
    return t->b && t->b->nseq ? (int64_t)t->b->nseq - 1 : -1;
}

/* ---- lanes ---- */

static uint64_t lane_hash(int32_t rank, int kind, int sync, int64_t pid, int64_t tid, int32_t device, int64_t stream)
{
    uint64_t h = gf_hash_u64((uint64_t)kind * 31 + (uint64_t)sync + ((uint64_t)(uint32_t)(rank + 1) << 8));
    h = gf_hash_u64(h ^ (uint64_t)pid);
    h = gf_hash_u64(h ^ (uint64_t)tid);
    h = gf_hash_u64(h ^ (uint64_t)(uint32_t)device);
    h = gf_hash_u64(h ^ (uint64_t)stream);
    return h == GF_HMAP_EMPTY ? 0 : h;
}

int32_t gf_trace_lane(gf_trace *t, int kind, int sync, int64_t pid, int64_t tid, int32_t device, int64_t devnum,
                      int64_t stream, gf_err *err)
{
    return gf_trace_lane_ranked(t, -1, kind, sync, pid, tid, device, devnum, stream, err);
}

int32_t gf_trace_lane_ranked(gf_trace *t, int32_t rank, int kind, int sync, int64_t pid, int64_t tid, int32_t device,
                             int64_t devnum, int64_t stream, gf_err *err)
{
    gf_trace_build *b = t->b;
    int sub = kind == GF_LANE_CPU ? sync : 0;
    if (kind == GF_LANE_GPU)
        pid = tid = -1;
    else
        device = -1, devnum = -1, stream = -1, sync = sub;
    uint64_t h = lane_hash(rank, kind, sync, pid, tid, device, stream);
    for (;;) {
        int ins;
        int64_t *v = gf_hmap_put(&b->lane_map, h, (int64_t)t->nlanes, &ins);
        if (!v)
            return gf_oom(err, "trace"), -1;
        if (ins)
            break;
        gf_lane *l = &t->lanes[*v];
        if (l->rank == rank && l->kind == kind && gf_lane_variant(l) == sync && l->pid == pid && l->tid == tid &&
            l->device == device && l->stream == stream)
            return (int32_t)*v;
        h = gf_hash_u64(h + 1); /* collision: probe another key */
        if (h == GF_HMAP_EMPTY)
            h = 1;
    }
    if (grow((void **)&t->lanes, &t->lanes_cap, t->nlanes + 1, sizeof *t->lanes) != 0)
        return gf_oom(err, "trace"), -1;
    gf_lane *l = &t->lanes[t->nlanes];
    memset(l, 0, sizeof *l);
    l->kind = (uint8_t)kind;
    l->sync = (uint8_t)(kind == GF_LANE_GPU ? sync : 0);
    l->sub = (uint8_t)sub;
    l->pid = pid;
    l->tid = tid;
    l->device = device;
    l->devnum = devnum;
    l->stream = stream;
    l->tname = -1;
    l->label = -1;
    l->rank = rank;
    return (int32_t)t->nlanes++;
}

void gf_trace_lane_set_thread_name(gf_trace *t, int32_t lane, int32_t tname)
{
    if (lane >= 0 && (size_t)lane < t->nlanes)
        t->lanes[lane].tname = tname;
}

/* ---- stacks ---- */

int32_t gf_trace_stack(gf_trace *t, const int32_t *frames, size_t n)
{
    gf_trace_build *b = t->b;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = gf_hash_u64(h ^ (uint64_t)(uint32_t)frames[i]) + i;
    if (h == GF_HMAP_EMPTY)
        h = 0;
    for (;;) {
        int ins;
        int64_t *v = gf_hmap_put(&b->stack_map, h, (int64_t)t->nstacks, &ins);
        if (!v)
            return -1;
        if (ins)
            break;
        size_t s = (size_t)*v, len = t->stack_off[s + 1] - t->stack_off[s];
        if (len == n && memcmp(t->frames + t->stack_off[s], frames, n * sizeof *frames) == 0)
            return (int32_t)s;
        h = gf_hash_u64(h + 1);
        if (h == GF_HMAP_EMPTY)
            h = 1;
    }
    if (grow((void **)&t->frames, &t->frames_cap, t->nframes + n, sizeof *t->frames) != 0)
        return -1;
    size_t cap1 = t->stacks_cap + 1;
    if (grow((void **)&t->stack_off, &cap1, t->nstacks + 2, sizeof *t->stack_off) != 0)
        return -1;
    t->stacks_cap = cap1 - 1;
    if (n)
        memcpy(t->frames + t->nframes, frames, n * sizeof *frames);
    t->nframes += n;
    t->stack_off[t->nstacks + 1] = t->nframes;
    return (int32_t)t->nstacks++;
}

/* ---- events ---- */

static int64_t *wanted_of(const gf_trace_build *b, const gf_event *e);

/* The kept events of a bounded build: the max best by (dur desc, seq asc). Events longer than thr (the
 * shortest kept at the last settle) are appended to slots; when the slots are full, settle selects the max
 * best (a quickselect over 24-byte keys, linear) and moves them to the first max slots. The events kept in
 * the end are the ones a heap would keep; the memory stays sequential. */
static int better(const heap_key *x, const heap_key *y)
{
    if (x->dur != y->dur)
        return x->dur > y->dur;
    return x->seq < y->seq;
}

/* Reorders k[0..n) so that k[0..m) are the m best, k[m - 1] the worst of them (0 < m < n). */
static void select_best(heap_key *k, size_t n, size_t m)
{
    size_t lo = 0, hi = n - 1, want = m - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2; /* median of three as the pivot: sorted input stays linear */
        if (better(&k[mid], &k[lo])) {
            heap_key x = k[mid]; k[mid] = k[lo]; k[lo] = x;
        }
        if (better(&k[hi], &k[lo])) {
            heap_key x = k[hi]; k[hi] = k[lo]; k[lo] = x;
        }
        if (better(&k[hi], &k[mid])) {
            heap_key x = k[hi]; k[hi] = k[mid]; k[mid] = x;
        }
        heap_key p = k[mid];
        size_t i = lo, j = hi;
        for (;;) { /* Hoare partition: better than p to the left */
            while (better(&k[i], &p))
                i++;
            while (better(&p, &k[j]))
                j--;
            if (i >= j)
                break;
            heap_key x = k[i]; k[i] = k[j]; k[j] = x;
            i++;
            j--;
        }
        if (want <= j)
            hi = j;
        else
            lo = j + 1;
    }
}

/* Keeps the max best of the n slots in slots [0, max); thr = the duration of the worst kept. */
static void settle(gf_trace_build *b)
{
    if (!b->rows || b->n <= b->max)
        return;
    heap_key *k = b->heap;
    for (size_t i = 0; i < b->n; i++)
        k[i] = (heap_key){b->ev[i].dur, b->seq[i], i};
    select_best(k, b->n, b->max);
    b->thr = k[b->max - 1].dur;
    /* each kept event in a slot at or above max moves into a slot below max whose event was dropped */
    size_t j = 0;
    for (size_t i = b->max; i < b->n; i++) {
        size_t hole = k[i].slot;
        if (hole >= b->max)
            continue;
        while (k[j].slot < b->max)
            j++;
        size_t from = k[j++].slot;
        b->ev[hole] = b->ev[from];
        b->det[hole] = b->det[from];
        b->seq[hole] = b->seq[from];
    }
    b->n = b->max;
}

static int flame_add(gf_trace_build *b, int32_t stack, int32_t leaf, int gpu, int64_t w)
{
    uint64_t key = ((uint64_t)(uint32_t)stack << 32) | (uint32_t)leaf | (gpu ? 0 : 0x80000000u);
    int64_t *v = gf_hmap_put(&b->flame_map, key, 0, NULL);
    if (!v)
        return -1;
    *v += w;
    return 0;
}

/* The event columns resized to n entries (realloc: contents kept; on failure the ones already resized stay
 * valid and owned by t, so gf_trace_free releases them). Entries from `fill_from` on are about to be written
 * in full: their pages are mapped now (gf_mem_prefault); SIZE_MAX: none. A keep-all build has no seq column
 * until finish (its arrival order is the index): with_seq 0 leaves seq alone. */
static int resize_events_for(gf_trace *t, size_t n, size_t fill_from, int with_seq, gf_mem_populator *later)
{
    size_t m = n ? n : 1;
    void **cols[] = {(void **)&t->start, (void **)&t->dur,   (void **)&t->corr,   (void **)&t->lane,
                     (void **)&t->name,  (void **)&t->stack, (void **)&t->pid,    (void **)&t->detail,
                     (void **)&t->kind,  (void **)&t->seq};
    size_t elem[] = {sizeof *t->start, sizeof *t->dur,    sizeof *t->corr, sizeof *t->lane, sizeof *t->name,
                     sizeof *t->stack, sizeof *t->pid,    sizeof *t->detail, sizeof *t->kind, sizeof *t->seq};
    size_t ncols = sizeof cols / sizeof cols[0] - (with_seq ? 0 : 1);
    for (size_t c = 0; c < ncols; c++) {
        if (gf_resize(cols[c], m, elem[c]) != 0)
            return -1;
        void *q = *cols[c];
        if (fill_from >= n)
            continue;
        gf_mem_hint_huge(q, n * elem[c]); /* the whole block: a hint on part of it splits its mapping */
        if (later && later->n < GF_MEM_NSPAN) { /* huge pages offered now, mapped later */
            later->p[later->n] = (char *)q + fill_from * elem[c];
            later->len[later->n++] = (n - fill_from) * elem[c];
        } else {
            gf_mem_populate((char *)q + fill_from * elem[c], (n - fill_from) * elem[c]);
        }
    }
    return 0;
}

static int resize_events(gf_trace *t, size_t n, int with_seq)
{
    return resize_events_for(t, n, SIZE_MAX, with_seq, NULL);
}

_Static_assert(sizeof(gf_detail) == 96, "gf_detail has no padding: details are hashed and compared as bytes");

static uint64_t detail_hash(const gf_detail *d)
{
    uint64_t w[sizeof *d / 8], h = 0x9e3779b97f4a7c15ull;
    memcpy(w, d, sizeof w);
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        h = gf_hash_u64(h ^ w[i]);
    return h == GF_HMAP_EMPTY ? 0 : h;
}

/* Index of d among the builder's distinct details, added when new; -1 on OOM. */
static int32_t intern_detail(gf_trace_build *b, const gf_detail *d)
{
    if (b->ncdet && memcmp(&b->cdet[b->last_cdet], d, sizeof *d) == 0)
        return b->last_cdet; /* the common case: a run of events with the same details */
    uint64_t h = detail_hash(d);
    size_t pos = 0;
    for (int64_t *v; (v = gf_hmap_next(&b->cdet_map, h, &pos));)
        if (memcmp(&b->cdet[*v], d, sizeof *d) == 0)
            return b->last_cdet = (int32_t)*v;
    if (b->ncdet >= INT32_MAX || grow((void **)&b->cdet, &b->cdet_cap, b->ncdet + 1, sizeof *b->cdet) != 0 ||
        gf_hmap_add(&b->cdet_map, h, (int64_t)b->ncdet) != 0)
        return -1;
    b->cdet[b->ncdet] = *d;
    return b->last_cdet = (int32_t)b->ncdet++;
}

/* Keep-all builds (max_events 0) append straight into the trace's own columns and share details: no row
 * array to convert at finish, so the build's peak stays near the finished model's size (5M events: about
 * 50 bytes each, where rows plus columns plus one detail per event took 265). Lanes hold builder indices
 * until finish renumbers them. */
static int append_kept(gf_trace *t, const gf_event *e, const gf_detail *d, gf_err *err)
{
    gf_trace_build *b = t->b;
    if (b->n >= UINT32_MAX)
        return gf_errf(err, GF_EXIT_ERROR, "trace: more than %u events", (unsigned)UINT32_MAX);
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        if (resize_events(t, nc, 0) != 0)
            return gf_errf(err, GF_EXIT_ERROR, "trace: out of memory (%zu events)", b->n);
        b->cap = nc;
    }
    size_t i = b->n++;
    t->start[i] = e->start;
    t->dur[i] = e->dur;
    t->corr[i] = e->corr;
    t->lane[i] = e->lane;
    t->name[i] = e->name;
    t->stack[i] = e->stack;
    t->pid[i] = e->pid;
    t->kind[i] = e->kind;
    b->nseq++; /* seq[i] == i: written at finish */
    t->detail[i] = d ? intern_detail(b, d) : -1;
    if (d && t->detail[i] < 0)
        return gf_errf(err, GF_EXIT_ERROR, "trace: out of memory (%zu events)", b->n);
    return 0;
}

int gf_trace_reserve_later(gf_trace *t, size_t n, gf_mem_populator *later, gf_err *err)
{
    gf_trace_build *b = t->b;
    if (!b || b->rows || n <= b->cap)
        return 0;
    if (b->max && n > b->max)
        n = b->max;
    if (n <= b->cap)
        return 0;
    /* every reserved slot is written next */
    if (resize_events_for(t, n, b->n, 0, later) != 0)
        return gf_errf(err, GF_EXIT_ERROR, "trace: out of memory (reserving %zu events)", n);
    b->cap = n;
    return 0;
}

int gf_trace_reserve(gf_trace *t, size_t n, gf_err *err)
{
    return gf_trace_reserve_later(t, n, NULL, err);
}

/* A bounded build (max_events > 0) met its max+1st event: the columns become a heap of rows, from which
 * each later event evicts the shortest. Builds that stay within max never pay for rows. */
static int to_rows(gf_trace *t)
{
    gf_trace_build *b = t->b;
    size_t n = b->n;
    size_t cap = n + n / 4 + 64; /* settle runs once per n / 4 + 64 events that may be kept */
    b->ev = malloc(cap * sizeof *b->ev);
    b->det = malloc(cap * sizeof *b->det);
    b->seq = malloc(cap * sizeof *b->seq);
    b->heap = malloc(cap * sizeof *b->heap);
    if (!b->ev || !b->det || !b->seq || !b->heap)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int32_t di = t->detail[i];
        b->ev[i] = (gf_event){.start = t->start[i], .dur = t->dur[i], .corr = t->corr[i], .lane = t->lane[i],
                              .name = t->name[i], .stack = t->stack[i], .pid = t->pid[i], .kind = t->kind[i],
                              .has_detail = di >= 0};
        if (di >= 0)
            b->det[i] = b->cdet[di];
        b->seq[i] = i;
        if (i == 0 || b->ev[i].dur < b->thr)
            b->thr = b->ev[i].dur; /* the worst kept */
    }
    gf_trace_free_events(t);
    free(b->cdet);
    b->cdet = NULL;
    b->ncdet = b->cdet_cap = 0;
    gf_hmap_free(&b->cdet_map);
    b->cap = cap;
    b->rows = 1;
    return 0;
}

int gf_trace_add(gf_trace *t, const gf_event *ein, const gf_detail *d, gf_err *err)
{
    gf_trace_build *b = t->b;
    gf_event e = *ein;
    if (e.dur < 0)
        e.dur = 0;
    e.has_detail = d != NULL;
    if (!b->given) {
        t->total++;
        t->total_kind[e.kind]++;
    }
    /* launches with a backtrace: remember them for inheritance and the flamegraph (a merge of digests,
     * trace_digest.h: stacks were inherited and the flame summed where each report was opened) */
    if (!b->given && e.kind == GF_EV_API && e.stack >= 0 && e.corr >= 0) {
        int ins;
        int64_t *v = gf_hmap_put(&b->api_map, pidcorr_key(e.pid, e.corr), (int64_t)b->napis, &ins);
        if (!v || grow((void **)&b->apis, &b->apis_cap, b->napis + 1, sizeof *b->apis) != 0)
            return gf_oom(err, "trace");
        if (ins) {
            b->apis[b->napis++] = (api_rec){e.dur, e.stack, e.name, 0};
            t->launches_with_stack++;
        }
        if (t->any_pid && e.pid >= 0) { /* CSV GPU rows carry no pid: find the launch by corr alone */
            int64_t *v2 = gf_hmap_put(&b->api_map, pidcorr_key(-1, e.corr), *v, &ins);
            if (!v2)
                return gf_oom(err, "trace");
        }
    } else if (!b->given && gf_ev_is_gpu_work(e.kind) && e.corr >= 0 && b->napis) {
        int64_t *v = gf_hmap_get(&b->api_map, pidcorr_key(e.pid, e.corr));
        if (v) {
            api_rec *a = &b->apis[*v];
            if (e.stack < 0)
                e.stack = a->stack;
            a->partnered = 1;
            if (flame_add(b, a->stack, e.name, 1, e.dur) != 0)
                return gf_oom(err, "trace");
        }
    }
    if (b->collect && e.kind == GF_EV_API && e.corr >= 0 && gf_trace_add_partner(t, &e, err) != 0)
        return -1;
    if (!b->rows) {
        if (b->max == 0 || b->n < b->max)
            return append_kept(t, &e, d, err);
        if (to_rows(t) != 0)
            return gf_errf(err, GF_EXIT_ERROR, "trace: out of memory (%zu events)", b->n);
    }
    /* full: an event strictly longer than the shortest kept may be kept */
    b->nseq++;
    if (e.dur <= b->thr)
        return 0;
    if (b->n == b->cap)
        settle(b);
    size_t slot = b->n++;
    b->ev[slot] = e;
    if (d)
        b->det[slot] = *d;
    b->seq[slot] = b->nseq - 1;
    return 0;
}

void gf_trace_set_given(gf_trace *t)
{
    t->b->given = 1;
}

void gf_trace_set_finish_threads(gf_trace *t, int threads)
{
    t->b->finish_threads = threads;
}

void gf_trace_set_unordered(gf_trace *t)
{
    t->b->unordered = 1;
}

int gf_trace_add_flame(gf_trace *t, int32_t stack, int32_t leaf, int gpu, int64_t weight)
{
    return flame_add(t->b, stack, leaf, gpu, weight);
}

int gf_trace_may_keep(const gf_trace *t, int64_t dur)
{
    const gf_trace_build *b = t->b;
    return !b || !b->rows || (dur < 0 ? 0 : dur) > b->thr;
}

int64_t gf_trace_drop_thr(const gf_trace *t, int gpu_work)
{
    const gf_trace_build *b = t->b;
    if (!b || !b->rows || b->given || (gpu_work ? b->napis != 0 : b->wanted.n && !b->collect))
        return -1;
    return b->thr;
}

void gf_trace_add_dropped(gf_trace *t, int kind, uint64_t n)
{
    t->total += n;
    t->total_kind[kind] += n;
    t->b->nseq += n;
    t->b->memo_ok = 0; /* as gf_trace_add's gf_trace_add_partner would */
}

int gf_trace_needs_name(gf_trace *t, const gf_event *e)
{
    gf_trace_build *b = t->b;
    if (gf_trace_may_keep(t, e->dur) || b->given || (e->kind == GF_EV_API && e->stack >= 0) ||
        (gf_ev_is_gpu_work(e->kind) && b->napis))
        return 1;
    if (!b->collect || e->kind != GF_EV_API || e->corr < 0 || !b->wanted.n)
        return 0;
    int64_t *v = wanted_of(b, e);
    b->want_memo = v;
    b->memo_pid = e->pid;
    b->memo_corr = e->corr;
    b->memo_ok = 1;
    return v && !*v;
}

int gf_trace_keeps_all(const gf_trace *t)
{
    return t->b && t->b->max == 0 && !t->b->rows;
}

size_t gf_trace_added(const gf_trace *t)
{
    return t->b ? t->b->n : 0;
}

static void permute(void *col, size_t elem, const uint32_t *ord, size_t n, void *tmp);

int gf_trace_reorder_added(gf_trace *t, size_t from, const uint32_t *ord, gf_err *err)
{
    size_t n = t->b->n - from;
    int64_t *tmp = gf_mem_scratch((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return gf_errf(err, GF_EXIT_ERROR, "trace: out of memory (%zu events)", n);
    permute(t->start + from, sizeof *t->start, ord, n, tmp);
    permute(t->dur + from, sizeof *t->dur, ord, n, tmp);
    permute(t->corr + from, sizeof *t->corr, ord, n, tmp);
    permute(t->lane + from, sizeof *t->lane, ord, n, tmp);
    permute(t->name + from, sizeof *t->name, ord, n, tmp);
    permute(t->stack + from, sizeof *t->stack, ord, n, tmp);
    permute(t->pid + from, sizeof *t->pid, ord, n, tmp);
    permute(t->detail + from, sizeof *t->detail, ord, n, tmp);
    permute(t->kind + from, sizeof *t->kind, ord, n, tmp);
    free(tmp);
    return 0;
}

/* Puts column col (n entries of elem bytes) in the order ord, through tmp (n * 8 bytes). */
static void permute(void *col, size_t elem, const uint32_t *ord, size_t n, void *tmp)
{
    const char *src = col;
    char *dst = tmp;
    for (size_t k = 0; k < n; k++)
        memcpy(dst + k * elem, src + (size_t)ord[k] * elem, elem);
    memcpy(col, tmp, n * elem);
}

int gf_trace_set_added_detail(gf_trace *t, size_t i, const gf_detail *d, gf_err *err)
{
    if ((t->detail[i] = intern_detail(t->b, d)) < 0)
        return gf_errf(err, GF_EXIT_ERROR, "trace: out of memory (%zu events)", t->b->n);
    return 0;
}

void gf_trace_drop_added(gf_trace *t, size_t from)
{
    gf_trace_build *b = t->b;
    for (size_t i = from; i < b->n; i++) {
        t->total--;
        t->total_kind[t->kind[i]]--;
    }
    b->nseq -= b->n - from;
    b->n = from;
}

/* The bitset position of a corr: not hashed, as correlation ids are mostly consecutive; the API rows,
 * ordered by start, then test the bitset about in order (cache lines reused), and dense ids never collide. */
static inline uint64_t want_bit(int64_t corr)
{
    return (uint64_t)corr ^ ((uint64_t)corr >> 32);
}

/* Puts (pid, corr) among the wanted launches, with corr's bit (the set sized for about n keys). */
static int want_put(gf_trace_build *b, int64_t pid, int64_t corr, size_t n)
{
    if (!b->want_bits) {
        size_t bits = (size_t)1 << 16;
        while (bits < 16 * n && bits < ((size_t)1 << 30))
            bits <<= 1;
        if (!(b->want_bits = calloc(bits / 64, sizeof *b->want_bits)))
            return -1;
        b->want_mask = bits - 1;
    }
    uint64_t h = want_bit(corr) & b->want_mask;
    b->want_bits[h >> 6] |= UINT64_C(1) << (h & 63);
    b->memo_ok = 0;
    return gf_hmap_put(&b->wanted, pidcorr_key(pid, corr), 0, NULL) ? 0 : -1;
}

/* The wanted entry of API event e (0: wanted, 1: added already), or NULL. */
static int64_t *wanted_of(const gf_trace_build *b, const gf_event *e)
{
    uint64_t h = want_bit(e->corr) & b->want_mask;
    if (b->want_bits && !(b->want_bits[h >> 6] & (UINT64_C(1) << (h & 63))))
        return NULL;
    int64_t *v = gf_hmap_get(&b->wanted, pidcorr_key(e->pid, e->corr));
    return v ? v : gf_hmap_get(&b->wanted, pidcorr_key(-1, e->corr));
}

int gf_trace_partner_pass_needed(gf_trace *t)
{
    gf_trace_build *b = t->b;
    if (!b || !b->keep_partners || !b->max || !b->rows || t->total <= b->max)
        return 0; /* nothing was dropped (a merge of digests may count more events than it was given) */
    settle(b);
    gf_hmap have;
    gf_hmap_init(&have);
    for (size_t i = 0; i < b->n; i++)
        if (b->ev[i].kind == GF_EV_API && b->ev[i].corr >= 0) {
            if (!gf_hmap_put(&have, pidcorr_key(b->ev[i].pid, b->ev[i].corr), 1, NULL) ||
                !gf_hmap_put(&have, pidcorr_key(-1, b->ev[i].corr), 1, NULL))
                goto oom;
        }
    for (size_t i = 0; i < b->n; i++) {
        const gf_event *e = &b->ev[i];
        if (!gf_ev_is_gpu_work(e->kind) || e->corr < 0)
            continue;
        if (gf_hmap_get(&have, pidcorr_key(e->pid, e->corr)))
            continue;
        if (want_put(b, e->pid, e->corr, b->n) != 0)
            goto oom;
    }
    gf_hmap_free(&have);
    return b->wanted.n > 0;
oom:
    gf_hmap_free(&have);
    return 0;
}

int gf_trace_collect_partners(gf_trace *t, gf_err *err)
{
    gf_trace_build *b = t->b;
    if (!b->keep_partners || !b->max)
        return 0;
    settle(b);
    for (size_t i = 0; i < b->n; i++) {
        uint8_t kind = b->rows ? b->ev[i].kind : t->kind[i];
        int64_t corr = b->rows ? b->ev[i].corr : t->corr[i], pid = b->rows ? b->ev[i].pid : t->pid[i];
        if (gf_ev_is_gpu_work(kind) && corr >= 0 && want_put(b, pid, corr, b->n) != 0)
            return gf_oom(err, "trace");
    }
    b->collect = 1;
    return 0;
}

int gf_trace_add_partner(gf_trace *t, const gf_event *e, gf_err *err)
{
    gf_trace_build *b = t->b;
    if (!b->rows || e->kind != GF_EV_API || e->corr < 0 || !b->wanted.n)
        return 0; /* columns: nothing was dropped, every launch is kept already */
    int64_t *v = b->memo_ok && b->memo_pid == e->pid && b->memo_corr == e->corr ? b->want_memo : wanted_of(b, e);
    b->memo_ok = 0;
    if (!v || *v)
        return 0;
    *v = 1;
    if (grow((void **)&b->extra, &b->extra_cap, b->nextra + 1, sizeof *b->extra) != 0)
        return gf_oom(err, "trace");
    b->extra[b->nextra] = *e;
    b->extra[b->nextra].has_detail = 0;
    if (b->extra[b->nextra].dur < 0)
        b->extra[b->nextra].dur = 0;
    b->nextra++;
    return 0;
}

/* ---- finish ---- */

static int cmp_order(const void *a, const void *b, void *builder)
{
    const gf_event *ev = ((const gf_trace_build *)builder)->ev;
    const uint64_t *seq = ((const gf_trace_build *)builder)->seq;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const gf_event *x = &ev[i], *y = &ev[j];
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return seq[i] < seq[j] ? -1 : seq[i] > seq[j];
}

static int cmp_lane(const void *a, const void *b, void *trace)
{
    const gf_trace *t = trace;
    const gf_lane *x = &t->lanes[*(const uint32_t *)a], *y = &t->lanes[*(const uint32_t *)b];
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->kind == GF_LANE_GPU) {
        if (x->devnum != y->devnum)
            return x->devnum < y->devnum ? -1 : 1;
        int c = strcmp(gf_strtab_get(t->str, x->device, NULL), gf_strtab_get(t->str, y->device, NULL));
        if (c)
            return c;
        if (x->sync != y->sync)
            return x->sync < y->sync ? -1 : 1;
        return x->stream < y->stream ? -1 : x->stream > y->stream;
    }
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->sub < y->sub ? -1 : x->sub > y->sub; /* a thread's samples and running rows under its calls */
}

static void num_or_q(char *buf, size_t n, int64_t v)
{
    if (v < 0)
        snprintf(buf, n, "?");
    else
        snprintf(buf, n, "%lld", (long long)v);
}

static int label_lanes(gf_trace *t)
{
    char buf[1200], a[32], b2[32];
    for (size_t i = 0; i < t->nlanes; i++) {
        gf_lane *l = &t->lanes[i];
        const char *tn = l->tname >= 0 ? gf_strtab_get(t->str, l->tname, NULL) : "";
        num_or_q(a, sizeof a, l->pid);
        num_or_q(b2, sizeof b2, l->tid);
        if (l->kind == GF_LANE_CPU) {
            static const char *const sub[] = {"", " samples", " running"};
            snprintf(buf, sizeof buf, "CPU pid %s tid %s%s%s%s", a, b2, *tn ? " " : "", tn, sub[l->sub % 3]);
        } else if (l->kind == GF_LANE_NVTX) {
            snprintf(buf, sizeof buf, "NVTX pid %s tid %s%s%s", a, b2, *tn ? " " : "", tn);
        } else {
            const char *dev = l->device >= 0 ? gf_strtab_get(t->str, l->device, NULL) : "?";
            /* an export without device names calls the device "GPU (0)": no "GPU GPU (0)" */
            const char *gpu = strncmp(dev, "GPU", 3) == 0 ? "" : "GPU ";
            num_or_q(a, sizeof a, l->stream);
            if (l->sync)
                snprintf(buf, sizeof buf, l->stream >= 0 ? "%s%s stream %s sync" : "%s%s sync", gpu, dev, a);
            else
                snprintf(buf, sizeof buf, "%s%s stream %s", gpu, dev, a);
        }
        if (l->rank >= 0 && (size_t)l->rank < t->nranks) {
            char tmp[sizeof buf];
            int k = snprintf(tmp, sizeof tmp, "%.400s · ", gf_strtab_get(t->str, t->rank_label[l->rank], NULL));
            snprintf(tmp + k, sizeof tmp - (size_t)k, "%.780s", buf);
            memcpy(buf, tmp, sizeof buf);
        }
        if ((l->label = gf_strtab_intern_cstr(t->str, buf)) < 0)
            return -1;
    }
    return 0;
}

static int cmp_flame(const void *a, const void *b)
{
    const gf_flame_entry *x = a, *y = b;
    if (x->stack != y->stack)
        return x->stack < y->stack ? -1 : 1;
    if (x->gpu != y->gpu)
        return x->gpu > y->gpu ? -1 : 1;
    return x->leaf < y->leaf ? -1 : x->leaf > y->leaf;
}

/* Lanes sorted for display (cmp_lane); returns old index → new index, NULL on OOM. */
static int32_t *order_lanes(gf_trace *t)
{
    size_t m = t->nlanes ? t->nlanes : 1;
    uint32_t *lord = malloc(m * sizeof *lord);
    int32_t *lmap = malloc(m * sizeof *lmap);
    gf_lane *nl = malloc(m * sizeof *nl);
    if (!lord || !lmap || !nl) {
        free(lord);
        free(lmap);
        free(nl);
        return NULL;
    }
    for (size_t i = 0; i < t->nlanes; i++)
        lord[i] = (uint32_t)i;
    qsort_r(lord, t->nlanes, sizeof *lord, cmp_lane, t);
    /* GPU lanes made equal after the import (trace_devctx.c moved a sync lane to its context's device,
     * where one already was) become one */
    size_t k = 0;
    for (size_t i = 0; i < t->nlanes; i++) {
        if (k && t->lanes[lord[i]].kind == GF_LANE_GPU && cmp_lane(&lord[i - 1], &lord[i], t) == 0) {
            lmap[lord[i]] = (int32_t)k - 1;
            continue;
        }
        nl[k] = t->lanes[lord[i]];
        lmap[lord[i]] = (int32_t)k++;
    }
    free(t->lanes);
    t->lanes = nl;
    t->nlanes = k;
    t->lanes_cap = k;
    free(lord);
    return lmap;
}

/* Keep-all: the columns are already the model's; they are put in order in place (trace_order.c), and the
 * order found becomes the seq column (peak: the finished model plus one 4-byte column). The distinct
 * details become the trace's. */
static int finish_kept(gf_trace *t, const int32_t *lmap)
{
    gf_trace_build *b = t->b;
    size_t n = b->n;
    if (resize_events(t, n, 0) != 0) /* give back the doubling's slack before the order's array */
        return -1;
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord)
        return -1;
    int threads = b->finish_threads > 1 ? 2 : 1;
    if (b->unordered) {
        for (size_t k = 0; k < n; k++)
            ord[k] = (uint32_t)k;
        t->unordered = 1;
    } else if (gf_trace_order_kept(t, n, ord, threads) == 0 && gf_trace_permute_kept(t, ord, n, threads) != 0) {
        free(ord);
        return -1;
    }
    free(t->seq);
    t->seq = ord; /* arrival order: the index each event had */
    for (size_t k = 0; k < n; k++)
        t->lane[k] = t->lane[k] >= 0 ? lmap[t->lane[k]] : -1;
    t->details = b->cdet ? b->cdet : malloc(sizeof *t->details);
    b->cdet = NULL;
    t->ndetails = b->ncdet;
    t->n = n;
    return t->details ? 0 : -1;
}

/* Bounded builds (max_events > 0) keep rows in a heap; they become columns in time order here. */
static int finish_rows(gf_trace *t, size_t n, const int32_t *lmap)
{
    gf_trace_build *b = t->b;
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord)
        return -1;
    for (size_t i = 0; i < n; i++)
        ord[i] = (uint32_t)i;
    qsort_r(ord, n, sizeof *ord, cmp_order, b);
    size_t ndet = 0;
    for (size_t i = 0; i < n; i++)
        ndet += b->ev[i].has_detail;
    t->details = malloc((ndet ? ndet : 1) * sizeof *t->details);
    if (resize_events(t, n, 1) != 0 || !t->details) {
        free(ord);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        const gf_event *e = &b->ev[ord[k]];
        t->start[k] = e->start;
        t->dur[k] = e->dur;
        t->corr[k] = e->corr;
        t->lane[k] = e->lane >= 0 ? lmap[e->lane] : -1;
        t->name[k] = e->name;
        t->stack[k] = e->stack;
        t->pid[k] = e->pid;
        t->kind[k] = e->kind;
        t->seq[k] = (uint32_t)b->seq[ord[k]];
        t->detail[k] = -1;
        if (e->has_detail) {
            t->details[t->ndetails] = b->det[ord[k]];
            t->detail[k] = (int32_t)t->ndetails++;
        }
    }
    t->n = n;
    free(ord);
    return 0;
}

int gf_trace_finish(gf_trace *t, gf_err *err)
{
    gf_trace_build *b = t->b;
    if (!b)
        return gf_errf(err, GF_EXIT_ERROR, "trace: finish without begin");
    settle(b);
    /* launches with a stack but no GPU partner weigh their own duration */
    for (size_t i = 0; i < b->napis; i++)
        if (!b->apis[i].partnered && flame_add(b, b->apis[i].stack, b->apis[i].name, 0, b->apis[i].dur) != 0)
            return gf_oom(err, "trace");
    t->nflame = 0;
    t->flame = malloc((b->flame_map.n ? b->flame_map.n : 1) * sizeof *t->flame);
    if (!t->flame)
        return gf_oom(err, "trace");
    for (size_t i = 0; i < b->flame_map.cap; i++)
        if (b->flame_map.slots[i].key != GF_HMAP_EMPTY) {
            const gf_hslot *e = &b->flame_map.slots[i];
            t->flame[t->nflame++] = (gf_flame_entry){(int32_t)(e->key >> 32), (int32_t)(e->key & 0x7FFFFFFFu),
                                                     !(e->key & 0x80000000u), e->val};
        }
    qsort(t->flame, t->nflame, sizeof *t->flame, cmp_flame);

    /* partner extras: keep those whose GPU work is still kept and that are not kept themselves */
    if (b->nextra && b->rows) {
        gf_hmap gpu, api;
        gf_hmap_init(&gpu);
        gf_hmap_init(&api);
        int bad = 0;
        for (size_t i = 0; i < b->n && !bad; i++) {
            const gf_event *e = &b->ev[i];
            if (e->corr < 0)
                continue;
            if (gf_ev_is_gpu_work(e->kind))
                bad = !gf_hmap_put(&gpu, pidcorr_key(e->pid, e->corr), 1, NULL);
            else if (e->kind == GF_EV_API)
                bad = !gf_hmap_put(&api, pidcorr_key(e->pid, e->corr), 1, NULL);
        }
        size_t k = 0;
        for (size_t i = 0; i < b->nextra && !bad; i++) {
            const gf_event *e = &b->extra[i];
            int launched = gf_hmap_get(&gpu, pidcorr_key(e->pid, e->corr)) || gf_hmap_get(&gpu, pidcorr_key(-1, e->corr));
            if (launched && !gf_hmap_get(&api, pidcorr_key(e->pid, e->corr)))
                b->extra[k++] = *e;
        }
        gf_hmap_free(&gpu);
        gf_hmap_free(&api);
        if (bad)
            return gf_oom(err, "trace");
        b->nextra = k;
    }
    size_t n = b->n + b->nextra;
    if (b->nextra) {
        if (n > b->cap) {
            if (GF_RESIZE(b->ev, n) != 0 || GF_RESIZE(b->det, n) != 0 || GF_RESIZE(b->seq, n) != 0)
                return gf_oom(err, "trace");
            b->cap = n;
        }
        for (size_t i = 0; i < b->nextra; i++) {
            b->ev[b->n + i] = b->extra[i];
            b->seq[b->n + i] = b->nseq + i;
        }
    }
    int32_t *lmap = order_lanes(t);
    if (!lmap)
        return gf_oom(err, "trace");
    int rc = b->rows ? finish_rows(t, n, lmap) : finish_kept(t, lmap);
    free(lmap);
    if (rc != 0)
        return gf_oom(err, "trace");
    if (label_lanes(t) != 0)
        return gf_oom(err, "trace");
    gf_trace_build_free(b);
    t->b = NULL;
    t->finished = 1;
    return 0;
}