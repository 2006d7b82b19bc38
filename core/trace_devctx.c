/* Each event on its own device (issue 24, item 3): a step applied once after an SQLite export's rows are in
 * the Trace model and before gf_trace_finish. Real exports can record deviceId 0 on every
 * CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row, also for a second GPU's context (a 2-GPU H100 capture: context 2
 * is GPU 1 in its kernels and copies, device 0 in its sync rows), which would draw GPU 1's sync lanes under
 * GPU 0. The device of a context is the one its kernels, copies and memsets ran on (same globalPid and
 * contextId); a sync lane whose rows all belong to contexts of another device is moved to that device,
 * with one warning. A lane whose rows belong to contexts of different devices stays as recorded (warned).
 * Lanes that end up equal to an existing lane are merged by gf_trace_finish. trace_devctx.h. */
#include "trace_devctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "sqlite_export.h"

enum { AMBIGUOUS = -2 };

static uint64_t ctx_key(int64_t gpid, int64_t ctx)
{
    uint64_t k = gf_hash_u64((uint64_t)gpid) ^ (uint64_t)ctx * 0x9E3779B97F4A7C15ull;
    return k == GF_HMAP_EMPTY ? 0 : k;
}

/* (globalPid, contextId) → deviceId over the GPU work tables (AMBIGUOUS when a context ran on several).
 * Keys are hashes: a collision between two contexts only makes one ambiguous (left as recorded). */
static int context_devices(sqlite3 *db, const char *path, gf_hmap *map, gf_err *err)
{
    static const char *const tabs[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                       "CUPTI_ACTIVITY_KIND_MEMSET"};
    for (size_t i = 0; i < sizeof tabs / sizeof *tabs; i++) {
        if (gf_sqlite_has_column(db, tabs[i], "contextId") != 1 ||
            gf_sqlite_has_column(db, tabs[i], "globalPid") != 1 || gf_sqlite_has_column(db, tabs[i], "deviceId") != 1)
            continue;
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT DISTINCT globalPid, contextId, deviceId FROM %s", tabs[i]);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            return gf_sqlite_fail(db, path, tabs[i], err);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            if (sqlite3_column_type(st, 1) == SQLITE_NULL || sqlite3_column_type(st, 2) == SQLITE_NULL)
                continue;
            int64_t dev = sqlite3_column_int64(st, 2);
            int ins = 0;
            int64_t *v = gf_hmap_put(map, ctx_key(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)), dev, &ins);
            if (!v) {
                sqlite3_finalize(st);
                return gf_oom(err, NULL);
            }
            if (!ins && *v != dev)
                *v = AMBIGUOUS;
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return gf_sqlite_fail(db, path, tabs[i], err);
    }
    return 0;
}

typedef struct lane_fix {
    int64_t to;       /* device of the lane's contexts; AMBIGUOUS: several */
    int64_t rows;     /* rows whose context ran elsewhere */
    int64_t ctx, pid; /* one such context, for the warning */
} lane_fix;

static int32_t find_lane(const gf_trace *t, int sync, int64_t dev, int64_t stream)
{
    for (size_t i = 0; i < t->nlanes; i++) {
        const gf_lane *l = &t->lanes[i];
        if (l->kind == GF_LANE_GPU && l->rank < 0 && l->sync == sync && l->devnum == dev && l->stream == stream)
            return (int32_t)i;
    }
    return -1;
}

/* the device name (strtab id) of the model's GPU work lanes on device dev, -1 when there is none */
static int32_t device_label(const gf_trace *t, int64_t dev)
{
    for (size_t i = 0; i < t->nlanes; i++)
        if (t->lanes[i].kind == GF_LANE_GPU && !t->lanes[i].sync && t->lanes[i].devnum == dev)
            return t->lanes[i].device;
    return -1;
}

