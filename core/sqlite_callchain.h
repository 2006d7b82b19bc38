/* How an export's CUDA calls refer to their launch backtraces. CUPTI_ACTIVITY_KIND_RUNTIME.callchainId
 * should be a CUDA_CALLCHAINS.id, and is in newer exports, but the nsys 2022.2 export (schema 2.9.1) of
 * real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite numbers the references from 0 and the chains from 1:
 * its 38 backtraced calls use 0..37, its chains are 1..38, and only shifted by one does every call's own
 * function (cudaLaunchKernel, cudaMalloc, ...) appear in its chain (38 of 38, against 17 of 38 unshifted:
 * a kernel's launch read unshifted shows the previous call's cudaMemcpy stack). */
#ifndef GF_SQLITE_CALLCHAIN_H
#define GF_SQLITE_CALLCHAIN_H

#include <sqlite3.h>

/* The number to add to RUNTIME.callchainId to get the CUDA_CALLCHAINS.id: 1 when every reference resolves
 * shifted by one and not every one resolves as written (so a sound export, where the largest id is used,
 * is never shifted); else 0, also when the tables or columns are missing or the query fails. */
int gf_sqlite_callchain_shift(sqlite3 *db);

#endif
