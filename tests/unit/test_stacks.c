/* Unit tests for the collapse table (core/stacks.c) and SQLite per-name totals (core/sqlite_kernels.c). */
#include <sqlite3.h>
#include <stdint.h>

#include "csv.h"
#include "sqlite_kernels.h"
#include "stacks.h"
#include "tap.h"

static char tmpdir[512];

static char *to_string(gf_stacks *s, int which)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gf_err err;
    if (which == 0)
        gf_stacks_write_folded(s, f, 1, &err);
    else if (which == 1)
        gf_stacks_write_tree_json(s, f, &err);
    else
        gf_stacks_write_speedscope(s, f, "p", "none", &err);
    fclose(f);
    return buf;
}

static const char *write_tmp(const char *name, const char *data)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    fputs(data, f);
    fclose(f);
    return path;
}

static void test_basic(void)
{
    gf_stacks *s = gf_stacks_new();
    gf_err err;
    CHECK("add prefixed", gf_stacks_add_prefixed(s, "gpu;nsys;cuda_kernel", "k;1", 3, 10, &err) == 0);
    CHECK("add another", gf_stacks_add_prefixed(s, "gpu;nsys;cuda_kernel", "a b", 3, 5, &err) == 0);
    CHECK("aggregate identical", gf_stacks_add_prefixed(s, "gpu;nsys;cuda_kernel", "k;1", 3, 2, &err) == 0);
    CHECK("2 unique stacks", gf_stacks_count(s) == 2);
    CHECK("total", gf_stacks_total(s) == 17);
    CHECK("frames interned once", gf_stacks_nframes(s) == 5);
    CHECK("newline in a frame is a space", gf_stacks_intern(s, "x\ny", 3) == gf_stacks_intern(s, "x y", 3));
    gf_stacks_set_meta(s, "{\"a\":\n1}");
    char *f = to_string(s, 0);
    CHECK("folded text, first-seen order, ';' → ',' inside a frame, meta on one line",
          strcmp(f, "# {\"a\": 1}\ngpu;nsys;cuda_kernel;k,1 12\ngpu;nsys;cuda_kernel;a b 5\n") == 0);
    free(f);
    char *t = to_string(s, 1);
    CHECK("tree JSON: children sorted by name, pre-order, depth; names numbered by first use, an unused one left out",
          strcmp(t, "{\"total\":17,\"names\":[\"gpu\",\"nsys\",\"cuda_kernel\",\"a b\",\"k,1\"],"
                    "\"nodes\":[0,17,0,1,17,1,2,17,2,3,5,3,4,12,3]}") == 0);
    free(t);
    char *sp = to_string(s, 2);
    CHECK("speedscope samples and weights",
          strstr(sp, "\"samples\":[[0,1,2,3],[0,1,2,4]],\"weights\":[12,5]") != NULL &&
              strstr(sp, "\"endValue\":17") != NULL);
    free(sp);
    gf_stacks_free(s);
}

static void test_folded_read(void)
{
    gf_stacks *s = gf_stacks_new();
    gf_folded_stats st;
    gf_err err;
    const char *p = write_tmp("in.folded", "# {\"unit\":\"us\"}\n\na;b 1\r\nno-count\na;b 2\n# c\n;x 3\nc 4.6\n  \n");
    CHECK("read folded", gf_stacks_read_folded(s, p, &st, &err) == 0);
    CHECK("stacks aggregated", gf_stacks_count(s) == 3 && gf_stacks_total(s) == 11);
    CHECK("bad line counted with its number", st.bad == 1 && st.first_bad == 4);
    CHECK("metadata kept", gf_stacks_meta(s) && strcmp(gf_stacks_meta(s), "{\"unit\":\"us\"}") == 0);
    char *f = to_string(s, 0);
    CHECK("round trip", strcmp(f, "# {\"unit\":\"us\"}\na;b 3\n;x 3\nc 5\n") == 0);
    free(f);
    gf_stacks_free(s);
    s = gf_stacks_new();
    CHECK("missing file is bad input", gf_stacks_read_folded(s, "/nonexistent", &st, &err) == -1 && err.code == GF_EXIT_INPUT);
    gf_stacks_free(s);
}

