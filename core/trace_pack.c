/* Packed timeline events and unique details (see trace_pack.h). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hmap.h"
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

/* Raw DEFLATE (no zlib header: the page's DecompressionStream("deflate-raw") and Python's
 * zlib.decompress(b, -15) read it) of in[0..len) into *out; level 1: most of the size for a fraction of
 * the time of the default level. Returns the compressed length, or 0 on error (OOM). */
static size_t deflate_raw(const unsigned char *in, size_t len, unsigned char **out, size_t *cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    size_t need = deflateBound(&z, (uLong)len);
    if (need > *cap) {
        unsigned char *b = realloc(*out, need);
        if (!b) {
            deflateEnd(&z);
            return 0;
        }
        *out = b;
        *cap = need;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    z.next_out = *out;
    z.avail_out = (uInt)*cap;
    int rc = deflate(&z, Z_FINISH);
    size_t n = z.total_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? n : 0;
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
static const char *const col_names[NCOLS] = {"start", "dur", "lane", "corr", "name", "stack", "kind", "detail"};

/* Column c of event i as the number packed: start as a zigzag delta from the previous event, corr as 0
 * (none) or 1 + the zigzag delta from the last event that had one, indices + 1 so that -1 (none) is 0. */
static uint64_t col_value(const gf_trace *t, const gf_pack_maps *m, const int32_t *umap, size_t nuniq, int c,
                          size_t k, int64_t *last_corr)
{
    size_t i = event_at(m, k);
    switch (c) {
    case C_START:
        return zigzag((t->start[i] - m->t0) - (k ? t->start[event_at(m, k - 1)] - m->t0 : 0));
    case C_DUR:
        return t->dur[i] > 0 ? (uint64_t)t->dur[i] : 0;
    case C_LANE:
        return t->lane[i] >= 0 ? (uint64_t)m->lane[t->lane[i]] : 0;
    case C_CORR: {
        if (t->corr[i] < 0)
            return 0;
        uint64_t v = zigzag(t->corr[i] - *last_corr) + 1;
        *last_corr = t->corr[i];
        return v;
    }
    case C_NAME:
        return (uint64_t)m->name[t->name[i]];
    case C_STACK:
        return t->stack[i] >= 0 ? (uint64_t)m->stack[t->stack[i]] + 1 : 0;
    case C_KIND:
        return t->kind[i];
    default: /* the row details follow the events' own: {"row": 1} is nuniq, {"row": 2} nuniq + 1, ... */
        if (t->detail[i] >= 0)
            return (uint64_t)umap[t->detail[i]] + 1;
        return m->row && m->row[i] > 0 ? (uint64_t)nuniq + m->row[i] : 0;
    }
}

int gf_trace_write_packed(const gf_trace *t, FILE *out, const gf_pack_maps *m, gf_err *err)
{
    size_t nd = t->ndetails ? t->ndetails : 1, nuniq = 0;
    int32_t *umap = malloc(nd * sizeof *umap);
    size_t *uniq = malloc(nd * sizeof *uniq);
    size_t ne = events_written(t, m);
    unsigned char *buf = malloc((ne ? ne : 1) * 10);
    if (!umap || !uniq || !buf || unique_details(t, m, umap, uniq, &nuniq) != 0) {
        free(umap);
        free(uniq);
        free(buf);
        return gf_errf(err, GF_EXIT_ERROR, "timeline: out of memory");
    }
    fprintf(out, "\"events\":{\"n\":%zu,\"encoding\":\"%s\"", ne,
            m->deflate ? "varint-deflate-base64" : "varint-base64");
    unsigned char *zbuf = NULL;
    size_t zcap = 0;
    for (int c = 0; c < NCOLS; c++) {
        size_t len = 0;
        int64_t last_corr = 0;
        for (size_t k = 0; k < ne; k++)
            len += put_varint(buf + len, col_value(t, m, umap, nuniq, c, k, &last_corr));
        fprintf(out, ",\"%s\":\"", col_names[c]);
        if (m->deflate) {
            size_t zlen = deflate_raw(buf, len, &zbuf, &zcap);
            if (zlen == 0 && len > 0) {
                free(zbuf);
                free(umap);
                free(uniq);
                free(buf);
                return gf_errf(err, GF_EXIT_ERROR, "timeline: out of memory (compressing the %s column)", col_names[c]);
            }
            gf_base64_write(out, zbuf, zlen);
        } else {
            gf_base64_write(out, buf, len);
        }
        putc('"', out);
    }
    free(zbuf);
    fputs("},\"details\":[", out);
    for (size_t u = 0; u < nuniq; u++) {
        if (u)
            putc(',', out);
        write_detail(out, t, &t->details[uniq[u]]);
    }
    int maxrow = 0;
    for (size_t k = 0; m->row && k < ne; k++)
        if (t->detail[event_at(m, k)] < 0 && m->row[event_at(m, k)] > maxrow)
            maxrow = m->row[event_at(m, k)];
    for (int r = 1; r <= maxrow; r++)
        fprintf(out, "%s{\"row\":%d}", nuniq || r > 1 ? "," : "", r);
    putc(']', out);
    free(umap);
    free(uniq);
    free(buf);
    return 0;
}
