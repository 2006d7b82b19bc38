/* Several reports (issue 14): a saved model loads back equal (trace_io.c), worker processes import the
 * same models as one process (trace_workers.c), a failing report is named, and merging shifts clocks and
 * groups lanes by rank (trace_ranks.c); the merge of digests writes the timeline the merge of whole models
 * writes (trace_digest.c). Real fixture exports where they are present. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "tap.h"
#include "trace.h"
#include "trace_digest.h"
#include "trace_io.h"
#include "trace_ranks.h"
#include "trace_sqlite.h"
#include "trace_workers.h"
#include "trace_build.h"
#include "trace_json.h"
#include "trace_rawnames.h"

#define SAME_ARR(a, b, n) ((n) == 0 || memcmp((a), (b), (n) * sizeof *(a)) == 0)

/* 1 when the two finished models hold the same strings, events, lanes, stacks and findings tables */
static int same_model(const gf_trace *x, const gf_trace *y)
{
    size_t ns = gf_strtab_count(x->str);
    if (ns != gf_strtab_count(y->str) || x->n != y->n || x->nlanes != y->nlanes || x->ndetails != y->ndetails)
        return 0;
    for (size_t i = 0; i < ns; i++)
        if (strcmp(gf_strtab_get(x->str, (int32_t)i, NULL), gf_strtab_get(y->str, (int32_t)i, NULL)) != 0)
            return 0;
    if (!SAME_ARR(x->start, y->start, x->n) || !SAME_ARR(x->dur, y->dur, x->n) || !SAME_ARR(x->corr, y->corr, x->n) ||
        !SAME_ARR(x->lane, y->lane, x->n) || !SAME_ARR(x->name, y->name, x->n) ||
        !SAME_ARR(x->stack, y->stack, x->n) || !SAME_ARR(x->pid, y->pid, x->n) ||
        !SAME_ARR(x->detail, y->detail, x->n) || !SAME_ARR(x->kind, y->kind, x->n) || !SAME_ARR(x->seq, y->seq, x->n))
        return 0;
    for (size_t i = 0; i < x->ndetails; i++) {
        const gf_detail *a = &x->details[i], *b = &y->details[i];
        if (a->bytes != b->bytes || a->grid[0] != b->grid[0] || a->copy != b->copy || a->graph != b->graph ||
            a->src_kind != b->src_kind || a->nvtx_level != b->nvtx_level)
            return 0;
    }
    for (size_t i = 0; i < x->nlanes; i++)
        if (x->lanes[i].label != y->lanes[i].label || x->lanes[i].stream != y->lanes[i].stream ||
            x->lanes[i].kind != y->lanes[i].kind || x->lanes[i].rank != y->lanes[i].rank)
            return 0;
    if (x->nstacks != y->nstacks || x->nframes != y->nframes || !SAME_ARR(x->frames, y->frames, x->nframes) ||
        !SAME_ARR(x->stack_off, y->stack_off, x->nstacks + 1) || x->nflame != y->nflame)
        return 0;
    if (x->total != y->total || x->nwarnings != y->nwarnings || x->noverhead != y->noverhead ||
        x->ngraph_execs != y->ngraph_execs || x->tables != y->tables || x->raw_names.n != y->raw_names.n)
        return 0;
    for (size_t i = 0; i < x->nwarnings; i++)
        if (strcmp(x->warnings[i], y->warnings[i]) != 0)
            return 0;
    for (size_t i = 0; i < x->raw_names.cap; i++)
        if (x->raw_names.slots[i].key != GF_HMAP_EMPTY &&
            gf_trace_raw_name(y, (int32_t)x->raw_names.slots[i].key) != (int32_t)x->raw_names.slots[i].val)
            return 0;
    if (x->raw_by_seq.n != y->raw_by_seq.n)
        return 0;
    for (size_t i = 0; i < x->n; i++)
        if (gf_trace_event_raw_name(x, i) != gf_trace_event_raw_name(y, i))
            return 0;
    return (x->source == NULL) == (y->source == NULL) && (!x->source || strcmp(x->source, y->source) == 0);
}

