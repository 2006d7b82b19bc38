/* Binding: model files (core/model_file.h, docs/MODEL_FORMAT.md) as require("gpuflame.core").model:
 *   model.save(trace, path, provenance_json [, tables]) -- atomic: the file appears complete or not at all;
 *                                              tables: a database from build_tables, carried for stats
 *   model.open(path) → trace, provenance_json  -- exit 6 naming the file when it is damaged or foreign
 *   model.build_tables(export, dest)           -- the export's tables stats reads (core/model_tables.c)
 *   model.tables(path, dest) → bool            -- the model's tables written to dest; false: it has none
 *   model.is_model(head) → bool                -- the first bytes of a file start with the magic */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "l_trace.h"
#include "l_util.h"
#include "model_file.h"
#include "model_tables.h"

static int l_save(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    const char *path = luaL_checkstring(L, 2);
    size_t plen;
    const char *prov = luaL_checklstring(L, 3, &plen);
    const char *tables = luaL_optstring(L, 4, NULL);
    gf_err err;
    gf_out o;
    if (gf_out_open(&o, path, &err) != 0)
        return gf_lua_raise(L, &err);
    if (gf_model_write(t, prov, plen, tables, o.fp, &err) != 0) {
        gf_out_fail(&o, &err);
        return gf_lua_raise(L, &err);
    }
    if (gf_out_commit_unless_interrupted(&o, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_lua_raisef(L, GF_EXIT_INPUT, "%s: cannot read: %s", path, strerror(errno));
    gf_trace *t;
    char *prov;
    gf_err err;
    int rc = gf_model_read(f, path, &t, &prov, &err);
    fclose(f);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    gf_lua_push_trace(L, t);
    lua_pushstring(L, prov);
    free(prov);
    return 2;
}

static int l_build_tables(lua_State *L)
{
    gf_err err;
    if (gf_model_tables_build(luaL_checkstring(L, 1), luaL_checkstring(L, 2), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_tables(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1), *dest = luaL_checkstring(L, 2);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_lua_raisef(L, GF_EXIT_INPUT, "%s: cannot read: %s", path, strerror(errno));
    int present = 0;
    gf_err err;
    int rc = gf_model_tables(f, path, dest, &present, &err);
    fclose(f);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_pushboolean(L, present);
    return 1;
}

static int l_is_model(lua_State *L)
{
    size_t n;
    const char *head = luaL_checklstring(L, 1, &n);
    lua_pushboolean(L, n >= 8 && memcmp(head, GF_MODEL_MAGIC, 8) == 0);
    return 1;
}

int gf_luaopen_model(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"save", l_save},
        {"open", l_open},
        {"is_model", l_is_model},
        {"build_tables", l_build_tables},
        {"tables", l_tables},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    lua_pushinteger(L, GF_MODEL_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
