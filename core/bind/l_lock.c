/* Binding: advisory file locks (flock) between gpuflame processes, e.g. one uploader per spool.
 *   core.lock.try(path) → handle, or nil + reason when another process holds it (never blocks)
 *   handle:release(); the lock also goes with the handle (GC) or the process. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "l_util.h"

#define LOCK_MT "gpuflame.lock"

typedef struct llock {
    int fd;
} llock;

static int l_try(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "%s: cannot open the lock file: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        lua_pushnil(L);
        lua_pushstring(L, e == EWOULDBLOCK ? "held by another process" : strerror(e));
        return 2;
    }
    llock *lk = lua_newuserdatauv(L, sizeof *lk, 0);
    lk->fd = fd;
    luaL_setmetatable(L, LOCK_MT);
    return 1;
}

static int m_release(lua_State *L)
{
    llock *lk = luaL_checkudata(L, 1, LOCK_MT);
    if (lk->fd >= 0) {
        flock(lk->fd, LOCK_UN);
        close(lk->fd);
        lk->fd = -1;
    }
    return 0;
}

int gf_luaopen_lock(lua_State *L)
{
    static const luaL_Reg methods[] = {{"release", m_release}, {NULL, NULL}};
    gf_new_class(L, LOCK_MT, methods, m_release);
    static const luaL_Reg fns[] = {{"try", l_try}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
