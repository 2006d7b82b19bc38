/* Nesting rows inside a lane (see trace_rows.h). */
#include "trace_rows.h"

#include <stdlib.h>

#include "trace_view.h"

typedef struct call {
    int64_t start, dur;
    int32_t lane;
    uint32_t i;
} call;

/* CPU-lane events by lane, start, then longest first: of calls that start together the enclosing one
 * takes the upper row */
static int cmp_call(const void *a, const void *b)
{
    const call *x = a, *y = b;
    if (x->lane != y->lane)
        return x->lane < y->lane ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int gf_trace_lane_rows(const gf_trace *t, uint8_t **rows)
{
    uint8_t *r = calloc(t->n ? t->n : 1, 1);
    call *c = malloc((t->n ? t->n : 1) * sizeof *c);
    if (!r || !c) {
        free(r);
        free(c);
        return -1;
    }
    /* c in cmp_call's order: a finished trace is in start order, so the CPU calls counted into their lanes
     * (in event order) are in it but for runs that start together, sorted alone; no sort of every call */
    size_t m = 0, *at = calloc(t->nlanes + 1, sizeof *at);
    if (!at) {
        free(r);
        free(c);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0 || (size_t)l >= t->nlanes)
            continue;
        if (t->lanes[l].kind == GF_LANE_NVTX)
            r[i] = (uint8_t)gf_trace_event_level(t, i);
        else if (t->lanes[l].kind == GF_LANE_CPU || t->lanes[l].proj) /* projected ranges overlap like calls */
            at[l + 1]++;
    }
    for (size_t l = 0; l < t->nlanes; l++)
        at[l + 1] += at[l];
    m = at[t->nlanes];
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l >= 0 && (size_t)l < t->nlanes && (t->lanes[l].kind == GF_LANE_CPU || t->lanes[l].proj))
            c[at[l]++] = (call){t->start[i], t->dur[i], l, (uint32_t)i};
    }
    free(at);
    int sorted = 1;
    for (size_t k = 1; k < m && sorted; k++)
        sorted = c[k - 1].lane != c[k].lane || c[k - 1].start <= c[k].start;
    if (!sorted) /* not a finished trace's order */
        qsort(c, m, sizeof *c, cmp_call);
    for (size_t lo = 0, hi; sorted && lo < m; lo = hi) {
        for (hi = lo + 1; hi < m && c[hi].lane == c[lo].lane && c[hi].start == c[lo].start;)
            hi++;
        if (hi - lo > 1)
            qsort(c + lo, hi - lo, sizeof *c, cmp_call);
    }
    int64_t end[GF_NVTX_MAX_ROWS];
    for (size_t k = 0; k < m; k++) {
        if (k == 0 || c[k - 1].lane != c[k].lane)
            for (int q = 0; q < GF_NVTX_MAX_ROWS; q++)
                end[q] = INT64_MIN;
        int q = 0;
        while (q < GF_NVTX_MAX_ROWS - 1 && end[q] > c[k].start)
            q++;
        r[c[k].i] = (uint8_t)q;
        if (c[k].start + c[k].dur > end[q])
            end[q] = c[k].start + c[k].dur;
    }
    free(c);
    *rows = r;
    return 0;
}
