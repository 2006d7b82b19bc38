/* MPI primitives of gpuflame-mpi (see gf_mpi.h), and the hooks core/host/main.c calls when they are
 * linked in: MPI_Init before the host starts, MPI_Finalize after a clean run, MPI_Abort after a failed
 * one (the message was printed first, prefixed with this rank). */
#include "gf_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define TAG 27
#define PIECE ((size_t)1 << 30) /* under INT_MAX elements per call */

int gf_mpi_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int gf_mpi_size(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

static int failed(gf_err *err, const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    return gf_errf(err, GF_EXIT_ERROR, "MPI %s: %s", what, s);
}

int gf_mpi_send(int dest, const void *buf, size_t len, gf_err *err)
{
    uint64_t n = len;
    int rc = MPI_Send(&n, 1, MPI_UINT64_T, dest, TAG, MPI_COMM_WORLD);
    for (size_t off = 0; rc == MPI_SUCCESS && off < len; off += PIECE) {
        size_t k = len - off < PIECE ? len - off : PIECE;
        rc = MPI_Send((const char *)buf + off, (int)k, MPI_BYTE, dest, TAG, MPI_COMM_WORLD);
    }
    return rc == MPI_SUCCESS ? 0 : failed(err, "send", rc);
}

int gf_mpi_recv(int src, char **buf, size_t *len, int *from, gf_err *err)
{
    uint64_t n = 0;
    MPI_Status st;
    *buf = NULL;
    *len = 0;
    int rc = MPI_Recv(&n, 1, MPI_UINT64_T, src < 0 ? MPI_ANY_SOURCE : src, TAG, MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS)
        return failed(err, "receive", rc);
    *from = st.MPI_SOURCE;
    if (n > SIZE_MAX - 1 || !(*buf = malloc((size_t)n + 1)))
        return gf_errf(err, GF_EXIT_ERROR, "MPI receive: out of memory for %llu bytes from rank %d",
                       (unsigned long long)n, *from);
    for (size_t off = 0; rc == MPI_SUCCESS && off < n; off += PIECE) {
        size_t k = n - off < PIECE ? (size_t)n - off : PIECE;
        rc = MPI_Recv(*buf + off, (int)k, MPI_BYTE, *from, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) {
        free(*buf);
        *buf = NULL;
        return failed(err, "receive", rc);
    }
    (*buf)[n] = 0;
    *len = (size_t)n;
    return 0;
}

int gf_mpi_allgather(const char *s, size_t len, char **out, size_t *lens, gf_err *err)
{
    int size = gf_mpi_size();
    if (len > INT_MAX)
        return gf_errf(err, GF_EXIT_ERROR, "MPI allgather: %zu bytes is over the limit", len);
    int mine = (int)len, *counts = calloc((size_t)size, sizeof *counts), *displs = calloc((size_t)size, sizeof *displs);
    char *all = NULL;
    int rc = counts && displs ? MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD) : -1;
    size_t total = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < size; r++) {
        displs[r] = (int)total;
        total += (size_t)counts[r];
    }
    if (rc == MPI_SUCCESS && total <= INT_MAX && (all = malloc(total + 1)))
        rc = MPI_Allgatherv(s, mine, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    else if (rc == MPI_SUCCESS)
        rc = -1;
    for (int r = 0; rc == MPI_SUCCESS && r < size; r++) {
        lens[r] = (size_t)counts[r];
        if ((out[r] = malloc(lens[r] + 1))) {
            memcpy(out[r], all + displs[r], lens[r]);
            out[r][lens[r]] = 0;
        } else
            rc = -1;
    }
    free(all);
    free(counts);
    free(displs);
    if (rc == -1)
        return gf_oom(err, "MPI allgather");
    return rc == MPI_SUCCESS ? 0 : failed(err, "allgather", rc);
}

void gf_mpi_abort(int code)
{
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
}

/* ---- the host's hooks (weak references in core/host/main.c) ---- */

void gf_mpi_host_start(int *argc, char ***argv)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
    /* errors come back as codes, so that a failure is reported by the rank that saw it */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static int share_done;

void gf_mpi_share_done(void)
{
    share_done = 1;
}

/* After the command (its message already printed): a clean end, or a rank that handed its share to rank 0
 * (its command was ended by gpuflame.mpi.finish's silent error), finalizes; a failure ends the whole job. */
int gf_mpi_host_end(int code)
{
    if (code == 0 || share_done) {
        MPI_Finalize();
        return 0;
    }
    gf_mpi_abort(code);
    return code;
}
