/* The model file (see model_file.h; the layout is docs/MODEL_FORMAT.md). The payload goes through a
 * stdio cookie stream that counts and checksums it on its way to or from the file, so that writing and
 * reading are one pass over the data. */
#include "model_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#include "trace_io.h"

#define BOM 0x01020304u
#define BOM_SWAPPED 0x04030201u
#define END_MAGIC "GFMODEND"
#define HEAD_LEN 24
#define TRAIL_LEN 40
#define MAX_PROV ((uint64_t)16 << 20)

typedef struct tap {
    FILE *f;        /* the file underneath */
    uint64_t count; /* bytes passed */
    uint64_t limit; /* reading: bytes of payload left to hand out */
    uLong crc;
} tap;

static uLong crc_add(uLong crc, const char *p, size_t n)
{
    while (n) { /* zlib's length is a uInt */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, (const Bytef *)p, k);
        p += k;
        n -= k;
    }
    return crc;
}

static ssize_t tap_write(void *c, const char *buf, size_t n)
{
    tap *t = c;
    if (fwrite(buf, 1, n, t->f) != n)
        return -1;
    t->crc = crc_add(t->crc, buf, n);
    t->count += n;
    return (ssize_t)n;
}

static ssize_t tap_read(void *c, char *buf, size_t n)
{
    tap *t = c;
    if (n > t->limit)
        n = (size_t)t->limit; /* never into the trailer: the loader sees a clean end of file */
    size_t got = fread(buf, 1, n, t->f);
    if (got < n && ferror(t->f))
        return -1;
    t->crc = crc_add(t->crc, buf, got);
    t->count += got;
    t->limit -= got;
    return (ssize_t)got;
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The tables database's bytes after the payload: their length and CRC-32 in *len, *crc. */
static int write_tables(const char *tables, FILE *f, uint64_t *len, uLong *crc, gf_err *err)
{
    *len = 0;
    *crc = crc32(0, Z_NULL, 0);
    if (!tables)
        return 0;
    FILE *tf = fopen(tables, "rb");
    if (!tf)
        return gf_errf(err, GF_EXIT_ERROR, "model write: %s: %s", tables, strerror(errno));
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, tf)) > 0) {
        if (fwrite(buf, 1, n, f) != n) {
            fclose(tf);
            return gf_errf(err, GF_EXIT_ERROR, "model write: write failed (disk full?)");
        }
        *crc = crc_add(*crc, buf, n);
        *len += n;
    }
    int bad = ferror(tf);
    fclose(tf);
    return bad ? gf_errf(err, GF_EXIT_ERROR, "model write: %s: read error", tables) : 0;
}

int gf_model_write(const gf_trace *t, const char *prov, size_t prov_len, const char *tables, FILE *f, gf_err *err)
{
    if (prov_len > MAX_PROV)
        return gf_errf(err, GF_EXIT_ERROR, "model write: provenance over 16 MiB");
    unsigned char head[HEAD_LEN];
    memcpy(head, GF_MODEL_MAGIC, 8); /* with its NUL */
    put32(head + 8, GF_MODEL_VERSION);
    put32(head + 12, BOM);
    put64(head + 16, (uint64_t)prov_len);
    if (fwrite(head, 1, HEAD_LEN, f) != HEAD_LEN || fwrite(prov, 1, prov_len, f) != prov_len)
        return gf_errf(err, GF_EXIT_ERROR, "model write: %s", strerror(errno));
    uLong hcrc = crc_add(crc_add(crc32(0, Z_NULL, 0), (const char *)head, HEAD_LEN), prov, prov_len);
    tap tp = {f, 0, 0, crc32(0, Z_NULL, 0)};
    cookie_io_functions_t io = {NULL, tap_write, NULL, NULL};
    FILE *pf = fopencookie(&tp, "wb", io);
    if (!pf)
        return gf_errf(err, GF_EXIT_ERROR, "model write: %s", strerror(errno));
    setvbuf(pf, NULL, _IOFBF, 1 << 20);
    int rc = gf_trace_save(t, pf, err);
    if (fclose(pf) != 0 && rc == 0)
        rc = gf_errf(err, GF_EXIT_ERROR, "model write: write failed (disk full?)");
    if (rc != 0)
        return rc;
    uint64_t tlen;
    uLong tcrc;
    if (write_tables(tables, f, &tlen, &tcrc, err) != 0)
        return -1;
    unsigned char tail[TRAIL_LEN] = {0};
    put64(tail, tp.count);
    put64(tail + 8, tlen);
    put32(tail + 16, (uint32_t)hcrc);
    put32(tail + 20, (uint32_t)tp.crc);
    put32(tail + 24, (uint32_t)tcrc);
    memcpy(tail + 32, END_MAGIC, 8);
    if (fwrite(tail, 1, TRAIL_LEN, f) != TRAIL_LEN || fflush(f) != 0)
        return gf_errf(err, GF_EXIT_ERROR, "model write: write failed (disk full?)");
    return 0;
}

