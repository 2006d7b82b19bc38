/* The collapse table: stacks of interned frames with int64 weights, identical stacks aggregated,
 * first-seen order kept. Reads and writes the folded format of flamegraph.pl / inferno / speedscope:
 *
 *   frame1;frame2;...;leaf COUNT        (COUNT after the LAST space; ';' inside a frame becomes ',')
 *
 * with an optional first line "# {json metadata}". Writes the flamegraph page data (a merged call tree)
 * and speedscope's file format. */
#ifndef GF_STACKS_H
#define GF_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gf_err.h"

typedef struct gf_stacks gf_stacks;
struct gf_csv;

gf_stacks *gf_stacks_new(void);
void gf_stacks_free(gf_stacks *s);

/* Interns a frame name (';' → ',', CR/LF → ' '); returns its id or UINT32_MAX when out of memory. */
uint32_t gf_stacks_intern(gf_stacks *s, const char *name, size_t len);
const char *gf_stacks_frame(const gf_stacks *s, uint32_t id, size_t *len);
/* Adds weight to the stack of frame ids (outermost first); identical stacks are merged. */
int gf_stacks_add_ids(gf_stacks *s, const uint32_t *ids, size_t depth, int64_t weight, gf_err *err);
/* Same, and *index (if not NULL) receives the stack's index (insertion order, see gf_stacks_get). */
int gf_stacks_add_ids_at(gf_stacks *s, const uint32_t *ids, size_t depth, int64_t weight, size_t *index,
                         gf_err *err);
/* Room for more_stacks stacks more, of more_ids frame ids in all, without a rehash or a move on the way (0, or -1
 * on OOM). */
int gf_stacks_reserve(gf_stacks *s, size_t more_stacks, size_t more_ids);
/* Starts fetching the table slot of the stack of frame ids, for a gf_stacks_add_hashed of it to come; returns the
 * stack's hash for that add (a batch of adds then hashes each stack once). */
uint64_t gf_stacks_prefetch(const gf_stacks *s, const uint32_t *ids, size_t depth);
/* gf_stacks_add_ids_at with the stack's hash from gf_stacks_prefetch. */
int gf_stacks_add_hashed(gf_stacks *s, const uint32_t *ids, size_t depth, uint64_t hash, int64_t weight,
                         size_t *index, gf_err *err);
/* Adds "prefix;leaf" where prefix is a ';'-separated frame list (may be empty). */
int gf_stacks_add_prefixed(gf_stacks *s, const char *prefix, const char *leaf, size_t leaf_len, int64_t weight,
                           gf_err *err);

size_t gf_stacks_count(const gf_stacks *s);   /* unique stacks */
size_t gf_stacks_nframes(const gf_stacks *s); /* unique frame names */
int64_t gf_stacks_total(const gf_stacks *s);  /* sum of weights */
size_t gf_stacks_max_depth(const gf_stacks *s);
/* Stack i (insertion order): its frame ids and weight. */
const uint32_t *gf_stacks_get(const gf_stacks *s, size_t i, size_t *depth, int64_t *weight);
/* Leaf frames (each stack's last frame), distinct, in first-seen order: (*leaves)[k] is a frame id and
 * (*sums)[k * ncols + c] the sum over the stacks ending in it of cols[c][stack] (cols == NULL: ncols is 1
 * and the stacks' own weights are summed). The caller frees both arrays. */
int gf_stacks_leaf_sums(const gf_stacks *s, const int64_t *const *cols, size_t ncols, uint32_t **leaves,
                        int64_t **sums, size_t *nleaves, gf_err *err);
/* Instances: how many events a stack's weight sums (the hierarchical GPU flamegraph counts them; folded
 * files carry none). The page data then has per-node "counts". */
void gf_stacks_add_instances(gf_stacks *s, size_t i, int64_t n);
int64_t gf_stacks_instances(const gf_stacks *s, size_t i);
int gf_stacks_has_instances(const gf_stacks *s);
/* What a frame is (per interned name: a name used at two levels keeps the kind set last); the page data
 * then has "kinds", one name of gf_frame_kind_names per frame name ("" = not set). */
