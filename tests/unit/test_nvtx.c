/* NVTX analysis primitives: Python-compatible floats and strings, the duration summary, the version
 * regex, the report parser on the real roboflow fixtures (docs/spec/NVTX_ANALYSIS.md §13 "check the CSV
 * parser directly"), and the YAML typing of manifests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtx.h"
#include "pyjson.h"
#include "tap.h"
#include "yamltree.h"

static int repr_is(double v, const char *want)
{
    char b[64];
    gf_py_float_repr(v, b, sizeof b);
    if (strcmp(b, want) != 0)
        printf("# repr(%.17g) = %s, want %s\n", v, b, want);
    return strcmp(b, want) == 0;
}

static void floats(void)
{
    CHECK("repr 336423.0", repr_is(336423.0, "336423.0"));
    CHECK("repr 0.0 and -0.0", repr_is(0.0, "0.0") && repr_is(-0.0, "-0.0"));
    CHECK("repr 23704.5", repr_is(23704.5, "23704.5"));
    CHECK("repr 93915.66159414875", repr_is(93915.66159414875, "93915.66159414875"));
    CHECK("repr 0.1 (shortest)", repr_is(0.1, "0.1"));
    CHECK("repr 1e16 exponent form", repr_is(1e16, "1e+16"));
    CHECK("repr 9999999999999998.0 fixed below 1e16", repr_is(9999999999999998.0, "9999999999999998.0"));
    CHECK("repr 1e15 fixed (where %g would switch)", repr_is(1e15, "1000000000000000.0"));
    CHECK("repr 123456789012345.6 fixed", repr_is(123456789012345.6, "123456789012345.6"));
    CHECK("repr 1e-05 and 1.5e-07", repr_is(1e-05, "1e-05") && repr_is(1.5e-07, "1.5e-07"));
    CHECK("repr 0.0001 fixed", repr_is(0.0001, "0.0001"));
    CHECK("repr 1.7976931348623157e+308", repr_is(1.7976931348623157e308, "1.7976931348623157e+308"));
    CHECK("repr 5e-324 (subnormal, shortest)", repr_is(5e-324, "5e-324"));
    CHECK("repr -2.5", repr_is(-2.5, "-2.5"));
    char b[32];
    gf_pyjson_float_text(INFINITY, b, sizeof b);
    CHECK("json Infinity like Python", !strcmp(b, "Infinity"));
}

static void summaries(void)
{
    int64_t mult[] = {210176, 23985, 22943, 20188};
    gf_nvtx_summary s;
    gf_nvtx_summarize(mult, 4, &s);
    CHECK("smoke multiply total 277292", s.total == 277292);
    CHECK("smoke multiply mean 69323.0", s.mean == 69323.0);
    CHECK("smoke multiply median 23464.0 (even n: float)", !s.median_is_int && s.median_f == 23464.0);
    CHECK("smoke multiply min/max", s.min == 20188 && s.max == 210176);
    CHECK("smoke multiply stddev 93915.66159414875 exactly", s.stddev == 93915.66159414875);
    int64_t it[] = {431993, 138050};
    gf_nvtx_summarize(it, 2, &s);
    CHECK("iteration host inclusive stddev 207849.08858231734", s.stddev == 207849.08858231734);
    int64_t gp[] = {191620, 99714};
    gf_nvtx_summarize(gp, 2, &s);
    CHECK("GPU projected stddev 64987.355831730834", s.stddev == 64987.355831730834);
    int64_t one[] = {336423};
    gf_nvtx_summarize(one, 1, &s);
    CHECK("n = 1: median int, stddev 0.0", s.median_is_int && s.median_i == 336423 && s.stddev == 0.0);
    int64_t odd[] = {5, -3, 9};
    gf_nvtx_summarize(odd, 3, &s);
    CHECK("odd n: median is the middle value (int), negatives sort", s.median_is_int && s.median_i == 5 && s.min == -3);
    CHECK("exact division: 1/3 correctly rounded", gf_nvtx_div(1, 3) == 1.0 / 3.0);
    CHECK("exact division: big numerator", gf_nvtx_div((__int128)1 << 100, 3) == ldexp(1.0, 100) / 3.0);
    /* large values: radix sort path and 128-bit sums */
    enum { N = 5000 };
    int64_t *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++)
        v[i] = (int64_t)((i * 7919) % N) * 1000000007LL - 17;
    gf_nvtx_summarize(v, N, &s);
    int sorted = 1;
    for (int i = 1; i < N; i++)
        sorted &= v[i - 1] <= v[i];
    CHECK("radix sort sorts (5000 values)", sorted && s.min == -17 && s.max == (int64_t)(N - 1) * 1000000007LL - 17);
    free(v);
}

