/* Binding: capture metadata of an nsys SQLite export (core/sqlite_meta.c).
 *
 *   core.sqlite_meta.read(path) → {nsys_version=, schema_version=, recorded_version=, gpus={...}, driver=, cuda_driver=, os=, cpu=,
 *     host_hash=, command_hash=, duration_ns=, start_utc=, kernels=, callchains=bool}
 * Fields the export lacks are absent. Hashes are SHA-256 hex; the command line itself never leaves C. */
#include <string.h>

#include "l_util.h"
#include "sqlite_meta.h"

static void set_str(lua_State *L, const char *k, const char *v)
{
    if (v && *v) {
        lua_pushstring(L, v);
        lua_setfield(L, -2, k);
    }
}

static int l_read(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    gf_capture_meta m;
    gf_err err;
    if (gf_sqlite_capture_meta(path, NULL, 0, &m, &err) != 0) {
        gf_capture_meta_free(&m);
        return gf_lua_raise(L, &err);
    }
    lua_createtable(L, 0, 14);
    set_str(L, "nsys_version", m.nsys_version);
    set_str(L, "schema_version", m.schema_version);
    set_str(L, "recorded_version", m.recorded_version);
    set_str(L, "driver", m.driver);
    set_str(L, "cuda_driver", m.cuda_driver);
    set_str(L, "os", m.os);
    set_str(L, "cpu", m.cpu);
    set_str(L, "host_hash", m.host_hash);
    set_str(L, "command_hash", m.command_hash);
    set_str(L, "start_utc", m.start_utc);
    if (m.duration_ns >= 0) {
        lua_pushinteger(L, m.duration_ns);
        lua_setfield(L, -2, "duration_ns");
    }
    if (m.gpus) {
        lua_createtable(L, (int)m.ngpus, 0);
        lua_Integer i = 0;
        const char *p = m.gpus;
        for (;;) {
            const char *nl = strchr(p, '\n');
            lua_pushlstring(L, p, nl ? (size_t)(nl - p) : strlen(p));
            lua_rawseti(L, -2, ++i);
            if (!nl)
                break;
            p = nl + 1;
        }
        lua_setfield(L, -2, "gpus");
    }
    lua_pushinteger(L, m.kernels);
    lua_setfield(L, -2, "kernels");
    lua_pushboolean(L, m.callchains > 0);
    lua_setfield(L, -2, "callchains");
    gf_capture_meta_free(&m);
    return 1;
}

int gf_luaopen_sqlite_meta(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"read", l_read},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
