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
    int deflate; /* each column's varints raw-DEFLATE compressed before base64 ("varint-deflate-base64") */
    const uint32_t *only; /* when not NULL: only these events (ascending indices), e.g. a page's preview */
    size_t nonly;
} gf_pack_maps;
int gf_trace_write_packed(const gf_trace *t, FILE *out, const gf_pack_maps *m, gf_err *err);

/* Base64 (RFC 4648, with padding) of data, streamed to out. */
void gf_base64_write(FILE *out, const unsigned char *data, size_t len);

#endif
