/* Direct reading of a table's rows from an SQLite file's b-tree pages (sqlite_btree.h), by SQLite's documented
 * file format (https://www.sqlite.org/fileformat2.html): the database header (§1.3), table b-tree pages (§1.6:
 * interior pages of (left child, largest rowid) cells and a right-most child; leaf pages of (payload size,
 * rowid, payload) cells, a payload too large for its page continued in a chain of overflow pages) and records
 * (§2.1: a header of serial types, then the values).
 *
 * What is read here is what SQLite reads: the file is opened by the caller's connection read-only and
 * immutable (sqlite_export.c), so SQLite reads the same bytes, with no journal or WAL in between; the page and
 * schema counts and three rows of the table are checked against the connection's. Pages are copied by pread
 * into a cursor's own buffers, not mapped: a memory map's pages count in the resident set until given back,
 * and giving them back (madvise) flushes every core's TLB (issue 42: ~8 % of `timeline`'s CPU on a VM at
 * 1 MiB a time, and 16 MiB a time grew a bounded import's RSS with its input); a file cut short is a short
 * read, not a SIGBUS. A scan in rowid order visits the
 * leaves left to right as SQLite's does. A column is read without conversion, as SQLite reads a table column
 * (it converts only REAL-affinity columns, refused here). Anything else this is not sure of is refused. */
#include "sqlite_btree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem.h"
#include "sqlite_export.h"

enum { SRC_COL, SRC_ROWID, SRC_NULL };
enum { MAXCOL = 64, MAXFIELD = 64 };
#define MAX_PAYLOAD ((uint64_t)1 << 30) /* SQLite's default SQLITE_MAX_LENGTH is 1e9 */
#define READ_AHEAD ((size_t)64 << 10) /* a leaf's read brings the pages after it: the next leaves, mostly */

typedef struct col {
    int src;         /* SRC_* */
    int field;       /* SRC_COL: the field of the record */
    int text;        /* read as text */
    int has_default; /* a record short of this field reads the column's default, not NULL: refused there */
} col;

struct gf_btree {
    int fd;
    uint64_t size;
    uint32_t page_size, usable, npages, root;
    int ncol, nfield; /* result columns; record fields to decode (the last one read, + 1) */
    col c[MAXCOL];
};

static uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An SQLite varint at p, not past end: its length in bytes, or 0 when it runs past end. */
static int varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) {
        if (p + i >= end)
            return 0;
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    if (p + 8 >= end)
        return 0;
    *v = x << 8 | p[8];
    return 9;
}

/* varint for the common case of one byte (a record's sizes, its serial types), inline */
static inline int varint1(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    if (p < end && *p < 0x80) {
        *v = *p;
        return 1;
    }
    return varint(p, end, v);
}

/* ---- the open: the query's columns, the table's fields, the file ---- */

/* `SELECT "a", rowid, NULL FROM "T"`: the result columns into b, the table's name into table. */
static int parse_select(const char *s, gf_btree *b, char **names, char *table, size_t tcap)
{
    if (strncmp(s, "SELECT ", 7) != 0)
        return -1;
    s += 7;
    for (;;) {
        while (*s == ' ')
            s++;
        if (b->ncol == MAXCOL)
            return -1;
        col *c = &b->c[b->ncol];
        const char *e;
        if (*s == '"' && (e = strchr(s + 1, '"')) && e > s + 1) {
            if (!(names[b->ncol] = strndup(s + 1, (size_t)(e - s - 1))))
                return -1;
            c->src = SRC_COL;
            s = e + 1;
        } else if (strncasecmp(s, "rowid", 5) == 0 && (s[5] == ' ' || s[5] == ',')) {
            c->src = SRC_ROWID;
            s += 5;
        } else if (strncasecmp(s, "NULL", 4) == 0 && (s[4] == ' ' || s[4] == ',')) {
            c->src = SRC_NULL;
            s += 4;
        } else {
            return -1;
        }
        b->ncol++;
        while (*s == ' ')
            s++;
        if (*s != ',')
            break;
        s++;
    }
    const char *e;
    if (strncmp(s, "FROM \"", 6) != 0 || !(e = strchr(s + 6, '"')) || e == s + 6 || (size_t)(e - s - 6) >= tcap)
        return -1;
    memcpy(table, s + 6, (size_t)(e - s - 6));
    table[e - s - 6] = 0;
    for (s = e + 1; *s == ' '; s++)
        ;
    return *s ? -1 : 0;
}