enum { GF_FRAME_NONE = 0, GF_FRAME_PROCESS, GF_FRAME_RANK, GF_FRAME_DEVICE, GF_FRAME_STREAM, GF_FRAME_NVTX,
       GF_FRAME_CALLCHAIN, GF_FRAME_API, GF_FRAME_KERNEL, GF_FRAME_COPY, GF_FRAME_NOLAUNCH, GF_FRAME_NKINDS };
extern const char *const gf_frame_kind_names[GF_FRAME_NKINDS];
int gf_stacks_set_frame_kind(gf_stacks *s, uint32_t id, int kind);
int gf_stacks_frame_kind(const gf_stacks *s, uint32_t id);
int gf_stacks_has_kinds(const gf_stacks *s); /* some frame's kind was set: the page data carries "kinds" */
/* Per distinct frame of kind `kind` (first-seen order): (*frames)[k] and the weight (*sums)[2k] and
 * instances (*sums)[2k+1] of the stacks holding it, each stack once however often the frame recurs in it;
 * outside[0..1]: the weight and instances of the stacks without such a frame. The caller frees both. */
int gf_stacks_kind_sums(const gf_stacks *s, int kind, uint32_t **frames, int64_t **sums, size_t *n, int64_t outside[2],
                        gf_err *err);
/* Folds the small paths of s into out (a new, empty table): in the merged call tree (the page's), every
 * node whose total weight is under min_value and whose ancestors are not has its frame replaced by the
 * frame fold_name in all its stacks, which then merge (the small siblings of one parent become one node,
 * their subtrees merged by name); one pass, so nodes under a fold frame are not folded again. Weights,
 * instances, frame kinds and the metadata carry over; out's frames are interned in the order of s's stacks
 * sorted by frame ids (the fold frame first). st: the nodes folded and their total weight. threads
 * (gf_threads_resolve's want): with two, a large table's stacks are sorted on two threads. A table folded as
 * it was built (gf_stacks_prefold) with the same min_value and fold_name: the rest of its fold, st counting
 * both parts; nothing at or under its fold frame is folded again. */
typedef struct gf_fold_stats {
    size_t nodes;
    int64_t weight;
} gf_fold_stats;
int gf_stacks_fold(const gf_stacks *s, int64_t min_value, const char *fold_name, int threads, gf_stacks *out,
                   gf_fold_stats *st, gf_err *err);
/* A table whose stacks were folded in part as they were made (core/flame_fold.c: a page's small NVTX
 * frames, where the raw stacks would be many): frame is its fold frame, raw the distinct stacks there would
 * have been, done the nodes folded so far and their weight. raw == 0: none (every table at first). */
typedef struct gf_stacks_prefold {
    uint32_t frame;
    size_t raw;
    gf_fold_stats done;
} gf_stacks_prefold;
void gf_stacks_set_prefold(gf_stacks *s, const gf_stacks_prefold *p);
const gf_stacks_prefold *gf_stacks_get_prefold(const gf_stacks *s); /* NULL: none */
/* Metadata line (the JSON after "# " on a folded file's first line), or NULL. */
const char *gf_stacks_meta(const gf_stacks *s);
int gf_stacks_set_meta(gf_stacks *s, const char *json);

typedef struct gf_folded_stats {
    size_t lines;       /* lines read */
    size_t stacks;      /* stack lines accepted */
    size_t bad;         /* malformed lines skipped */
    size_t first_bad;   /* line number of the first one (0 = none) */
    char first_bad_why[96];
} gf_folded_stats;

/* Reads a folded file (blank and '#' lines skipped; a "# {" first line is kept as metadata).
 * Malformed lines (no count, count not a non-negative number, empty stack) are counted, not fatal. */
int gf_stacks_read_folded(gf_stacks *s, const char *path, gf_folded_stats *st, gf_err *err);
/* Two-column folded (difffolded.pl's "stack BEFORE AFTER"): BEFORE counts go to s, AFTER counts to s2;
 * a line without two counts is malformed. Zero counts keep the stack (weight 0). */