static void versions(void)
{
    int64_t y;
    int r1;
    CHECK("version 2025.1.3", gf_nvtx_version_family("NVIDIA Nsight Systems version 2025.1.3", &y, &r1) && y == 2025 && r1);
    CHECK("version 2026.2.0.123-abc", gf_nvtx_version_family("version 2026.2.0.123-abc", &y, &r1) && y == 2026 && !r1);
    CHECK("version 2025.10 is not release 1", gf_nvtx_version_family("2025.10.1", &y, &r1) && !r1);
    CHECK("version 2025.01 is release 1 (int)", gf_nvtx_version_family("v 2025.01", &y, &r1) && r1);
    CHECK("no version in 'unknown'", !gf_nvtx_version_family("unknown", &y, &r1));
    CHECK("no word boundary before 5 digits", !gf_nvtx_version_family("12025.1", &y, &r1));
    CHECK("no word boundary after the release", !gf_nvtx_version_family("2025.1a", &y, &r1));
    CHECK("first match wins", gf_nvtx_version_family("x2025.1 then 2024.2", &y, &r1) && y == 2024 && !r1);
}

static void strings(void)
{
    char *r = gf_py_str_repr("profile-target", 14);
    CHECK("repr('profile-target')", !strcmp(r, "'profile-target'"));
    free(r);
    r = gf_py_str_repr("it's", 4);
    CHECK("repr with a single quote uses double quotes", !strcmp(r, "\"it's\""));
    free(r);
    r = gf_py_str_repr("a'\"b\n", 5);
    CHECK("repr with both quotes escapes the single quote", !strcmp(r, "'a\\'\"b\\n'"));
    free(r);
    gf_jout j;
    gf_jout_init_python(&j);
    gf_jout_begin_object(&j);
    gf_jout_key(&j, "a");
    gf_jout_begin_array(&j);
    gf_jout_end_array(&j);
    gf_jout_key(&j, "b");
    gf_jout_begin_object(&j);
    gf_jout_end_object(&j);
    gf_jout_key(&j, "c");
    gf_jout_string(&j, "\x01/\\\"\xc3\xa9\xf0\x9f\x9a\x80", 10);
    gf_jout_end_object(&j);
    size_t n;
    char *t = gf_jout_finish(&j, &n);
    CHECK("json layout and ASCII escapes", !strcmp(t, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": \"\\u0001/\\\\\\\"\\u00e9\\ud83d\\ude80\"\n}\n"));
    free(t);
}

static void parser(void)
{
    char host[1024], gpu[1024];
    snprintf(host, sizeof host, "%s/real/roboflow-inference/nvtx_pushpop_trace.csv", tap_fixtures());
    snprintf(gpu, sizeof gpu, "%s/real/roboflow-inference/nvtx_gpu_proj_trace.csv", tap_fixtures());
    if (access(host, R_OK) != 0) {
        SKIP("parser on the roboflow fixtures", "fixtures absent");
        return;
    }
    gf_nvtx *nv = gf_nvtx_new();
    gf_err err;
    CHECK("host report parses", gf_nvtx_read_host(nv, host, &err) == 0);
    CHECK("host report: 11 rows", gf_nvtx_host_count(nv) == 11);
    const gf_nvtx_host_row *h = gf_nvtx_host_rows(nv);
    size_t len;
    CHECK("row 1: ':profile-target' → 'profile-target', null parent",
          h[0].colon && !strcmp(gf_nvtx_string(nv, h[0].name, &len), "profile-target") && !h[0].has_parent);
    CHECK("iteration 1: level 1, parent 1, 4 children",
          !strcmp(gf_nvtx_string(nv, h[6].name, &len), "iteration 1") && h[6].lvl == 1 && h[6].has_parent &&
              h[6].parent == 1 && h[6].nchild == 4 && h[6].rid == 7);
    CHECK("GPU report parses", gf_nvtx_read_gpu(nv, gpu, &err) == 0);
    const gf_nvtx_gpu_row *g = gf_nvtx_gpu_rows(nv);
    CHECK("GPU report: 11 rows, RangeId 7 is iteration 1",
          gf_nvtx_gpu_count(nv) == 11 && g[6].rid == 7 && !strcmp(gf_nvtx_string(nv, g[6].name, &len), "iteration 1"));
    CHECK("GPU row 1: 8 GPU ops, style PushPop",
          g[0].ngpu == 8 && !strcmp(gf_nvtx_string(nv, g[0].style, &len), "PushPop"));

    const char *tmp = getenv("GF_TMP") ? getenv("GF_TMP") : "/tmp";
    char p[1024];
    snprintf(p, sizeof p, "%s/empty.csv", tmp);
    FILE *f = fopen(p, "w");
    fclose(f);
    CHECK("empty GPU report → no rows, no error", gf_nvtx_read_gpu(nv, p, &err) == 0 && gf_nvtx_gpu_count(nv) == 0);
    CHECK("empty host report → error", gf_nvtx_read_host(nv, p, &err) != 0 && strstr(err.msg, "contains no rows") &&
                                           err.code == GF_EXIT_NO_DATA);
    f = fopen(p, "w");
    fputs("Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),Style,PID,TID,"
          "NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n", f);
    fclose(f);
    CHECK("header-only GPU report → []", gf_nvtx_read_gpu(nv, p, &err) == 0 && gf_nvtx_gpu_count(nv) == 0);
    f = fopen(p, "w");
    fputs("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,"
          "ParentId\n", f);
    fclose(f);
    CHECK("header-only host report → error", gf_nvtx_read_host(nv, p, &err) != 0 && strstr(err.msg, "contains no rows"));
    CHECK("missing columns: GPU report read as host fails",
          gf_nvtx_read_host(nv, gpu, &err) != 0 && strstr(err.msg, "is missing required columns: Start (ns), End (ns), "
                                                                 "Duration (ns), DurChild (ns), DurNonChild (ns)"));
    CHECK("missing columns: host report read as GPU fails",
          gf_nvtx_read_gpu(nv, host, &err) != 0 && strstr(err.msg, "is missing required columns: Projected Start (ns)"));
    f = fopen(p, "w");
    fputs("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,"
          "ParentId\r\n-5,\" 7 \",1_000,0,+3,\":a,\"\"b\"\"\",1,2,0,0,9,\r\n", f);
    fclose(f);
    CHECK("CRLF, quoted names, Python int() forms (' 7 ', 1_000, +3, -5)",
          gf_nvtx_read_host(nv, p, &err) == 0 && gf_nvtx_host_count(nv) == 1 && gf_nvtx_host_rows(nv)[0].start == -5 &&
              gf_nvtx_host_rows(nv)[0].end == 7 && gf_nvtx_host_rows(nv)[0].dur == 1000 &&
              !strcmp(gf_nvtx_string(nv, gf_nvtx_host_rows(nv)[0].name, &len), "a,\"b\""));
    /* names are grouped by: they are never cut (the timeline's strtab cuts names at 8 MiB) */
    f = fopen(p, "w");
    fputs("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,"
          "ParentId\n0,1,1,0,1,:", f);
    for (int i = 0; i < 9 << 20; i++)
        fputc('n', f);
    fputs(",1,2,0,0,9,\n", f);
    fclose(f);
    CHECK("a 9 MiB range name stays whole",
          gf_nvtx_read_host(nv, p, &err) == 0 && gf_nvtx_string(nv, gf_nvtx_host_rows(nv)[0].name, &len) &&
              len == (size_t)9 << 20);
    gf_nvtx_free(nv);
}

