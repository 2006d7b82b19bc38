/* The CPU side of an nsys SQLite export (see sqlite_cpu.h): OS runtime calls, CPU samples with their
 * callchains, and the threads' running intervals, read with the export layer's probes (sqlite_export.h).
 * Strings are resolved through StringIds as nsys's own reports do (osrt_sum: LEFT JOIN StringIds ON id =
 * nameId), one look-up per distinct id; callchains are hash-joined by id, never by a per-row query. */
#include "sqlite_cpu.h"
#include "sqlite_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "mem.h"
#include "trace_build.h"

typedef struct cpu {
    sqlite3 *db;
    const char *path;
    gf_trace *t;
    gf_err *err;
    sqlite3_stmt *strq; /* SELECT value FROM StringIds WHERE id = ? */
    int no_strings;     /* the export has no StringIds: every name is unknown, as the CUDA side's are */
    gf_hmap sid;        /* StringIds id → strtab id (-1: no such string) */
    gf_hmap tname;      /* globalTid → thread name strtab id */
    gf_hmap lanes;      /* globalTid * 4 + sub → lane */
    gf_hmap frames;     /* (symbol, module) StringIds ids → frame strtab id */
    gf_hmap chains;     /* OSRT callchain id → stack id | innermost frame << 32 */
    int32_t *fr;        /* frames of the callchain being read */
    size_t nfr, capfr;
} cpu;

static int fail(cpu *c, const char *what)
{
    return gf_sqlite_fail(c->db, c->path, what, c->err);
}

/* StringIds id → strtab id; -1 when there is no such string, -2 on error (err filled) */
static int32_t str_of(cpu *c, int64_t id)
{
    int64_t *v = gf_hmap_get(&c->sid, (uint64_t)id);
    if (v)
        return (int32_t)*v;
    if (c->no_strings)
        return -1;
    if (!c->strq && !gf_sqlite_has_table(c->db, "StringIds")) {
        c->no_strings = 1;
        return -1;
    }
    if (!c->strq && sqlite3_prepare_v2(c->db, "SELECT value FROM StringIds WHERE id = ?", -1, &c->strq, NULL) != SQLITE_OK)
        return fail(c, "StringIds"), -2;
    sqlite3_reset(c->strq);
    sqlite3_bind_int64(c->strq, 1, id);
    int rc = sqlite3_step(c->strq);
    int32_t s = -1;
    if (rc == SQLITE_ROW && sqlite3_column_type(c->strq, 0) != SQLITE_NULL) {
        const char *txt = (const char *)sqlite3_column_text(c->strq, 0);
        if ((s = gf_strtab_intern(c->t->str, txt ? txt : "", (size_t)sqlite3_column_bytes(c->strq, 0))) < 0)
            return gf_oom(c->err, c->path), -2;
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        return fail(c, "StringIds"), -2;
    }
    if (!gf_hmap_put(&c->sid, (uint64_t)id, s, NULL))
        return gf_oom(c->err, c->path), -2;
    return s;
}

static int load_thread_names(cpu *c)
{
    static const char *const cols[] = {"globalTid", "nameId"};
    gf_sqlq q;
    int r = gf_sqlite_prepare_cols(c->db, c->path, &q, "ThreadNames", cols, 2, 2, NULL, c->err);
    if (r <= 0)
        return r;
    int rc;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        int32_t s = str_of(c, gf_sqlq_i64(&q, 1, -1));
        if (s == -2 || (s >= 0 && !gf_hmap_put(&c->tname, (uint64_t)gf_sqlq_i64(&q, 0, 0), s, NULL))) {
            sqlite3_finalize(q.st);
            return s == -2 ? -1 : gf_oom(c->err, c->path);
        }
    }
    sqlite3_finalize(q.st);
    return rc == SQLITE_DONE ? 0 : fail(c, "ThreadNames");
}

