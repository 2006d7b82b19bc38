/* Row prefetching (core/sqlite_prefetch.c): a table read through a reader thread gives the values that the
 * statement gives read directly (integers, NULLs, floats, texts, empty texts, over many chunks); a consumer
 * that stops early stops and joins the reader; a damaged table fails after the same rows with the same
 * error, the connection's error state as the direct read leaves it. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite_export.h"
#include "tap.h"

enum { NROWS = 60000 };

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
    char msg[1024];
} readout;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static int read_all(const char *path, int threads, long stop_after, readout *r)
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
    gf_sqlq_prefetch(&q, threads, 1u << 4);
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        if (stop_after >= 0 && r->rows == stop_after)
            break;
        r->rows++;
        for (int i = 0; i < 5; i++) {
            r->h = mix(r->h, (uint64_t)gf_sqlq_i64(&q, i, -42));
            r->h = mix(r->h, (uint64_t)gf_sqlq_null(&q, i));
            r->h = mix(r->h, (uint64_t)gf_sqlq_type(&q, i));
        }
        size_t len;
        const char *t = gf_sqlq_text(&q, 4, &len);
        r->h = mix(r->h, t ? len + 1 : 0);
        for (size_t k = 0; t && k < len; k++)
            r->h = mix(r->h, (unsigned char)t[k]);
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

int main(void)
{
    char path[] = "/tmp/gf-prefetch-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || make_db(path) != 0) {
        CHECK("a test database is written", 0);
        return tap_done();
    }
    close(fd);
    readout d, p, p8;
    CHECK("direct read", read_all(path, 1, -1, &d) == 0 && d.rc == SQLITE_DONE && d.rows == NROWS);
    CHECK("prefetched read: every row", read_all(path, 2, -1, &p) == 0 && p.rc == SQLITE_DONE && p.rows == NROWS);
    CHECK("prefetched read: the same values, types, NULLs and texts as the direct read", p.h == d.h);
    CHECK("threads = 8: the same", read_all(path, 8, -1, &p8) == 0 && p8.rows == NROWS && p8.h == d.h);
    readout e1, e2;
    CHECK("a consumer that stops early stops the reader (direct)", read_all(path, 1, 123, &e1) == 0 && e1.rows == 123);
    CHECK("a consumer that stops early stops the reader (prefetching)",
          read_all(path, 2, 123, &e2) == 0 && e2.rows == 123 && e2.h == e1.h);
    readout e3;
    CHECK("a consumer that stops after the first chunks", read_all(path, 2, 40000, &e3) == 0 && e3.rows == 40000);
    if (damage(path) != 0) {
        CHECK("the database is damaged", 0);
        return tap_done();
    }
    readout bd, bp;
    CHECK("damaged: the direct read fails after some rows",
          read_all(path, 1, -1, &bd) == 0 && bd.rc != SQLITE_DONE && bd.rows > 0 && bd.rows < NROWS);
    CHECK("damaged: the prefetched read fails the same way after the same rows",
          read_all(path, 2, -1, &bp) == 0 && bp.rc == bd.rc && bp.rows == bd.rows && bp.h == bd.h);
    CHECK("damaged: the same message, naming the file", strcmp(bp.msg, bd.msg) == 0 && strstr(bd.msg, path));
    printf("# damaged after %ld rows: %s\n", bd.rows, bd.msg);
    unlink(path);
    return tap_done();
}
