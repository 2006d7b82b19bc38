/* Putting a keep-all build's columns in (start, kind, arrival) order at finish with less than a second
 * copy of them: the order is found on a permutation array alone (a merge of the few sorted runs an export's
 * tables arrive in, else an MSD radix sort on start: a counting pass writes the first digit's buckets straight
 * into the permutation, and each bucket is sorted in place below it), and the columns are then gathered one at a
 * time through one 4-byte spare column (the 8-byte ones half by half, in place). The permutation itself
 * becomes the model's seq column (a keep-all build's arrival order is its index). Peak: the model plus one
 * 4-byte column, where a scratch column, a radix sort's keys beside its indices and a separate seq cost 16
 * bytes per event more, and an 8-byte spare 4 more (issue 29: the finish was the import's memory peak).
 * With threads >= 2 (an importer's row reader is done by then, and the finish ran alone on one core: 0.5 s
 * of the 368 MB export's import, issue 42) the first digit's counting and writing, the radix sort's buckets
 * below it and the gathers' random reads are split in two, the second half on a thread: no memory more, the
 * same order (the key is unique) and the same columns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "threads.h"
#include "trace_build_int.h"
#include "trace_order.h"

/* Below this many events a second thread costs more than it saves. */
enum { SPLIT_MIN = 1 << 16 };

/* fn(arg, 0, mid) here and fn(arg, mid, n) on a second thread (gf_threads_in_two, from SPLIT_MIN events). */
static void in_two(int threads, size_t n, size_t mid, gf_range_fn *fn, void *arg)
{
    gf_threads_in_two(threads, n, mid, SPLIT_MIN, fn, arg);
}

