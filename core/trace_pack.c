/* Packed timeline events and unique details (see trace_pack.h); the compressed columns are encoded on
 * worker threads (limits.threads) and written in order. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "hmap.h"
#include "mem.h"
#include "jsonout.h"
#include "trace_pack.h"

void gf_base64_write(FILE *out, const unsigned char *d, size_t len)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char buf[4096];
    size_t k = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        buf[k++] = A[v >> 18];
        buf[k++] = A[(v >> 12) & 63];
        buf[k++] = A[(v >> 6) & 63];
        buf[k++] = A[v & 63];
        if (k == sizeof buf) {
            fwrite(buf, 1, k, out);
            k = 0;
        }
    }
    if (i < len) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < len ? (uint32_t)d[i + 1] << 8 : 0);
        buf[k++] = A[v >> 18];
        buf[k++] = A[(v >> 12) & 63];
        buf[k++] = i + 1 < len ? A[(v >> 6) & 63] : '=';
        buf[k++] = '=';
    }
    fwrite(buf, 1, k, out);
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t k = 0;
    while (v >= 0x80) {
        p[k++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[k++] = (unsigned char)v;
    return k;
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* ---- details, each distinct one written once ---- */

enum { DKEY = 11 };

static void detail_key(const gf_detail *d, int64_t k[DKEY])
{
    k[0] = d->grid[0], k[1] = d->grid[1], k[2] = d->grid[2];
    k[3] = d->block[0], k[4] = d->block[1], k[5] = d->block[2];
    k[6] = d->regs, k[7] = d->bytes, k[8] = d->copy, k[9] = d->nvtx_level, k[10] = d->domain;
}

static uint64_t key_hash(const int64_t k[DKEY])
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < DKEY; i++)
        h = gf_hash_u64(h ^ (uint64_t)k[i]);
    return h == GF_HMAP_EMPTY ? 0 : h;
}

/* umap[d] = the page's detail index of t->details[d]; uniq[0..*nuniq) = the first detail of each, in the
 * order events first use them (the page is the same whatever order the model stores details in). */
/* The events written: all, or the subset m->only. */
static size_t events_written(const gf_trace *t, const gf_pack_maps *m)
{
    return m->only ? m->nonly : t->n;
}

static size_t event_at(const gf_pack_maps *m, size_t k)
{
    return m->only ? m->only[k] : k;
}

static int unique_details(const gf_trace *t, const gf_pack_maps *m, int32_t *umap, size_t *uniq, size_t *nuniq)
{
    gf_hmap seen;
    gf_hmap_init(&seen);
    *nuniq = 0;
    for (size_t d = 0; d < t->ndetails; d++)
        umap[d] = -2; /* not met yet */
    for (size_t k = 0, ne = events_written(t, m); k < ne; k++) {
        int32_t d = t->detail[event_at(m, k)];
        if (d < 0 || umap[d] != -2)
            continue;
        int64_t k[DKEY], o[DKEY];
        detail_key(&t->details[d], k);
        uint64_t h = key_hash(k);
        size_t pos = 0;
        int64_t *v;
        umap[d] = -1;
        while ((v = gf_hmap_next(&seen, h, &pos)) != NULL) {
            detail_key(&t->details[uniq[*v]], o);
            if (memcmp(k, o, sizeof k) == 0) {
                umap[d] = (int32_t)*v;
                break;
            }
        }
        if (umap[d] >= 0)
            continue;
        if (gf_hmap_add(&seen, h, (int64_t)*nuniq) != 0) {
            gf_hmap_free(&seen);
            return -1;
        }
        uniq[*nuniq] = d;
        umap[d] = (int32_t)(*nuniq)++;
    }
    gf_hmap_free(&seen);
    return 0;
}

static void jstr(FILE *out, const gf_trace *t, int32_t id)
{
    size_t len;
    const char *s = gf_strtab_get(t->str, id, &len);
    gf_json_file_string(out, s, len);
}

static void field(FILE *out, int *first, const char *k)
{
    fprintf(out, "%s\"%s\":", *first ? "" : ",", k);
    *first = 0;
}

