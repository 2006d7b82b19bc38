/* Unit tests for the streaming CSV reader (core/csv.c). */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "tap.h"

static char tmpdir[512];

static const char *write_tmp(const char *name, const char *data, size_t len)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    return path;
}
#define WRITE(name, lit) write_tmp(name, lit, sizeof(lit) - 1)

static int open_ok(gf_csv **c, const char *path, const gf_csv_opts *o)
{
    gf_err err;
    if (gf_csv_open(c, path, o, &err) != 0) {
        printf("# open %s: %s\n", path, err.msg);
        return 0;
    }
    return 1;
}

static void test_basic(void)
{
    const char *p = WRITE("basic.csv", "\xEF\xBB\xBF Time (%) ,Total Time (ns),Name\r\n"
                                       "100.0,28918591,\"burn(float *, int, int)\"\r\n"
                                       "1.5,42,\"say \"\"hi\"\"\nthere\"\r\n");
    gf_csv *c;
    gf_err err;
    CHECK("basic: opens", open_ok(&c, p, NULL));
    if (!c)
        return;
    CHECK("basic: 3 columns", gf_csv_ncols(c) == 3);
    CHECK("basic: BOM stripped and trimmed", strcmp(gf_csv_colname(c, 0), "Time (%)") == 0);
    static const char *const total[] = {"total time(ns)", "TOTAL TIME (NS)"};
    CHECK("basic: find is case-insensitive", gf_csv_find(c, total, 2) == 1);
    static const char *const none[] = {"Kernel"};
    CHECK("basic: find missing is -1", gf_csv_find(c, none, 1) == -1);
    CHECK("basic: header on line 1", gf_csv_line(c) == 1);
    CHECK("basic: row 1", gf_csv_next(c, &err) == 1);
    size_t n;
    const char *s = gf_csv_field(c, 2, &n);
    CHECK("basic: quoted comma field", strcmp(s, "burn(float *, int, int)") == 0 && n == 23);
    int64_t v = 0;
    CHECK("basic: int64", gf_csv_int64(c, 1, &v, &err) == 0 && v == 28918591);
    double d = 0;
    CHECK("basic: double", gf_csv_double(c, 0, &d, &err) == 0 && d == 100.0);
    CHECK("basic: row 1 line 2", gf_csv_line(c) == 2);
    CHECK("basic: row 2", gf_csv_next(c, &err) == 1);
    s = gf_csv_field(c, 2, &n);
    CHECK("basic: quotes and newline inside a field", strcmp(s, "say \"hi\"\nthere") == 0);
    CHECK("basic: row 2 starts on line 3", gf_csv_line(c) == 3);
    CHECK("basic: int64 rejects a float", gf_csv_int64(c, 0, &v, &err) == -1);
    CHECK("basic: error names file, line, column and value",
          strstr(err.msg, "basic.csv:3:1 (column 'Time (%)'): invalid integer '1.5'") != NULL);
    CHECK("basic: error code is bad input", err.code == GF_EXIT_INPUT);
    CHECK("basic: EOF", gf_csv_next(c, &err) == 0);
    CHECK("basic: 2 rows", gf_csv_rows(c) == 2);
    gf_csv_close(c);
}

