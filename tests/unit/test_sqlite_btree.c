/* Direct reading of a plain scan's rows from the file's pages (core/sqlite_btree.c through the row readers of
 * core/sqlite_prefetch.c): every value, type and text that SQLite's own read of the same query gives, in the
 * same order, for tables that exercise the file format (page sizes 512 to 65,536, reserved bytes, b-trees
 * several levels deep, every integer size, overflow pages, rows deleted, an INTEGER PRIMARY KEY, columns added
 * later, rowid and NULL columns), with the rows counted as read directly; what it refuses (a REAL column, a
 * WAL file, a WITHOUT ROWID table, a float or text in an integer column, a short row whose column has a
 * default) is read by SQLite with the same result; and a file damaged at random gives what SQLite gives or
 * an error, never a crash. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite_export.h"
#include "tap.h"

typedef struct readout {
    uint64_t h;
    long rows;
    int rc;
    size_t direct;
    char msg[1100];
} readout;

/* read_all renames this file over its path after the connection opened it, before the readers start */
static const char *replace_with;

/* Every row of `SELECT cols FROM table` (through gf_sqlite_prepare_cols, or the SQL given) with threads
 * (1: SQLite steps on this thread), split or not, text columns textcols: a digest of what the accessors say. */
static int read_all(const char *path, const char *table, const char *const *cols, int ncols, const char *sql,
                    uint64_t textcols, int threads, int split, readout *r)
{
    sqlite3 *db;
    gf_err err = {0};
    gf_sqlq q;
    memset(r, 0, sizeof *r);
    if (gf_sqlite_open_export(path, &db, &err) != 0)
        return -1;
    if (gf_sqlite_prepare_cols(db, path, &q, table, cols, ncols, ncols, NULL, &err) != 1) {
        sqlite3_close(db);
        return -1;
    }
    if (sql) {
        sqlite3_finalize(q.st);
        if (sqlite3_prepare_v2(db, sql, -1, &q.st, NULL) != SQLITE_OK) {
            sqlite3_close(db);
            return -1;
        }
        for (int i = 0; i < GF_SQLQ_MAXCOL; i++)
            q.idx[i] = i < sqlite3_column_count(q.st) ? i : -1;
        ncols = sqlite3_column_count(q.st);
    }
    if (replace_with && rename(replace_with, path) != 0) {
        gf_sqlq_finalize(&q);
        sqlite3_close(db);
        return -1;
    }
    gf_sqlq_prefetch(&q, threads, textcols, split ? path : NULL);
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        r->rows++;
        for (int i = 0; i < ncols; i++) {
            int type = gf_sqlq_type(&q, i), text = (int)(textcols >> i & 1);
            r->h = tap_mix(r->h, (uint64_t)type);
            if (!text || type != SQLITE_TEXT) /* a text value read as text has no int64 reading */
                r->h = tap_mix(r->h, (uint64_t)gf_sqlq_i64(&q, i, -42));
            size_t len;
            const char *t = text ? gf_sqlq_text(&q, i, &len) : NULL;
            r->h = tap_mix(r->h, t ? len + 1 : 0);
            for (size_t k = 0; t && k < len; k++)
                r->h = tap_mix(r->h, (unsigned char)t[k]);
        }
    }
    r->rc = rc;
    r->direct = gf_sqlq_direct_rows(&q);
    gf_sqlq_finalize(&q);
    if (rc != SQLITE_DONE) {
        gf_sqlite_fail(db, path, table, &err);
        snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    }
    sqlite3_close(db);
    return 0;
}

/* The query read by SQLite alone and by the readers, one and split: the same digest, rows and result. Returns
 * the rows the single reader read directly (the split's in *split_direct), or -1 when a read differs. */
static long same_reads(const char *path, const char *table, const char *const *cols, int ncols, const char *sql,
                       uint64_t textcols, long *split_direct)
{
    readout a, b, c;
    if (read_all(path, table, cols, ncols, sql, textcols, 1, 0, &a) != 0 ||
        read_all(path, table, cols, ncols, sql, textcols, 2, 0, &b) != 0 ||
        read_all(path, table, cols, ncols, sql, textcols, 2, 1, &c) != 0)
        return -1;
    if (a.h != b.h || a.rows != b.rows || a.rc != b.rc || a.h != c.h || a.rows != c.rows || a.rc != c.rc ||
        strcmp(a.msg, b.msg) != 0 || strcmp(a.msg, c.msg) != 0) {
        printf("# %s: SQLite %ld rows rc %d, one reader %ld rc %d, split %ld rc %d\n", table, a.rows, a.rc, b.rows,
               b.rc, c.rows, c.rc);
        return -1;
    }
    if (split_direct)
        *split_direct = (long)c.direct;
    return (long)b.direct;
}

