/* Binding: JSON. decode() parses with cJSON and reports line and column on errors; encode() writes
 * deterministic JSON (object keys sorted) from Lua values. core.json.null stands for JSON null;
 * core.json.array(t) marks a table (even an empty one) as an array. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "l_util.h"

#define ARRAY_MT "gpuflame.json.array"
#define MAX_DEPTH 200

static void push_json(lua_State *L, const cJSON *item, int depth)
{
    luaL_checkstack(L, 4, "JSON decode: nested too deep"); /* cJSON limits nesting to CJSON_NESTING_LIMIT */
    if (cJSON_IsNull(item)) {
        lua_pushlightuserdata(L, NULL);
    } else if (cJSON_IsBool(item)) {
        lua_pushboolean(L, cJSON_IsTrue(item));
    } else if (cJSON_IsNumber(item)) {
        double d = item->valuedouble;
        if (d == floor(d) && fabs(d) < 9007199254740992.0)
            lua_pushinteger(L, (lua_Integer)d);
        else
            lua_pushnumber(L, d);
    } else if (cJSON_IsString(item)) {
        lua_pushstring(L, item->valuestring);
    } else if (cJSON_IsArray(item)) {
        lua_newtable(L);
        luaL_setmetatable(L, ARRAY_MT);
        lua_Integer i = 0;
        for (const cJSON *c = item->child; c; c = c->next) {
            push_json(L, c, depth + 1);
            lua_rawseti(L, -2, ++i);
        }
    } else if (cJSON_IsObject(item)) {
        lua_newtable(L);
        for (const cJSON *c = item->child; c; c = c->next) {
            push_json(L, c, depth + 1);
            lua_setfield(L, -2, c->string ? c->string : "");
        }
    } else {
        lua_pushnil(L);
    }
}

static int l_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "JSON input");
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        const char *at = end ? end : cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : 0;
        size_t line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (text[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        if (len == 0)
            return gf_lua_raisef(L, GF_EXIT_INPUT, "%s: empty, expected JSON", name);
        return gf_lua_raisef(L, GF_EXIT_INPUT, "%s:%zu:%zu: invalid JSON", name, line, col);
    }
    /* Trailing garbage after the value is an error too. */
    if (end) {
        const char *p = end;
        while (p < text + len && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            p++;
        if (p < text + len) {
            cJSON_Delete(root);
            return gf_lua_raisef(L, GF_EXIT_INPUT, "%s: unexpected data after the JSON value at byte %zu", name,
                                 (size_t)(p - text));
        }
    }
    push_json(L, root, 0);
    cJSON_Delete(root);
    return 1;
}

/* The writer lives in a userdata, so a Lua error mid-encode cannot leak its buffer. */
#define WRITER_MT "gpuflame.json.writer"

static int writer_gc(lua_State *L)
{
    gf_jout_free(luaL_checkudata(L, 1, WRITER_MT));
    return 0;
}

static int is_array(lua_State *L, int idx, size_t *n)
{
    *n = lua_rawlen(L, idx);
    if (lua_getmetatable(L, idx)) {
        luaL_getmetatable(L, ARRAY_MT);
        int marked = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (marked)
            return 1;
    }
    if (*n == 0)
        return 0;
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
    }
    return count == *n;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void encode_value(lua_State *L, gf_jout *w, int idx, int level);

static void encode_table(lua_State *L, gf_jout *w, int idx, int level)
{
    if (level > MAX_DEPTH)
        gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: table nested deeper than %d levels (a cycle?)", MAX_DEPTH);
    /* Each level holds up to four values on the Lua stack (the keys array, key, value, lua_next's pair):
     * without room they would be written past the stack's end (heap corruption the fuzzer found at ~100
     * levels). */
    luaL_checkstack(L, 5, "JSON encode: nested too deep");
    size_t n;
    if (is_array(L, idx, &n)) {
        gf_jout_begin_array(w);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, (lua_Integer)i);
            encode_value(L, w, lua_gettop(L), level + 1);
            lua_pop(L, 1);
        }
        gf_jout_end_array(w);
        return;
    }
    /* The string keys, sorted. Their array is a userdata on the stack: an error raised while a value is
     * encoded (invalid UTF-8 under utf8 = "error", a userdata, nesting) cannot leak it. */
    size_t count = 0, k = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TNUMBER)
            gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: table mixes array and object keys");
        count += lua_type(L, -1) == LUA_TSTRING;
    }
    const char **keys = lua_newuserdatauv(L, (count ? count : 1) * sizeof *keys, 0);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING && k < count)
            keys[k++] = lua_tostring(L, -1); /* anchored by the table */
    }
    qsort(keys, k, sizeof *keys, cmp_keys);
    gf_jout_begin_object(w);
    for (size_t i = 0; i < k; i++) {
        gf_jout_key(w, keys[i]);
        lua_getfield(L, idx, keys[i]);
        encode_value(L, w, lua_gettop(L), level + 1);
        lua_pop(L, 1);
    }
    gf_jout_end_object(w);
    lua_pop(L, 1); /* the keys */
}

