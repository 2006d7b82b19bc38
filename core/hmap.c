#include "hmap.h"

#include <stdlib.h>
#include <string.h>

void gf_hmap_init(gf_hmap *m)
{
    memset(m, 0, sizeof *m);
}

void gf_hmap_free(gf_hmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static int grow_to(gf_hmap *m, size_t nc)
{
    gf_hslot *h = malloc(nc * sizeof *h);
    if (!h)
        return -1;
    memset(h, 0xff, nc * sizeof *h); /* every key GF_HMAP_EMPTY */
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key == GF_HMAP_EMPTY)
            continue;
        size_t j = gf_hash_u64(m->slots[i].key) & (nc - 1);
        while (h[j].key != GF_HMAP_EMPTY)
            j = (j + 1) & (nc - 1);
        h[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = h;
    m->cap = nc;
    return 0;
}

static int grow(gf_hmap *m)
{
    return grow_to(m, m->cap ? m->cap * 2 : 64);
}

void gf_hmap_prefetch(const gf_hmap *m, uint64_t key)
{
    if (m->cap)
        __builtin_prefetch(&m->slots[gf_hash_u64(key) & (m->cap - 1)]);
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
        if (m->slots[j].key == key)
            return &m->slots[j].val;
        if (m->slots[j].key == GF_HMAP_EMPTY)
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
        if (m->slots[j].key == key) {
            if (inserted)
                *inserted = 0;
            return &m->slots[j].val;
        }
        if (m->slots[j].key == GF_HMAP_EMPTY) {
            m->slots[j].key = key;
            m->slots[j].val = init;
            m->n++;
            if (inserted)
                *inserted = 1;
            return &m->slots[j].val;
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
    while (m->slots[j].key != GF_HMAP_EMPTY)
        j = (j + 1) & (m->cap - 1);
    m->slots[j].key = key;
    m->slots[j].val = val;
    m->n++;
    return 0;
}

int64_t *gf_hmap_next(const gf_hmap *m, uint64_t key, size_t *pos)
{
    if (!m->cap || key == GF_HMAP_EMPTY)
        return NULL;
    /* *pos counts the probe steps taken; the probe sequence of key ends at the first empty slot (the
     * table never fills, and nothing is ever removed). */
    size_t mask = m->cap - 1;
    for (size_t j = (gf_hash_u64(key) + *pos) & mask; m->slots[j].key != GF_HMAP_EMPTY; j = (j + 1) & mask) {
        ++*pos;
        if (m->slots[j].key == key)
            return &m->slots[j].val;
    }
    return NULL;
}
