/* Findings primitives: gf_like against SQLite's own LIKE, gaps/busy/low-util on a hand-built trace
 * (overlapping work is busy once, never above the span), the gaps on the rules job's thread, the time
 * filter, details kept with their events when a trace keeps every event. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_findings.h"
#include "trace_findings_nsys.h"
#include "trace_findings_own.h"
#include "trace_rules_job.h"
#include "tap.h"
#include "trace.h"
#include "trace_build.h"

static int32_t lane_of(gf_trace *t, int64_t dev, int64_t stream)
{
    gf_err err;
    char name[32];
    snprintf(name, sizeof name, "GPU (%lld)", (long long)dev);
    return gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, name), dev, stream, &err);
}

static void kernel(gf_trace *t, int32_t pid, int64_t dev, int64_t stream, int64_t start, int64_t dur, int32_t ctx)
{
    gf_err err;
    gf_event e = {start, dur, -1, lane_of(t, dev, stream), gf_strtab_intern_cstr(t->str, "k"), -1, pid,
                  GF_EV_KERNEL, 0};
    gf_detail d;
    gf_detail_clear(&d);
    d.context = ctx;
    d.regs = (int32_t)(start % 1000); /* identifies the event in the details check */
    gf_trace_add(t, &e, &d, &err);
}

