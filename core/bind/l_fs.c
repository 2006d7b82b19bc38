/* Binding: file-system primitives (core/fs.c). */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "l_util.h"

static int l_which(lua_State *L)
{
    char *p = gf_which(luaL_checkstring(L, 1), luaL_optstring(L, 2, NULL));
    if (!p)
        return 0;
    lua_pushstring(L, p);
    free(p);
    return 1;
}

static int l_glob(lua_State *L)
{
    char **m;
    size_t n;
    gf_err err;
    if (gf_glob(luaL_checkstring(L, 1), &m, &n, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, m[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    gf_free_strv(m, n);
    return 1;
}

/* stat(path) → {type=, size=, mode=, mtime=, uid=, executable=, readable=} or nil, message */
static int l_stat(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    int follow = lua_isnone(L, 2) || lua_toboolean(L, 2);
    if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_createtable(L, 0, 7);
    const char *type = S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory"
                     : S_ISLNK(st.st_mode) ? "link" : "other";
    lua_pushstring(L, type);
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, (lua_Integer)st.st_size);
    lua_setfield(L, -2, "size");
    lua_pushinteger(L, (lua_Integer)(st.st_mode & 07777));
    lua_setfield(L, -2, "mode");
    lua_pushnumber(L, (lua_Number)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9);
    lua_setfield(L, -2, "mtime");
    lua_pushinteger(L, (lua_Integer)st.st_uid);
    lua_setfield(L, -2, "uid");
    lua_pushboolean(L, access(path, X_OK) == 0);
    lua_setfield(L, -2, "executable");
    lua_pushboolean(L, access(path, R_OK) == 0);
    lua_setfield(L, -2, "readable");
    return 1;
}

static int l_realpath(lua_State *L)
{
    char buf[PATH_MAX];
    if (!realpath(luaL_checkstring(L, 1), buf)) {
        lua_pushnil(L);
        lua_pushstring(L, strerror(errno));
        return 2;
    }
    lua_pushstring(L, buf);
    return 1;
}

static int l_mkdirp(lua_State *L)
{
    gf_err err;
    if (gf_mkdir_p(luaL_checkstring(L, 1), (int)luaL_optinteger(L, 2, 0755), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

/* private_dir(path): created 0700, or an existing one checked (gf_private_dir); raises when refused */
static int l_private_dir(lua_State *L)
{
    gf_err err;
    if (gf_private_dir(luaL_checkstring(L, 1), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_mkdtemp(lua_State *L)
{
    const char *prefix = luaL_optstring(L, 1, NULL);
    char buf[PATH_MAX];
    if (!prefix) {
        const char *tmp = getenv("TMPDIR");
        snprintf(buf, sizeof buf, "%s/gpuflame-", tmp && *tmp ? tmp : "/tmp");
        prefix = buf;
    }
    gf_err err;
    char *d = gf_mkdtemp(prefix, &err);
    if (!d)
        return gf_lua_raise(L, &err);
    lua_pushstring(L, d);
    free(d);
    return 1;
}

static int l_write_atomic(lua_State *L)
{
    size_t len;
    const char *path = luaL_checkstring(L, 1);
    const char *data = luaL_checklstring(L, 2, &len);
    gf_err err;
    if (gf_write_atomic(path, data, len, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_read(lua_State *L)
{
    char *data;
    size_t len;
    gf_err err;
    if (gf_read_file(luaL_checkstring(L, 1), &data, &len, &err) != 0)
        return gf_lua_raise(L, &err);
    lua_pushlstring(L, data, len);
    free(data);
    return 1;
}

static int l_remove_tree(lua_State *L)
{
    gf_err err;
    if (gf_remove_tree(luaL_checkstring(L, 1), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_listdir(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    DIR *d = opendir(path);
    if (!d) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_newtable(L);
    lua_Integer n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        lua_pushstring(L, de->d_name);
        lua_rawseti(L, -2, ++n);
    }
    closedir(d);
    return 1;
}

static int l_rename(lua_State *L)
{
    const char *a = luaL_checkstring(L, 1), *b = luaL_checkstring(L, 2);
    if (rename(a, b) != 0)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "rename %s -> %s: %s", a, b, strerror(errno));
    return 0;
}

static int l_getcwd(lua_State *L)
{
    char buf[PATH_MAX];
    if (!getcwd(buf, sizeof buf))
        return gf_lua_raisef(L, GF_EXIT_ERROR, "getcwd: %s", strerror(errno));
    lua_pushstring(L, buf);
    return 1;
}

static int l_copy(lua_State *L)
{
    const char *src = luaL_checkstring(L, 1), *dst = luaL_checkstring(L, 2);
    FILE *in = fopen(src, "rb");
    if (!in)
        return gf_lua_raisef(L, GF_EXIT_INPUT, "%s: cannot read: %s", src, strerror(errno));
    gf_out out;
    gf_err err;
    if (gf_out_open(&out, dst, &err) != 0) {
        fclose(in);
        return gf_lua_raise(L, &err);
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        if (fwrite(buf, 1, n, out.fp) != n)
            break;
    }
    int bad = ferror(in);
    fclose(in);
    if (bad) {
        gf_out_abort(&out);
        return gf_lua_raisef(L, GF_EXIT_INPUT, "%s: read error", src);
    }
    if (gf_out_commit(&out, &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

static int l_chmod(lua_State *L)
{
    const char *p = luaL_checkstring(L, 1);
    if (chmod(p, (mode_t)luaL_checkinteger(L, 2)) != 0)
        return gf_lua_raisef(L, GF_EXIT_ERROR, "chmod %s: %s", p, strerror(errno));
    return 0;
}

/* touch(path): sets the file's access and modification times to now (the export cache's last use);
 * false, message when it cannot. */
static int l_touch(lua_State *L)
{
    const char *p = luaL_checkstring(L, 1);
    if (utimensat(AT_FDCWD, p, NULL, 0) != 0) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, "%s: %s", p, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* trusted(path) → true | false, message: the root trust rule (gf_check_trusted), whoever runs it.
 * require_trusted(path): raises that message (exit 1) when running as root and the rule fails. */
static int l_trusted(lua_State *L)
{
    gf_err err;
    if (gf_check_trusted(luaL_checkstring(L, 1), &err) != 0) {
        lua_pushboolean(L, 0);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_require_trusted(lua_State *L)
{
    gf_err err;
    if (gf_require_trusted(luaL_checkstring(L, 1), &err) != 0)
        return gf_lua_raise(L, &err);
    return 0;
}

int gf_luaopen_fs(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"which", l_which},     {"glob", l_glob},       {"stat", l_stat},
        {"realpath", l_realpath}, {"mkdirp", l_mkdirp}, {"mkdtemp", l_mkdtemp},
        {"write_atomic", l_write_atomic}, {"read", l_read}, {"remove_tree", l_remove_tree},
        {"listdir", l_listdir}, {"rename", l_rename},   {"getcwd", l_getcwd},
        {"copy", l_copy},       {"chmod", l_chmod},     {"trusted", l_trusted},
        {"require_trusted", l_require_trusted}, {"touch", l_touch}, {"private_dir", l_private_dir},
        {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
