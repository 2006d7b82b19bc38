/* Memory hints (core/mem.c): a huge-page hint on a large block leaves the block one mapping, so that realloc
 * can still move it by mremap. A hint on part of a mapping splits it, and realloc of a split block fails over
 * to a copy with the old and new block resident side by side (the NVTX projection's merge grew the 5M-event
 * export's columns that way). The mappings are read from /proc/self/maps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "mem.h"
#include "tap.h"
#include "trace.h"
#include "trace_build.h"

/* The mapping of /proc/self/maps that holds address a: 0 found, -1 not. */
static int mapping_of(uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    int rc = -1;
    while (rc != 0 && fgets(line, sizeof line, f)) {
        unsigned long s, e;
        if (sscanf(line, "%lx-%lx", &s, &e) == 2 && a >= s && a < e) {
            *lo = s;
            *hi = e;
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* 1 when the mapping that holds p is advised for huge pages (VmFlags "hg" in /proc/self/smaps), 0 when not,
 * -1 when it is not found */
static int advised_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int rc = -1, here = 0;
    while (rc < 0 && fgets(line, sizeof line, f)) {
        unsigned long s, e;
        if (sscanf(line, "%lx-%lx ", &s, &e) == 2) /* a mapping's first line; its fields start with a name */
            here = (uintptr_t)p >= s && (uintptr_t)p < e;
        else if (here && strncmp(line, "VmFlags:", 8) == 0)
            rc = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return rc;
}

/* 1 when [p, p + len) lies in one mapping */
static int one_mapping(const void *p, size_t len)
{
    uintptr_t lo1, hi1, lo2, hi2;
    if (mapping_of((uintptr_t)p, &lo1, &hi1) != 0 || mapping_of((uintptr_t)p + len - 1, &lo2, &hi2) != 0)
        return 0;
    return lo1 == lo2 && hi1 == hi2;
}

static int filled(const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != (uint32_t)(i * 2654435761u))
            return 0;
    return 1;
}

#define MIB ((size_t)1 << 20)

/* gf_mem_mapped_bytes against glibc's rule for a mapped chunk (the request plus 8, up to 16, plus 8, up to the
 * page): a whole number of 2 MiB from GF_MEM_MAPPED_MIN on, at most 2 MiB more than asked; nothing smaller. */
static void check_mapped_bytes(void)
{
    const size_t same[] = {0, 1, 4096, GF_MEM_MAPPED_MIN - 1};
    int ok = 1;
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        ok = ok && gf_mem_mapped_bytes(same[i]) == same[i];
    CHECK("blocks under GF_MEM_MAPPED_MIN are asked as they are", ok);
    const size_t big[] = {GF_MEM_MAPPED_MIN, GF_MEM_MAPPED_MIN + 1, 5 * MIB, 6 * MIB - 24, 6 * MIB - 23,
                          100 * MIB + 7, 1000 * MIB};
    ok = 1;
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        size_t b = big[i], m = gf_mem_mapped_bytes(b);
        size_t chunk = ((m + 8 + 15) / 16 * 16 + 8 + 4095) / 4096 * 4096;
        ok = ok && m >= b && m - b < 2 * MIB && chunk % (2 * MIB) == 0 && chunk - 2 * MIB < b + 24;
    }
    CHECK("larger ones are mapped as a whole number of 2 MiB, under 2 MiB more", ok);
}

/* Whether this kernel places an anonymous mapping of a whole number of 2 MiB on a 2 MiB boundary (Linux 6.7
 * on, with transparent huge pages): gf_mem_scratch's block then starts one on. Three mappings at once, so that
 * one kernel that places them anywhere is not taken for one that aligns them by chance (1 in 512 each). */
static int kernel_aligns_huge(void)
{
    enum { NPROBE = 3 };
    size_t len = 8 * MIB;
    void *p[NPROBE];
    int aligned = 1;
    for (int i = 0; i < NPROBE; i++) {
        p[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        aligned = aligned && p[i] != MAP_FAILED && ((uintptr_t)p[i] & (2 * MIB - 1)) == 0;
    }
    for (int i = 0; i < NPROBE; i++)
        if (p[i] != MAP_FAILED)
            munmap(p[i], len);
    return aligned;
}

/* A scratch block of 12 MiB + 5: huge pages from its first byte, and the huge page that holds its end left to
 * 4 KiB pages, a mapping of its own. */
static void check_scratch(void)
{
    size_t n = 12 * MIB + 5;
    unsigned char *p = gf_mem_scratch(n);
    CHECK("a scratch block of 12 MiB", p != NULL);
    if (!p)
        return;
    memset(p, 7, n);
    if (!kernel_aligns_huge()) {
        SKIP("scratch on 2 MiB boundaries", "this kernel places mappings anywhere (before Linux 6.7)");
    } else {
        uintptr_t lo, hi, tlo, thi, end = (uintptr_t)p + n;
        CHECK("its mapping starts on a 2 MiB boundary (glibc's 16-byte header before the block)",
              ((uintptr_t)p & (2 * MIB - 1)) == 16);
        CHECK("the huge page with its end is a mapping of its own",
              mapping_of((uintptr_t)p, &lo, &hi) == 0 && mapping_of(end - 1, &tlo, &thi) == 0 && hi == tlo &&
                  tlo == (end & ~(uintptr_t)(2 * MIB - 1)) && thi == tlo + 2 * MIB);
    }
    CHECK("every byte written is kept", p[0] == 7 && p[n / 2] == 7 && p[n - 1] == 7);
    free(p);
}

int main(void)
{
#ifdef __SANITIZE_ADDRESS__
    SKIP("huge-page hints", "AddressSanitizer's allocator maps blocks its own way (glibc's realloc is what is tested)");
    return 0;
#endif
    check_mapped_bytes();
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, (int)GF_MEM_MAPPED_MIN); /* as gpuflame's main: large blocks are mappings of their own */
#endif
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
        SKIP("huge-page hints", "no transparent huge pages on this kernel (a hint is then a no-op)");
        return 0;
    }
    size_t n = (size_t)3 << 20; /* 12 MiB of uint32: a block mapped apart (main.c's M_MMAP_THRESHOLD) */
    uint32_t *v = malloc(n * sizeof *v);
    CHECK("12 MiB allocated", v != NULL);
    if (!v)
        return tap_done();
    gf_mem_hint_huge(v, n * sizeof *v);
    CHECK("huge pages not chosen (the default): a hint leaves the block unadvised", advised_huge(v) == 0);
    gf_mem_use_huge_pages(1); /* as gpuflame's main where policy chose huge pages */
    gf_mem_hint_huge(v, n * sizeof *v);
    CHECK("huge pages chosen: the hint advises the block", advised_huge(v) == 1);
    CHECK("the hinted block is one mapping", one_mapping(v, n * sizeof *v));
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)(i * 2654435761u);
    /* the builder's pattern: the whole block hinted, only its tail populated ahead of the writer */
    gf_mem_populate(v + n / 3, (n - n / 3) * sizeof *v);
    CHECK("populating part of it keeps one mapping", one_mapping(v, n * sizeof *v));
    uint32_t *w = realloc(v, 2 * n * sizeof *w);
    CHECK("realloc to 24 MiB", w != NULL);
    if (!w) {
        free(v);
        return tap_done();
    }
    CHECK("the contents moved with it", filled(w, n));
    CHECK("the grown block is one mapping", one_mapping(w, 2 * n * sizeof *w));
    free(w);

    /* the trace builder's columns: reserved after some events arrived (the new room offered huge pages,
     * the import's pattern), then grown past the reservation by realloc */
    gf_err err = {0};
    gf_trace *t = gf_trace_new();
    gf_trace_begin(t, 0, 0, &err);
    int32_t lane = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, -1, -1, 7, &err);
    enum { NEV = 1200000 }; /* 4-byte columns of 4.8 MB: over mem.c's huge-page minimum */
    int ok = 1;
    for (int i = 0; i < NEV + 1000 && ok; i++) {
        if (i == 1000)
            ok = gf_trace_reserve(t, NEV, &err) == 0 && one_mapping(t->start, NEV * sizeof *t->start) &&
                 one_mapping(t->lane, NEV * sizeof *t->lane) && one_mapping(t->kind, NEV);
        gf_event e = {.start = i, .dur = 1, .corr = -1, .lane = lane, .name = -1, .stack = -1, .pid = 1,
                      .kind = GF_EV_KERNEL};
        ok = ok && gf_trace_add(t, &e, NULL, &err) == 0;
    }
    CHECK("a reservation after the first events leaves each column one mapping", ok);
    CHECK("the columns grown past it are one mapping each", one_mapping(t->start, (NEV + 1000) * sizeof *t->start) &&
                                                                one_mapping(t->lane, (NEV + 1000) * sizeof *t->lane));
    gf_trace_free(t);
    check_scratch();
    return tap_done();
}