/* Keep-all columns: arrival order is the index (seq is only written at finish). */
static int cmp_order_cols(const void *a, const void *b, void *trace)
{
    const gf_trace *t = trace;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (t->start[i] != t->start[j])
        return t->start[i] < t->start[j] ? -1 : 1;
    if (t->kind[i] != t->kind[j])
        return t->kind[i] < t->kind[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

enum { MAX_MERGED_RUNS = 64 };

/* The sorted runs being merged: cur[r] is the next event of run r, end[r] one past its last; heap holds
 * the runs with events left, the one whose next event comes first at the root. */
typedef struct run_merge {
    const gf_trace *t;
    size_t cur[MAX_MERGED_RUNS], end[MAX_MERGED_RUNS], heap[MAX_MERGED_RUNS], hn;
} run_merge;

static int head_less(const run_merge *m, size_t x, size_t y)
{
    uint32_t a = (uint32_t)m->cur[x], b = (uint32_t)m->cur[y];
    return cmp_order_cols(&a, &b, (void *)m->t) < 0;
}

static void sift_run(run_merge *m, size_t p)
{
    for (;;) {
        size_t l = 2 * p + 1, best = p;
        if (l < m->hn && head_less(m, m->heap[l], m->heap[best]))
            best = l;
        if (l + 1 < m->hn && head_less(m, m->heap[l + 1], m->heap[best]))
            best = l + 1;
        if (best == p)
            return;
        size_t x = m->heap[p];
        m->heap[p] = m->heap[best];
        m->heap[best] = x;
        p = best;
    }
}

/* ord = the events in order when they arrived as a few sorted runs: an export's tables are each in start
 * order (NVTX in start order per thread), and a merge of finished traces adds each source's events in that
 * order. Returns 0 merged into ord, 1 one run (in order already: ord untouched), 2 too many runs. */
static int merge_runs(const gf_trace *t, size_t n, uint32_t *ord)
{
    run_merge m;
    m.t = t;
    m.hn = 0;
    for (size_t k = 0; k < n && m.hn <= MAX_MERGED_RUNS; k++) {
        uint32_t a = (uint32_t)k - 1, b = (uint32_t)k;
        if (k > 0 && cmp_order_cols(&a, &b, (void *)t) <= 0)
            continue;
        if (m.hn < MAX_MERGED_RUNS)
            m.cur[m.hn] = k;
        m.hn++;
    }
    if (m.hn <= 1)
        return 1;
    if (m.hn > MAX_MERGED_RUNS)
        return 2;
    for (size_t r = 0; r < m.hn; r++) {
        m.end[r] = r + 1 < m.hn ? m.cur[r + 1] : n;
        m.heap[r] = r;
    }
    for (size_t i = m.hn / 2; i-- > 0;)
        sift_run(&m, i);
    for (size_t k = 0; k < n; k++) {
        size_t r = m.heap[0];
        ord[k] = (uint32_t)m.cur[r]++;
        if (m.cur[r] == m.end[r])
            m.heap[0] = m.heap[--m.hn];
        sift_run(&m, 0);
    }
    return 0;
}

enum { MSD_BITS = 8, MSD_SIZE = 1 << MSD_BITS, MSD_SMALL = 48 };

static void insertion_sort(const gf_trace *t, uint32_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t v = a[i];
        size_t j = i;
        while (j > 0 && cmp_order_cols(&v, &a[j - 1], (void *)t) < 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

#define DIGIT(i) ((size_t)((((uint64_t)t->start[i] - mn) >> shift) & (MSD_SIZE - 1)))

/* One pass of an American flag sort: the indices a[0..n) put in the buckets of their digit of start - mn at
 * `shift` (8 bits), cnt[d] the size of bucket d. In place. */
static void distribute(const gf_trace *t, uint32_t *a, size_t n, uint64_t mn, int shift, size_t *cnt)
{
    size_t head[MSD_SIZE], tail[MSD_SIZE], sum = 0;
    memset(cnt, 0, MSD_SIZE * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[DIGIT(a[i])]++;
    for (size_t d = 0; d < MSD_SIZE; d++) {
        head[d] = sum;
        sum += cnt[d];
        tail[d] = sum;
    }
    for (size_t d = 0; d < MSD_SIZE; d++)
        while (head[d] < tail[d]) {
            uint32_t v = a[head[d]];
            size_t e = DIGIT(v);
            while (e != d) { /* carry v to its bucket, taking the one there along */
                uint32_t w = a[head[e]];
                a[head[e]++] = v;
                v = w;
                e = DIGIT(v);
            }
            a[head[d]++] = v;
        }
}

#undef DIGIT

/* the digit below `shift`; the last may overlap bits already sorted: harmless, they are equal in a bucket */
static int next_shift(int shift)
{
    return shift == 0 ? -1 : shift >= MSD_BITS ? shift - MSD_BITS : 0;
}

/* An American flag sort of the indices a[0..n) on the bits of start - mn from `shift` down (8 at a time;
 * shift < 0: the starts are all equal). The full key (start, kind, index) is unique, so an unstable sort
 * gives the one order a stable sort would. In place: no memory but the recursion's counts. */
static void msd_sort(const gf_trace *t, uint32_t *a, size_t n, uint64_t mn, int shift)
{
    if (n <= MSD_SMALL) {
        insertion_sort(t, a, n);
        return;
    }
    if (shift < 0) {
        qsort_r(a, n, sizeof *a, cmp_order_cols, (void *)t);
        return;
    }
    size_t cnt[MSD_SIZE];
    distribute(t, a, n, mn, shift, cnt);
    int next = next_shift(shift);
    for (size_t d = 0, off = 0; d < MSD_SIZE; off += cnt[d++])
        if (cnt[d] > 1)
            msd_sort(t, a + off, cnt[d], mn, next);
}

/* The buckets of the first digit that start in events [lo, hi), each sorted below that digit */
typedef struct bucket_job {
    const gf_trace *t;
    uint32_t *a;
    const size_t *cnt, *off;
    uint64_t mn;
    int next;
} bucket_job;

static void sort_buckets(void *arg, size_t lo, size_t hi)
{
    const bucket_job *j = arg;
    for (size_t d = 0; d < MSD_SIZE; d++)
        if (j->cnt[d] > 1 && j->off[d] >= lo && j->off[d] < hi)
            msd_sort(j->t, j->a + j->off[d], j->cnt[d], j->mn, j->next);
}

/* The first digit's pass from the arrival order: each event's index written straight into its bucket (a
 * counting sort that reads the starts in order, where the in-place pass used below the first digit follows
 * cycles through them at random: 0.14 s of one core on the 368 MB export), the events in halves on two
 * threads: each half counts its digits, then writes its indices from its own offset in each bucket. */
typedef struct top_pass {
    const gf_trace *t;
    uint32_t *a;
    uint64_t mn;
    int shift;
    size_t hi0;                     /* where the counting split the events: [0, hi0) was half 0 */
    size_t cnt[2][MSD_SIZE];        /* each half's events per digit */
    size_t pos[2][MSD_SIZE];        /* the next entry each half writes in each bucket */
} top_pass;

#define TOP_DIGIT(p, i) ((size_t)((((uint64_t)(p)->t->start[i] - (p)->mn) >> (p)->shift) & (MSD_SIZE - 1)))

static void top_count(void *arg, size_t lo, size_t hi)
{
    top_pass *p = arg;
    size_t *cnt = p->cnt[lo != 0];
    if (lo == 0)
        p->hi0 = hi;
    for (size_t i = lo; i < hi; i++)
        cnt[TOP_DIGIT(p, i)]++;
}

/* a single call over both halves writes half 1's events where half 1 would: right after half 0's */
static void top_scatter(void *arg, size_t lo, size_t hi)
{
    top_pass *p = arg;
    size_t *pos = p->pos[lo != 0];
    for (size_t i = lo; i < hi; i++)
        p->a[pos[TOP_DIGIT(p, i)]++] = (uint32_t)i;
}

#undef TOP_DIGIT

/* The order of events [0, n) into a: the first digit by top_pass, then its buckets each sorted below that
 * digit, split in two at the bucket boundary nearest half the events. */
static void msd_sort_top(const gf_trace *t, uint32_t *a, size_t n, uint64_t mn, int shift, int threads)
{
    top_pass *p = shift < 0 ? NULL : calloc(1, sizeof *p);
    if (!p) { /* every start equal (the comparison sort), or no memory (the in-place pass needs none) */
        for (size_t i = 0; i < n; i++)
            a[i] = (uint32_t)i;
        msd_sort(t, a, n, mn, shift);
        return;
    }
    p->t = t, p->a = a, p->mn = mn, p->shift = shift;
    in_two(threads, n, n / 2, top_count, p);
    size_t cnt[MSD_SIZE], off[MSD_SIZE], sum = 0, mid = 0;
    for (size_t d = 0; d < MSD_SIZE; d++) {
        cnt[d] = p->cnt[0][d] + p->cnt[1][d];
        off[d] = p->pos[0][d] = sum;
        p->pos[1][d] = sum + p->cnt[0][d];
        sum += cnt[d];
        size_t gap = sum > n / 2 ? sum - n / 2 : n / 2 - sum, best = mid > n / 2 ? mid - n / 2 : n / 2 - mid;
        if (gap < best)
            mid = sum;
    }
    in_two(p->hi0 < n ? threads : 1, n, p->hi0, top_scatter, p);
    free(p);
    bucket_job j = {t, a, cnt, off, mn, next_shift(shift)};
    in_two(threads, n, mid, sort_buckets, &j);
}

int gf_trace_order_kept(const gf_trace *t, size_t n, uint32_t *ord, int threads)
{
    int how = merge_runs(t, n, ord);
    if (how == 0)
        return 0;
    if (how == 1) {
        for (size_t i = 0; i < n; i++)
            ord[i] = (uint32_t)i;
        return 1;
    }
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        mn = t->start[i] < mn ? t->start[i] : mn;
        mx = t->start[i] > mx ? t->start[i] : mx;
    }
    uint64_t range = (uint64_t)mx - (uint64_t)mn;
    int top = range ? 63 - __builtin_clzll(range) : -1; /* highest bit that varies */
    int shift = top < 0 ? -1 : top >= MSD_BITS - 1 ? top - (MSD_BITS - 1) : 0;
    msd_sort_top(t, ord, n, (uint64_t)mn, shift, threads);
    return 0;
}

/* dst[k] = src[ord[k]] for k in [lo, hi): entries of elem bytes (1 or 4), or (elem 8) the low halves of
 * src's 8-byte entries into dst's 4-byte ones */
typedef struct gather_job {
    const void *src;
    void *dst;
    size_t elem;
    const uint32_t *ord;
} gather_job;

static void gather_range(void *arg, size_t lo, size_t hi)
{
    const gather_job *g = arg;
    const uint32_t *ord = g->ord;
    switch (g->elem) {
    case 1:
        for (size_t k = lo; k < hi; k++)
            ((unsigned char *)g->dst)[k] = ((const unsigned char *)g->src)[ord[k]];
        break;
    case 4:
        for (size_t k = lo; k < hi; k++)
            memcpy((char *)g->dst + 4 * k, (const char *)g->src + 4 * (size_t)ord[k], 4);
        break;
    default:
        for (size_t k = lo; k < hi; k++) {
            uint64_t v;
            memcpy(&v, (const char *)g->src + 8 * (size_t)ord[k], 8);
            ((uint32_t *)g->dst)[k] = (uint32_t)v;
        }
    }
}

/* Column *col (n entries of elem bytes, 1 or 4) in the order ord, gathered into *spare (n entries), which
 * then becomes the column; the old column is the next spare. A gather reads independent entries (the CPU
 * keeps many misses in flight, on each of two cores with threads >= 2); following the permutation's cycles
 * in place saved the spare but made each step wait for the last (pointer chasing: 3 s of the 6.6M-event
 * import's 8). */
static void gather(void **col, void **spare, size_t elem, const uint32_t *ord, size_t n, int threads)
{
    gather_job g = {*col, *spare, elem, ord};
    in_two(threads, n, n / 2, gather_range, &g);
    void *old = *col;
    *col = *spare;
    *spare = old;
}

static inline uint32_t ld32(const unsigned char *p, size_t i)
{
    uint32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
}

static inline void st32(unsigned char *p, size_t i, uint32_t v)
{
    memcpy(p + 4 * i, &v, 4);
}

/* An 8-byte column in the order ord, in place, through a 4-byte spare (n entries): the low halves are
 * gathered into the spare; the high halves are packed into the column's first half (entry i's high half
 * moves from byte 8i to 4i: never over one not yet read) and gathered into its second half; the halves are
 * then joined in ascending order (entry k, bytes [8k, 8k+8), covers only packed high halves numbered up to
 * k, read already). Half the spare of a plain gather, for two sequential passes and a second gather from a
 * half-sized array (issue 29: the finish's spare column was the import's memory peak). The two gathers may
 * run in halves on two threads; the sequential passes, each reading what it overwrites, may not. */
static void gather_wide(int64_t *col, uint32_t *spare, const uint32_t *ord, size_t n, int threads)
{
    unsigned char *c = (unsigned char *)col;
    gather_job low = {col, spare, 8, ord};
    in_two(threads, n, n / 2, gather_range, &low);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, c + 8 * i, 8);
        st32(c, i, (uint32_t)(v >> 32));
    }
    gather_job high = {c, c + 4 * n, 4, ord};
    in_two(threads, n, n / 2, gather_range, &high);
    for (size_t k = 0; k < n; k++) {
        uint64_t v = (uint64_t)ld32(c, n + k) << 32 | spare[k];
        memcpy(c + 8 * k, &v, 8);
    }
}

int gf_trace_permute_kept(gf_trace *t, const uint32_t *ord, size_t n, int threads)
{
    _Static_assert(sizeof *t->start == 8 && sizeof *t->dur == 8 && sizeof *t->corr == 8, "8-byte columns");
    _Static_assert(sizeof *t->lane == 4 && sizeof *t->name == 4 && sizeof *t->stack == 4 &&
                       sizeof *t->pid == 4 && sizeof *t->detail == 4 && sizeof *t->kind == 1,
                   "4- and 1-byte columns");
    void **narrow[] = {(void **)&t->lane, (void **)&t->name, (void **)&t->stack, (void **)&t->pid,
                       (void **)&t->detail};
    uint32_t *spare = malloc((n ? n : 1) * sizeof *spare); /* peak: the model plus this 4-byte column */
    if (!spare)
        return -1;
    gather_wide(t->start, spare, ord, n, threads);
    gather_wide(t->dur, spare, ord, n, threads);
    gather_wide(t->corr, spare, ord, n, threads);
    void *sp = spare;
    for (size_t c = 0; c < sizeof narrow / sizeof narrow[0]; c++)
        gather(narrow[c], &sp, 4, ord, n, threads);
    free(sp);
    if (!(sp = malloc(n ? n : 1)))
        return -1;
    gather((void **)&t->kind, &sp, 1, ord, n, threads);
    free(sp);
    return 0;
}
