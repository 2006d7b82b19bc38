/* Binding: HTTP. core.http.request(opts) → result table (never raises for network failures);
 * core.http.gzip(s), core.http.gunzip(s[, max]), core.http.escape(s).
 *
 * opts = { method = "POST", url = "...", query = {{"k","v"},...} or {k = "v"}, headers = {{"Name","v"},...}
 *          or {Name = "v"}, body = "...", gzip = true, connect_timeout = 5, timeout = 120,
 *          ca_bundle = path, client_cert = path, client_key = path, max_response = bytes }
 * result = { ok = status 2xx, status = int, kind = "ok"|"http"|"dns"|"connect"|"tls"|"timeout"|
 *            "network"|"too_large"|"interrupted"|"error", error = msg|nil, body = string,
 *            headers = {lowercased-name = value}, elapsed = s, sent = bytes of body on the wire } */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "l_util.h"

/* Collects a pairs table or a list of {k, v} pairs into a flat NULL-terminated vector (strings stay
 * anchored in a Lua table left on the stack). sep != NULL joins each pair into one "k: v" string. */
static const char **pairs_of(lua_State *L, int idx, const char *sep, const char *what)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L); /* anchor */
    int anchor = lua_gettop(L);
    lua_Integer n = 0;
    size_t len = lua_rawlen(L, idx);
    if (len > 0) {
        for (size_t i = 1; i <= len; i++) {
            if (lua_rawgeti(L, idx, (lua_Integer)i) != LUA_TTABLE)
                gf_lua_raisef(L, GF_EXIT_USAGE, "http: %s[%zu] must be a {name, value} pair", what, i);
            lua_rawgeti(L, -1, 1);
            lua_rawgeti(L, -2, 2);
            if (!lua_isstring(L, -2) || !lua_isstring(L, -1))
                gf_lua_raisef(L, GF_EXIT_USAGE, "http: %s[%zu] must be a {name, value} pair of strings", what, i);
            if (sep) {
                lua_pushfstring(L, "%s%s%s", lua_tostring(L, -2), sep, lua_tostring(L, -1));
                lua_rawseti(L, anchor, ++n);
                lua_pop(L, 2);
            } else {
                lua_rawseti(L, anchor, n + 2);
                lua_rawseti(L, anchor, n + 1);
                n += 2;
            }
            lua_pop(L, 1);
        }
    } else {
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            if (lua_type(L, -2) != LUA_TSTRING || !lua_isstring(L, -1))
                gf_lua_raisef(L, GF_EXIT_USAGE, "http: %s must map strings to strings", what);
            if (sep) {
                lua_pushfstring(L, "%s%s%s", lua_tostring(L, -2), sep, lua_tostring(L, -1));
                lua_rawseti(L, anchor, ++n);
            } else {
                lua_pushvalue(L, -2);
                lua_rawseti(L, anchor, ++n);
                lua_pushvalue(L, -1);
                lua_rawseti(L, anchor, ++n);
            }
            lua_pop(L, 1);
        }
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, anchor, i);
        const char *s = lua_tostring(L, -1);
        lua_pop(L, 1);
        if (strchr(s, '\r') || strchr(s, '\n'))
            gf_lua_raisef(L, GF_EXIT_USAGE, "http: %s must not contain line breaks", what);
    }
    const char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v)
        gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, anchor, i);
        v[i - 1] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    return v;
}

static int l_request(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    gf_http_req r;
    memset(&r, 0, sizeof r);
    r.method = gf_opt_string_field(L, 1, "method", "GET");
    r.url = gf_opt_string_field(L, 1, "url", NULL);
    if (!r.url)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "http: opts.url is required");
    if (strncmp(r.url, "http://", 7) != 0 && strncmp(r.url, "https://", 8) != 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "http: URL must start with http:// or https:// (got %s)", r.url);
    const char **query = NULL, **headers = NULL;
    if (lua_getfield(L, 1, "query") == LUA_TTABLE)
        query = pairs_of(L, -1, NULL, "query");
    if (lua_getfield(L, 1, "headers") == LUA_TTABLE)
        headers = pairs_of(L, -1, ": ", "headers");
    size_t blen = 0;
    if (lua_getfield(L, 1, "body") == LUA_TSTRING) {
        r.body = lua_tolstring(L, -1, &blen);
        r.body_len = blen;
    }
    r.query = query;
    r.headers = headers;
    r.gzip_body = gf_opt_bool_field(L, 1, "gzip", 0);
    r.connect_timeout = gf_opt_num_field(L, 1, "connect_timeout", 10);
    r.timeout = gf_opt_num_field(L, 1, "timeout", 120);
    r.ca_bundle = gf_opt_string_field(L, 1, "ca_bundle", NULL);
    r.client_cert = gf_opt_string_field(L, 1, "client_cert", NULL);
    r.client_key = gf_opt_string_field(L, 1, "client_key", NULL);
    r.max_response = (size_t)gf_opt_int_field(L, 1, "max_response", 0);
    gf_http_resp resp;
    gf_err err;
    int rc = gf_http_request(&r, &resp, &err);
    free(query);
    free(headers);
    lua_createtable(L, 0, 10);
    lua_pushboolean(L, rc == 0 && resp.status >= 200 && resp.status < 300);
    lua_setfield(L, -2, "ok");
    lua_pushinteger(L, resp.status);
    lua_setfield(L, -2, "status");
    lua_pushstring(L, resp.kind);
    lua_setfield(L, -2, "kind");
    if (resp.error[0]) {
        lua_pushstring(L, resp.error);
        lua_setfield(L, -2, "error");
    }
    lua_pushlstring(L, resp.body ? resp.body : "", resp.body_len);
    lua_setfield(L, -2, "body");
    lua_pushnumber(L, resp.elapsed);
    lua_setfield(L, -2, "elapsed");
    lua_pushinteger(L, (lua_Integer)resp.request_body_len);
    lua_setfield(L, -2, "sent");
    lua_createtable(L, 0, (int)resp.nheaders);
    for (size_t i = 0; i < resp.nheaders; i++) {
        const char *line = resp.headers[i];
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (const char *p = line; p < colon; p++)
            luaL_addchar(&b, (char)tolower((unsigned char)*p));
        luaL_pushresult(&b);
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        lua_pushstring(L, v);
        lua_settable(L, -3);
    }
    lua_setfield(L, -2, "headers");
    gf_http_resp_free(&resp);
    return 1;
}

static int l_gzip(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    char *out;
    size_t n;
    gf_err err;
    if (gf_gzip(s, len, (int)luaL_optinteger(L, 2, -1), &out, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushlstring(L, out, n);
    free(out);
    return 1;
}

static int l_gunzip(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    lua_Integer max = luaL_optinteger(L, 2, 256 << 20);
    char *out;
    size_t n;
    gf_err err;
    if (gf_gunzip(s, len, (size_t)max, &out, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushlstring(L, out, n);
    free(out);
    return 1;
}

static int l_escape(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    char *e = gf_url_escape(s, len);
    if (!e)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    lua_pushstring(L, e);
    free(e);
    return 1;
}

int gf_luaopen_http(lua_State *L)
{
    static const luaL_Reg fns[] = {{"request", l_request}, {"gzip", l_gzip}, {"gunzip", l_gunzip},
                                   {"escape", l_escape},   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
