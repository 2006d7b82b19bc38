/* Shared by fuzz targets that drive Lua-level parsers: one host per process, and a helper that calls
 * a Lua function (given as source text) with the input as a string, in protected mode. Errors raised
 * by the parser are expected; crashes, sanitizer reports and hangs are what the fuzzer looks for. */
#ifndef GF_FUZZ_HOST_H
#define GF_FUZZ_HOST_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpuflame.h"
#include "host.h"

static gf_host *fuzz_host;
static int fuzz_fn_ref = LUA_NOREF;

static void fuzz_host_init(const char *lua_function_source)
{
    if (fuzz_host)
        return;
    fuzz_host = gf_host_new();
    if (!fuzz_host)
        abort();
    lua_State *L = gf_host_lua(fuzz_host);
    if (luaL_loadstring(L, lua_function_source) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK)
        abort();
    fuzz_fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

static void fuzz_host_call(const uint8_t *data, size_t size)
{
    lua_State *L = gf_host_lua(fuzz_host);
    lua_rawgeti(L, LUA_REGISTRYINDEX, fuzz_fn_ref);
    lua_pushlstring(L, (const char *)data, size);
    lua_pcall(L, 1, 0, 0); /* parse errors are fine */
    lua_settop(L, 0);
    lua_gc(L, LUA_GCSTEP, 0);
}

#endif