static void test_errors(void)
{
    gf_csv *c = NULL;
    gf_err err;
    const char *p = WRITE("unterminated.csv", "a,b\n1,2\n3,\"open\nmore\nrows\n");
    CHECK("unterminated: opens", open_ok(&c, p, NULL));
    CHECK("unterminated: first row ok", gf_csv_next(c, &err) == 1);
    CHECK("unterminated: error at EOF", gf_csv_next(c, &err) == -1);
    CHECK("unterminated: names file and the row's line",
          strstr(err.msg, "unterminated.csv:3: unterminated quoted field") != NULL);
    gf_csv_close(c);

    p = WRITE("ragged.csv", "a,b,c\n1,2,3\n4,5\n");
    CHECK("ragged: opens", open_ok(&c, p, NULL));
    CHECK("ragged: row 1", gf_csv_next(c, &err) == 1);
    CHECK("ragged: short row is an error", gf_csv_next(c, &err) == -1);
    CHECK("ragged: message", strstr(err.msg, "ragged.csv:3: row has 2 fields, the header has 3") != NULL);
    gf_csv_close(c);

    gf_csv_opts o = {0};
    o.allow_short_rows = 1;
    CHECK("short allowed: opens", open_ok(&c, p, &o));
    CHECK("short allowed: row 1", gf_csv_next(c, &err) == 1);
    CHECK("short allowed: row 2", gf_csv_next(c, &err) == 1);
    size_t n = 9;
    CHECK("short allowed: missing field is empty", strcmp(gf_csv_field(c, 2, &n), "") == 0 && n == 0);
    gf_csv_close(c);

    p = WRITE("long.csv", "a,b\n1,2,3\n");
    CHECK("long row: opens", open_ok(&c, p, &o));
    CHECK("long row: always an error", gf_csv_next(c, &err) == -1 && strstr(err.msg, "long.csv:2:"));
    gf_csv_close(c);

    p = WRITE("empty.csv", "");
    CHECK("empty: no data", gf_csv_open(&c, p, NULL, &err) == -1 && err.code == GF_EXIT_NO_DATA);
    CHECK("empty: names the file", strstr(err.msg, "empty.csv: empty file") != NULL);

    CHECK("missing file: bad input", gf_csv_open(&c, "/nonexistent/x.csv", NULL, &err) == -1 &&
                                         err.code == GF_EXIT_INPUT && strstr(err.msg, "/nonexistent/x.csv"));

    p = WRITE("hdronly.csv", "Name,Total Time (ns)\n");
    CHECK("header only: opens", open_ok(&c, p, NULL));
    CHECK("header only: no rows", gf_csv_next(c, &err) == 0);
    gf_csv_close(c);

    o.allow_short_rows = 0;
    o.header_hint = "Name";
    p = WRITE("nohint.csv", "a,b\n1,2\n");
    CHECK("header hint missing: error lists the columns",
          gf_csv_open(&c, p, &o, &err) == -1 && strstr(err.msg, "no 'Name' column (columns: a, b)"));

    p = WRITE("blanklines.csv", "a,b\n\n1,2\n   \n3,4\n");
    CHECK("blank lines: opens", open_ok(&c, p, NULL));
    CHECK("blank lines: row on line 3", gf_csv_next(c, &err) == 1 && gf_csv_line(c) == 3);
    CHECK("blank lines: row on line 5", gf_csv_next(c, &err) == 1 && gf_csv_line(c) == 5);
    CHECK("blank lines: EOF", gf_csv_next(c, &err) == 0);
    gf_csv_close(c);

    p = WRITE("badnum.csv", "x\n12abc\n");
    CHECK("bad double: opens", open_ok(&c, p, NULL));
    double d;
    CHECK("bad double: error", gf_csv_next(c, &err) == 1 && gf_csv_double(c, 0, &d, &err) == -1 &&
                                   strstr(err.msg, "badnum.csv:2:1 (column 'x'): invalid number '12abc'"));
    gf_csv_close(c);
}

static void test_preamble(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/real/vernier/nsys_stats_cuda_api_sum.out", tap_fixtures());
    if (access(path, R_OK) != 0) {
        SKIP("preamble: real nsys stats stdout", "fixtures absent");
        return;
    }
    gf_csv_opts o = {0};
    o.skip_preamble = 1;
    o.header_hint = "Total Time (ns)";
    gf_csv *c;
    gf_err err;
    CHECK("preamble: opens real stdout", open_ok(&c, path, &o));
    CHECK("preamble: header on line 2", gf_csv_line(c) == 2 && gf_csv_ncols(c) == 9);
    int rows = 0;
    int64_t first = 0;
    while (gf_csv_next(c, &err) == 1) {
        if (rows++ == 0)
            gf_csv_int64(c, 1, &first, &err);
    }
    CHECK("preamble: 8 rows", rows == 8);
    CHECK("preamble: first total", first == 199253613);
    gf_csv_close(c);

    const char *p = WRITE("stdout.txt", "Generating SQLite file x.sqlite from x.nsys-rep\n"
                                        "NOTICE: it's \"odd\n"
                                        "Time (%),Total Time (ns),Name\n"
                                        "50.0,10,a\n"
                                        "\n"
                                        "another section,with,commas\n");
    CHECK("preamble: synthetic opens", open_ok(&c, p, &o));
    CHECK("preamble: one row", gf_csv_next(c, &err) == 1 && gf_csv_line(c) == 4);
    CHECK("preamble: stops at the blank line", gf_csv_next(c, &err) == 0);
    gf_csv_close(c);

    p = WRITE("noheader.txt", "Processing [x] ...\nSKIPPED: x does not contain CUDA trace data.\n");
    CHECK("preamble: no header is no data", gf_csv_open(&c, p, &o, &err) == -1 && err.code == GF_EXIT_NO_DATA);
}

static void test_big(void)
{
    /* many rows across chunk boundaries, with quoted multi-line fields */
    char path[1024];
    snprintf(path, sizeof path, "%s/big.csv", tmpdir);
    FILE *f = fopen(path, "wb");
    fputs("id,name,total\n", f);
    size_t line = 2;
    for (int i = 0; i < 20000; i++) {
        if (i % 7 == 0) {
            fprintf(f, "%d,\"k<%d>,\nx\",%d\n", i, i, i * 3);
            line += 2;
        } else {
            fprintf(f, "%d,kernel_%d,%d\n", i, i, i * 3);
            line += 1;
        }
    }
    fclose(f);
    gf_csv *c;
    gf_err err;
    CHECK("big: opens", open_ok(&c, path, NULL));
    int ok = 1, i = 0;
    size_t expect_line = 2;
    while (gf_csv_next(c, &err) == 1) {
        int64_t id, tot;
        if (gf_csv_int64(c, 0, &id, &err) || gf_csv_int64(c, 2, &tot, &err) || id != i || tot != i * 3 ||
            gf_csv_line(c) != expect_line) {
            ok = 0;
            break;
        }
        expect_line += (i % 7 == 0) ? 2 : 1;
        i++;
    }
    CHECK("big: 20000 rows with values and lines right", ok && i == 20000);
    gf_csv_close(c);
}

