/* Binding: the critical path of steps (core/critpath.h, issue 44).
 *
 *   core.critpath.run(tr, groups, comm, blocking, rules, record, wait) → per group {span=, length=, dropped=, points=, edges=,
 *       path = {item...}, what_if = {length=, path = {item...}} (with rules)}
 *   groups: {{win...}...}, one group per step (a window per rank/process: {start=, ["end"]= (absent: the
 *       capture's first start, last end), pid= (proc; -1: any), tid=
 *       (-1: no marker thread), rank= (index, -1 none)}); comm, blocking: LIKE patterns over display names;
 *   record, wait: LIKE patterns of the calls recording an event and making a stream wait for one;
 *   rules: {{classes = mask (bit per part, in gf_cp_class_names' order), name = kernel name|nil, nvtx = range
 *       name|nil, factor = F}...}
 *   item: {part=, kind= ("call", "kernel", "copy", "memset", "nvtx", "host", "idle"), name=, ns=, win=, from=,
 *       to=}: consecutive path edges of one part, kind, name and window merged (win: the group's window, 1-based);
 *       from/to the times on the path; events: the trace indices (0-based) of the events whose time it holds
 *       (consecutive repeats once); src_win: a collective's end waiting for another window's start */
#include <stdlib.h>
#include <string.h>

#include "critpath.h"
#include "l_trace.h"
#include "l_util.h"

static gf_step_win *read_group(lua_State *L, int idx, size_t *n)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    size_t nw = lua_rawlen(L, idx);
    gf_step_win *w = lua_newuserdatauv(L, (nw ? nw : 1) * sizeof *w, 0);
    for (size_t k = 0; k < nw; k++) {
        lua_rawgeti(L, idx, (lua_Integer)k + 1);
        int top = lua_gettop(L);
        luaL_checktype(L, top, LUA_TTABLE);
        w[k] = (gf_step_win){gf_opt_int_field(L, top, "start", INT64_MIN), gf_opt_int_field(L, top, "end", INT64_MAX),
                             gf_req_int_field(L, top, "pid"), gf_opt_int_field(L, top, "tid", -1),
                             (int32_t)gf_opt_int_field(L, top, "rank", -1), -1, 0};
        lua_pop(L, 1);
    }
    *n = nw;
    return w;
}

static gf_cp_rule *read_rules(lua_State *L, int idx, const gf_trace *t, size_t *n)
{
    *n = lua_istable(L, idx) ? lua_rawlen(L, idx) : 0;
    gf_cp_rule *r = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *r, 0);
    for (size_t k = 0; k < *n; k++) {
        lua_rawgeti(L, idx, (lua_Integer)k + 1);
        int top = lua_gettop(L);
        r[k].cls_mask = (uint32_t)gf_req_int_field(L, top, "classes");
        r[k].factor = gf_opt_num_field(L, top, "factor", 1.0);
        const char *nm = gf_opt_string_field(L, top, "name", NULL), *nv = gf_opt_string_field(L, top, "nvtx", NULL);
        r[k].name = nm ? gf_strtab_find(t->str, nm, strlen(nm)) : -1;
        r[k].nvtx = nv ? gf_strtab_find(t->str, nv, strlen(nv)) : -1;
        if ((nm && r[k].name < 0) || (nv && r[k].nvtx < 0))
            r[k].cls_mask = 0; /* a name the capture does not hold matches nothing */
        lua_pop(L, 1);
    }
    return r;
}

static const char *item_kind(const gf_trace *t, int32_t item, int cls)
{
    if (item < 0)
        return cls == GF_CP_IDLE ? "idle" : "host";
    switch (t->kind[item]) {
    case GF_EV_API:
        return "call";
    case GF_EV_KERNEL:
        return "kernel";
    case GF_EV_MEMCPY:
        return "copy";
    case GF_EV_MEMSET:
        return "memset";
    default:
        return "nvtx";
    }
}

/* the window an edge's time happened on: its item's, else its target's, else its source's */
static int32_t edge_win(const gf_cp_graph *g, int32_t e)
{
    int32_t w = g->pwin[g->dst[e]];
    if (g->item[e] >= 0 && g->pev[g->dst[e]] != g->item[e] && g->pev[g->src[e]] == g->item[e])
        w = g->pwin[g->src[e]];
    return w >= 0 ? w : g->pwin[g->src[e]];
}

