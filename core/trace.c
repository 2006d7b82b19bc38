/* The Trace model (trace.h): creating and freeing a trace, warnings, the source name, and the export's
 * rows that are not timeline events (profiler overhead, graph executions). The builder is trace_build.c,
 * trimming a finished trace trace_trim.c. */
#include "trace.h"
#include "mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_build.h"

const char *const gf_ev_kind_names[GF_EV_NKINDS] = {"cuda_api", "kernel", "memcpy", "memset", "sync", "nvtx",
                                                      "osrt", "cpu_sample", "cpu_running"};
const char *const gf_lane_kind_names[3] = {"cpu", "gpu", "nvtx"};

void gf_detail_clear(gf_detail *d)
{
    for (int i = 0; i < 3; i++)
        d->grid[i] = d->block[i] = -1;
    d->regs = d->copy = d->domain = d->nvtx_level = -1;
    d->bytes = d->smem_static = d->smem_dynamic = -1;
    d->graph_node = d->graph = -1;
    d->context = d->src_dev = d->dst_dev = -1;
    d->copy_kind = d->src_kind = d->dst_kind = d->mem_kind = -1;
}

gf_trace *gf_trace_new(void)
{
    gf_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->str = gf_strtab_new();
    t->stack_off = malloc(sizeof *t->stack_off * 16);
    if (!t->str || !t->stack_off) {
        gf_strtab_free(t->str);
        free(t->stack_off);
        free(t);
        return NULL;
    }
    t->stacks_cap = 15;
    t->stack_off[0] = 0;
    return t;
}

void gf_trace_free_events(gf_trace *t)
{
    free(t->start);
    free(t->dur);
    free(t->corr);
    free(t->lane);
    free(t->name);
    free(t->stack);
    free(t->pid);
    free(t->detail);
    free(t->kind);
    free(t->seq);
    free(t->nvtx_rowid);
    free(t->details);
    t->seq = NULL;
    t->start = t->dur = t->corr = NULL;
    t->lane = t->name = t->stack = t->pid = t->detail = NULL;
    t->kind = NULL;
    t->details = NULL;
    t->n = t->ndetails = 0;
}

void gf_trace_free(gf_trace *t)
{
    if (!t)
        return;
    gf_trace_build_free(t->b);
    gf_trace_free_events(t);
    free(t->lanes);
    free(t->frames);
    free(t->stack_off);
    free(t->flame);
    for (size_t i = 0; i < t->nwarnings; i++)
        free(t->warnings[i]);
    free(t->warnings);
    free(t->source);
    free(t->clock);
    free(t->rank_label);
    gf_hmap_free(&t->raw_names);
    gf_hmap_free(&t->raw_by_seq);
    free(t->overhead);
    free(t->graph_execs);
    gf_strtab_free(t->str);
    free(t);
}

int gf_trace_warn(gf_trace *t, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < t->nwarnings; i++)
        if (strcmp(t->warnings[i], buf) == 0)
            return 0;
    if (GF_RESIZE(t->warnings, t->nwarnings + 1) != 0)
        return -1;
    if (!(t->warnings[t->nwarnings] = strdup(buf)))
        return -1;
    t->nwarnings++;
    return 0;
}

int gf_trace_set_source(gf_trace *t, const char *path)
{
    const char *slash = strrchr(path, '/');
    free(t->source);
    t->source = strdup(slash ? slash + 1 : path);
    return t->source ? 0 : -1;
}

int gf_trace_add_overhead(gf_trace *t, const gf_overhead *o)
{
    if (grow((void **)&t->overhead, &t->overhead_cap, t->noverhead + 1, sizeof *t->overhead) != 0)
        return -1;
    t->overhead[t->noverhead++] = *o;
    return 0;
}

int gf_trace_add_graph_exec(gf_trace *t, const gf_graph_exec *g)
{
    if (grow((void **)&t->graph_execs, &t->graph_execs_cap, t->ngraph_execs + 1, sizeof *t->graph_execs) != 0)
        return -1;
    t->graph_execs[t->ngraph_execs++] = *g;
    return 0;
}
