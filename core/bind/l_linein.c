/* Binding: the line reader (core/linein.h). core.linein.open(fd, max_line) → reader; claim_stdout() → the
 * protocol's stdout as a Lua file (fd 1 then goes to stderr);
 * reader:next(timeout_ms) → line | nil, "timeout" | "eof" | "too long" | "interrupted" (a read error raises). */
#include <stdio.h>
#include <unistd.h>

#include "l_util.h"
#include "linein.h"

#define LINEIN_MT "gpuflame.linein"

typedef struct {
    gf_linein *r;
} l_linein_ud;

static int l_open(lua_State *L)
{
    lua_Integer fd = luaL_checkinteger(L, 1);
    lua_Integer max_line = luaL_checkinteger(L, 2);
    if (fd < 0 || max_line < 1)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "linein.open: fd must be >= 0 and max_line >= 1");
    l_linein_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->r = NULL;
    luaL_setmetatable(L, LINEIN_MT);
    gf_err err = {0};
    u->r = gf_linein_new((int)fd, (size_t)max_line, &err);
    if (!u->r)
        return gf_lua_raise(L, &err);
    return 1;
}

static int m_next(lua_State *L)
{
    l_linein_ud *u = luaL_checkudata(L, 1, LINEIN_MT);
    lua_Integer timeout = luaL_optinteger(L, 2, -1);
    if (!u->r)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "linein: reader is closed");
    if (timeout > 86400000)
        timeout = 86400000;
    const char *line = NULL;
    size_t len = 0;
    gf_err err = {0};
    static const char *const why[] = {"", "timeout", "eof", "too long", "interrupted"};
    int rc = gf_linein_next(u->r, (int)timeout, &line, &len, &err);
    if (rc == GF_LINE_OK) {
        lua_pushlstring(L, line, len);
        return 1;
    }
    if (rc == GF_LINE_ERROR)
        return gf_lua_raise(L, &err);
    lua_pushnil(L);
    lua_pushstring(L, why[rc]);
    return 2;
}

static int m_close(lua_State *L)
{
    l_linein_ud *u = luaL_checkudata(L, 1, LINEIN_MT);
    gf_linein_free(u->r);
    u->r = NULL;
    return 0;
}

static int close_stream(lua_State *L)
{
    luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
    return luaL_fileresult(L, fclose(p->f) == 0, NULL);
}

/* claim_stdout() → a Lua file handle on the protocol's copy of stdout (fd 1 then goes to stderr). */
static int l_claim_stdout(lua_State *L)
{
    gf_err err = {0};
    luaL_Stream *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->closef = NULL;
    luaL_setmetatable(L, LUA_FILEHANDLE);
    fflush(stdout);
    int fd = gf_linein_claim_stdout(&err);
    if (fd < 0)
        return gf_lua_raise(L, &err);
    p->f = fdopen(fd, "w");
    if (!p->f) {
        close(fd);
        return gf_lua_raisef(L, GF_EXIT_ERROR, "cannot open the protocol stream");
    }
    p->closef = close_stream;
    return 1;
}

int gf_luaopen_linein(lua_State *L)
{
    static const luaL_Reg methods[] = {{"next", m_next}, {"close", m_close}, {NULL, NULL}};
    gf_new_class(L, LINEIN_MT, methods, m_close);
    static const luaL_Reg fns[] = {{"open", l_open}, {"claim_stdout", l_claim_stdout}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
