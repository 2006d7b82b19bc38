/* The timeline page's opening window (see trace_view.h). */
#include "trace_view.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SPAN 1000.0 /* ns: the page's narrowest view */
#define MEDIAN_SAMPLES 100000

int gf_trace_event_level(const gf_trace *t, size_t i)
{
    int32_t d = t->detail[i];
    int lvl = d >= 0 ? t->details[d].nvtx_level : 0;
    return lvl > 0 ? (lvl < GF_NVTX_MAX_ROWS - 1 ? lvl : GF_NVTX_MAX_ROWS - 1) : 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median duration of at most MEDIAN_SAMPLES evenly strided events of idx. */
static int median_dur(const gf_trace *t, const uint32_t *idx, size_t m, int64_t *median)
{
    size_t stride = m / MEDIAN_SAMPLES > 1 ? m / MEDIAN_SAMPLES : 1, ns = 0;
    int64_t *sample = malloc(((m + stride - 1) / stride + 1) * sizeof *sample);
    if (!sample)
        return -1;
    for (size_t i = 0; i < m; i += stride)
        sample[ns++] = t->dur[idx[i]];
    qsort(sample, ns, sizeof *sample, cmp_i64);
    *median = ns ? sample[ns / 2] : 0;
    free(sample);
    return 0;
}

static int busiest(const gf_trace *t, int64_t width_events, int64_t t0, int64_t span, double *vs, double *ve)
{
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        m += gf_ev_is_gpu_work(t->kind[i]);
    int gpu = m > 0;
    if (!gpu)
        m = t->n;
    uint32_t *idx = malloc((m ? m : 1) * sizeof *idx);
    if (!idx)
        return -1;
    for (size_t i = 0, k = 0; i < t->n; i++)
        if (!gpu || gf_ev_is_gpu_work(t->kind[i]))
            idx[k++] = (uint32_t)i;
    int64_t median;
    if (median_dur(t, idx, m, &median) != 0) {
        free(idx);
        return -1;
    }
    double target = (double)median * (double)width_events;
    if (target < MIN_SPAN)
        target = MIN_SPAN;
    if (!(target < 0.9 * (double)span)) {
        free(idx);
        *vs = 0;
        *ve = (double)span;
        return 0;
    }
    /* the window starting at an event's start that holds the most GPU-work time (each event counted up to
     * the window's width), over the events sorted by start */
    size_t best = 0, j = 0;
    double sum = 0, best_sum = -1;
    for (size_t a = 0; a < m; a++) {
        double limit = (double)(t->start[idx[a]] - t0) + target;
        for (; j < m && (double)(t->start[idx[j]] - t0) <= limit; j++)
            sum += (double)t->dur[idx[j]] < target ? (double)t->dur[idx[j]] : target;
        if (sum > best_sum) {
            best_sum = sum;
            best = a;
        }
        sum -= (double)t->dur[idx[a]] < target ? (double)t->dur[idx[a]] : target;
    }
    *vs = (double)(t->start[idx[best]] - t0) - target * 0.02;
    *ve = *vs + target;
    free(idx);
    return 0;
}

int gf_trace_opening_view(const gf_trace *t, const char *how, int64_t width_events, int64_t t0, int64_t span,
                          double *vs, double *ve)
{
    *vs = 0;
    *ve = (double)span;
    if (t->n == 0 || (how && strcmp(how, "full") == 0))
        return 0;
    if (how && strcmp(how, "nvtx") == 0)
        for (size_t i = 0; i < t->n; i++) {
            if (t->kind[i] != GF_EV_NVTX || gf_trace_event_level(t, i) != 0 || gf_ev_is_nvtx_mark(t, i))
                continue;
            double pad = (double)t->dur[i] * 0.02 > MIN_SPAN / 2 ? (double)t->dur[i] * 0.02 : MIN_SPAN / 2;
            *vs = (double)(t->start[i] - t0) - pad;
            *ve = (double)(t->start[i] - t0 + t->dur[i]) + pad;
            return 0;
        }
    return busiest(t, width_events, t0, span, vs, ve);
}
