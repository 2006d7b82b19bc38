/* Binding: differential stacks (core/stacks_diff.c).
 *
 *   core.stackdiff.new() → D
 *   D:add(side, S [, {remap = {leaf = new_leaf, ...}, scale = n}])   side 1 = BEFORE, 2 = AFTER
 *   D:totals() → before, after     D:count() → distinct stacks in the union
 *   D:leaves() → {{name=, before=, after=}...} per distinct leaf (first-seen order)
 *   D:write_folded(path|"-"|nil [, {meta = json}]) (nil → returns the text): "stack BEFORE AFTER" lines
 *   D:tree_json([min_fraction]) → text, {nodes=, folded=}
 *   D:set_min_fraction(x); D:tree_stats() → {nodes=, folded=} of the last render
 * A StackDiff value can be a render slot ({data = D}): it writes the differential tree JSON with the
 * min_fraction set by D:set_min_fraction. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "l_stacks.h"
#include "l_util.h"
#include "render.h"
#include "stacks_diff.h"

#define DIFF_MT "gpuflame.stackdiff"

typedef struct ud {
    gf_stackdiff *d;
    double min_fraction;
    gf_difftree_stats last;
} ud;

static ud *check_ud(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, DIFF_MT);
    if (!u->d)
        gf_lua_raisef(L, GF_EXIT_ERROR, "stackdiff object is freed");
    return u;
}

static int l_new(lua_State *L)
{
    ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    memset(u, 0, sizeof *u);
    luaL_setmetatable(L, DIFF_MT);
    u->d = gf_stackdiff_new();
    if (!u->d)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "stackdiff: out of memory");
    return 1;
}

static int m_add(lua_State *L)
{
    ud *u = check_ud(L);
    lua_Integer side = luaL_checkinteger(L, 2);
    if (side != 1 && side != 2)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "stackdiff:add: side must be 1 (before) or 2 (after)");
    gf_stacks *s = gf_lua_checkstacks(L, 3);
    lua_Integer scale = gf_opt_int_field(L, 4, "scale", 1);
    const char **remap = NULL;
    if (lua_type(L, 4) == LUA_TTABLE) {
        lua_getfield(L, 4, "remap");
        if (lua_type(L, -1) == LUA_TTABLE) {
            size_t nf = gf_stacks_nframes(s);
            remap = lua_newuserdatauv(L, (nf ? nf : 1) * sizeof *remap, 0); /* freed by the GC */
            for (size_t f = 0; f < nf; f++) {
                size_t len;
                const char *name = gf_stacks_frame(s, (uint32_t)f, &len);
                lua_pushlstring(L, name, len);
                lua_rawget(L, -3);
                remap[f] = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
                lua_pop(L, 1); /* the string stays alive in the remap table */
            }
        } else if (!lua_isnil(L, -1)) {
            return gf_lua_raisef(L, GF_EXIT_USAGE, "stackdiff:add: remap must be a table");
        }
    }
    gf_err err;
    if (gf_stackdiff_add(u->d, (int)side - 1, s, remap, scale, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int m_totals(lua_State *L)
{
    ud *u = check_ud(L);
    lua_pushinteger(L, gf_stackdiff_total(u->d, 0));
    lua_pushinteger(L, gf_stackdiff_total(u->d, 1));
    return 2;
}

static int m_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)gf_stackdiff_count(check_ud(L)->d));
    return 1;
}

typedef struct leaf_ctx {
    lua_State *L;
    lua_Integer n;
} leaf_ctx;

static int leaf_cb(void *p, const char *name, size_t len, int64_t before, int64_t after)
{
    leaf_ctx *c = p;
    lua_State *L = c->L;
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, name, len);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, before);
    lua_setfield(L, -2, "before");
    lua_pushinteger(L, after);
    lua_setfield(L, -2, "after");
    lua_rawseti(L, -2, ++c->n);
    return 0;
}

