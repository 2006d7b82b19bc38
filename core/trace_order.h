/* Ordering a keep-all build's events at finish (core/trace_order.c). */
#ifndef GF_TRACE_ORDER_H
#define GF_TRACE_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "trace_types.h"

/* Keep-all builds at finish (core/trace_order.c). gf_trace_order_kept fills ord[k] with the index of the k-th
 * event in (start, kind, arrival) order; returns 1 when they are in order already (ord the identity), 0
 * otherwise. gf_trace_permute_kept puts the n events' columns in the order ord, seq excepted, one column
 * at a time through one 4-byte spare column (8-byte columns half by half); -1 on OOM. threads >= 2: the
 * sort's and the gathers' halves on two threads, with the same results. */
int gf_trace_order_kept(const gf_trace *t, size_t n, uint32_t *ord, int threads);
int gf_trace_permute_kept(gf_trace *t, const uint32_t *ord, size_t n, int threads);

#endif
