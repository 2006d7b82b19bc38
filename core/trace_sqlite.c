/* Reading nsys SQLite exports (docs/spec/NSYS.md §7). Every table is probed in sqlite_master and every
 * column through PRAGMA table_info before a query; absent tables are skipped. Joins are C hash joins
 * (callchain id → stack, (pid, correlation id) → launch in trace_build.c): no quadratic scans, and nothing is
 * ever written to the user's file (opened read-only and immutable). */
#include "trace_sqlite.h"
#include "mem.h"
#include "trace.h"
#include "trace_build.h"
#include "trace_sqlite_imp.h"
#include "trace_sqlite_int.h"
#include "trace_sqlite_nvtx.h"
#include "trace_devctx.h"
#include "sqlite_export.h"
#include "sqlite_callchain.h"
#include "sqlite_cpu.h"

#include <sqlite3.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "threads.h"
#include "trace_rawnames.h"


#define MAX_CALLCHAIN_ID (1 << 26)

static int cc_set(imp *m, int64_t id, int32_t stack)
{
    if (id < 0 || id >= MAX_CALLCHAIN_ID)
        return 0; /* not representable: the launch simply shows no stack */
    if ((size_t)id >= m->ncc) {
        size_t old = m->ncc;
        if (GF_GROW(m->cc, m->ncc, (size_t)id + 1, 1024) != 0)
            return -1;
        memset(m->cc + old, 0xff, (m->ncc - old) * sizeof *m->cc);
    }
    m->cc[id] = stack;
    return 0;
}

static inline int32_t cc_get(const imp *m, int64_t id)
{
    return id >= 0 && (size_t)id < m->ncc ? m->cc[id] : -1;
}

typedef gf_sqlq query;

/* ---- StringIds, threads, devices ---- */

static int load_strings(imp *m)
{
    static const char *const cols[] = {"id", "value"};
    query q;
    sqlite3_stmt *mx;
    int r = gf_tsq_prepare(m, &q, "StringIds", cols, 2, 2, NULL);
    if (r <= 0)
        return r;
    if (sqlite3_prepare_v2(m->db, "SELECT max(id) FROM StringIds", -1, &mx, NULL) != SQLITE_OK) {
        gf_sqlq_finalize(&q);
        return gf_tsq_db_fail(m, "StringIds");
    }
    int64_t maxid = sqlite3_step(mx) == SQLITE_ROW ? sqlite3_column_int64(mx, 0) : -1;
    sqlite3_finalize(mx);
    if (maxid < 0 || maxid > 200000000) {
        gf_sqlq_finalize(&q);
        return maxid < 0 ? 0 : gf_errf(m->err, GF_EXIT_INPUT, "%s: StringIds: implausible id %lld", m->path,
                                       (long long)maxid);
    }
    m->nsid = maxid + 1;
    m->sid = malloc((size_t)m->nsid * sizeof *m->sid);
    m->apiname = malloc((size_t)m->nsid * sizeof *m->apiname);
    if (!m->sid || !m->apiname) {
        gf_sqlq_finalize(&q);
        return gf_oom(m->err, m->path);
    }
    memset(m->sid, 0xff, (size_t)m->nsid * sizeof *m->sid);
    for (int64_t i = 0; i < m->nsid; i++)
        m->apiname[i] = -2;
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q.st, 0);
        const char *v = (const char *)sqlite3_column_text(q.st, 1);
        if (id < 0 || id >= m->nsid || !v)
            continue;
        int32_t s = gf_strtab_intern(m->t->str, v, (size_t)sqlite3_column_bytes(q.st, 1));
        if (s < 0) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
        m->sid[id] = s;
    }
    gf_sqlq_finalize(&q);
    return rc == SQLITE_DONE ? 0 : gf_tsq_db_fail(m, "StringIds");
}

/* The display name: cudaLaunchKernel_v7000 → cudaLaunchKernel by the reports' rule (gf_stats_api_name);
 * *raw: the name as recorded, which the rules print. */
static int32_t api_name(imp *m, int64_t id, int32_t *raw)
{
    if (id < 0 || id >= m->nsid || m->sid[id] < 0)
        return *raw = gf_strtab_intern_cstr(m->t->str, "?");
    *raw = m->sid[id];
    if (m->apiname[id] != -2)
        return m->apiname[id];
    size_t len, n;
    const char *v = gf_strtab_get(m->t->str, *raw, &len);
    gf_stats_api_name(v, len, &n);
    char buf[1024]; /* v lives in the table that interning may move */
    memcpy(buf, v, n < sizeof buf ? n : sizeof buf);
    return m->apiname[id] = n == len ? *raw : gf_strtab_intern(m->t->str, buf, n < sizeof buf ? n : sizeof buf);
}

static int load_threads(imp *m)
{
    static const char *const cols[] = {"globalTid", "nameId"};
    query q;
    int r = gf_tsq_prepare(m, &q, "ThreadNames", cols, 2, 2, NULL);
    if (r <= 0)
        return r;
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int32_t s = gf_tsq_str_of(m, gf_sqlq_i64(&q, 1, -1));
        if (s >= 0 && !gf_hmap_put(&m->tname, (uint64_t)gf_sqlq_i64(&q, 0, 0), s, NULL)) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
    }
    gf_sqlq_finalize(&q);
    return rc == SQLITE_DONE ? 0 : gf_tsq_db_fail(m, "ThreadNames");
}

