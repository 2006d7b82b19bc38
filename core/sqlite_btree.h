/* Direct reading of a table's rows from an SQLite file's b-tree pages (sqlite_btree.c), for the row readers of
 * sqlite_prefetch.c: a plain scan `SELECT "a", "b", rowid, NULL FROM "T"` decoded from the file's pages, read
 * by pread, without SQLite's virtual machine (issue 42: stepping it was half of an import's CPU). Whatever
 * this does not read exactly as SQLite would is refused: at the open (another text encoding, a WAL file, a
 * column SQLite converts as it reads it), or at a row (-1: a value of another type than this reads, a page
 * that is not what the file format says), and the caller reads that row and the rest with SQLite. */
#ifndef GF_SQLITE_BTREE_H
#define GF_SQLITE_BTREE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gf_btree gf_btree;

/* The file and columns of st's query, when it is a plain scan this reads (st on db, not yet stepped, its plan
 * a scan of the table in rowid order: the caller checks that): NULL when not. textcols: a bit per result
 * column read as text. Uses db (PRAGMAs): call before a reader owns the connection. */
gf_btree *gf_btree_open(sqlite3 *db, sqlite3_stmt *st, uint64_t textcols);
void gf_btree_close(gf_btree *b);

enum { GF_BT_MAXDEPTH = 20 }; /* SQLite's own limit on a b-tree's depth */

/* A position in the table; several cursors may read one gf_btree at once. Zeroed, then gf_btcur_seek. */
typedef struct gf_btcur {
    const gf_btree *b;
    uint32_t page[GF_BT_MAXDEPTH];
    uint32_t idx[GF_BT_MAXDEPTH]; /* the next cell of each page on the path */
    int depth;
    uint64_t visits;              /* pages entered since the seek: more than the file has twice over is a cycle */
    /* the pages on the path: their bytes, cell pointers, cell counts, kinds and right-most children */
    const uint8_t *base[GF_BT_MAXDEPTH], *cells[GF_BT_MAXDEPTH];
    uint32_t ncell[GF_BT_MAXDEPTH], right[GF_BT_MAXDEPTH];
    uint8_t leaf[GF_BT_MAXDEPTH];
    int64_t rowid, last;          /* the current row's rowid; the last one read (have_last): rowids must rise */
    int have_last;
    const uint8_t *rec;           /* the current row's record */
    size_t rlen;
    int nf;                       /* its fields decoded (up to the last one a result column reads) */
    uint64_t ftype[64];           /* their serial types and offsets in the record */
    uint32_t foff[64];
    uint8_t *ovf;                 /* a record with overflow pages, copied together */
    size_t ovfcap;
    uint8_t *lvl[GF_BT_MAXDEPTH]; /* each depth's page (a leaf may be in ra instead) */
    uint8_t *ra;                  /* pages [ra_lo, ra_lo + ra_n) of the file: a leaf and those after it */
    uint32_t ra_lo, ra_n;
    int leaf_depth;               /* the depth of the last leaf (-1 before: gf_btcur_seek) */
    uint8_t *opage;               /* an overflow page */
    char num[24];                 /* an integer read as text */
} gf_btcur;

/* Positions c before the first row whose rowid is >= rowid: 0, or -1 (a page not as the format says). */
int gf_btcur_seek(gf_btcur *c, const gf_btree *b, int64_t rowid);
/* The next row: 1 (current), 0 (no more), -1 (a page not as the format says, or rowids out of order). */
int gf_btcur_next(gf_btcur *c);
/* The current row's result columns into v (sqlite_export.h's prefetched values): each value's SQLite type and
 * int64 reading (0 for a text), and for a column read as text its bytes, kept by put(ctx, p, n, &off), which
 * says where. 0, or -1 when this does not read a value as SQLite would (a float, a blob, text in a column not
 * read as text, a value past a short record's end whose column has a default), or put failed. */
struct gf_sqlq_val;
int gf_btcur_row(gf_btcur *c, struct gf_sqlq_val *v, int (*put)(void *ctx, const char *p, size_t n, uint32_t *off),
                 void *ctx);
/* The cursor's buffers freed; zeroed, it can seek again. */
void gf_btcur_free(gf_btcur *c);

#endif
