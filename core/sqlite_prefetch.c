/* Row prefetching for the export layer's queries (sqlite_export.h gf_sqlq_prefetch, issue 29): SQLite's own
 * work on a big table (sqlite3_step, decoding the record's columns: about half of an import's CPU) runs on
 * a reader thread while the calling thread turns the rows before into events. The reader copies each row's
 * values (type, int64, and the text of the columns asked for as text) into chunks of rows; NCHUNK chunks
 * (SPLIT_NCHUNK for two readers) circulate through a bounded queue, so memory stays a few MiB whatever the
 * table's size. The last chunk carries the statement's last result; the consumer joins the reader before
 * returning it, so the connection's error state (which gf_sqlite_fail reads) is what the failed step left,
 * as without the reader. A consumer that stops early (gf_sqlq_finalize) stops the reader and joins it first.
 *
 * Split (issue 42): a plain scan of a big table (`SELECT cols FROM "T"`, which SQLite reads in rowid order)
 * is read by two readers instead, each over its own connection and its own statement `... WHERE rowid >= ?1
 * AND rowid < ?2`: block k is the rowids [lo + k*R, lo + (k+1)*R) (R: a chunk's rows, so a block fits its
 * chunk) and reader k % 2 reads it into chunk k % SPLIT_NCHUNK; the consumer takes the blocks in order, so
 * the rows come in the order of the scan. A block that ends in an error hands the query back to the calling thread:
 * the readers are joined and the block is stepped again from its first rowid on the caller's connection, the
 * rows delivered already skipped, so the rows and the error are those of a direct read.
 *
 * Direct (issue 42): a plain scan's rows are decoded by the readers from the file's pages themselves
 * (sqlite_btree.h) instead of stepped through SQLite, which was most of a reader's CPU. A row that reading
 * refuses is read by SQLite instead, with the rest of the query: a split's block ends as if in an error (the
 * consumer reads it again, as above); a single reader steps the query's own statement past the rows it
 * delivered, on the query's connection, which it owns. */
#include "sqlite_export.h"
#include "mem.h"
#include "sqlite_btree.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A consumer that finds no row sleeps until NCHUNK - 1 chunks wait (or the last): on a busy machine each
 * wake-up may wait for a core, so they are few (one per 7 chunks, ~6,000 kernel rows), and the reader,
 * which is the slower side, still has a chunk to fill meanwhile. Two readers have twice the chunks and wake
 * the consumer at half of them, so that neither waits for the other's slot while the consumer sleeps. */
enum { NCHUNK = 8, SPLIT_NCHUNK = 16, CHUNK_BYTES = 256 * 1024, MIN_ROWS = 64, MAX_ROWS = 16384, MAX_READERS = 2,
       MIN_SPLIT_BLOCKS = 4 };

static int direct_reading = 1; /* gf_sqlq_direct */

typedef struct chunk {
    gf_sqlq_val *vals; /* rows × ncol */
    size_t nrows;
    char *arena;       /* the text columns' values: uint32 length, bytes, NUL */
    size_t alen, acap;
    int last;          /* the statement ended in this chunk, with rc */
    int rc;
    int full;          /* filled and not yet released by the consumer (under mu) */
} chunk;

/* A reader: its statement (the query's own, or a split's) and, for the second reader of a split, its own
 * connection. */
typedef struct rdr {
    struct gf_sqlq_pf *pf;
    int id;
    sqlite3 *db;       /* owned (NULL: the query's connection) */
    sqlite3_stmt *st;
    pthread_t th;
    int started;
    int direct;        /* reading the file's pages (pf->bt) through cur */
    gf_btcur cur;
    size_t direct_rows;
} rdr;

