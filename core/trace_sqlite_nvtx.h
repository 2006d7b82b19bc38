/* The SQLite importer's NVTX table-order reader (core/trace_sqlite_nvtx.c). Private to the importer. */
#ifndef GF_TRACE_SQLITE_NVTX_H
#define GF_TRACE_SQLITE_NVTX_H

#include "trace_sqlite_int.h"

/* NVTX_EVENTS read in table order and put in the order of the ORDER BY it replaces;
 * 1 when the table's shape or the build (bounded) needs that ORDER BY instead (nothing was added). */
int gf_tsq_nvtx_table_order(imp *m);

#endif
