/* The Trace model: CPU/GPU timeline events as struct-of-arrays with interned strings, lanes, per-event
 * details, a deduplicated launch-stack table and the aggregate launch-stack flamegraph.
 *
 * Building: gf_trace_new → gf_trace_begin(max_events, keep_partners) → gf_trace_lane/gf_trace_add for
 * every event (importers: trace_sqlite.c, trace_csv.c) → optional partner pass → gf_trace_finish.
 * With max_events > 0 the builder keeps only the max_events longest events in a min-heap while
 * streaming (memory bounded by max_events, O(n log N)); finish puts them back in start order.
 * CUDA API events must be added before the GPU work they launched, so GPU events inherit the launch
 * stack (same process, same correlation id) and the launch-stack flamegraph sees every launch. */
#ifndef GF_TRACE_H
#define GF_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gf_err.h"
#include "hmap.h"
#include "strtab.h"

/* The CPU side (issue 25, core/sqlite_cpu.c): OS runtime calls (OSRT_API) on their thread's lane, CPU samples
 * (COMPOSITE_EVENTS, dur 0, stack = the sampled callchain) and the thread's running intervals (SCHED_EVENTS)
 * on the thread's sub-lanes (gf_lane.sub). */
enum { GF_EV_API = 0, GF_EV_KERNEL, GF_EV_MEMCPY, GF_EV_MEMSET, GF_EV_SYNC, GF_EV_NVTX,
       GF_EV_OSRT, GF_EV_SAMPLE, GF_EV_RUNNING, GF_EV_NKINDS };
extern const char *const gf_ev_kind_names[GF_EV_NKINDS]; /* "cuda_api", "kernel", ..., "osrt", "cpu_sample" */
/* sub-lanes of a CPU thread (gf_lane.sub): its calls, its CPU samples, its running intervals */
enum { GF_SUB_CALLS = 0, GF_SUB_SAMPLES, GF_SUB_RUNNING };
enum { GF_LANE_CPU = 0, GF_LANE_GPU, GF_LANE_NVTX };
extern const char *const gf_lane_kind_names[3];          /* "cpu", "gpu", "nvtx" */

static inline int gf_ev_is_gpu_work(int kind)
{
    return kind == GF_EV_KERNEL || kind == GF_EV_MEMCPY || kind == GF_EV_MEMSET;
}

/* OS runtime calls, CPU samples, running intervals: shown, exported, never an input of the findings rules */
static inline int gf_ev_is_cpu_side(int kind)
{
    return kind == GF_EV_OSRT || kind == GF_EV_SAMPLE || kind == GF_EV_RUNNING;
}

/* Optional per-event details; -1 means absent for every field. Events with equal details may share one
 * record (keep-all builds store each distinct detail once): treat a record as read-only. No padding: the
 * builder hashes and compares records as bytes (a static assertion in trace_build.c keeps it so). */
typedef struct gf_detail {
    int32_t grid[3], block[3];
    int32_t regs;
    int32_t copy;       /* strtab id: "Host-to-Device", ... */
    int32_t domain;     /* strtab id: NVTX domain name */
    int32_t nvtx_level; /* push/pop nesting depth, 0 = outermost; GF_NVTX_MARK: an NVTX mark */
    int64_t bytes;
    int64_t smem_static, smem_dynamic;
    /* GPU work from SQLite exports (the findings rules read them) */
    int64_t graph_node;        /* graphNodeId: work launched from a CUDA graph node (-1 = NULL) */
    int64_t graph;             /* graphId (kernel table of newer exports; -1 = absent) */
    int32_t context;           /* contextId */
    int32_t src_dev, dst_dev;  /* memcpy srcDeviceId / dstDeviceId (-1 = NULL) */
    int8_t copy_kind;          /* memcpy copyKind as recorded (1 = host to device) */
    int8_t src_kind, dst_kind; /* memcpy srcKind / dstKind (0 pageable, 1 pinned, ...; -1 = NULL, 127 = other) */
    int8_t mem_kind;           /* memset memKind (-1 = NULL) */
} gf_detail;

