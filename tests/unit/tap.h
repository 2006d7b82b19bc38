/* Minimal test helpers for C unit tests: prints `ok - name` / `not ok - name: why` lines. */
#ifndef GF_TAP_H
#define GF_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_failed;

#define CHECK(name, cond)                                                                                    \
    do {                                                                                                     \
        if (cond) {                                                                                          \
            printf("ok - %s\n", name);                                                                       \
        } else {                                                                                             \
            printf("not ok - %s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__);                            \
            tap_failed++;                                                                                    \
        }                                                                                                    \
        fflush(stdout);                                                                                      \
    } while (0)

#define SKIP(name, why) printf("skip - %s: %s\n", name, why)

static inline const char *tap_fixtures(void)
{
    const char *f = getenv("GPUFLAME_FIXTURES");
    return f && *f ? f : "../shared/fixtures";
}

/* xorshift64: the next pseudo-random number of the sequence in *state (a fixed seed: the same inputs every run) */
static inline unsigned long long tap_xorshift(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* h with v mixed in: a digest of everything a test read, compared between two ways of reading it */
static inline unsigned long long tap_mix(unsigned long long h, unsigned long long v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static inline int tap_done(void)
{
    return tap_failed ? 1 : 0;
}

#endif