static gf_trace *import(const char *path, gf_err *err)
{
    gf_trace *t = gf_trace_new();
    gf_sqlite_opts o = {0};
    if (gf_trace_begin(t, 0, 1, err) != 0 || gf_trace_import_sqlite(t, path, &o, err) != 0) {
        gf_trace_free(t);
        return NULL;
    }
    return t;
}

static gf_trace *round_trip(const gf_trace *t, gf_err *err)
{
    FILE *f = tmpfile();
    if (!f || gf_trace_save(t, f, err) != 0)
        return NULL;
    rewind(f);
    gf_trace *u = gf_trace_load(f, UINT64_MAX, err);
    fclose(f);
    return u;
}

static void test_load_refuses(void)
{
    gf_err err;
    FILE *f = tmpfile();
    fputs("GFTRACE1 but nothing a model has", f);
    rewind(f);
    CHECK("load: garbage is refused", gf_trace_load(f, UINT64_MAX, &err) == NULL && strstr(err.msg, "not a model"));
    fclose(f);

    /* a valid model cut short at every 97th byte is refused, never half-loaded */
    gf_trace *t = gf_trace_new();
    gf_trace_begin(t, 0, 1, &err);
    int32_t lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU 0"), 0, 7, &err);
    for (int i = 0; i < 100; i++) {
        gf_event e = {.start = i * 100, .dur = 50, .corr = i, .lane = lane,
                      .name = gf_strtab_intern_cstr(t->str, i % 2 ? "even" : "odd"), .stack = -1, .pid = 1,
                      .kind = GF_EV_KERNEL};
        gf_trace_add(t, &e, NULL, &err);
    }
    gf_trace_warn(t, "a warning kept across the save");
    gf_trace_finish(t, &err);
    f = tmpfile();
    gf_trace_save(t, f, &err);
    long size = ftell(f);
    char *buf = malloc((size_t)size);
    rewind(f);
    CHECK("save: the model is written", size > 0 && fread(buf, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    int refused = 1;
    for (long cut = 0; cut < size; cut += 97) {
        FILE *g = tmpfile();
        fwrite(buf, 1, (size_t)cut, g);
        rewind(g);
        gf_trace *u = gf_trace_load(g, UINT64_MAX, &err);
        if (u) {
            refused = 0;
            gf_trace_free(u);
        }
        fclose(g);
    }
    CHECK("load: every truncated copy is refused", refused);
    gf_trace *u = round_trip(t, &err);
    CHECK("round trip: synthetic model with a warning", u && same_model(t, u) && t->nwarnings >= 1);
    gf_trace_free(u);
    gf_trace_free(t);
    free(buf);
}

static void test_fixtures_round_trip(const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        gf_err err;
        char name[512];
        gf_trace *t = import(paths[i], &err);
        gf_trace *u = t ? round_trip(t, &err) : NULL;
        snprintf(name, sizeof name, "round trip: %s (%zu events)", paths[i], t ? t->n : 0);
        CHECK(name, t && u && same_model(t, u));
        gf_trace_free(t);
        gf_trace_free(u);
    }
}

static void test_workers(const char *const *paths, size_t n)
{
    gf_err err;
    char scratch[] = "/tmp/gf-unit-workers-XXXXXX";
    CHECK("scratch directory", mkdtemp(scratch) != NULL);
    gf_trace **par = calloc(n, sizeof *par);
    gf_import_job job = {paths, n, {0}, 1, 2, scratch, NULL, NULL};
    CHECK("workers: two processes import every fixture export", gf_trace_import_workers(&job, par, &err) == 0);
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        gf_trace *seq = import(paths[i], &err);
        same = same && seq && par[i] && same_model(seq, par[i]);
        gf_trace_free(seq);
        gf_trace_free(par[i]);
    }
    CHECK("workers: each model equals the one imported in this process", same);

    /* a report that is not an export: named, exit code of bad input, nothing returned */
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/not-an-export.sqlite", scratch);
    FILE *f = fopen(bad, "w");
    fputs("this is not SQLite\n", f);
    fclose(f);
    const char *mixed[3] = {paths[0], bad, paths[n > 1 ? 1 : 0]};
    gf_import_job job2 = {mixed, 3, {0}, 1, 2, scratch, NULL, NULL};
    gf_trace *out[3] = {0};
    int rc = gf_trace_import_workers(&job2, out, &err);
    CHECK("workers: a bad report fails the import with exit 6, named",
          rc != 0 && err.code == GF_EXIT_INPUT && strstr(err.msg, "not-an-export.sqlite"));
    CHECK("workers: no model is returned on failure", !out[0] && !out[1] && !out[2]);
    remove(bad);
    gf_err rmerr;
    gf_remove_tree(scratch, &rmerr);
    free(par);
}

