/* The timeline page's opening window (core/trace_view.c): busiest GPU window, first outermost NVTX range,
 * full span, and the NVTX rows a lane needs. */
#include <string.h>

#include "tap.h"
#include "trace.h"
#include "trace_view.h"
#include "trace_build.h"

/* A finished trace: kernels of 1 µs every 100 µs over 100 ms, then a burst of 200 back-to-back 1 µs kernels
 * at 60 ms; NVTX: an inner range (level 1) at 5 ms, then outermost ranges at 10 ms and 20 ms. */
static gf_trace *build(void)
{
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_trace_begin(t, 0, 0, &err);
    int32_t gpu = gf_trace_lane(t, GF_LANE_GPU, 0, -1, -1, gf_strtab_intern_cstr(t->str, "GPU (0)"), 0, 7, &err);
    int32_t nv = gf_trace_lane(t, GF_LANE_NVTX, 0, 1, 1, -1, -1, -1, &err);
    int32_t k = gf_strtab_intern_cstr(t->str, "k"), r = gf_strtab_intern_cstr(t->str, "r");
    for (int64_t s = 0; s < 100000000; s += 100000) {
        gf_event e = {.start = s, .dur = 1000, .corr = -1, .lane = gpu, .name = k, .stack = -1, .pid = 1, .kind = GF_EV_KERNEL};
        gf_trace_add(t, &e, NULL, &err);
    }
    for (int i = 0; i < 200; i++) {
        gf_event e = {.start = 60000000 + 10 + i * 1000, .dur = 1000, .corr = -1, .lane = gpu, .name = k, .stack = -1,
                      .pid = 1, .kind = GF_EV_KERNEL};
        gf_trace_add(t, &e, NULL, &err);
    }
    gf_detail inner, outer;
    memset(&inner, 0xff, sizeof inner);
    memset(&outer, 0xff, sizeof outer);
    inner.nvtx_level = 1;
    outer.nvtx_level = 0;
    gf_event in = {.start = 5000000, .dur = 1000000, .corr = -1, .lane = nv, .name = r, .stack = -1, .pid = 1, .kind = GF_EV_NVTX};
    gf_trace_add(t, &in, &inner, &err);
    gf_event o1 = {.start = 10000000, .dur = 2000000, .corr = -1, .lane = nv, .name = r, .stack = -1, .pid = 1, .kind = GF_EV_NVTX};
    gf_trace_add(t, &o1, &outer, &err);
    gf_event o2 = {.start = 20000000, .dur = 2000000, .corr = -1, .lane = nv, .name = r, .stack = -1, .pid = 1, .kind = GF_EV_NVTX};
    gf_trace_add(t, &o2, &outer, &err);
    gf_trace_finish(t, &err);
    return t;
}

int main(void)
{
    gf_trace *t = build();
    int64_t span = 100000000 - 100000 + 1000; /* last kernel's end; t0 = 0 */
    double vs, ve;

    CHECK("full: the whole span", gf_trace_opening_view(t, "full", 200, 0, span, &vs, &ve) == 0 && vs == 0 && ve == (double)span);

    /* median kernel 1 µs: 200 of them are 200 µs, and the burst at 60 ms holds the most kernel time */
    CHECK("busiest: 200 median events wide", gf_trace_opening_view(t, "busiest", 200, 0, span, &vs, &ve) == 0 &&
                                                    ve - vs == 200000.0);
    /* the window from the periodic kernel at 60 ms holds it, the 200 burst kernels and the periodic ones at
     * 60.1 and 60.2 ms (203 µs): more than the one from the burst's first kernel (201 µs) */
    CHECK("busiest: on the burst, starting 2 % of the width before the window's first kernel",
          vs == 60000000 - 4000.0);
    CHECK("busiest: a window as wide as the capture is the whole capture",
          gf_trace_opening_view(t, "busiest", 1000000, 0, span, &vs, &ve) == 0 && vs == 0 && ve == (double)span);

    /* nvtx: the first range of level 0, padded by 2 % (at least 500 ns) on each side */
    CHECK("nvtx: the first outermost range, not the earlier nested one",
          gf_trace_opening_view(t, "nvtx", 200, 0, span, &vs, &ve) == 0 && vs == 10000000 - 40000.0 &&
              ve == 12000000 + 40000.0);

    size_t inner = 0;
    while (inner < t->n && !(t->kind[inner] == GF_EV_NVTX && t->start[inner] == 5000000))
        inner++;
    CHECK("an event's NVTX level comes from its detail", inner < t->n && gf_trace_event_level(t, inner) == 1);
    gf_trace_free(t);

    gf_trace *empty = gf_trace_new();
    gf_err err;
    gf_trace_begin(empty, 0, 0, &err);
    gf_trace_finish(empty, &err);
    CHECK("no events: the whole (1 ns) span", gf_trace_opening_view(empty, "busiest", 200, 0, 1, &vs, &ve) == 0 &&
                                                  vs == 0 && ve == 1);
    gf_trace_free(empty);
    return tap_done();
}