void gf_detail_clear(gf_detail *d);

/* An NVTX mark (NVTX_EVENTS eventType 34, a point in time): an NVTX event of duration 0 whose detail's
 * nvtx_level is GF_NVTX_MARK. Drawn and exported like a range; never a range to the rules, the iterations
 * of rank-skew, the NVTX opening view, the flamegraph's NVTX frames or the projection onto the GPU. */
#define GF_NVTX_MARK (-2)
struct gf_trace;
int gf_ev_is_nvtx_mark(const struct gf_trace *t, size_t i);

/* One event as the importers hand it over. */
typedef struct gf_event {
    int64_t start, dur; /* ns */
    int64_t corr;       /* -1 when none */
    int32_t lane, name; /* lane index, strtab id */
    int32_t stack;      /* stack id or -1 (GPU work inherits the launch's) */
    int32_t pid;        /* process, for correlation; -1 when unknown (CSV GPU rows) */
    uint8_t kind;
    uint8_t has_detail;
} gf_event;

typedef struct gf_lane {
    uint8_t kind;     /* GF_LANE_* */
    uint8_t sync;     /* GPU lane holding synchronization events */
    uint8_t proj;     /* GPU lane holding the NVTX ranges of one thread projected onto the device (trace_proj.c) */
    uint8_t sub;      /* CPU lanes: GF_SUB_* (calls, samples, running); 0 for the others */
    int64_t pid, tid; /* CPU and NVTX lanes; -1 when unknown */
    int32_t device;   /* strtab id of "NVIDIA A10G (0)"; -1 when unknown */
    int64_t devnum;   /* numeric device id for ordering; -1 when unknown */
    int64_t stream;   /* -1 when unknown */
    int32_t tname;    /* thread name (strtab id) or -1 */
    int32_t label;    /* strtab id, set by gf_trace_finish */
    int32_t rank;     /* index into gf_trace.rank_label (merged multi-report traces), -1 = none */
} gf_lane;

/* Rows of the export that are not timeline events, kept for the findings rules (core/trace_findings.c). */
typedef struct gf_overhead { /* PROFILER_OVERHEAD */
    int64_t start, end;
    int32_t pid, tid, name; /* name: strtab id */
    uint32_t seq;
} gf_overhead;

typedef struct gf_graph_exec { /* CUPTI_ACTIVITY_KIND_GRAPH_TRACE: a whole graph traced as one range */
    int64_t start, end, corr, graph, graph_exec;
    int32_t pid, device, context;
    int64_t stream;
} gf_graph_exec;

/* tables of the export (present, possibly empty): nsys's rules skip an input that lacks theirs */
enum {
    GF_TABLE_RUNTIME = 1u << 0,
    GF_TABLE_KERNEL = 1u << 1,
    GF_TABLE_MEMCPY = 1u << 2,
    GF_TABLE_MEMSET = 1u << 3,
    GF_TABLE_OVERHEAD = 1u << 4,
    GF_TABLE_NVTX = 1u << 5,
    GF_TABLE_GRAPH_TRACE = 1u << 6,
    GF_TABLE_SYNC = 1u << 7,
    GF_TABLE_VULKAN = 1u << 8, /* VULKAN_WORKLOAD, OPENGL_WORKLOAD, DX12_WORKLOAD: GPU work gpuflame */
    GF_TABLE_OPENGL = 1u << 9, /* does not import (the GPU rules say so) */
    GF_TABLE_DX12 = 1u << 10,
    GF_TABLE_KNOWN = 1u << 31, /* the importer probed tables (SQLite); CSV inputs leave it clear */
};

typedef struct gf_flame_entry {
    int32_t stack, leaf; /* leaf: kernel (or API) name */
    int gpu;             /* 1: leaf is GPU work; 0: a launch without GPU partner (API duration) */
    int64_t weight;      /* ns */
} gf_flame_entry;