static int load_devices(imp *m)
{
    static const char *const gcols[] = {"id", "name"};
    static const char *const ccols[] = {"gpuId", "cudaId"};
    query q;
    int r = gf_tsq_prepare(m, &q, "TARGET_INFO_GPU", gcols, 2, 2, NULL);
    if (r < 0)
        return r;
    int rc;
    if (r > 0) {
        while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
            const char *v = (const char *)sqlite3_column_text(q.st, 1);
            int32_t s = gf_strtab_intern_cstr(m->t->str, v ? v : "GPU");
            if (s < 0 || !gf_hmap_put(&m->gpuname, (uint64_t)gf_sqlq_i64(&q, 0, 0), s, NULL)) {
                gf_sqlq_finalize(&q);
                return gf_oom(m->err, m->path);
            }
        }
        gf_sqlq_finalize(&q);
        if (rc != SQLITE_DONE)
            return gf_tsq_db_fail(m, "TARGET_INFO_GPU");
    }
    r = gf_tsq_prepare(m, &q, "TARGET_INFO_CUDA_DEVICE", ccols, 2, 2, NULL);
    if (r <= 0)
        return r;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int ins;
        if (!gf_hmap_put(&m->cudadev, (uint64_t)gf_sqlq_i64(&q, 1, 0), gf_sqlq_i64(&q, 0, 0), &ins)) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
    }
    gf_sqlq_finalize(&q);
    return rc == SQLITE_DONE ? 0 : gf_tsq_db_fail(m, "TARGET_INFO_CUDA_DEVICE");
}

static int32_t device_name(imp *m, int64_t dev)
{
    int64_t *v = gf_hmap_get(&m->devname, (uint64_t)dev);
    if (v)
        return (int32_t)*v;
    int64_t gpu = dev;
    int64_t *c = gf_hmap_get(&m->cudadev, (uint64_t)dev);
    if (c)
        gpu = *c;
    int64_t *g = gf_hmap_get(&m->gpuname, (uint64_t)gpu);
    char buf[600];
    snprintf(buf, sizeof buf, "%s (%lld)", g ? gf_strtab_get(m->t->str, (int32_t)*g, NULL) : "GPU", (long long)dev);
    int32_t s = gf_strtab_intern_cstr(m->t->str, buf);
    if (s >= 0 && !gf_hmap_put(&m->devname, (uint64_t)dev, s, NULL))
        return -1;
    return s;
}

static int32_t gpu_lane(imp *m, int sync, int64_t dev, int64_t stream)
{
    if (stream == 0xFFFFFFFFll)
        stream = -1;
    uint64_t key = ((uint64_t)(dev & 0xFFFF) << 40) ^ ((uint64_t)(stream & 0xFFFFFFFFFFll)) ^ ((uint64_t)sync << 62);
    int64_t *v = gf_hmap_get(&m->gpulane, key);
    if (v)
        return (int32_t)*v;
    int32_t dn = device_name(m, dev);
    if (dn < 0)
        return gf_oom(m->err, m->path), -1;
    int32_t l = gf_trace_lane(m->t, GF_LANE_GPU, sync, -1, -1, dn, dev, stream, m->err);
    if (l < 0)
        return -1;
    if (!gf_hmap_put(&m->gpulane, key, l, NULL))
        return gf_oom(m->err, m->path), -1;
    return l;
}

/* ---- callchains (issue 5) ---- */

/* 1 when CUDA_CALLCHAINS' rows are stored in (id, stackDepth) order, as nsys writes them: then they are read
 * in table order (NOT INDEXED: not through the (id, stackDepth) key's index, a lookup per row, nor a sort
 * where an export lacks the key); 0 when not (or the table is absent), -1 on error. Costs one scan of two
 * integer columns. */
