/* The Trace model's types (the trace_* family's shared vocabulary): event kinds, lanes, per-event details,
 * the export's other rows and the model itself (gf_trace), struct-of-arrays with interned strings, lanes,
 * per-event details, a deduplicated launch-stack table and the aggregate launch-stack flamegraph. It includes
 * nothing of the family: each file of the family declares its own API in its own header (trace.h: the model's
 * life and queries; trace_build.h: building; trace_trim.h, trace_rawnames.h, trace_proj.h, trace_json.h, ...). */
#ifndef GF_TRACE_TYPES_H
#define GF_TRACE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "strtab.h"

/* The CPU side (issue 25, core/sqlite_cpu.c): OS runtime calls (OSRT_API) on their thread's lane, CPU samples
 * (COMPOSITE_EVENTS, dur 0, stack = the sampled callchain) and the thread's running intervals (SCHED_EVENTS)
 * on the thread's sub-lanes (gf_lane.sub). */
enum { GF_EV_API = 0, GF_EV_KERNEL, GF_EV_MEMCPY, GF_EV_MEMSET, GF_EV_SYNC, GF_EV_NVTX,
       GF_EV_OSRT, GF_EV_SAMPLE, GF_EV_RUNNING, GF_EV_NKINDS };
/* sub-lanes of a CPU thread (gf_lane.sub): its calls, its CPU samples, its running intervals */
enum { GF_SUB_CALLS = 0, GF_SUB_SAMPLES, GF_SUB_RUNNING };
enum { GF_LANE_CPU = 0, GF_LANE_GPU, GF_LANE_NVTX };

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

/* An NVTX mark (NVTX_EVENTS eventType 34, a point in time): an NVTX event of duration 0 whose detail's
 * nvtx_level is GF_NVTX_MARK (gf_ev_is_nvtx_mark, trace.h). Drawn and exported like a range; never a range to
 * the rules, the iterations of rank-skew, the NVTX opening view, the flamegraph's NVTX frames or the
 * projection onto the GPU. */
#define GF_NVTX_MARK (-2)

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
    /* 1: the events are in arrival order, not by start (gf_trace_set_unordered, a narrow import's for a page):
     * only gf_trace_gpu_stacks without step or per-event stacks reads such a trace */
    uint8_t unordered;
    struct gf_trace_build *b; /* builder state (trace_build.c), NULL after finish */
    void (*b_free)(struct gf_trace_build *b); /* frees b: set by the builder, called by gf_trace_free */
} gf_trace;

/* The sync argument that makes lane l again (gf_trace_lane_ranked of a merge). */
static inline int gf_lane_variant(const gf_lane *l)
{
    return l->kind == GF_LANE_GPU ? l->sync : l->sub;
}
#endif
