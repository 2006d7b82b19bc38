/* Trace model: interning, the streaming longest-N heap, trimming a finished trace, partners, stacks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "strtab.h"
#include "trace.h"
#include "trace_build.h"
#include "trace_flame.h"
#include "trace_trim.h"

static unsigned long long rng = 88172645463325252ull;
static uint64_t xr(void)
{
    return tap_xorshift(&rng);
}

typedef struct ev_key {
    int64_t start;
    int kind, arrival;
} ev_key;

static int cmp_ev_key(const void *a, const void *b)
{
    const ev_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* A trace begun with n random CUDA calls and kernels on one thread and one stream, in 3 processes, with repeated,
 * unmatched and absent (< 0) correlation ids, spread over 2^40 when sparse; starts are r >> start_shift and
 * durations 1..dur_mod. The caller finishes it. */
static gf_trace *random_launches(uint64_t r, int n, int sparse, int start_shift, int dur_mod)
{
    gf_err err;
    gf_trace *t = gf_trace_new();
    gf_trace_begin(t, 0, 1, &err);
    int32_t cpu = gf_trace_lane(t, GF_LANE_CPU, 0, 42, 43, -1, -1, -1, &err);
    int32_t gpu = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
    int32_t nm = gf_strtab_intern_cstr(t->str, "x");
    for (int i = 0; i < n; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        int api = (r >> 33) % 2, pid = 40 + (int)((r >> 40) % 3);
        int64_t corr = (int64_t)((r >> 20) % 700) - 5; /* some < 0: no correlation id */
        if (sparse && corr >= 0)
            corr = corr << 40 | corr;
        gf_event e = {.start = (int64_t)(r >> start_shift), .dur = 1 + (int64_t)((r >> 8) % (uint64_t)dur_mod),
                      .corr = corr, .lane = api ? cpu : gpu, .name = nm, .stack = -1, .pid = pid,
                      .kind = api ? GF_EV_API : GF_EV_KERNEL};
        gf_trace_add(t, &e, NULL, &err);
    }
    return t;
}

/* Partners of a random trace against a brute-force search (the first launch with the same process and
 * correlation id; a launch links back to the first GPU work it launched): dense ids (CUPTI's 1, 2, 3, ...:
 * the table path) and ids spread over 2^40 (the sorted path), several processes, repeated and unmatched ids. */
static void partners_vs_brute_force(void)
{
    for (int sparse = 0; sparse <= 1; sparse++) {
        gf_err err;
        gf_trace *t = random_launches(12345, 3000, sparse, 50, 9);
        gf_trace_finish(t, &err);
        int32_t *p = NULL;
        int rc = gf_trace_partners(t, &p, &err);
        int ok = rc == 0, linked = 0;
        int32_t *want = malloc(t->n * sizeof *want);
        for (size_t g = 0; g < t->n; g++) {
            want[g] = -1;
            if (!gf_ev_is_gpu_work(t->kind[g]) || t->corr[g] < 0)
                continue;
            for (size_t i = 0; i < t->n && want[g] < 0; i++)
                if (t->kind[i] == GF_EV_API && t->corr[i] == t->corr[g] && t->pid[i] == t->pid[g])
                    want[g] = (int32_t)i;
        }
        gf_launch_index x;
        int xok = gf_launch_index_build(t, &x, &err) == 0 && (sparse ? x.partner && !x.tab : x.tab && !x.partner);
        for (size_t g = 0; xok && g < t->n; g++)
            xok = gf_launch_index_find(&x, t, g) == want[g];
        gf_launch_index_free(&x);
        CHECK(sparse ? "launch index, sparse ids (partners' array) = brute force"
                     : "launch index, dense ids (the table, no array per event) = brute force", xok);
        for (size_t g = 0; g < t->n; g++)
            if (gf_ev_is_gpu_work(t->kind[g]) && want[g] >= 0 && want[want[g]] < 0)
                want[want[g]] = (int32_t)g;
        for (size_t i = 0; ok && i < t->n; i++) {
            ok = p[i] == want[i];
            linked += want[i] >= 0;
        }
        CHECK(sparse ? "partners, sparse correlation ids (sorted launches) = brute force"
                     : "partners, dense correlation ids (the table) = brute force",
              ok && linked > 500);
        free(want);
        free(p);
        gf_trace_free(t);
    }
}

