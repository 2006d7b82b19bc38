/* Nesting rows inside a lane, shared by the timeline page and the Chrome trace export: NVTX ranges sit on
 * their push/pop level, and CUDA calls on a CPU thread lane, which overlap on real captures (nsys 2022
 * records cudaMalloc and the cudaMalloc_v3020 it wraps; MPI wrappers and driver calls nest inside runtime
 * calls), each go to the first row where they fit, so no two calls of one row overlap. */
#ifndef GF_TRACE_ROWS_H
#define GF_TRACE_ROWS_H

#include <stdint.h>

#include "trace.h"

/* *rows (malloc'd, t->n entries, caller frees): each event's row, 0 = the lane's top row, at most
 * GF_NVTX_MAX_ROWS - 1 (a call deeper than that shares the last row). Events of GPU lanes are on row 0.
 * Returns 0, or -1 when out of memory. */
int gf_trace_lane_rows(const gf_trace *t, uint8_t **rows);

#endif
