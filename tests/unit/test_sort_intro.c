/* The typed in-place sort (core/sort_intro.h) against glibc's qsort on the same arrays: random keys with and
 * without repeats, sorted, reversed, organ-pipe and nearly sorted inputs of sizes around the insertion-sort
 * threshold and up to 200,000; elements of a packed struct whose order is total (the findings rules'); the
 * heapsort fallback reached directly (depth 0); an already sorted array left as it is. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_intro.h"
#include "tap.h"

typedef struct rec {
    int64_t key;
    uint8_t rank;
    uint32_t seq;
} __attribute__((packed)) rec;

#define I64_BEFORE(x, y) ((x) < (y))
GF_INTRO_SORT(sort_i64, int64_t, I64_BEFORE)
#define REC_BEFORE(x, y) ((x).key != (y).key ? (x).key < (y).key : (x).rank != (y).rank ? (x).rank < (y).rank : (x).seq < (y).seq)
GF_INTRO_SORT(sort_rec, rec, REC_BEFORE)
#define KEY_BEFORE(x, y) ((x).key < (y).key)
GF_INTRO_SORT(sort_by_key, rec, KEY_BEFORE)

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_rec(const void *a, const void *b)
{
    rec x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (x.key != y.key)
        return x.key < y.key ? -1 : 1;
    if (x.rank != y.rank)
        return x.rank < y.rank ? -1 : 1;
    return x.seq < y.seq ? -1 : x.seq > y.seq;
}

static unsigned long long rng = 88172645463325252ull;
static uint64_t next(void)
{
    return tap_xorshift(&rng);
}

enum { RANDOM, FEW_KEYS, SORTED, REVERSED, ORGAN, NEARLY, NSHAPES };
static const char *const shape_name[NSHAPES] = {"random", "few keys", "sorted", "reversed", "organ pipe",
                                                 "nearly sorted"};

static int64_t key_of(int shape, size_t i, size_t n)
{
    switch (shape) {
    case RANDOM:
        return (int64_t)(next() >> 1) - (INT64_MAX / 2);
    case FEW_KEYS:
        return (int64_t)(next() % 5);
    case SORTED:
        return (int64_t)i;
    case REVERSED:
        return (int64_t)(n - i);
    case ORGAN:
        return (int64_t)(i < n / 2 ? i : n - i);
    default: /* each key a few places from its rank, as overlapping kernels' ends are */
        return (int64_t)i * 10 + (int64_t)(next() % 50);
    }
}

/* 1 when `sorted` (n elements of size bytes, sorted by the typed sort) equals `copy` (the same input) sorted by
 * qsort with cmp; frees both */
static int same_as_qsort(void *sorted, void *copy, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    qsort(copy, n, size, cmp);
    int ok = memcmp(sorted, copy, n * size) == 0;
    free(sorted);
    free(copy);
    return ok;
}

/* 1 when sort_i64 and qsort give the same array for one shape and size */
static int same_i64(int shape, size_t n)
{
    int64_t *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = key_of(shape, i, n);
    sort_i64(a, n);
    return same_as_qsort(a, b, n, sizeof *a, cmp_i64);
}

/* the same for records with repeated keys whose (key, rank, seq) order is total */
static int same_rec(int shape, size_t n, int depth0)
{
    rec *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        a[i] = (rec){key_of(shape, i, n) / 3, (uint8_t)(next() % 4), (uint32_t)i};
        b[i] = a[i];
    }
    if (depth0)
        sort_rec_intro(a, n, 0); /* straight to the heapsort */
    else
        sort_rec(a, n);
    return same_as_qsort(a, b, n, sizeof *a, cmp_rec);
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 33, 1000, 200000};
    for (int s = 0; s < NSHAPES; s++) {
        int ok_i = 1, ok_r = 1, ok_h = 1;
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            ok_i = ok_i && same_i64(s, sizes[k]);
            ok_r = ok_r && same_rec(s, sizes[k], 0);
            ok_h = ok_h && same_rec(s, sizes[k], 1);
        }
        char name[128];
        snprintf(name, sizeof name, "int64 keys, %s: the order qsort gives", shape_name[s]);
        CHECK(name, ok_i);
        snprintf(name, sizeof name, "packed records, %s: the order qsort gives", shape_name[s]);
        CHECK(name, ok_r);
        snprintf(name, sizeof name, "packed records, %s, heapsort fallback: the order qsort gives", shape_name[s]);
        CHECK(name, ok_h);
    }
    /* a sorted array with equal keys stays as it is: the check returns before any move */
    rec r[40];
    for (int i = 0; i < 40; i++)
        r[i] = (rec){i / 8, 0, (uint32_t)(40 - i)}; /* equal keys, seq descending: not REC_BEFORE's order */
    rec copy[40];
    memcpy(copy, r, sizeof r);
    sort_by_key(r, 40);
    CHECK("an array in the order already: not moved (equal keys keep their places)", memcmp(r, copy, sizeof r) == 0);
    return tap_done();
}