static gf_trace *one_kernel_trace(int64_t start, int64_t pid, gf_err *err)
{
    gf_trace *t = gf_trace_new();
    gf_trace_begin(t, 0, 1, err);
    int32_t lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU 0"), 0, 7, err);
    gf_event e = {.start = start, .dur = 10, .corr = -1, .lane = lane, .name = gf_strtab_intern_cstr(t->str, "k"),
                  .stack = -1, .pid = (int32_t)pid, .kind = GF_EV_KERNEL};
    gf_trace_add(t, &e, NULL, err);
    gf_trace_finish(t, err);
    return t;
}

static void test_merge(void)
{
    gf_err err;
    gf_trace *src[2] = {one_kernel_trace(500, 11, &err), one_kernel_trace(500, 22, &err)};
    const int64_t offset[2] = {0, 1000};
    const char *labels[2] = {"rank 0", "rank 1"};
    gf_rank_spec spec[2] = {{0, -1, 0}, {1, -1, 1}};
    gf_trace *m = gf_trace_new();
    CHECK("merge two reports", gf_trace_merge(m, src, 2, offset, labels, 2, spec, 2, 0, 1, &err) == 0);
    CHECK("merge: both kernels, the second shifted by its session offset",
          m->n == 2 && m->start[0] == 500 && m->start[1] == 1500);
    CHECK("merge: one lane per rank, in rank order", m->nlanes == 2 && m->lanes[0].rank == 0 && m->lanes[1].rank == 1);
    CHECK("merge: rank labels", m->nranks == 2 && strcmp(gf_strtab_get(m->str, m->rank_label[1], NULL), "rank 1") == 0);
    gf_trace *u = round_trip(m, &err);
    CHECK("round trip keeps ranks", u && same_model(m, u) && u->nranks == 2 &&
                                        strcmp(gf_strtab_get(u->str, u->rank_label[0], NULL), "rank 0") == 0);
    gf_trace_free(u);
    gf_trace_free(m);
    gf_trace_free(src[0]);
    gf_trace_free(src[1]);
}

