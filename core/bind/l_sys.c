/* Binding: the system's clocks, name and terminal — the small POSIX helpers Lua lacks (core.sys). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "l_util.h"

static int l_hostname(lua_State *L)
{
    char buf[256];
    if (gethostname(buf, sizeof buf) != 0)
        strcpy(buf, "localhost");
    buf[sizeof buf - 1] = '\0';
    lua_pushstring(L, buf);
    return 1;
}

/* Wall-clock time: seconds (float) since the epoch, and monotonic seconds. */
static int l_now(lua_State *L)
{
    struct timespec ts, mono;
    clock_gettime(CLOCK_REALTIME, &ts);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    lua_pushnumber(L, (lua_Number)ts.tv_sec + ts.tv_nsec / 1e9);
    lua_pushnumber(L, (lua_Number)mono.tv_sec + mono.tv_nsec / 1e9);
    return 2;
}

/* ISO 8601 UTC with microseconds, e.g. 2026-11-29T18:37:43.123456+00:00 */
static int l_isotime(lua_State *L)
{
    double t = luaL_optnumber(L, 1, -1);
    struct timespec ts;
    if (t < 0) {
        clock_gettime(CLOCK_REALTIME, &ts);
    } else {
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    }
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char buf[64];
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof buf - n, ".%06ld+00:00", ts.tv_nsec / 1000);
    lua_pushstring(L, buf);
    return 1;
}

static int l_sleep(lua_State *L)
{
    double s = luaL_checknumber(L, 1);
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        lua_getglobal(L, "require"); /* cheap check point; an interrupt ends the sleep */
        lua_pop(L, 1);
        break;
    }
    return 0;
}

static int l_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty((int)luaL_optinteger(L, 1, 2)));
    return 1;
}

/* The effective user id (a private directory's name and owner; root's state lives under /run) */
static int l_uid(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)geteuid());
    return 1;
}

int gf_luaopen_sys(lua_State *L)
{
    static const luaL_Reg fns[] = {{"hostname", l_hostname}, {"now", l_now},       {"isotime", l_isotime},
                                   {"sleep", l_sleep},       {"isatty", l_isatty},
                                   {"uid", l_uid},           {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
