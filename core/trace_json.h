/* Writers of a finished trace (core/trace_json.c): the timeline page's data, Chrome Trace JSON, folded
 * launch stacks. */
#ifndef GF_TRACE_JSON_H
#define GF_TRACE_JSON_H

#include <stdio.h>

#include "trace_types.h"

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
/* The same two, begun before the page's template is rendered (gf_trace_timeline_begin: the maps, the events'
 * rows and the opening view found once, and the event columns compressing on limits.threads - 1 workers
 * from then on); then the preview (any number of times) and the data (once), and gf_trace_timeline_free
 * (stops the workers of a page whose data was never written). The trace must not change meanwhile. */
typedef struct gf_timeline_page gf_timeline_page;
int gf_trace_timeline_begin(const gf_trace *t, const gf_timeline_opts *o, gf_timeline_page **page, gf_err *err);
int gf_trace_timeline_write_preview(const gf_trace *t, const gf_timeline_page *page, FILE *out,
                                    const gf_timeline_opts *o, gf_err *err);
int gf_trace_timeline_write(const gf_trace *t, gf_timeline_page *page, FILE *out, const gf_timeline_opts *o,
                            gf_err *err);
void gf_trace_timeline_free(gf_timeline_page *page);
/* Chrome Trace Event JSON (Perfetto, chrome://tracing) with ac2g flow events. */
int gf_trace_write_chrome(const gf_trace *t, FILE *out, gf_err *err);
/* Folded launch stacks: "root;...;inner;kernel_[G] weight_ns" lines (from the aggregate flame). */
int gf_trace_write_launch_folded(const gf_trace *t, FILE *out, gf_err *err);
/* The same launch stacks added to a collapse table (frames as the folded writer names them: ';' → ':');
 * gpu_only keeps the stacks whose leaf is GPU work (kernel_[G]). */
struct gf_stacks;
int gf_trace_launch_stacks(const gf_trace *t, struct gf_stacks *s, int gpu_only, gf_err *err);

#endif
