/* core/stats.c: SQLite's round(), nsys's median()/stdev(), the API-name rule, the cell writer. */
#include <math.h>
#include <sqlite3.h>

#include "stats.h"
#include "tap.h"

/* round(x, 1) by the SQLite library linked here, when its printf is the one nsys 2022.4 embeds (< 3.43:
 * later versions format doubles with a different algorithm) */
static double lib_round(sqlite3 *db, double x)
{
    sqlite3_stmt *st;
    double r = NAN;
    if (sqlite3_prepare_v2(db, "SELECT round(?1, 1)", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_double(st, 1, x);
        if (sqlite3_step(st) == SQLITE_ROW)
            r = sqlite3_column_double(st, 0);
        sqlite3_finalize(st);
    }
    return r;
}

static char *tab_text(const gf_stats_opts *o, void (*fill)(gf_tab *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    static const gf_col cols[] = {{"Name", GF_U_NONE}, {"Bytes", GF_U_MEM}, {"Time", GF_U_NS}};
    gf_tab t;
    gf_tab_begin(&t, f, o, cols, 3);
    fill(&t);
    gf_tab_finish(&t, NULL);
    fclose(f);
    return buf;
}

static void fill_rows(gf_tab *t)
{
    gf_tab_cstr(t, "a, b");
    gf_tab_mem_int(t, 4194304);
    gf_tab_float(t, 6464.0);
    gf_tab_end_row(t);
    gf_tab_cstr(t, "q\"uote\\\ttab");
    gf_tab_null(t);
    gf_tab_int(t, -5);
    gf_tab_end_row(t);
}

static void fill_none(gf_tab *t)
{
    (void)t;
}

int main(void)
{
    /* round(x, 1): half away from zero on the decimal text, SQLite's 3e-16 nudge (0.15 → 0.2) */
    CHECK("round 1351.25 → 1351.3", gf_sqlite_round(1351.25, 1) == 1351.3);
    CHECK("round 0.15 → 0.2 (SQLite's nudge, not C's 0.1)", gf_sqlite_round(0.15, 1) == 0.2);
    CHECK("round -0.05 → -0.1", gf_sqlite_round(-0.05, 1) == -0.1);
    CHECK("round 2828427053.9849 → 2828427054.0", gf_sqlite_round(2828427053.9849, 1) == 2828427054.0);
    CHECK("round 77.5 stays", gf_sqlite_round(77.5, 1) == 77.5);
    CHECK("round 1e17 unchanged", gf_sqlite_round(1e17, 1) == 1e17);
    CHECK("round(x, 0)", gf_sqlite_round(2.5, 0) == 3.0 && gf_sqlite_round(-2.5, 0) == -3.0);
    sqlite3 *db;
    if (sqlite3_libversion_number() >= 3043000 || sqlite3_open(":memory:", &db) != SQLITE_OK) {
        SKIP("round = the linked SQLite's round()", "SQLite >= 3.43 formats doubles differently from nsys's 3.36");
    } else {
        int bad = 0;
        double first = 0;
        uint64_t s = 88172645463325252ull;
        for (int i = 0; i < 200000; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            /* averages of integer durations (sum / n) and percentages, the values the reports round */
            int64_t sum = (int64_t)(s % 4000000000000ull);
            int64_t n = (int64_t)(s >> 40) % 1000 + 1;
            double x = i % 3 == 0 ? (double)sum / (double)n : i % 3 == 1 ? (double)(sum % 100000) / 40.0
                                                                          : (double)sum * 100.0 / 7.0e12;
            if (i % 2)
                x = -x;
            if (gf_sqlite_round(x, 1) != lib_round(db, x) && !bad++)
                first = x;
        }
        if (bad)
            printf("# first difference at %.17g: %.17g vs %.17g\n", first, gf_sqlite_round(first, 1),
                   lib_round(db, first));
        sqlite3_close(db);
        CHECK("round = the linked SQLite 3.36-style round() on 200,000 values", bad == 0);
    }

    /* median(): INTEGER when the middle values are equal, else their mean */
    gf_agg a;
    memset(&a, 0, sizeof a);
    int64_t iv;
    double dv;
    gf_agg_add(&a, 1000);
    gf_agg_add(&a, 3);
    CHECK("median of 3 and 1000 is the REAL 501.5", gf_agg_median(&a, &iv, &dv) == 0 && dv == 501.5);
    CHECK("stdev of 3 and 1000 (sample)", fabs(gf_agg_stdev(&a) - 704.9854608429879) < 1e-9);
    gf_agg_free(&a);
    for (int i = 0; i < 8; i++)
        gf_agg_add(&a, 100000000);
    CHECK("median of 8 equal values is the INTEGER", gf_agg_median(&a, &iv, &dv) == 1 && iv == 100000000);
    CHECK("stdev of equal values is 0.0", gf_agg_stdev(&a) == 0.0);
    gf_agg_free(&a);
    gf_agg_add(&a, 100);
    gf_agg_add(&a, 4000000000);
    CHECK("median above 2^31 is exact", gf_agg_median(&a, &iv, &dv) == 0 && dv == 2000000050.0);
    CHECK("stdev [100, 4e9] rounds to 2828427054.0", gf_sqlite_round(gf_agg_stdev(&a), 1) == 2828427054.0);
    CHECK("avg", gf_agg_avg(&a) == 2000000050.0);
    gf_agg_free(&a);
    gf_agg_add(&a, 7);
    CHECK("one value: stdev 0.0, median INTEGER", gf_agg_stdev(&a) == 0.0 && gf_agg_median(&a, &iv, &dv) == 1 && iv == 7);
    gf_agg_free(&a);

    /* CASE substr(v, -6, 2) WHEN '_v' THEN substr(v, 1, length(v)-6) ELSE v END */
    size_t n;
    gf_stats_api_name("cudaLaunchKernel_v7000", 22, &n);
    CHECK("API name: _v7000 removed", n == 16);
    gf_stats_api_name("cuMemAlloc_v2", 13, &n);
    CHECK("API name: _v2 stays", n == 13);
    gf_stats_api_name("cuOdd_vAB", 9, &n);
    CHECK("API name: _v not 6 from the end stays", n == 9);
    gf_stats_api_name("_vabcd", 6, &n);
    CHECK("API name: exactly 6 characters '_vabcd' → empty", n == 0);
    gf_stats_api_name("_vab", 4, &n);
    CHECK("API name: shorter than 6 never matches", n == 4);
    gf_stats_api_name("\xc3\xbc_v1234", 8, &n);
    CHECK("API name: characters, not bytes (UTF-8)", n == 2);

    /* cells: CSV quoted only around a comma, nothing escaped; MB with 3 decimals; JSON */
    gf_stats_opts o = {GF_STATS_CSV, 0, 0};
    char *s = tab_text(&o, fill_rows);
    CHECK("CSV bytes", strcmp(s, "Name,Bytes (MB),Time (ns)\n\"a, b\",4.194,6464.0\nq\"uote\\\ttab,,-5\n") == 0);
    free(s);
    o.mem_bytes = 1;
    s = tab_text(&o, fill_rows);
    CHECK("CSV :mem=B", strncmp(s, "Name,Bytes (B),Time (ns)\n\"a, b\",4194304,6464.0\n", 46) == 0);
    free(s);
    s = tab_text(&o, fill_none);
    CHECK("CSV without rows: nothing at all", strcmp(s, "") == 0);
    free(s);
    o.format = GF_STATS_JSON;
    s = tab_text(&o, fill_rows);
    CHECK("JSON bytes", strcmp(s, "[\n  {\n    \"Name\": \"a, b\",\n    \"Bytes (B)\": 4194304,\n    \"Time (ns)\": 6464.0\n"
                                  "  },\n  {\n    \"Name\": \"q\\\"uote\\\\\\ttab\",\n    \"Bytes (B)\": null,\n"
                                  "    \"Time (ns)\": -5\n  }\n]\n") == 0);
    free(s);
    s = tab_text(&o, fill_none);
    CHECK("JSON without rows", strcmp(s, "[\n]\n") == 0);
    free(s);

    CHECK("report table: old names find current reports",
          gf_stats_find("nvtxpptrace") == gf_stats_find("nvtx_pushpop_trace") && gf_stats_find("gputrace"));
    CHECK("report table: unknown", gf_stats_find("nope") == NULL);
    return tap_done();
}
