/* Binding: template renderer (core/render.c).
 *
 *   core.render.render(template_text, slots, out_path [, template_name])   -- atomic file
 *   core.render.render_string(template_text, slots [, template_name]) → string
 *   core.render.escape_html(s) → s
 * slots[name] is "text" (→ {{name}} HTML-escaped, {{json:name}} a JSON string), { json = "<json text>" }
 * (→ {{json:name}} made script-safe) or { data = <C model userdata> } (its GF_SLOT_WRITER_FIELD writer).
 * Other bindings may let {json = function} slots give their text later (gf_lua_lazy_slots, l_render.h). */
#include <stdlib.h>
#include <string.h>

#include "l_render.h"
#include "l_util.h"
#include "render.h"

/* Builds the slot array from the table at index idx; the strings stay alive in that table. */
static gf_slot *collect(lua_State *L, int idx, size_t *n)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    size_t cap = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        cap++;
        lua_pop(L, 1);
    }
    gf_slot *s = lua_newuserdatauv(L, (cap ? cap : 1) * sizeof *s, 0); /* GC'd; kept on the stack */
    size_t k = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            gf_lua_raisef(L, GF_EXIT_USAGE, "render: slot names must be strings");
        gf_slot *o = &s[k++];
        memset(o, 0, sizeof *o);
        o->name = lua_tostring(L, -2);
        int t = lua_type(L, -1);
        if (t == LUA_TSTRING || t == LUA_TNUMBER) {
            o->kind = GF_SLOT_TEXT;
            if (t == LUA_TNUMBER) { /* convert in the table so the string stays alive */
                lua_pushvalue(L, -2);
                lua_pushstring(L, lua_tostring(L, -2));
                lua_rawset(L, idx);
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                lua_rawget(L, idx);
            }
            o->value = lua_tolstring(L, -1, &o->len);
        } else if (t == LUA_TTABLE) {
            if (lua_getfield(L, -1, "json") == LUA_TSTRING) {
                o->kind = GF_SLOT_JSON;
                o->value = lua_tolstring(L, -1, &o->len);
                lua_pop(L, 1);
            } else {
                lua_pop(L, 1);
                if (lua_getfield(L, -1, "data") != LUA_TUSERDATA || !lua_getmetatable(L, -1))
                    gf_lua_raisef(L, GF_EXIT_USAGE, "render: slot '%s' must be a string, {json = TEXT} or {data = MODEL}",
                                  o->name);
                lua_getfield(L, -1, GF_SLOT_WRITER_FIELD);
                const gf_slot_writer_ref *ref = lua_touserdata(L, -1);
                if (!ref || !lua_islightuserdata(L, -1))
                    gf_lua_raisef(L, GF_EXIT_USAGE, "render: slot '%s': this object cannot be written into a page", o->name);
                o->kind = GF_SLOT_WRITER;
                o->writer = ref->fn;
                o->ud = lua_touserdata(L, -3);
                lua_pop(L, 3);
            }
        } else {
            gf_lua_raisef(L, GF_EXIT_USAGE, "render: slot '%s' must be a string, {json = TEXT} or {data = MODEL} (got %s)",
                          o->name, lua_typename(L, t));
        }
        lua_pop(L, 1);
    }
    *n = k;
    return s;
}

int gf_lua_lazy_slots(lua_State *L, int tbl, gf_slot *slots, size_t n)
{
    int any = 0;
    for (size_t k = 0; k < n; k++) {
        if (slots[k].kind != GF_SLOT_JSON || slots[k].value)
            continue;
        if (!lua_checkstack(L, 4)) {
            lua_pushstring(L, "render: out of memory (Lua stack)");
            return -1;
        }
        lua_getfield(L, tbl, slots[k].name);
        lua_getfield(L, -1, "json");
        lua_remove(L, -2);
        if (lua_pcall(L, 0, 1, 0) != LUA_OK)
            return -1;
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pushfstring(L, "render: slot '%s': its json function returned %s, not a string", slots[k].name,
                            luaL_typename(L, -1));
            return -1;
        }
        slots[k].value = lua_tolstring(L, -1, &slots[k].len);
        any = 1;
    }
    if (any)
        lua_gc(L, LUA_GCCOLLECT);
    return 0;
}

static int l_render(lua_State *L)
{
    size_t tl;
    const char *t = luaL_checklstring(L, 1, &tl);
    const char *out = luaL_checkstring(L, 3);
    const char *name = luaL_optstring(L, 4, "(template)");
    size_t n;
    gf_slot *s = collect(L, 2, &n);
    gf_err err;
    if (gf_render_file(name, t, tl, s, n, out, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_render_string(lua_State *L)
{
    size_t tl;
    const char *t = luaL_checklstring(L, 1, &tl);
    const char *name = luaL_optstring(L, 3, "(template)");
    size_t n;
    gf_slot *s = collect(L, 2, &n);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "render: out of memory");
    gf_err err;
    int rc = gf_render_stream(name, t, tl, s, n, f, &err);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return gf_lua_raise(L, &err);
    }
    lua_pushlstring(L, buf, len);
    free(buf);
    return 1;
}

static int l_escape(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "escape_html: out of memory");
    gf_html_escape(f, s, len);
    fclose(f);
    lua_pushlstring(L, buf, n);
    free(buf);
    return 1;
}

int gf_luaopen_render(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"render", l_render}, {"render_string", l_render_string}, {"escape_html", l_escape}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