/* sync rows grouped by (recorded device, stream, globalPid, context) → what each sync lane should become */
static int sync_lanes(gf_trace *t, sqlite3 *db, const char *path, const gf_hmap *ctxdev, lane_fix *fix, gf_err *err)
{
    static const char *const tab = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT ifnull(deviceId, 0), ifnull(streamId, -1), globalPid, contextId, count(*) "
                           "FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION GROUP BY 1, 2, 3, 4",
                           -1, &st, NULL) != SQLITE_OK)
        return gf_sqlite_fail(db, path, tab, err);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t dev = sqlite3_column_int64(st, 0), stream = sqlite3_column_int64(st, 1);
        if (stream == 0xFFFFFFFFll) /* as the importer keys sync lanes (trace_sqlite.c gpu_lane) */
            stream = -1;
        if (sqlite3_column_type(st, 3) == SQLITE_NULL)
            continue;
        int64_t gpid = sqlite3_column_int64(st, 2), ctx = sqlite3_column_int64(st, 3);
        const int64_t *cd = gf_hmap_get(ctxdev, ctx_key(gpid, ctx));
        int32_t l = find_lane(t, 1, dev, stream);
        if (!cd || *cd == AMBIGUOUS || l < 0)
            continue;
        lane_fix *f = &fix[l];
        if (f->to == -1)
            f->to = *cd;
        else if (f->to != *cd)
            f->to = AMBIGUOUS;
        if (*cd != dev) {
            f->rows += sqlite3_column_int64(st, 4);
            f->ctx = ctx;
            f->pid = (gpid >> 24) & 0xFFFFFF;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : gf_sqlite_fail(db, path, tab, err);
}

int gf_trace_devices_from_contexts(gf_trace *t, struct sqlite3 *db, const char *path, gf_err *err)
{
    static const char *const tab = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    if (gf_sqlite_has_column(db, tab, "contextId") != 1 || gf_sqlite_has_column(db, tab, "globalPid") != 1)
        return 0;
    gf_hmap ctxdev;
    gf_hmap_init(&ctxdev);
    lane_fix *fix = malloc((t->nlanes ? t->nlanes : 1) * sizeof *fix);
    int ret = -1;
    if (!fix) {
        gf_oom(err, NULL);
        goto out;
    }
    for (size_t i = 0; i < t->nlanes; i++)
        fix[i] = (lane_fix){-1, 0, -1, -1};
    if (context_devices(db, path, &ctxdev, err) != 0 || sync_lanes(t, db, path, &ctxdev, fix, err) != 0)
        goto out;
    int64_t moved = 0, mixed = 0, nlanes = 0;
    lane_fix first = {-1, 0, -1, -1};
    int64_t first_from = -1;
    for (size_t i = 0; i < t->nlanes; i++) {
        gf_lane *l = &t->lanes[i];
        if (!fix[i].rows)
            continue;
        int32_t name = fix[i].to >= 0 ? device_label(t, fix[i].to) : -1;
        if (name < 0) {
            mixed += fix[i].rows;
            continue;
        }
        if (!nlanes++) {
            first = fix[i];
            first_from = l->devnum;
        }
        moved += fix[i].rows;
        l->devnum = fix[i].to;
        l->device = name;
    }
    int bad = 0;
    if (moved)
        bad |= gf_trace_warn(t,
                             "%lld synchronization row%s recorded a device other than their context's (e.g. context "
                             "%lld of pid %lld: device %lld, whose kernels and copies ran on device %lld): drawn "
                             "under the device of the context's kernels and copies (%lld lane%s moved)",
                             (long long)moved, moved == 1 ? "" : "s", (long long)first.ctx, (long long)first.pid,
                             (long long)first_from, (long long)first.to, (long long)nlanes, nlanes == 1 ? "" : "s");
    if (mixed)
        bad |= gf_trace_warn(t,
                             "%lld synchronization row%s recorded a device other than their context's, in lanes "
                             "shared with contexts of other devices: left under the recorded device",
                             (long long)mixed, mixed == 1 ? "" : "s");
    ret = bad ? gf_oom(err, NULL) : 0;
out:
    free(fix);
    gf_hmap_free(&ctxdev);
    return ret;
}