static void test_summary_csv(void)
{
    const char *p = write_tmp("k.csv", "Time (%),Total Time (ns),Instances,Name\n"
                                       "50,28918591,5,\"burn(float *, int, int)\"\n"
                                       "10,999,1,tiny\n"
                                       "1,bad,1,unparsed\n"
                                       "1,5000,1,\"  \"\n");
    gf_csv *c;
    gf_err err;
    CHECK("open CSV", gf_csv_open(&c, p, NULL, &err) == 0);
    gf_stacks *s = gf_stacks_new();
    gf_summary_stats st;
    CHECK("summary → stacks", gf_stacks_from_summary_csv(s, c, 3, 1, "gpu;nsys;cuda_kernel", 1000, &st, &err) == 0);
    char *f = to_string(s, 0);
    CHECK("reference lines: max(1, ns // 1000), unparsed → 1, blank name skipped",
          strcmp(f, "gpu;nsys;cuda_kernel;burn(float *, int, int) 28918\ngpu;nsys;cuda_kernel;tiny 1\n"
                    "gpu;nsys;cuda_kernel;unparsed 1\n") == 0);
    CHECK("stats", st.rows == 4 && st.used == 3 && st.skipped_empty == 1 && st.unparsed_weight == 1);
    free(f);
    gf_stacks_free(s);
    gf_csv_close(c);
}

static void test_sqlite(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/t.sqlite", tmpdir);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db,
                 "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                 "INSERT INTO StringIds VALUES (1,'gemm'),(2,'relu'),(3,'cudaLaunchKernel_v7000'),(4,'cuMemAlloc_v2'),"
                 "(5,'cudaLaunchKernel');"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, demangledName INTEGER, shortName INTEGER);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0,100,1,1),(200,250,2,2),(300,1300,1,1),(5,6,99,99);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, nameId INTEGER);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0,10,3),(0,20,4),(0,5,5);",
                 NULL, NULL, NULL);
    sqlite3_close(db);
    gf_name_total *t;
    size_t n;
    char why[256];
    gf_err err;
    CHECK("kernel totals", gf_sqlite_totals(path, GF_SQL_KERNELS, &t, &n, why, sizeof why, &err) == 0 && n == 3);
    CHECK("sorted by total, summed by name", n == 3 && strcmp(t[0].name, "gemm") == 0 && t[0].total_ns == 1100 &&
                                                 t[0].count == 2 && strcmp(t[1].name, "relu") == 0 && t[1].total_ns == 50);
    CHECK("unknown string id named", n == 3 && strcmp(t[2].name, "[unknown name id 99]") == 0);
    gf_name_totals_free(t, n);
    CHECK("api totals", gf_sqlite_totals(path, GF_SQL_API, &t, &n, why, sizeof why, &err) == 0 && n == 2);
    CHECK("_vNNNN stripped and merged, _v2 kept",
          n == 2 && strcmp(t[0].name, "cuMemAlloc_v2") == 0 && t[0].total_ns == 20 &&
              strcmp(t[1].name, "cudaLaunchKernel") == 0 && t[1].total_ns == 15 && t[1].count == 2);
    gf_name_totals_free(t, n);

    snprintf(path, sizeof path, "%s/empty.sqlite", tmpdir);
    sqlite3_open(path, &db);
    sqlite3_exec(db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK("no kernel table: 0 rows and why", gf_sqlite_totals(path, GF_SQL_KERNELS, &t, &n, why, sizeof why, &err) == 0 &&
                                                n == 0 && strstr(why, "no CUPTI_ACTIVITY_KIND_KERNEL table"));
    gf_name_totals_free(t, n);
    const char *bad = write_tmp("bad.sqlite", "not a database");
    CHECK("not SQLite: bad input", gf_sqlite_totals(bad, GF_SQL_KERNELS, &t, &n, why, sizeof why, &err) == -1 &&
                                       err.code == GF_EXIT_INPUT && strstr(err.msg, "not an SQLite database"));
}

/* Frames PREFIX0 .. PREFIX(n-1) interned in s, their ids in f (the same ids in every table they are interned in
 * first). */
static void intern_frames(gf_stacks *s, const char *prefix, uint32_t *f, int n)
{
    char name[16];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s%d", prefix, i);
        f[i] = gf_stacks_intern(s, name, strlen(name));
    }
}