struct gf_sqlq_pf {
    sqlite3_stmt *st;
    int ncol;
    uint64_t text;     /* result columns read as text */
    gf_btree *bt;      /* the query's table read directly (NULL: through SQLite) */
    size_t rows;       /* rows per chunk */
    int started, joined; /* the readers started (some may not), joined */
    int nrd;           /* readers: 1, or 2 for a split */
    rdr rd[MAX_READERS];
    int64_t lo, nblocks; /* a split: the first rowid and the blocks of `rows` rowids */
    int direct;        /* a split's block failed: the caller steps q->st itself from there */
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    size_t released;   /* chunks the consumer has released, in order (under mu) */
    int nfull;         /* chunks filled and not yet released by the consumer (under mu) */
    int rwait, cwait;  /* readers wait for a free chunk, the consumer for full ones (under mu) */
    int ended;         /* the last chunk is among the full ones (under mu) */
    int stop;          /* the consumer stops early (under mu; read also as stop_hint) */
    atomic_int stop_hint;
    int nch, wake;     /* chunks (NCHUNK or SPLIT_NCHUNK), and how many full ones wake the consumer */
    chunk ch[SPLIT_NCHUNK];
    /* the consumer's side */
    int (*idle)(void *); /* its work while no row waits (NULL: none, or none left) */
    void *idle_arg;
    size_t next;       /* the next chunk to take */
    chunk *cur;
    size_t pos;
    int done, rc;
};

static int arena_put(chunk *c, const char *p, uint32_t n, uint32_t *off)
{
    size_t need = c->alen + sizeof n + n + 1;
    if (need > UINT32_MAX)
        return -1;
    if (GF_GROW(c->arena, c->acap, need, 4096) != 0)
        return -1;
    *off = (uint32_t)c->alen;
    memcpy(c->arena + c->alen, &n, sizeof n);
    if (n)
        memcpy(c->arena + c->alen + sizeof n, p, n);
    c->arena[c->alen + sizeof n + n] = 0;
    c->alen = need;
    return 0;
}

/* The current row of st into v: 0, or -1 when its text does not fit in memory. */
static int copy_row(const struct gf_sqlq_pf *pf, sqlite3_stmt *st, chunk *c, gf_sqlq_val *v)
{
    for (int k = 0; k < pf->ncol; k++) {
        /* one call into the statement per column: its value read in place (this thread owns the connection),
         * the type first (the int64 reading converts nothing that the type reports) */
        sqlite3_value *val = sqlite3_column_value(st, k);
        v[k].type = sqlite3_value_type(val);
        int as_text = (int)(pf->text >> k & 1);
        v[k].i = v[k].type == SQLITE_NULL || (as_text && v[k].type == SQLITE_TEXT) ? 0 : sqlite3_value_int64(val);
        v[k].off = UINT32_MAX;
        if (v[k].type != SQLITE_NULL && as_text) {
            const char *p = (const char *)sqlite3_column_text(st, k);
            if (p && arena_put(c, p, (uint32_t)sqlite3_column_bytes(st, k), &v[k].off) != 0)
                return -1;
        }
    }
    return 0;
}

static int put_text(void *ctx, const char *p, size_t n, uint32_t *off)
{
    return n > UINT32_MAX - 8 ? -1 : arena_put(ctx, p, (uint32_t)n, off);
}

/* The current row of r's cursor into v: 0, or -1 when direct reading refuses one of its values (or its text
 * does not fit in memory). */
static int copy_direct(rdr *r, chunk *c, gf_sqlq_val *v)
{
    if (gf_btcur_row(&r->cur, v, put_text, c) != 0)
        return -1;
    r->direct_rows++;
    return 0;
}

/* A single reader's direct reading refused a row: SQLite reads it and the rest. The query's own statement
 * steps past the rows read directly (SQLite's scan of the same bytes gives those first), so that what follows
 * is SQLite's scan, whatever made the row refused. SQLITE_ROW, or what a step past them returned. */
static int rest_by_sqlite(rdr *r)
{
    r->direct = 0;
    for (size_t i = 0; i < r->direct_rows; i++) {
        int rc = sqlite3_step(r->st);
        if (rc != SQLITE_ROW)
            return rc;
    }
    return SQLITE_ROW;
}

/* The next row of r (a split's block ending before rowid `below`) into the chunk: SQLITE_ROW, SQLITE_DONE,
 * or an error. A block has at most `rows` rowids; a row more (never seen) ends it as an error (SQLITE_NOMEM):
 * the caller reads it. */
