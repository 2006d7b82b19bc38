/* Row prefetching for the export layer's queries (sqlite_export.h gf_sqlq_prefetch, issue 29): SQLite's own
 * work on a big table (sqlite3_step, decoding the record's columns: about half of an import's CPU) runs on
 * a reader thread while the calling thread turns the rows before into events. The reader copies each row's
 * values (type, int64, and the text of the columns asked for as text) into chunks of rows; NCHUNK chunks
 * circulate through a bounded queue, so memory stays a few hundred KiB whatever the table's size. The last
 * chunk carries the statement's last result; the consumer joins the reader before returning it, so the
 * connection's error state (which gf_sqlite_fail reads) is what the failed step left, as without the
 * reader. A consumer that stops early (gf_sqlq_finalize) stops the reader and joins it first. */
#include "sqlite_export.h"
#include "mem.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A consumer that finds no row sleeps until NCHUNK - 1 chunks wait (or the last): on a busy machine each
 * wake-up may wait for a core, so they are few (one per 7 chunks, ~6,000 kernel rows), and the reader,
 * which is the slower side, still has a chunk to fill meanwhile. */
enum { NCHUNK = 8, CHUNK_BYTES = 256 * 1024, MIN_ROWS = 64, MAX_ROWS = 16384 };

typedef struct chunk {
    gf_sqlq_val *vals; /* rows × ncol */
    size_t nrows;
    char *arena;       /* the text columns' values: uint32 length, bytes, NUL */
    size_t alen, acap;
    int last;          /* the statement ended in this chunk, with rc */
    int rc;
} chunk;

struct gf_sqlq_pf {
    sqlite3_stmt *st;
    int ncol;
    uint64_t text;     /* result columns read as text */
    size_t rows;       /* rows per chunk */
    int started, joined;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    int nfull;         /* chunks filled and not yet released by the consumer (under mu) */
    int rwait, cwait;  /* the reader waits for a free chunk, the consumer for full ones (under mu) */
    int ended;         /* the last chunk is among the full ones (under mu) */
    int stop;          /* the consumer stops early (under mu; read also as stop_hint) */
    atomic_int stop_hint;
    chunk ch[NCHUNK];
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

/* The current row into v: 0, or -1 when its text does not fit in memory. */
static int copy_row(struct gf_sqlq_pf *pf, chunk *c, gf_sqlq_val *v)
{
    sqlite3_stmt *st = pf->st;
    for (int k = 0; k < pf->ncol; k++) {
        /* one call into the statement per column: its value read in place (this thread owns the connection),
         * the type first (the int64 reading converts nothing that the type reports) */
        sqlite3_value *val = sqlite3_column_value(st, k);
        v[k].type = sqlite3_value_type(val);
        v[k].i = v[k].type == SQLITE_NULL ? 0 : sqlite3_value_int64(val);
        v[k].off = UINT32_MAX;
        if (v[k].type != SQLITE_NULL && (pf->text >> k & 1)) {
            const char *p = (const char *)sqlite3_column_text(st, k);
            if (p && arena_put(c, p, (uint32_t)sqlite3_column_bytes(st, k), &v[k].off) != 0)
                return -1;
        }
    }
    return 0;
}

static void *reader(void *arg)
{
    struct gf_sqlq_pf *pf = arg;
    for (size_t k = 0;; k++) {
        chunk *c = &pf->ch[k % NCHUNK];
        pthread_mutex_lock(&pf->mu);
        while (pf->nfull == NCHUNK && !pf->stop) {
            pf->rwait = 1;
            pthread_cond_wait(&pf->freed, &pf->mu);
            pf->rwait = 0;
        }
        int stop = pf->stop;
        pthread_mutex_unlock(&pf->mu);
        if (stop)
            return NULL;
        c->nrows = 0;
        c->alen = 0;
        c->last = 0;
        while (c->nrows < pf->rows) {
            if (atomic_load_explicit(&pf->stop_hint, memory_order_relaxed))
                return NULL;
            int rc = sqlite3_step(pf->st);
            if (rc != SQLITE_ROW) {
                c->last = 1;
                c->rc = rc;
                break;
            }
            if (copy_row(pf, c, c->vals + c->nrows * (size_t)pf->ncol) != 0) {
                c->last = 1;
                c->rc = SQLITE_NOMEM;
                break;
            }
            c->nrows++;
        }
        pthread_mutex_lock(&pf->mu);
        pf->nfull++;
        pf->ended = c->last;
        if (pf->cwait && (pf->nfull >= NCHUNK - 1 || c->last)) /* most handovers cost a lock, no wake-up */
            pthread_cond_signal(&pf->filled);
        pthread_mutex_unlock(&pf->mu);
        if (c->last)
            return NULL;
    }
}

static void pf_free(struct gf_sqlq_pf *pf)
{
    for (int k = 0; k < NCHUNK; k++) {
        free(pf->ch[k].vals);
        free(pf->ch[k].arena);
    }
    free(pf);
}

void gf_sqlq_prefetch(gf_sqlq *q, int threads, uint64_t textcols)
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
    for (int i = 0; i < GF_SQLQ_MAXCOL; i++)
        if ((textcols >> i & 1) && q->idx[i] >= 0)
            pf->text |= (uint64_t)1 << q->idx[i];
    size_t rows = CHUNK_BYTES / ((size_t)ncol * sizeof(gf_sqlq_val));
    pf->rows = rows < MIN_ROWS ? MIN_ROWS : rows > MAX_ROWS ? MAX_ROWS : rows;
    for (int k = 0; k < NCHUNK; k++)
        if (!(pf->ch[k].vals = malloc(pf->rows * (size_t)ncol * sizeof(gf_sqlq_val)))) {
            pf_free(pf);
            return; /* no memory for the chunks: the calling thread steps */
        }
    q->pf = pf;
}