static void write_detail(FILE *out, const gf_trace *t, const gf_detail *d)
{
    int first = 1;
    putc('{', out);
    if (d->grid[0] >= 0) {
        field(out, &first, "grid");
        fprintf(out, "[%d,%d,%d]", d->grid[0], d->grid[1], d->grid[2]);
    }
    if (d->block[0] >= 0) {
        field(out, &first, "block");
        fprintf(out, "[%d,%d,%d]", d->block[0], d->block[1], d->block[2]);
    }
    if (d->regs >= 0) {
        field(out, &first, "regs");
        gf_json_file_int(out, d->regs);
    }
    if (d->bytes >= 0) {
        field(out, &first, "bytes");
        gf_json_file_int(out, d->bytes);
    }
    if (d->copy >= 0) {
        field(out, &first, "copy");
        jstr(out, t, d->copy);
    }
    if (d->nvtx_level >= 0) {
        field(out, &first, "nvtx_level");
        gf_json_file_int(out, d->nvtx_level);
    }
    if (d->domain >= 0) {
        field(out, &first, "domain");
        jstr(out, t, d->domain);
    }
    putc('}', out);
}

/* ---- event columns ---- */

enum { C_START, C_DUR, C_LANE, C_CORR, C_NAME, C_STACK, C_KIND, C_DETAIL, NCOLS };
_Static_assert((int)NCOLS == (int)GF_PACK_COLUMNS, "trace_pack.h counts the columns");
static const char *const col_names[NCOLS] = {"start", "dur", "lane", "corr", "name", "stack", "kind", "detail"};

/* The corr column's value of event i: 0 (none) or 1 + the zigzag delta from the last event that had one. */
static uint64_t corr_value(const gf_trace *t, size_t i, int64_t *last_corr)
{
    if (t->corr[i] < 0)
        return 0;
    uint64_t v = zigzag(t->corr[i] - *last_corr) + 1;
    *last_corr = t->corr[i];
    return v;
}

/* The detail column's value of event i: its unique detail + 1; the row details follow the events' own
 * ({"row": 1} is nuniq, {"row": 2} nuniq + 1, ...); 0 for none. */
static uint64_t detail_value(const gf_trace *t, const gf_pack_maps *m, const int32_t *umap, size_t nuniq, size_t i)
{
    if (t->detail[i] >= 0)
        return (uint64_t)umap[t->detail[i]] + 1;
    return m->row && m->row[i] > 0 ? (uint64_t)nuniq + m->row[i] : 0;
}

/* ---- the columns' encoding: streamed in pieces, on worker threads when compressed ---- */

enum { PIECE = 3 * 21845 }; /* bytes of varints handed on at a time (a multiple of 3: base64 streams them) */

/* One column's bytes, compressed: its varints cut every CHUNK bytes (a chunk may end inside a varint; a column
 * with no bytes is one empty chunk), each chunk a raw DEFLATE stream of its own (no zlib header: the page's
 * DecompressionStream("deflate-raw") and Python's zlib.decompress(b, -15) read each), each written as a base64
 * string of the column's JSON array ("varint-deflate-chunks-base64", docs/TIMELINE_DATA.md). libdeflate at level 1
 * compresses a whole buffer 2.2x faster than zlib's level 1 streaming did, and 3 % smaller (issue 42: the
 * 368 MB export's page, 0.56 against 1.24 CPU-s for its 87 MB of varints); chunks keep its buffers at two
 * chunks a thread, and the chunks are the same however encode_column cuts its pieces, so the page is too.
 * A column compressed before the writer reaches it waits as its page text (base64) in an unnamed temporary
 * file (tmpfile: gone when closed or when the process ends), not in memory: issue 42's 5M-event page peaks
 * while it is written, and one column held in memory was 10-14 MB of it. */
enum { CHUNK = 1 << 20 };

typedef struct col_out {
    FILE *f;   /* the column's page text, once done; NULL when no temporary file could take it (the writer
                * then streams the column itself) */
    int state; /* 0 not taken, 1 being encoded, 2 done, 3 written */
} col_out;

