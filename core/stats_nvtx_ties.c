/* NVTX parents when the tightest enclosing range is not unique (issue 24, item 9), for gf_snv_tree
 * (core/stats_nvtx.c). nvtxpptrace.py / nvtxgpuproj.py pick the parent with
 *     min((cr.startNS - pr.startNS) + (pr.endNS - cr.endNS)) ... GROUP BY cid
 * over a self-join of an R-tree (temp.NVTX_EVENTS_RIDX, filled from NVTX_EVENTS in rowid order). SQLite's
 * min() keeps the first row that reaches the minimum, and the rows of one child come in the order the
 * R-tree query `startTS <= cr.startTS AND endTS >= cr.endTS` returns them: the tree's node order, which
 * depends on every range inserted before (node splits), not on any rule over the rows. Ties need two
 * equally long ranges that both enclose a range: a zero-length range where one sibling ends and the next
 * starts, siblings that start or end together, crossing start/end ranges.
 *
 * So for the children with tied candidates (found by the sweep), the same R-tree is built here with the
 * same SQLite (an in-memory database, the script's table definition, the same ranges in rowid order, the
 * same values) and asked the same query; the first tied candidate it returns is the parent. A tie none of
 * whose candidates passes the R-tree's float32 filter (docs/REPORTS.md V4) keeps the lowest rowid.
 * Checked against the real nsys on planted exports (tests/gen/stats_nvtx_ties.py). stats_nvtx.h. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "stats_nvtx.h"

static int fail(sqlite3 *db, gf_err *err)
{
    return gf_errf(err, GF_EXIT_ERROR, "NVTX parents: in-memory R-tree: %s", db ? sqlite3_errmsg(db) : "out of memory");
}

static int cmp_rowid(const void *x, const void *y, void *arg)
{
    const gf_snv_range *r = arg;
    int64_t a = r[*(const int32_t *)x].rowid, b = r[*(const int32_t *)y].rowid;
    return a < b ? -1 : a > b;
}

/* the script's R-tree: every range of the set, in rowid order, with its ends as the script inserts them */
static int fill(sqlite3 *db, const gf_snv_set *s, gf_hmap *byrow, gf_err *err)
{
    if (sqlite3_exec(db,
                     "CREATE VIRTUAL TABLE temp.NVTX_EVENTS_RIDX USING rtree (rangeId, startTS, endTS, "
                     "+startNS INTEGER, +endNS INTEGER, +tid INTEGER); BEGIN",
                     NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, err);
    int32_t *ord = malloc((s->n ? s->n : 1) * sizeof *ord);
    sqlite3_stmt *ins = NULL;
    if (!ord)
        return fail(NULL, err);
    for (size_t i = 0; i < s->n; i++)
        ord[i] = (int32_t)i;
    if (s->n > 1)
        qsort_r(ord, s->n, sizeof *ord, cmp_rowid, s->r);
    int ret = -1;
    if (sqlite3_prepare_v2(db, "INSERT INTO temp.NVTX_EVENTS_RIDX VALUES (?1, ?2, ?3, ?2, ?3, ?4)", -1, &ins, NULL) !=
        SQLITE_OK) {
        fail(db, err);
        goto out;
    }
    for (size_t k = 0; k < s->n; k++) {
        const gf_snv_range *x = &s->r[ord[k]];
        sqlite3_bind_int64(ins, 1, x->rowid);
        sqlite3_bind_int64(ins, 2, x->start);
        sqlite3_bind_int64(ins, 3, x->end);
        sqlite3_bind_int64(ins, 4, x->gtid);
        if (sqlite3_step(ins) != SQLITE_DONE || sqlite3_reset(ins) != SQLITE_OK) {
            fail(db, err);
            goto out;
        }
        if (!gf_hmap_put(byrow, (uint64_t)x->rowid, ord[k], NULL)) {
            fail(NULL, err);
            goto out;
        }
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        fail(db, err);
        goto out;
    }
    ret = 0;
out:
    sqlite3_finalize(ins);
    free(ord);
    return ret;
}

/* Child c's parent: the first range the R-tree returns for c's stored coordinates that encloses c on its
 * thread and is as long as the parent the sweep chose (the tied ones); none: the sweep's (lowest rowid). */
static int pick(gf_snv_set *s, int32_t ci, sqlite3_stmt *coord, sqlite3_stmt *q, const gf_hmap *byrow)
{
    gf_snv_range *R = s->r, *c = &R[ci];
    int64_t want = R[c->parent].end - R[c->parent].start;
    sqlite3_bind_int64(coord, 1, c->rowid);
    int rc = sqlite3_step(coord);
    if (rc == SQLITE_ROW) {
        sqlite3_bind_double(q, 1, sqlite3_column_double(coord, 0));
        sqlite3_bind_double(q, 2, sqlite3_column_double(coord, 1));
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            const int64_t *v = gf_hmap_get(byrow, (uint64_t)sqlite3_column_int64(q, 0));
            if (!v || *v == ci)
                continue;
            const gf_snv_range *p = &R[*v];
            if (p->gtid == c->gtid && p->start <= c->start && p->end >= c->end && p->end - p->start == want) {
                c->parent = (int32_t)*v;
                break;
            }
        }
        rc = (rc == SQLITE_ROW || rc == SQLITE_DONE) ? SQLITE_OK : rc;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_reset(coord);
    sqlite3_reset(q);
    return rc == SQLITE_OK ? 0 : -1;
}

int gf_snv_break_ties(gf_snv_set *s, const uint8_t *tied, gf_err *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *coord = NULL, *q = NULL;
    gf_hmap byrow;
    gf_hmap_init(&byrow);
    int ret = -1;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        fail(db, err);
        goto out;
    }
    if (fill(db, s, &byrow, err) != 0)
        goto out;
    if (sqlite3_prepare_v2(db, "SELECT startTS, endTS FROM temp.NVTX_EVENTS_RIDX WHERE rangeId = ?1", -1, &coord,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT rangeId FROM temp.NVTX_EVENTS_RIDX WHERE startTS <= ?1 AND endTS >= ?2", -1,
                           &q, NULL) != SQLITE_OK) {
        fail(db, err);
        goto out;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!tied[i] || s->r[i].parent < 0)
            continue;
        if ((i & 0xfff) == 0xfff && gf_stats_interrupted(err))
            goto out;
        if (pick(s, (int32_t)i, coord, q, &byrow) != 0) {
            fail(db, err);
            goto out;
        }
    }
    ret = 0;
out:
    sqlite3_finalize(coord);
    sqlite3_finalize(q);
    if (db)
        sqlite3_close(db);
    gf_hmap_free(&byrow);
    return ret;
}
