/* Findings primitives (findings.h), the shared machinery: nsysstats.py's time filter, SQLite's LIKE and
 * the NVTX range lookup. nsys's rules are in findings_nsys.c, gpuflame's own in findings_own.c; the
 * helpers they share in findings_int.h. SQLite orders ties of an ORDER BY ... LIMIT by insertion (its
 * sorter is stable, a temp b-tree adds a sequence number), and inserts in table (rowid) order:
 * gf_trace.seq keeps that order. */
#include "trace_findings.h"
#include "trace.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* ---- time filter ---- */

void gf_fwin_init(gf_fwin *w)
{
    w->filtered = 0;
    w->start = 0;
    w->end = INT64_MAX;
    w->pid = w->tid = -1;
}

static inline int overlaps(const gf_fwin *w, int64_t s, int64_t e)
{
    return (s >= w->start && s < w->end) || (e >= w->start && e < w->end) || (s < w->start && e >= w->end);
}

int gf_fwin_cpu(const gf_fwin *w, int64_t start, int64_t end, int32_t pid, int32_t tid)
{
    if (!w || !w->filtered)
        return 1;
    if (w->pid >= 0 && pid != w->pid)
        return 0;
    if (w->pid >= 0 && w->tid >= 0 && tid != w->tid)
        return 0;
    return overlaps(w, start, end);
}

int gf_fwin_gpu(const gf_fwin *w, int64_t start, int64_t end, int32_t pid)
{
    if (!w || !w->filtered)
        return 1;
    if (w->pid >= 0 && pid != w->pid)
        return 0;
    return overlaps(w, start, end);
}

/* ---- LIKE ---- */

static inline unsigned char fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static inline const unsigned char *next_char(const unsigned char *s)
{
    s++;
    while ((*s & 0xC0) == 0x80)
        s++;
    return s;
}

/* The classic two-pointer wildcard match (backtrack to the last %): linear for %-only patterns. */
int gf_like(const char *pattern, const char *str)
{
    const unsigned char *p = (const unsigned char *)pattern, *s = (const unsigned char *)str;
    const unsigned char *star_p = NULL, *star_s = NULL;
    while (*s) {
        if (*p == '%') {
            while (*p == '%')
                p++;
            if (!*p)
                return 1;
            star_p = p;
            star_s = s;
            continue;
        }
        if (*p == '_') {
            p++;
            s = next_char(s);
            continue;
        }
        if (*p && fold(*p) == fold(*s)) {
            p++;
            s++;
            continue;
        }
        if (!star_p)
            return 0;
        p = star_p;
        star_s = next_char(star_s);
        s = star_s;
    }
    while (*p == '%')
        p++;
    return *p == 0;
}

/* ---- NVTX range (nsysstats.py _FIND_NVTX_RANGE_QUERY) ---- */

int gf_find_nvtx_range(const gf_trace *t, const char *spec, int64_t *start, int64_t *end, int32_t *pid,
                       int32_t *tid)
{
    size_t sl = strlen(spec);
    for (size_t i = 0; i < t->n; i++) { /* start order: the first match is ORDER BY start LIMIT 1 */
        if (t->kind[i] != GF_EV_NVTX || gf_ev_is_nvtx_mark(t, i)) /* nsys's query reads ranges only */
            continue;
        size_t nl;
        const char *nm = gf_strtab_get(t->str, t->name[i], &nl);
        if (strcmp(nm, "(unnamed)") == 0 || nl > sl || memcmp(nm, spec, nl) != 0)
            continue;
        const gf_detail *d = t->detail[i] >= 0 ? &t->details[t->detail[i]] : NULL;
        const char *rest = spec + nl;
        if (d && d->domain >= 0) {
            if (rest[0] != '@' || strcmp(rest + 1, gf_strtab_get(t->str, d->domain, NULL)) != 0)
                continue;
        } else if (*rest) {
            continue;
        }
        *start = t->start[i];
        *end = t->start[i] + t->dur[i];
        *pid = t->pid[i];
        *tid = t->lane[i] >= 0 ? (int32_t)t->lanes[t->lane[i]].tid : -1;
        return 1;
    }
    return 0;
}
