/* The work a capture did (trace_work.h). */
#include "trace_work.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"

static int64_t dims(const int32_t v[3])
{
    int64_t p = 1;
    for (int i = 0; i < 3; i++)
        p *= v[i] > 0 ? v[i] : 1;
    return p;
}

/* the NVTX range i inside step (its process and rank, contained in its window) */
static int in_window(const gf_trace *t, size_t i, const gf_step_win *step)
{
    int32_t rank = t->lane[i] >= 0 ? t->lanes[t->lane[i]].rank : -1;
    return t->pid[i] == step->pid && rank == step->rank && t->start[i] >= step->start &&
           t->start[i] + t->dur[i] <= step->end;
}

/* gf_trace_work, and with step (in_step: gf_steps_assign's for it) that step's GPU work and NVTX ranges only */
static int work_scan(const gf_trace *t, int nvtx_depth, const gf_step_win *step, const int32_t *in_step,
                     gf_work_row **out, size_t *n, gf_err *err)
{
    gf_hmap idx;
    gf_hmap_init(&idx);
    gf_work_row *r = NULL;
    size_t nr = 0, cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < t->n; i++) {
        int k = t->kind[i], wk;
        const gf_detail *d = t->detail[i] >= 0 ? &t->details[t->detail[i]] : NULL;
        int32_t name = t->name[i];
        if (step && (gf_ev_is_gpu_work(k) ? in_step[i] < 0 : k != GF_EV_NVTX || !in_window(t, i, step)))
            continue;
        if (k == GF_EV_KERNEL)
            wk = GF_WORK_KERNEL;
        else if (k == GF_EV_MEMCPY) {
            wk = GF_WORK_COPY;
            name = d && d->copy >= 0 ? d->copy : name;
        } else if (k == GF_EV_MEMSET)
            wk = GF_WORK_MEMSET;
        else if (k == GF_EV_NVTX) {
            if (d && d->nvtx_level > nvtx_depth)
                continue;
            wk = GF_WORK_NVTX;
        } else
            continue;
        uint64_t key = ((uint64_t)wk << 40) ^ (uint64_t)(uint32_t)(name + 1);
        int ins;
        int64_t *v = gf_hmap_put(&idx, key, (int64_t)nr, &ins);
        if (!v)
            goto oom;
        if (ins) {
            if (GF_GROW(r, cap, nr + 1, 64) != 0)
                goto oom;
            memset(&r[nr], 0, sizeof r[nr]);
            r[nr].kind = wk;
            r[nr].name = name;
            nr++;
        }
        gf_work_row *w = &r[*v];
        w->count++;
        if (wk != GF_WORK_NVTX)
            w->total_ns += t->dur[i] > 0 ? t->dur[i] : 0;
        if (d && (wk == GF_WORK_COPY || wk == GF_WORK_MEMSET) && d->bytes > 0)
            w->bytes += d->bytes;
        if (d && wk == GF_WORK_KERNEL) {
            w->blocks += dims(d->grid);
            w->threads += dims(d->block);
        }
    }
    gf_hmap_free(&idx);
    *out = r;
    *n = nr;
    return 0;
oom:
    gf_hmap_free(&idx);
    free(r);
    return gf_oom(err, "work summary");
}

int gf_trace_work(const gf_trace *t, int nvtx_depth, gf_work_row **out, size_t *n, gf_err *err)
{
    return work_scan(t, nvtx_depth, NULL, NULL, out, n, err);
}

int gf_trace_work_step(const gf_trace *t, int nvtx_depth, const gf_step_win *step, gf_work_row **out, size_t *n,
                       gf_err *err)
{
    int32_t *in_step = NULL;
    if (gf_steps_assign(t, step, 1, &in_step, err) != 0)
        return -1;
    int rc = work_scan(t, nvtx_depth, step, in_step, out, n, err);
    free(in_step);
    return rc;
}