typedef struct gf_trace {
    gf_strtab *str;
    /* events, struct-of-arrays, sorted by start after finish */
    size_t n;
    int64_t *start, *dur, *corr;
    int32_t *lane, *name, *stack, *pid, *detail;
    uint8_t *kind;
    uint32_t *seq; /* import order: within a kind, the order of the rows in the export's table */
    gf_detail *details;
    size_t ndetails;
    /* lanes, in display order after finish: CPU (pid, tid), GPU (device, stream), NVTX (pid, tid) */
    gf_lane *lanes;
    size_t nlanes, lanes_cap;
    /* launch stacks: frames[stack_off[s] .. stack_off[s+1]) innermost first (strtab ids) */
    int32_t *frames;
    size_t nframes, frames_cap;
    size_t *stack_off; /* nstacks + 1 entries */
    size_t nstacks, stacks_cap;
    /* aggregate launch-stack flamegraph over all imported events (before trimming) */
    gf_flame_entry *flame;
    size_t nflame;
    /* counts over every imported event (before trimming) and per kind */
    uint64_t total, total_kind[GF_EV_NKINDS];
    uint64_t launches_with_stack;
    char **warnings;
    size_t nwarnings;
    char *source; /* input file name (basename) */
    char *clock;  /* several reports: how their clocks were aligned (a sentence the outputs state), or NULL */
    /* ranks (merged traces, trace_ranks.c): rank_label[r] is a strtab id; lanes are grouped by rank */
    int32_t *rank_label;
    size_t nranks;
    /* for the findings rules (SQLite exports) */
    gf_hmap raw_names;       /* API name id → the name its first call was recorded under (cudaMemcpy_v3020) */
    gf_hmap raw_by_seq;      /* API event seq → its recorded name, where that is not raw_names' (trace_rawnames.c) */
    gf_hmap nvtx_group;      /* NVTX name id → the id of its grouped name (policy nvtx.group; trace_nvtx_group.c) */
    gf_overhead *overhead;   /* PROFILER_OVERHEAD rows, in table order */
    size_t noverhead, overhead_cap;
    gf_graph_exec *graph_execs;
    size_t ngraph_execs, graph_execs_cap;
    uint32_t tables;         /* GF_TABLE_* */
    int finished;
    /* SQLite imports: every RUNTIME, KERNEL, MEMCPY and MEMSET row is an event holding what the NVTX projection
     * joins on (no NULL there, no end before its start, plain globalPids, device ids 0..65535) and their
     * globalTid / globalPid bits 48 and up are all gid_hi (one host), so trace_proj.c can take the calls from
     * the events themselves */
    uint8_t calls_exact;
    int64_t gid_hi;
    /* ... and its NVTX ranges, read in table order (trace_sqlite_nvtx.c) as the projection reads them (no NULL
     * start, end, thread or text, no end before its start; one globalTid prefix gid_hi; domains named once):
     * the range that arrived as event seq nvtx_seq0 + k is row nvtx_rowid[k] of NVTX_EVENTS (UINT32_MAX:
     * ended on another thread, not projected). NULL when they are not so known. */
    uint32_t *nvtx_rowid;
    size_t nvtx_seq0, nvtx_nrid;
    int any_pid; /* GPU events carry no pid (CSV): a launch is also found by correlation id alone */
    struct gf_trace_build *b; /* builder state, NULL after finish */
} gf_trace;

gf_trace *gf_trace_new(void);
void gf_trace_free(gf_trace *t);
/* Starts building: max_events 0 keeps everything. */
int gf_trace_begin(gf_trace *t, size_t max_events, int keep_partners, gf_err *err);
/* Finds or adds a lane; returns its index or -1 (err filled). device: strtab id or -1. sync: on a GPU lane
 * 1 for the synchronization lane; on a CPU lane the thread's sub-lane (GF_SUB_*); ignored on NVTX lanes. */