static int m_leaves(lua_State *L)
{
    ud *u = check_ud(L);
    lua_newtable(L);
    leaf_ctx c = {L, 0};
    gf_err err;
    if (gf_stackdiff_leaves(u->d, leaf_cb, &c, &err) != 0)
        return gf_lua_raise(L, &err);
    return 1;
}

static int m_write_folded(lua_State *L)
{
    ud *u = check_ud(L);
    const char *path = luaL_optstring(L, 2, NULL);
    const char *meta = gf_opt_string_field(L, 3, "meta", NULL);
    gf_err err;
    if (!path) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
        int rc = gf_stackdiff_write_folded(u->d, f, meta, &err);
        fclose(f);
        if (rc != 0) {
            free(buf);
            return gf_lua_raise(L, &err);
        }
        lua_pushlstring(L, buf, len);
        free(buf);
        return 1;
    }
    if (strcmp(path, "-") == 0) {
        if (gf_stackdiff_write_folded(u->d, stdout, meta, &err) != 0)
            return gf_lua_raise(L, &err);
        if (fflush(stdout) != 0)
            return gf_lua_raisef(L, GF_EXIT_ERROR, "standard output: %s", strerror(errno));
        return 0;
    }
    gf_out o;
    if (gf_out_open(&o, path, &err) != 0)
        return gf_lua_raise(L, &err);
    if (gf_stackdiff_write_folded(u->d, o.fp, meta, &err) != 0) {
        gf_out_fail(&o, &err);
        return gf_lua_raise(L, &err);
    }
    if (gf_out_commit_unless_interrupted(&o, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static void push_stats(lua_State *L, const gf_difftree_stats *st)
{
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, (lua_Integer)st->nodes);
    lua_setfield(L, -2, "nodes");
    lua_pushinteger(L, (lua_Integer)st->folded);
    lua_setfield(L, -2, "folded");
}

static int m_tree_json(lua_State *L)
{
    ud *u = check_ud(L);
    double mf = luaL_optnumber(L, 2, u->min_fraction);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    gf_difftree_stats st;
    gf_err err;
    int rc = gf_stackdiff_write_tree_json(u->d, f, mf, &st, &err);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return gf_lua_raise(L, &err);
    }
    lua_pushlstring(L, buf, len);
    free(buf);
    push_stats(L, &st);
    return 2;
}

static int m_set_min_fraction(lua_State *L)
{
    ud *u = check_ud(L);
    double mf = luaL_checknumber(L, 2);
    if (!(mf >= 0 && mf <= 1))
        return gf_lua_raisef(L, GF_EXIT_USAGE, "min_fraction must be between 0 and 1");
    u->min_fraction = mf;
    return 0;
}

static int m_tree_stats(lua_State *L)
{
    push_stats(L, &check_ud(L)->last);
    return 1;
}

static int l_gc(lua_State *L)
{
    ud *u = luaL_checkudata(L, 1, DIFF_MT);
    gf_stackdiff_free(u->d);
    u->d = NULL;
    return 0;
}

static int slot_writer(FILE *out, void *p, gf_err *err)
{
    ud *u = p;
    if (!u->d)
        return gf_errf(err, GF_EXIT_ERROR, "stackdiff object is freed");
    return gf_stackdiff_write_tree_json(u->d, out, u->min_fraction, &u->last, err);
}

static const gf_slot_writer_ref tree_writer = {slot_writer};

int gf_luaopen_stacks_diff(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"add", m_add},
        {"totals", m_totals},
        {"count", m_count},
        {"leaves", m_leaves},
        {"write_folded", m_write_folded},
        {"tree_json", m_tree_json},
        {"set_min_fraction", m_set_min_fraction},
        {"tree_stats", m_tree_stats},
        {NULL, NULL},
    };
    gf_new_class(L, DIFF_MT, methods, l_gc);
    luaL_getmetatable(L, DIFF_MT);
    lua_pushlightuserdata(L, (void *)&tree_writer);
    lua_setfield(L, -2, GF_SLOT_WRITER_FIELD);
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {
        {"new", l_new},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
