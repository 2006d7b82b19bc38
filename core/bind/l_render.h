/* Template slots for other bindings (l_trace's write_timeline): the slots whose text a Lua function gives
 * once the caller is ready for it (core/bind/l_render.c). */
#ifndef GF_L_RENDER_H
#define GF_L_RENDER_H

#include <lua.h>
#include "render.h"

/* The JSON slots of slots[0..n) without a value yet (a slot table {json = function} at tbl[name]): each
 * function called now (e.g. the steps of a timeline page's axis while its columns compress on workers:
 * issue 42), its text left on the stack, which keeps it alive, as the slot's value; their garbage is then
 * collected. 0, or -1 with the error (a Lua error, or a result that is not a string) on the stack. */
int gf_lua_lazy_slots(lua_State *L, int tbl, gf_slot *slots, size_t n);

#endif
