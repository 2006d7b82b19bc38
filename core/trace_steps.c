/* Steps: the GPU work each step launched, counted and summed per step (trace_steps.h). */
#include "trace_steps.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "mem.h"
#include "threads.h"
#include "trace.h"
#include "trace_nvtx_group.h"

static int oom(gf_err *err)
{
    return gf_errf(err, GF_EXIT_ERROR, "steps: out of memory");
}

static int32_t ev_rank(const gf_trace *t, size_t i)
{
    return t->lane[i] >= 0 ? t->lanes[t->lane[i]].rank : -1;
}

static int32_t ev_level(const gf_trace *t, size_t i)
{
    return t->detail[i] >= 0 ? t->details[t->detail[i]].nvtx_level : -1;
}

/* an NVTX range on a thread's NVTX lane (not one projected onto a GPU, not a mark) */
static int is_range(const gf_trace *t, size_t i)
{
    return t->kind[i] == GF_EV_NVTX && t->lane[i] >= 0 && t->lanes[t->lane[i]].kind == GF_LANE_NVTX &&
           ev_level(t, i) != GF_NVTX_MARK;
}

typedef struct win_order {
    const gf_step_win *w;
} win_order;

static int cmp_group(const gf_step_win *a, int32_t rank, int64_t pid)
{
    if (a->rank != rank)
        return a->rank < rank ? -1 : 1;
    if (a->pid != pid)
        return a->pid < pid ? -1 : 1;
    return 0;
}

static int cmp_win(const void *x, const void *y, void *ctx)
{
    const gf_step_win *w = ((const win_order *)ctx)->w;
    const gf_step_win *a = &w[*(const uint32_t *)x], *b = &w[*(const uint32_t *)y];
    int c = cmp_group(a, b->rank, b->pid);
    if (c)
        return c;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* the window (index into w) holding time s on (rank, pid): the last started among those holding it, or -1.
 * ord: windows sorted by (rank, pid, start); maxend[k]: the latest end of ord[0..k] within its group. */
static int32_t find_win(const gf_step_win *w, const uint32_t *ord, const int64_t *maxend, size_t nw, int32_t rank,
                        int64_t pid, int64_t s)
{
    size_t lo = 0, hi = nw; /* first position after every window of the group starting at or before s */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gf_step_win *m = &w[ord[mid]];
        int c = cmp_group(m, rank, pid);
        if (c < 0 || (c == 0 && m->start <= s))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0;) {
        const gf_step_win *m = &w[ord[k]];
        if (cmp_group(m, rank, pid) != 0 || maxend[k] <= s)
            break;
        if (s < m->end)
            return (int32_t)ord[k];
    }
    return -1;
}

int gf_steps_assign(const gf_trace *t, const gf_step_win *w, size_t nw, int32_t **ev_step, gf_err *err)
{
    if (nw > INT32_MAX)
        return gf_errf(err, GF_EXIT_USAGE, "steps: too many steps (%zu)", nw);
    gf_launch_index lx;
    if (gf_launch_index_build(t, &lx, err) != 0)
        return -1;
    int32_t *out = malloc((t->n ? t->n : 1) * sizeof *out);
    uint32_t *ord = malloc((nw ? nw : 1) * sizeof *ord);
    int64_t *maxend = malloc((nw ? nw : 1) * sizeof *maxend);
    if (!out || !ord || !maxend) {
        gf_launch_index_free(&lx);
        free(out);
        free(ord);
        free(maxend);
        return oom(err);
    }
    for (size_t k = 0; k < nw; k++)
        ord[k] = (uint32_t)k;
    win_order wo = {w};
    qsort_r(ord, nw, sizeof *ord, cmp_win, &wo);
    for (size_t k = 0; k < nw; k++) {
        const gf_step_win *m = &w[ord[k]];
        int same = k > 0 && cmp_group(&w[ord[k - 1]], m->rank, m->pid) == 0;
        maxend[k] = same && maxend[k - 1] > m->end ? maxend[k - 1] : m->end;
    }
    for (size_t i = 0; i < t->n; i++) {
        out[i] = -1;
        int64_t c = gf_launch_index_find(&lx, t, i); /* -1 unless GPU work */
        if (c < 0 || t->kind[c] != GF_EV_API)
            continue;
        out[i] = find_win(w, ord, maxend, nw, ev_rank(t, (size_t)c), t->pid[c], t->start[c]);
    }
    gf_launch_index_free(&lx);
    free(ord);
    free(maxend);
    *ev_step = out;
    return 0;
}

