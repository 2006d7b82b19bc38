/* Binding: the exit codes (core/gf_err.h), as require("gpuflame.core").exit = {OK = 0, ERROR = 1, ...}. */
#include "gf_err.h"
#include "l_util.h"

int gf_luaopen_exit(lua_State *L)
{
    lua_newtable(L);
#define GF_EXIT_FIELD(name, value)                                                                          \
    lua_pushinteger(L, value);                                                                              \
    lua_setfield(L, -2, #name);
    GF_EXIT_CODES(GF_EXIT_FIELD)
#undef GF_EXIT_FIELD
    return 1;
}
