#include "strtab.h"
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct gf_strtab {
    char *arena;       /* every string, NUL-terminated, back to back */
    size_t arena_len, arena_cap;
    uint64_t *off;     /* id → offset in arena */
    uint32_t *len;     /* id → length */
    uint32_t *hash;    /* id → hash */
    size_t max_len;    /* longer strings are cut to this length */
    size_t n, cap;
    int32_t *slots;    /* open addressing, -1 = empty */
    size_t nslots;     /* power of two */
};

static uint32_t hash_bytes(const char *s, size_t len)
{
    /* FNV-1a, 32 bit: fast enough for names and frames, good spread on short keys */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

gf_strtab *gf_strtab_new(void)
{
    gf_strtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->nslots = 1024;
    t->slots = malloc(t->nslots * sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    memset(t->slots, 0xff, t->nslots * sizeof *t->slots);
    t->max_len = GF_STRTAB_DEFAULT_MAX_LEN;
    return t;
}

void gf_strtab_free(gf_strtab *t)
{
    if (!t)
        return;
    free(t->arena);
    free(t->off);
    free(t->len);
    free(t->hash);
    free(t->slots);
    free(t);
}

static int grow_slots(gf_strtab *t)
{
    size_t ns = t->nslots * 2;
    int32_t *s = malloc(ns * sizeof *s);
    if (!s)
        return -1;
    memset(s, 0xff, ns * sizeof *s);
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->hash[i] & (ns - 1);
        while (s[j] >= 0)
            j = (j + 1) & (ns - 1);
        s[j] = (int32_t)i;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
    return 0;
}

static int32_t lookup(const gf_strtab *t, const char *s, size_t len, uint32_t h, size_t *slot)
{
    size_t j = h & (t->nslots - 1);
    for (;;) {
        int32_t id = t->slots[j];
        if (id < 0) {
            *slot = j;
            return -1;
        }
        if (t->hash[id] == h && t->len[id] == len && memcmp(t->arena + t->off[id], s, len) == 0)
            return id;
        j = (j + 1) & (t->nslots - 1);
    }
}

void gf_strtab_set_max_len(gf_strtab *t, size_t max_len)
{
    t->max_len = max_len < UINT32_MAX ? max_len : UINT32_MAX;
}

int32_t gf_strtab_find(const gf_strtab *t, const char *s, size_t len)
{
    size_t slot;
    return lookup(t, s, len, hash_bytes(s, len), &slot);
}

int32_t gf_strtab_intern(gf_strtab *t, const char *s, size_t len)
{
    if (len > t->max_len)
        len = t->max_len; /* by default names longer than 8 MiB are cut (docs/LIMITS.md) */
    uint32_t h = hash_bytes(s, len);
    size_t slot;
    int32_t id = lookup(t, s, len, h, &slot);
    if (id >= 0)
        return id;
    if (t->n >= INT32_MAX - 1)
        return -1;
    if ((t->n + 1) * 4 > t->nslots * 3) { /* load factor 0.75 */
        if (grow_slots(t) != 0)
            return -1;
        lookup(t, s, len, h, &slot);
    }
    void **const cols[] = {(void **)&t->off, (void **)&t->len, (void **)&t->hash};
    const size_t elem[] = {sizeof *t->off, sizeof *t->len, sizeof *t->hash};
    if (gf_grow_cols(cols, elem, 3, &t->cap, t->n + 1, 256) != 0)
        return -1;
    if (t->arena_len + len + 1 > t->arena_cap) {
        /* s may point into the arena itself (a substring of an interned string): keep its offset
         * across the realloc. */
        uintptr_t base = (uintptr_t)t->arena, at = (uintptr_t)s;
        int inside = t->arena && at >= base && at < base + t->arena_cap;
        size_t s_off = inside ? (size_t)(at - base) : 0;
        if (GF_GROW(t->arena, t->arena_cap, t->arena_len + len + 1, 4096) != 0)
            return -1;
        if (inside)
            s = t->arena + s_off;
    }
    memcpy(t->arena + t->arena_len, s, len);
    t->arena[t->arena_len + len] = '\0';
    id = (int32_t)t->n++;
    t->off[id] = t->arena_len;
    t->len[id] = (uint32_t)len;
    t->hash[id] = h;
    t->arena_len += len + 1;
    t->slots[slot] = id;
    return id;
}

int32_t gf_strtab_intern_cstr(gf_strtab *t, const char *s)
{
    return gf_strtab_intern(t, s, strlen(s));
}

const char *gf_strtab_get(const gf_strtab *t, int32_t id, size_t *len)
{
    if (id < 0 || (size_t)id >= t->n) {
        if (len)
            *len = 0;
        return "";
    }
    if (len)
        *len = t->len[id];
    return t->arena + t->off[id];
}

int gf_strtab_cmp(const gf_strtab *t, int32_t a, int32_t b)
{
    if (a == b)
        return 0;
    size_t la, lb;
    const char *sa = gf_strtab_get(t, a, &la), *sb = gf_strtab_get(t, b, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb;
}

size_t gf_strtab_count(const gf_strtab *t)
{
    return t->n;
}

size_t gf_strtab_bytes(const gf_strtab *t)
{
    return t->arena_cap + t->cap * (sizeof(uint64_t) + 2 * sizeof(uint32_t)) + t->nslots * sizeof(int32_t);
}