/* SQLite's column affinity rule 4 (§3.1 of its datatype page): the one affinity it converts as it reads. */
static int real_affinity(const char *type)
{
    char up[128];
    size_t n = 0;
    for (; type && type[n] && n + 1 < sizeof up; n++)
        up[n] = (char)(type[n] >= 'a' && type[n] <= 'z' ? type[n] - 32 : type[n]);
    up[n] = 0;
    if (strstr(up, "INT") || strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT") || strstr(up, "BLOB") ||
        !n)
        return 0;
    return strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB");
}

/* One row of PRAGMA table_xinfo: the result columns that read it get its field. */
static int match_field(gf_btree *b, char **names, const char *name, const char *type, int hasdef, int field)
{
    for (int k = 0; k < b->ncol; k++) {
        if (b->c[k].src != SRC_COL || !names[k] || strcasecmp(names[k], name) != 0)
            continue;
        if (real_affinity(type) || field >= MAXFIELD)
            return -1;
        b->c[k].field = field;
        b->c[k].has_default = hasdef;
        free(names[k]);
        names[k] = NULL; /* matched */
    }
    return 0;
}

/* The record fields of the query's columns (PRAGMA table_xinfo: a rowid table's columns in record order). An
 * INTEGER PRIMARY KEY is the rowid itself (NULL in the record). Refused: hidden or generated columns, a column
 * named like the rowid where the query reads the rowid, the DESC quirk (that key is not the rowid). */
static int table_fields(sqlite3 *db, const char *table, const char *create, gf_btree *b, char **names)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT name, type, pk, hidden, dflt_value IS NOT NULL FROM pragma_table_xinfo(?1)",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int field = 0, npk = 0, pkfield = -1, alias = 0, rc = 0, rowid_named = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0), *type = (const char *)sqlite3_column_text(st, 1);
        if (!name || sqlite3_column_int(st, 3) != 0) {
            rc = -1;
            break;
        }
        if (sqlite3_column_int(st, 2) > 0 && ++npk == 1) {
            pkfield = field;
            alias = type && strcasecmp(type, "INTEGER") == 0;
        }
        rowid_named |= !strcasecmp(name, "rowid") || !strcasecmp(name, "oid") || !strcasecmp(name, "_rowid_");
        rc = match_field(b, names, name, type, sqlite3_column_int(st, 4), field++);
    }
    sqlite3_finalize(st);
    alias = alias && npk == 1;
    if (rc != 0 || field == 0 || (alias && (!create || strcasestr(create, "DESC"))))
        return -1;
    for (int k = 0; k < b->ncol; k++) {
        col *c = &b->c[k];
        if (names[k] || (c->src == SRC_ROWID && rowid_named))
            return -1; /* a column the table does not have; a rowid that names a column */
        if (c->src == SRC_COL && alias && c->field == pkfield)
            c->src = SRC_ROWID;
        if (c->src == SRC_COL && b->nfield <= c->field)
            b->nfield = c->field + 1;
    }
    return 0;
}

/* The table's root page and CREATE statement; -1 for anything but a rowid table with a root. */
static int root_page(sqlite3 *db, const char *table, gf_btree *b, char **create)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?1 "
                               "COLLATE NOCASE", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER;
    int64_t root = ok ? sqlite3_column_int64(st, 0) : 0;
    const char *sql = ok ? (const char *)sqlite3_column_text(st, 1) : NULL;
    ok = ok && root >= 1 && root <= UINT32_MAX && sql && !strcasestr(sql, "WITHOUT ROWID") &&
         (*create = strdup(sql)) != NULL;
    ok = ok && sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    b->root = (uint32_t)root;
    return ok ? 0 : -1;
}

