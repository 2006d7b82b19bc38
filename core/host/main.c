/* gpuflame's entry point: everything past argument pre-scanning happens in Lua (gpuflame.main.cli),
 * inside one protected call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gf_err.h"
#include "gpuflame.h"
#include "proc.h"
#include "textsafe.h"
#include "host.h"
#include "hugepages.h"
#include "mem.h"
#include "sqlite_export.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Defined only in bin/gpuflame-mpi (core/mpi/gf_mpi.c, `make mpi`): MPI_Init before the host starts;
 * after the command MPI_Finalize, or MPI_Abort when it failed, so that no rank waits for a failed one.
 * gf_mpi_host_end returns the exit code (0 for a rank that handed its share to rank 0). */
void gf_mpi_host_start(int *argc, char ***argv) __attribute__((weak));
int gf_mpi_host_end(int code) __attribute__((weak));

static char *kept_secrets[8];
static int nkept;

/* Returns a heap copy of s and overwrites the original (argv) bytes with '*'. */
static const char *hide_secret(char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return s;
    if (nkept < 8)
        kept_secrets[nkept++] = copy;
    memset(s, '*', strlen(s));
    return copy;
}

static const char *hide_secret_after(char *s, size_t prefix)
{
    char *copy = strdup(s);
    if (!copy)
        return s;
    if (nkept < 8)
        kept_secrets[nkept++] = copy;
    memset(s + prefix, '*', strlen(s + prefix));
    return copy;
}

int main(int argc, char **argv)
{
    gf_hugepages_start(argc, argv); /* before the secrets in argv are hidden: a re-execution needs them */
    gf_mem_use_huge_pages(gf_hugepages_active());
#ifdef __GLIBC__
    /* A fixed threshold (mem.h's GF_MEM_MAPPED_MIN): blocks under 4 MiB come from the heap, where freed ones
     * are used again. At 128 KiB each was a mapping whose pages faulted anew whenever one was freed and another
     * allocated, ~15 us a fault on a VM (the hierarchical flamegraph of the 1M bench: 35,000 faults at 128 KiB,
     * 20,000 at 4 MiB; issue 42). Fixed, because glibc otherwise raises it to the size of the largest mapped
     * block freed, up to 32 MiB, and large blocks freed below live ones stay resident (issue 29: findings of
     * the 368 MB export peaked 17 MiB higher; at 32 MiB, the 5M-event timeline page peaked 80 MiB higher). */
    mallopt(M_MMAP_THRESHOLD, (int)GF_MEM_MAPPED_MIN);
#endif
    /* A diagnostic switch: SQLite steps every imported row, as before issue 42's direct reading (benchmarks). */
    const char *direct = getenv("GPUFLAME_SQLITE_DIRECT");
    if (direct && strcmp(direct, "0") == 0)
        gf_sqlq_direct(0);
    if (gf_mpi_host_start)
        gf_mpi_host_start(&argc, &argv);
    gf_install_signal_handlers();
    gf_host *host = gf_host_new();
    if (!host) {
        fprintf(stderr, "gpuflame: cannot start the Lua host (out of memory)\n");
        return GF_EXIT_ERROR;
    }
    /* --lua-path must be known before the first module loads, so it is handled here. */
    const char **args = calloc((size_t)argc + 1, sizeof *args);
    int nargs = 0, verbose = getenv("GPUFLAME_VERBOSE") != NULL;
    int after_dashdash = 0;
    for (int i = 1; i < argc; i++) {
        if (!after_dashdash && strcmp(argv[i], "--") == 0)
            after_dashdash = 1;
        if (!after_dashdash && strcmp(argv[i], "--lua-path") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gpuflame: --lua-path needs a directory\n");
                free(args);
                gf_host_free(host);
                return GF_EXIT_USAGE;
            }
            gf_host_add_path(host, argv[++i]);
            continue;
        }
        if (!after_dashdash && strncmp(argv[i], "--lua-path=", 11) == 0) {
            gf_host_add_path(host, argv[i] + 11);
            continue;
        }
        if (!after_dashdash && (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0))
            verbose = 1;
        /* A token given on the command line is copied and blanked in argv, so process listings
         * (/proc/PID/cmdline, ps) show "--token ****" from here on. GPUFLAME_TOKEN or --token-file
         * avoid the short window before this runs. */
        if (!after_dashdash && strcmp(argv[i], "--token") == 0 && i + 1 < argc) {
            args[nargs++] = argv[i];
            args[nargs++] = hide_secret(argv[++i]);
            continue;
        }
        if (!after_dashdash && strncmp(argv[i], "--token=", 8) == 0) {
            args[nargs++] = hide_secret_after(argv[i], 8);
            continue;
        }
        args[nargs++] = argv[i];
    }
    int code = gf_host_run_cli(host, nargs, args);
    const char *msg = gf_host_error(host);
    if (msg[0]) {
        char *safe = gf_text_escape(msg, strlen(msg), 1); /* external text in a message stays text */
        fprintf(stderr, "gpuflame: %s\n", safe ? safe : msg);
        free(safe);
        const char *tb = gf_host_traceback(host);
        if (verbose && tb[0])
            fprintf(stderr, "%s\n", tb);
    }
    free(args);
    gf_host_free(host); /* closes every process handle still open: their trees are ended */
    /* Nothing nsys started outlives gpuflame: daemons adopted as subreaper and still running now
     * are ended (an interrupted or failed run included). */
    char left[1024];
    if (gf_proc_end_orphans(2.0, left, sizeof left) > 0)
        fprintf(stderr, "gpuflame: ended processes left behind by the profiler:\n%s", left);
    for (int i = 0; i < nkept; i++)
        free(kept_secrets[i]);
    if (gf_mpi_host_end)
        code = gf_mpi_host_end(code);
    return code;
}