int32_t gf_trace_lane(gf_trace *t, int kind, int sync, int64_t pid, int64_t tid, int32_t device, int64_t devnum,
                      int64_t stream, gf_err *err);
/* The same for a lane of one rank (merged traces): lanes of different ranks never merge. */
int32_t gf_trace_lane_ranked(gf_trace *t, int32_t rank, int kind, int sync, int64_t pid, int64_t tid, int32_t device,
                             int64_t devnum, int64_t stream, gf_err *err);
/* The sync argument that makes lane l again (gf_trace_lane_ranked of a merge). */
static inline int gf_lane_variant(const gf_lane *l)
{
    return l->kind == GF_LANE_GPU ? l->sync : l->sub;
}
void gf_trace_lane_set_thread_name(gf_trace *t, int32_t lane, int32_t tname);
/* Finds or adds a stack (frame strtab ids, innermost first); returns its id or -1 on OOM. */
int32_t gf_trace_stack(gf_trace *t, const int32_t *frames, size_t n);
/* Room for n events in all (a hint: when the count is known in advance, as in a merge, the columns are
 * sized once and mapped in one go instead of doubling). Bounded builds reserve at most their max. */
int gf_trace_reserve(gf_trace *t, size_t n, gf_err *err);
/* gf_trace_reserve whose new room is offered huge pages but not mapped: its spans are added to *later
 * (mem.h; later->n set by the caller), for the caller to map, e.g. on a thread beside the import. */
struct gf_mem_populator;
int gf_trace_reserve_later(gf_trace *t, size_t n, struct gf_mem_populator *later, gf_err *err);
/* Adds one event (d may be NULL). */
int gf_trace_add(gf_trace *t, const gf_event *e, const gf_detail *d, gf_err *err);
/* Importers that read a table out of the model's arrival order (trace_sqlite_nvtx.c): in a keep-all build
 * (gf_trace_keeps_all) the events added since `from` (gf_trace_added before them) are still the builder's
 * columns, which the importer may rewrite in place (t->start[i] ... for from <= i < gf_trace_added(t));
 * gf_trace_reorder_added puts them in the order ord (ord[k] = the old offset from `from` of the k-th; seq
 * keeps arrival order, so they count as having arrived sorted), gf_trace_set_added_detail gives event i
 * its details (interned as gf_trace_add would), gf_trace_drop_added forgets them (counts included). */
int gf_trace_keeps_all(const gf_trace *t);
/* 0 when a bounded build is full and an event of this duration would be dropped by gf_trace_add (its
 * detail is then never read: importers may skip parsing it); 1 otherwise. */
int gf_trace_may_keep(const gf_trace *t, int64_t dur);
size_t gf_trace_added(const gf_trace *t);
int gf_trace_reorder_added(gf_trace *t, size_t from, const uint32_t *ord, gf_err *err);
int gf_trace_set_added_detail(gf_trace *t, size_t i, const gf_detail *d, gf_err *err);
void gf_trace_drop_added(gf_trace *t, size_t from);
/* A merge of digests (trace_digest.h): gf_trace_add no longer counts events, remembers launches or inherits
 * stacks; the caller sets total, total_kind and launches_with_stack, and gives the launch flame's entries
 * with gf_trace_add_flame (weights of equal (stack, leaf, gpu) are summed). Call right after begin. */
void gf_trace_set_given(gf_trace *t);
int gf_trace_add_flame(gf_trace *t, int32_t stack, int32_t leaf, int gpu, int64_t weight);
/* After all events: 1 when keep_partners is on and some kept GPU work lacks its launch; the importer
 * then offers the CUDA API events again through gf_trace_add_partner, which keeps only those wanted. */
int gf_trace_partner_pass_needed(gf_trace *t);
int gf_trace_add_partner(gf_trace *t, const gf_event *e, gf_err *err);
/* Single-pass alternative for imports that read GPU work before the CUDA API calls (CSV: no stacks to
 * inherit): after the GPU events, call this; the API events added afterwards that launched a GPU event
 * still in the heap are set aside (at most max_events of them) and kept at finish when their GPU event
 * survived. Returns 0 or -1 (OOM). */
