/* The NVTX path trie (core/path_trie.c) against a reference that searches every node made so far: the same node
 * for every (parent, frame) asked, nodes numbered in the order they were made, each with its parent and frame.
 * The asks are random walks that reach parents with few children (their lists), with many (the table), with
 * exactly as many as a list holds and one more (the move from one to the other), and roots beyond a list. */
#include <stdint.h>
#include <stdlib.h>

#include "path_trie.h"
#include "tap.h"

enum { MAXN = 200000 };

typedef struct ref {
    int32_t parent[MAXN];
    uint32_t frame[MAXN];
    size_t n;
} ref;

static int32_t ref_child(ref *r, int32_t parent, uint32_t frame)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->parent[i] == parent && r->frame[i] == frame)
            return (int32_t)i;
    r->parent[r->n] = parent;
    r->frame[r->n] = frame;
    return (int32_t)r->n++;
}

/* asks down random paths: at each depth a frame of `fanout` (the parent's children come from that many) */
static int walk(gf_path_trie *t, ref *r, unsigned long long *seed, size_t asks, const uint32_t *fanout, size_t depth)
{
    for (size_t a = 0; a < asks; a++) {
        int32_t pt = -1, pr = -1;
        size_t d = 1 + tap_xorshift(seed) % depth;
        for (size_t k = 0; k < d; k++) {
            uint32_t frame = (uint32_t)(tap_xorshift(seed) % fanout[k]) * 7 + 3;
            gf_path_trie_prefetch(t, pt, frame);
            pt = gf_path_trie_child(t, pt, frame);
            if (r->n >= MAXN)
                return -1;
            pr = ref_child(r, pr, frame);
            if (pt != pr)
                return -1;
        }
    }
    return 0;
}

static int same_nodes(const gf_path_trie *t, const ref *r)
{
    if (t->n != r->n)
        return 0;
    for (size_t i = 0; i < r->n; i++)
        if (t->parent[i] != r->parent[i] || t->frame[i] != r->frame[i])
            return 0;
    return 1;
}

/* wide: whether some parent's children are in the table (more than a list holds) */
static void run(const char *name, const uint32_t *fanout, size_t depth, size_t asks, int wide)
{
    static ref r;
    unsigned long long seed = 0x9e3779b97f4a7c15ull ^ asks ^ depth;
    gf_path_trie t;
    gf_path_trie_init(&t);
    r.n = 0;
    int ok = walk(&t, &r, &seed, asks / 2, fanout, depth) == 0;
    gf_path_trie_project(&t, 4); /* as the sweep does part way: sizes the table, finds nothing else */
    ok = ok && walk(&t, &r, &seed, asks - asks / 2, fanout, depth) == 0;
    char what[160];
    snprintf(what, sizeof what, "%s: every node is the reference's (%zu nodes)", name, r.n);
    CHECK(what, ok && same_nodes(&t, &r));
    snprintf(what, sizeof what, "%s: %s", name, wide ? "the table holds the children of wide parents" :
             "every child is found in its parent's list");
    CHECK(what, (t.wide.n > 0) == wide);
    gf_path_trie_done(&t); /* parent and frame stay for the stacks' walk */
    snprintf(what, sizeof what, "%s: parent and frame kept when no more nodes are made", name);
    CHECK(what, same_nodes(&t, &r) && !t.first && !t.next && !t.nchild && t.wide.n == 0);
    gf_path_trie_free(&t);
}

int main(void)
{
    static const uint32_t few[] = {3, 4, 2, 5}, many[] = {40, 60, 30}, edge[] = {16, 2, 17, 3},
                          mixed[] = {2000, 9, 12, 3, 200};
    run("few children everywhere (lists)", few, 4, 3000, 0);
    run("many children everywhere (the table)", many, 3, 6000, 1);
    run("around a list's size (16, 17 frames)", edge, 4, 6000, 1);
    run("many roots, lists below, a wide level deeper", mixed, 5, 8000, 1);

    gf_path_trie t;
    gf_path_trie_init(&t);
    int32_t a = gf_path_trie_child(&t, -1, 5), b = gf_path_trie_child(&t, a, 5), c = gf_path_trie_child(&t, -1, 5);
    CHECK("a frame under another parent is another node; the same one asked again is the first",
          a == 0 && b == 1 && c == 0 && t.parent[1] == 0);
    gf_path_trie_free(&t);
    return tap_done();
}
