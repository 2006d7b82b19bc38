/* The shared tables: gf_hmap as a multimap (gf_hmap_add / gf_hmap_next), gf_hmap_reserve, and gf_strtab's
 * length cut and byte order (gf_strtab_set_max_len, gf_strtab_cmp). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "strtab.h"
#include "tap.h"

/* Sum and count of the values stored under key. */
static int64_t visit(const gf_hmap *m, uint64_t key, size_t *count)
{
    size_t pos = 0;
    int64_t sum = 0, *v;
    *count = 0;
    while ((v = gf_hmap_next(m, key, &pos))) {
        sum += *v;
        ++*count;
    }
    return sum;
}

static void test_multimap(void)
{
    gf_hmap m;
    gf_hmap_init(&m);
    size_t n;
    CHECK("empty map: next finds nothing", visit(&m, 7, &n) == 0 && n == 0);
    /* 3 values under each of 20,000 keys, interleaved, through several grows */
    int ok = 1;
    for (int64_t r = 0; r < 3; r++)
        for (uint64_t k = 0; k < 20000; k++)
            ok = ok && gf_hmap_add(&m, k * 0x10001, (int64_t)k * 10 + r) == 0;
    CHECK("add: 60,000 values under 20,000 keys", ok && m.n == 60000);
    for (uint64_t k = 0; k < 20000 && ok; k++)
        ok = visit(&m, k * 0x10001, &n) == (int64_t)k * 30 + 3 && n == 3;
    CHECK("next visits exactly the 3 values of every key", ok);
    CHECK("next: an absent key has no values", visit(&m, 5, &n) == 0 && n == 0);
    int64_t *first = gf_hmap_get(&m, 2 * 0x10001);
    CHECK("get sees the first value added under a key", first && *first == 20);
    CHECK("the empty key cannot be added", gf_hmap_add(&m, GF_HMAP_EMPTY, 1) == -1 && m.n == 60000);
    size_t pos = 0;
    CHECK("next of the empty key is NULL", gf_hmap_next(&m, GF_HMAP_EMPTY, &pos) == NULL);
    gf_hmap_free(&m);
}

static void test_strtab(void)
{
    gf_strtab *t = gf_strtab_new();
    size_t big = GF_STRTAB_DEFAULT_MAX_LEN + 100, len;
    char *s = malloc(big);
    memset(s, 'x', big);
    int32_t a = gf_strtab_intern(t, s, big);
    gf_strtab_get(t, a, &len);
    CHECK("default: a name longer than 8 MiB - 1 is cut to it", a >= 0 && len == GF_STRTAB_DEFAULT_MAX_LEN);
    CHECK("default: two long names with the same 8 MiB prefix are one id", gf_strtab_intern(t, s, big - 1) == a);
    gf_strtab_set_max_len(t, SIZE_MAX);
    int32_t b = gf_strtab_intern(t, s, big), c = gf_strtab_intern(t, s, big - 1);
    gf_strtab_get(t, b, &len);
    CHECK("set_max_len(SIZE_MAX): the long name stays whole", b >= 0 && b != a && len == big);
    CHECK("set_max_len(SIZE_MAX): names differing past 8 MiB are two ids", c >= 0 && c != b);
    gf_strtab_set_max_len(t, 3);
    int32_t d = gf_strtab_intern_cstr(t, "abcdef");
    CHECK("set_max_len(3): cut to 3 bytes", strcmp(gf_strtab_get(t, d, NULL), "abc") == 0);
    free(s);

    int32_t ab = gf_strtab_intern_cstr(t, "ab"), abc = gf_strtab_find(t, "abc", 3), b2 = gf_strtab_intern_cstr(t, "b");
    int32_t hi = gf_strtab_intern(t, "\xc3\xa9", 2), e = gf_strtab_intern(t, "", 0);
    CHECK("cmp: equal ids", gf_strtab_cmp(t, ab, ab) == 0);
    CHECK("cmp: a prefix sorts first", gf_strtab_cmp(t, ab, abc) < 0 && gf_strtab_cmp(t, abc, ab) > 0);
    CHECK("cmp: byte order", gf_strtab_cmp(t, abc, b2) < 0 && gf_strtab_cmp(t, b2, ab) > 0);
    CHECK("cmp: bytes compare unsigned (UTF-8 after ASCII)", gf_strtab_cmp(t, b2, hi) < 0);
    CHECK("cmp: the empty string first", gf_strtab_cmp(t, e, ab) < 0 && gf_strtab_cmp(t, hi, e) > 0);
    gf_strtab_free(t);
}

/* A reserve keeps what is there, makes room for the rest at once, and the map then works as before. */
static void test_reserve(void)
{
    gf_hmap m;
    gf_hmap_init(&m);
    for (uint64_t k = 0; k < 1000; k++)
        gf_hmap_put(&m, k * 7919, (int64_t)k, NULL);
    size_t cap0 = m.cap;
    CHECK("hmap reserve: 0 on success", gf_hmap_reserve(&m, 100000) == 0);
    CHECK("hmap reserve: room for 100,000 under the 3/4 load", m.cap >= 100000 * 4 / 3 && m.cap > cap0);
    size_t cap1 = m.cap, bad = 0;
    for (uint64_t k = 0; k < 1000; k++) {
        int64_t *v = gf_hmap_get(&m, k * 7919);
        bad += !v || *v != (int64_t)k;
    }
    CHECK("hmap reserve: every entry there before is found with its value", bad == 0);
    for (uint64_t k = 1000; k < 100000; k++)
        gf_hmap_put(&m, k * 7919, (int64_t)k, NULL);
    CHECK("hmap reserve: 100,000 entries put without growing again", m.cap == cap1 && m.n == 100000);
    for (uint64_t k = 0; k < 100000; k++) {
        int64_t *v = gf_hmap_get(&m, k * 7919);
        bad += !v || *v != (int64_t)k;
    }
    CHECK("hmap reserve: all 100,000 found", bad == 0 && !gf_hmap_get(&m, 3));
    CHECK("hmap reserve: a smaller reserve changes nothing", gf_hmap_reserve(&m, 10) == 0 && m.cap == cap1);
    gf_hmap_free(&m);
}

int main(void)
{
    test_multimap();
    test_reserve();
    test_strtab();
    return tap_done();
}