int gf_steps_count(const gf_trace *t, const int32_t *ev_step, size_t nw, gf_step_count *out, gf_err *err)
{
    memset(out, 0, (nw ? nw : 1) * sizeof *out);
    gf_launch_index lx;
    if (gf_launch_index_build(t, &lx, err) != 0)
        return -1;
    uint8_t *seen = calloc(t->n ? t->n : 1, 1);
    if (!seen) {
        gf_launch_index_free(&lx);
        return oom(err);
    }
    for (size_t i = 0; i < t->n; i++) {
        int32_t s = ev_step[i];
        if (s < 0 || (size_t)s >= nw)
            continue;
        gf_step_count *c = &out[s];
        if (t->kind[i] == GF_EV_KERNEL) {
            c->kernels++;
            c->kernel_ns += t->dur[i];
        } else if (t->kind[i] == GF_EV_MEMCPY) {
            c->copies++;
        } else {
            c->memsets++;
        }
        int64_t a = gf_launch_index_find(&lx, t, i);
        if (a >= 0 && !seen[a]) {
            seen[a] = 1;
            c->launches++;
        }
    }
    free(seen);
    gf_launch_index_free(&lx);
    return 0;
}

/* per (step, name) sums in a growing array, found through a map of step << 32 | name */
typedef struct name_sums {
    gf_hmap idx;
    gf_step_name *rows;
    size_t n, cap;
} name_sums;

static int sums_add(name_sums *s, int32_t step, int32_t name, int64_t dur)
{
    int ins;
    uint64_t key = (uint64_t)(uint32_t)step << 32 | (uint32_t)name;
    int64_t *v = gf_hmap_put(&s->idx, key, (int64_t)s->n, &ins);
    if (!v)
        return -1;
    if (ins) {
        if (gf_grow((void **)&s->rows, &s->cap, s->n + 1, sizeof *s->rows, 64) != 0)
            return -1;
        s->rows[s->n] = (gf_step_name){step, name, 0, 0};
        s->n++;
    }
    s->rows[*v].count++;
    s->rows[*v].total += dur;
    return 0;
}

static int sums_done(name_sums *s, int rc, gf_step_name **rows, size_t *n, gf_err *err)
{
    gf_hmap_free(&s->idx);
    if (rc != 0) {
        free(s->rows);
        return oom(err);
    }
    *rows = s->rows;
    *n = s->n;
    return 0;
}

int gf_steps_kernels(const gf_trace *t, const int32_t *ev_step, gf_step_name **rows, size_t *n, gf_err *err)
{
    name_sums s = {0};
    gf_hmap_init(&s.idx);
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++)
        if (ev_step[i] >= 0 && t->kind[i] == GF_EV_KERNEL)
            rc = sums_add(&s, ev_step[i], t->name[i], t->dur[i]);
    return sums_done(&s, rc, rows, n, err);
}