/* Pages [n, n + count) of the file into buf: 0, or -1 (pages the file does not have, a short read). */
static int read_pages(const gf_btree *b, uint32_t n, uint32_t count, uint8_t *buf)
{
    if (n < 1 || count < 1 || n > b->npages || count > b->npages - n + 1)
        return -1;
    size_t len = (size_t)count * b->page_size, got = 0;
    off_t at = (off_t)(n - 1) * b->page_size;
    while (got < len) {
        ssize_t r = pread(b->fd, buf + got, len - got, at + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* The file's header: a rollback-journal database of the connection's pages and schema. */
static int check_header(sqlite3 *db, gf_btree *b, int text)
{
    uint8_t h[100];
    if (b->size < 512 || pread(b->fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0 ||
        h[18] != 1 || h[19] != 1 || h[21] != 64 || h[22] != 32 || h[23] != 32 || (text && get32(h + 56) != 1))
        return -1;
    uint32_t ps = get16(h + 16) == 1 ? 65536 : get16(h + 16);
    if (ps < 512 || (ps & (ps - 1)) || ps - h[20] < 480)
        return -1;
    b->page_size = ps;
    b->usable = ps - h[20];
    uint64_t in_file = b->size / ps, hdr = get32(h + 24) == get32(h + 92) ? get32(h + 28) : 0;
    int64_t count, schema;
    if (gf_sqlite_ints(db, "PRAGMA page_count", &count, 1) != 0 ||
        gf_sqlite_ints(db, "PRAGMA schema_version", &schema, 1) != 0)
        return -1;
    if (count != (int64_t)(hdr ? hdr : in_file) || count < 1 || (uint64_t)count > in_file ||
        schema != (int64_t)(int32_t)get32(h + 40))
        return -1;
    b->npages = (uint32_t)count;
    return 0;
}

static int open_file(sqlite3 *db, gf_btree *b, int text)
{
    const char *path = sqlite3_db_filename(db, "main");
    struct stat sb;
    if (!path || !*path || (b->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    if (fstat(b->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return -1;
    b->size = (uint64_t)sb.st_size;
    return check_header(db, b, text);
}

/* The kind of page n (its first byte after the file header on page 1), or -1. */
static int page_kind(const gf_btree *b, uint32_t n)
{
    uint8_t k;
    if (n < 1 || n > b->npages || pread(b->fd, &k, 1, (off_t)(n - 1) * b->page_size + (n == 1 ? 100 : 0)) != 1)
        return -1;
    return k;
}

static int same_rows(sqlite3 *db, sqlite3_stmt *st, const char *table, const gf_btree *b);

gf_btree *gf_btree_open(sqlite3 *db, sqlite3_stmt *st, uint64_t textcols)
{
    const char *sql = sqlite3_sql(st);
    gf_btree *b = calloc(1, sizeof *b);
    char *names[MAXCOL] = {0}, table[256], *create = NULL;
    if (b)
        b->fd = -1;
    int ok = b && sql && parse_select(sql, b, names, table, sizeof table) == 0 && b->ncol == sqlite3_column_count(st);
    for (int k = 0; ok && k < b->ncol; k++)
        b->c[k].text = (int)(textcols >> k & 1);
    ok = ok && root_page(db, table, b, &create) == 0 && table_fields(db, table, create, b, names) == 0 &&
         open_file(db, b, textcols != 0) == 0;
    int kind = ok ? page_kind(b, b->root) : -1;
    for (int k = 0; k < MAXCOL; k++)
        free(names[k]);
    free(create);
    if ((kind != 0x05 && kind != 0x0D) || same_rows(db, st, table, b) != 0) {
        gf_btree_close(b);
        return NULL;
    }
    return b;
}

void gf_btree_close(gf_btree *b)
{
    if (!b)
        return;
    if (b->fd >= 0)
        close(b->fd);
    free(b);
}

/* ---- the cursor ---- */

/* Page n for depth d of c's path: its bytes, its kind in *kind; NULL when it cannot be read. A leaf is read
 * with the READ_AHEAD bytes after it (the next leaves of a file written in rowid order) into c->ra, where the
 * next leaves are then found; an interior page has a buffer of its own, as the read-ahead moves on below it. */
static const uint8_t *fetch(gf_btcur *c, int d, uint32_t n, int *kind)
{
    const gf_btree *b = c->b;
    size_t ps = b->page_size, hdr = n == 1 ? 100 : 0;
    uint32_t ahead = READ_AHEAD / ps ? (uint32_t)(READ_AHEAD / ps) : 1;
    if (n < 1 || n > b->npages || (!c->lvl[d] && !(c->lvl[d] = malloc(ps))) ||
        (!c->ra && !(c->ra = malloc(ahead * ps))))
        return NULL;
    const uint8_t *p = NULL;
    if (c->ra_n && n >= c->ra_lo && n - c->ra_lo < c->ra_n) {
        p = c->ra + (size_t)(n - c->ra_lo) * ps;
    } else if (d == c->leaf_depth) { /* where the last leaf was: a leaf again, most likely */
        uint32_t cnt = b->npages - n + 1 < ahead ? b->npages - n + 1 : ahead;
        c->ra_n = 0;
        if (read_pages(b, n, cnt, c->ra) != 0)
            return NULL;
        c->ra_lo = n;
        c->ra_n = cnt;
        p = c->ra;
    } else if (read_pages(b, n, 1, c->lvl[d]) == 0) {
        p = c->lvl[d];
    } else {
        return NULL;
    }
    *kind = p[hdr];
    if (*kind == 0x0D) {
        c->leaf_depth = d;
    } else if (p != c->lvl[d]) {
        memcpy(c->lvl[d], p, ps);
        p = c->lvl[d];
    }
    return p;
}

/* Page n onto the cursor's path (its first cell next): -1 when it is no table b-tree page, the path is deeper
 * than SQLite allows, or more pages have been entered than a scan of the file could (a cycle). */
static int push(gf_btcur *c, uint32_t n)
{
    const gf_btree *b = c->b;
    int kind = -1;
    if (c->depth == GF_BT_MAXDEPTH || ++c->visits > 2 * (uint64_t)b->npages + 8)
        return -1;
    const uint8_t *p = fetch(c, c->depth, n, &kind);
    if (!p || (kind != 0x05 && kind != 0x0D))
        return -1;
    size_t off = n == 1 ? 100 : 0, hl = kind == 0x0D ? 8 : 12;
    uint32_t ncell = get16(p + off + 3);
    /* SQLite's own checks as it enters a page: no more cells than fit (MX_CELL), none missing below the root */
    if (off + hl + 2 * (size_t)ncell > b->usable || ncell > (b->page_size - 8) / 6 || (c->depth && !ncell))
        return -1;
    int d = c->depth++;
    c->page[d] = n;
    c->idx[d] = 0;
    c->base[d] = p;
    c->cells[d] = p + off + hl;
    c->ncell[d] = ncell;
    c->leaf[d] = kind == 0x0D;
    c->right[d] = c->leaf[d] ? 0 : get32(p + off + 8);
    return 0;
}

/* Cell i of the page at depth d: its start, and the end of the page's usable bytes; NULL when it points
 * outside its page's cell content. */
static const uint8_t *cell(const gf_btcur *c, int d, uint32_t i, const uint8_t **end)
{
    size_t cp = get16(c->cells[d] + 2 * (size_t)i), lo = (size_t)(c->cells[d] - c->base[d]) + 2 * (size_t)c->ncell[d];
    *end = c->base[d] + c->b->usable;
    return cp >= lo && cp < c->b->usable ? c->base[d] + cp : NULL;
}

/* Cell i of an interior page at depth d: its left child and key. */
static int interior_cell(const gf_btcur *c, int d, uint32_t i, uint32_t *child, int64_t *key)
{
    const uint8_t *end, *q = cell(c, d, i, &end);
    uint64_t k;
    if (!q || q + 4 >= end || !varint(q + 4, end, &k))
        return -1;
    *child = get32(q);
    *key = (int64_t)k;
    return 0;
}

/* The bytes of a payload kept on its leaf (§1.6: U usable bytes, X = U - 35, M = (U - 12) * 32 / 255 - 23). */
static uint64_t local_bytes(const gf_btree *b, uint64_t len)
{
    uint64_t u = b->usable, x = u - 35, m = (u - 12) * 32 / 255 - 23, k = m + (len - m) % (u - 4);
    return len <= x ? len : k <= x ? k : m;
}

/* A payload continued in overflow pages, copied together into c->ovf. */
static int gather_overflow(gf_btcur *c, const uint8_t *q, uint64_t local, uint64_t len)
{
    const gf_btree *b = c->b;
    if (GF_GROW(c->ovf, c->ovfcap, (size_t)len, 4096) != 0)
        return -1;
    memcpy(c->ovf, q, (size_t)local);
    uint64_t have = local;
    uint32_t next = get32(q + local), hops = 0;
    while (have < len) {
        if (next < 2 || next > b->npages || ++hops > b->npages ||
            (!c->opage && !(c->opage = malloc(b->page_size))) || read_pages(b, next, 1, c->opage) != 0)
            return -1;
        const uint8_t *op = c->opage;
        uint64_t take = len - have < b->usable - 4 ? len - have : b->usable - 4;
        memcpy(c->ovf + have, op + 4, (size_t)take);
        have += take;
        next = get32(op);
    }
    c->rec = c->ovf;
    c->rlen = (size_t)len;
    return 0;
}

/* The serial types and offsets of the current record's fields, up to the last one a column reads, with the
 * checks of SQLite's OP_Column: a header past its declared size or the record, a header read to its end whose
 * values do not end where the record does, or values past the record are a damaged record (-1: SQLite reads
 * it and says so). A header size of 0 or less than its own varint reads as no fields, as in SQLite. */
static int decode_header(gf_btcur *c)
{
    const uint8_t *r = c->rec, *end = r + c->rlen;
    uint64_t hs;
    int k = varint1(r, end, &hs);
    if (!k || hs > 98307 || hs > c->rlen)
        return -1;
    const uint8_t *h = r + k, *hend = r + hs;
    uint64_t at = hs;
    static const uint8_t size[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 255, 255};
    int nf = 0;
    while (h < hend && nf < c->b->nfield) {
        uint64_t t = *h, len;
        if (t < 0x80) /* every serial type up to a text of 57 bytes: one byte */
            h++;
        else if ((k = varint(h, hend, &t)))
            h += k;
        else
            return -1;
        len = t >= 12 ? (t - 12) / 2 : size[t];
        if (len == 255 || len > c->rlen)
            return -1; /* a reserved serial type; a value longer than the record */
        c->ftype[nf] = t;
        c->foff[nf++] = (uint32_t)at;
        at += len;
    }
    if (at > c->rlen || (nf && h >= hend && at != c->rlen))
        return -1;
    c->nf = nf;
    return 0;
}

/* Cell i of the leaf at depth d made the current row. */
static int leaf_row(gf_btcur *c, int d, uint32_t i)
{
    const uint8_t *end, *q = cell(c, d, i, &end);
    uint64_t len, rid;
    int k1, k2;
    if (!q || !(k1 = varint1(q, end, &len)) || !(k2 = varint(q + k1, end, &rid)) || len > MAX_PAYLOAD)
        return -1;
    q += k1 + k2;
    uint64_t local = local_bytes(c->b, len);
    if ((uint64_t)(end - q) < local + (local < len ? 4 : 0))
        return -1;
    int64_t rowid = (int64_t)rid;
    if (c->have_last && rowid <= c->last)
        return -1; /* not in rowid order: not a b-tree as SQLite wrote it */
    if (local < len) {
        if (gather_overflow(c, q, local, len) != 0)
            return -1;
    } else {
        c->rec = q;
        c->rlen = (size_t)len;
    }
    c->rowid = c->last = rowid;
    c->have_last = 1;
    return decode_header(c);
}

/* The rowid of cell i of the leaf at depth d, for a seek. */
static int leaf_rowid(const gf_btcur *c, int d, uint32_t i, int64_t *rowid)
{
    const uint8_t *end, *q = cell(c, d, i, &end);
    uint64_t len, rid;
    int k;
    if (!q || !(k = varint(q, end, &len)) || !varint(q + k, end, &rid))
        return -1;
    *rowid = (int64_t)rid;
    return 0;
}

int gf_btcur_seek(gf_btcur *c, const gf_btree *b, int64_t rowid)
{
    if (!c->b)
        c->leaf_depth = -1;
    c->b = b;
    c->depth = 0;
    c->visits = 0; /* a scan from here enters each page once; a split's blocks are each a scan of their own */
    if (push(c, b->root) != 0)
        return -1;
    for (;;) {
        int d = c->depth - 1;
        uint32_t lo = 0, hi = c->ncell[d], child = 0;
        while (lo < hi) { /* the first cell whose key (interior: the largest rowid below it) is >= rowid */
            uint32_t mid = lo + (hi - lo) / 2;
            int64_t key;
            if (c->leaf[d] ? leaf_rowid(c, d, mid, &key) : interior_cell(c, d, mid, &child, &key))
                return -1;
            if (key < rowid)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (c->leaf[d]) {
            c->idx[d] = lo;
            return 0;
        }
        int64_t key;
        if (lo < c->ncell[d] && interior_cell(c, d, lo, &child, &key) != 0)
            return -1;
        c->idx[d] = lo + 1; /* after that child: the next cell's, then the right-most */
        if (push(c, lo < c->ncell[d] ? child : c->right[d]) != 0)
            return -1;
    }
}

int gf_btcur_next(gf_btcur *c)
{
    while (c->depth > 0) {
        int d = c->depth - 1;
        if (c->leaf[d]) {
            if (c->idx[d] < c->ncell[d])
                return leaf_row(c, d, c->idx[d]++) == 0 ? 1 : -1;
            c->depth--;
            continue;
        }
        uint32_t i = c->idx[d]++, child;
        int64_t key;
        if (i < c->ncell[d]) {
            if (interior_cell(c, d, i, &child, &key) != 0 || push(c, child) != 0)
                return -1;
        } else if (i == c->ncell[d]) {
            if (push(c, c->right[d]) != 0)
                return -1;
        } else {
            c->depth--;
        }
    }
    return 0;
}

/* An integer of serial type 1-6 (big-endian two's complement of 1, 2, 3, 4, 6, 8 bytes), 8 (0) or 9 (1). */
static inline int64_t int_value(uint64_t t, const uint8_t *v)
{
    switch (t) {
    case 1:
        return (int8_t)v[0];
    case 2:
        return (int16_t)(uint16_t)get16(v);
    case 3:
        return (int32_t)((uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8) >> 8;
    case 4:
        return (int32_t)get32(v);
    case 5:
        return (int64_t)((uint64_t)get16(v) << 48 | (uint64_t)get32(v + 2) << 16) >> 16;
    case 6:
        return (int64_t)((uint64_t)get32(v) << 32 | get32(v + 4));
    default:
        return (int64_t)t - 8;
    }
}

/* Result column k of the current row: type, int64 reading, and for a column read as text its bytes. */
static int btcur_col(gf_btcur *c, int k, int *type, int64_t *i, const char **p, size_t *n)
{
    const col *d = &c->b->c[k];
    *p = NULL;
    *n = 0;
    *i = 0;
    *type = SQLITE_NULL;
    if (d->src == SRC_NULL)
        return 0;
    uint64_t t = 0;
    const uint8_t *v = NULL;
    if (d->src == SRC_COL) {
        if (d->field >= c->nf)
            return d->has_default ? -1 : 0; /* past a short record (a column added later): its default */
        t = c->ftype[d->field];
        v = c->rec + c->foff[d->field];
        if (t == 0)
            return 0;
    }
    if (d->src == SRC_ROWID || t <= 6 || t == 8 || t == 9) {
        *type = SQLITE_INTEGER;
        *i = d->src == SRC_ROWID ? c->rowid : int_value(t, v);
        if (d->text) {
            *n = (size_t)snprintf(c->num, sizeof c->num, "%lld", (long long)*i);
            *p = c->num;
        }
        return 0;
    }
    if (t >= 13 && (t & 1) && d->text) {
        *type = SQLITE_TEXT;
        *p = (const char *)v;
        *n = (size_t)((t - 13) / 2);
        return 0;
    }
    return -1; /* a float, a blob, or text where an integer is read: SQLite's conversions */
}

int gf_btcur_row(gf_btcur *c, gf_sqlq_val *v, int (*put)(void *ctx, const char *p, size_t n, uint32_t *off),
                 void *ctx)
{
    const gf_btree *b = c->b;
    for (int k = 0; k < b->ncol; k++) {
        const col *d = &b->c[k];
        v[k].off = UINT32_MAX;
        if (d->src == SRC_COL && !d->text && d->field < c->nf) { /* the common case: an integer column */
            uint64_t t = c->ftype[d->field];
            if (t - 1 < 6 || t == 8 || t == 9) {
                v[k].type = SQLITE_INTEGER;
                v[k].i = int_value(t, c->rec + c->foff[d->field]);
                continue;
            }
            if (t == 0) {
                v[k].type = SQLITE_NULL;
                v[k].i = 0;
                continue;
            }
        }
        const char *p;
        size_t n;
        int type;
        if (btcur_col(c, k, &type, &v[k].i, &p, &n) != 0 || (p && put(ctx, p, n, &v[k].off) != 0))
            return -1;
        v[k].type = type;
    }
    return 0;
}

void gf_btcur_free(gf_btcur *c)
{
    for (int d = 0; d < GF_BT_MAXDEPTH; d++)
        free(c->lvl[d]);
    free(c->ra);
    free(c->opage);
    free(c->ovf);
    memset(c, 0, sizeof *c);
}

/* The texts of one row read by a cursor, for same_rows: each put's bytes, its index the value's off. */
typedef struct row_texts {
    const char *p[MAXCOL];
    size_t n[MAXCOL];
    uint32_t count;
} row_texts;

static int keep_text(void *ctx, const char *p, size_t n, uint32_t *off)
{
    row_texts *t = ctx;
    if (t->count == MAXCOL)
        return -1;
    t->p[t->count] = p;
    t->n[t->count] = n;
    *off = t->count++;
    return 0;
}

/* The row at or after rowid `from` as SQLite reads it (q: the query limited to rowid >= ?1, r: its rowid)
 * and as a cursor does: the same rowid, types, integers and texts. */
static int same_row(sqlite3_stmt *q, sqlite3_stmt *r, const gf_btree *b, int64_t from)
{
    gf_btcur c = {0};
    gf_sqlq_val v[MAXCOL];
    row_texts t = {.count = 0};
    sqlite3_reset(q);
    sqlite3_reset(r);
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(r, 1, from);
    int ok = sqlite3_step(q) == SQLITE_ROW && sqlite3_step(r) == SQLITE_ROW && gf_btcur_seek(&c, b, from) == 0 &&
             gf_btcur_next(&c) == 1 && c.rowid == sqlite3_column_int64(r, 0) && gf_btcur_row(&c, v, keep_text, &t) == 0;
    for (int k = 0; ok && k < b->ncol; k++) {
        int type = sqlite3_column_type(q, k);
        ok = type == v[k].type && (type != SQLITE_INTEGER || sqlite3_column_int64(q, k) == v[k].i);
        if (ok && b->c[k].text && type != SQLITE_NULL) {
            const unsigned char *p = sqlite3_column_text(q, k);
            size_t n = (size_t)sqlite3_column_bytes(q, k);
            ok = p && v[k].off < t.count && t.n[v[k].off] == n && memcmp(t.p[v[k].off], p, n) == 0;
        }
    }
    gf_btcur_free(&c);
    return ok ? 0 : -1;
}

/* The table's first, middle and last rows read by SQLite through the caller's connection and from the mapped
 * file: the same. So the file mapped is the one the connection reads (not another one put at its path since),
 * and the query's columns are the record's fields this reads. 0, or -1. */
static int same_rows(sqlite3 *db, sqlite3_stmt *st, const char *table, const gf_btree *b)
{
    char *qs = sqlite3_mprintf("%s WHERE rowid >= ?1 LIMIT 1", sqlite3_sql(st));
    char *rs = sqlite3_mprintf("SELECT rowid FROM \"%w\" WHERE rowid >= ?1 LIMIT 1", table);
    /* min and max each in a query of its own: SQLite finds one at a b-tree's end, both together by a scan */
    char *ms = sqlite3_mprintf("SELECT (SELECT min(rowid) FROM \"%w\"), (SELECT max(rowid) FROM \"%w\")", table, table);
    sqlite3_stmt *q = NULL, *r = NULL, *m = NULL;
    int ok = qs && rs && ms && sqlite3_prepare_v2(db, qs, -1, &q, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db, rs, -1, &r, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db, ms, -1, &m, NULL) == SQLITE_OK &&
             sqlite3_step(m) == SQLITE_ROW;
    if (ok && sqlite3_column_type(m, 0) == SQLITE_INTEGER) { /* NULL: an empty table, nothing to compare */
        int64_t lo = sqlite3_column_int64(m, 0), hi = sqlite3_column_int64(m, 1);
        ok = same_row(q, r, b, lo) == 0 && same_row(q, r, b, lo / 2 + hi / 2) == 0 && same_row(q, r, b, hi) == 0;
    }
    sqlite3_finalize(q);
    sqlite3_finalize(r);
    sqlite3_finalize(m);
    sqlite3_free(qs);
    sqlite3_free(rs);
    sqlite3_free(ms);
    return ok ? 0 : -1;
}
