/* The per-report model as a file (issue 27, docs/MODEL_FORMAT.md): what `gpuflame import` writes and
 * every multi-report command reads in place of a report, and what MPI ranks send to rank 0. A header
 * (magic, format version, byte-order mark), the capture's provenance as a JSON text (written and read by
 * Lua), the trace model (trace_io.c's serialization), the export's tables that stats reads (optional), and a
 * trailer with the lengths and CRC-32s.
 * Any damage, another format version or another byte order is an error naming the file, never a guess. */
#ifndef GF_MODEL_FILE_H
#define GF_MODEL_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "gf_err.h"
#include "trace.h"

#define GF_MODEL_MAGIC "GFMODEL"  /* 8 bytes with its NUL */
#define GF_MODEL_VERSION 3u

/* Writes t (finished), the provenance text (prov_len bytes, not NUL-terminated necessarily) and the file
 * tables (an SQLite database of the export's tables stats reads, model_tables.h; NULL: none) to f.
 * Returns 0, or -1 with err (GF_EXIT_ERROR) saying what failed; the caller names the file. */
int gf_model_write(const gf_trace *t, const char *prov, size_t prov_len, const char *tables, FILE *f,
                   gf_err *err);

/* Reads a model file from f; name is what errors call it (a path, "rank 2's model"). On success *out is a
 * finished trace and *prov a malloc'd NUL-terminated provenance text (free both). Errors are GF_EXIT_INPUT
 * ("<name>: not a gpuflame model file", "<name>: written by model format version N; ...", "<name>:
 * damaged model file: ...") or GF_EXIT_ERROR when out of memory. */
int gf_model_read(FILE *f, const char *name, gf_trace **out, char **prov, gf_err *err);

/* The tables a model file carries, written to dest (*present 1), or nothing (*present 0: imported
 * without them). Header, lengths and the tables' checksum are checked (not the payload's: it is not
 * read); errors as gf_model_read's. */
int gf_model_tables(FILE *f, const char *name, const char *dest, int *present, gf_err *err);

/* gf_model_write (no tables) into a malloc'd buffer (*buf, *len), for sending. */
int gf_model_to_buffer(const gf_trace *t, const char *prov, size_t prov_len, char **buf, size_t *len, gf_err *err);
/* gf_model_read from memory. */
int gf_model_from_buffer(const char *buf, size_t len, const char *name, gf_trace **out, char **prov, gf_err *err);

#endif
