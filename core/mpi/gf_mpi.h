/* MPI for gpuflame-mpi only (`make mpi`; issue 27): start and end, who am I, and moving byte strings
 * between ranks (any length: sent as a length, then pieces under MPI's int count limit). Compiled only
 * into bin/gpuflame-mpi; the default build never sees mpi.h. Every call returns 0 or -1 with err. */
#ifndef GF_MPI_H
#define GF_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"

int gf_mpi_rank(void);
int gf_mpi_size(void);

/* Sends len bytes to rank dest (blocking until MPI may reuse buf). */
int gf_mpi_send(int dest, const void *buf, size_t len, gf_err *err);
/* Receives one byte string sent by gf_mpi_send from src (-1: any rank; *from says which). *buf is
 * malloc'd (free it); a zero-length string gives a non-NULL *buf. */
int gf_mpi_recv(int src, char **buf, size_t *len, int *from, gf_err *err);
/* Every rank's string, in rank order, on every rank: out[r] malloc'd, lens[r] its length (arrays of
 * gf_mpi_size() entries, allocated by the caller). */
int gf_mpi_allgather(const char *s, size_t len, char **out, size_t *lens, gf_err *err);

/* This rank has sent its share to rank 0: the silent error that ends its command (gpuflame.mpi.finish)
 * is a clean exit. */
void gf_mpi_share_done(void);

/* Ends every process of the job with code (MPI_Abort): a failing rank never leaves the others waiting. */
void gf_mpi_abort(int code);

#endif
