#include "hmap.h"

#include <stdlib.h>
#include <string.h>

void gf_hmap_init(gf_hmap *m)
{
    memset(m, 0, sizeof *m);
}

void gf_hmap_free(gf_hmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static int grow_to(gf_hmap *m, size_t nc)
{
    uint64_t *k = malloc(nc * sizeof *k);
    int64_t *v = malloc(nc * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    memset(k, 0xff, nc * sizeof *k);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == GF_HMAP_EMPTY)
            continue;
        size_t j = gf_hash_u64(m->keys[i]) & (nc - 1);
        while (k[j] != GF_HMAP_EMPTY)
            j = (j + 1) & (nc - 1);
        k[j] = m->keys[i];
        v[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = k;
    m->vals = v;
    m->cap = nc;
    return 0;
}

static int grow(gf_hmap *m)
{
    return grow_to(m, m->cap ? m->cap * 2 : 64);
}

int gf_hmap_reserve(gf_hmap *m, size_t n)
{
    size_t nc = m->cap ? m->cap : 64;
    while (n * 4 > nc * 3)
        nc *= 2;
    return nc == m->cap ? 0 : grow_to(m, nc);
}

int64_t *gf_hmap_get(const gf_hmap *m, uint64_t key)
{
    if (!m->cap || key == GF_HMAP_EMPTY)
        return NULL;
    size_t j = gf_hash_u64(key) & (m->cap - 1);
    for (;;) {
        if (m->keys[j] == key)
            return &m->vals[j];
        if (m->keys[j] == GF_HMAP_EMPTY)
            return NULL;
        j = (j + 1) & (m->cap - 1);
    }
}

int64_t *gf_hmap_put(gf_hmap *m, uint64_t key, int64_t init, int *inserted)
{
    if (key == GF_HMAP_EMPTY)
        return NULL;
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) != 0)
        return NULL;
    size_t j = gf_hash_u64(key) & (m->cap - 1);
    for (;;) {
        if (m->keys[j] == key) {
            if (inserted)
                *inserted = 0;
            return &m->vals[j];
        }
        if (m->keys[j] == GF_HMAP_EMPTY) {
            m->keys[j] = key;
            m->vals[j] = init;
            m->n++;
            if (inserted)
                *inserted = 1;
            return &m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
}

int gf_hmap_add(gf_hmap *m, uint64_t key, int64_t val)
{
    if (key == GF_HMAP_EMPTY)
        return -1;
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) != 0)
        return -1;
    size_t j = gf_hash_u64(key) & (m->cap - 1);
    while (m->keys[j] != GF_HMAP_EMPTY)
        j = (j + 1) & (m->cap - 1);
    m->keys[j] = key;
    m->vals[j] = val;
    m->n++;
    return 0;
}

int64_t *gf_hmap_next(const gf_hmap *m, uint64_t key, size_t *pos)
{
    if (!m->cap || key == GF_HMAP_EMPTY)
        return NULL;
    /* *pos counts the probe steps taken; the probe sequence of key ends at the first empty slot (the
     * table never fills, and nothing is ever removed). */
    for (size_t j = (gf_hash_u64(key) + *pos) & (m->cap - 1); m->keys[j] != GF_HMAP_EMPTY; j = (j + 1) & (m->cap - 1)) {
        ++*pos;
        if (m->keys[j] == key)
            return &m->vals[j];
    }
    return NULL;
}
