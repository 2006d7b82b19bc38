/* A finished trace model written to a file and read back, so that a worker process can import one report
 * and hand the model to its parent (trace_workers.c); also the payload of the model file users keep
 * (model_file.c, docs/MODEL_FORMAT.md): raw arrays in this machine's byte order, prefixed by a magic that
 * names the struct sizes. Any change to what is written here changes the model file's format version. */
#ifndef GF_TRACE_IO_H
#define GF_TRACE_IO_H

#include <stdint.h>
#include <stdio.h>

#include "gf_err.h"
#include "trace.h"

/* t must be finished. Returns 0, or -1 with err (GF_EXIT_ERROR) naming what (the caller names the file). */
int gf_trace_save(const gf_trace *t, FILE *f, gf_err *err);
/* A finished trace equal to the one saved, or NULL with err. max_bytes: what f holds from here; no count
 * or length read from f allocates or reads beyond it (a damaged or hostile file fails instead). */
gf_trace *gf_trace_load(FILE *f, uint64_t max_bytes, gf_err *err);

#endif
