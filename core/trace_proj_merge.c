/* The projected NVTX events merged into a finished trace's columns (trace_proj.h gf_proj_merge_events; the
 * last step of gf_proj_merge, core/trace_proj.c). Each column grows in place and is filled from its end (an
 * old event only moves up), so the peak is the grown model, not a second copy of it, and no column is
 * written twice. The columns are independent once grown: with threads >= 2 a second thread fills about half
 * of their bytes (start, dur, corr) while the calling thread fills the rest; the result is the same. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "mem.h"
#include "trace_proj_merge.h"

void gf_proj_newev_free(gf_proj_newev *ne)
{
    free(ne->start);
    free(ne->dur);
    free(ne->lane);
    free(ne->name);
    free(ne->pid);
    free(ne->seq);
}

#define GROW_COL(col)                                                                                      \
    do {                                                                                                   \
        if (GF_RESIZE(t->col, nn) != 0)                                                                    \
            goto fail;                                                                                     \
    } while (0)

/* Filled from the end without a branch per entry (which of the two an entry takes follows no pattern the
 * CPU can predict): both candidates are read, the index not taken stays where it is (an old one may point
 * at an entry already moved, a new one is clamped to the last), and the entry is selected. */
#define MERGE_COL(col, type, new_v)                                                                        \
    do {                                                                                                   \
        for (size_t w_ = nn, i_ = n, k_ = np; w_-- > 0;) {                                                 \
            size_t nw_ = isnew[w_];                                                                        \
            k_ -= nw_;                                                                                     \
            i_ -= 1 - nw_;                                                                                 \
            size_t kc_ = k_ < np ? k_ : np - 1;                                                            \
            (void)kc_;                                                                                     \
            type old_ = t->col[i_], new_ = (new_v);                                                        \
            t->col[w_] = nw_ ? new_ : old_;                                                                \
        }                                                                                                  \
    } while (0)

/* A new column merged: its memory goes back before the next one is written (issue 42: the merge's peak) */
#define FREE_COL(p)                                                                                        \
    do {                                                                                                   \
        free(p);                                                                                           \
        (p) = NULL;                                                                                        \
    } while (0)

typedef struct mjob {
    gf_trace *t;
    gf_proj_newev *ne; /* each of its columns freed once merged */
    const uint8_t *isnew; /* [w]: output position w takes a new event */
    size_t n, np;
} mjob;

/* The columns of the first part: 24 bytes an event in three passes. */
static void *merge_a(void *arg)
{
    const mjob *m = arg;
    gf_trace *t = m->t;
    gf_proj_newev *ne = m->ne;
    const uint8_t *isnew = m->isnew;
    size_t n = m->n, np = m->np, nn = n + np;
    MERGE_COL(start, int64_t, ne->start[kc_]);
    FREE_COL(ne->start);
    MERGE_COL(dur, int64_t, ne->dur[kc_]);
    FREE_COL(ne->dur);
    MERGE_COL(corr, int64_t, -1);
    return NULL;
}

/* The others: 25 bytes an event in seven passes. */
static void merge_b(const mjob *m)
{
    gf_trace *t = m->t;
    gf_proj_newev *ne = m->ne;
    const uint8_t *isnew = m->isnew;
    size_t n = m->n, np = m->np, nn = n + np;
    MERGE_COL(lane, int32_t, ne->lane[kc_]);
    FREE_COL(ne->lane);
    MERGE_COL(name, int32_t, ne->name[kc_]);
    FREE_COL(ne->name);
    MERGE_COL(stack, int32_t, -1);
    MERGE_COL(pid, int32_t, ne->pid[kc_]);
    FREE_COL(ne->pid);
    MERGE_COL(detail, int32_t, -1);
    MERGE_COL(kind, uint8_t, GF_EV_NVTX);
    MERGE_COL(seq, uint32_t, ne->seq[kc_]);
    FREE_COL(ne->seq);
}

int gf_proj_merge_events(gf_trace *t, gf_proj_newev *ne, size_t np, int threads, gf_err *err)
{
    size_t n = t->n, nn = n + np;
    if (np == 0)
        return 0;
    uint8_t *isnew = malloc(nn ? nn : 1);
    if (!isnew)
        return gf_oom(err, "nvtx projection");
    for (size_t i = 0, k = 0, w = 0; w < nn; w++) { /* an old event first when both start together */
        isnew[w] = k < np && (i >= n || ne->start[k] < t->start[i]);
        if (isnew[w])
            k++;
        else
            i++;
    }
    /* all columns grown first: a failure leaves the trace as it was (larger columns, same n) */
    GROW_COL(start);
    GROW_COL(dur);
    GROW_COL(corr);
    GROW_COL(lane);
    GROW_COL(name);
    GROW_COL(stack);
    GROW_COL(pid);
    GROW_COL(detail);
    GROW_COL(kind);
    GROW_COL(seq);
    mjob m = {t, ne, isnew, n, np};
    pthread_t th;
    int two = threads >= 2 && pthread_create(&th, NULL, merge_a, &m) == 0;
    if (!two)
        merge_a(&m);
    merge_b(&m);
    if (two)
        pthread_join(th, NULL);
    free(isnew);
    t->n = nn;
    return 0;
fail:
    free(isnew);
    return gf_oom(err, "nvtx projection");
}
