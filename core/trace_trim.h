/* Trimming a finished trace to its longest events (core/trace_trim.c). */
#ifndef GF_TRACE_TRIM_H
#define GF_TRACE_TRIM_H

#include <stddef.h>
#include <stdint.h>

#include "trace_types.h"

/* The trimming primitive: marks in keep[] the k largest of dur[0..n) (ties: lower index wins) with a
 * min-heap of k entries: O(n log k) time, O(k) extra memory. Returns the number kept, -1 on OOM. */
long gf_topn_select(const int64_t *dur, size_t n, size_t k, uint8_t *keep);
/* Trims a finished trace to the max_events longest events (plus launch partners of kept GPU work
 * when keep_partners), keeping start order. total/total_kind stay those of the import. The details end up
 * in event order whether or not anything was dropped, so a trace imported whole and trimmed writes the
 * same timeline JSON as one trimmed while importing (the timeline runs the findings on the whole trace). */
int gf_trace_trim(gf_trace *t, size_t max_events, int keep_partners, gf_err *err);

#endif
