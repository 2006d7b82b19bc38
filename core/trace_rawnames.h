/* Recorded API names of a trace (core/trace_rawnames.c). */
#ifndef GF_TRACE_RAWNAMES_H
#define GF_TRACE_RAWNAMES_H

#include "trace_types.h"

/* Recorded API names (core/trace_rawnames.c). Events carry the display name (cudaMemcpy), the rules print
 * the StringIds value (cudaMemcpy_v3020), and one export may hold both for one display name (nsys 2022.2
 * with --cudabacktrace: two RUNTIME rows per call, one of each). Called after gf_trace_add of an API
 * event with the name it was recorded under: the first call of a display name sets raw_names, a later
 * one recorded under another name gets its own entry by seq. */
int gf_trace_note_raw_name(gf_trace *t, int32_t name, int32_t raw);
/* The name of display name's first call (name itself when none was noted). */
int32_t gf_trace_raw_name(const gf_trace *t, int32_t name);
/* The name event i was recorded under. */
int32_t gf_trace_event_raw_name(const gf_trace *t, size_t i);

#endif