/* the path's items (consecutive edges of one part, kind, name and rank merged) as a list at the top */
static void push_path(lua_State *L, const gf_trace *t, const gf_cp_graph *g, const int64_t *lag, const int32_t *p,
                      size_t n)
{
    lua_createtable(L, 0, 0);
    size_t out = 0;
    int64_t at = g->tobs[g->root];
    for (size_t a = 0, z; a < n; a = z) {
        int32_t e = p[a], rank = edge_win(g, e);
        int32_t nm = g->item[e] >= 0 ? t->name[g->item[e]] : -1;
        int64_t ns = 0, from = at;
        for (z = a; z < n; z++) {
            int32_t f = p[z];
            if (g->cls[f] != g->cls[e] || (g->item[f] >= 0 ? t->name[g->item[f]] : -1) != nm ||
                edge_win(g, f) != rank || strcmp(item_kind(t, g->item[f], g->cls[f]),
                                                     item_kind(t, g->item[e], g->cls[e])) != 0)
                break;
            ns += lag[f];
        }
        at += ns;
        if (ns == 0)
            continue;
        lua_createtable(L, 0, 8);
        lua_pushstring(L, gf_cp_class_names[g->cls[e]]);
        lua_setfield(L, -2, "part");
        lua_pushstring(L, item_kind(t, g->item[e], g->cls[e]));
        lua_setfield(L, -2, "kind");
        if (nm >= 0) {
            gf_lua_trace_str(L, t, nm);
            lua_setfield(L, -2, "name");
        }
        gf_lua_setint(L, "ns", ns);
        gf_lua_setint(L, "from", from);
        gf_lua_setint(L, "to", at);
        gf_lua_setint(L, "win", rank + 1);
        lua_createtable(L, 0, 0); /* the events whose time is on the path here (trace indices, 0-based) */
        lua_Integer ne = 0;
        for (size_t q = a; q < z; q++) {
            int32_t ev = g->item[p[q]];
            if (ev >= 0 && lag[p[q]] > 0 && (ne == 0 || g->item[p[q - 1]] != ev)) {
                lua_pushinteger(L, ev);
                lua_rawseti(L, -2, ++ne);
            }
        }
        lua_setfield(L, -2, "events");
        int32_t sw = g->pwin[g->src[e]];
        if (g->cls[e] == GF_CP_COMM && sw >= 0 && sw != rank) /* a collective's end waiting for another rank */
            gf_lua_setint(L, "src_win", sw + 1);
        lua_rawseti(L, -2, (lua_Integer)++out);
    }
}

/* one group's result table at the top; 0 or -1 with err */
static int run_group(lua_State *L, const gf_trace *t, const int32_t *partner, gf_step_win *w, size_t nw,
                     const gf_cp_opts *o, const gf_cp_rule *r, size_t nr, gf_err *err)
{
    gf_cp_graph g;
    for (size_t k = 0; k < nw; k++) { /* the capture's extent */
        if (w[k].start == INT64_MIN)
            w[k].start = t->n ? t->start[0] : 0;
        if (w[k].end == INT64_MAX) {
            w[k].end = w[k].start;
            for (size_t i = 0; i < t->n; i++)
                w[k].end = t->start[i] + t->dur[i] > w[k].end ? t->start[i] + t->dur[i] : w[k].end;
        }
    }
    if (gf_cp_build(t, partner, w, nw, o, &g, err) != 0)
        return -1;
    int32_t *p = NULL, *q = NULL;
    size_t n = 0, m = 0;
    int64_t len = 0, wlen = 0;
    int64_t *lag2 = nr ? malloc((g.ne ? g.ne : 1) * sizeof *lag2) : NULL;
    int rc = nr && !lag2 ? gf_errf(err, GF_EXIT_ERROR, "critical path: out of memory") : 0;
    if (rc == 0)
        rc = gf_cp_path(&g, g.lag, &p, &n, &len, err);
    if (rc == 0 && nr) {
        gf_cp_scale(t, &g, r, nr, lag2);
        rc = gf_cp_path(&g, lag2, &q, &m, &wlen, err);
    }
    if (rc == 0) {
        lua_createtable(L, 0, 8);
        gf_lua_setint(L, "span", g.tobs[g.sink] - g.tobs[g.root]);
        gf_lua_setint(L, "start", g.tobs[g.root]);
        gf_lua_setint(L, "length", len);
        gf_lua_setint(L, "dropped", g.dropped);
        gf_lua_setint(L, "points", (lua_Integer)g.np);
        gf_lua_setint(L, "edges", (lua_Integer)g.ne);
        push_path(L, t, &g, g.lag, p, n);
        lua_setfield(L, -2, "path");
        if (nr) {
            lua_createtable(L, 0, 2);
            gf_lua_setint(L, "length", wlen);
            push_path(L, t, &g, lag2, q, m);
            lua_setfield(L, -2, "path");
            lua_setfield(L, -2, "what_if");
        }
    }
    free(p);
    free(q);
    free(lag2);
    gf_cp_free(&g);
    return rc;
}

static int l_run(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t ng = lua_rawlen(L, 2), nc = 0, nb = 0, nr = 0;
    gf_cp_rule *r = read_rules(L, 5, t, &nr);
    const char **comm = gf_lua_str_list(L, 3, &nc);
    const char **blk = gf_lua_str_list(L, 4, &nb);
    size_t nrec = 0, nwait = 0;
    const char **rec = gf_lua_str_list(L, 6, &nrec), **wait = gf_lua_str_list(L, 7, &nwait);
    gf_like_set cs = {comm, nc, NULL, 0}, bs = {blk, nb, NULL, 0}, rs = {rec, nrec, NULL, 0}, ws = {wait, nwait, NULL, 0};
    gf_cp_opts o = {&cs, &bs, &rs, &ws};
    gf_err err;
    int32_t *partner = NULL;
    int rc = gf_trace_partners(t, &partner, &err);
    if (rc == 0)
        lua_createtable(L, (int)ng, 0);
    for (size_t k = 0; k < ng && rc == 0; k++) {
        lua_rawgeti(L, 2, (lua_Integer)k + 1);
        size_t nw;
        gf_step_win *w = read_group(L, lua_gettop(L), &nw);
        rc = run_group(L, t, partner, w, nw, &o, r, nr, &err);
        if (rc == 0) {
            lua_rawseti(L, -4, (lua_Integer)k + 1);
            lua_pop(L, 2);
        }
    }
    free(partner);
    free(comm);
    free(blk);
    free(rec);
    free(wait);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    return 1;
}

int gf_luaopen_critpath(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"run", l_run},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