/* The timeline JSON of t (malloc'd), NULL on failure. */
static char *timeline_json(const gf_trace *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    gf_timeline_opts o = {"t", 0, "busiest", 0, 8, 0, 0};
    gf_err err;
    int rc = f ? gf_trace_write_timeline_json(t, f, &o, &err) : -1;
    if (f)
        fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Each source a digest (saved and loaded back, as MPI sends it), merged: the page of the whole models'
 * merge for every N, with one rank per (source, process) as gpuflame.ranks labels them. */
static void test_digests(const char *const *paths, size_t n)
{
    enum { MAXS = 8, MAXR = 64 };
    gf_err err;
    gf_trace *src[MAXS];
    gf_rank_spec spec[MAXR];
    const char *labels[MAXR];
    char lab[MAXR][16];
    int64_t offset[MAXS];
    size_t ns = 0, nr = 0, events = 0;
    for (size_t i = 0; i < n && ns < MAXS; i++) {
        if (!(src[ns] = import(paths[i], &err)))
            continue;
        gf_proc_info *p;
        size_t np;
        if (gf_trace_processes(src[ns], NULL, 0, &p, &np, &err) != 0)
            np = 0, p = NULL;
        for (size_t k = 0; k < np && nr < MAXR; k++, nr++) {
            spec[nr] = (gf_rank_spec){ns, p[k].pid, (int32_t)nr};
            snprintf(lab[nr], sizeof lab[nr], "r%zu", nr);
            labels[nr] = lab[nr];
        }
        free(p);
        offset[ns] = (int64_t)ns * 1000000;
        events += src[ns++]->n;
    }
    static const size_t max[] = {1, 7, 40, 333, 5000};
    for (size_t k = 0; k < sizeof max / sizeof max[0]; k++) {
        gf_trace *whole = gf_trace_new(), *m = gf_trace_new(), *dg[MAXS];
        int64_t *touch[MAXS];
        size_t nt[MAXS], sent = 0;
        int ok = gf_trace_merge(whole, src, ns, offset, labels, nr, spec, nr, max[k], 1, &err) == 0;
        for (size_t i = 0; i < ns; i++) {
            gf_trace *d = NULL;
            touch[i] = NULL;
            ok = ok && gf_trace_digest(src[i], max[k], 1, &d, &touch[i], &nt[i], &err) == 0;
            dg[i] = d ? round_trip(d, &err) : NULL;
            gf_trace_free(d);
            ok = ok && dg[i];
            sent += dg[i] ? dg[i]->n : 0;
        }
        ok = ok && gf_trace_merge_digests(m, dg, ns, offset, labels, nr, spec, nr, max[k], 1,
                                          (const int64_t *const *)touch, nt, &err) == 0;
        size_t la = 0, lb = 0;
        char *a = ok ? timeline_json(whole, &la) : NULL, *b = ok ? timeline_json(m, &lb) : NULL;
        char name[160];
        snprintf(name, sizeof name, "digests, --max-events %zu: the timeline of the whole models' merge (%zu of %zu "
                 "events sent, %zu shown)", max[k], sent, events, whole->n);
        CHECK(name, a && b && la == lb && memcmp(a, b, la) == 0);
        snprintf(name, sizeof name, "digests, --max-events %zu: the counts, launches, lanes and flame of every event",
                 max[k]);
        CHECK(name, ok && m->total == whole->total && memcmp(m->total_kind, whole->total_kind, sizeof m->total_kind) == 0 &&
                        m->launches_with_stack == whole->launches_with_stack && m->nlanes == whole->nlanes &&
                        m->nflame == whole->nflame && m->nstacks == whole->nstacks);
        if (max[k] == 40) {
            CHECK("digests of 40 events send fewer events than the reports hold", sent < events);
        }
        free(a);
        free(b);
        for (size_t i = 0; i < ns; i++) {
            gf_trace_free(dg[i]);
            free(touch[i]);
        }
        gf_trace_free(whole);
        gf_trace_free(m);
    }
    for (size_t i = 0; i < ns; i++)
        gf_trace_free(src[i]);
}

int main(void)
{
    test_load_refuses();
    test_merge();
    /* pipit: calls recorded under two names per display name (raw_by_seq) */
    static const char *const rel[] = {"real/parallel-sheet-simulator/tile_8x8.sqlite", "real/nsys-ai/mock.sqlite",
                                      "real/cuda-learning/report1.sqlite", "real/cuda-perf-sandbox/report1.sqlite",
                                      "real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"};
    const char *paths[5];
    char bufs[5][4096];
    size_t n = 0;
    for (size_t i = 0; i < 5; i++) {
        snprintf(bufs[i], sizeof bufs[i], "%s/%s", tap_fixtures(), rel[i]);
        if (access(bufs[i], R_OK) == 0)
            paths[n++] = bufs[i];
    }
    if (n == 0) {
        SKIP("fixture round trips and workers", "no fixture exports (GPUFLAME_FIXTURES)");
        return tap_done();
    }
    test_fixtures_round_trip(paths, n);
    test_workers(paths, n);
    test_digests(paths, n);
    return tap_done();
}