static int next_row(rdr *r, chunk *c, int split, int64_t below)
{
    int room = c->nrows < r->pf->rows;
    gf_sqlq_val *v = c->vals + (room ? c->nrows : 0) * (size_t)r->pf->ncol;
    while (r->direct) {
        int got = gf_btcur_next(&r->cur);
        if (got == 1 && split && r->cur.rowid >= below)
            got = 0;
        if (got == 1 && !room)
            return SQLITE_NOMEM;
        if (got == 1 && copy_direct(r, c, v) == 0)
            return SQLITE_ROW;
        if (got == 0)
            return SQLITE_DONE;
        if (split)
            return SQLITE_CORRUPT; /* not an error: the consumer reads the block again through SQLite */
        int rc = rest_by_sqlite(r);
        if (rc != SQLITE_ROW)
            return rc;
    }
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_ROW && (!room || copy_row(r->pf, r->st, c, v) != 0))
        return SQLITE_NOMEM;
    return rc;
}

/* Chunk c filled with the statement's next rows, or with block k's (a split); last and rc set when the
 * query ends in it (a split: its last block, or an error). 0, or 1 when the consumer stops. */
static int fill(rdr *r, chunk *c, size_t k)
{
    const struct gf_sqlq_pf *pf = r->pf;
    int split = pf->nrd > 1;
    int64_t a = split ? pf->lo + (int64_t)k * (int64_t)pf->rows : 0;
    c->nrows = 0;
    c->alen = 0;
    c->last = 0;
    if (split && r->direct && gf_btcur_seek(&r->cur, pf->bt, a) != 0) {
        c->last = 1;
        c->rc = SQLITE_CORRUPT; /* read again through SQLite */
        return 0;
    }
    if (split && !r->direct) {
        sqlite3_reset(r->st);
        sqlite3_bind_int64(r->st, 1, a);
        sqlite3_bind_int64(r->st, 2, a + (int64_t)pf->rows);
    }
    for (;;) {
        if (atomic_load_explicit(&pf->stop_hint, memory_order_relaxed))
            return 1;
        if (!split && c->nrows == pf->rows)
            return 0;
        int rc = next_row(r, c, split, a + (int64_t)pf->rows);
        if (rc != SQLITE_ROW) {
            if (!split || rc != SQLITE_DONE || k + 1 == (size_t)pf->nblocks) {
                c->last = 1;
                c->rc = rc;
            }
            return 0;
        }
        c->nrows++;
    }
}

/* A reader's heap: its connection's page cache (2 MiB, SQLite's default) and its chunks' text. */
#define READER_HEAP ((size_t)3 << 20)

static void *reader(void *arg)
{
    rdr *r = arg;
    struct gf_sqlq_pf *pf = r->pf;
    gf_mem_arena_reserve(READER_HEAP);
    r->direct = pf->bt != NULL;
    if (r->direct && pf->nrd == 1 && gf_btcur_seek(&r->cur, pf->bt, INT64_MIN) != 0)
        (void)rest_by_sqlite(r); /* nothing read yet: the query's own statement */
    for (size_t k = (size_t)r->id;; k += (size_t)pf->nrd) {
        if (pf->nrd > 1 && k >= (size_t)pf->nblocks)
            return NULL;
        chunk *c = &pf->ch[k % (size_t)pf->nch];
        pthread_mutex_lock(&pf->mu);
        while (k >= pf->released + (size_t)pf->nch && !pf->stop) {
            pf->rwait++;
            pthread_cond_wait(&pf->freed, &pf->mu);
            pf->rwait--;
        }
        int stop = pf->stop;
        pthread_mutex_unlock(&pf->mu);
        if (stop || fill(r, c, k))
            return NULL;
        pthread_mutex_lock(&pf->mu);
        c->full = 1;
        pf->nfull++;
        pf->ended |= c->last;
        if (pf->cwait && (pf->nfull >= pf->wake || pf->ended)) /* most handovers cost a lock, no wake-up */
            pthread_cond_signal(&pf->filled);
        pthread_mutex_unlock(&pf->mu);
        if (c->last)
            return NULL;
    }
}