void gf_sqlq_idle(gf_sqlq *q, int (*idle)(void *), void *arg)
{
    if (q->pf) {
        q->pf->idle = idle;
        q->pf->idle_arg = arg;
    }
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
    if (pthread_create(&pf->th, NULL, reader, pf) != 0) {
        pthread_cond_destroy(&pf->freed);
        pthread_cond_destroy(&pf->filled);
        pthread_mutex_destroy(&pf->mu);
        goto fail;
    }
    pf->started = 1;
    return 0;
fail:
    pf_free(pf); /* no thread: the calling thread steps */
    q->pf = NULL;
    return -1;
}

static void pf_join(struct gf_sqlq_pf *pf)
{
    if (!pf->started || pf->joined)
        return;
    pthread_join(pf->th, NULL);
    pf->joined = 1;
}

int gf_sqlq_step(gf_sqlq *q)
{
    struct gf_sqlq_pf *pf = q->pf;
    if (!pf)
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
        if (pf->cur && pf->cur->last) { /* the reader has returned: join it, the connection is ours again */
            pf_join(pf);
            pf->done = 1;
            pf->rc = pf->cur->rc;
            q->row = NULL;
            q->text = NULL;
            return pf->rc;
        }
        pthread_mutex_lock(&pf->mu);
        if (pf->cur) {
            pf->nfull--;
            if (pf->rwait)
                pthread_cond_signal(&pf->freed);
        }
        while (pf->nfull == 0 && pf->idle) { /* no row yet: the caller's own work first */
            pthread_mutex_unlock(&pf->mu);
            if (!pf->idle(pf->idle_arg))
                pf->idle = NULL;
            pthread_mutex_lock(&pf->mu);
        }
        if (pf->nfull == 0)
            while (pf->nfull < NCHUNK - 1 && !pf->ended) {
                pf->cwait = 1;
                pthread_cond_wait(&pf->filled, &pf->mu);
                pf->cwait = 0;
            }
        pthread_mutex_unlock(&pf->mu);
        pf->cur = &pf->ch[pf->next++ % NCHUNK];
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
        if (pf->started && !pf->joined) {
            pthread_mutex_lock(&pf->mu);
            pf->stop = 1;
            atomic_store_explicit(&pf->stop_hint, 1, memory_order_relaxed);
            pthread_cond_signal(&pf->freed);
            pthread_mutex_unlock(&pf->mu);
            pf_join(pf);
        }
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
