/* The NVTX groups' table of Lua ({[name id] = grouped text}: lua/gpuflame/nvtx_group.lua) handed to C
 * (l_trace.h gf_lua_set_nvtx_groups): for tr:set_nvtx_groups (l_trace.c) and the flamegraph job's set_groups
 * (l_flame_job.c). Not a module of its own. */
#include <stdint.h>
#include <stdlib.h>

#include "l_trace.h"
#include "l_util.h"

static void groups_arg(lua_State *L, int idx, int32_t **raw, const char ***text, size_t **len, size_t *n)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    size_t m = 0, k = 0;
    for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1))
        m++;
    *raw = malloc((m ? m : 1) * sizeof **raw);
    *text = malloc((m ? m : 1) * sizeof **text);
    *len = malloc((m ? m : 1) * sizeof **len);
    int oom = !*raw || !*text || !*len;
    const char *bad = oom ? "nvtx groups: out of memory" : NULL;
    lua_pushnil(L);
    while (!bad && lua_next(L, idx) && k < m) {
        if (!lua_isinteger(L, -2) || lua_type(L, -1) != LUA_TSTRING || lua_tointeger(L, -2) < 0 ||
            lua_tointeger(L, -2) > INT32_MAX) {
            bad = "set_nvtx_groups: expects {[name id] = grouped text}";
            lua_pop(L, 2);
            break;
        }
        (*raw)[k] = (int32_t)lua_tointeger(L, -2);
        (*text)[k] = lua_tolstring(L, -1, &(*len)[k]);
        k++;
        lua_pop(L, 1);
    }
    if (bad) {
        free(*raw);
        free(*text);
        free(*len);
        gf_lua_raisef(L, oom ? GF_EXIT_ERROR : GF_EXIT_USAGE, "%s", bad);
    }
    *n = k;
}

void gf_lua_set_nvtx_groups(lua_State *L, int idx, gf_lua_groups_setter set, void *ctx)
{
    int32_t *raw;
    const char **text;
    size_t *len, n;
    groups_arg(L, idx, &raw, &text, &len, &n);
    gf_err err;
    int rc = set(ctx, raw, text, len, n, &err);
    free(raw);
    free(text);
    free(len);
    if (rc != 0)
        gf_lua_raise(L, &err);
}
