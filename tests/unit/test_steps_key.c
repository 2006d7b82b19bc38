/* The key of a trace's NVTX ranges (core/trace_steps.c gf_steps_ranges_key), which gpuflame.steps.find's memo
 * compares: the same at 1 and 2 threads on a trace big enough to be split (the halves' sums added); unchanged by
 * kernels and by marks; changed by one range's end moved, wherever that range lies; the same for the same ranges
 * added in the opposite order. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "trace.h"
#include "trace_build.h"
#include "trace_steps.h"

enum { NRANGES = 200000, NKERNELS = 200000 }; /* 400,000 events: over the key's split minimum (65,536) */

/* ranges on two threads' NVTX lanes and kernels interleaved with them; every 1,000th range a mark; the range
 * numbered `moved` (-1: none) ends 1 ns later; reversed: added in the opposite order */
static gf_trace *build(long moved, int reversed)
{
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_trace_begin(t, 0, 0, &err);
    int32_t gpu = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU (0)"), 0, 7, &err);
    int32_t nv[2] = {gf_trace_lane(t, GF_LANE_NVTX, 0, 1, 1, -1, -1, -1, &err),
                     gf_trace_lane(t, GF_LANE_NVTX, 0, 1, 2, -1, -1, -1, &err)};
    int32_t k = gf_strtab_intern_cstr(t->str, "k"), r = gf_strtab_intern_cstr(t->str, "step");
    gf_detail range, mark;
    memset(&range, 0xff, sizeof range);
    memset(&mark, 0xff, sizeof mark);
    range.nvtx_level = 0;
    mark.nvtx_level = GF_NVTX_MARK;
    for (long j = 0; j < NRANGES; j++) {
        long i = reversed ? NRANGES - 1 - j : j;
        gf_event e = {.start = i * 1000, .dur = 900 + (i == moved), .corr = -1, .lane = nv[i % 2], .name = r,
                      .stack = -1, .pid = 1, .kind = GF_EV_NVTX};
        gf_trace_add(t, &e, i % 1000 == 7 ? &mark : &range, &err);
        gf_event g = {.start = i * 1000 + 10, .dur = 500, .corr = -1, .lane = gpu, .name = k, .stack = -1, .pid = 1,
                      .kind = GF_EV_KERNEL};
        gf_trace_add(t, &g, NULL, &err);
    }
    gf_trace_finish(t, &err);
    return t;
}

int main(void)
{
    gf_trace *t = build(-1, 0);
    CHECK("the trace holds the ranges, marks and kernels", t->n == NRANGES + NKERNELS);
    uint64_t k1 = gf_steps_ranges_key(t, 1), k2 = gf_steps_ranges_key(t, 2);
    CHECK("the same key at 1 and 2 threads", k1 == k2);
    gf_trace *r = build(-1, 1);
    CHECK("the same ranges added in reverse: the same key", gf_steps_ranges_key(r, 2) == k1);
    gf_trace_free(r);
    /* a range in the first half of the events, one in the second half, and the last: each changes the key */
    static const long moved[] = {3, NRANGES / 2 + 11, NRANGES - 1};
    for (size_t m = 0; m < sizeof moved / sizeof *moved; m++) {
        gf_trace *c = build(moved[m], 0);
        char name[96];
        snprintf(name, sizeof name, "range %ld ends 1 ns later: another key, the same at 1 and 2 threads", moved[m]);
        uint64_t c1 = gf_steps_ranges_key(c, 1);
        CHECK(name, c1 != k1 && gf_steps_ranges_key(c, 2) == c1);
        gf_trace_free(c);
    }
    gf_trace *mk = build(7, 0); /* range 7 is a mark: not a range, its end is not in the key */
    CHECK("a mark's end moved: the same key", gf_steps_ranges_key(mk, 2) == k1);
    gf_trace_free(mk);
    gf_trace_free(t);
    return tap_done();
}
