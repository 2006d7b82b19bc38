/* Saving a finished trace model and loading it back (see trace_io.h). */
#include "trace_io.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

/* The magic carries the sizes of the structs written raw, so a file from another build is refused. */
#define MAGIC "GFTRACE2"

typedef struct sizes {
    uint32_t detail, lane, flame, overhead, graph_exec, kinds;
} sizes;

static const sizes this_build = {sizeof(gf_detail), sizeof(gf_lane), sizeof(gf_flame_entry),
                                 sizeof(gf_overhead), sizeof(gf_graph_exec), GF_EV_NKINDS};

typedef struct wr {
    FILE *f;
    int failed;
} wr;

static void put(wr *w, const void *p, size_t size, size_t n)
{
    if (!w->failed && n && fwrite(p, size, n, w->f) != n)
        w->failed = 1;
}

static void put_u64(wr *w, uint64_t v)
{
    put(w, &v, sizeof v, 1);
}

static void put_str(wr *w, const char *s)
{
    uint64_t len = s ? strlen(s) : UINT64_MAX;
    put_u64(w, len);
    if (s)
        put(w, s, 1, (size_t)len);
}

static void put_raw_names(wr *w, const gf_hmap *m)
{
    put_u64(w, m->n);
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key != GF_HMAP_EMPTY) {
            put_u64(w, m->slots[i].key);
            put(w, &m->slots[i].val, sizeof m->slots[i].val, 1);
        }
}

int gf_trace_save(const gf_trace *t, FILE *f, gf_err *err)
{
    if (!t->finished)
        return gf_errf(err, GF_EXIT_ERROR, "trace save: the model is not finished");
    wr w = {f, 0};
    put(&w, MAGIC, 1, 8);
    put(&w, &this_build, sizeof this_build, 1);
    size_t nstr = gf_strtab_count(t->str);
    put_u64(&w, nstr);
    for (size_t i = 0; i < nstr; i++) {
        size_t len;
        const char *s = gf_strtab_get(t->str, (int32_t)i, &len);
        put_u64(&w, len);
        put(&w, s, 1, len);
    }
    put_u64(&w, t->n);
    put(&w, t->start, sizeof *t->start, t->n);
    put(&w, t->dur, sizeof *t->dur, t->n);
    put(&w, t->corr, sizeof *t->corr, t->n);
    put(&w, t->lane, sizeof *t->lane, t->n);
    put(&w, t->name, sizeof *t->name, t->n);
    put(&w, t->stack, sizeof *t->stack, t->n);
    put(&w, t->pid, sizeof *t->pid, t->n);
    put(&w, t->detail, sizeof *t->detail, t->n);
    put(&w, t->kind, sizeof *t->kind, t->n);
    put(&w, t->seq, sizeof *t->seq, t->n);
    put_u64(&w, t->ndetails);
    put(&w, t->details, sizeof *t->details, t->ndetails);
    put_u64(&w, t->nlanes);
    put(&w, t->lanes, sizeof *t->lanes, t->nlanes);
    put_u64(&w, t->nframes);
    put(&w, t->frames, sizeof *t->frames, t->nframes);
    put_u64(&w, t->nstacks);
    put(&w, t->stack_off, sizeof *t->stack_off, t->nstacks + 1);
    put_u64(&w, t->nflame);
    put(&w, t->flame, sizeof *t->flame, t->nflame);
    put_u64(&w, t->total);
    put(&w, t->total_kind, sizeof t->total_kind[0], GF_EV_NKINDS);
    put_u64(&w, t->launches_with_stack);
    put_u64(&w, t->nwarnings);
    for (size_t i = 0; i < t->nwarnings; i++)
        put_str(&w, t->warnings[i]);
    put_str(&w, t->source);
    put_u64(&w, t->nranks);
    put(&w, t->rank_label, sizeof *t->rank_label, t->nranks);
    put_raw_names(&w, &t->raw_names);
    put_raw_names(&w, &t->raw_by_seq);
    put_u64(&w, t->noverhead);
    put(&w, t->overhead, sizeof *t->overhead, t->noverhead);
    put_u64(&w, t->ngraph_execs);
    put(&w, t->graph_execs, sizeof *t->graph_execs, t->ngraph_execs);
    put_u64(&w, t->tables);
    put_u64(&w, (uint64_t)t->any_pid);
    if (w.failed || fflush(f) != 0)
        return gf_errf(err, GF_EXIT_ERROR, "trace save: write failed (disk full?)");
    return 0;
}

/* ---- loading ---- */

typedef struct rd {
    FILE *f;
    int failed;
    uint64_t left; /* bytes the stream still holds: nothing larger is allocated or read */
} rd;

/* 1 when n elements of size bytes fit in what is left of the stream (the reader fails otherwise). */
static int fits(rd *r, size_t size, uint64_t n)
{
    if (r->failed || (size && n > r->left / size)) {
        r->failed = 1;
        return 0;
    }
    return 1;
}

static void get(rd *r, void *p, size_t size, size_t n)
{
    if (!n || !fits(r, size, n))
        return;
    if (fread(p, size, n, r->f) != n)
        r->failed = 1;
    else
        r->left -= (uint64_t)size * n;
}

static uint64_t get_u64(rd *r)
{
    uint64_t v = 0;
    get(r, &v, sizeof v, 1);
    return v;
}

/* A count read from the file: at most one element per byte left, so that a damaged file fails instead of
 * allocating terabytes. */
static size_t get_count(rd *r)
{
    uint64_t v = get_u64(r);
    return fits(r, 1, v) ? (size_t)v : 0;
}

