/* Nesting rows inside a lane (see trace_rows.h). */
#include "trace_rows.h"

#include <stdlib.h>

#include "trace_view.h"

/* CPU-lane events by lane, start, then longest first: of calls that start together the enclosing one
 * takes the upper row. The calls are event indices (4 bytes a call, not a copy of their times: issue 42,
 * this was 24 bytes for every event of the trace while the page was written). */
static int cmp_call(const void *a, const void *b, void *arg)
{
    const gf_trace *t = arg;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (t->lane[i] != t->lane[j])
        return t->lane[i] < t->lane[j] ? -1 : 1;
    if (t->start[i] != t->start[j])
        return t->start[i] < t->start[j] ? -1 : 1;
    if (t->dur[i] != t->dur[j])
        return t->dur[i] > t->dur[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static int is_call_lane(const gf_trace *t, int32_t l)
{
    return l >= 0 && (size_t)l < t->nlanes && (t->lanes[l].kind == GF_LANE_CPU || t->lanes[l].proj);
}

int gf_trace_lane_rows(const gf_trace *t, uint8_t **rows)
{
    if (t->n >= UINT32_MAX)
        return -1;
    uint8_t *r = calloc(t->n ? t->n : 1, 1);
    size_t m = 0, *at = calloc(t->nlanes + 1, sizeof *at);
    if (!r || !at) {
        free(r);
        free(at);
        return -1;
    }
    /* c in cmp_call's order: a finished trace is in start order, so the CPU calls counted into their lanes
     * (in event order) are in it but for runs that start together, sorted alone; no sort of every call.
     * projected ranges overlap like calls */
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l >= 0 && (size_t)l < t->nlanes && t->lanes[l].kind == GF_LANE_NVTX)
            r[i] = (uint8_t)gf_trace_event_level(t, i);
        else if (is_call_lane(t, l))
            at[l + 1]++;
    }
    for (size_t l = 0; l < t->nlanes; l++)
        at[l + 1] += at[l];
    m = at[t->nlanes];
    uint32_t *c = malloc((m ? m : 1) * sizeof *c);
    if (!c) {
        free(r);
        free(at);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        if (is_call_lane(t, t->lane[i]))
            c[at[t->lane[i]]++] = (uint32_t)i;
    free(at);
    int sorted = 1;
    for (size_t k = 1; k < m && sorted; k++)
        sorted = t->lane[c[k - 1]] != t->lane[c[k]] || t->start[c[k - 1]] <= t->start[c[k]];
    if (!sorted) /* not a finished trace's order */
        qsort_r(c, m, sizeof *c, cmp_call, (void *)t);
    for (size_t lo = 0, hi; sorted && lo < m; lo = hi) {
        for (hi = lo + 1; hi < m && t->lane[c[hi]] == t->lane[c[lo]] && t->start[c[hi]] == t->start[c[lo]];)
            hi++;
        if (hi - lo > 1)
            qsort_r(c + lo, hi - lo, sizeof *c, cmp_call, (void *)t);
    }
    int64_t end[GF_NVTX_MAX_ROWS];
    for (size_t k = 0; k < m; k++) {
        uint32_t i = c[k];
        if (k == 0 || t->lane[c[k - 1]] != t->lane[i])
            for (int q = 0; q < GF_NVTX_MAX_ROWS; q++)
                end[q] = INT64_MIN;
        int q = 0;
        while (q < GF_NVTX_MAX_ROWS - 1 && end[q] > t->start[i])
            q++;
        r[i] = (uint8_t)q;
        if (t->start[i] + t->dur[i] > end[q])
            end[q] = t->start[i] + t->dur[i];
    }
    free(c);
    *rows = r;
    return 0;
}
