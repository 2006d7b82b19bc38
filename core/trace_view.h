/* The timeline page's opening window (policy timeline.initial_view), decided when the page is written so
 * that the page can draw it before its whole data has arrived (docs/TIMELINE_DATA.md "Opening view"). */
#ifndef GF_TRACE_VIEW_H
#define GF_TRACE_VIEW_H

#include <stdint.h>

#include "trace.h"

/* how: "busiest" (the window as wide as width_events median GPU-work events where GPU-work time is
 * largest), "nvtx" (the first outermost NVTX range, else busiest) or "full". Times are ns relative to
 * t0, the page's time 0; span is the page's span. Returns 0, or -1 when out of memory. */
int gf_trace_opening_view(const gf_trace *t, const char *how, int64_t width_events, int64_t t0, int64_t span,
                          double *vs, double *ve);

/* Rows an NVTX lane needs: 1 + its deepest nesting level (at most GF_NVTX_MAX_ROWS); 1 for other lanes. */
#define GF_NVTX_MAX_ROWS 16
int gf_trace_event_level(const gf_trace *t, size_t i);

#endif
