/* Row prefetching (core/sqlite_prefetch.c): a table read through a reader thread, or split over two readers
 * by rowid blocks, gives the values that the statement gives read directly, in the same order (integers,
 * NULLs, floats, texts, empty texts, over many chunks; rowids with gaps, whole blocks of them); a consumer
 * that stops early stops and joins the readers; a damaged table fails after the same rows with the same
 * error, the connection's error state as the direct read leaves it; a file replaced at its path between the
 * two connections' opens is not split, nor is a table whose rowids are far apart (gf_sqlite_rowid_span). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite_export.h"
#include "tap.h"

enum { NROWS = 100000 };

static long expect_rows; /* NROWS less the rows deleted (make_db) */

static const char *const cols[] = {"a", "b", "c", "missing", "t"};

static int make_db(const char *path)
{
    sqlite3 *db;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    int rc = sqlite3_exec(db,
                          "PRAGMA page_size = 4096; CREATE TABLE small (x INTEGER); INSERT INTO small VALUES (1);"
                          "CREATE TABLE big (a INTEGER, b, c INTEGER, t TEXT); BEGIN;",
                          NULL, NULL, NULL);
    sqlite3_stmt *st;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO big VALUES (?1, ?2, ?3, ?4)", -1, &st, NULL);
    for (int i = 0; rc == SQLITE_OK && i < NROWS; i++) {
        sqlite3_bind_int64(st, 1, (int64_t)i * 1000003 - 7);
        if (i % 7 == 0)
            sqlite3_bind_null(st, 2);
        else if (i % 7 == 1)
            sqlite3_bind_double(st, 2, i + 0.75);
        else if (i % 7 == 2)
            sqlite3_bind_text(st, 2, "12x", -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, 2, -(int64_t)i);
        if (i % 5 == 0)
            sqlite3_bind_null(st, 3);
        else
            sqlite3_bind_int64(st, 3, i % 5 == 1 ? 0 : INT64_MAX - i);
        char txt[64];
        snprintf(txt, sizeof txt, "range %d", i % 997);
        if (i % 11 == 0)
            sqlite3_bind_null(st, 4);
        else if (i % 11 == 1)
            sqlite3_bind_text(st, 4, "", 0, SQLITE_STATIC);
        else if (i % 11 == 2)
            sqlite3_bind_int64(st, 4, i); /* an integer in a text column, read as text */
        else
            sqlite3_bind_text(st, 4, txt, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    /* gaps in the rowids: whole blocks of a split (4,096 rows a chunk of 4 columns), and every third row */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "DELETE FROM big WHERE rowid BETWEEN 20001 AND 31000"
                          " OR (rowid > 50000 AND rowid % 3 = 0)", NULL, NULL, NULL);
    expect_rows = NROWS - (long)sqlite3_changes(db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* A digest of everything the accessors say about each row, and the row count; the step's last result. */
typedef struct readout {
    uint64_t h;
    long rows;
    int rc;
    int readers;
    char msg[1024];
} readout;

/* read_all renames this file over its path after opening it, before the prefetch (NULL: none) */
static const char *replace_with;

static int read_all(const char *path, int threads, int split, long stop_after, readout *r)
{
    sqlite3 *db;
    gf_err err = {0};
    gf_sqlq q;
    memset(r, 0, sizeof *r);
    if (gf_sqlite_open_export(path, &db, &err) != 0)
        return -1;
    if (gf_sqlite_prepare_cols(db, path, &q, "big", cols, 5, 1, NULL, &err) != 1) {
        sqlite3_close(db);
        return -1;
    }
    if (replace_with && rename(replace_with, path) != 0) {
        gf_sqlq_finalize(&q);
        sqlite3_close(db);
        return -1;
    }
    gf_sqlq_prefetch(&q, threads, 1u << 4, split ? path : NULL);
    r->readers = gf_sqlq_readers(&q);
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        if (stop_after >= 0 && r->rows == stop_after)
            break;
        r->rows++;
        for (int i = 0; i < 5; i++) {
            /* a text value of a column read as text has no int64 reading (sqlite_export.h) */
            if (i != 4 || gf_sqlq_type(&q, i) != SQLITE_TEXT)
                r->h = tap_mix(r->h, (uint64_t)gf_sqlq_i64(&q, i, -42));
            r->h = tap_mix(r->h, (uint64_t)gf_sqlq_null(&q, i));
            r->h = tap_mix(r->h, (uint64_t)gf_sqlq_type(&q, i));
        }
        size_t len;
        const char *t = gf_sqlq_text(&q, 4, &len);
        r->h = tap_mix(r->h, t ? len + 1 : 0);
        for (size_t k = 0; t && k < len; k++)
            r->h = tap_mix(r->h, (unsigned char)t[k]);
    }
    r->rc = rc;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        gf_sqlq_finalize(&q);
        gf_sqlite_fail(db, path, "big", &err);
        snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    } else {
        gf_sqlq_finalize(&q);
    }
    sqlite3_close(db);
    return 0;
}

/* Overwrites 4 KiB pages from 70 % of the file to 80 % with bytes that no b-tree page holds. */
static int damage(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long pages = ftell(f) / 4096;
    char junk[4096];
    for (size_t k = 0; k < sizeof junk; k++)
        junk[k] = (char)(k * 131 + 7);
    for (long p = pages * 7 / 10; p < pages * 8 / 10; p++) {
        fseek(f, p * 4096, SEEK_SET);
        fwrite(junk, 1, sizeof junk, f);
    }
    return fclose(f);
}

/* Overwrites the second half of the leaf page of big two thirds down its leaves (dbstat), its header and
 * cell pointers kept: the rows before it read, the table's first and last rowids too (a split's set-up). */
static int damage_leaf(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    long pages[4096], n = 0;
    if (sqlite3_prepare_v2(db, "SELECT pageno FROM dbstat WHERE name = 'big' AND pagetype = 'leaf' ORDER BY path", -1,
                           &st, NULL) == SQLITE_OK) {
        while (n < 4096 && sqlite3_step(st) == SQLITE_ROW)
            pages[n++] = (long)sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    FILE *f = n > 3 ? fopen(path, "r+b") : NULL;
    if (!f)
        return -1;
    char junk[2048];
    memset(junk, 0xff, sizeof junk);
    fseek(f, (pages[n * 2 / 3] - 1) * 4096 + 2048, SEEK_SET);
    fwrite(junk, 1, sizeof junk, f);
    return fclose(f);
}

/* 1 when table's rowid span is [lo, hi] (gf_sqlite_rowid_span), 0 when it gives none; -1 when asked wrongly */
static int span_of(sqlite3 *db, const char *table, int64_t lo, int64_t hi)
{
    int64_t a = 7, b = 7;
    int r = gf_sqlite_rowid_span(db, table, &a, &b);
    return r == 1 ? (a == lo && b == hi) : r == 0 ? 0 : -1;
}

/* The rowid span that sizes an import and splits a scan: a table's span where the file could hold that many
 * rows (16 bytes a row), none where it could not, none without rowids, and no overflow at the int64 ends. */
static void test_rowid_span(void)
{
    char path[] = "/tmp/gf-prefetch-span-XXXXXX";
    int fd = mkstemp(path);
    sqlite3 *db = NULL;
    if (fd < 0 || close(fd) != 0 || sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "PRAGMA page_size = 4096; CREATE TABLE dense (x); CREATE TABLE gappy (x); "
                     "CREATE TABLE far (x); CREATE TABLE ends (x); CREATE TABLE empty (x); "
                     "CREATE TABLE nokey (k INTEGER PRIMARY KEY, x) WITHOUT ROWID; "
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
                     "INSERT INTO dense (rowid, x) SELECT i, zeroblob(40) FROM n; "
                     "INSERT INTO gappy (rowid, x) SELECT rowid * 3, x FROM dense; "
                     "INSERT INTO far (rowid, x) VALUES (1, 1), (1000000000000, 2); "
                     "INSERT INTO ends (rowid, x) VALUES (-9223372036854775808, 1), (9223372036854775807, 2); "
                     "INSERT INTO nokey VALUES (1, 1), (2, 2);",
                     NULL, NULL, NULL) != SQLITE_OK) {
        CHECK("a database of rowid spans is written", 0);
        sqlite3_close(db);
        unlink(path);
        return;
    }
    CHECK("rowids 1..5000: the span is the count", span_of(db, "dense", 1, 5000) == 1);
    CHECK("every third rowid, within what the file could hold: the span (an upper bound)",
          span_of(db, "gappy", 3, 15000) == 1);
    CHECK("rowids 10^12 apart: no span (the file holds far fewer rows)", span_of(db, "far", 0, 0) == 0);
    CHECK("rowids at both ends of int64: no span, no overflow", span_of(db, "ends", 0, 0) == 0);
    CHECK("an empty table: an empty span", span_of(db, "empty", 1, 0) == 1);
    CHECK("a WITHOUT ROWID table: no span", span_of(db, "nokey", 0, 0) == 0);
    CHECK("no such table: no span", span_of(db, "absent", 0, 0) == 0);
    sqlite3_close(db);
    unlink(path);
}

int main(void)
{
    char path[] = "/tmp/gf-prefetch-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || make_db(path) != 0) {
        CHECK("a test database is written", 0);
        return tap_done();
    }
    close(fd);
    readout d, p, p8, s2, s8;
    CHECK("direct read", read_all(path, 1, 0, -1, &d) == 0 && d.rc == SQLITE_DONE && d.rows == expect_rows);
    CHECK("prefetched read: every row, one reader",
          read_all(path, 2, 0, -1, &p) == 0 && p.rc == SQLITE_DONE && p.rows == expect_rows && p.readers == 1);
    CHECK("prefetched read: the same values, types, NULLs and texts as the direct read", p.h == d.h);
    CHECK("threads = 8: the same", read_all(path, 8, 0, -1, &p8) == 0 && p8.rows == expect_rows && p8.h == d.h);
    CHECK("split over two readers: every row",
          read_all(path, 2, 1, -1, &s2) == 0 && s2.rc == SQLITE_DONE && s2.rows == expect_rows && s2.readers == 2);
    CHECK("split: the same values in the same order as the direct read", s2.h == d.h);
    CHECK("split, threads = 8: the same", read_all(path, 8, 1, -1, &s8) == 0 && s8.readers == 2 && s8.h == d.h);
    readout e1, e2, e3, e4;
    CHECK("a consumer that stops early stops the reader (direct)",
          read_all(path, 1, 0, 123, &e1) == 0 && e1.rows == 123);
    CHECK("a consumer that stops early stops the reader (prefetching)",
          read_all(path, 2, 0, 123, &e2) == 0 && e2.rows == 123 && e2.h == e1.h);
    CHECK("a consumer that stops early stops both readers (split)",
          read_all(path, 2, 1, 123, &e4) == 0 && e4.rows == 123 && e4.h == e1.h);
    CHECK("a consumer that stops after the first chunks", read_all(path, 2, 0, 40000, &e3) == 0 && e3.rows == 40000);
    CHECK("... split", read_all(path, 2, 1, 40000, &e4) == 0 && e4.rows == 40000);
    /* a file replaced at its path after the import opened it: no second connection to the other file */
    char mine[] = "/tmp/gf-prefetch-mine-XXXXXX", other[] = "/tmp/gf-prefetch-other-XXXXXX";
    int mfd = mkstemp(mine), ofd = mkstemp(other);
    sqlite3 *odb = NULL;
    readout rp;
    if (mfd < 0 || ofd < 0 || close(mfd) != 0 || close(ofd) != 0 || make_db(mine) != 0 || make_db(other) != 0 ||
        sqlite3_open(other, &odb) != SQLITE_OK ||
        sqlite3_exec(odb, "DELETE FROM big WHERE rowid > 60000; VACUUM", NULL, NULL, NULL) != SQLITE_OK) {
        CHECK("two test databases are written", 0);
    } else {
        replace_with = other;
        CHECK("the file replaced after the first connection opened it: one reader, the first file's rows",
              read_all(mine, 2, 1, -1, &rp) == 0 && rp.readers == 1 && rp.rows == expect_rows && rp.h == d.h);
        replace_with = NULL;
    }
    sqlite3_close(odb);
    unlink(mine);
    unlink(other);
    /* the big table's rowids 10^9 apart: a split would be 10^14 rowids in blocks of one chunk, nearly all
     * empty, read one after another for hours; the scan is read by one reader */
    char sparse[] = "/tmp/gf-prefetch-sparse-XXXXXX";
    int sfd = mkstemp(sparse);
    sqlite3 *sdb = NULL;
    readout sp;
    if (sfd < 0 || close(sfd) != 0 || make_db(sparse) != 0 || sqlite3_open(sparse, &sdb) != SQLITE_OK ||
        sqlite3_exec(sdb, "UPDATE big SET rowid = -rowid; UPDATE big SET rowid = -rowid * 1000000007", NULL, NULL,
                     NULL) != SQLITE_OK) {
        CHECK("a database with sparse rowids is written", 0);
    } else {
        CHECK("rowids 10^9 apart, split asked: one reader, the same rows and values",
              read_all(sparse, 2, 1, -1, &sp) == 0 && sp.readers == 1 && sp.rc == SQLITE_DONE &&
                  sp.rows == expect_rows && sp.h == d.h);
    }
    sqlite3_close(sdb);
    unlink(sparse);
    test_rowid_span();
    char copy[] = "/tmp/gf-prefetch-leaf-XXXXXX";
    int cfd = mkstemp(copy);
    readout ld, ls;
    if (cfd < 0 || close(cfd) != 0 || make_db(copy) != 0 || damage_leaf(copy) != 0) {
        CHECK("a copy with a damaged leaf is written", 0);
    } else {
        CHECK("a damaged leaf: the direct read fails after some rows",
              read_all(copy, 1, 0, -1, &ld) == 0 && ld.rc != SQLITE_DONE && ld.rows > 0 && ld.rows < expect_rows);
        CHECK("a damaged leaf, split: two readers, the same rows, then the same error",
              read_all(copy, 2, 1, -1, &ls) == 0 && ls.readers == 2 && ls.rc == ld.rc && ls.rows == ld.rows &&
                  ls.h == ld.h);
        CHECK("a damaged leaf, split: the same message", strcmp(ls.msg, ld.msg) == 0 && strstr(ld.msg, copy));
        printf("# a damaged leaf: %ld rows of %ld, then: %s\n", ld.rows, expect_rows, ld.msg);
    }
    unlink(copy);
    if (damage(path) != 0) {
        CHECK("the database is damaged", 0);
        return tap_done();
    }
    readout bd, bp, bs;
    CHECK("damaged: the direct read fails after some rows",
          read_all(path, 1, 0, -1, &bd) == 0 && bd.rc != SQLITE_DONE && bd.rows > 0 && bd.rows < expect_rows);
    CHECK("damaged: the prefetched read fails the same way after the same rows",
          read_all(path, 2, 0, -1, &bp) == 0 && bp.rc == bd.rc && bp.rows == bd.rows && bp.h == bd.h);
    CHECK("damaged: the same message, naming the file", strcmp(bp.msg, bd.msg) == 0 && strstr(bd.msg, path));
    CHECK("damaged (its last pages too), split: the same rows, then the same error",
          read_all(path, 2, 1, -1, &bs) == 0 && bs.rc == bd.rc && bs.rows == bd.rows && bs.h == bd.h);
    CHECK("damaged, split: the same message", strcmp(bs.msg, bd.msg) == 0);
    printf("# damaged after %ld rows: %s\n", bd.rows, bd.msg);
    unlink(path);
    return tap_done();
}
