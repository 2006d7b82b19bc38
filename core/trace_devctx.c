/* Each event on its own device (issue 24 item 3, issue 41 item 5): real exports can record deviceId 0 on
 * every CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row, also for a second GPU's context (a 2-GPU H100 capture:
 * context 2 is GPU 1 in its kernels and copies, device 0 in its sync rows), and for every rank of an MPI
 * capture whose processes each drive their own context on their own device (four ranks: all sync rows on
 * GPU 0). The device of a (process, context) pair is the one its kernels, copies and memsets ran on (same
 * globalPid and contextId); the importer notes each such row as it reads those tables (gf_devctx_note:
 * no query of its own, issue 42) and asks for every sync row (gf_devctx_device), so each row lands on the
 * lane of (its context's device, its stream), whatever other processes share the recorded lane.
 * A context whose work ran on several devices leaves its rows as recorded (warned). trace_devctx.h. */
#include "trace_devctx.h"

#include <stdlib.h>
#include <string.h>

enum { AMBIGUOUS = -2 };

static uint64_t ctx_key(int64_t gpid, int64_t ctx)
{
    uint64_t k = gf_hash_u64((uint64_t)gpid) ^ (uint64_t)ctx * 0x9E3779B97F4A7C15ull;
    return k == GF_HMAP_EMPTY ? 0 : k;
}

void gf_devctx_init(gf_devctx *d)
{
    memset(d, 0, sizeof *d);
    gf_hmap_init(&d->map);
    d->ctx = d->pid = d->from = d->to = -1;
}

/* Keys are hashes: a collision between two contexts only makes one ambiguous (left as recorded). Rows come
 * in runs of one (process, context, device): a repeat of the last one changes nothing, so it is not hashed. */
int gf_devctx_note(gf_devctx *d, int64_t gpid, int64_t ctx, int64_t dev)
{
    if (d->have_last && gpid == d->last[0] && ctx == d->last[1] && dev == d->last[2])
        return 0;
    d->have_last = 1;
    d->last[0] = gpid, d->last[1] = ctx, d->last[2] = dev;
    int ins = 0;
    int64_t *v = gf_hmap_put(&d->map, ctx_key(gpid, ctx), dev, &ins);
    if (!v)
        return -1;
    if (!ins && *v != dev)
        *v = AMBIGUOUS;
    return 0;
}

int64_t gf_devctx_device(gf_devctx *d, int64_t gpid, int64_t ctx, int has_ctx, int64_t recorded)
{
    const int64_t *cd = has_ctx ? gf_hmap_get(&d->map, ctx_key(gpid, ctx)) : NULL;
    if (!cd)
        return recorded;
    if (*cd == AMBIGUOUS) {
        d->mixed++;
        return recorded;
    }
    if (*cd == recorded)
        return recorded;
    if (!d->moved++) {
        d->ctx = ctx;
        d->pid = (gpid >> 24) & 0xFFFFFF;
        d->from = recorded;
        d->to = *cd;
    }
    int k = 0;
    while (k < d->nonto && d->onto[k] != *cd)
        k++;
    if (k == d->nonto && k < 8)
        d->onto[d->nonto++] = *cd;
    return *cd;
}

int gf_devctx_warn(gf_devctx *d, gf_trace *t, gf_err *err)
{
    int bad = 0;
    if (d->moved)
        bad |= gf_trace_warn(t,
                             "%lld synchronization row%s recorded a device other than their context's (e.g. context "
                             "%lld of pid %lld: device %lld, whose kernels and copies ran on device %lld): drawn "
                             "under the device of their context's kernels and copies (moved onto %s%d device%s)",
                             (long long)d->moved, d->moved == 1 ? "" : "s", (long long)d->ctx, (long long)d->pid,
                             (long long)d->from, (long long)d->to, d->nonto == 8 ? "at least " : "", d->nonto,
                             d->nonto == 1 ? "" : "s");
    if (d->mixed)
        bad |= gf_trace_warn(t,
                             "%lld synchronization row%s belong to contexts whose kernels and copies ran on several "
                             "devices: left under the recorded device",
                             (long long)d->mixed, d->mixed == 1 ? "" : "s");
    return bad ? gf_oom(err, NULL) : 0;
}

void gf_devctx_free(gf_devctx *d)
{
    gf_hmap_free(&d->map);
}