/* The lane of a thread's sub-lane (GF_SUB_*), made on first use with the thread's name. */
static int32_t lane_of(cpu *c, int64_t gtid, int sub)
{
    uint64_t key = (uint64_t)gtid * 4 + (uint64_t)sub;
    int64_t *v = gf_hmap_get(&c->lanes, key);
    if (v)
        return (int32_t)*v;
    int64_t pid = (gtid >> 24) & 0xFFFFFF, tid = gtid & 0xFFFFFF;
    int32_t l = gf_trace_lane(c->t, GF_LANE_CPU, sub, pid, tid, -1, -1, -1, c->err);
    if (l < 0)
        return -1;
    int64_t *tn = gf_hmap_get(&c->tname, (uint64_t)gtid);
    if (tn && c->t->lanes[l].tname < 0)
        gf_trace_lane_set_thread_name(c->t, l, (int32_t)*tn);
    if (!gf_hmap_put(&c->lanes, key, l, NULL))
        return gf_oom(c->err, c->path), -1;
    return l;
}

/* "symbol (module file name)" as the CUDA backtraces name frames (trace_sqlite.c); -1 on error */
static int32_t frame_of(cpu *c, const gf_sqlq *q)
{
    int64_t sym = gf_sqlq_i64(q, 2, -1), mod = gf_sqlq_i64(q, 3, -1);
    int unresolved = (int)gf_sqlq_i64(q, 4, 0);
    uint64_t key = ((uint64_t)(uint32_t)sym << 32) | (uint32_t)mod;
    int64_t *v = gf_hmap_get(&c->frames, key);
    if (v)
        return (int32_t)*v;
    int32_t ssym = str_of(c, sym), smod = ssym == -2 ? -2 : str_of(c, mod);
    if (ssym == -2 || smod == -2)
        return -1;
    char addr[32], buf[2048];
    const char *symtxt = "?";
    if (ssym >= 0)
        symtxt = gf_strtab_get(c->t->str, ssym, NULL);
    else if (unresolved && !gf_sqlq_null(q, 5))
        snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)gf_sqlq_i64(q, 5, 0)), symtxt = addr;
    const char *modtxt = smod >= 0 ? gf_strtab_get(c->t->str, smod, NULL) : NULL;
    const char *sl = modtxt ? strrchr(modtxt, '/') : NULL;
    if (sl && sl[1])
        modtxt = sl + 1;
    int n = modtxt && *modtxt ? snprintf(buf, sizeof buf, "%s (%s)", symtxt, modtxt)
                              : snprintf(buf, sizeof buf, "%s", symtxt);
    int32_t f = gf_strtab_intern(c->t->str, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    if (f < 0 || (ssym >= 0 && !gf_hmap_put(&c->frames, key, f, NULL)))
        return gf_oom(c->err, c->path), -1;
    return f;
}

static int end_chain(cpu *c, int64_t id)
{
    if (id < 0 || !c->nfr)
        return 0;
    int32_t s = gf_trace_stack(c->t, c->fr, c->nfr);
    int64_t val = ((int64_t)c->fr[0] << 32) | (uint32_t)s;
    c->nfr = 0;
    if (s < 0 || !gf_hmap_put(&c->chains, (uint64_t)id, val, NULL))
        return gf_oom(c->err, c->path);
    return 0;
}

/* A callchains table (OSRT_CALLCHAINS: one per call above nsys's threshold, few) into c->chains: id → stack, innermost first
 * (stackDepth 0 is the innermost frame). */