struct gf_pack_job {
    const gf_trace *t;
    gf_pack_maps m;
    int32_t *umap;
    size_t *uniq, nuniq, ne;
    col_out col[NCOLS];
    int written;   /* the columns written to the page so far (the next one the writer needs) */
    int stop;      /* no column is taken after this (gf_trace_pack_free) */
    int no_tmp;    /* a temporary file could not be made: no more columns are compressed ahead */
    int row_ready; /* m.row is known (the detail column needs it) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th[NCOLS];
    int nth;
};

/* A piece's varints handed to the sink once PIECE bytes are there (base64 needs pieces of 3 bytes: the rest
 * is carried over). */
static int piece_out(unsigned char *piece, size_t *len, int (*sink)(const unsigned char *, size_t, int, void *),
                     void *arg)
{
    if (*len < PIECE)
        return 0;
    if (sink(piece, PIECE, 0, arg) != 0)
        return -1;
    memmove(piece, piece + PIECE, *len - PIECE);
    *len -= PIECE;
    return 0;
}

/* The start column's value: s (an event's start - t0) as a zigzag delta from the previous event's, which it
 * becomes */
static inline uint64_t start_delta(int64_t s, int64_t *prev)
{
    uint64_t v = zigzag(s - *prev);
    *prev = s;
    return v;
}

/* One column's loop over the events (i: event k's index in the model), the value computed by expr: the
 * column chosen once, not per event (issue 42: a switch for each of 8 columns of every event). */
#define ENCODE_EACH(expr)                                                                                    \
    for (size_t k = 0; k < ne; k++) {                                                                      \
        size_t i = only ? only[k] : k;                                                                     \
        (void)i;                                                                                           \
        len += put_varint(piece + len, (expr));                                                            \
        if (piece_out(piece, &len, sink, arg) != 0)                                                        \
            return -1;                                                                                     \
    }

/* Encodes column c piece by piece, each piece passed to sink(piece, len, last, arg); stops at the first
 * sink error. Each value is a varint: start as a zigzag delta from the previous event, corr as corr_value,
 * indices + 1 so that -1 (none) is 0. */
static int encode_column(const gf_pack_job *j, int c, unsigned char *piece,
                         int (*sink)(const unsigned char *, size_t, int, void *), void *arg)
{
    const gf_trace *t = j->t;
    const gf_pack_maps *m = &j->m;
    const uint32_t *only = m->only;
    size_t len = 0, ne = j->ne;
    switch (c) {
    case C_START: {
        int64_t prev = 0; /* the previous event's start - t0 (0 before the first) */
        ENCODE_EACH(start_delta(t->start[i] - m->t0, &prev))
        break;
    }
    case C_DUR:
        ENCODE_EACH(t->dur[i] > 0 ? (uint64_t)t->dur[i] : 0)
        break;
    case C_LANE:
        ENCODE_EACH(t->lane[i] >= 0 ? (uint64_t)m->lane[t->lane[i]] : 0)
        break;
    case C_NAME:
        ENCODE_EACH((uint64_t)m->name[t->name[i]])
        break;
    case C_STACK:
        ENCODE_EACH(t->stack[i] >= 0 ? (uint64_t)m->stack[t->stack[i]] + 1 : 0)
        break;
    case C_KIND:
        ENCODE_EACH((uint64_t)t->kind[i])
        break;
    case C_CORR: {
        int64_t last_corr = 0;
        ENCODE_EACH(corr_value(t, i, &last_corr))
        break;
    }
    default:
        ENCODE_EACH(detail_value(t, m, j->umap, j->nuniq, i))
        break;
    }
    return sink(piece, len, 1, arg);
}

static int sink_base64(const unsigned char *d, size_t len, int last, void *arg)
{
    (void)last;
    gf_base64_write(arg, d, len);
    return 0;
}

/* A column's chunks as they fill: each compressed and written as a quoted base64 string, comma-separated. */
typedef struct chunk_sink {
    struct libdeflate_compressor *z;
    FILE *out;
    unsigned char *in, *packed; /* CHUNK bytes of varints; their compression (packed_cap bytes) */
    size_t have, packed_cap;
    size_t chunks; /* written so far */
} chunk_sink;

static int flush_chunk(chunk_sink *s)
{
    size_t n = libdeflate_deflate_compress(s->z, s->in, s->have, s->packed, s->packed_cap);
    if (n == 0) /* cannot happen: the buffer holds libdeflate's bound */
        return -1;
    fputs(s->chunks++ ? ",\"" : "\"", s->out);
    gf_base64_write(s->out, s->packed, n);
    putc('"', s->out);
    s->have = 0;
    return 0;
}

static int sink_chunks(const unsigned char *d, size_t len, int last, void *arg)
{
    chunk_sink *s = arg;
    while (len) {
        if (s->have == CHUNK && flush_chunk(s) != 0)
            return -1;
        size_t k = CHUNK - s->have < len ? CHUNK - s->have : len;
        memcpy(s->in + s->have, d, k);
        s->have += k;
        d += k;
        len -= k;
    }
    return last && (s->have || !s->chunks) ? flush_chunk(s) : 0;
}

/* Column c compressed on the calling thread straight into the page (its chunks' strings, without the
 * array's brackets). -1: out of memory. */
static int stream_column(const gf_pack_job *j, int c, FILE *out)
{
    chunk_sink s = {libdeflate_alloc_compressor(1), out, malloc(CHUNK), NULL, 0, 0, 0};
    unsigned char *piece = malloc(PIECE + 16);
    int ok = s.z && s.in && piece;
    if (ok) {
        s.packed_cap = libdeflate_deflate_compress_bound(s.z, CHUNK);
        ok = (s.packed = malloc(s.packed_cap)) != NULL && encode_column(j, c, piece, sink_chunks, &s) == 0;
    }
    if (s.z)
        libdeflate_free_compressor(s.z);
    free(s.in);
    free(s.packed);
    free(piece);
    return ok ? 0 : -1;
}

/* Column scheduling: the writer compresses the column it needs straight into the page when no
 * worker took it; the workers compress the first columns not taken from the one the writer needs into
 * temporary files, and the writer, rather than wait on a worker's column, compresses the last column not
 * taken into one (take_last). So neither thread waits while a column is left, and what waits is on disk, not
 * in memory (col_out). */

/* The column a worker takes next (-1: none now: the detail column before its rows are known, every column
 * from the writer's on taken, or no temporary file to put it in); the caller holds j->mu. */
static int take_column(gf_pack_job *j)
{
    if (j->no_tmp)
        return -1;
    for (int c = j->written; c < NCOLS; c++) {
        if (j->col[c].state != 0)
            continue;
        if (c == C_DETAIL && !j->row_ready)
            return -1;
        j->col[c].state = 1;
        return c;
    }
    return -1;
}

/* While the column the writer needs is still a worker's: the last column not taken after it, which the
 * writer compresses into a buffer rather than wait (the workers take from the front, so the two meet in the
 * middle and neither waits while a column is left); -1: none. The caller holds j->mu. */
static int take_last(gf_pack_job *j, int c)
{
    if (j->no_tmp)
        return -1;
    for (int b = NCOLS - 1; b > c; b--) {
        if (j->col[b].state != 0)
            continue;
        if (b == C_DETAIL && !j->row_ready)
            continue;
        j->col[b].state = 1;
        return b;
    }
    return -1;
}

/* Column c, taken (state 1), compressed into a temporary file outside the lock and marked done; the caller
 * holds j->mu (released meanwhile). */
static void compress_taken(gf_pack_job *j, int c)
{
    pthread_mutex_unlock(&j->mu);
    col_out o = {tmpfile(), 2};
    if (o.f && (stream_column(j, c, o.f) != 0 || fflush(o.f) != 0 || ferror(o.f))) {
        fclose(o.f);
        o.f = NULL;
    }
    pthread_mutex_lock(&j->mu);
    if (!o.f)
        j->no_tmp = 1;
    j->col[c] = o;
}

static void *worker(void *arg)
{
    gf_pack_job *j = arg;
    pthread_mutex_lock(&j->mu);
    while (!j->stop && j->written < NCOLS) {
        int c = take_column(j);
        if (c < 0) { /* the detail column waits for its rows, no temporary file, or nothing left to take */
            pthread_cond_wait(&j->cv, &j->mu);
            continue;
        }
        compress_taken(j, c);
        pthread_cond_broadcast(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

int gf_trace_pack_start(const gf_trace *t, const gf_pack_maps *m, int threads, gf_pack_job **out, gf_err *err)
{
    gf_pack_job *j = calloc(1, sizeof *j);
    size_t nd = t->ndetails ? t->ndetails : 1;
    if (j) {
        j->umap = malloc(nd * sizeof *j->umap);
        j->uniq = malloc(nd * sizeof *j->uniq);
    }
    if (!j || !j->umap || !j->uniq || unique_details(t, m, j->umap, j->uniq, &j->nuniq) != 0) {
        if (j) {
            free(j->umap);
            free(j->uniq);
        }
        free(j);
        return gf_oom(err, "timeline");
    }
    j->t = t;
    j->m = *m;
    j->ne = events_written(t, m);
    j->row_ready = !m->row_later;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    /* threads - 1 workers: the calling thread takes columns too once it reaches the events. Uncompressed
     * columns stream straight to the page (base64 of varints costs no more than copying them). */
    int nw = m->deflate && threads > 1 ? (threads - 1 < NCOLS ? threads - 1 : NCOLS) : 0;
    for (int w = 0; w < nw; w++)
        if (pthread_create(&j->th[j->nth], NULL, worker, j) == 0)
            j->nth++; /* a thread not started: the calling thread does its share */
    *out = j;
    return 0;
}

/* Stops the workers (no column is taken after this), joins them and frees the job. */
void gf_trace_pack_free(gf_pack_job *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->mu);
    j->stop = 1;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    for (int w = 0; w < j->nth; w++)
        pthread_join(j->th[w], NULL);
    for (int c = 0; c < NCOLS; c++)
        if (j->col[c].f)
            fclose(j->col[c].f);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j->umap);
    free(j->uniq);
    free(j);
}

/* The page text of a column from its temporary file into out: 0, or -1 on a read error. */
static int copy_text(FILE *f, FILE *out)
{
    char buf[1 << 16];
    size_t n;
    if (fseek(f, 0, SEEK_SET) != 0)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, out);
    return ferror(f) ? -1 : 0;
}

/* Column c of the page, written as base64: compressed on the calling thread when no worker
 * took it (or the one that did had no temporary file for it), else copied from the temporary file. */
static int write_column(gf_pack_job *j, int c, FILE *out)
{
    if (!j->m.deflate) {
        unsigned char *piece = malloc(PIECE + 16);
        if (!piece)
            return -1;
        encode_column(j, c, piece, sink_base64, out);
        free(piece);
        return 0;
    }
    pthread_mutex_lock(&j->mu);
    int mine = j->col[c].state == 0;
    if (mine)
        j->col[c].state = 1;
    while (!mine && j->col[c].state != 2) {
        int b = take_last(j, c);
        if (b < 0) {
            pthread_cond_wait(&j->cv, &j->mu);
            continue;
        }
        compress_taken(j, b);
    }
    pthread_mutex_unlock(&j->mu);
    col_out *o = &j->col[c];
    int rc = !mine && o->f ? copy_text(o->f, out) : stream_column(j, c, out);
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    pthread_mutex_lock(&j->mu);
    o->state = 3;
    j->written = c + 1;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return rc;
}

void gf_trace_pack_set_row(gf_pack_job *j, const uint8_t *row)
{
    pthread_mutex_lock(&j->mu);
    j->m.row = row;
    j->row_ready = 1;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

int gf_trace_pack_write(gf_pack_job *j, FILE *out, gf_err *err)
{
    if (!j->row_ready) /* a caller that never handed them over: no rows rather than a wait for ever */
        gf_trace_pack_set_row(j, NULL);
    const gf_trace *t = j->t;
    const gf_pack_maps *m = &j->m;
    size_t ne = j->ne, nuniq = j->nuniq;
    fprintf(out, "\"events\":{\"n\":%zu,\"encoding\":\"%s\"", ne,
            m->deflate ? "varint-deflate-chunks-base64" : "varint-base64");
    for (int c = 0; c < NCOLS; c++) {
        fprintf(out, ",\"%s\":%c", col_names[c], m->deflate ? '[' : '"');
        if (write_column(j, c, out) != 0) {
            gf_trace_pack_free(j);
            return gf_errf(err, GF_EXIT_ERROR, "timeline: out of memory compressing the %s column, or its temporary "
                           "file could not be read back", col_names[c]);
        }
        putc(m->deflate ? ']' : '"', out);
    }
    fputs("},\"details\":[", out);
    for (size_t u = 0; u < nuniq; u++) {
        if (u)
            putc(',', out);
        write_detail(out, t, &t->details[j->uniq[u]]);
    }
    int maxrow = 0;
    for (size_t k = 0; m->row && k < ne; k++)
        if (t->detail[event_at(m, k)] < 0 && m->row[event_at(m, k)] > maxrow)
            maxrow = m->row[event_at(m, k)];
    for (int r = 1; r <= maxrow; r++)
        fprintf(out, "%s{\"row\":%d}", nuniq || r > 1 ? "," : "", r);
    putc(']', out);
    gf_trace_pack_free(j);
    return 0;
}

int gf_trace_write_packed(const gf_trace *t, FILE *out, const gf_pack_maps *m, int threads, gf_err *err)
{
    gf_pack_job *j;
    if (gf_trace_pack_start(t, m, threads, &j, err) != 0)
        return -1;
    return gf_trace_pack_write(j, out, err);
}