int gf_trace_collect_partners(gf_trace *t, gf_err *err);
/* Sorts by start, builds the arrays and lane labels. */
int gf_trace_finish(gf_trace *t, gf_err *err);
int gf_trace_warn(gf_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gf_trace_set_source(gf_trace *t, const char *path);
/* seq of the event the last gf_trace_add took (kept or not), -1 before any; only while building. */
int64_t gf_trace_last_seq(const gf_trace *t);
/* Recorded API names (core/trace_rawnames.c). Events carry the display name (cudaMemcpy), the rules print
 * the StringIds value (cudaMemcpy_v3020), and one export may hold both for one display name (nsys 2022.2
 * with --cudabacktrace: two RUNTIME rows per call, one of each). Called after gf_trace_add of an API
 * event with the name it was recorded under: the first call of a display name sets raw_names, a later
 * one recorded under another name gets its own entry by seq. */
int gf_trace_note_raw_name(gf_trace *t, int32_t name, int32_t raw);
/* The name of display name's first call (name itself when none was noted). */
int32_t gf_trace_raw_name(const gf_trace *t, int32_t name);
/* The name event i was recorded under. */
int32_t gf_trace_event_raw_name(const gf_trace *t, size_t i);

/* NVTX names grouped by policy (core/trace_nvtx_group.c; the patterns are decided in Lua, policy nvtx.group).
 * gf_trace_nvtx_name_ids: the distinct name ids of the NVTX events (malloc'd, ascending). gf_trace_set_nvtx_group:
 * raw[k] is shown as text[k] (len[k] bytes, interned) in gpuflame's own views; replaces any earlier map.
 * gf_trace_nvtx_group: the id an NVTX name is shown under (itself when not grouped). */
int gf_trace_nvtx_name_ids(const gf_trace *t, int32_t **ids, size_t *n, gf_err *err);
int gf_trace_set_nvtx_group(gf_trace *t, const int32_t *raw, const char *const *text, const size_t *len, size_t n,
                            gf_err *err);
static inline int32_t gf_trace_nvtx_group(const gf_trace *t, int32_t name)
{
    if (!t->nvtx_group.n)
        return name;
    int64_t *v = gf_hmap_get(&t->nvtx_group, (uint64_t)(uint32_t)name);
    return v ? (int32_t)*v : name;
}
int gf_trace_add_overhead(gf_trace *t, const gf_overhead *o);
int gf_trace_add_graph_exec(gf_trace *t, const gf_graph_exec *g);

/* The trimming primitive: marks in keep[] the k largest of dur[0..n) (ties: lower index wins) with a
 * min-heap of k entries: O(n log k) time, O(k) extra memory. Returns the number kept, -1 on OOM. */
long gf_topn_select(const int64_t *dur, size_t n, size_t k, uint8_t *keep);
/* Trims a finished trace to the max_events longest events (plus launch partners of kept GPU work
 * when keep_partners), keeping start order. total/total_kind stay those of the import. The details end up
 * in event order whether or not anything was dropped, so a trace imported whole and trimmed writes the
 * same timeline JSON as one trimmed while importing (the timeline runs the findings on the whole trace). */
int gf_trace_trim(gf_trace *t, size_t max_events, int keep_partners, gf_err *err);

/* Correlation: for each event the index of its partner (launch ↔ GPU work, same process), or -1. 4 bytes an
 * event (a trace of more than INT32_MAX events is refused with an error, not wrapped). */
int gf_trace_partners(const gf_trace *t, int32_t **partner, gf_err *err);

/* The NVTX ranges of the SQLite export at sqlite_path projected onto the GPU (nsys's nvtx_gpu_proj_trace,
 * core/stats_nvtx_proj.c) added to a finished trace as NVTX events on lanes of their own (proj set), one
 * per (device, launching thread), each placed after its device's streams: a range spans its first to last
 * GPU op; its device is that of its first op; seq holds its RangeId. max > 0 keeps the max longest.
 * Nothing is added to merged traces (ranks) or when the export has no NVTX or CUDA data. The CUDA calls,
 * their GPU work and the ranges are taken from t itself when it holds the export's rows exactly
 * (calls_exact, nvtx_rowid; nothing trimmed), else read from the export. *added: the count. 0, or -1 with
 * err. */
int gf_trace_add_nvtx_proj(gf_trace *t, const char *sqlite_path, size_t max, size_t *added, gf_err *err);
/* The same in two calls, the projection computed on a thread of its own in between (core/trace_proj_job.c):
 * start reads t on that thread and the caller must not change t (nor free it) until finish, which joins the
 * thread and merges the events into t as gf_trace_add_nvtx_proj would (the same events, lanes and string
 * ids). Start fails only for want of memory; the projection's errors come from finish. A job not finished
 * is joined by gf_trace_nvtx_proj_job_free, which frees any job (NULL too); finish does not free it. */
typedef struct gf_nvtx_proj_job gf_nvtx_proj_job;
gf_nvtx_proj_job *gf_trace_nvtx_proj_start(const gf_trace *t, const char *sqlite_path, size_t max, gf_err *err);
int gf_trace_nvtx_proj_finish(gf_trace *t, gf_nvtx_proj_job *job, size_t *added, gf_err *err);
void gf_trace_nvtx_proj_job_free(gf_nvtx_proj_job *job);
/* After finish: the read half's wall time on its thread, and how long finish waited for it (seconds). */
void gf_trace_nvtx_proj_times(const gf_nvtx_proj_job *job, double *read_s, double *wait_s);

/* Writers (trace_json.c). The timeline JSON follows docs/TIMELINE_DATA.md (compact, script-safe). */
typedef struct gf_timeline_opts {
    const char *title; /* NULL: "" (the title is a policy decision: timeline.title) */
    double flame_min_fraction; /* launchFlame: fold subtrees lighter than this share of the total (0 = keep all) */
    const char *initial_view;  /* "initialView" of the page (policy timeline.initial_view); NULL: not written */
    int compress;              /* event columns raw-DEFLATE compressed (policy timeline.compress) */
    int64_t view_events;       /* busiest opening view: this many median GPU-work events wide (policy) */
    int64_t preview_min_events; /* pages with at least this many events carry a preview (0: never) */
    int threads;               /* threads the writer may use (threads.h: 0 = one per CPU, 1 = this one) */
} gf_timeline_opts;
/* The page's data; with initial_view set it has "view", the opening window (trace_view.h). */
int gf_trace_write_timeline_json(const gf_trace *t, FILE *out, const gf_timeline_opts *o, gf_err *err);
/* The page's preview: the same head (lanes, view) with only the events the opening view shows, written
 * uncompressed before the page's code so that the first frame is drawn while the rest is still loading
 * (docs/TIMELINE_DATA.md "Preview"); `null` for pages under preview_min_events, without initial_view, or
 * whose opening view holds more than half of the events ("full"). */
int gf_trace_write_timeline_preview_json(const gf_trace *t, FILE *out, const gf_timeline_opts *o, gf_err *err);
/* Chrome Trace Event JSON (Perfetto, chrome://tracing) with ac2g flow events. */
int gf_trace_write_chrome(const gf_trace *t, FILE *out, gf_err *err);
/* Folded launch stacks: "root;...;inner;kernel_[G] weight_ns" lines (from the aggregate flame). */
int gf_trace_write_launch_folded(const gf_trace *t, FILE *out, gf_err *err);
/* The same launch stacks added to a collapse table (frames as the folded writer names them: ';' → ':');
 * gpu_only keeps the stacks whose leaf is GPU work (kernel_[G]). */
struct gf_stacks;
int gf_trace_launch_stacks(const gf_trace *t, struct gf_stacks *s, int gpu_only, gf_err *err);

#endif