static void encode_value(lua_State *L, gf_jout *w, int idx, int level)
{
    char fn[128];
    switch (lua_type(L, idx)) {
    case LUA_TNIL: gf_jout_null(w); break;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) != NULL)
            gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: cannot encode a userdata");
        gf_jout_null(w);
        break;
    case LUA_TBOOLEAN: gf_jout_bool(w, lua_toboolean(L, idx)); break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            gf_jout_int(w, (int64_t)lua_tointeger(L, idx));
        else
            gf_jout_double(w, lua_tonumber(L, idx));
        break;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        gf_jout_string(w, s, n);
        if (w->bad_utf8)
            gf_lua_raisef(L, GF_EXIT_INPUT, "JSON encode: invalid UTF-8 in a string, byte %zu of %zu",
                          w->bad_utf8_at + 1, n);
        break;
    }
    case LUA_TTABLE: encode_table(L, w, idx, level); break;
    case LUA_TFUNCTION: {
        lua_Debug ar;
        lua_pushvalue(L, idx);
        lua_getinfo(L, ">S", &ar);
        snprintf(fn, sizeof fn, "<function %.40s:%d>", ar.short_src, ar.linedefined);
        gf_jout_string(w, fn, strlen(fn));
        break;
    }
    default: gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: cannot encode a %s", luaL_typename(L, idx));
    }
}

/* encode(value [, {pretty = false, indent = 2, utf8 = "replace" | "error"}]): compact (or indented)
 * JSON, object keys sorted. Strings are valid UTF-8 JSON: invalid bytes become U+FFFD, or raise
 * (exit code INPUT) with utf8 = "error". Out of memory raises; the text is never cut short. */
static int l_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    int pretty = 0, indent = 2;
    unsigned flags = 0;
    if (lua_istable(L, 2)) {
        pretty = gf_opt_bool_field(L, 2, "pretty", 0);
        indent = (int)gf_opt_int_field(L, 2, "indent", 2);
        lua_getfield(L, 2, "utf8");
        const char *u = lua_tostring(L, -1);
        if (u && strcmp(u, "error") == 0)
            flags |= GF_JOUT_STRICT_UTF8;
        else if (u && strcmp(u, "replace") != 0)
            gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: utf8 must be \"replace\" or \"error\", not \"%s\"", u);
        lua_pop(L, 1);
    }
    lua_settop(L, 1);
    gf_jout *w = lua_newuserdatauv(L, sizeof *w, 0);
    gf_jout_init_buffer(w, flags, pretty ? (indent > 0 ? indent : 1) : 0);
    luaL_setmetatable(L, WRITER_MT);
    encode_value(L, w, 1, 0);
    size_t len = 0;
    char *text = gf_jout_finish(w, &len);
    if (!text)
        gf_lua_raisef(L, GF_EXIT_ERROR, "JSON encode: out of memory");
    lua_pushlstring(L, text, len);
    free(text);
    return 1;
}

static int l_array(lua_State *L)
{
    if (lua_isnoneornil(L, 1))
        lua_newtable(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    luaL_setmetatable(L, ARRAY_MT);
    return 1;
}

int gf_luaopen_json(lua_State *L)
{
    luaL_newmetatable(L, ARRAY_MT);
    lua_pop(L, 1);
    luaL_newmetatable(L, WRITER_MT);
    lua_pushcfunction(L, writer_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"decode", l_decode}, {"encode", l_encode}, {"array", l_array}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