/* Stacks added with gf_stacks_reserve (before any, and in the middle), each by the hash its prefetch gave: the
 * same table, indices and outputs as added plainly. */
static void test_reserve(void)
{
    gf_stacks *a = gf_stacks_new(), *b = gf_stacks_new();
    gf_err err;
    uint32_t f[8];
    intern_frames(a, "f", f, 8);
    intern_frames(b, "f", f, 8);
    CHECK("stacks reserve on an empty table", gf_stacks_reserve(b, 10, 10) == 0);
    int bad = 0;
    for (int i = 0; i < 50000; i++) { /* 20,000 distinct stacks of 2-4 frames, most added more than once */
        int k = i % 20000;
        uint32_t ids[4] = {f[k % 8], f[(k / 8) % 8], f[(k / 64) % 8], f[(k / 512) % 8]};
        size_t depth = 2 + (size_t)(k / 4096) % 3, ia, ib;
        if (i == 5000 && gf_stacks_reserve(b, 40000, 160000) != 0)
            bad++;
        bad += gf_stacks_add_ids_at(a, ids, depth, i, &ia, &err) != 0; /* b: with the prefetch's hash */
        bad += gf_stacks_add_hashed(b, ids, depth, gf_stacks_prefetch(b, ids, depth), i, &ib, &err) != 0;
        bad += ia != ib;
    }
    CHECK("stacks reserve: the same index for every add", bad == 0);
    CHECK("stacks reserve: the same count and total", gf_stacks_count(a) == gf_stacks_count(b) &&
                                                          gf_stacks_total(a) == gf_stacks_total(b) &&
                                                          gf_stacks_count(a) > 1000);
    char *x = to_string(a, 0), *y = to_string(b, 0);
    CHECK("stacks reserve: the same folded output", x && y && strcmp(x, y) == 0);
    free(x);
    free(y);
    gf_stacks_free(a);
    gf_stacks_free(b);
}

/* A fold of more stacks than one thread sorts alone (stacks_fold.c SORT_SPLIT_MIN): with two threads (halves
 * sorted apart, then merged) the same folded table and statistics as with one; stacks of 1-4 frames, many of
 * them prefixes of others, added in a scrambled order. */
static void test_fold_split(void)
{
    gf_stacks *s = gf_stacks_new(), *one = gf_stacks_new(), *two = gf_stacks_new();
    gf_err err;
    uint32_t f[64];
    intern_frames(s, "g", f, 64);
    int bad = 0;
    uint64_t x = 12345;
    for (int i = 0; i < 150000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t k = (uint32_t)(x >> 33);
        uint32_t ids[4] = {f[k % 64], f[(k / 64) % 64], f[(k / 4096) % 64], f[(k / 262144) % 64]};
        bad += gf_stacks_add_ids(s, ids, 1 + (k >> 24) % 4, 1 + (int64_t)(k % 1000), &err) != 0;
    }
    CHECK("fold split: more stacks than one thread sorts", bad == 0 && gf_stacks_count(s) > 70000);
    gf_fold_stats a, b;
    int64_t min = gf_stacks_total(s) / 2000;
    CHECK("fold split: folded on one thread", gf_stacks_fold(s, min, "[folded]", 1, one, &a, &err) == 0);
    CHECK("fold split: folded with two", gf_stacks_fold(s, min, "[folded]", 2, two, &b, &err) == 0);
    char *p = to_string(one, 0), *q = to_string(two, 0);
    CHECK("fold split: the same folded table", p && q && strcmp(p, q) == 0 && gf_stacks_count(one) > 1);
    CHECK("fold split: the same statistics and total", a.nodes == b.nodes && a.weight == b.weight && a.nodes > 0 &&
                                                           gf_stacks_total(two) == gf_stacks_total(s));
    free(p);
    free(q);
    gf_stacks_free(s);
    gf_stacks_free(one);
    gf_stacks_free(two);
}

int main(void)
{
    const char *t = getenv("GF_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s", t && *t ? t : "/tmp");
    test_basic();
    test_folded_read();
    test_summary_csv();
    test_sqlite();
    test_reserve();
    test_fold_split();
    return tap_done();
}
