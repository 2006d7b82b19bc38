/* The timeline page's event data, packed (docs/TIMELINE_DATA.md "Packed events"): one base64 string per
 * column of zigzag-varint numbers (start as deltas), optionally raw-DEFLATE compressed (policy
 * timeline.compress: the page's bytes are most of its opening time), so a million events cost ~6–14 bytes
 * each in the page and the page decodes them straight into typed arrays. Details identical in every written field are
 * written once. */
#ifndef GF_TRACE_PACK_H
#define GF_TRACE_PACK_H

#include <stdio.h>

#include "gf_err.h"
#include "trace.h"

/* The maps give the page's index of a lane / name / stack (-1 = not written); t0 is subtracted from starts.
 * Writes `"events":{...},"details":[...]` (no surrounding braces). */
typedef struct gf_pack_maps {
    int64_t t0;
    const int32_t *lane, *name, *stack;
    const uint8_t *row; /* per model event: its nesting row (trace_rows.h), or NULL; a row > 0 of an event
                         * without details (a nested CUDA call) is written as a detail {"row": N} */
    int deflate; /* each column's varints raw-DEFLATE compressed in chunks before base64
                  * ("varint-deflate-chunks-base64") */
    const uint32_t *only; /* when not NULL: only these events (ascending indices), e.g. a page's preview */
    size_t nonly;
    int row_later; /* gf_trace_pack_start only: row comes later, through gf_trace_pack_set_row */
} gf_pack_maps;
int gf_trace_write_packed(const gf_trace *t, FILE *out, const gf_pack_maps *m, int threads, gf_err *err);

/* The same in two steps, so that the columns compress while the caller writes what comes before them:
 * gf_trace_pack_start finds the unique details and, when m->deflate and threads > 1, starts threads - 1
 * workers that compress columns into temporary files, each holding one unwritten column at most (the
 * caller's thread compresses the column it needs straight into the page when no worker took it);
 * the maps that m points to must live until the job is written or freed. gf_trace_pack_write writes
 * `"events":...` and always frees the job (joins its workers), errors included; gf_trace_pack_free stops,
 * joins and frees a job that will not be written (NULL: nothing). The page is the same byte for byte at
 * any thread count. */
typedef struct gf_pack_job gf_pack_job;
enum { GF_PACK_COLUMNS = 8 }; /* the columns (start, dur, lane, corr, name, stack, kind, detail): the most threads a job uses */
int gf_trace_pack_start(const gf_trace *t, const gf_pack_maps *m, int threads, gf_pack_job **job, gf_err *err);
/* Hands over the rows of a job started with m->row_later (the detail column waits for them); before
 * gf_trace_pack_write. */
void gf_trace_pack_set_row(gf_pack_job *job, const uint8_t *row);
int gf_trace_pack_write(gf_pack_job *job, FILE *out, gf_err *err);
void gf_trace_pack_free(gf_pack_job *job);

/* Base64 (RFC 4648, with padding) of data, streamed to out. */
void gf_base64_write(FILE *out, const unsigned char *data, size_t len);

#endif