/* An unordered trace (gf_trace_set_unordered, a page's narrow import): the events stay in arrival order, and a GPU
 * operation's launch is the one a sorted trace finds first, the earliest start of its process and correlation id
 * (then the first to arrive), by a brute force; dense ids (the table) and sparse (the sorted launches). The GPU
 * stacks of one step or per event, which need start order, are refused. */
static void unordered_launches(void)
{
    for (int sparse = 0; sparse <= 1; sparse++) {
        gf_err err;
        enum { N = 3000 };
        /* starts 0..1023: many launches of one id share a start, others do not */
        gf_trace *t = random_launches(777, N, sparse, 54, 1);
        int64_t start[N]; /* a keep-all build's columns hold the events as they were added */
        int ok = gf_trace_added(t) == N;
        memcpy(start, t->start, (ok ? N : 0) * sizeof *start);
        gf_trace_set_unordered(t);
        ok = ok && gf_trace_finish(t, &err) == 0 && t->unordered && t->n == N;
        for (size_t i = 0; ok && i < t->n; i++)
            ok = t->start[i] == start[i];
        CHECK(sparse ? "unordered trace: events in arrival order (sparse ids)" : "unordered trace: events in arrival "
              "order", ok);
        gf_launch_index x;
        int xok = gf_launch_index_build(t, &x, &err) == 0, later = 0;
        for (size_t g = 0; xok && g < t->n; g++) {
            int64_t want = -1;
            if (gf_ev_is_gpu_work(t->kind[g]) && t->corr[g] >= 0)
                for (size_t i = 0; i < t->n; i++)
                    if (t->kind[i] == GF_EV_API && t->corr[i] == t->corr[g] && t->pid[i] == t->pid[g] &&
                        (want < 0 || t->start[i] < t->start[want]))
                        want = (int64_t)i;
            xok = gf_launch_index_find(&x, t, g) == want;
            for (size_t i = 0; want >= 0 && i < (size_t)want && !later; i++) /* an earlier arrival, started later */
                later = t->kind[i] == GF_EV_API && t->corr[i] == t->corr[g] && t->pid[i] == t->pid[g];
        }
        gf_launch_index_free(&x);
        CHECK(sparse ? "unordered trace, sparse ids: each launch the earliest of its id (brute force)"
                     : "unordered trace, dense ids: each launch the earliest of its id (brute force)", xok && later);
        const int levels[] = {GF_FL_API, GF_FL_KERNEL};
        gf_step_win win = {0};
        gf_gpu_flame_opts o = {.levels = levels, .nlevels = 2, .nolaunch = "?", .step = &win};
        gf_stacks *s = gf_stacks_new();
        int32_t *evs = NULL;
        int refused = gf_trace_gpu_stacks(t, &o, s, NULL, &err) != 0 && strstr(err.msg, "unordered");
        o.step = NULL;
        refused = refused && gf_trace_gpu_stacks(t, &o, s, &evs, &err) != 0 && !evs;
        CHECK("unordered trace: the stacks of a step, or per event, refused", refused);
        CHECK("unordered trace: the stacks of every operation made", gf_trace_gpu_stacks(t, &o, s, NULL, &err) == 0 &&
              gf_stacks_count(s) > 0);
        /* used up (gf_trace_gpu_stacks_use_up): the same stacks, and no events left */
        gf_stacks *u = gf_stacks_new();
        int same = gf_trace_gpu_stacks_use_up(t, &o, u, &err) == 0 && t->n == 0 && !t->start && !t->corr;
        char *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
        gf_stacks_write_folded(s, fa, 0, &err);
        gf_stacks_write_folded(u, fb, 0, &err);
        fclose(fa);
        fclose(fb);
        CHECK(sparse ? "used up, sparse ids: the same stacks, the trace emptied"
                     : "used up: the same stacks, the trace emptied", same && na > 0 && na == nb && !memcmp(a, b, na));
        free(a);
        free(b);
        gf_stacks_free(u);
        gf_stacks_free(s);
        gf_trace_free(t);
    }
}

