/* Statistics of the NVTX analysis: groups and the duration summary (nvtx_stats.h). */
#include "nvtx_stats.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"

/* ---- groups -------------------------------------------------------------------------------------- */

size_t gf_nvtx_make_groups(const uint32_t *path, const uint32_t *style, const uint8_t *skip, size_t n,
                           gf_nvtx_group **out, size_t **order_out)
{
    gf_hmap m;
    gf_hmap_init(&m);
    size_t ng = 0, capg = 64;
    gf_nvtx_group *g = malloc(capg * sizeof *g);
    uint32_t *gid = malloc((n ? n : 1) * sizeof *gid);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; i < n && g && gid && order; i++) {
        if (skip[i])
            continue;
        uint32_t st = style ? style[i] : 0;
        int ins;
        int64_t *v = gf_hmap_put(&m, (uint64_t)path[i] << 32 | st, (int64_t)ng, &ins);
        if (!v) {
            ng = (size_t)-1;
            break;
        }
        if (ins) {
            if (GF_GROW(g, capg, ng + 1, 0) != 0) {
                ng = (size_t)-1;
                break;
            }
            g[ng++] = (gf_nvtx_group){path[i], st, 0, 0};
        }
        gid[i] = (uint32_t)*v;
        g[*v].count++;
    }
    gf_hmap_free(&m);
    if (ng == (size_t)-1 || !g || !gid || !order) {
        free(g);
        free(gid);
        free(order);
        return (size_t)-1;
    }
    size_t pos = 0;
    for (size_t k = 0; k < ng; k++) {
        g[k].first = pos;
        pos += g[k].count;
        g[k].count = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!skip[i]) {
            gf_nvtx_group *gg = &g[gid[i]];
            order[gg->first + gg->count++] = i;
        }
    free(gid);
    *out = g;
    *order_out = order;
    return ng;
}

typedef struct group_order {
    const uint32_t *rank;
    const gf_strtab *strs;
} group_order;

static int cmp_group(const void *x, const void *y, void *ctx)
{
    const gf_nvtx_group *a = x, *b = y;
    const group_order *o = ctx;
    if (a->path != b->path)
        return o->rank[a->path] < o->rank[b->path] ? -1 : 1;
    if (a->style != b->style)
        return gf_strtab_cmp(o->strs, (int32_t)a->style, (int32_t)b->style);
    return 0;
}

void gf_nvtx_sort_groups(gf_nvtx_group *g, size_t n, const uint32_t *rank, const gf_strtab *strs)
{
    group_order o = {rank, strs};
    if (n > 1)
        qsort_r(g, n, sizeof *g, cmp_group, &o);
}

/* ---- the duration summary ---------------------------------------------------------------------- */

static int bitlen(unsigned __int128 v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

double gf_nvtx_div(__int128 num, unsigned __int128 den)
{
    if (num == 0 || den == 0)
        return 0.0;
    int neg = num < 0;
    unsigned __int128 a = neg ? (unsigned __int128)0 - (unsigned __int128)num : (unsigned __int128)num;
    /* Denominators beyond 61 bits (never in practice): drop low bits of both. */
    while (bitlen(den) > 61) {
        den >>= 1;
        a >>= 1;
    }
    int shift = 66 - (bitlen(a) - bitlen(den));
    unsigned __int128 q;
    int sticky;
    if (shift > 0) {
        unsigned __int128 as = a << shift;
        q = as / den;
        sticky = as % den != 0;
    } else {
        shift = 0;
        q = a / den;
        sticky = a % den != 0;
    }
    int L = bitlen(q);
    double r;
    if (L <= 53) {
        r = ldexp((double)(uint64_t)q, -shift);
    } else {
        int s = L - 53;
        unsigned __int128 kept = q >> s, rem = q & ((((unsigned __int128)1) << s) - 1);
        unsigned __int128 half = ((unsigned __int128)1) << (s - 1);
        if (rem > half || (rem == half && (sticky || (kept & 1))))
            kept++;
        r = ldexp((double)(uint64_t)kept, s - shift);
    }
    return neg ? -r : r;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* LSD radix sort for int64 (sign bit flipped); qsort for small inputs. */
static void sort_i64(int64_t *v, size_t n)
{
    if (n < 256) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    uint64_t *a = (uint64_t *)v, *b = malloc(n * sizeof *b);
    if (!b) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    for (size_t i = 0; i < n; i++)
        a[i] ^= 0x8000000000000000ULL;
    uint64_t or_all = 0, and_all = ~0ULL;
    for (size_t i = 0; i < n; i++) {
        or_all |= a[i];
        and_all &= a[i];
    }
    uint64_t *src = a, *dst = b;
    for (int pass = 0; pass < 8; pass++) {
        int sh = pass * 8;
        if ((((or_all ^ and_all) >> sh) & 0xFF) == 0)
            continue; /* all equal in this byte */
        size_t cnt[256] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[(src[i] >> sh) & 0xFF]++;
        size_t pos = 0;
        for (int k = 0; k < 256; k++) {
            size_t c = cnt[k];
            cnt[k] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> sh) & 0xFF]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] ^= 0x8000000000000000ULL;
    free(b);
}

void gf_nvtx_summarize(int64_t *v, size_t n, gf_nvtx_summary *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return;
    sort_i64(v, n);
    __int128 sum = 0;
    unsigned __int128 sq = 0;
    int sq_overflow = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        unsigned __int128 m = (unsigned __int128)(v[i] < 0 ? -(__int128)v[i] : (__int128)v[i]);
        unsigned __int128 p = m * m;
        if (sq + p < sq)
            sq_overflow = 1;
        sq += p;
    }
    s->total = sum;
    s->min = v[0];
    s->max = v[n - 1];
    s->mean = gf_nvtx_div(sum, n);
    if (n % 2) {
        s->median_is_int = 1;
        s->median_i = v[n / 2];
        s->median_f = (double)v[n / 2];
    } else {
        s->median_f = gf_nvtx_div((__int128)v[n / 2 - 1] + v[n / 2], 2);
    }
    if (n < 2) {
        s->stddev = 0.0;
        return;
    }
    /* variance = (n*Σx² − (Σx)²) / (n(n−1)), exact in 128-bit integers, rounded once */
    unsigned __int128 nn = n;
    unsigned __int128 usum = (unsigned __int128)(sum < 0 ? -sum : sum);
    unsigned __int128 a, b;
    int ovf = sq_overflow || __builtin_mul_overflow(nn, sq, &a) || __builtin_mul_overflow(usum, usum, &b);
    if (!ovf && a >= b) {
        double var = gf_nvtx_div((__int128)(a - b), nn * (nn - 1));
        s->stddev = sqrt(var);
    } else {
        /* beyond 128 bits: two-pass in long double */
        long double mean = (long double)sum / (long double)n, acc = 0;
        for (size_t i = 0; i < n; i++) {
            long double d = (long double)v[i] - mean;
            acc += d * d;
        }
        s->stddev = sqrt((double)(acc / (long double)(n - 1)));
    }
}