static int damaged(gf_err *err, const char *name, const char *why)
{
    return gf_errf(err, GF_EXIT_INPUT, "%s: damaged gpuflame model file: %s", name, why);
}

/* Header and provenance: magic, byte order, version; *prov and the header's CRC on success. */
static int read_head(FILE *f, const char *name, uint64_t size, char **prov, uLong *hcrc, gf_err *err)
{
    unsigned char head[HEAD_LEN];
    if (size < 8 || fread(head, 1, size < HEAD_LEN ? 8 : HEAD_LEN, f) < 8 || memcmp(head, GF_MODEL_MAGIC, 8) != 0)
        return gf_errf(err, GF_EXIT_INPUT, "%s: not a gpuflame model file (no GFMODEL magic)", name);
    if (size < HEAD_LEN + TRAIL_LEN)
        return damaged(err, name, "truncated (shorter than its header and trailer)");
    uint32_t bom = get32(head + 12), version = get32(head + 8);
    if (bom == BOM_SWAPPED)
        return gf_errf(err, GF_EXIT_INPUT, "%s: model file written on a machine of the other byte order; "
                       "import the report again on this kind of machine", name);
    if (bom != BOM)
        return damaged(err, name, "bad byte-order mark");
    if (version != GF_MODEL_VERSION)
        return gf_errf(err, GF_EXIT_INPUT, "%s: written by model format version %u; this gpuflame reads version "
                       "%u only: run this gpuflame's `gpuflame import` on the report again", name, version,
                       GF_MODEL_VERSION);
    uint64_t plen = get64(head + 16);
    if (plen > MAX_PROV || plen > size - HEAD_LEN - TRAIL_LEN)
        return damaged(err, name, "provenance length out of range");
    char *p = malloc((size_t)plen + 1);
    if (!p)
        return gf_oom(err, name);
    if (fread(p, 1, (size_t)plen, f) != plen) {
        free(p);
        return damaged(err, name, "truncated provenance");
    }
    p[plen] = 0;
    *hcrc = crc_add(crc_add(crc32(0, Z_NULL, 0), (const char *)head, HEAD_LEN), p, (size_t)plen);
    *prov = p;
    return 0;
}

/* The trace through a checksumming tap of exactly the payload's length. */
static gf_trace *read_payload(FILE *f, const char *name, uint64_t len, uLong *crc, gf_err *err)
{
    tap tp = {f, 0, len, crc32(0, Z_NULL, 0)};
    cookie_io_functions_t io = {tap_read, NULL, NULL, NULL};
    FILE *pf = fopencookie(&tp, "rb", io);
    if (!pf) {
        gf_errf(err, GF_EXIT_ERROR, "%s: %s", name, strerror(errno));
        return NULL;
    }
    setvbuf(pf, NULL, _IOFBF, 1 << 20);
    gf_err why;
    gf_trace *t = gf_trace_load(pf, len, &why);
    int extra = t && fgetc(pf) != EOF; /* the loader stopped before the payload's end */
    fclose(pf);
    if (!t || extra || tp.count != len) {
        gf_trace_free(t);
        damaged(err, name, t ? "the model ends before its recorded length" : why.msg);
        return NULL;
    }
    *crc = tp.crc;
    return t;
}

/* The parts of a model file: header and provenance read and checked (*prov), the trailer read, the
 * lengths checked against the file's size; f is left at the payload. */
typedef struct parts {
    off_t pstart;     /* the payload's offset */
    uint64_t len;     /* payload length */
    uint64_t tlen;    /* tables length */
    uint32_t pcrc;    /* recorded CRC-32s */
    uint32_t tcrc;
} parts;

