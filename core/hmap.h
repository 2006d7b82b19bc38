/* A hash map from uint64 keys to int64 values (open addressing, linear probing). Used for the joins
 * of the trace importers (correlation id → launch, callchain id → stack) instead of quadratic scans. */
#ifndef GF_HMAP_H
#define GF_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* A key beside its value: a lookup that finds the key has its value in the same cache line (the tables of a
 * large import or flamegraph are far bigger than the caches: separate arrays cost two misses a lookup). */
typedef struct gf_hslot {
    uint64_t key;
    int64_t val;
} gf_hslot;

typedef struct gf_hmap {
    gf_hslot *slots;
    size_t n, cap; /* cap: power of two, or 0 */
} gf_hmap;

#define GF_HMAP_EMPTY UINT64_MAX /* the one key that cannot be stored */

void gf_hmap_init(gf_hmap *m);
void gf_hmap_free(gf_hmap *m);
/* Returns a pointer to the value slot of key (inserting it with value init), or NULL on OOM. */
int64_t *gf_hmap_put(gf_hmap *m, uint64_t key, int64_t init, int *inserted);
/* Returns a pointer to the value, or NULL when absent. */
int64_t *gf_hmap_get(const gf_hmap *m, uint64_t key);
/* Starts fetching the slot where a lookup of key begins, for a put or get of it to come. */
void gf_hmap_prefetch(const gf_hmap *m, uint64_t key);
/* Room for n entries in all without a rehash on the way (0, or -1 on OOM). */
int gf_hmap_reserve(gf_hmap *m, size_t n);

/* Multimap use, for keys wider than 64 bits: store a hash of the wide key and, as the value, the index of
 * a record that holds the whole key. gf_hmap_add always inserts a new slot (several may share a key);
 * gf_hmap_next visits the values stored under key, one per call: *pos starts at 0 and NULL ends the visit.
 * gf_hmap_put/get see only the first slot of a key. gf_hmap_add returns 0, or -1 on OOM or the empty key. */
int gf_hmap_add(gf_hmap *m, uint64_t key, int64_t val);
int64_t *gf_hmap_next(const gf_hmap *m, uint64_t key, size_t *pos);

static inline uint64_t gf_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

#endif
