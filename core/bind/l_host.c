/* Binding: the host itself — resources on the search path, time budgets, interruption, version. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuflame.h"
#include "host.h"
#include "hugepages.h"
#include "l_util.h"
#include "mem.h"

/* core.host.cpus() → online CPUs (at least 1): the default worker count */
static int l_cpus(lua_State *L)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    lua_pushinteger(L, n > 0 ? n : 1);
    return 1;
}

static int l_resource(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    char *data, *origin;
    size_t len;
    gf_err err;
    int found = gf_host_resource(gf_host_of(L), name, &data, &len, &origin, &err);
    if (found == -2)
        return gf_lua_raise(L, &err); /* refused as root (gf_require_trusted) */
    if (found != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "resource '%s' not found on the search path or in the bundle", name);
        return 2;
    }
    lua_pushlstring(L, data, len);
    lua_pushstring(L, origin);
    free(data);
    free(origin);
    return 2;
}

static int l_list(lua_State *L)
{
    const char *prefix = luaL_checkstring(L, 1);
    char **names;
    size_t n;
    if (gf_host_list(gf_host_of(L), prefix, &names, &n) != 0)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "cannot list resources under '%s'", prefix);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
        free(names[i]);
    }
    free(names);
    return 1;
}

static int l_dirs(lua_State *L)
{
    gf_host *h = gf_host_of(L);
    size_t n = gf_host_dir_count(h);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, gf_host_dir(h, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int l_add_dir(lua_State *L)
{
    if (gf_host_add_path(gf_host_of(L), luaL_checkstring(L, 1)) != 0)
        return gf_lua_raisef(L, GF_EXIT_USAGE, "invalid search directory");
    return 0;
}

/* with_budget(seconds, fn, ...) → true, results... | false, err. The budget ends the call with an
 * error if it runs longer (checked every few thousand VM instructions). */
static int l_with_budget(lua_State *L)
{
    double seconds = luaL_checknumber(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    gf_host *h = gf_host_of(L);
    double prev = gf_host_set_budget(h, seconds);
    int nargs = lua_gettop(L) - 2;
    lua_pushcfunction(L, gf_host_msgh);
    lua_replace(L, 1); /* the handler takes the seconds' slot, below the function */
    int rc = lua_pcall(L, nargs, LUA_MULTRET, 1);
    gf_host_restore_budget(h, prev);
    lua_pushboolean(L, rc == LUA_OK);
    lua_replace(L, 1);
    return lua_gettop(L);
}

/* holding_interrupts(fn, ...) → fn's results; fn's error is raised again. An interrupt that arrives
 * meanwhile stays pending (core.host.interrupted() sees it) until fn returns. */
static int l_holding_interrupts(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    gf_host *h = gf_host_of(L);
    gf_host_hold_interrupts(h, 1);
    int rc = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    gf_host_hold_interrupts(h, -1);
    if (rc != LUA_OK)
        return lua_error(L);
    return lua_gettop(L);
}

static int l_interrupted(lua_State *L)
{
    lua_pushinteger(L, gf_interrupted);
    return 1;
}

static int l_clear_interrupt(lua_State *L)
{
    gf_interrupted = 0;
    (void)L;
    return 0;
}

/* The interrupt flag raised on purpose (the MCP server's notifications/cancelled): the running process step
 * stops its child and the hook raises exit 130, as for SIGINT; the caller clears it afterwards. */
static int l_set_interrupt(lua_State *L)
{
    lua_Integer sig = luaL_optinteger(L, 1, SIGINT);
    gf_interrupted = (sig_atomic_t)(sig > 0 ? sig : SIGINT);
    return 0;
}

static int l_take_hangup(lua_State *L)
{
    lua_pushboolean(L, gf_take_hangup());
    return 1;
}

/* huge_pages() → whether this process runs with glibc's huge-page tunable (core/host/hugepages.h) */
static int l_huge_pages(lua_State *L)
{
    lua_pushboolean(L, gf_hugepages_active());
    return 1;
}

/* huge_pages_reexec() → false, why: gpuflame re-executed with the tunable, from the start of main with the
 * same command line, and this call does not return; it returns only when that did not happen */
static int l_huge_pages_reexec(lua_State *L)
{
    const char *why = NULL;
    gf_hugepages_reexec(&why);
    lua_pushboolean(L, 0);
    lua_pushstring(L, why ? why : "not re-executed");
    return 2;
}

/* keep_freed_memory() → whether freed blocks now stay in the heap for later ones (core/mem.h gf_mem_keep_freed) */
static int l_keep_freed_memory(lua_State *L)
{
    lua_pushboolean(L, gf_mem_keep_freed());
    return 1;
}

int gf_luaopen_host(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"resource", l_resource},   {"cpus", l_cpus},   {"list", l_list},
        {"dirs", l_dirs},           {"add_dir", l_add_dir},
        {"with_budget", l_with_budget}, {"interrupted", l_interrupted},
        {"clear_interrupt", l_clear_interrupt}, {"set_interrupt", l_set_interrupt}, {"holding_interrupts", l_holding_interrupts}, {"take_hangup", l_take_hangup},
        {"huge_pages", l_huge_pages}, {"huge_pages_reexec", l_huge_pages_reexec},
        {"keep_freed_memory", l_keep_freed_memory}, {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_pushliteral(L, GPUFLAME_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
