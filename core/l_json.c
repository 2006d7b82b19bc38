/* Binding: JSON. decode() parses with cJSON and reports line and column on errors; encode() writes
 * deterministic JSON (object keys sorted) from Lua values. core.json.null stands for JSON null;
 * core.json.array(t) marks a table (even an empty one) as an array. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A growable C buffer owned by a userdata, so a Lua error mid-encode cannot leak it. */
typedef struct cbuf {
    char *d;
    size_t n, cap;
} cbuf;

#define CBUF_MT "gpuflame.json.buf"

static void cb_add(cbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n + 1)
            nc *= 2;
        char *nd = realloc(b->d, nc);
        if (!nd)
            return; /* the caller checks b->d growth failure through lengths; keep going truncated */
        b->d = nd;
        b->cap = nc;
    }
    memcpy(b->d + b->n, s, n);
    b->n += n;
}

static void cb_char(cbuf *b, char c)
{
    cb_add(b, &c, 1);
}

static void cb_str(cbuf *b, const char *s)
{
    cb_add(b, s, strlen(s));
}

static int cbuf_gc(lua_State *L)
{
    cbuf *b = luaL_checkudata(L, 1, CBUF_MT);
    free(b->d);
    b->d = NULL;
    return 0;
}

static void add_escaped(cbuf *b, const char *s, size_t n)
{
    cb_char(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': cb_str(b, "\\\""); break;
        case '\\': cb_str(b, "\\\\"); break;
        case '\n': cb_str(b, "\\n"); break;
        case '\r': cb_str(b, "\\r"); break;
        case '\t': cb_str(b, "\\t"); break;
        case '\b': cb_str(b, "\\b"); break;
        case '\f': cb_str(b, "\\f"); break;
        default:
            if (c < 0x20) {
                char esc[8];
                snprintf(esc, sizeof esc, "\\u%04x", c);
                cb_str(b, esc);
            } else {
                cb_char(b, (char)c);
            }
        }
    }
    cb_char(b, '"');
}

typedef struct enc {
    cbuf *b;
    int pretty;
    int indent;
} enc;

static void newline(lua_State *L, enc *e, int level)
{
    (void)L;
    if (!e->pretty)
        return;
    cb_char(e->b, '\n');
    for (int i = 0; i < level * e->indent; i++)
        cb_char(e->b, ' ');
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

static void encode_value(lua_State *L, enc *e, int idx, int level);

static void encode_table(lua_State *L, enc *e, int idx, int level)
{
    if (level > MAX_DEPTH)
        gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: table nested deeper than %d levels (a cycle?)", MAX_DEPTH);
    /* Each level holds up to three values on the Lua stack (key, value, lua_next's pair): without room
     * they would be written past the stack's end (heap corruption the fuzzer found at ~100 levels). */
    luaL_checkstack(L, 4, "JSON encode: nested too deep");
    size_t n;
    if (is_array(L, idx, &n)) {
        cb_char(e->b, '[');
        for (size_t i = 1; i <= n; i++) {
            if (i > 1)
                cb_char(e->b, ',');
            newline(L, e, level + 1);
            lua_rawgeti(L, idx, (lua_Integer)i);
            encode_value(L, e, lua_gettop(L), level + 1);
            lua_pop(L, 1);
        }
        if (n)
            newline(L, e, level);
        cb_char(e->b, ']');
        return;
    }
    /* collect string keys, sort them */
    size_t cap = 16, k = 0;
    const char **keys = malloc(cap * sizeof *keys);
    lua_pushnil(L);
    while (keys && lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            if (k == cap) {
                const char **nk = realloc(keys, cap * 2 * sizeof *keys);
                if (!nk)
                    break;
                keys = nk;
                cap *= 2;
            }
            keys[k++] = lua_tostring(L, -1); /* anchored by the table */
        } else if (lua_type(L, -1) == LUA_TNUMBER) {
            free(keys);
            gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: table mixes array and object keys");
        }
    }
    if (!keys)
        gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    qsort(keys, k, sizeof *keys, cmp_keys);
    cb_char(e->b, '{');
    for (size_t i = 0; i < k; i++) {
        if (i)
            cb_char(e->b, ',');
        newline(L, e, level + 1);
        add_escaped(e->b, keys[i], strlen(keys[i]));
        cb_str(e->b, e->pretty ? ": " : ":");
        lua_getfield(L, idx, keys[i]);
        encode_value(L, e, lua_gettop(L), level + 1);
        lua_pop(L, 1);
    }
    if (k)
        newline(L, e, level);
    cb_char(e->b, '}');
    free(keys);
}

static void encode_value(lua_State *L, enc *e, int idx, int level)
{
    char num[64];
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        cb_str(e->b, "null");
        break;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL) {
            cb_str(e->b, "null");
            break;
        }
        gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: cannot encode a userdata");
        break;
    case LUA_TBOOLEAN:
        cb_str(e->b, lua_toboolean(L, idx) ? "true" : "false");
        break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            snprintf(num, sizeof num, "%lld", (long long)lua_tointeger(L, idx));
        } else {
            double d = lua_tonumber(L, idx);
            if (!isfinite(d)) {
                strcpy(num, "null");
            } else {
                for (int prec = 15; prec <= 17; prec++) {
                    snprintf(num, sizeof num, "%.*g", prec, d);
                    if (strtod(num, NULL) == d)
                        break;
                }
            }
        }
        cb_str(e->b, num);
        break;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        add_escaped(e->b, s, n);
        break;
    }
    case LUA_TTABLE:
        encode_table(L, e, idx, level);
        break;
    case LUA_TFUNCTION: {
        lua_Debug ar;
        lua_pushvalue(L, idx);
        lua_getinfo(L, ">S", &ar);
        snprintf(num, sizeof num, "<function %.40s:%d>", ar.short_src, ar.linedefined);
        add_escaped(e->b, num, strlen(num));
        break;
    }
    default:
        gf_lua_raisef(L, GF_EXIT_USAGE, "JSON encode: cannot encode a %s", luaL_typename(L, idx));
    }
}

static int l_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    int pretty = 0, indent = 2;
    if (lua_istable(L, 2)) {
        pretty = gf_opt_bool_field(L, 2, "pretty", 0);
        indent = (int)gf_opt_int_field(L, 2, "indent", 2);
    }
    lua_settop(L, 1);
    cbuf *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, CBUF_MT);
    enc e;
    e.b = b;
    e.pretty = pretty;
    e.indent = indent;
    encode_value(L, &e, 1, 0);
    lua_pushlstring(L, b->d ? b->d : "", b->n);
    free(b->d);
    b->d = NULL;
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
    luaL_newmetatable(L, CBUF_MT);
    lua_pushcfunction(L, cbuf_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"decode", l_decode}, {"encode", l_encode}, {"array", l_array}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
