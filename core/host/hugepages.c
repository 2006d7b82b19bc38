/* Transparent huge pages for glibc's malloc: the re-execution with GLIBC_TUNABLES=...:glibc.malloc.hugetlb=1,
 * and GLIBC_TUNABLES put back as it was in the re-executed process before anything else runs (hugepages.h).
 *
 * Why: the import and the views of a large export touch hundreds of MB of heap; with 2 MiB pages the kernel
 * faults and zeroes fewer pages and the TLB misses less: `timeline` and `findings` of the 368 MB export ran
 * 13-18 % faster (docs/PERFORMANCE.md). An exec costs ~3 ms of start-up, so policy asks for it only for
 * large inputs. Left alone where it cannot help or could do harm:
 * - a sanitizer build (its allocator replaces glibc's), or anything in LD_PRELOAD (Valgrind, jemalloc);
 * - THP not in `madvise` mode (`never`: nothing to gain; `always`: the kernel already does it);
 * - a secure-execution process (glibc ignores tunables there), or the user's own hugetlb tunable;
 * - gpuflame-mpi (MPI is initialised before the host starts: no exec after it); GPUFLAME_HUGEPAGES=0. */
#include "hugepages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "interrupt.h"

/* Carries GLIBC_TUNABLES' value from before the exec: "-" when it was unset, else "=" and the value. */
#define SAVED_VAR "GPUFLAME_SAVED_GLIBC_TUNABLES"
#define THP_SETTING "glibc.malloc.hugetlb=1"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GF_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GF_SANITIZED 1
#endif
#endif

void gf_mpi_host_start(int *argc, char ***argv) __attribute__((weak)); /* main.c: defined in gpuflame-mpi */

static int reexecuted;
static char **kept_argv;

static void restore_tunables(const char *saved)
{
    if (saved[0] == '=')
        setenv("GLIBC_TUNABLES", saved + 1, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    unsetenv(SAVED_VAR);
}

void gf_hugepages_start(int argc, char **argv)
{
    const char *saved = getenv(SAVED_VAR);
    if (saved) { /* the re-executed process: nothing it starts inherits the tunable */
        restore_tunables(saved);
        reexecuted = 1;
        return;
    }
    kept_argv = calloc((size_t)argc + 1, sizeof *kept_argv);
    for (int i = 0; kept_argv && i < argc; i++)
        if (!(kept_argv[i] = strdup(argv[i]))) {
            while (i > 0)
                free(kept_argv[--i]);
            free(kept_argv);
            kept_argv = NULL;
        }
}

int gf_hugepages_active(void)
{
    return reexecuted;
}

#if defined(__GLIBC__) && !defined(GF_SANITIZED)
static int thp_in_madvise_mode(void)
{
    char mode[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    size_t n = fread(mode, 1, sizeof mode - 1, f);
    fclose(f);
    mode[n] = '\0';
    return strstr(mode, "[madvise]") != NULL;
}
#endif

/* NULL when the re-execution applies here, else why not */
static const char *not_applicable(const char *tunables)
{
#if !defined(__GLIBC__) || defined(GF_SANITIZED)
    (void)tunables;
    return "not glibc's allocator (a sanitizer build, or not glibc)";
#else
    const char *off = getenv("GPUFLAME_HUGEPAGES"), *preload = getenv("LD_PRELOAD");
    if (reexecuted)
        return "already on";
    if (off && strcmp(off, "0") == 0)
        return "GPUFLAME_HUGEPAGES=0";
    if (preload && preload[0])
        return "LD_PRELOAD is set";
    if (tunables && strstr(tunables, "glibc.malloc.hugetlb"))
        return "GLIBC_TUNABLES sets glibc.malloc.hugetlb already";
    if (getauxval(AT_SECURE))
        return "secure execution";
    if (gf_mpi_host_start)
        return "under MPI (gpuflame-mpi)";
    if (!kept_argv)
        return "no copy of the command line";
    if (gf_interrupted)
        return "interrupted"; /* an exec would drop the pending signal */
    if (!thp_in_madvise_mode())
        return "transparent huge pages are not in madvise mode";
    return NULL;
#endif
}

void gf_hugepages_reexec(const char **why)
{
    const char *tunables = getenv("GLIBC_TUNABLES");
    if ((*why = not_applicable(tunables)) != NULL)
        return;
    size_t tlen = tunables ? strlen(tunables) : 0;
    char *saved = malloc(tlen + 2), *with_thp = malloc(tlen + sizeof THP_SETTING + 1);
    if (!saved || !with_thp) {
        free(saved);
        free(with_thp);
        *why = "out of memory";
        return;
    }
    if (tunables) {
        snprintf(saved, tlen + 2, "=%s", tunables);
        snprintf(with_thp, tlen + sizeof THP_SETTING + 1, "%s%s%s", tunables, tlen ? ":" : "", THP_SETTING);
    } else {
        strcpy(saved, "-");
        strcpy(with_thp, THP_SETTING);
    }
    fflush(NULL); /* what was written so far is not written twice */
    if (setenv(SAVED_VAR, saved, 1) == 0 && setenv("GLIBC_TUNABLES", with_thp, 1) == 0)
        execv("/proc/self/exe", kept_argv);
    *why = strerror(errno);
    restore_tunables(saved);
    free(saved);
    free(with_thp);
}
