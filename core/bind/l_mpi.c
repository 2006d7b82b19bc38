/* Binding: MPI (core/mpi/gf_mpi.h) as require("gpuflame.core").mpi, present only in bin/gpuflame-mpi
 * (`make mpi`; the default build leaves this file out, so core.mpi is nil there). gpuflame.mpi uses it.
 *   mpi.rank(), mpi.size()
 *   mpi.send(dest, string) → bytes          mpi.recv(src|-1) → string, from, bytes
 *   mpi.send_model(dest, trace, provenance_json) → bytes   (the model file format, model_file.h)
 *   mpi.recv_model(src|-1) → trace, provenance_json, from, bytes
 *   mpi.allgather(string) → {string per rank, in rank order}
 *   mpi.digest(trace, max_events, keep_partners) → digest, touch  (trace_digest.h; touch: the lane touches as
 *     packed int64 pairs, for core.trace.merge's touch)
 *   mpi.share_done()  -- this rank handed its share to rank 0: its end is a clean exit (gf_mpi_share_done) */
#include <stdlib.h>

#include "gf_mpi.h"
#include "l_trace.h"
#include "l_util.h"
#include "model_file.h"
#include "trace_digest.h"

static int l_rank(lua_State *L)
{
    lua_pushinteger(L, gf_mpi_rank());
    return 1;
}

static int l_size(lua_State *L)
{
    lua_pushinteger(L, gf_mpi_size());
    return 1;
}

static int check_dest(lua_State *L, int idx)
{
    lua_Integer d = luaL_checkinteger(L, idx);
    if (d < 0 || d >= gf_mpi_size())
        gf_lua_raisef(L, GF_EXIT_ERROR, "mpi: no rank %lld", (long long)d);
    return (int)d;
}

static int l_send(lua_State *L)
{
    int dest = check_dest(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    gf_err err;
    if (gf_mpi_send(dest, s, len, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)len);
    return 1;
}

static int l_recv(lua_State *L)
{
    int src = (int)luaL_optinteger(L, 1, -1);
    char *buf;
    size_t len;
    int from = -1;
    gf_err err;
    if (gf_mpi_recv(src, &buf, &len, &from, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushlstring(L, buf, len);
    free(buf);
    lua_pushinteger(L, from);
    lua_pushinteger(L, (lua_Integer)len);
    return 3;
}

static int l_send_model(lua_State *L)
{
    int dest = check_dest(L, 1);
    gf_trace *t = gf_lua_check_trace(L, 2);
    size_t plen;
    const char *prov = luaL_checklstring(L, 3, &plen);
    char *buf;
    size_t len;
    gf_err err;
    if (gf_model_to_buffer(t, prov, plen, &buf, &len, &err) != 0)
        return gf_lua_raise(L, &err);
    int rc = gf_mpi_send(dest, buf, len, &err);
    free(buf);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    lua_pushinteger(L, (lua_Integer)len);
    return 1;
}

static int l_recv_model(lua_State *L)
{
    int src = (int)luaL_optinteger(L, 1, -1);
    char *buf, *prov, name[64];
    size_t len;
    int from = -1;
    gf_trace *t;
    gf_err err;
    if (gf_mpi_recv(src, &buf, &len, &from, &err) != 0)
        return gf_lua_raise(L, &err);
    snprintf(name, sizeof name, "the model sent by rank %d", from);
    int rc = gf_model_from_buffer(buf, len, name, &t, &prov, &err);
    free(buf);
    if (rc != 0)
        return gf_lua_raise(L, &err);
    gf_lua_push_trace(L, t);
    lua_pushstring(L, prov);
    free(prov);
    lua_pushinteger(L, from);
    lua_pushinteger(L, (lua_Integer)len);
    return 4;
}

static int l_allgather(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int n = gf_mpi_size();
    char **out = calloc((size_t)n, sizeof *out);
    size_t *lens = calloc((size_t)n, sizeof *lens);
    gf_err err = {0};
    int rc = out && lens ? gf_mpi_allgather(s, len, out, lens, &err) : gf_errf(&err, GF_EXIT_ERROR, "mpi: out of memory");
    if (rc == 0) {
        lua_createtable(L, n, 0);
        for (int r = 0; r < n; r++) {
            lua_pushlstring(L, out[r], lens[r]);
            lua_rawseti(L, -2, r + 1);
        }
    }
    for (int r = 0; out && r < n; r++)
        free(out[r]);
    free(out);
    free(lens);
    return rc == 0 ? 1 : gf_lua_raise(L, &err);
}

static int l_digest(lua_State *L)
{
    gf_trace *t = gf_lua_check_trace(L, 1);
    lua_Integer max = luaL_checkinteger(L, 2);
    int keep = lua_toboolean(L, 3);
    gf_trace *d;
    int64_t *touch;
    size_t n;
    gf_err err;
    if (gf_trace_digest(t, max > 0 ? (size_t)max : 0, keep, &d, &touch, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    gf_lua_push_trace(L, d);
    lua_pushlstring(L, (const char *)touch, n * 2 * sizeof *touch);
    free(touch);
    return 2;
}

static int l_share_done(lua_State *L)
{
    (void)L;
    gf_mpi_share_done();
    return 0;
}

int gf_luaopen_mpi(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"rank", l_rank},           {"size", l_size},         {"send", l_send},
        {"recv", l_recv},           {"send_model", l_send_model}, {"recv_model", l_recv_model},
        {"allgather", l_allgather}, {"share_done", l_share_done}, {"digest", l_digest},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