/* Allocates n elements (at least one byte, so that an empty array is not NULL) and reads them. */
static void *get_arr(rd *r, size_t size, size_t n)
{
    if (!fits(r, size, n))
        return NULL;
    void *p = malloc(n ? size * n : 1);
    if (!p) {
        r->failed = 1;
        return NULL;
    }
    gf_mem_prefault(p, size * n);
    get(r, p, size, n);
    return p;
}

static char *get_str(rd *r)
{
    uint64_t len = get_u64(r);
    if (r->failed || len == UINT64_MAX)
        return NULL;
    if (len > ((uint64_t)1 << 32) || !fits(r, 1, len)) {
        r->failed = 1;
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (!s) {
        r->failed = 1;
        return NULL;
    }
    get(r, s, 1, (size_t)len);
    s[len] = 0;
    return s;
}

static void get_raw_names(rd *r, gf_hmap *m)
{
    size_t n = get_count(r);
    for (size_t i = 0; i < n && !r->failed; i++) {
        uint64_t k = get_u64(r);
        int64_t v = 0;
        get(r, &v, sizeof v, 1);
        int ins;
        if (!r->failed && !gf_hmap_put(m, k, v, &ins))
            r->failed = 1;
    }
}

static void get_strings(rd *r, gf_trace *t)
{
    size_t nstr = get_count(r);
    char *buf = NULL;
    size_t cap = 0;
    gf_strtab_set_max_len(t->str, UINT32_MAX); /* the saved strings were already cut by the importer */
    for (size_t i = 0; i < nstr && !r->failed; i++) {
        size_t len = (size_t)get_u64(r);
        if (len > UINT32_MAX || !fits(r, 1, len)) {
            r->failed = 1;
            break;
        }
        if (GF_GROW(buf, cap, len + 1, 64) != 0) {
            r->failed = 1;
            break;
        }
        get(r, buf, 1, len);
        /* ids are dense and in insertion order: interning in the saved order gives back the same ids */
        if (!r->failed && gf_strtab_intern(t->str, buf, len) != (int32_t)i)
            r->failed = 1;
    }
    free(buf);
}

static void get_events(rd *r, gf_trace *t)
{
    size_t n = get_count(r);
    t->start = get_arr(r, sizeof *t->start, n);
    t->dur = get_arr(r, sizeof *t->dur, n);
    t->corr = get_arr(r, sizeof *t->corr, n);
    t->lane = get_arr(r, sizeof *t->lane, n);
    t->name = get_arr(r, sizeof *t->name, n);
    t->stack = get_arr(r, sizeof *t->stack, n);
    t->pid = get_arr(r, sizeof *t->pid, n);
    t->detail = get_arr(r, sizeof *t->detail, n);
    t->kind = get_arr(r, sizeof *t->kind, n);
    t->seq = get_arr(r, sizeof *t->seq, n);
    t->n = n;
    t->ndetails = get_count(r);
    t->details = get_arr(r, sizeof *t->details, t->ndetails);
}

static void get_model(rd *r, gf_trace *t)
{
    t->nlanes = t->lanes_cap = get_count(r);
    t->lanes = get_arr(r, sizeof *t->lanes, t->nlanes);
    t->nframes = t->frames_cap = get_count(r);
    t->frames = get_arr(r, sizeof *t->frames, t->nframes);
    size_t nstacks = get_count(r);
    free(t->stack_off);
    t->stack_off = get_arr(r, sizeof *t->stack_off, nstacks + 1);
    t->nstacks = t->stacks_cap = nstacks;
    t->nflame = get_count(r);
    t->flame = get_arr(r, sizeof *t->flame, t->nflame);
    t->total = get_u64(r);
    get(r, t->total_kind, sizeof t->total_kind[0], GF_EV_NKINDS);
    t->launches_with_stack = get_u64(r);
    size_t nw = get_count(r);
    t->warnings = r->failed ? NULL : calloc(nw ? nw : 1, sizeof *t->warnings);
    if (!t->warnings)
        r->failed = 1;
    for (size_t i = 0; i < nw && t->warnings; i++) {
        t->warnings[i] = get_str(r);
        t->nwarnings = i + 1;
    }
    t->source = get_str(r);
    t->nranks = get_count(r);
    t->rank_label = t->nranks ? get_arr(r, sizeof *t->rank_label, t->nranks) : NULL;
    get_raw_names(r, &t->raw_names);
    get_raw_names(r, &t->raw_by_seq);
    t->noverhead = t->overhead_cap = get_count(r);
    t->overhead = get_arr(r, sizeof *t->overhead, t->noverhead);
    t->ngraph_execs = t->graph_execs_cap = get_count(r);
    t->graph_execs = get_arr(r, sizeof *t->graph_execs, t->ngraph_execs);
    t->tables = (uint32_t)get_u64(r);
    t->any_pid = (int)get_u64(r);
}

gf_trace *gf_trace_load(FILE *f, uint64_t max_bytes, gf_err *err)
{
    rd r = {f, 0, max_bytes};
    char magic[8];
    sizes sz;
    get(&r, magic, 1, 8);
    get(&r, &sz, sizeof sz, 1);
    if (r.failed || memcmp(magic, MAGIC, 8) != 0 || memcmp(&sz, &this_build, sizeof sz) != 0) {
        gf_errf(err, GF_EXIT_ERROR, "trace load: not a model saved by this build of gpuflame");
        return NULL;
    }
    gf_trace *t = gf_trace_new();
    if (!t) {
        gf_oom(err, "trace load");
        return NULL;
    }
    get_strings(&r, t);
    get_events(&r, t);
    get_model(&r, t);
    t->finished = 1;
    if (r.failed) {
        gf_trace_free(t);
        gf_errf(err, GF_EXIT_ERROR, "trace load: truncated or damaged model (or out of memory)");
        return NULL;
    }
    return t;
}
