/* A report's digest for a bounded merge (issue 27, docs/MPI.md): what one report contributes to a merged
 * timeline of the max_events longest events, made where the report is opened, so that an MPI rank sends
 * rank 0 that instead of the whole model. The merge (gf_trace_merge with digests) gives, byte for byte,
 * the page of a merge of the whole models:
 *   - events: the report's own max_events longest (ties: the earlier), which hold every event the merge can
 *     keep (the merge's longest N are among the union of each report's longest N), plus the launches of
 *     their GPU work (the merge's partner pass); each with the launch stack the merge would give it;
 *   - what the merge computes from every event: the event counts (total, per kind), the launches with a
 *     backtrace, the launch flamegraph's entries, in the order the merge visits the report's events;
 *   - the first-seen order of strings and stacks over every event: the digest's string and stack ids
 *     follow it (only those seen are kept), so the merged ids keep their relative order (the page orders
 *     its stacks and the flame by id);
 *   - the lanes the events touch: (lane, process) pairs in first-seen order (the merge's lanes, each rank's).
 * A digest is a finished trace (the model file format carries it unchanged) whose lanes are the report's
 * (labels unset) and whose events keep the report's pids; touch[] holds 2 × ntouch integers. */
#ifndef GF_TRACE_DIGEST_H
#define GF_TRACE_DIGEST_H

#include "trace.h"

/* max_events 0: every event. *out a new finished trace, *touch malloc'd (free both); 0 or -1 with err. */
int gf_trace_digest(const gf_trace *s, size_t max_events, int keep_partners, gf_trace **out, int64_t **touch,
                    size_t *ntouch, gf_err *err);

#endif