typedef struct arrival {
    int64_t dur;
    int idx;
} arrival;

static int cmp_best(const void *a, const void *b)
{
    const arrival *x = a, *y = b;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Rows a bounded build drops counted in bulk (gf_trace_drop_thr, gf_trace_add_dropped, as the CSV importer
 * does) keep the same events as gf_trace_add of every row: the K best by duration, ties to the earliest
 * arrival (a brute-force sort), with totals per kind; durations from a small range make many ties. */
static void bulk_drops_vs_brute_force(void)
{
    enum { N = 30000, K = 700 };
    arrival *a = malloc(N * sizeof *a);
    uint8_t *kind = malloc(N);
    gf_err err;
    gf_trace *t = gf_trace_new();
    gf_trace_begin(t, K, 1, &err);
    int32_t lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU (0)"), 0, 7, &err);
    uint64_t pend[GF_EV_NKINDS] = {0}, per_kind[GF_EV_NKINDS] = {0};
    size_t bulk = 0;
    int ok = 1;
    for (int i = 0; i < N; i++) {
        a[i] = (arrival){(int64_t)(xr() % 2000), i};
        kind[i] = (uint8_t)(i % 3 == 0 ? GF_EV_API : i % 3 == 1 ? GF_EV_KERNEL : GF_EV_MEMCPY);
        per_kind[kind[i]]++;
        gf_event e = {.start = i, .dur = a[i].dur, .corr = -1, .lane = lane, .name = -1, .stack = -1, .pid = 1,
                      .kind = kind[i]};
        if (e.dur <= gf_trace_drop_thr(t, kind[i] != GF_EV_API)) {
            pend[kind[i]]++;
            bulk++;
            continue;
        }
        for (int k = 0; k < GF_EV_NKINDS; k++)
            if (pend[k]) {
                gf_trace_add_dropped(t, k, pend[k]);
                pend[k] = 0;
            }
        ok &= gf_trace_add(t, &e, NULL, &err) == 0;
    }
    for (int k = 0; k < GF_EV_NKINDS; k++)
        if (pend[k])
            gf_trace_add_dropped(t, k, pend[k]);
    ok &= gf_trace_finish(t, &err) == 0;
    CHECK("bulk drops: most rows counted in bulk", bulk > N / 2);
    for (int k = 0; k < GF_EV_NKINDS; k++)
        ok &= t->total_kind[k] == per_kind[k];
    CHECK("bulk drops: totals per kind as given", ok && t->total == N && t->n == K);
    qsort(a, N, sizeof *a, cmp_best);
    ev_key *want = malloc(K * sizeof *want);
    for (int i = 0; i < K; i++)
        want[i] = (ev_key){a[i].idx, kind[a[i].idx], a[i].idx}; /* start = arrival index */
    qsort(want, K, sizeof *want, cmp_ev_key);
    int same = t->n == K;
    for (size_t i = 0; same && i < t->n; i++)
        same = t->start[i] == want[i].start && t->kind[i] == want[i].kind;
    CHECK("bulk drops: the kept events are the K best, ties to the earliest (brute force)", same);
    free(want);
    gf_trace_free(t);
    free(a);
    free(kind);
}

int main(void)
{
    /* strtab */
    gf_strtab *st = gf_strtab_new();
    int32_t a = gf_strtab_intern_cstr(st, "cudaLaunchKernel");
    int32_t b = gf_strtab_intern_cstr(st, "burn(float *, int, int)");
    int ok = a == gf_strtab_intern_cstr(st, "cudaLaunchKernel") && a != b;
    char buf[32];
    for (int i = 0; i < 50000 && ok; i++) {
        snprintf(buf, sizeof buf, "k%d", i);
        ok = gf_strtab_intern_cstr(st, buf) == i + 2;
    }
    for (int i = 0; i < 50000 && ok; i++) {
        snprintf(buf, sizeof buf, "k%d", i);
        ok = gf_strtab_find(st, buf, strlen(buf)) == i + 2 && strcmp(gf_strtab_get(st, i + 2, NULL), buf) == 0;
    }
    CHECK("strtab interns 50,002 strings to dense ids and finds them again", ok);
    bulk_drops_vs_brute_force();
    gf_strtab_free(st);

    /* 50,000 synthetic events with distinct known durations: the streaming heap keeps the 20,000 longest */
    enum { N = 50000, K = 20000 };
    int64_t *durs = malloc(N * sizeof *durs);
    for (int i = 0; i < N; i++)
        durs[i] = (int64_t)(i * 7 + 3); /* distinct */
    for (int i = N - 1; i > 0; i--) { /* shuffle */
        int j = (int)(xr() % (uint64_t)(i + 1));
        int64_t x = durs[i];
        durs[i] = durs[j];
        durs[j] = x;
    }
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_trace_begin(t, K, 0, &err);
    /* a bounded build reserves at most its max: still the heap path below */
    CHECK("reserve on a bounded build", gf_trace_reserve(t, N, &err) == 0);
    int32_t lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU (0)"), 0, 7, &err);
    int32_t nm = gf_strtab_intern_cstr(t->str, "k");
    for (int i = 0; i < N; i++) {
        gf_event e = {.start = (int64_t)(xr() % 1000000000ull), .dur = durs[i], .corr = -1, .lane = lane,
                      .name = nm, .stack = -1, .pid = 1, .kind = GF_EV_KERNEL};
        gf_trace_add(t, &e, NULL, &err);
    }
    CHECK("finish", gf_trace_finish(t, &err) == 0);
    CHECK("total 50,000, shown 20,000", t->total == N && t->n == K);
    int64_t *sorted = malloc(N * sizeof *sorted);
    memcpy(sorted, durs, N * sizeof *sorted);
    qsort(sorted, N, sizeof *sorted, cmp_desc);
    int64_t threshold = sorted[K - 1];
    int all_long = 1, in_order = 1;
    for (size_t i = 0; i < t->n; i++) {
        if (t->dur[i] < threshold)
            all_long = 0;
        if (i && t->start[i] < t->start[i - 1])
            in_order = 0;
    }
    CHECK("the kept events are exactly the 20,000 longest", all_long);
    CHECK("kept events are sorted by start", in_order);
    gf_trace_free(t);

    /* the same trimming on a finished trace (gf_trace_trim → gf_topn_select) */
    t = gf_trace_new();
    gf_trace_begin(t, 0, 0, &err);
    /* reserving fewer than arrive: the columns grow past the reservation as without one */
    CHECK("reserve on a keep-all build", gf_trace_reserve(t, N / 3, &err) == 0);
    lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, -1, 7, &err);
    for (int i = 0; i < N; i++) {
        gf_event e = {.start = i * 10, .dur = durs[i], .corr = -1, .lane = lane, .name = nm, .stack = -1,
                      .pid = 1, .kind = GF_EV_KERNEL};
        gf_trace_add(t, &e, NULL, &err);
    }
    gf_trace_finish(t, &err);
    CHECK("untrimmed import keeps all 50,000", t->n == N);
    gf_trace_trim(t, K, 0, &err);
    all_long = 1, in_order = 1;
    for (size_t i = 0; i < t->n; i++) {
        if (t->dur[i] < threshold)
            all_long = 0;
        if (i && t->start[i] <= t->start[i - 1])
            in_order = 0;
    }
    CHECK("trim keeps exactly the 20,000 longest, in start order", t->n == K && all_long && in_order);
    gf_trace_free(t);

    /* nothing to drop: trim changes nothing, each event keeps its own detail (pages number details by
     * first use, so the order details are stored in does not reach a page) */
    t = gf_trace_new();
    gf_trace_begin(t, 0, 0, &err);
    lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
    for (int i = 0; i < 3; i++) {
        gf_detail d;
        gf_detail_clear(&d);
        d.regs = 10 + i;
        gf_event e = {.start = 300 - i * 100, .dur = 5, .corr = -1, .lane = lane, .name = nm, .stack = -1,
                      .pid = 1, .kind = GF_EV_KERNEL, .has_detail = 1};
        gf_trace_add(t, &e, &d, &err);
    }
    gf_trace_finish(t, &err);
    CHECK("trim with nothing to drop", gf_trace_trim(t, 10, 1, &err) == 0 && t->n == 3);
    CHECK("... each event keeps its own detail", t->details[t->detail[0]].regs == 12 &&
          t->details[t->detail[1]].regs == 11 && t->details[t->detail[2]].regs == 10);
    gf_trace_free(t);

    /* keep-all builds share equal details: 10,000 launches of 4 configurations hold 4 records; a trim
     * that drops events keeps each survivor's own and stores each kept record once */
    t = gf_trace_new();
    gf_trace_begin(t, 0, 0, &err);
    lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
    for (int i = 0; i < 10000; i++) {
        gf_detail d;
        gf_detail_clear(&d);
        d.grid[0] = 1 << (i % 4);
        gf_event e = {.start = i * 10, .dur = 1 + i % 97, .corr = -1, .lane = lane, .name = nm, .stack = -1,
                      .pid = 1, .kind = GF_EV_KERNEL};
        gf_trace_add(t, &e, &d, &err);
    }
    gf_trace_finish(t, &err);
    ok = t->n == 10000 && t->ndetails == 4;
    for (size_t i = 0; i < t->n && ok; i++)
        ok = t->details[t->detail[i]].grid[0] == 1 << ((t->start[i] / 10) % 4);
    CHECK("keep-all: equal details stored once, each event finds its own", ok);
    gf_trace_trim(t, 1000, 0, &err);
    ok = t->n == 1000 && t->ndetails <= 4;
    for (size_t i = 0; i < t->n && ok; i++)
        ok = t->details[t->detail[i]].grid[0] == 1 << ((t->start[i] / 10) % 4) && t->dur[i] >= 88;
    CHECK("trim of shared details: survivors keep theirs, records not copied per event", ok);
    gf_trace_free(t);

    /* a bounded build that overflows moves from columns to the heap: the longest kept, details with them */
    t = gf_trace_new();
    gf_trace_begin(t, 100, 0, &err);
    lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
    for (int i = 0; i < 1000; i++) {
        gf_detail d;
        gf_detail_clear(&d);
        d.bytes = (i * 7919) % 1000;
        gf_event e = {.start = i, .dur = d.bytes, .corr = -1, .lane = lane, .name = nm, .stack = -1, .pid = 1,
                      .kind = GF_EV_MEMCPY};
        gf_trace_add(t, &e, &d, &err);
    }
    CHECK("bounded build past its max: finish", gf_trace_finish(t, &err) == 0);
    ok = t->n == 100 && t->total == 1000;
    for (size_t i = 0; i < t->n && ok; i++)
        ok = t->dur[i] >= 900 && t->details[t->detail[i]].bytes == t->dur[i] && (!i || t->start[i] > t->start[i - 1]);
    CHECK("... keeps the 100 longest in start order, each with its own detail", ok);
    gf_trace_free(t);

    /* finish orders events by (start, kind, arrival) however they arrive: one sorted run (kept as is),
     * a few sorted runs (a merge: k-way merged), or any order (sorted); equal (start, kind) keep arrival */
    for (int shape = 0; shape < 3; shape++) {
        int runs = shape == 0 ? 1 : shape == 1 ? 5 : 500;
        t = gf_trace_new();
        gf_trace_begin(t, 0, 0, &err);
        lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
        int per = 4000 / runs;
        for (int r = 0; r < runs; r++)
            for (int i = 0; i < per; i++) {
                gf_detail d;
                gf_detail_clear(&d);
                d.regs = r; /* which run it came from */
                gf_event e = {.start = (int64_t)(i * 3 + r % 3) / 2, .dur = r * 100000 + i, .corr = -1, .lane = lane,
                              .name = nm, .stack = -1, .pid = 1, .kind = GF_EV_KERNEL};
                gf_trace_add(t, &e, &d, &err);
            }
        ok = gf_trace_finish(t, &err) == 0 && t->n == (size_t)(runs * per);
        for (size_t i = 1; i < t->n && ok; i++) {
            int64_t ra = t->details[t->detail[i - 1]].regs, rb = t->details[t->detail[i]].regs;
            ok = t->start[i - 1] < t->start[i] ||
                 (t->start[i - 1] == t->start[i] && (ra < rb || (ra == rb && t->dur[i - 1] < t->dur[i])));
        }
        char name[96];
        snprintf(name, sizeof name, "finish orders %d sorted run(s) by start, ties by arrival", runs);
        CHECK(name, ok);
        gf_trace_free(t);
    }

    /* any arrival order (the radix sort): mixed kinds, equal (start, kind) pairs, negative and far-apart
     * starts (every digit of a 64-bit range varies) or dense ones, against qsort by (start, kind, arrival);
     * 200,000 events finished on two threads (the sort's buckets and the gathers in halves) too */
    for (int run = 0; run < 4; run++) {
        int threads = run % 2 + 1, dense = run / 2;
        size_t NR = threads == 2 || dense ? 200000 : 20000;
        ev_key *want = malloc(NR * sizeof *want);
        t = gf_trace_new();
        gf_trace_begin(t, 0, 0, &err);
        gf_trace_set_finish_threads(t, threads);
        lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
        uint64_t x = 88172645463325252ull;
        for (size_t i = 0; i < NR; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t st = dense ? (int64_t)(x % 1000003) : (int64_t)(x % 61) * (INT64_MAX / 64) - INT64_MAX / 2 +
                                                              (int64_t)((x >> 8) % 5);
            if (i % 7 == 0)
                st = -3; /* many equal starts */
            uint8_t kind = (uint8_t)((x >> 20) % GF_EV_NKINDS);
            want[i] = (ev_key){st, kind, (int)i};
            gf_event e = {.start = st, .dur = (int64_t)i, .corr = (int64_t)i * 3 - 7, .lane = lane, .name = nm,
                          .stack = -1, .pid = (int32_t)(i % 1009), .kind = kind};
            gf_trace_add(t, &e, NULL, &err);
        }
        qsort(want, NR, sizeof *want, cmp_ev_key);
        ok = gf_trace_finish(t, &err) == 0 && t->n == NR;
        for (size_t i = 0; i < t->n && ok; i++) {
            int64_t a = want[i].arrival;
            ok = t->start[i] == want[i].start && t->kind[i] == want[i].kind && t->dur[i] == a &&
                 t->seq[i] == (uint32_t)a && t->corr[i] == a * 3 - 7 && t->pid[i] == (int32_t)(a % 1009) &&
                 t->lane[i] == lane && t->name[i] == nm && t->stack[i] == -1 && t->detail[i] == -1;
        }
        char name[160];
        snprintf(name, sizeof name, "finish sorts %zu events in any arrival order by (start, kind, arrival), %s starts, "
                 "every column moved with them, on %d thread%s", NR, dense ? "dense" : "negative and far-apart",
                 threads, threads == 1 ? "" : "s");
        CHECK(name, ok);
        gf_trace_free(t);
        free(want);
    }

    /* ties: equal durations keep the earliest arrivals */
    int64_t td[6] = {5, 5, 5, 5, 9, 1};
    uint8_t keep[6];
    gf_topn_select(td, 6, 3, keep);
    CHECK("topn ties keep lower indices", keep[4] && keep[0] && keep[1] && !keep[2] && !keep[3] && !keep[5]);

    /* keep_partners: a long kernel keeps its short launch call; stacks are inherited by the kernel */
    t = gf_trace_new();
    gf_trace_begin(t, 2, 1, &err);
    int32_t cpu = gf_trace_lane(t, GF_LANE_CPU, 0, 42, 43, -1, -1, -1, &err);
    int32_t gpu = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, 0, 7, &err);
    int32_t fr[2] = {gf_strtab_intern_cstr(t->str, "cudaLaunchKernel (libcudart.so)"),
                     gf_strtab_intern_cstr(t->str, "main (app)")};
    int32_t s = gf_trace_stack(t, fr, 2);
    CHECK("identical stacks are stored once", gf_trace_stack(t, fr, 2) == s && t->nstacks == 1);
    int32_t lk = gf_strtab_intern_cstr(t->str, "cudaLaunchKernel"), kn = gf_strtab_intern_cstr(t->str, "k");
    gf_event ev[5] = {
        {.start = 0, .dur = 10, .corr = 1, .lane = cpu, .name = lk, .stack = s, .pid = 42, .kind = GF_EV_API},
        {.start = 20, .dur = 10, .corr = 2, .lane = cpu, .name = lk, .stack = -1, .pid = 42, .kind = GF_EV_API},
        {.start = 15, .dur = 1000, .corr = 1, .lane = gpu, .name = kn, .stack = -1, .pid = 42, .kind = GF_EV_KERNEL},
        {.start = 2000, .dur = 500, .corr = 2, .lane = gpu, .name = kn, .stack = -1, .pid = 42, .kind = GF_EV_KERNEL},
        {.start = 40, .dur = 20, .corr = 9, .lane = gpu, .name = kn, .stack = -1, .pid = 42, .kind = GF_EV_KERNEL},
    };
    for (int i = 0; i < 5; i++)
        gf_trace_add(t, &ev[i], NULL, &err);
    CHECK("partner pass needed", gf_trace_partner_pass_needed(t) == 1);
    gf_trace_add_partner(t, &ev[0], &err);
    gf_trace_add_partner(t, &ev[1], &err);
    gf_trace_finish(t, &err);
    CHECK("2 longest + their 2 launches kept, in start order",
          t->n == 4 && t->start[0] == 0 && t->start[1] == 15 && t->start[2] == 20 && t->start[3] == 2000);
    CHECK("CPU lanes first", t->lanes[0].kind == GF_LANE_CPU && t->lane[0] == 0 && t->lane[1] == 1);
    CHECK("kernel inherits its launch's stack", t->stack[1] == s && t->stack[3] == -1);
    CHECK("launch flame: one entry weighted by the kernel's GPU time",
          t->nflame == 1 && t->flame[0].weight == 1000 && t->flame[0].gpu && t->flame[0].leaf == kn);
    int32_t *p;
    gf_trace_partners(t, &p, &err);
    CHECK("partners link launch and kernel both ways", p[0] == 1 && p[1] == 0 && p[2] == 3 && p[3] == 2);
    free(p);
    CHECK("lane labels", strcmp(gf_strtab_get(t->str, t->lanes[0].label, NULL), "CPU pid 42 tid 43") == 0 &&
                             strcmp(gf_strtab_get(t->str, t->lanes[1].label, NULL), "GPU ? stream 7") == 0);
    gf_trace_free(t);
    free(durs);
    free(sorted);
    partners_vs_brute_force();
    unordered_launches();
    return tap_done();
}
