/* Building a trace (core/trace_build.c): lanes, stacks and events added by the importers, the partner pass,
 * and finish (trace.h tells the order of the calls). */
#ifndef GF_TRACE_BUILD_H
#define GF_TRACE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "trace_types.h"

/* Starts building: max_events 0 keeps everything. */
int gf_trace_begin(gf_trace *t, size_t max_events, int keep_partners, gf_err *err);
/* Finds or adds a lane; returns its index or -1 (err filled). device: strtab id or -1. sync: on a GPU lane
 * 1 for the synchronization lane; on a CPU lane the thread's sub-lane (GF_SUB_*); ignored on NVTX lanes. */
int32_t gf_trace_lane(gf_trace *t, int kind, int sync, int64_t pid, int64_t tid, int32_t device, int64_t devnum,
                      int64_t stream, gf_err *err);
/* The same for a lane of one rank (merged traces): lanes of different ranks never merge. */
int32_t gf_trace_lane_ranked(gf_trace *t, int32_t rank, int kind, int sync, int64_t pid, int64_t tid, int32_t device,
                             int64_t devnum, int64_t stream, gf_err *err);
void gf_trace_lane_set_thread_name(gf_trace *t, int32_t lane, int32_t tname);
/* Finds or adds a stack (frame strtab ids, innermost first); returns its id or -1 on OOM. */
int32_t gf_trace_stack(gf_trace *t, const int32_t *frames, size_t n);
/* Room for n events in all (a hint: when the count is known in advance, as in a merge, the columns are
 * sized once and mapped in one go instead of doubling). Bounded builds reserve at most their max. */
int gf_trace_reserve(gf_trace *t, size_t n, gf_err *err);
/* gf_trace_reserve whose new room is offered huge pages but not mapped: its spans are added to *later
 * (mem.h; later->n set by the caller), for the caller to map, e.g. on a thread beside the import. */
int gf_trace_reserve_later(gf_trace *t, size_t n, struct gf_mem_populator *later, gf_err *err);
/* Adds one event (d may be NULL). */
int gf_trace_add(gf_trace *t, const gf_event *e, const gf_detail *d, gf_err *err);
/* Importers that read a table out of the model's arrival order (trace_sqlite_nvtx.c): in a keep-all build
 * (gf_trace_keeps_all) the events added since `from` (gf_trace_added before them) are still the builder's
 * columns, which the importer may rewrite in place (t->start[i] ... for from <= i < gf_trace_added(t));
 * gf_trace_reorder_added puts them in the order ord (ord[k] = the old offset from `from` of the k-th; seq
 * keeps arrival order, so they count as having arrived sorted), gf_trace_set_added_detail gives event i
 * its details (interned as gf_trace_add would), gf_trace_drop_added forgets them (counts included). */
int gf_trace_keeps_all(const gf_trace *t);
/* 0 when a bounded build is full and an event of this duration would be dropped by gf_trace_add (its
 * detail is then never read: importers may skip parsing it); 1 otherwise. */
int gf_trace_may_keep(const gf_trace *t, int64_t dur);
/* 0 when gf_trace_add would read nothing of e but its kind and duration (a bounded build drops e and sets
 * no launch aside for it): importers may leave the name uninterned (-1), and the corr of GPU work unread
 * (-1). 1 otherwise. e: kind, dur, stack, and for CUDA API calls pid and corr. */
int gf_trace_needs_name(gf_trace *t, const gf_event *e);
/* Bulk counting for importers of many rows: an event with no stack, duration <= gf_trace_drop_thr(t,
 * gf_ev_is_gpu_work(kind)) and, for a CUDA API call, gf_trace_needs_name 0, would only be counted by
 * gf_trace_add; the importer may count n such events of one kind with gf_trace_add_dropped instead, in
 * arrival order with its other gf_trace_add calls (call it before the next one). The threshold is -1 when
 * every event must go through gf_trace_add; it changes only in gf_trace_add, gf_trace_collect_partners and
 * gf_trace_partner_pass_needed. */
int64_t gf_trace_drop_thr(const gf_trace *t, int gpu_work);
void gf_trace_add_dropped(gf_trace *t, int kind, uint64_t n);
size_t gf_trace_added(const gf_trace *t);
int gf_trace_reorder_added(gf_trace *t, size_t from, const uint32_t *ord, gf_err *err);
int gf_trace_set_added_detail(gf_trace *t, size_t i, const gf_detail *d, gf_err *err);
void gf_trace_drop_added(gf_trace *t, size_t from);
/* A merge of digests (trace_digest.h): gf_trace_add no longer counts events, remembers launches or inherits
 * stacks; the caller sets total, total_kind and launches_with_stack, and gives the launch flame's entries
 * with gf_trace_add_flame (weights of equal (stack, leaf, gpu) are summed). Call right after begin. */
void gf_trace_set_given(gf_trace *t);
/* The finish of a keep-all build may order its events on this many threads (1 or 2; the default 1): for
 * an importer whose own threads are done by then (trace_order.h). */
void gf_trace_set_finish_threads(gf_trace *t, int threads);
/* The finish of a keep-all build leaves the events in the order they were added and sets t->unordered: for a
 * trace whose only reader finds its own order where it needs one (a page's GPU stacks, trace_flame.h), so the
 * sort by start and the columns' gather (~0.1 CPU-s a million events) are not done. */
void gf_trace_set_unordered(gf_trace *t);
int gf_trace_add_flame(gf_trace *t, int32_t stack, int32_t leaf, int gpu, int64_t weight);
/* After all events: 1 when keep_partners is on and some kept GPU work lacks its launch; the importer
 * then offers the CUDA API events again through gf_trace_add_partner, which keeps only those wanted. */
int gf_trace_partner_pass_needed(gf_trace *t);
int gf_trace_add_partner(gf_trace *t, const gf_event *e, gf_err *err);
/* Single-pass alternative for imports that read GPU work before the CUDA API calls (CSV: no stacks to
 * inherit): after the GPU events, call this; the API events added afterwards that launched a GPU event
 * still in the heap are set aside (at most max_events of them) and kept at finish when their GPU event
 * survived. Returns 0 or -1 (OOM). */
int gf_trace_collect_partners(gf_trace *t, gf_err *err);
/* Sorts by start, builds the arrays and lane labels. */
int gf_trace_finish(gf_trace *t, gf_err *err);
/* seq of the event the last gf_trace_add took (kept or not), -1 before any; only while building. */
int64_t gf_trace_last_seq(const gf_trace *t);

#endif
