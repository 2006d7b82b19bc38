/* Private to the rules' findings primitives (trace_findings_nsys.c, trace_findings_own.c): the helpers they
 * share. Not a public header: nothing outside those files includes it. */
#ifndef GF_FINDINGS_INT_H
#define GF_FINDINGS_INT_H

#include <stdlib.h>
#include <string.h>

#include "trace_findings.h"
#include "mem.h"

static inline int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return gf_grow(p, cap, need, elem, 16);
}

static inline int like_set(const gf_like_set *ls, const char *s)
{
    if (!ls)
        return 1;
    int ok = ls->nlike == 0;
    for (size_t i = 0; i < ls->nlike && !ok; i++)
        ok = gf_like(ls->like[i], s);
    for (size_t i = 0; i < ls->nnot_like && ok; i++)
        ok = !gf_like(ls->not_like[i], s);
    return ok;
}

/* Memoised name matching by name id (API calls: the name as recorded, gf_trace_event_raw_name). */
typedef struct name_memo {
    int8_t *v;
    size_t n;
} name_memo;

static inline int memo_init(name_memo *m, const gf_trace *t)
{
    m->n = gf_strtab_count(t->str);
    m->v = malloc(m->n ? m->n : 1);
    if (!m->v)
        return -1;
    memset(m->v, 0xff, m->n ? m->n : 1);
    return 0;
}

static inline int memo_match(name_memo *m, const gf_trace *t, const gf_like_set *ls, int32_t name)
{
    if (name < 0 || (size_t)name >= m->n)
        return 0;
    if (m->v[name] < 0)
        m->v[name] = (int8_t)like_set(ls, gf_strtab_get(t->str, name, NULL));
    return m->v[name];
}

static inline int32_t lane_tid(const gf_trace *t, size_t i)
{
    return t->lane[i] >= 0 ? (int32_t)t->lanes[t->lane[i]].tid : -1;
}

static inline int64_t lane_dev(const gf_trace *t, size_t i)
{
    return t->lane[i] >= 0 ? t->lanes[t->lane[i]].devnum : -1;
}

static inline const gf_detail *det(const gf_trace *t, size_t i)
{
    return t->detail[i] >= 0 ? &t->details[t->detail[i]] : NULL;
}

static inline int32_t ev_context(const gf_trace *t, size_t i)
{
    const gf_detail *d = det(t, i);
    return d ? d->context : -1;
}

#endif