static int load_chains(cpu *c, const char *table)
{
    static const char *const cols[] = {"id", "stackDepth", "symbol", "module", "unresolved", "originalIP"};
    gf_sqlq q;
    gf_hmap_free(&c->chains);
    gf_hmap_init(&c->chains);
    int r = gf_sqlite_prepare_cols(c->db, c->path, &q, table, cols, 6, 4, "ORDER BY id, stackDepth", c->err);
    if (r <= 0)
        return r;
    int64_t cur = -1;
    int rc, ret = 0;
    while (ret == 0 && (rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        int64_t id = gf_sqlq_i64(&q, 0, -1);
        if (id != cur && (ret = end_chain(c, cur)) != 0)
            break;
        cur = id;
        int32_t f = frame_of(c, &q);
        if (f < 0 || gf_grow((void **)&c->fr, &c->capfr, c->nfr + 1, sizeof *c->fr, 64) != 0) {
            ret = f < 0 ? -1 : gf_oom(c->err, c->path);
            break;
        }
        c->fr[c->nfr++] = f;
    }
    if (ret == 0)
        ret = rc == SQLITE_DONE ? end_chain(c, cur) : fail(c, table);
    sqlite3_finalize(q.st);
    return ret;
}

static int add(cpu *c, gf_event *e, int64_t gtid, int sub, int kind)
{
    e->pid = (int32_t)((gtid >> 24) & 0xFFFFFF);
    e->kind = (uint8_t)kind;
    e->corr = -1;
    e->has_detail = 0;
    if ((e->lane = lane_of(c, gtid, sub)) < 0)
        return -1;
    return gf_trace_add(c->t, e, NULL, c->err);
}

/* The name of an OSRT_API row that is not a call (eventClass other than 27, TRACE_PROCESS_EVENT_OS_RUNTIME): the
 * zero-length marks where OS runtime tracing of a thread starts (31) and finishes (32), ENUM_NSYS_EVENT_CLASS's
 * labels; they are kept, so that the page and the exports hold every row of the table (issue 41). */
static int32_t class_name(cpu *c, int64_t cls)
{
    char buf[48];
    snprintf(buf, sizeof buf, cls == 31 ? "OSRT start" : cls == 32 ? "OSRT finish" : "OSRT event class %lld",
             (long long)cls);
    return gf_strtab_intern_cstr(c->t->str, buf);
}

static int import_osrt(cpu *c)
{
    static const char *const cols[] = {"start", "end", "globalTid", "nameId", "callchainId", "eventClass"};
    gf_sqlq q;
    if (load_chains(c, "OSRT_CALLCHAINS") != 0)
        return -1;
    int r = gf_sqlite_prepare_cols(c->db, c->path, &q, "OSRT_API", cols, 6, 4, NULL, c->err);
    if (r <= 0)
        return r;
    int rc;
    while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        gf_event e;
        e.start = gf_sqlq_i64(&q, 0, 0);
        e.dur = gf_sqlq_i64(&q, 1, e.start) - e.start;
        if (e.dur < 0)
            e.dur = 0;
        int64_t *cc = gf_sqlq_null(&q, 4) ? NULL : gf_hmap_get(&c->chains, (uint64_t)gf_sqlq_i64(&q, 4, 0));
        e.stack = cc ? (int32_t)(uint32_t)*cc : -1;
        int64_t cls = gf_sqlq_i64(&q, 5, 27);
        e.name = cls == 27 ? str_of(c, gf_sqlq_i64(&q, 3, -1)) : class_name(c, cls);
        if (e.name == -1 && (e.name = gf_strtab_intern_cstr(c->t->str, "?")) < 0)
            e.name = -2, gf_oom(c->err, c->path);
        if (e.name == -2 || add(c, &e, gf_sqlq_i64(&q, 2, 0), GF_SUB_CALLS, GF_EV_OSRT) != 0) {
            sqlite3_finalize(q.st);
            return -1;
        }
    }
    sqlite3_finalize(q.st);
    return rc == SQLITE_DONE ? 0 : fail(c, "OSRT_API");
}

/* Rows in COMPOSITE_EVENTS, or -1 on error. */
static int64_t sample_rows(cpu *c)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->db, "SELECT count(*) FROM COMPOSITE_EVENTS", -1, &st, NULL) != SQLITE_OK)
        return fail(c, "COMPOSITE_EVENTS");
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n < 0 ? fail(c, "COMPOSITE_EVENTS") : n;
}

/* SAMPLING_CALLCHAINS read beside COMPOSITE_EVENTS, both in id order (a merge join): memory follows one
 * callchain, not the table, and the samples left out (max_samples) cost no stack. */
typedef struct chain_cur {
    gf_sqlq q;
    int open;
    int64_t id; /* id of the current row; INT64_MAX past the end */
} chain_cur;