static int locate(FILE *f, const char *name, char **prov, parts *pt, gf_err *err)
{
    *prov = NULL;
    if (fseeko(f, 0, SEEK_END) != 0)
        return gf_errf(err, GF_EXIT_INPUT, "%s: cannot seek (a model file must be a regular file): %s", name,
                       strerror(errno));
    off_t size = ftello(f);
    rewind(f);
    uLong hcrc = 0;
    if (size < 0 || read_head(f, name, (uint64_t)size, prov, &hcrc, err) != 0)
        return -1;
    pt->pstart = ftello(f);
    unsigned char tail[TRAIL_LEN];
    const char *why = NULL;
    if (fseeko(f, size - TRAIL_LEN, SEEK_SET) != 0 || fread(tail, 1, TRAIL_LEN, f) != TRAIL_LEN ||
        memcmp(tail + 32, END_MAGIC, 8) != 0)
        why = "truncated (no end marker)";
    else {
        pt->len = get64(tail);
        pt->tlen = get64(tail + 8);
        pt->pcrc = get32(tail + 20);
        pt->tcrc = get32(tail + 24);
        uint64_t body = (uint64_t)(size - TRAIL_LEN - pt->pstart);
        if (pt->len > body || pt->tlen != body - pt->len)
            why = "its length does not match the recorded payload and tables lengths (truncated or appended to)";
        else if (get32(tail + 16) != (uint32_t)hcrc)
            why = "header checksum mismatch";
        else if (fseeko(f, pt->pstart, SEEK_SET) != 0)
            why = "cannot seek";
    }
    if (why) {
        free(*prov);
        *prov = NULL;
        return damaged(err, name, why);
    }
    return 0;
}

int gf_model_read(FILE *f, const char *name, gf_trace **out, char **prov, gf_err *err)
{
    *out = NULL;
    parts pt;
    if (locate(f, name, prov, &pt, err) != 0)
        return -1;
    uLong pcrc = 0;
    *out = read_payload(f, name, pt.len, &pcrc, err);
    if (*out && pt.pcrc == (uint32_t)pcrc)
        return 0;
    int had = *out != NULL;
    gf_trace_free(*out);
    *out = NULL;
    free(*prov);
    *prov = NULL;
    return had ? damaged(err, name, "payload checksum mismatch") : -1;
}

int gf_model_tables(FILE *f, const char *name, const char *dest, int *present, gf_err *err)
{
    char *prov;
    parts pt;
    *present = 0;
    if (locate(f, name, &prov, &pt, err) != 0)
        return -1;
    free(prov);
    if (pt.tlen == 0)
        return 0;
    if (fseeko(f, pt.pstart + (off_t)pt.len, SEEK_SET) != 0)
        return damaged(err, name, "cannot seek to its tables");
    FILE *o = fopen(dest, "wb");
    if (!o)
        return gf_errf(err, GF_EXIT_ERROR, "%s: %s", dest, strerror(errno));
    char buf[1 << 16];
    uint64_t left = pt.tlen;
    uLong crc = crc32(0, Z_NULL, 0);
    int bad = 0;
    while (left && !bad) {
        size_t k = left < sizeof buf ? (size_t)left : sizeof buf;
        if (fread(buf, 1, k, f) != k)
            bad = 1;
        else if (fwrite(buf, 1, k, o) != k)
            bad = 2;
        crc = crc_add(crc, buf, k);
        left -= k;
    }
    if (fclose(o) != 0 && !bad)
        bad = 2;
    if (!bad && (uint32_t)crc != pt.tcrc)
        bad = 3;
    if (!bad) {
        *present = 1;
        return 0;
    }
    remove(dest);
    if (bad == 2)
        return gf_errf(err, GF_EXIT_ERROR, "%s: write failed (disk full?)", dest);
    return damaged(err, name, bad == 1 ? "truncated tables" : "tables checksum mismatch");
}

int gf_model_to_buffer(const gf_trace *t, const char *prov, size_t prov_len, char **buf, size_t *len, gf_err *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = open_memstream(buf, len);
    if (!f)
        return gf_oom(err, "model");
    int rc = gf_model_write(t, prov, prov_len, NULL, f, err);
    if (fclose(f) != 0 && rc == 0)
        rc = gf_oom(err, "model");
    if (rc != 0) {
        free(*buf);
        *buf = NULL;
        *len = 0;
    }
    return rc;
}

int gf_model_from_buffer(const char *buf, size_t len, const char *name, gf_trace **out, char **prov, gf_err *err)
{
    if (len < 8 || !buf)
        return gf_errf(err, GF_EXIT_INPUT, "%s: not a gpuflame model file (%zu bytes)", name, len);
    FILE *f = fmemopen((void *)buf, len, "rb");
    if (!f)
        return gf_errf(err, GF_EXIT_ERROR, "%s: %s", name, strerror(errno));
    int rc = gf_model_read(f, name, out, prov, err);
    fclose(f);
    return rc;
}