int main(void)
{
    /* LIKE: the same answers as SQLite's (ASCII case folding, % and _, _ is one UTF-8 character) */
    static const char *const pats[] = {"cudaMemcpy%", "%Async%", "%async%", "cudaMemcpy%Async%", "cuda_emcpy%",
                                       "%", "", "a_c", "%nccl%", "_", "%%x%%", "a%b%c", "ä_", "CUDA%SYNC%"};
    static const char *const strs[] = {"cudaMemcpy_v3020", "cudaMemcpyAsync_v3020", "cudaMemcpy2DAsync_v3020",
                                       "CUDAMEMCPYASYNC", "cudaMemset_v3020", "", "abc", "aXc", "ac",
                                       "ncclDevKernel_AllReduce", "xNCCLx", "é", "äb", "axbyc", "abcabc",
                                       "cudaStreamSynchronize_v3020"};
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "SELECT ?1 LIKE ?2", -1, &st, NULL);
    int agree = 1, n = 0;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        for (size_t j = 0; j < sizeof strs / sizeof strs[0]; j++) {
            sqlite3_bind_text(st, 1, strs[j], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, pats[i], -1, SQLITE_STATIC);
            sqlite3_step(st);
            int want = sqlite3_column_int(st, 0);
            sqlite3_reset(st);
            n++;
            if (want != gf_like(pats[i], strs[j])) {
                printf("# LIKE disagrees: '%s' LIKE '%s': sqlite %d\n", strs[j], pats[i], want);
                agree = 0;
            }
        }
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK("gf_like agrees with SQLite's LIKE on 224 pattern/string pairs", agree && n == 224);

    /* a trace that keeps every event: pid 1 on device 0 with overlapping streams, pid 2 on device 1 */
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_trace_begin(t, 0, 0, &err);
    kernel(t, 1, 0, 7, 1000, 100, 5);  /* [1000, 1100) */
    kernel(t, 1, 0, 8, 1050, 100, 5);  /* [1050, 1150) overlaps */
    kernel(t, 1, 0, 7, 2000, 500, 5);  /* gap 850 before it */
    kernel(t, 1, 0, 7, 2600, 400, 6);  /* gap 100 */
    kernel(t, 2, 1, 9, 10000, 10, 3);
    kernel(t, 2, 1, 9, 30000, 10, 3);  /* gap 19990 */
    CHECK("finish", gf_trace_finish(t, &err) == 0);
    int details_ok = 1;
    for (size_t i = 0; i < t->n; i++)
        details_ok &= t->detail[i] >= 0 && t->details[t->detail[i]].regs == (int32_t)(t->start[i] % 1000);
    CHECK("details stay with their events after the sort by start (equal ones stored once)", details_ok && t->ndetails < 6);

    gf_gap_row *g;
    size_t ng;
    CHECK("gaps", gf_find_gaps(t, NULL, 99, -1, &g, &ng, &err) == 0);
    CHECK("gaps: longest first, per (process, device), gap > threshold only",
          ng == 3 && g[0].dur == 19990 && g[0].pid == 2 && g[0].device == 1 && g[0].context == 3 &&
              g[1].dur == 850 && g[1].start == 1150 && g[1].context == 5 && g[2].dur == 100 && g[2].start == 2500);
    free(g);
    CHECK("gaps: limit", gf_find_gaps(t, NULL, 0, 1, &g, &ng, &err) == 0 && ng == 1 && g[0].dur == 19990);
    free(g);

    /* the same gaps on the rules job's thread (trace_rules_job.h), in a window too; each result taken once */
    gf_rules_job *j = gf_rules_job_new(t);
    gf_fwin jw;
    gf_fwin_init(&jw);
    jw.filtered = 1;
    jw.start = 1900;
    jw.end = 40000;
    int gi = gf_rules_job_add_gaps(j, NULL, 99, -1), wi = gf_rules_job_add_gaps(j, &jw, 0, -1);
    int li = gf_rules_job_add_launches(j, NULL, 1);
    gf_rules_job_start(j);
    CHECK("rules job: the gaps", gi == 0 && gf_rules_job_take_gaps(j, gi, &g, &ng, &err) == 0 && ng == 3 &&
                                     g[0].dur == 19990 && g[1].dur == 850 && g[2].dur == 100);
    free(g);
    gf_gap_row *g2;
    size_t ng2;
    CHECK("rules job: the gaps in a window equal gf_find_gaps's",
          gf_rules_job_take_gaps(j, wi, &g, &ng, &err) == 0 && gf_find_gaps(t, &jw, 0, -1, &g2, &ng2, &err) == 0 &&
              ng == ng2 && ng > 0 && memcmp(g, g2, ng * sizeof *g) == 0);
    free(g);
    free(g2);
    CHECK("rules job: a result is taken once", gf_rules_job_take_gaps(j, gi, &g, &ng, &err) != 0 &&
                                                    strstr(err.msg, "no such result") != NULL);
    CHECK("rules job: a result of another kind is refused", gf_rules_job_take_gaps(j, li, &g, &ng, &err) != 0);
    CHECK("rules job: no such index", gf_rules_job_take_gaps(j, 7, &g, &ng, &err) != 0);
    gf_rules_job_free(j); /* the launches never taken: freed with the job */

    gf_busy_row *b;
    size_t nb;
    int64_t f, l;
    CHECK("busy", gf_find_busy(t, NULL, NULL, 0, &b, &nb, &f, &l, &err) == 0);
    CHECK("busy: overlapping work counts once, never above the span",
          nb == 2 && b[0].device == 0 && b[0].busy == 150 + 500 + 400 && b[0].first == 1000 && b[0].last == 3000 &&
              b[0].busy <= b[0].last - b[0].first && b[1].busy == 20 && f == 1000 && l == 30010);
    free(b);

    gf_fwin w;
    gf_fwin_init(&w);
    w.filtered = 1;
    w.start = 2100;
    w.end = 2700;
    CHECK("busy in a window: clipped to it", gf_find_busy(t, &w, NULL, 0, &b, &nb, &f, &l, &err) == 0 && nb == 1 &&
                                                  b[0].busy == 400 + 100 && b[0].first == 2100 && b[0].last == 2700);
    free(b);
    CHECK("window: overlap test of nsysstats.py", gf_fwin_gpu(&w, 2000, 2100, 1) && !gf_fwin_gpu(&w, 2000, 2099, 1) &&
                                                      gf_fwin_gpu(&w, 2699, 9000, 1) && !gf_fwin_gpu(&w, 2700, 9000, 1) &&
                                                      gf_fwin_gpu(&w, 0, 9000, 1));
    w.pid = 2;
    CHECK("window: limited to the NVTX range's process", !gf_fwin_gpu(&w, 2000, 2500, 1) && gf_fwin_gpu(&w, 2000, 2500, 2));

    /* low-util, 2 chunks per (process, device): pid 1 / device 0 spans [1000, 3000): chunk 0 has 100 + 100
     * ns (the overlap counts twice: in-use time is summed) = 20 %, chunk 1 500 + 400 = 90 %; pid 2 /
     * device 1 spans [10000, 30010): 10 + 10 ns of 20010 */
    gf_util_row *u;
    size_t nu;
    CHECK("low util", gf_find_low_util(t, NULL, 2, 75, -1, &u, &nu, &err) == 0);
    CHECK("low util: per (process, device), lowest first",
          nu == 2 && u[0].pid == 2 && strcmp(u[0].avg_text, "0.1") == 0 && u[0].start == 10000 && u[0].dur == 20010 &&
              u[1].pid == 1 && strcmp(u[1].avg_text, "20.0") == 0 && u[1].start == 1000 && u[1].dur == 1000);
    free(u);
    CHECK("low util: consecutive low chunks coalesce with the weighted average",
          gf_find_low_util(t, NULL, 2, 95, -1, &u, &nu, &err) == 0 && nu == 2 && strcmp(u[1].avg_text, "55.0") == 0 &&
              u[1].start == 1000 && u[1].dur == 2000);
    free(u);
    gf_trace_free(t);
    return tap_done();
}
