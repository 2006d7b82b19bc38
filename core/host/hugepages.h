/* Transparent huge pages for glibc's malloc (glibc.malloc.hugetlb=1). glibc reads the tunable only at
 * start-up, so gpuflame re-executes itself with it set when policy says a command's inputs are large enough
 * (limits.huge_pages, lua/gpuflame/hugepages.lua), and puts GLIBC_TUNABLES back as it was in the
 * re-executed process before anything runs, so that nsys and a profiled workload never inherit it. */
#ifndef GF_HUGEPAGES_H
#define GF_HUGEPAGES_H

/* Called first in main, before argv is changed: restores the environment of a re-executed process, or keeps
 * a copy of argv for gf_hugepages_reexec. */
void gf_hugepages_start(int argc, char **argv);

/* Whether this process runs with the tunable (it was re-executed). */
int gf_hugepages_active(void);

/* Re-executes gpuflame with the tunable; returns only when it did not: *why says why (not applicable here:
 * a sanitizer build, LD_PRELOAD, THP not in madvise mode, the user's own setting, GPUFLAME_HUGEPAGES=0, MPI;
 * or the exec failed). */
void gf_hugepages_reexec(const char **why);

#endif