static int exec(const char *path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        printf("# %s: %s\n", sql, msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* A table of n rows: every integer size (and each sign), NULLs, texts from empty to past several overflow
 * pages, an integer in an untyped column read as text; a page size, reserved bytes per page. */
static int make_table(const char *path, int page_size, int reserve, long n, int big)
{
    sqlite3 *db;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA page_size = %d", page_size);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (reserve && rc == SQLITE_OK)
        rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "CREATE TABLE t (a INTEGER, b INTEGER, s TEXT, u, id_not_key INT); BEGIN", NULL, NULL,
                          NULL);
    static const int64_t ints[] = {0, 1, -1, 127, -128, 128, 32767, -32768, 32768, 8388607, -8388608, 8388608,
                                   2147483647, -2147483648LL, 2147483648LL, 140737488355327LL, -140737488355328LL,
                                   140737488355328LL, INT64_MAX, INT64_MIN};
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL);
    unsigned long long seed = 0x5eed + (unsigned)page_size;
    char *text = malloc(300001);
    for (long i = 0; rc == SQLITE_OK && text && i < n; i++) {
        unsigned long long x = tap_xorshift(&seed);
        sqlite3_bind_int64(st, 1, ints[i % (long)(sizeof ints / sizeof *ints)]);
        if (i % 13 == 5)
            sqlite3_bind_null(st, 2);
        else
            sqlite3_bind_int64(st, 2, (int64_t)(x >> (x % 64)) * (x & 1 ? -1 : 1));
        size_t len = big && i % 997 == 3 ? 300000 : i % 29 == 1 ? 5000 + x % (big ? 20000 : 3000) : x % 40;
        for (size_t k = 0; k < len; k++)
            text[k] = (char)('a' + (k * 7 + (size_t)i) % 26);
        text[len] = 0;
        if (i % 17 == 2)
            sqlite3_bind_null(st, 3);
        else
            sqlite3_bind_text(st, 3, text, (int)len, SQLITE_TRANSIENT);
        if (i % 3 == 0)
            sqlite3_bind_int64(st, 4, (int64_t)i * -1000003);
        else
            sqlite3_bind_text(st, 4, text, (int)(len % 50), SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, (int64_t)i);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    free(text);
    sqlite3_finalize(st);
    if (rc == SQLITE_OK) /* freed space inside pages, and gaps in the rowids */
        rc = sqlite3_exec(db, "DELETE FROM t WHERE rowid % 11 = 4 OR rowid BETWEEN 300 AND 420; COMMIT", NULL, NULL,
                          NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

static const char *const tcols[] = {"a", "b", "s", "u", "id_not_key"};
enum { TEXTS = 1u << 2 | 1u << 3 };

static long table_rows(const char *path, const char *table)
{
    readout r;
    static const char *const none[] = {"rowid"};
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT rowid FROM \"%s\"", table);
    return read_all(path, table, none, 0, sql, 0, 1, 0, &r) == 0 ? r.rows : -1;
}

static void test_layouts(const char *path)
{
    static const struct {
        int page, reserve;
        long rows;
    } lay[] = {{512, 0, 20000}, {1024, 0, 3000}, {4096, 0, 25000}, {4096, 33, 20000}, {65536, 0, 20000},
               {65536, 200, 5000}};
    for (size_t i = 0; i < sizeof lay / sizeof *lay; i++) {
        char name[160];
        long sd = 0;
        snprintf(name, sizeof name, "page size %d, %d bytes reserved, %ld rows: SQLite's values, every row read"
                 " directly (one reader and split)", lay[i].page, lay[i].reserve, lay[i].rows);
        if (make_table(path, lay[i].page, lay[i].reserve, lay[i].rows, 1) != 0) {
            CHECK(name, 0);
            continue;
        }
        long n = table_rows(path, "t");
        long d = same_reads(path, "t", tcols, 5, NULL, TEXTS, &sd);
        if (d != n || sd != n)
            printf("# %ld rows, %ld read directly (split %ld)\n", n, d, sd);
        CHECK(name, n > 0 && d == n && sd == n);
    }
}

/* The NVTX import's query: rowid and NULL among the columns. An INTEGER PRIMARY KEY read as the rowid. */
static void test_query_shapes(const char *path)
{
    long n = table_rows(path, "t");
    CHECK("rowid and NULL columns, read as text too: the same, all direct",
          same_reads(path, "t", tcols, 5, "SELECT \"a\", rowid, \"s\", NULL, rowid FROM \"t\"",
                     1u << 2 | 1u << 4, NULL) == n);
    if (exec(path, "CREATE TABLE k (id INTEGER PRIMARY KEY, v INTEGER);"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) "
                   "INSERT INTO k SELECT i * 5, i FROM n;"
                   "CREATE TABLE kd (id INTEGER PRIMARY KEY DESC, v INTEGER); INSERT INTO kd SELECT * FROM k;") != 0) {
        CHECK("tables with an INTEGER PRIMARY KEY are written", 0);
        return;
    }
    static const char *const kcols[] = {"id", "v"};
    CHECK("an INTEGER PRIMARY KEY (the rowid, NULL in the record): the same, all direct",
          same_reads(path, "k", kcols, 2, NULL, 1u << 0, NULL) == 30000);
    CHECK("... declared DESC (not the rowid's alias in SQLite): read by SQLite",
          same_reads(path, "kd", kcols, 2, NULL, 0, NULL) == 0);
}

/* What direct reading refuses is read by SQLite: the same rows either way. */
static void test_refusals(const char *path)
{
    static const char *const ab[] = {"a", "b"};
    if (exec(path, "CREATE TABLE r (a INTEGER, b REAL); INSERT INTO r SELECT rowid, rowid FROM t;"
                   "CREATE TABLE w (a INTEGER PRIMARY KEY, b INTEGER) WITHOUT ROWID;"
                   "INSERT INTO w SELECT rowid, a FROM t;"
                   "CREATE TABLE f (a INTEGER, b INTEGER); INSERT INTO f SELECT rowid, a FROM t;"
                   "UPDATE f SET b = 2.5 WHERE rowid = (SELECT rowid FROM f ORDER BY rowid LIMIT 1 OFFSET 1500);"
                   "UPDATE f SET b = 'x' WHERE rowid = (SELECT rowid FROM f ORDER BY rowid LIMIT 1 OFFSET 3000);"
                   "CREATE TABLE g (a INTEGER); INSERT INTO g SELECT rowid FROM t;"
                   "ALTER TABLE g ADD COLUMN b INTEGER; ALTER TABLE g ADD COLUMN c INTEGER DEFAULT 7;"
                   "UPDATE g SET b = a, c = a WHERE rowid > 10000;") != 0) {
        CHECK("tables direct reading refuses are written", 0);
        return;
    }
    long n = table_rows(path, "t"), sd;
    CHECK("a REAL column (SQLite converts what it stores as integers): read by SQLite",
          same_reads(path, "r", ab, 2, NULL, 0, NULL) == 0);
    CHECK("a WITHOUT ROWID table: read by SQLite", same_reads(path, "w", ab, 2, NULL, 0, NULL) == 0);
    long d = same_reads(path, "f", ab, 2, NULL, 0, &sd);
    printf("# a float in row 1,501, text in row 3,001: %ld of %ld rows read directly (split: %ld)\n", d, n, sd);
    CHECK("a float in an integer column: the rows before it direct, then SQLite, the same rows",
          d == 1500 && sd >= d && sd < n);
    static const char *const abc[] = {"a", "b", "c"};
    static const char *const g2[] = {"a", "b"};
    long gd = same_reads(path, "g", g2, 2, NULL, 0, NULL);
    CHECK("a column added later, without a default: short records read directly as NULL", gd == n);
    CHECK("... with a default: SQLite reads from the first short record", same_reads(path, "g", abc, 3, NULL, 0,
                                                                                       NULL) == 0);
    char wal[300];
    snprintf(wal, sizeof wal, "%s-wal-copy", path);
    unlink(wal);
    char sql[600];
    snprintf(sql, sizeof sql, "VACUUM INTO '%s'", wal);
    if (exec(path, sql) != 0 || exec(wal, "PRAGMA journal_mode = WAL; CREATE TABLE x (a); DROP TABLE x;") != 0) {
        CHECK("a WAL database is written", 0);
    } else {
        CHECK("a WAL database: read by SQLite", same_reads(wal, "t", tcols, 5, NULL, TEXTS, NULL) == 0);
    }
    unlink(wal);
}

/* Another file put at the path after the connection opened the first: the same size, schema and pages, one
 * text changed in place. The connection reads the first file; direct reading, which maps the path, finds the
 * table's rows differ from what the connection reads and leaves the query to SQLite. */
static void test_replaced(const char *path)
{
    char other[300];
    snprintf(other, sizeof other, "%s-other", path);
    readout before, after;
    if (make_table(path, 4096, 0, 3000, 0) != 0 || make_table(other, 4096, 0, 3000, 0) != 0 ||
        exec(other, "UPDATE t SET s = upper(s) WHERE rowid = (SELECT max(rowid) FROM t WHERE length(s) > 3)") != 0 ||
        read_all(path, "t", tcols, 5, NULL, TEXTS, 1, 0, &before) != 0) {
        CHECK("two files of one size and schema are written", 0);
        unlink(other);
        return;
    }
    replace_with = other;
    int r = read_all(path, "t", tcols, 5, NULL, TEXTS, 2, 0, &after);
    replace_with = NULL;
    CHECK("a file put at the path after the connection opened another: nothing read from it, the first file's rows",
          r == 0 && after.direct == 0 && after.rows == before.rows && after.h == before.h);
    unlink(other);
}

/* Bytes of the file overwritten at random (a fixed seed), page headers and cells included: each read by
 * SQLite alone and by the readers, one and split, the same result or, where direct reading refused a
 * damaged page and SQLite went on from the last row read, an error in both. Never a crash (ASan, UBSan). */
static void test_damage(const char *path)
{
    char copy[300];
    snprintf(copy, sizeof copy, "%s-damaged", path);
    if (make_table(path, 1024, 0, 3000, 0) != 0) {
        CHECK("a table to damage is written", 0);
        return;
    }
    FILE *in = fopen(path, "rb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    unsigned char *orig = malloc((size_t)size);
    fseek(in, 0, SEEK_SET);
    int ok = in && orig && fread(orig, 1, (size_t)size, in) == (size_t)size;
    if (in)
        fclose(in);
    unsigned long long seed = 42;
    int same = 0, both_failed = 0, differ = 0, runs = 300;
    for (int v = 0; ok && v < runs; v++) {
        unsigned char *d = malloc((size_t)size);
        memcpy(d, orig, (size_t)size);
        int hits = 1 + (int)(tap_xorshift(&seed) % 16);
        for (int h = 0; h < hits; h++) { /* past page 1 (the schema): a damaged schema is SQLite's, not ours */
            long at = 1024 + (long)(tap_xorshift(&seed) % (unsigned long long)(size - 1024));
            d[at] = (unsigned char)tap_xorshift(&seed);
        }
        FILE *out = fopen(copy, "wb");
        ok = out && fwrite(d, 1, (size_t)size, out) == (size_t)size;
        if (out)
            fclose(out);
        free(d);
        readout a, b, c;
        if (!ok || read_all(copy, "t", tcols, 5, NULL, TEXTS, 1, 0, &a) != 0 ||
            read_all(copy, "t", tcols, 5, NULL, TEXTS, 2, 0, &b) != 0 ||
            read_all(copy, "t", tcols, 5, NULL, TEXTS, 2, 1, &c) != 0) {
            ok = 0;
            break;
        }
        if (a.h == b.h && a.rows == b.rows && a.rc == b.rc && a.h == c.h && a.rows == c.rows && a.rc == c.rc)
            same++;
        else if (a.rc != SQLITE_DONE && b.rc != SQLITE_DONE && c.rc != SQLITE_DONE)
            both_failed++;
        else {
            differ++;
            printf("# damaged file %d: SQLite %ld rows (rc %d), one reader %ld (rc %d), split %ld (rc %d)\n", v, a.rows,
                   a.rc, b.rows, b.rc, c.rows, c.rc);
        }
    }
    printf("# %d damaged files: %d read the same, %d failed both ways after other rows, %d differ\n", runs, same,
           both_failed, differ);
    CHECK("damaged files: the same rows as SQLite, or an error both ways", ok && differ == 0);
    free(orig);
    unlink(copy);
}

int main(void)
{
    char path[] = "/tmp/gf-btree-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || close(fd) != 0) {
        CHECK("a temporary file", 0);
        return tap_done();
    }
    test_layouts(path);
    test_query_shapes(path);
    test_refusals(path);
    gf_sqlq_direct(0);
    long off = same_reads(path, "t", tcols, 5, NULL, TEXTS, NULL);
    CHECK("gf_sqlq_direct(0): nothing read directly", off == 0);
    gf_sqlq_direct(1);
    test_replaced(path);
    test_damage(path);
    unlink(path);
    return tap_done();
}