/* gf_csv_row: the same fields as gf_csv_field on lines split in place, on lines that bail part-way (a quote
 * inside an unquoted field after fields were split: the bytes libcsv then reads are the file's), and on a
 * quoted field spanning lines; 8 bytes readable after each field. */
static void test_row(void)
{
    const char *p = WRITE("row.csv", "a,b,c,d\n"
                                     "1,\"x,y\",,22\n"
                                     "1,2,3,4\"5\n"
                                     "\"q\",\"r\",s,t\"u\r\n"
                                     "7,\"multi\nline\",8,9\n"
                                     "10,11,12,13");
    static const char *const want[][4] = {
        {"1", "x,y", "", "22"}, {"1", "2", "3", "4\"5"}, {"q", "r", "s", "t\"u"}, {"7", "multi\nline", "8", "9"},
        {"10", "11", "12", "13"}};
    static const size_t lines[] = {2, 3, 4, 5, 7};
    gf_csv *c;
    gf_err err;
    CHECK("row: opens", open_ok(&c, p, NULL));
    if (!c)
        return;
    int ok = 1;
    size_t r = 0;
    volatile char sink = 0;
    while (gf_csv_next(c, &err) == 1 && r < 5) {
        const gf_csv_span *f;
        size_t n;
        const char *base = gf_csv_row(c, &f, &n);
        ok &= n == 4 && gf_csv_line(c) == lines[r];
        for (size_t i = 0; i < n && i < 4; i++) {
            size_t fl;
            const char *fv = gf_csv_field(c, i, &fl);
            ok &= base + f[i].off == fv && f[i].len == fl && strlen(want[r][i]) == fl &&
                  memcmp(fv, want[r][i], fl) == 0 && fv[fl] == '\0';
            for (size_t k = 1; k <= 8; k++)
                sink ^= fv[fl + k]; /* readable (ASan) */
        }
        if (!ok)
            printf("# row %zu (line %zu) differs\n", r, gf_csv_line(c));
        r++;
    }
    (void)sink;
    CHECK("row: gf_csv_row gives gf_csv_field's fields, lines right, in place and through libcsv", ok && r == 5);
    gf_csv_close(c);
}

/* gf_csv_next_row: the rows, spans, lines and the error of gf_csv_next + gf_csv_row, on lines split in
 * place, through libcsv and a row with one field too many. */
static void test_next_row(void)
{
    const char *p = WRITE("next_row.csv", "a,b,c\n1,\"x,y\",\n \n2,3,4\"5\n\"m\nl\",6,7\r\n8,9,10,11\n");
    gf_csv *c1, *c2;
    gf_err e1, e2;
    CHECK("next_row: opens", open_ok(&c1, p, NULL) && open_ok(&c2, p, NULL));
    if (!c1 || !c2)
        return;
    int ok = 1, r1, r2, rows = 0;
    do {
        r1 = gf_csv_next(c1, &e1);
        const char *b2 = NULL, *b1;
        const gf_csv_span *f1, *f2;
        size_t n1, n2;
        r2 = gf_csv_next_row(c2, &b2, &f2, &n2, &e2);
        ok &= r1 == r2 && gf_csv_line(c1) == gf_csv_line(c2);
        if (r1 != 1 || r2 != 1)
            break;
        rows++;
        b1 = gf_csv_row(c1, &f1, &n1);
        ok &= n1 == n2;
        for (size_t i = 0; ok && i < n1; i++)
            ok &= f1[i].len == f2[i].len && memcmp(b1 + f1[i].off, b2 + f2[i].off, f1[i].len) == 0;
    } while (ok);
    CHECK("next_row: the rows, spans and lines of gf_csv_next + gf_csv_row", ok && rows == 3);
    CHECK("next_row: the same error", r1 < 0 && r2 < 0 && strcmp(e1.msg, e2.msg) == 0 && strstr(e1.msg, ":7: row has 4"));
    gf_csv_close(c1);
    gf_csv_close(c2);
}

int main(void)
{
    const char *t = getenv("GF_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s", t && *t ? t : "/tmp");
    test_basic();
    test_errors();
    test_preamble();
    test_big();
    test_row();
    test_next_row();
    return tap_done();
}