static void pf_free(struct gf_sqlq_pf *pf)
{
    for (int k = 0; k < SPLIT_NCHUNK; k++) {
        free(pf->ch[k].vals);
        free(pf->ch[k].arena);
    }
    if (pf->nrd > 1)
        for (int i = 0; i < pf->nrd; i++) {
            sqlite3_finalize(pf->rd[i].st);
            sqlite3_close(pf->rd[i].db); /* NULL: the query's own connection, not closed here */
        }
    for (int i = 0; i < MAX_READERS; i++)
        gf_btcur_free(&pf->rd[i].cur);
    gf_btree_close(pf->bt);
    free(pf);
}

/* 1 when EXPLAIN QUERY PLAN of sql on db is one step whose detail starts with want and names no index. */
static int plan_is(sqlite3 *db, const char *sql, const char *want)
{
    char *eq = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *st;
    int ok = eq && sqlite3_prepare_v2(db, eq, -1, &st, NULL) == SQLITE_OK;
    sqlite3_free(eq);
    if (!ok)
        return 0;
    int steps = 0, match = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *d = (const char *)sqlite3_column_text(st, 3);
        steps++;
        match = d && strncmp(d, want, strlen(want)) == 0 && (!strstr(d, " INDEX ") || strstr(d, "PRIMARY KEY"));
    }
    sqlite3_finalize(st);
    return steps == 1 && match;
}

/* 1 when the second connection sees the file the first one reads (a file replaced at that path since the
 * import opened it would differ in its pages or its schema's cookie). */
static int same_file(sqlite3 *a, sqlite3 *b)
{
    static const char *const p[] = {"PRAGMA page_count", "PRAGMA schema_version"};
    for (int i = 0; i < 2; i++) {
        int64_t x, y;
        if (gf_sqlite_ints(a, p[i], &x, 1) != 0 || gf_sqlite_ints(b, p[i], &y, 1) != 0 || x != y)
            return 0;
    }
    return 1;
}

/* The split of a plain scan of a big table over two readers (see the head of this file): 0, or -1 when the
 * query is not one (anything but `SELECT ... FROM "T"` read as a scan in rowid order), the table is small,
 * or a step of the set-up fails: then one reader reads it as before. */
static int setup_split(struct gf_sqlq_pf *pf, const gf_sqlq *q, const char *path)
{
    sqlite3 *db = sqlite3_db_handle(q->st);
    const char *sql = sqlite3_sql(q->st);
    if (!q->table || !sql || strstr(sql, " WHERE ") || strstr(sql, " ORDER ") || strstr(sql, " INDEXED") ||
        strstr(sql, " JOIN ") || !plan_is(db, sql, "SCAN "))
        return -1;
    int64_t lo, hi; /* a span the file cannot hold would be blocks of nothing, read one by one for hours */
    if (gf_sqlite_rowid_span(db, q->table, &lo, &hi) != 1 || lo < 0 || hi < lo ||
        (uint64_t)(hi - lo) / pf->rows + 1 < MIN_SPLIT_BLOCKS)
        return -1; /* empty, odd or sparse rowids, or a block or two: one reader */
    pf->lo = lo;
    pf->nblocks = (int64_t)((uint64_t)(hi - lo) / pf->rows + 1);
    char *ss = sqlite3_mprintf("%s WHERE rowid >= ?1 AND rowid < ?2", sql);
    pf->nrd = MAX_READERS;
    gf_err err;
    int ok = ss && plan_is(db, ss, "SEARCH ") && sqlite3_prepare_v2(db, ss, -1, &pf->rd[0].st, NULL) == SQLITE_OK &&
         gf_sqlite_open_export(path, &pf->rd[1].db, &err) == 0;
    /* the second connection reads through its own small page cache, never a memory map: its blocks' pages
     * mapped beside the first's (the narrow import's) would count twice in the resident set */
    ok = ok && same_file(db, pf->rd[1].db) &&
         sqlite3_prepare_v2(pf->rd[1].db, ss, -1, &pf->rd[1].st, NULL) == SQLITE_OK;
    sqlite3_free(ss);
    if (ok)
        return 0;
    for (int i = 0; i < MAX_READERS; i++) {
        sqlite3_finalize(pf->rd[i].st);
        sqlite3_close(pf->rd[i].db);
        pf->rd[i].st = NULL;
        pf->rd[i].db = NULL;
    }
    pf->nrd = 1;
    return -1;
}

