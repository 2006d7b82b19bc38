/* The run manifest of the NVTX analysis (docs/spec/NVTX_ANALYSIS.md §2): loading and the checks of §12 are
 * gf_nvtx_load_manifest (nvtx.h); here what the analysis reads from it. */
#ifndef GF_NVTX_MANIFEST_H
#define GF_NVTX_MANIFEST_H

#include <stdint.h>

#include "yamltree.h"

/* run.record_count: Python's len(record_ids or []). -1 when record_ids has no length (not a list). */
int gf_nvtx_record_count(const gf_yv *record_ids, int64_t *out);

#endif
