/* The Lua host's internals shared with its binding (core/bind/l_host.c) and main.c. */
#ifndef GF_HOST_H
#define GF_HOST_H

#include <lua.h>
#include <signal.h>
#include <stddef.h>
#include "gf_err.h"
#include "interrupt.h"
#include "gpuflame.h"

/* Installs SIGINT/SIGTERM/SIGHUP handlers that only set flags. */
void gf_install_signal_handlers(void);
/* Last SIGHUP seen since the previous call (for policy reloads); returns 1 once per SIGHUP. */
int gf_take_hangup(void);

gf_host *gf_host_of(lua_State *L);
/* The host's Lua state (for fuzz targets and tests that drive Lua directly). */
lua_State *gf_host_lua(gf_host *host);
/* Resolves a logical resource name: disk search dirs first, then the bundle. On success *data is a
 * malloc'd copy and *origin a malloc'd "path" or "embedded:name". Returns 0, -1 when not found, or -2
 * (err set, exit 1) when running as root and the file found on disk fails gf_require_trusted: it is
 * refused, never skipped for the next directory or the bundle. */
int gf_host_resource(gf_host *host, const char *name, char **data, size_t *len, char **origin, gf_err *err);
/* Lists logical names under a prefix (e.g. "exporters/") across the search path and the bundle. */
int gf_host_list(gf_host *host, const char *prefix, char ***names, size_t *count);
size_t gf_host_dir_count(const gf_host *host);
const char *gf_host_dir(const gf_host *host, size_t i);

/* Message handler for lua_pcall: structured errors keep their code and gain a traceback; other
 * values become {code=1, msg=..., traceback=...}. */
int gf_host_msgh(lua_State *L);

/* The Lua traceback of the last failure ("" if none). */
const char *gf_host_traceback(const gf_host *host);

/* Time budget for the running Lua code: seconds <= 0 clears it. Returns the previous deadline. */
double gf_host_set_budget(gf_host *host, double seconds);
void gf_host_restore_budget(gf_host *host, double deadline);
/* While held (delta +1 ... -1), an interrupt stays pending instead of being raised by the hook, so that
 * the code reacting to it (writing summary.json, saying what was kept) runs to its end. */
void gf_host_hold_interrupts(gf_host *host, int delta);

#endif