static int cur_step(cpu *c, chain_cur *k)
{
    int rc = k->open ? sqlite3_step(k->q.st) : SQLITE_DONE;
    k->id = rc == SQLITE_ROW ? gf_sqlq_i64(&k->q, 0, -1) : INT64_MAX;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(c, "SAMPLING_CALLCHAINS");
}

static int cur_open(cpu *c, chain_cur *k)
{
    static const char *const cols[] = {"id", "stackDepth", "symbol", "module", "unresolved", "originalIP"};
    int r = gf_sqlite_prepare_cols(c->db, c->path, &k->q, "SAMPLING_CALLCHAINS", cols, 6, 4, "ORDER BY id, stackDepth",
                                   c->err);
    if (r < 0)
        return -1;
    k->open = r > 0;
    return cur_step(c, k);
}

/* Moves the cursor past sample id's rows; with want, *stack is their stack (innermost first) and *leaf its
 * innermost frame (*stack -1: the sample has no callchain). */
static int sample_stack(cpu *c, chain_cur *k, int64_t id, int want, int32_t *stack, int32_t *leaf)
{
    *stack = -1;
    c->nfr = 0;
    while (k->id < id)
        if (cur_step(c, k) != 0)
            return -1;
    while (k->id == id) {
        if (want) {
            int32_t f = frame_of(c, &k->q);
            if (f < 0)
                return -1;
            if (gf_grow((void **)&c->fr, &c->capfr, c->nfr + 1, sizeof *c->fr, 64) != 0)
                return gf_oom(c->err, c->path);
            c->fr[c->nfr++] = f;
        }
        if (cur_step(c, k) != 0)
            return -1;
    }
    if (!c->nfr)
        return 0;
    *leaf = c->fr[0];
    if ((*stack = gf_trace_stack(c->t, c->fr, c->nfr)) < 0)
        return gf_oom(c->err, c->path);
    return 0;
}