int gf_stacks_read_folded2(gf_stacks *s, gf_stacks *s2, const char *path, gf_folded_stats *st, gf_err *err);
/* Writes one line per stack in insertion order, each ending in '\n'; with_meta writes the "# {json}"
 * line first when metadata is set. */
int gf_stacks_write_folded(const gf_stacks *s, FILE *out, int with_meta, gf_err *err);

/* Summary CSV (cuda_gpu_kern_sum / cuda_api_sum, any era) → stacks, the reference rules
 * (docs/spec/STUDIO.md §6.5): name = field with whitespace and '"' stripped (empty → row skipped);
 * weight = max(1, (int64)strtod(value)) or 1 when it does not parse; count = max(1, weight / unit_ns);
 * stack = prefix;name. Columns are 0-based indices chosen by the caller (Lua alias tables). */
typedef struct gf_summary_stats {
    size_t rows, used, skipped_empty, unparsed_weight;
} gf_summary_stats;
int gf_stacks_from_summary_csv(gf_stacks *s, struct gf_csv *c, size_t name_col, size_t weight_col,
                               const char *prefix, int64_t unit_ns, gf_summary_stats *st, gf_err *err);
/* _ex: strict = 1 makes a weight that is not a number, negative or out of range an error (GF_EXIT_INPUT,
 * "<file>:<line>:<col> (column '<name>'): invalid number '<value>'"); 0 counts it as 1 (the reference). The
 * functions without _ex are lenient (strict = 0). */
int gf_stacks_from_summary_csv_ex(gf_stacks *s, struct gf_csv *c, size_t name_col, size_t weight_col,
                                  const char *prefix, int64_t unit_ns, int strict, gf_summary_stats *st, gf_err *err);
/* The same rows streamed straight to folded lines (no table: constant memory, input order, duplicate
 * names stay separate lines as in the reference; folded readers sum them). */
int gf_summary_csv_write_folded(struct gf_csv *c, size_t name_col, size_t weight_col, const char *prefix,
                                int64_t unit_ns, FILE *out, gf_summary_stats *st, gf_err *err);
int gf_summary_csv_write_folded_ex(struct gf_csv *c, size_t name_col, size_t weight_col, const char *prefix,
                                   int64_t unit_ns, int strict, FILE *out, gf_summary_stats *st, gf_err *err);
/* count = max(1, total_ns / unit_ns) for one (name, total) pair; name cleaned like the CSV path. */
int gf_stacks_add_total(gf_stacks *s, const char *prefix, const char *name, size_t len, int64_t total_ns,
                        int64_t unit_ns, gf_err *err);

/* Flamegraph page data: {"total":N,"names":[...],"nodes":[name,value,depth,...]} where nodes are the
 * merged call tree in pre-order (children sorted by name, like flamegraph.pl), the root excluded, and names
 * the frames the nodes use, in the order the nodes first use them (the data depends on the tree alone); plus
 * "counts" (instances per node) and "kinds" (per name) when the table has them.
 * Script-safe JSON (core/jsonout.h). */
int gf_stacks_write_tree_json(const gf_stacks *s, FILE *out, gf_err *err);
/* The names of frames ids[0..n) as JSON strings, comma-separated (the pages' "names" lists). */
void gf_stacks_write_names(const gf_stacks *s, const uint32_t *ids, size_t n, FILE *out);
/* speedscope file format (with its "$schema" id, which speedscope requires to recognise the file):
 * one "sampled" profile with unit `unit` ("none", "microseconds", "nanoseconds", ...). */
int gf_stacks_write_speedscope(const gf_stacks *s, FILE *out, const char *name, const char *unit, gf_err *err);
/* The same, and more(ctx, out, err) writes further profiles (each preceded by ',') after the sampled one;
 * they index the same shared frames (the stacks' frame ids). */
typedef int (*gf_speedscope_more)(void *ctx, FILE *out, gf_err *err);
int gf_stacks_write_speedscope_ex(const gf_stacks *s, FILE *out, const char *name, const char *unit,
                                  gf_speedscope_more more, void *ctx, gf_err *err);

#endif