static void yaml(void)
{
    const char *doc = "a: yes\nb: 010\nc: 09\nd: 1e5\ne: 1.0e+5\nf: .inf\ng: 'x'\nh: 0x1F\ni: 1:30\nj: ~\n"
                      "k: 123456789012345678901234567890\nl: [1, &x {m: 1}, *x]\nn: {<<: *x, o: 2}\n";
    int st;
    gf_err err;
    gf_yv *v = gf_yaml_load_string(doc, strlen(doc), "t", &st, &err);
    CHECK("YAML parses", v && v->kind == GF_YV_MAP);
    if (!v)
        return;
    CHECK("yes → true", gf_yv_get(v, "a")->kind == GF_YV_BOOL && gf_yv_get(v, "a")->b);
    CHECK("010 → 8 (YAML 1.1 octal)", gf_yv_get(v, "b")->i == 8);
    CHECK("09 → string", gf_yv_get(v, "c")->kind == GF_YV_STR);
    CHECK("1e5 → string (needs a dot), 1.0e+5 → float", gf_yv_get(v, "d")->kind == GF_YV_STR &&
                                                            gf_yv_get(v, "e")->kind == GF_YV_FLOAT);
    CHECK(".inf, 'x', 0x1F, 1:30, ~", isinf(gf_yv_get(v, "f")->f) && gf_yv_get(v, "g")->kind == GF_YV_STR &&
                                         gf_yv_get(v, "h")->i == 31 && gf_yv_get(v, "i")->i == 90 &&
                                         gf_yv_get(v, "j")->kind == GF_YV_NULL);
    CHECK("big int kept as digits", gf_yv_get(v, "k")->kind == GF_YV_BIGINT);
    CHECK("alias and merge", gf_yv_get(v, "l")->n == 3 && gf_yv_get(gf_yv_get(v, "n"), "m")->i == 1);
    gf_yv_free(v);
    v = gf_yaml_load_string("a: 1\n---\nb: 2\n", 14, "t", &st, &err);
    CHECK("two documents → invalid", !v && st == GF_YAML_INVALID);
    v = gf_yaml_load_string("a: [1\n", 6, "t", &st, &err);
    CHECK("syntax error → invalid, position named", !v && st == GF_YAML_INVALID && strstr(err.msg, "t:"));
}

int main(void)
{
    floats();
    summaries();
    versions();
    strings();
    parser();
    yaml();
    return tap_done();
}