/* the first event starting at or after s (events are in start order) */
static size_t first_at(const gf_trace *t, int64_t s)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->start[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* range i lies in window m, on its thread */
static int in_win(const gf_trace *t, size_t i, const gf_step_win *m)
{
    if (!is_range(t, i) || t->start[i] + t->dur[i] > m->end)
        return 0;
    const gf_lane *l = &t->lanes[t->lane[i]];
    return t->pid[i] == m->pid && l->tid == m->tid && l->rank == m->rank;
}

/* start, then the longer first, then the trace's order: a range comes after every range that holds it */
static int by_outer(const void *x, const void *y, void *trace)
{
    const gf_trace *t = trace;
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    if (t->start[a] != t->start[b])
        return t->start[a] < t->start[b] ? -1 : 1;
    if (t->dur[a] != t->dur[b])
        return t->dur[a] > t->dur[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* window k's outermost ranges added to s (gf_steps_nvtx's outer windows); ids: scratch, *cap entries */
static int outer_ranges(const gf_trace *t, const gf_step_win *m, int32_t k, name_sums *s, size_t **ids, size_t *cap)
{
    size_t n = 0;
    for (size_t i = first_at(t, m->start); i < t->n && t->start[i] < m->end; i++) {
        if (!in_win(t, i, m))
            continue;
        if (gf_grow((void **)ids, cap, n + 1, sizeof **ids, 64) != 0)
            return -1;
        (*ids)[n++] = i;
    }
    if (n > 1) /* ids is NULL in a gap without ranges */
        qsort_r(*ids, n, sizeof **ids, by_outer, (void *)t);
    int64_t reach = INT64_MIN; /* the latest end of a range taken so far: a range ending by it lies inside one */
    for (size_t j = 0; j < n; j++) {
        size_t i = (*ids)[j];
        int64_t end = t->start[i] + t->dur[i];
        if (end <= reach)
            continue;
        reach = end;
        if (sums_add(s, k, gf_trace_nvtx_group(t, t->name[i]), t->dur[i]) != 0)
            return -1;
    }
    return 0;
}

int gf_steps_nvtx(const gf_trace *t, const gf_step_win *w, size_t nw, gf_step_name **rows, size_t *n, gf_err *err)
{
    name_sums s = {0};
    gf_hmap_init(&s.idx);
    int rc = 0;
    size_t *ids = NULL, cap = 0;
    for (size_t k = 0; k < nw && rc == 0; k++) {
        const gf_step_win *m = &w[k];
        if (m->outer) {
            rc = outer_ranges(t, m, (int32_t)k, &s, &ids, &cap);
            continue;
        }
        for (size_t i = first_at(t, m->start); i < t->n && t->start[i] < m->end && rc == 0; i++) {
            if (!in_win(t, i, m))
                continue;
            int32_t lv = ev_level(t, i);
            int want = m->level >= 0 ? lv == m->level + 1
                                     : lv <= 0 && !(t->start[i] == m->start && t->start[i] + t->dur[i] == m->end);
            if (want)
                rc = sums_add(&s, (int32_t)k, gf_trace_nvtx_group(t, t->name[i]), t->dur[i]);
        }
    }
    free(ids);
    return sums_done(&s, rc, rows, n, err);
}

static int32_t ev_domain(const gf_trace *t, size_t i)
{
    return t->detail[i] >= 0 ? t->details[t->detail[i]].domain : -1;
}

/* The key's two halves: [0, mid) and [mid, n) of the events, each a sum of its ranges' hashes and a count. */
typedef struct key_sums {
    const gf_trace *t;
    size_t mid;
    uint64_t sum[2], n[2];
} key_sums;

static void key_range(void *arg, size_t lo, size_t hi)
{
    key_sums *k = arg;
    const gf_trace *t = k->t;
    uint64_t sum = 0, n = 0;
    for (size_t i = lo; i < hi; i++) {
        if (!is_range(t, i))
            continue;
        const gf_lane *l = &t->lanes[t->lane[i]];
        uint64_t h = gf_hash_u64((uint64_t)t->start[i]);
        h = gf_hash_u64(h ^ (uint64_t)t->dur[i]);
        h = gf_hash_u64(h ^ ((uint64_t)(uint32_t)t->name[i] << 32 | (uint32_t)gf_trace_nvtx_group(t, t->name[i])));
        h = gf_hash_u64(h ^ ((uint64_t)(uint32_t)ev_level(t, i) << 32 | (uint32_t)ev_domain(t, i)));
        h = gf_hash_u64(h ^ (uint64_t)l->pid ^ (uint64_t)l->tid << 40 ^ (uint64_t)(uint32_t)l->rank << 20);
        sum += h; /* a sum: the same ranges give the same key in any order of the events */
        n++;
    }
    int half = lo >= k->mid && hi > lo;
    k->sum[half] = sum;
    k->n[half] = n;
}

/* 0.05 s on the 368 MB export's trace, looked up by the timeline's rules and again by its page (issue 42):
 * halved on a second thread from KEY_SPLIT_MIN events (a thread costs ~0.1 ms, these events ~0.7 ms) */
enum { KEY_SPLIT_MIN = 1 << 16 };

uint64_t gf_steps_ranges_key(const gf_trace *t, int threads)
{
    key_sums k = {t, t->n / 2, {0, 0}, {0, 0}};
    gf_threads_in_two(threads, t->n, k.mid, KEY_SPLIT_MIN, key_range, &k);
    return gf_hash_u64((k.sum[0] + k.sum[1]) ^ (k.n[0] + k.n[1]));
}

int gf_steps_nvtx_names(const gf_trace *t, gf_nvtx_name **rows, size_t *n, gf_err *err)
{
    /* each name's rows chained from head[name] (string ids are dense; a name has a row per thread, level and
     * domain it occurs at, a few): no hash of six fields per range */
    size_t nstr = gf_strtab_count(t->str);
    int32_t *head = malloc((nstr ? nstr : 1) * sizeof *head), *next = NULL;
    gf_nvtx_name *out = NULL;
    size_t no = 0, cap = 0, ncap = 0;
    if (!head)
        return oom(err);
    memset(head, 0xff, (nstr ? nstr : 1) * sizeof *head);
    for (size_t i = 0; i < t->n; i++) {
        if (!is_range(t, i) || t->name[i] < 0 || (size_t)t->name[i] >= nstr)
            continue;
        const gf_lane *l = &t->lanes[t->lane[i]];
        int32_t lv = ev_level(t, i), dom = ev_domain(t, i);
        gf_nvtx_name *hit = NULL;
        for (int32_t k = head[t->name[i]]; !hit && k >= 0; k = next[k]) {
            gf_nvtx_name *r = &out[k];
            if (r->rank == l->rank && r->pid == l->pid && r->tid == l->tid && r->level == lv && r->domain == dom)
                hit = r;
        }
        if (!hit) {
            if (no >= INT32_MAX || gf_grow((void **)&out, &cap, no + 1, sizeof *out, 64) != 0 ||
                gf_grow((void **)&next, &ncap, no + 1, sizeof *next, 64) != 0)
                goto fail;
            out[no] = (gf_nvtx_name){t->name[i], l->rank, dom, l->pid, l->tid, lv, 0, 0};
            next[no] = head[t->name[i]];
            head[t->name[i]] = (int32_t)no;
            hit = &out[no++];
        }
        hit->count++;
        hit->total += t->dur[i];
    }
    free(head);
    free(next);
    *rows = out;
    *n = no;
    return 0;
fail:
    free(head);
    free(next);
    free(out);
    return oom(err);
}

int gf_steps_nvtx_ranges(const gf_trace *t, const int32_t *names, size_t nnames, gf_nvtx_range **rows, size_t *n,
                         gf_err *err)
{
    /* the names asked for, by string id (ids are dense: a byte each, not a hash lookup per range) */
    size_t nstr = gf_strtab_count(t->str);
    uint8_t *want = calloc(nstr ? nstr : 1, 1);
    gf_nvtx_range *out = NULL;
    size_t no = 0, cap = 0;
    if (!want)
        return oom(err);
    for (size_t k = 0; k < nnames; k++)
        if (names[k] >= 0 && (size_t)names[k] < nstr)
            want[names[k]] = 1;
    for (size_t i = 0; i < t->n; i++) {
        if (t->name[i] < 0 || (size_t)t->name[i] >= nstr || !want[t->name[i]] || !is_range(t, i))
            continue;
        const gf_lane *l = &t->lanes[t->lane[i]];
        if (gf_grow((void **)&out, &cap, no + 1, sizeof *out, 64) != 0)
            goto fail;
        out[no++] = (gf_nvtx_range){t->start[i], t->start[i] + t->dur[i], l->pid, l->tid, t->pid[i], t->name[i],
                                    l->rank, ev_level(t, i)};
    }
    free(want);
    *rows = out;
    *n = no;
    return 0;
fail:
    free(want);
    free(out);
    return oom(err);
}