void gf_sqlq_prefetch(gf_sqlq *q, int threads, uint64_t textcols, const char *split_path)
{
    if (threads < 2 || !q->st || q->pf || !sqlite3_threadsafe())
        return;
    int ncol = sqlite3_column_count(q->st);
    if (ncol <= 0 || ncol > 64)
        return;
    struct gf_sqlq_pf *pf = calloc(1, sizeof *pf);
    if (!pf)
        return;
    pf->st = q->st;
    pf->ncol = ncol;
    pf->nrd = 1;
    for (int i = 0; i < GF_SQLQ_MAXCOL; i++)
        if ((textcols >> i & 1) && q->idx[i] >= 0)
            pf->text |= (uint64_t)1 << q->idx[i];
    size_t rows = CHUNK_BYTES / ((size_t)ncol * sizeof(gf_sqlq_val));
    pf->rows = rows < MIN_ROWS ? MIN_ROWS : rows > MAX_ROWS ? MAX_ROWS : rows;
    sqlite3 *db = sqlite3_db_handle(q->st);
    if (direct_reading && q->table && plan_is(db, sqlite3_sql(q->st), "SCAN "))
        pf->bt = gf_btree_open(db, q->st, pf->text);
    if (!split_path || setup_split(pf, q, split_path) != 0)
        pf->rd[0].st = q->st;
    pf->nch = pf->nrd > 1 ? SPLIT_NCHUNK : NCHUNK;
    pf->wake = pf->nrd > 1 ? SPLIT_NCHUNK / 2 : NCHUNK - 1;
    for (int k = 0; k < pf->nch; k++)
        if (!(pf->ch[k].vals = malloc(pf->rows * (size_t)ncol * sizeof(gf_sqlq_val)))) {
            pf_free(pf);
            return; /* no memory for the chunks: the calling thread steps */
        }
    for (int i = 0; i < pf->nrd; i++) {
        pf->rd[i].pf = pf;
        pf->rd[i].id = i;
    }
    q->pf = pf;
}

int gf_sqlq_readers(const gf_sqlq *q)
{
    return q->pf ? q->pf->nrd : 0;
}

void gf_sqlq_direct(int on)
{
    direct_reading = on;
}

size_t gf_sqlq_direct_rows(const gf_sqlq *q)
{
    return q->pf ? q->pf->rd[0].direct_rows + q->pf->rd[1].direct_rows : 0;
}

void gf_sqlq_idle(gf_sqlq *q, int (*idle)(void *), void *arg)
{
    if (q->pf) {
        q->pf->idle = idle;
        q->pf->idle_arg = arg;
    }
}

/* Tells the readers to stop and joins them (each returns at its next row or wait). */
static void pf_stop_join(struct gf_sqlq_pf *pf)
{
    if (!pf->started || pf->joined)
        return;
    pthread_mutex_lock(&pf->mu);
    pf->stop = 1;
    atomic_store_explicit(&pf->stop_hint, 1, memory_order_relaxed);
    pthread_cond_broadcast(&pf->freed);
    pthread_mutex_unlock(&pf->mu);
    for (int i = 0; i < pf->nrd; i++)
        if (pf->rd[i].started)
            pthread_join(pf->rd[i].th, NULL);
    pf->joined = 1;
}

static int pf_start(gf_sqlq *q)
{
    struct gf_sqlq_pf *pf = q->pf;
    if (pthread_mutex_init(&pf->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&pf->filled, NULL) != 0) {
        pthread_mutex_destroy(&pf->mu);
        goto fail;
    }
    if (pthread_cond_init(&pf->freed, NULL) != 0) {
        pthread_cond_destroy(&pf->filled);
        pthread_mutex_destroy(&pf->mu);
        goto fail;
    }
    pf->started = 1;
    for (int i = 0; i < pf->nrd; i++)
        if (pthread_create(&pf->rd[i].th, NULL, reader, &pf->rd[i]) == 0) {
            pf->rd[i].started = 1;
        } else { /* none of the query's rows taken yet: the calling thread steps q->st from the start */
            pf_stop_join(pf);
            pthread_cond_destroy(&pf->freed);
            pthread_cond_destroy(&pf->filled);
            pthread_mutex_destroy(&pf->mu);
            goto fail;
        }
    return 0;
fail:
    pf_free(pf);
    q->pf = NULL;
    return -1;
}