static int callchains_in_order(imp *m)
{
    static const char *const cols[] = {"id", "stackDepth"};
    query q;
    int r = gf_tsq_prepare(m, &q, "CUDA_CALLCHAINS", cols, 2, 2, "NOT INDEXED"); /* not its (id, stackDepth) key */
    if (r <= 0)
        return r;
    int64_t pid = INT64_MIN, pdepth = INT64_MIN;
    int rc, ordered = 1;
    while (ordered && (rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t id = gf_sqlq_i64(&q, 0, -1), depth = gf_sqlq_i64(&q, 1, -1);
        ordered = id > pid || (id == pid && depth >= pdepth); /* equal rows: table order either way */
        pid = id, pdepth = depth;
    }
    if (!ordered)
        return gf_sqlq_finalize(&q), 0;
    return gf_tsq_step_fail(m, &q, rc) == 0 ? 1 : -1;
}

static int load_callchains(imp *m, int want)
{
    static const char *const cols[] = {"id", "stackDepth", "symbol", "module", "unresolved", "originalIP"};
    query q;
    int r = callchains_in_order(m);
    if (r >= 0)
        r = gf_tsq_prepare(m, &q, "CUDA_CALLCHAINS", cols, 6, 2, r ? "NOT INDEXED" : "ORDER BY id, stackDepth");
    if (r < 0)
        return r;
    if (r == 0) {
        if (want)
            gf_trace_warn(m->t, "no launch backtraces in this capture (CUDA_CALLCHAINS absent): capture with "
                                "--stacks (nsys --cudabacktrace, CPU sampling on) to record them");
        return 0;
    }
    gf_hmap fcache; /* (symbol, module) → frame strtab id */
    gf_hmap_init(&fcache);
    m->fc_mod = malloc((size_t)(m->nsid ? m->nsid : 1) * sizeof *m->fc_mod);
    m->fc_frame = malloc((size_t)(m->nsid ? m->nsid : 1) * sizeof *m->fc_frame);
    if (!m->fc_mod || !m->fc_frame) {
        gf_sqlq_finalize(&q);
        return gf_oom(m->err, m->path);
    }
    memset(m->fc_frame, 0xff, (size_t)(m->nsid ? m->nsid : 1) * sizeof *m->fc_frame);
    int32_t *fr = NULL;
    size_t nfr = 0, capfr = 0;
    int64_t cur = -1;
    size_t rows = 0;
    int rc, ret = 0;
    char buf[2048];
    for (;;) {
        rc = gf_sqlq_step(&q);
        int64_t id = rc == SQLITE_ROW ? gf_sqlq_i64(&q, 0, -1) : -2;
        if (id != cur && cur >= 0 && nfr) {
            int32_t s = gf_trace_stack(m->t, fr, nfr);
            if (s < 0 || cc_set(m, cur, s) != 0) {
                ret = gf_oom(m->err, m->path);
                break;
            }
            nfr = 0;
        }
        if (rc != SQLITE_ROW)
            break;
        cur = id;
        rows++;
        int64_t sym = gf_sqlq_i64(&q, 2, -1), mod = gf_sqlq_i64(&q, 3, -1);
        int32_t ssym = gf_tsq_str_of(m, sym), smod = gf_tsq_str_of(m, mod);
        int32_t f = -1;
        uint64_t key = ((uint64_t)(uint32_t)(ssym + 1) << 32) | (uint32_t)(smod + 1);
        if (ssym >= 0 && m->fc_frame[sym] >= 0 && m->fc_mod[sym] == smod) {
            f = m->fc_frame[sym]; /* the common case: a symbol seen before, in the same module */
        } else if (ssym >= 0) {
            int64_t *v = gf_hmap_get(&fcache, key);
            if (v)
                f = (int32_t)*v;
        }
        if (f < 0) {
            const char *symtxt;
            char addr[32];
            if (ssym >= 0) {
                symtxt = gf_strtab_get(m->t->str, ssym, NULL);
            } else if (gf_sqlq_i64(&q, 4, 0) && !gf_sqlq_null(&q, 5)) {
                snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)gf_sqlq_i64(&q, 5, 0));
                symtxt = addr;
            } else {
                symtxt = "?";
            }
            const char *modtxt = smod >= 0 ? gf_strtab_get(m->t->str, smod, NULL) : NULL;
            if (modtxt) {
                const char *sl = strrchr(modtxt, '/');
                if (sl && sl[1])
                    modtxt = sl + 1;
            }
            int n = modtxt && *modtxt ? snprintf(buf, sizeof buf, "%s (%s)", symtxt, modtxt)
                                      : snprintf(buf, sizeof buf, "%s", symtxt);
            f = gf_strtab_intern(m->t->str, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
            if (f < 0 || (ssym >= 0 && !gf_hmap_put(&fcache, key, f, NULL))) {
                ret = gf_oom(m->err, m->path);
                break;
            }
        }
        if (ssym >= 0) {
            m->fc_frame[sym] = f;
            m->fc_mod[sym] = smod;
        }
        if (GF_GROW(fr, capfr, nfr + 1, 64) != 0) {
            ret = gf_oom(m->err, m->path);
            break;
        }
        fr[nfr++] = f;
    }
    if (ret == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
        ret = gf_tsq_db_fail(m, "CUDA_CALLCHAINS");
    gf_sqlq_finalize(&q);
    free(fr);
    gf_hmap_free(&fcache);
    m->ccshift = ret == 0 && rows ? gf_sqlite_callchain_shift(m->db) : 0;
    if (ret == 0 && rows == 0 && want)
        gf_trace_warn(m->t, "no launch backtraces in this capture (CUDA_CALLCHAINS has no rows): launches were "
                            "below the --cudabacktrace threshold, or backtraces were off");
    return ret;
}

/* ---- event tables ---- */

/* ... and a GPU op's row (start, end, deviceId, correlationId, globalPid in columns 0, 1, 2, 4, 5) is its
 * event: the projection skips rows with a NULL among them, takes deviceId NULL as -1, joins globalPid whole
 * and keeps an end before the start, where the event has 0, a lane's device (dev & 0xFFFF), the pid bits
 * and duration 0 (gf_trace_add) */
static void exact_op(imp *m, const query *q, const gf_event *e, int64_t gpid, int64_t dev)
{
    if ((e->start == 0 && gf_sqlq_null(q, 0)) || e->dur < 0 || (e->dur == 0 && gf_sqlq_null(q, 1)) ||
        (e->corr == -1 && gf_sqlq_null(q, 4)) || (gpid == 0 && gf_sqlq_null(q, 5)) || (gpid & 0xFFFFFF) != 0 ||
        dev < 0 || dev > 0xFFFF || (dev == 0 && gf_sqlq_null(q, 2)))
        m->calls_inexact = 1;
    gf_tsq_exact_hi(m, gpid);
}

/* The row's (process, context) ran on its device: noted for the synchronization rows (trace_devctx.h) from
 * the kernels, copies and memsets as they are read, instead of a DISTINCT query over each table (a second
 * scan of the kernels: 0.25 s of the import on the 368 MB bench export, issue 42). Tables without
 * globalPid, contextId or deviceId tell nothing, rows with a NULL context or device neither. */
static int note_context(imp *m, const query *q, int ctxcol)
{
    if (!m->note_dc || q->idx[2] < 0 || q->idx[5] < 0 || q->idx[ctxcol] < 0 || gf_sqlq_null(q, ctxcol) ||
        gf_sqlq_null(q, 2))
        return 0;
    if (gf_devctx_note(&m->dc, gf_sqlq_i64(q, 5, 0), gf_sqlq_i64(q, ctxcol, 0), gf_sqlq_i64(q, 2, 0)) != 0)
        return gf_oom(m->err, m->path);
    return 0;
}

static int import_runtime(imp *m, int partner_pass)
{
    static const char *const cols[] = {"start", "end", "globalTid", "correlationId", "nameId", "callchainId"};
    query q;
    int r = gf_tsq_prepare(m, &q, "CUPTI_ACTIVITY_KIND_RUNTIME", cols, 6, 3, NULL);
    if (r <= 0)
        return r;
    gf_tsq_prefetch(m, &q, 0, 1);
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t gtid = gf_sqlq_i64(&q, 2, 0);
        gf_event e;
        e.start = gf_sqlq_i64(&q, 0, 0);
        e.dur = gf_sqlq_i64(&q, 1, e.start) - e.start;
        e.corr = gf_sqlq_i64(&q, 3, -1);
        e.pid = (int32_t)((gtid >> 24) & 0xFFFFFF);
        e.kind = GF_EV_API;
        e.stack = -1;
        if ((e.start == 0 && gf_sqlq_null(&q, 0)) || e.dur < 0 || (e.dur == 0 && gf_sqlq_null(&q, 1)) ||
            (gtid == 0 && gf_sqlq_null(&q, 2)) || (e.corr == -1 && gf_sqlq_null(&q, 3)))
            m->calls_inexact = 1;
        gf_tsq_exact_hi(m, gtid);
        if (m->ncc && !gf_sqlq_null(&q, 5))
            e.stack = cc_get(m, gf_sqlq_i64(&q, 5, 0) + m->ccshift);
        int32_t raw;
        if ((e.lane = gf_tsq_cpu_lane(m, 0, gtid)) < 0 || (e.name = api_name(m, gf_sqlq_i64(&q, 4, -1), &raw)) < 0) {
            gf_sqlq_finalize(&q);
            return e.lane < 0 ? -1 : gf_oom(m->err, m->path);
        }
        int bad = partner_pass ? gf_trace_add_partner(m->t, &e, m->err) : gf_trace_add(m->t, &e, NULL, m->err);
        if (bad == 0 && !partner_pass && gf_trace_note_raw_name(m->t, e.name, raw) != 0)
            bad = gf_oom(m->err, m->path);
        if (bad != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
    }
    return gf_tsq_step_fail(m, &q, rc);
}

static int import_kernels(imp *m)
{
    static const char *const cols[] = {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                       "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY",
                                       "blockZ", "registersPerThread", "staticSharedMemory", "dynamicSharedMemory",
                                       "contextId", "graphNodeId", "graphId"};
    query q;
    /* narrow: the first 8 columns (SQLite decodes a row's columns up to the last one asked for) */
    int r = gf_tsq_prepare(m, &q, "CUPTI_ACTIVITY_KIND_KERNEL", cols, m->narrow ? 8 : 20, 2, NULL);
    if (r <= 0)
        return r;
    gf_tsq_prefetch(m, &q, 0, 1);
    int rc;
    gf_detail d;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        gf_event e;
        e.start = gf_sqlq_i64(&q, 0, 0);
        e.dur = gf_sqlq_i64(&q, 1, e.start) - e.start;
        e.corr = gf_sqlq_i64(&q, 4, -1);
        int64_t gpid = gf_sqlq_i64(&q, 5, 0), dev = gf_sqlq_i64(&q, 2, 0);
        e.pid = (int32_t)((gpid >> 24) & 0xFFFFFF);
        e.kind = GF_EV_KERNEL;
        e.stack = -1;
        exact_op(m, &q, &e, gpid, dev);
        int32_t nm = gf_tsq_str_of(m, gf_sqlq_i64(&q, 6, -1));
        if (nm < 0)
            nm = gf_tsq_str_of(m, gf_sqlq_i64(&q, 7, -1));
        if (nm < 0 && (nm = gf_strtab_intern_cstr(m->t->str, "?")) < 0) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
        e.name = nm;
        if ((e.lane = gpu_lane(m, 0, dev, gf_sqlq_i64(&q, 3, -1))) < 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
        if (m->narrow) {
            if (gf_trace_add(m->t, &e, NULL, m->err) != 0) {
                gf_sqlq_finalize(&q);
                return -1;
            }
            continue;
        }
        if (note_context(m, &q, 17) != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
        gf_detail_clear(&d);
        for (int i = 0; i < 3; i++) {
            d.grid[i] = (int32_t)gf_sqlq_i64(&q, 8 + i, -1);
            d.block[i] = (int32_t)gf_sqlq_i64(&q, 11 + i, -1);
        }
        d.regs = (int32_t)gf_sqlq_i64(&q, 14, -1);
        d.smem_static = gf_sqlq_i64(&q, 15, -1);
        d.smem_dynamic = gf_sqlq_i64(&q, 16, -1);
        d.context = (int32_t)gf_sqlq_i64(&q, 17, -1);
        d.graph_node = gf_sqlq_i64(&q, 18, -1);
        d.graph = gf_sqlq_i64(&q, 19, -1);
        if (gf_trace_add(m->t, &e, &d, m->err) != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
    }
    return gf_tsq_step_fail(m, &q, rc);
}

static const char *const copy_fallback[] = {"Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array",
                                            "Array-to-Host", "Array-to-Array", "Array-to-Device", "Device-to-Array",
                                            "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
                                            "Unified Host-to-Device", "Unified Device-to-Host",
                                            "Unified Device-to-Device"};
static const char *const sync_fallback[] = {"Unknown", "Event sync", "Stream wait sync", "Stream sync",
                                            "Context sync"};

/* Labels of a small ENUM_* table (id → label) with hard-coded fallbacks for schema 2.9.1 exports. */
static int load_enum(imp *m, const char *table, const char *const *fb, int nfb, int32_t *out, int nout)
{
    for (int i = 0; i < nout; i++)
        out[i] = -1;
    for (int i = 0; i < nfb && i < nout; i++)
        if ((out[i] = gf_strtab_intern_cstr(m->t->str, fb[i])) < 0)
            return gf_oom(m->err, m->path);
    static const char *const cols[] = {"id", "label"};
    query q;
    int r = gf_tsq_prepare(m, &q, table, cols, 2, 2, NULL);
    if (r <= 0)
        return r;
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t id = gf_sqlq_i64(&q, 0, -1);
        const char *v = (const char *)sqlite3_column_text(q.st, 1);
        if (id >= 0 && id < nout && v && (out[id] = gf_strtab_intern_cstr(m->t->str, v)) < 0) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
    }
    return gf_tsq_step_fail(m, &q, rc);
}

static int8_t small_kind(const query *q, int i)
{
    if (gf_sqlq_null(q, i))
        return -1;
    int64_t v = gf_sqlq_i64(q, i, -1);
    return v < 0 ? -1 : v > 126 ? 127 : (int8_t)v;
}

static int import_copies(imp *m, int memset_table)
{
    /* the first 7 columns are shared; then memcpy: copyKind, contextId, srcKind, dstKind, srcDeviceId,
     * dstDeviceId; memset: contextId, memKind */
    static const char *const ccols[] = {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                        "bytes", "copyKind", "contextId", "srcKind", "dstKind", "srcDeviceId",
                                        "dstDeviceId"};
    static const char *const scols[] = {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                        "bytes", "contextId", "memKind"};
    query q;
    const char *table = memset_table ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
    int r = memset_table ? gf_tsq_prepare(m, &q, table, scols, 9, 2, NULL) : gf_tsq_prepare(m, &q, table, ccols, 13, 2, NULL);
    if (r <= 0)
        return r;
    int32_t labels[64], names[64];
    if (!memset_table) {
        if (load_enum(m, "ENUM_CUDA_MEMCPY_OPER", copy_fallback, 14, labels, 64) != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
        for (int i = 0; i < 64; i++) {
            char buf[300];
            snprintf(buf, sizeof buf, "[CUDA memcpy %s]",
                     labels[i] >= 0 ? gf_strtab_get(m->t->str, labels[i], NULL) : "Unknown");
            if ((names[i] = gf_strtab_intern_cstr(m->t->str, buf)) < 0) {
                gf_sqlq_finalize(&q);
                return gf_oom(m->err, m->path);
            }
        }
    }
    int32_t msname = gf_strtab_intern_cstr(m->t->str, "[CUDA memset]");
    if (msname < 0) {
        gf_sqlq_finalize(&q);
        return gf_oom(m->err, m->path);
    }
    gf_tsq_prefetch(m, &q, 0, 0); /* after load_enum: the connection is the reader's from here */
    int rc;
    gf_detail d;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        gf_event e;
        e.start = gf_sqlq_i64(&q, 0, 0);
        e.dur = gf_sqlq_i64(&q, 1, e.start) - e.start;
        e.corr = gf_sqlq_i64(&q, 4, -1);
        int64_t gpid = gf_sqlq_i64(&q, 5, 0), dev = gf_sqlq_i64(&q, 2, 0);
        e.pid = (int32_t)((gpid >> 24) & 0xFFFFFF);
        e.kind = memset_table ? GF_EV_MEMSET : GF_EV_MEMCPY;
        e.stack = -1;
        exact_op(m, &q, &e, gpid, dev);
        gf_detail_clear(&d);
        d.bytes = gf_sqlq_i64(&q, 6, -1);
        if (memset_table) {
            e.name = msname;
            d.context = (int32_t)gf_sqlq_i64(&q, 7, -1);
            d.mem_kind = small_kind(&q, 8);
        } else {
            d.copy_kind = small_kind(&q, 7);
            d.context = (int32_t)gf_sqlq_i64(&q, 8, -1);
            d.src_kind = small_kind(&q, 9);
            d.dst_kind = small_kind(&q, 10);
            d.src_dev = gf_sqlq_null(&q, 11) ? -1 : (int32_t)gf_sqlq_i64(&q, 11, -1);
            d.dst_dev = gf_sqlq_null(&q, 12) ? -1 : (int32_t)gf_sqlq_i64(&q, 12, -1);
            int64_t k = gf_sqlq_i64(&q, 7, 0);
            if (k < 0 || k >= 64)
                k = 0;
            e.name = names[k];
            d.copy = labels[k];
        }
        if ((e.lane = gpu_lane(m, 0, dev, gf_sqlq_i64(&q, 3, -1))) < 0 ||
            note_context(m, &q, memset_table ? 7 : 8) != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
        if (gf_trace_add(m->t, &e, &d, m->err) != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
    }
    return gf_tsq_step_fail(m, &q, rc);
}

static int import_sync(imp *m)
{
    static const char *const cols[] = {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                       "syncType", "contextId"};
    query q;
    if (m->narrow)
        return 0; /* the GPU stacks draw no synchronization */
    int r = gf_tsq_prepare(m, &q, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", cols, 8, 2, NULL);
    if (r <= 0)
        return r;
    int32_t labels[16];
    gf_devctx *dc = &m->dc; /* each row under its (process, context)'s device (trace_devctx.h) */
    if (load_enum(m, "ENUM_CUPTI_SYNC_TYPE", sync_fallback, 5, labels, 16) != 0) {
        gf_sqlq_finalize(&q);
        return -1;
    }
    gf_tsq_prefetch(m, &q, 0, 0);
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        gf_event e;
        e.start = gf_sqlq_i64(&q, 0, 0);
        e.dur = gf_sqlq_i64(&q, 1, e.start) - e.start;
        e.corr = gf_sqlq_i64(&q, 4, -1);
        e.pid = (int32_t)((gf_sqlq_i64(&q, 5, 0) >> 24) & 0xFFFFFF);
        e.kind = GF_EV_SYNC;
        e.stack = -1;
        int64_t st = gf_sqlq_i64(&q, 6, 0);
        e.name = labels[st >= 0 && st < 16 && labels[st] >= 0 ? st : 0];
        int64_t ctx = gf_sqlq_i64(&q, 7, -1), dev = gf_sqlq_i64(&q, 2, 0);
        dev = gf_devctx_device(dc, gf_sqlq_i64(&q, 5, 0), ctx, ctx >= 0, dev);
        if ((e.lane = gpu_lane(m, 1, dev, gf_sqlq_i64(&q, 3, -1))) < 0 || gf_trace_add(m->t, &e, NULL, m->err) != 0) {
            gf_sqlq_finalize(&q);
            return -1;
        }
    }
    r = gf_tsq_step_fail(m, &q, rc);
    return r == 0 ? gf_devctx_warn(dc, m->t, m->err) : r;
}

static int import_nvtx(imp *m)
{
    static const char *const dcols[] = {"globalTid", "domainId", "textId", "text", "eventType"};
    static const char *const cols[] = {"start", "end", "eventType", "globalTid", "text", "textId", "domainId"};
    int r = gf_tsq_nvtx_table_order(m); /* keep-all builds: table order, sorted in C (trace_sqlite_nvtx.c) */
    if (r != 1)
        return r;
    query q;
    gf_hmap domains; /* (pid, domainId) → strtab id */
    gf_hmap_init(&domains);
    r = gf_tsq_prepare(m, &q, "NVTX_EVENTS", dcols, 5, 2, "WHERE eventType = 75");
    if (r <= 0)
        return r;
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t pid = (gf_sqlq_i64(&q, 0, 0) >> 24) & 0xFFFFFF;
        int32_t s = gf_tsq_str_of(m, gf_sqlq_i64(&q, 2, -1));
        size_t len;
        const char *txt;
        if (s < 0 && (txt = gf_sqlq_text(&q, 3, &len)))
            s = gf_strtab_intern(m->t->str, txt, len);
        if (s >= 0 && !gf_hmap_put(&domains, ((uint64_t)pid << 32) ^ (uint64_t)gf_sqlq_i64(&q, 1, 0), s, NULL)) {
            gf_sqlq_finalize(&q);
            gf_hmap_free(&domains);
            return gf_oom(m->err, m->path);
        }
    }
    if (gf_tsq_step_fail(m, &q, rc) != 0) {
        gf_hmap_free(&domains);
        return -1;
    }
    sqlite3_stmt *mx;
    int64_t last = 0;
    if (sqlite3_prepare_v2(m->db, "SELECT max(max(coalesce(end, start)), max(start)) FROM NVTX_EVENTS", -1, &mx,
                           NULL) == SQLITE_OK) {
        if (sqlite3_step(mx) == SQLITE_ROW)
            last = sqlite3_column_int64(mx, 0);
        sqlite3_finalize(mx);
    }
    r = gf_tsq_prepare(m, &q, "NVTX_EVENTS", cols, 7, 4,
                "WHERE eventType IN (59, 60, 70, 71, 34) ORDER BY globalTid, start, "
                "coalesce(end, CASE eventType WHEN 34 THEN start ELSE 9223372036854775807 END) DESC");
    if (r <= 0) {
        gf_hmap_free(&domains);
        return r;
    }
    gf_tsq_nest nest = {.tid = -1};
    gf_detail d;
    int32_t unnamed = gf_strtab_intern_cstr(m->t->str, "(unnamed)");
    /* not prefetched: SQLite's sorter does this ORDER BY's work at the first step, which a reader would not
     * overlap, and its memory would sit in the reader thread's own malloc arena, beside the calling thread's
     * (bounded builds, which read this query, keep their peak RSS: tests/cli/test_bounded_memory.sh) */
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t gtid = gf_sqlq_i64(&q, 3, 0);
        gf_event e;
        e.start = gf_sqlq_i64(&q, 0, 0);
        int64_t et = gf_sqlq_i64(&q, 2, 59);
        int64_t end = et == 34 ? e.start : gf_sqlq_i64(&q, 1, last); /* a mark: a point in time */
        e.dur = end - e.start;
        e.corr = -1;
        e.pid = (int32_t)((gtid >> 24) & 0xFFFFFF);
        e.kind = GF_EV_NVTX;
        e.stack = -1;
        /* the registered string (textId) wins over inline text, as nsys's reports name a range
         * (nvtxpptrace.py / nvtxgpuproj.py: `WHEN sid.value NOT NULL THEN sid.value ... ELSE e.text`) */
        int32_t nm = gf_tsq_str_of(m, gf_sqlq_i64(&q, 5, -1));
        size_t len;
        const char *txt;
        if (nm < 0 && (txt = gf_sqlq_text(&q, 4, &len)))
            nm = gf_strtab_intern(m->t->str, txt, len);
        e.name = nm >= 0 ? nm : unnamed;
        gf_detail_clear(&d);
        int64_t dom = gf_sqlq_i64(&q, 6, 0);
        if (dom) {
            int64_t *v = gf_hmap_get(&domains, ((uint64_t)e.pid << 32) ^ (uint64_t)dom);
            if (v)
                d.domain = (int32_t)*v;
        }
        if (et == 59 || et == 70) /* push/pop: nesting level on this thread */
            d.nvtx_level = gf_tsq_nest_level(&nest, gtid, end);
        else if (et == 34)
            d.nvtx_level = GF_NVTX_MARK;
        if ((e.lane = gf_tsq_cpu_lane(m, 1, gtid)) < 0) {
            gf_sqlq_finalize(&q);
            gf_hmap_free(&domains);
            return -1;
        }
        if (gf_trace_add(m->t, &e, &d, m->err) != 0) {
            gf_sqlq_finalize(&q);
            gf_hmap_free(&domains);
            return -1;
        }
    }
    gf_hmap_free(&domains);
    return gf_tsq_step_fail(m, &q, rc);
}

/* PROFILER_OVERHEAD (the profiler's own work, which nsys's GPU rules count as GPU time) */
static int import_overhead(imp *m)
{
    static const char *const cols[] = {"start", "end", "globalTid", "nameId"};
    query q;
    int r = gf_tsq_prepare(m, &q, "PROFILER_OVERHEAD", cols, 4, 2, NULL);
    if (r <= 0)
        return r;
    int rc;
    uint32_t seq = 0;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        int64_t gtid = gf_sqlq_i64(&q, 2, 0);
        gf_overhead o = {gf_sqlq_i64(&q, 0, 0), gf_sqlq_i64(&q, 1, 0), (int32_t)((gtid >> 24) & 0xFFFFFF),
                         (int32_t)(gtid & 0xFFFFFF), gf_tsq_str_of(m, gf_sqlq_i64(&q, 3, -1)), seq++};
        if (gf_trace_add_overhead(m->t, &o) != 0) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
    }
    return gf_tsq_step_fail(m, &q, rc);
}

/* CUPTI_ACTIVITY_KIND_GRAPH_TRACE: graphs traced as a whole (--cuda-graph-trace=graph) */
static int import_graph_trace(imp *m)
{
    static const char *const cols[] = {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                                       "globalPid", "graphId", "graphExecId"};
    query q;
    int r = gf_tsq_prepare(m, &q, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", cols, 9, 2, NULL);
    if (r <= 0)
        return r;
    int rc;
    while ((rc = gf_sqlq_step(&q)) == SQLITE_ROW) {
        gf_graph_exec g = {gf_sqlq_i64(&q, 0, 0), gf_sqlq_i64(&q, 1, 0), gf_sqlq_i64(&q, 5, -1), gf_sqlq_i64(&q, 7, -1),
                           gf_sqlq_i64(&q, 8, -1), (int32_t)((gf_sqlq_i64(&q, 6, 0) >> 24) & 0xFFFFFF),
                           (int32_t)gf_sqlq_i64(&q, 2, -1), (int32_t)gf_sqlq_i64(&q, 3, -1), gf_sqlq_i64(&q, 4, -1)};
        if (gf_trace_add_graph_exec(m->t, &g) != 0) {
            gf_sqlq_finalize(&q);
            return gf_oom(m->err, m->path);
        }
    }
    return gf_tsq_step_fail(m, &q, rc);
}

static int probe_tables(imp *m)
{
    static const struct {
        const char *name;
        uint32_t bit;
    } tabs[] = {{"CUPTI_ACTIVITY_KIND_RUNTIME", GF_TABLE_RUNTIME},
                {"CUPTI_ACTIVITY_KIND_KERNEL", GF_TABLE_KERNEL},
                {"CUPTI_ACTIVITY_KIND_MEMCPY", GF_TABLE_MEMCPY},
                {"CUPTI_ACTIVITY_KIND_MEMSET", GF_TABLE_MEMSET},
                {"PROFILER_OVERHEAD", GF_TABLE_OVERHEAD},
                {"NVTX_EVENTS", GF_TABLE_NVTX},
                {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", GF_TABLE_GRAPH_TRACE},
                {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", GF_TABLE_SYNC},
                {"VULKAN_WORKLOAD", GF_TABLE_VULKAN},
                {"OPENGL_WORKLOAD", GF_TABLE_OPENGL},
                {"DX12_WORKLOAD", GF_TABLE_DX12}};
    m->t->tables = GF_TABLE_KNOWN;
    for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
        int h = gf_sqlite_has_table(m->db, tabs[i].name);
        if (h < 0)
            return gf_tsq_db_fail(m, tabs[i].name);
        if (h)
            m->t->tables |= tabs[i].bit;
    }
    return 0;
}

/* The rows of `table`, at most: the span of its rowids (gf_sqlite_rowid_span: two b-tree descents), where
 * `SELECT count(*)` reads every leaf page of the table (~0.27 s for the 368 MB export, before the first row
 * is imported and with the reader's core idle); counted where there is no span to trust, and always with a
 * `where` (a count of some rows only). -1 with err set on a failed count. */
static int64_t table_rows(imp *m, const char *table, const char *where)
{
    int64_t lo, hi;
    if (!where && gf_sqlite_rowid_span(m->db, table, &lo, &hi) == 1)
        return hi - lo + 1;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s%s%s", table, where ? " WHERE " : "", where ? where : "");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0; /* NVTX_EVENTS without eventType: the import says what is wrong */
    int rc = sqlite3_step(st);
    int64_t n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        gf_tsq_db_fail(m, "count(*)");
    return n;
}

/* The model's columns sized once from the tables' row counts (table_rows), instead of doubling as events
 * arrive: no copies, no slack, one page-mapping call. */
static int reserve_events(imp *m)
{
    static const char *const table[] = {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL",
                                        "CUPTI_ACTIVITY_KIND_MEMCPY",  "CUPTI_ACTIVITY_KIND_MEMSET",
                                        "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"};
    static const uint32_t bit[] = {GF_TABLE_RUNTIME, GF_TABLE_KERNEL, GF_TABLE_MEMCPY,
                                   GF_TABLE_MEMSET,  GF_TABLE_SYNC,   GF_TABLE_NVTX};
    size_t n = 0;
    int all = gf_trace_keeps_all(m->t);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!(m->t->tables & bit[i]) || (m->narrow && bit[i] == GF_TABLE_SYNC))
            continue;
        /* keep-all builds: NVTX_EVENTS' rows of every type, an upper bound (a few more slots than events:
         * thread names, domains) instead of decoding each row's eventType (0.3 CPU-s for 2.2M rows) */
        int nvtx_typed = !all && bit[i] == GF_TABLE_NVTX;
        int64_t rows = table_rows(m, table[i], nvtx_typed ? "eventType IN (59, 60, 70, 71, 34)" : NULL);
        if (rows < 0)
            return -1;
        n += (size_t)rows;
    }
    if (m->threads < 2 || !gf_trace_keeps_all(m->t))
        return gf_trace_reserve(m->t, n, m->err);
    /* the pages (~1 s of the kernel zeroing them for the 6.6M events of bench/out) mapped by this thread
     * while it waits for the reader's rows (gf_tsq_prefetch), not first; the writes that overtake that fault
     * their own pages, as without a reserve */
    return gf_trace_reserve_later(m->t, n, &m->pop, m->err);
}

int gf_trace_import_sqlite(gf_trace *t, const char *path, const gf_sqlite_opts *o, gf_err *err)
{
    imp m;
    memset(&m, 0, sizeof m);
    m.path = path;
    m.t = t;
    m.err = err;
    m.threads = gf_threads_resolve(o ? o->threads : 0, 2); /* 2: this thread and the row reader */
    m.narrow = o && o->narrow;
    gf_devctx_init(&m.dc);
    if (gf_sqlite_open_export(path, &m.db, err) != 0) {
        gf_devctx_free(&m.dc);
        return -1;
    }
    /* narrow (the stacks alone): pages read through a memory map, not copied by read(2): less system time
     * (issue 42); the mapped file counts in the resident set, so imports that keep more do not */
    if (m.narrow)
        sqlite3_exec(m.db, "PRAGMA mmap_size = 2147418112", NULL, NULL, NULL);
    int ret = -1;
    gf_trace_set_source(t, path);
    if (probe_tables(&m) != 0)
        goto done;
    m.note_dc = !m.narrow && (t->tables & GF_TABLE_SYNC); /* the narrow import reads no synchronization */
    if (reserve_events(&m) != 0 || load_strings(&m) != 0 || load_threads(&m) != 0 || load_devices(&m) != 0 ||
        load_callchains(&m, o && o->stacks) != 0 || import_runtime(&m, 0) != 0 || import_kernels(&m) != 0 ||
        import_copies(&m, 0) != 0 || import_copies(&m, 1) != 0 || import_sync(&m) != 0 || import_nvtx(&m) != 0 ||
        import_overhead(&m) != 0 || import_graph_trace(&m) != 0 ||
        gf_sqlite_import_cpu(m.db, path, t, o ? &o->cpu : NULL, err) != 0)
        goto done;
    if (o && o->stacks && m.ncc && t->launches_with_stack == 0)
        gf_trace_warn(t, "no launch backtraces in this capture (no CUDA call has a callchainId)");
    if (gf_trace_partner_pass_needed(t) && import_runtime(&m, 1) != 0)
        goto done;
    sqlite3_close(m.db); /* its page cache is not needed for the finish, the import's memory peak */
    m.db = NULL;
    gf_trace_set_finish_threads(t, m.threads); /* the row reader's core is free again */
    if (m.narrow && o->unordered && gf_trace_keeps_all(t))
        gf_trace_set_unordered(t);
    ret = gf_trace_finish(t, err);
    t->calls_exact = !m.calls_inexact;
    t->gid_hi = m.gid_hi;
    if (m.calls_inexact || m.nvtx_inexact) { /* the ranges' rows need the calls' host prefix too */
        free(t->nvtx_rowid);
        t->nvtx_rowid = NULL;
    }
done:
    if (m.db)
        sqlite3_close(m.db);
    free(m.sid);
    free(m.apiname);
    gf_hmap_free(&m.tname);
    gf_hmap_free(&m.cpulane);
    gf_hmap_free(&m.gpulane);
    gf_hmap_free(&m.devname);
    gf_hmap_free(&m.cudadev);
    gf_hmap_free(&m.gpuname);
    gf_devctx_free(&m.dc);
    free(m.cc);
    free(m.fc_mod);
    free(m.fc_frame);
    return ret;
}
