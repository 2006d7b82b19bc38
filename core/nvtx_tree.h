/* The range trees of the NVTX analysis (docs/spec/NVTX_ANALYSIS.md §6–§7): rows found by their key
 * (PID, TID, RangeId), scoped paths interned in a trie, the memoized scope walk, and the order of paths
 * (§9: element-wise by name, a prefix first). Nothing here is sized by the nesting depth on the stack:
 * an 80,000-deep chain of ranges needs no more stack than a flat one. */
#ifndef GF_NVTX_TREE_H
#define GF_NVTX_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"
#include "hmap.h"
#include "strtab.h"

/* (PID, TID, RangeId) → int64 value, on gf_hmap as a multimap (a hash of the key → entry). */
typedef struct gf_nvtx_kent {
    int64_t pid, tid, rid, val;
} gf_nvtx_kent;

typedef struct gf_nvtx_keymap {
    gf_hmap h;
    gf_nvtx_kent *e;
    size_t n, cap;
} gf_nvtx_keymap;

void gf_nvtx_keymap_init(gf_nvtx_keymap *m);
void gf_nvtx_keymap_free(gf_nvtx_keymap *m);
/* Sets key → val (overwrites); 0, or -1 on OOM. */
int gf_nvtx_keymap_put(gf_nvtx_keymap *m, int64_t pid, int64_t tid, int64_t rid, int64_t val);
/* 1 and *val when the key is present, else 0. */
int gf_nvtx_keymap_get(const gf_nvtx_keymap *m, int64_t pid, int64_t tid, int64_t rid, int64_t *val);

/* Rows found by key. nsys RangeIds are NVTX_EVENTS row ids: unique and dense. When the ids span less
 * than 4x the row count, a direct array indexed by RangeId finds rows (checking PID/TID); keys that
 * share a RangeId across threads, and sparse ids, go through the key map. Duplicate keys: the last row
 * wins. The rows are read in place: pid, tid and rid are int64 fields at the given offsets. */
typedef struct gf_nvtx_rowidx {
    const char *rows;
    size_t stride, opid, otid, orid;
    int64_t base;
    size_t span;
    int32_t *slot; /* 0 empty, i + 1 row i, -1 several keys (see over) */
    gf_nvtx_keymap over;
} gf_nvtx_rowidx;

int gf_nvtx_rowidx_build(gf_nvtx_rowidx *x, const void *rows, size_t n, size_t stride, size_t opid, size_t otid,
                         size_t orid);
int gf_nvtx_rowidx_get(const gf_nvtx_rowidx *x, int64_t pid, int64_t tid, int64_t rid, int64_t *row);
void gf_nvtx_rowidx_free(gf_nvtx_rowidx *x);

/* Scoped paths interned in a trie: path id → (parent path id, name id); id 0 is the empty path.
 * bytes[] is the length of the path joined with '.', so names are measured and compared without
 * walking them. */
typedef struct gf_nvtx_trie {
    const gf_strtab *strs;
    uint32_t *parent, *name, *depth;
    uint64_t *bytes;
    uint32_t n, cap;
    gf_hmap map; /* parent << 32 | name → id */
} gf_nvtx_trie;

int gf_nvtx_trie_init(gf_nvtx_trie *t, const gf_strtab *strs);
void gf_nvtx_trie_free(gf_nvtx_trie *t);
/* The path `parent` + name; UINT32_MAX on OOM. */
uint32_t gf_nvtx_trie_child(gf_nvtx_trie *t, uint32_t parent, uint32_t name);
/* rank[id] for every path: the position of the path in §9 order (element-wise by name bytes, a prefix
 * before its extensions). Returns a malloc'd array, or NULL on OOM. */
uint32_t *gf_nvtx_trie_ranks(const gf_nvtx_trie *t);
/* Path p joined with '.' into buf (t->bytes[p] bytes, no NUL). */
void gf_nvtx_trie_join(const gf_nvtx_trie *t, uint32_t p, char *buf);
/* 1 when path p joined with '.' is exactly s[0..len). */
int gf_nvtx_trie_equals(const gf_nvtx_trie *t, uint32_t p, const char *s, size_t len);

/* A table to walk (§7): the key of each row, its name, its parent, as strided views of the rows; rows are
 * found through `keys`. harness[i] marks the capture range and the iterations (the walk stops there).
 * state, wpath (n each) and stack (n) are scratch the caller allocates; state starts zeroed. */
typedef struct gf_nvtx_walk {
    size_t n;
    const int64_t *pid, *tid, *rid, *parent; /* strided views */
    const uint8_t *has_parent;
    const uint32_t *name;
    size_t stride; /* in bytes, for every view */
    const gf_nvtx_rowidx *keys;
    const uint8_t *harness;
    uint8_t *state;
    uint32_t *wpath;
    size_t *stack;
} gf_nvtx_walk;

/* The scoped path of row r (§7): its walk up to (not including) the first harness range, a root or a
 * parent absent from the table, or [own name] when that walk is empty. Memoized in w. Returns 0, or -1
 * with err filled (a cycle: the spec's message; out of memory). */
int gf_nvtx_scoped(gf_nvtx_walk *w, gf_nvtx_trie *t, size_t r, uint32_t *out, gf_err *err);

#endif
