/* An in-place sort of typed arrays, generated per element type so that comparisons and moves are inlined
 * (the findings rules sort millions of GPU operations: through qsort's callbacks and byte-wise swaps, the ends
 * of gpu-starv's groups took half of the rule's time on the 368 MB export, issue 42).
 *
 * GF_INTRO_SORT(name, T, LESS) defines
 *   static void name(T *a, size_t n)
 * which sorts a[0..n) in LESS's order (LESS(x, y): x before y, on two T values), and returns at once when a is
 * in that order already (a check of n - 1 pairs: the arrays usually arrive in trace order). The sort is an
 * introsort: quicksort on a median of three with Hoare's partition, heapsort past 2 log2 n levels, insertion
 * sort below 16 elements. No scratch (glibc's qsort copies the array for its merge sort), and unstable: use it
 * where the order is total, or where equal elements are equal values. */
#ifndef GF_SORT_INTRO_H
#define GF_SORT_INTRO_H

#include <stddef.h>

#define GF_INTRO_SORT(name, T, LESS)                                                                       \
    static void name##_sift(T *b, size_t i, size_t n)                                                      \
    {                                                                                                      \
        for (;;) {                                                                                         \
            size_t l = 2 * i + 1, m = i;                                                                   \
            if (l < n && LESS(b[m], b[l]))                                                                 \
                m = l;                                                                                     \
            if (l + 1 < n && LESS(b[m], b[l + 1]))                                                         \
                m = l + 1;                                                                                 \
            if (m == i)                                                                                    \
                return;                                                                                    \
            T t_ = b[i];                                                                                   \
            b[i] = b[m];                                                                                   \
            b[m] = t_;                                                                                     \
            i = m;                                                                                         \
        }                                                                                                  \
    }                                                                                                      \
    static void name##_intro(T *b, size_t n, int depth)                                                    \
    {                                                                                                      \
        while (n > 16) {                                                                                   \
            if (depth-- == 0) {                                                                            \
                for (size_t i = n / 2; i-- > 0;)                                                           \
                    name##_sift(b, i, n);                                                                  \
                for (size_t k = n - 1; k > 0; k--) {                                                       \
                    T t_ = b[0];                                                                           \
                    b[0] = b[k];                                                                           \
                    b[k] = t_;                                                                             \
                    name##_sift(b, 0, k);                                                                  \
                }                                                                                          \
                return;                                                                                    \
            }                                                                                              \
            size_t lo = 0, mid = n / 2, hi = n - 1;                                                        \
            T t_;                                                                                          \
            if (LESS(b[mid], b[lo])) {                                                                     \
                t_ = b[mid], b[mid] = b[lo], b[lo] = t_;                                                   \
            }                                                                                              \
            if (LESS(b[hi], b[mid])) {                                                                     \
                t_ = b[hi], b[hi] = b[mid], b[mid] = t_;                                                   \
                if (LESS(b[mid], b[lo])) {                                                                 \
                    t_ = b[mid], b[mid] = b[lo], b[lo] = t_;                                               \
                }                                                                                          \
            }                                                                                              \
            const T piv = b[mid];                                                                          \
            size_t i = 0, j = n - 1; /* Hoare: [0, j] <= pivot <= [j + 1, n), both non-empty */            \
            for (;;) {                                                                                     \
                while (LESS(b[i], piv))                                                                    \
                    i++;                                                                                   \
                while (LESS(piv, b[j]))                                                                    \
                    j--;                                                                                   \
                if (i >= j)                                                                                \
                    break;                                                                                 \
                t_ = b[i], b[i] = b[j], b[j] = t_;                                                         \
                i++;                                                                                       \
                j--;                                                                                       \
            }                                                                                              \
            size_t nl = j + 1, nr = n - nl;                                                                \
            if (nl < nr) {                                                                                 \
                name##_intro(b, nl, depth);                                                                \
                b += nl;                                                                                   \
                n = nr;                                                                                    \
            } else {                                                                                       \
                name##_intro(b + nl, nr, depth);                                                           \
                n = nl;                                                                                    \
            }                                                                                              \
        }                                                                                                  \
        for (size_t k = 1; k < n; k++)                                                                     \
            for (size_t j = k; j > 0 && LESS(b[j], b[j - 1]); j--) {                                       \
                T t_ = b[j - 1];                                                                           \
                b[j - 1] = b[j];                                                                           \
                b[j] = t_;                                                                                 \
            }                                                                                              \
    }                                                                                                      \
    static void name(T *a, size_t n)                                                                       \
    {                                                                                                      \
        for (size_t k = 1; k < n; k++)                                                                     \
            if (LESS(a[k], a[k - 1])) {                                                                    \
                int depth = 0;                                                                             \
                for (size_t m = n; m > 1; m >>= 1)                                                         \
                    depth += 2;                                                                            \
                name##_intro(a, n, depth);                                                                 \
                return;                                                                                    \
            }                                                                                              \
    }

#endif