/* A split's block cur ended in an error (or the rows did not fit): the readers joined, the calling thread
 * steps the query itself from that block's first rowid on its own connection, past the rows it has had, so
 * that the rows after and the error (the connection's error state) are those of a direct read. */
static int fall_back(gf_sqlq *q)
{
    struct gf_sqlq_pf *pf = q->pf;
    pf_stop_join(pf);
    q->row = NULL;
    q->text = NULL;
    char *sql = sqlite3_mprintf("%s WHERE rowid >= ?1", sqlite3_sql(q->st));
    sqlite3 *db = sqlite3_db_handle(q->st);
    sqlite3_finalize(q->st); /* never stepped: the readers had statements of their own */
    q->st = NULL;
    int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &q->st, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc != SQLITE_OK) {
        pf->done = 1; /* the prepare's error is the connection's */
        return pf->rc = rc;
    }
    pf->direct = 1;
    sqlite3_bind_int64(q->st, 1, pf->lo + (int64_t)(pf->next - 1) * (int64_t)pf->rows);
    for (size_t i = 0; i < pf->cur->nrows; i++)
        if ((rc = sqlite3_step(q->st)) != SQLITE_ROW)
            return rc;
    return sqlite3_step(q->st);
}

int gf_sqlq_step(gf_sqlq *q)
{
    struct gf_sqlq_pf *pf = q->pf;
    if (!pf || pf->direct)
        return sqlite3_step(q->st);
    if (pf->done)
        return pf->rc;
    if (!pf->started && pf_start(q) != 0)
        return sqlite3_step(q->st);
    if (pf->cur && ++pf->pos < pf->cur->nrows) {
        q->row = pf->cur->vals + pf->pos * (size_t)pf->ncol;
        return SQLITE_ROW;
    }
    for (;;) {
        if (pf->cur && pf->cur->last) {
            if (pf->nrd > 1 && pf->cur->rc != SQLITE_DONE)
                return fall_back(q);
            pf_stop_join(pf); /* the readers have returned or return now: the connection is ours again */
            pf->done = 1;
            pf->rc = pf->cur->rc;
            q->row = NULL;
            q->text = NULL;
            return pf->rc;
        }
        pthread_mutex_lock(&pf->mu);
        if (pf->cur) {
            pf->cur->full = 0;
            pf->nfull--;
            pf->released++;
            if (pf->rwait)
                pthread_cond_broadcast(&pf->freed);
        }
        chunk *want = &pf->ch[pf->next % (size_t)pf->nch];
        while (!want->full && pf->idle) { /* no row yet: the caller's own work first */
            pthread_mutex_unlock(&pf->mu);
            if (!pf->idle(pf->idle_arg))
                pf->idle = NULL;
            pthread_mutex_lock(&pf->mu);
        }
        if (!want->full)
            while (!want->full || (pf->nfull < pf->wake && !pf->ended)) {
                pf->cwait = 1;
                pthread_cond_wait(&pf->filled, &pf->mu);
                pf->cwait = 0;
            }
        pthread_mutex_unlock(&pf->mu);
        pf->cur = want;
        pf->next++;
        pf->pos = 0;
        if (pf->cur->nrows) {
            q->row = pf->cur->vals;
            q->text = pf->cur->arena;
            return SQLITE_ROW;
        }
    }
}

void gf_sqlq_finalize(gf_sqlq *q)
{
    struct gf_sqlq_pf *pf = q->pf;
    if (pf) {
        pf_stop_join(pf);
        if (pf->started) {
            pthread_cond_destroy(&pf->freed);
            pthread_cond_destroy(&pf->filled);
            pthread_mutex_destroy(&pf->mu);
        }
        pf_free(pf);
        q->pf = NULL;
    }
    q->row = NULL;
    q->text = NULL;
    sqlite3_finalize(q->st);
    q->st = NULL;
}
