/* Unit tests for differential stacks (core/stacks_diff.c), the two-column folded reader (core/stacks.c),
 * SHA-256 (core/sha256.c) and capture metadata (core/sqlite_meta.c). */
#include <sqlite3.h>
#include <stdint.h>

#include "sha256.h"
#include "sqlite_meta.h"
#include "stacks_diff.h"
#include "stacks.h"
#include "tap.h"

static char tmpdir[512];

static const char *write_tmp(const char *name, const char *data)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    fputs(data, f);
    fclose(f);
    return path;
}

static char *tree(gf_stackdiff *d, double mf, gf_difftree_stats *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gf_err err;
    gf_stackdiff_write_tree_json(d, f, mf, st, &err);
    fclose(f);
    return buf;
}

static char *folded(gf_stackdiff *d, const char *meta)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gf_err err;
    gf_stackdiff_write_folded(d, f, meta, &err);
    fclose(f);
    return buf;
}

static int leaf_count;
static int64_t leaf_b, leaf_a;
static int on_leaf(void *ud, const char *name, size_t len, int64_t b, int64_t a)
{
    (void)ud;
    leaf_count++;
    if (len == 3 && memcmp(name, "k<>", 3) == 0) {
        leaf_b = b;
        leaf_a = a;
    }
    return 0;
}

static void test_union(void)
{
    gf_stacks *b = gf_stacks_new(), *a = gf_stacks_new();
    gf_err err;
    gf_stacks_add_prefixed(b, "gpu;k", "same", 4, 10, &err);
    gf_stacks_add_prefixed(b, "gpu;k", "gone", 4, 5, &err);
    gf_stacks_add_prefixed(b, "gpu;k", "k<1>", 4, 3, &err);
    gf_stacks_add_prefixed(a, "gpu;k", "same", 4, 20, &err);
    gf_stacks_add_prefixed(a, "gpu;k", "fresh", 5, 7, &err);
    gf_stacks_add_prefixed(a, "gpu;k", "k<2>", 4, 4, &err);
    gf_stackdiff *d = gf_stackdiff_new();
    /* leaf remap: k<1> and k<2> both become k<> */
    const char *rb[16] = {0}, *ra[16] = {0};
    rb[gf_stacks_intern(b, "k<1>", 4)] = "k<>";
    ra[gf_stacks_intern(a, "k<2>", 4)] = "k<>";
    CHECK("add BEFORE (x1000 scale)", gf_stackdiff_add(d, 0, b, rb, 1000, &err) == 0);
    CHECK("add AFTER", gf_stackdiff_add(d, 1, a, ra, 1000, &err) == 0);
    CHECK("totals scaled", gf_stackdiff_total(d, 0) == 18000 && gf_stackdiff_total(d, 1) == 31000);
    CHECK("union of stacks, remapped leaves merged", gf_stackdiff_count(d) == 4);
    char *f = folded(d, "{\"format\":\"difffolded\"}");
    CHECK("two-column folded, first-seen order", strcmp(f, "# {\"format\":\"difffolded\"}\n"
                                                         "gpu;k;same 10000 20000\ngpu;k;gone 5000 0\n"
                                                         "gpu;k;k<> 3000 4000\ngpu;k;fresh 0 7000\n") == 0);
    free(f);
    gf_difftree_stats st;
    char *t = tree(d, 0, &st);
    CHECK("tree JSON: both values per node, children by name, script-safe names",
          strcmp(t, "{\"total\":[18000,31000],\"names\":[\"gpu\",\"k\",\"fresh\",\"gone\",\"k\\u003c\\u003e\",\"same\"],"
                    "\"nodes\":[0,18000,31000,0,1,18000,31000,1,2,0,7000,2,3,5000,0,2,4,3000,4000,2,5,10000,20000,2],"
                    "\"folded\":0}") == 0);
    CHECK("tree stats", st.nodes == 6 && st.folded == 0);
    free(t);
    /* fold: 'fresh' is 7000/31000 = 22.6% of AFTER, 'k<>' 16.7% / 12.9%, 'gone' 27.8% of BEFORE */
    t = tree(d, 0.2, &st);
    CHECK("min_fraction leaves out subtrees small on both sides (k<>), keeps one-sided big ones",
          strstr(t, "\"k\\u003c\\u003e\"") == NULL && strstr(t, "\"fresh\"") && strstr(t, "\"gone\"") && st.folded == 1 &&
              strstr(t, "\"folded\":1}"));
    free(t);
    leaf_count = 0;
    gf_stackdiff_leaves(d, on_leaf, NULL, &err);
    CHECK("leaves: one per distinct leaf, remapped sums", leaf_count == 4 && leaf_b == 3000 && leaf_a == 4000);
    gf_stacks *big = gf_stacks_new();
    gf_stacks_add_prefixed(big, NULL, "x", 1, INT64_MAX / 2, &err);
    CHECK("weight x scale overflow is bad input", gf_stackdiff_add(d, 0, big, NULL, 4, &err) == -1 &&
                                                      err.code == GF_EXIT_INPUT);
    gf_stacks_free(big);
    gf_stackdiff_free(d);
    gf_stacks_free(b);
    gf_stacks_free(a);
}

