/* Trimming a finished trace (trace_trim.h): the longest-N selection (gf_topn_select) and gf_trace_trim, which
 * keeps the launch partners of kept GPU work (gf_trace_partners, trace.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "mem.h"
#include "trace.h"
#include "trace_trim.h"

typedef struct topn_heap {
    const int64_t *dur;
    uint32_t *h;
    size_t n;
} topn_heap;

/* root = smallest dur, and among equals the highest index (dropped first) */
static int tworse(const topn_heap *h, uint32_t a, uint32_t b)
{
    if (h->dur[a] != h->dur[b])
        return h->dur[a] < h->dur[b];
    return a > b;
}

static void tsift_down(topn_heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && tworse(h, h->h[l], h->h[m]))
            m = l;
        if (r < h->n && tworse(h, h->h[r], h->h[m]))
            m = r;
        if (m == i)
            return;
        uint32_t x = h->h[i];
        h->h[i] = h->h[m];
        h->h[m] = x;
        i = m;
    }
}

long gf_topn_select(const int64_t *dur, size_t n, size_t k, uint8_t *keep)
{
    memset(keep, 0, n);
    if (k >= n) {
        memset(keep, 1, n);
        return (long)n;
    }
    if (k == 0)
        return 0;
    topn_heap h = {dur, malloc(k * sizeof(uint32_t)), 0};
    if (!h.h)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (h.n < k) {
            size_t j = h.n++;
            h.h[j] = (uint32_t)i;
            while (j > 0) {
                size_t p = (j - 1) / 2;
                if (!tworse(&h, h.h[j], h.h[p]))
                    break;
                uint32_t x = h.h[j];
                h.h[j] = h.h[p];
                h.h[p] = x;
                j = p;
            }
        } else if (dur[i] > dur[h.h[0]]) {
            h.h[0] = (uint32_t)i;
            tsift_down(&h, 0);
        }
    }
    for (size_t i = 0; i < h.n; i++)
        keep[h.h[i]] = 1;
    free(h.h);
    return (long)k;
}

int gf_trace_trim(gf_trace *t, size_t max_events, int keep_partners, gf_err *err)
{
    if (!t->finished)
        return gf_errf(err, GF_EXIT_ERROR, "trace: trim before finish");
    int all = max_events == 0 || t->n <= max_events;
    if (all) /* details may be shared between events (keep-all builds): nothing to renumber either */
        return 0;
    uint8_t *keep = malloc(t->n ? t->n : 1);
    if (!keep)
        return gf_oom(err, "trace");
    if (all)
        memset(keep, 1, t->n);
    else if (gf_topn_select(t->dur, t->n, max_events, keep) < 0) {
        free(keep);
        return gf_oom(err, "trace");
    }
    if (keep_partners && !all) {
        int32_t *p;
        if (gf_trace_partners(t, &p, err) != 0) {
            free(keep);
            return -1;
        }
        for (size_t i = 0; i < t->n; i++)
            if (keep[i] && gf_ev_is_gpu_work(t->kind[i]) && p[i] >= 0)
                keep[p[i]] = 1;
        free(p);
    }
    /* details may be shared and in any order (keep-all builds): the kept ones go to a new array, each once */
    gf_detail *nd = malloc((t->ndetails ? t->ndetails : 1) * sizeof *nd);
    int32_t *renum = malloc((t->ndetails ? t->ndetails : 1) * sizeof *renum);
    if (!nd || !renum) {
        free(keep);
        free(nd);
        free(renum);
        return gf_oom(err, "trace");
    }
    for (size_t d = 0; d < t->ndetails; d++)
        renum[d] = -1;
    size_t k = 0, kd = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!keep[i])
            continue;
        t->start[k] = t->start[i];
        t->dur[k] = t->dur[i];
        t->corr[k] = t->corr[i];
        t->lane[k] = t->lane[i];
        t->name[k] = t->name[i];
        t->stack[k] = t->stack[i];
        t->pid[k] = t->pid[i];
        t->kind[k] = t->kind[i];
        t->seq[k] = t->seq[i];
        int32_t d = t->detail[i];
        if (d >= 0 && renum[d] < 0) {
            nd[kd] = t->details[d];
            renum[d] = (int32_t)kd++;
        }
        t->detail[k] = d >= 0 ? renum[d] : -1;
        k++;
    }
    free(renum);
    free(t->details);
    t->details = nd;
    t->n = k;
    t->ndetails = kd;
    free(keep);
    return 0;
}