static int import_samples(cpu *c, int64_t max)
{
    static const char *const cols[] = {"id", "start", "globalTid"};
    gf_sqlq q;
    chain_cur cur = {0};
    int64_t n = 0, k = 0, kept = 0;
    if (max > 0 && gf_sqlite_has_table(c->db, "COMPOSITE_EVENTS") > 0 && (n = sample_rows(c)) < 0)
        return -1;
    if (n <= max)
        max = 0; /* all of them */
    int r = gf_sqlite_prepare_cols(c->db, c->path, &q, "COMPOSITE_EVENTS", cols, 3, 3, "ORDER BY id", c->err);
    if (r <= 0)
        return r;
    int32_t plain = gf_strtab_intern_cstr(c->t->str, "CPU sample");
    int rc = SQLITE_DONE, ret = plain < 0 ? gf_oom(c->err, c->path) : cur_open(c, &cur);
    while (ret == 0 && (rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        int keep = !max || (k + 1) * max / n > k * max / n; /* evenly spread */
        int64_t gtid = gf_sqlq_i64(&q, 2, 0);
        gf_event e = {.start = gf_sqlq_i64(&q, 1, 0), .dur = 0, .name = plain};
        k++;
        if ((ret = sample_stack(c, &cur, gf_sqlq_i64(&q, 0, -1), keep, &e.stack, &e.name)) != 0)
            break;
        if (!keep) { /* its thread still has a samples lane (running rows follow the threads with one) */
            ret = lane_of(c, gtid, GF_SUB_SAMPLES) < 0 ? -1 : 0;
            continue;
        }
        kept++; /* named by the innermost frame: what the thread was running */
        ret = add(c, &e, gtid, GF_SUB_SAMPLES, GF_EV_SAMPLE);
    }
    sqlite3_finalize(q.st);
    sqlite3_finalize(cur.q.st);
    if (ret != 0)
        return -1;
    if (rc != SQLITE_DONE)
        return fail(c, "COMPOSITE_EVENTS");
    if (max && k > kept) { /* the others are in the capture: the totals (and the page's "of M") count them */
        c->t->total += (uint64_t)(k - kept);
        c->t->total_kind[GF_EV_SAMPLE] += (uint64_t)(k - kept);
        gf_trace_warn(c->t, "CPU samples: %lld in the export, %lld of them kept, evenly spread (policy "
                            "timeline.cpu.max_samples)", (long long)k, (long long)kept);
    }
    return 0;
}

/* Running intervals (sched-in → sched-out) of the threads that have a lane: the scheduling table lists every
 * thread of the machine's traced processes, most of which did nothing the timeline shows. */
static int import_running(cpu *c)
{
    static const char *const cols[] = {"start", "isSchedIn", "globalTid"};
    gf_hmap shown, open; /* pid << 24 | tid of a thread with a lane; globalTid → start of its sched-in */
    gf_sqlq q;
    int r = gf_sqlite_prepare_cols(c->db, c->path, &q, "SCHED_EVENTS", cols, 3, 3, "ORDER BY start", c->err);
    if (r <= 0)
        return r;
    gf_hmap_init(&shown);
    gf_hmap_init(&open);
    int ret = 0, rc = SQLITE_DONE;
    for (size_t l = 0; l < c->t->nlanes && ret == 0; l++) {
        const gf_lane *ln = &c->t->lanes[l];
        if (ln->kind == GF_LANE_CPU && ln->pid >= 0 && ln->tid >= 0 &&
            !gf_hmap_put(&shown, (uint64_t)((ln->pid & 0xFFFFFF) << 24 | (ln->tid & 0xFFFFFF)), 1, NULL))
            ret = gf_oom(c->err, c->path);
    }
    int32_t name = gf_strtab_intern_cstr(c->t->str, "running");
    if (name < 0)
        ret = gf_oom(c->err, c->path);
    while (ret == 0 && (rc = sqlite3_step(q.st)) == SQLITE_ROW) {
        int64_t t = gf_sqlq_i64(&q, 0, 0), gtid = gf_sqlq_i64(&q, 2, 0);
        if (!gf_hmap_get(&shown, (uint64_t)(gtid & 0xFFFFFFFFFFFFll)))
            continue;
        int64_t *v = gf_hmap_put(&open, (uint64_t)gtid, -1, NULL);
        if (!v) {
            ret = gf_oom(c->err, c->path);
        } else if (gf_sqlq_i64(&q, 1, 0)) {
            if (*v < 0)
                *v = t;
        } else if (*v >= 0) {
            gf_event e = {.start = *v, .dur = t - *v, .name = name, .stack = -1};
            *v = -1;
            ret = add(c, &e, gtid, GF_SUB_RUNNING, GF_EV_RUNNING);
        }
    }
    if (ret == 0 && rc != SQLITE_DONE)
        ret = fail(c, "SCHED_EVENTS");
    sqlite3_finalize(q.st);
    gf_hmap_free(&shown);
    gf_hmap_free(&open);
    return ret;
}

int gf_sqlite_import_cpu(sqlite3 *db, const char *path, gf_trace *t, const gf_cpu_opts *o, gf_err *err)
{
    unsigned what = o ? o->what : 0;
    if (!(what & (GF_CPU_OSRT | GF_CPU_SAMPLES | GF_CPU_RUNNING)))
        return 0;
    cpu c;
    memset(&c, 0, sizeof c);
    c.db = db;
    c.path = path;
    c.t = t;
    c.err = err;
    int ret = load_thread_names(&c);
    if (ret == 0 && (what & GF_CPU_OSRT))
        ret = import_osrt(&c);
    if (ret == 0 && (what & GF_CPU_SAMPLES))
        ret = import_samples(&c, o->max_samples);
    if (ret == 0 && (what & GF_CPU_RUNNING))
        ret = import_running(&c);
    sqlite3_finalize(c.strq);
    gf_hmap_free(&c.sid);
    gf_hmap_free(&c.tname);
    gf_hmap_free(&c.lanes);
    gf_hmap_free(&c.frames);
    gf_hmap_free(&c.chains);
    free(c.fr);
    return ret;
}