static void test_read_two_columns(void)
{
    gf_stacks *b = gf_stacks_new(), *a = gf_stacks_new();
    gf_folded_stats st;
    gf_err err;
    const char *p = write_tmp("d.folded", "# {\"format\":\"difffolded\"}\na;b 1 2\na;c 3 0  \nonly 5\na;b 1 1\nx y 4 5\n");
    CHECK("read two columns", gf_stacks_read_folded2(b, a, p, &st, &err) == 0);
    CHECK("a line with one count is malformed", st.bad == 1 && st.first_bad == 4);
    CHECK("BEFORE column", gf_stacks_total(b) == 9 && gf_stacks_count(b) == 3);
    CHECK("AFTER column (zero kept as a stack)", gf_stacks_total(a) == 8 && gf_stacks_count(a) == 3);
    size_t depth;
    int64_t w;
    const uint32_t *ids = gf_stacks_get(a, 2, &depth, &w);
    size_t len;
    const char *leaf = gf_stacks_frame(a, ids[depth - 1], &len);
    CHECK("frame with a space before the counts", depth == 1 && len == 3 && memcmp(leaf, "x y", 3) == 0 && w == 5);
    gf_stacks_free(b);
    gf_stacks_free(a);
    b = gf_stacks_new();
    p = write_tmp("t.folded", "a;b 10  \n");
    CHECK("single column: trailing blanks after the count", gf_stacks_read_folded(b, p, &st, &err) == 0 &&
                                                                  st.bad == 0 && gf_stacks_total(b) == 10);
    gf_stacks_free(b);
}

static void test_sha256(void)
{
    char hex[65];
    gf_sha256_hex("", 0, hex);
    CHECK("sha256('')", strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    gf_sha256_hex("abc", 3, hex);
    CHECK("sha256('abc')", strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gf_sha256_hex(m, strlen(m), hex);
    CHECK("sha256(448 bits)", strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    static char million[1000000];
    memset(million, 'a', sizeof million);
    gf_sha256_hex(million, sizeof million, hex);
    CHECK("sha256(1M 'a')", strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
}

static void test_meta(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/m.sqlite", tmpdir);
    remove(path);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db,
                 "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
                 "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION','2025.1.3'),('EXPORT_HOST','h');"
                 "CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);"
                 "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:COMMAND','./app'),('PROCESS_0:ENVIRONMENT_VARIABLE','SECRET=1'),"
                 "('PROCESS_0:ARGUMENT_0','--x');"
                 "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
                 "INSERT INTO TARGET_INFO_GPU VALUES (1,'GPU B'),(0,'GPU A');"
                 "CREATE TABLE TARGET_INFO_SYSTEM_ENV (name TEXT, value TEXT);"
                 "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES ('TargetInstallDir','/home/u20/cuda-12.2/nsight-systems-2022.1.3/2023.4.1/target-linux-x64'),"
                 "('NvDriverVersion','535.1');"
                 "CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER, duration INTEGER, startTime INTEGER, stopTime INTEGER);"
                 "INSERT INTO ANALYSIS_DETAILS VALUES (1, 12345, 0, 12345);",
                 NULL, NULL, NULL);
    sqlite3_close(db);
    gf_capture_meta m;
    gf_err err;
    CHECK("read metadata", gf_sqlite_capture_meta(path, NULL, 0, &m, &err) == 0);
    CHECK("nsys version", strcmp(m.nsys_version, "2025.1.3") == 0);
    CHECK("recorded version: the last 20YY.N[.N] in TargetInstallDir", strcmp(m.recorded_version, "2023.4.1") == 0);
    CHECK("driver", strcmp(m.driver, "535.1") == 0);
    CHECK("GPUs in id order", m.ngpus == 2 && strcmp(m.gpus, "GPU A\nGPU B") == 0);
    char hex[65];
    gf_sha256_hex("./app\0--x\0", 10, hex);
    CHECK("command hash: COMMAND and ARGUMENT values, NUL-terminated, environment excluded",
          strcmp(m.command_hash, hex) == 0);
    gf_sha256_hex("h", 1, hex);
    CHECK("host hash from EXPORT_HOST", strcmp(m.host_hash, hex) == 0);
    CHECK("duration", m.duration_ns == 12345 && m.kernels == 0 && m.callchains == 0);
    gf_capture_meta_free(&m);
    const char *txt = write_tmp("not.sqlite", "hello");
    CHECK("not SQLite: bad input", gf_sqlite_capture_meta(txt, NULL, 0, &m, &err) == -1 && err.code == GF_EXIT_INPUT);
    gf_capture_meta_free(&m);
}

int main(void)
{
    const char *t = getenv("GF_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s", t && *t ? t : "/tmp");
    test_union();
    test_read_two_columns();
    test_sha256();
    test_meta();
    return tap_done();
}
