/* The Lua host: one lua_State per gf_host, a memory cap, an instruction-count hook that enforces time
 * budgets and turns SIGINT into a Lua error, a package searcher that serves modules from the search
 * path and then the embedded bundle, and protected calls with a traceback message handler. */
#include "host.h"
#include "mem.h"

#include <dirent.h>
#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bundle.h"
#include "fs.h"
#include "gf_err.h"
#include "l_util.h"

#define GF_DEFAULT_LUA_MEM_MB 4096
#define HOOK_COUNT 10000

static volatile sig_atomic_t hangup_seen = 0;

struct gf_host {
    lua_State *L;
    char **dirs;
    size_t ndirs;
    size_t user_dirs; /* dirs added through gf_host_add_path, kept ahead of the env ones */
    size_t mem_used;
    size_t mem_limit;
    double deadline; /* CLOCK_MONOTONIC seconds, 0 = none */
    double budget;
    int interrupts_held; /* > 0: the hook leaves a pending interrupt to the code that is cleaning up */
    char error[2048];
    char traceback[8192];
};

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
    if (sig == SIGHUP)
        hangup_seen = 1;
    else
        gf_interrupted = sig;
}

void gf_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* Past RLIMIT_FSIZE a write fails with EFBIG instead of killing us: the atomic writer then reports
     * "File too large" naming the output and keeps the old file. */
    signal(SIGXFSZ, SIG_IGN);
}

int gf_take_hangup(void)
{
    if (!hangup_seen)
        return 0;
    hangup_seen = 0;
    return 1;
}

static void *host_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    gf_host *h = ud;
    if (ptr == NULL)
        osize = 0;
    if (nsize == 0) {
        free(ptr);
        h->mem_used -= osize;
        return NULL;
    }
    if (nsize > osize && h->mem_used + (nsize - osize) > h->mem_limit)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p)
        h->mem_used = h->mem_used - osize + nsize;
    return p;
}

static void raise_in_hook(lua_State *L, const char *what)
{
    lua_Debug ar;
    char where[512] = "";
    if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0)
        snprintf(where, sizeof where, "%s:%d: ", ar.short_src, ar.currentline);
    gf_lua_raisef(L, strcmp(what, "interrupted") == 0 ? GF_EXIT_INTERRUPTED : GF_EXIT_ERROR, "%s%s", where,
                  what);
}

static void host_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    gf_host *h = gf_host_of(L);
    if (gf_interrupted && !(h && h->interrupts_held > 0)) {
        raise_in_hook(L, "interrupted");
    }
    if (h && h->deadline > 0 && now_mono() > h->deadline) {
        char msg[160];
        snprintf(msg, sizeof msg, "script ran longer than its time budget of %g s and was stopped (endless loop?)",
                 h->budget);
        h->deadline = 0; /* fire once; the error unwinds to the budgeted call */
        raise_in_hook(L, msg);
    }
}

gf_host *gf_host_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

double gf_host_set_budget(gf_host *host, double seconds)
{
    double prev = host->deadline;
    host->budget = seconds;
    host->deadline = seconds > 0 ? now_mono() + seconds : 0;
    return prev;
}

void gf_host_restore_budget(gf_host *host, double deadline)
{
    host->deadline = deadline;
}

void gf_host_hold_interrupts(gf_host *host, int delta)
{
    host->interrupts_held += delta;
}

static int add_dir(gf_host *h, const char *dir, size_t at)
{
    if (GF_RESIZE(h->dirs, h->ndirs + 1) != 0)
        return -1;
    char *copy = strdup(dir);
    if (!copy)
        return -1;
    memmove(h->dirs + at + 1, h->dirs + at, (h->ndirs - at) * sizeof *h->dirs);
    h->dirs[at] = copy;
    h->ndirs++;
    return 0;
}

int gf_host_add_path(gf_host *host, const char *dir)
{
    if (!dir || !*dir)
        return GF_EXIT_USAGE;
    if (add_dir(host, dir, host->user_dirs) != 0)
        return GF_EXIT_ERROR;
    host->user_dirs++;
    return 0;
}

size_t gf_host_dir_count(const gf_host *host)
{
    return host->ndirs;
}

const char *gf_host_dir(const gf_host *host, size_t i)
{
    return i < host->ndirs ? host->dirs[i] : NULL;
}

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int gf_host_resource(gf_host *host, const char *name, char **data, size_t *len, char **origin, gf_err *err)
{
    *data = NULL;
    *origin = NULL;
    *len = 0;
    if (strstr(name, "..") || name[0] == '/')
        return -1;
    for (size_t i = 0; i < host->ndirs; i++) {
        size_t n = strlen(host->dirs[i]) + strlen(name) + 2;
        char *path = malloc(n);
        if (!path)
            return -1;
        snprintf(path, n, "%s/%s", host->dirs[i], name);
        if (is_regular(path)) {
            if (gf_require_trusted(path, err) != 0) {
                free(path);
                return -2;
            }
            gf_err rerr;
            if (gf_read_file(path, data, len, &rerr) == 0) {
                *origin = path;
                return 0;
            }
        }
        free(path);
    }
    const gf_bundle_entry *e = gf_bundle_find(name);
    if (!e)
        return -1;
    *data = malloc(e->len + 1);
    size_t on = strlen(name) + 10;
    *origin = malloc(on);
    if (!*data || !*origin) {
        free(*data);
        free(*origin);
        *data = *origin = NULL;
        return -1;
    }
    memcpy(*data, e->data, e->len + 1);
    snprintf(*origin, on, "embedded:%s", name);
    *len = e->len;
    return 0;
}

static int push_name(char ***names, size_t *count, size_t *cap, const char *name)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*names)[i], name) == 0)
            return 0;
    if (gf_grow((void **)names, cap, *count + 1, sizeof **names, 16) != 0)
        return -1;
    (*names)[*count] = strdup(name);
    if (!(*names)[*count])
        return -1;
    (*count)++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gf_host_list(gf_host *host, const char *prefix, char ***names, size_t *count)
{
    size_t cap = 0;
    *names = NULL;
    *count = 0;
    size_t plen = strlen(prefix);
    /* Only the directory part of the prefix is listed on disk ("exporters/" → D/exporters). */
    for (size_t i = 0; i < host->ndirs; i++) {
        size_t n = strlen(host->dirs[i]) + plen + 2;
        char *dirpath = malloc(n);
        if (!dirpath)
            return -1;
        snprintf(dirpath, n, "%s/%s", host->dirs[i], prefix);
        DIR *d = opendir(dirpath);
        if (d) {
            struct dirent *de;
            while ((de = readdir(d)) != NULL) {
                if (de->d_name[0] == '.')
                    continue;
                size_t fn = strlen(dirpath) + strlen(de->d_name) + 2;
                char *full = malloc(fn);
                if (!full)
                    break;
                snprintf(full, fn, "%s/%s", dirpath, de->d_name);
                if (is_regular(full)) {
                    size_t ln = plen + strlen(de->d_name) + 2;
                    char *logical = malloc(ln);
                    if (logical) {
                        snprintf(logical, ln, "%s%s%s", prefix,
                                 (plen && prefix[plen - 1] != '/') ? "/" : "", de->d_name);
                        push_name(names, count, &cap, logical);
                        free(logical);
                    }
                }
                free(full);
            }
            closedir(d);
        }
        free(dirpath);
    }
    for (size_t i = 0; i < gf_bundle_count; i++)
        if (strncmp(gf_bundle_entries[i].name, prefix, plen) == 0)
            push_name(names, count, &cap, gf_bundle_entries[i].name);
    if (*count)
        qsort(*names, *count, sizeof **names, cmp_str);
    return 0;
}

/* package.searchers entry: module "a.b" → resource "a/b.lua" on the search path or in the bundle. */
static int searcher(lua_State *L)
{
    const char *mod = luaL_checkstring(L, 1);
    gf_host *h = gf_host_of(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *p = mod; *p; p++)
        luaL_addchar(&b, *p == '.' ? '/' : *p);
    luaL_addstring(&b, ".lua");
    luaL_pushresult(&b);
    const char *name = lua_tostring(L, -1);
    char *data, *origin;
    size_t len;
    gf_err err;
    int found = gf_host_resource(h, name, &data, &len, &origin, &err);
    if (found == -2)
        return gf_lua_raise(L, &err);
    if (found != 0) {
        lua_pushfstring(L, "no file '%s' on the gpuflame search path or in the bundle", name);
        return 1;
    }
    /* Chunk names: "@path" for disk files so errors say "path:line:"; "=name" for embedded ones. */
    int on_disk = strncmp(origin, "embedded:", 9) != 0;
    lua_pushfstring(L, "%s%s", on_disk ? "@" : "=", on_disk ? origin : name);
    int rc = luaL_loadbufferx(L, data, len, lua_tostring(L, -1), "t");
    free(data);
    if (rc != LUA_OK) {
        free(origin);
        return lua_error(L);
    }
    lua_pushstring(L, origin);
    free(origin);
    return 2;
}

#define GF_BINDING(name) int gf_luaopen_##name(lua_State *L);
#include "bindings.h"
#undef GF_BINDING
/* Only bin/gpuflame-mpi links core/bind/l_mpi.c (`make mpi`): core.mpi is nil in the default build. */
int gf_luaopen_mpi(lua_State *L) __attribute__((weak));

static int open_core(lua_State *L)
{
    lua_newtable(L);
#define GF_BINDING(name)                                                                                     \
    lua_pushcfunction(L, gf_luaopen_##name);                                                                 \
    lua_call(L, 0, 1);                                                                                       \
    lua_setfield(L, -2, #name);
#include "bindings.h"
#undef GF_BINDING
    if (gf_luaopen_mpi) {
        lua_pushcfunction(L, gf_luaopen_mpi);
        lua_call(L, 0, 1);
        lua_setfield(L, -2, "mpi");
    }
    return 1;
}

static int error_tostring(lua_State *L)
{
    lua_getfield(L, 1, "msg");
    if (!lua_isstring(L, -1))
        lua_pushliteral(L, "error");
    return 1;
}

/* Message handler: structured errors pass through; anything else becomes "msg\ntraceback". */
int gf_host_msgh(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_getfield(L, 1, "code");
        int has_code = lua_isinteger(L, -1);
        lua_pop(L, 1);
        if (has_code) {
            if (lua_getfield(L, 1, "traceback") == LUA_TNIL) {
                lua_pop(L, 1);
                luaL_traceback(L, L, NULL, 1);
                lua_setfield(L, 1, "traceback");
            } else {
                lua_pop(L, 1);
            }
            lua_settop(L, 1);
            return 1;
        }
    }
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, GF_EXIT_ERROR);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, msg);
    lua_setfield(L, -2, "msg");
    luaL_traceback(L, L, NULL, 1);
    lua_setfield(L, -2, "traceback");
    luaL_setmetatable(L, "gpuflame.error");
    return 1;
}

/* Calls the function at the top with nargs under msgh; stores the error and returns an exit code.
 * On success leaves nresults values. */
static int pcall_host(gf_host *h, int nargs, int nresults)
{
    lua_State *L = h->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, gf_host_msgh);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    h->error[0] = '\0';
    h->traceback[0] = '\0';
    if (rc == LUA_OK)
        return 0;
    int code = GF_EXIT_ERROR;
    if (rc == LUA_ERRMEM) {
        snprintf(h->error, sizeof h->error,
                 "Lua memory limit of %zu MiB exceeded (a policy or script allocates without bound?); "
                 "set GPUFLAME_LUA_MEM_MB to raise it",
                 h->mem_limit >> 20);
    } else if (lua_type(L, -1) == LUA_TTABLE) {
        lua_getfield(L, -1, "code");
        if (lua_isinteger(L, -1))
            code = (int)lua_tointeger(L, -1);
        lua_getfield(L, -2, "msg");
        snprintf(h->error, sizeof h->error, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_getfield(L, -3, "traceback");
        snprintf(h->traceback, sizeof h->traceback, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
        lua_pop(L, 3);
    } else {
        snprintf(h->error, sizeof h->error, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "error");
    }
    /* Keep the error object for the CLI (it prints the traceback under -v). */
    lua_setfield(L, LUA_REGISTRYINDEX, "gpuflame.last_error");
    if (code == 0)
        code = GF_EXIT_ERROR;
    return code;
}

static int open_everything(lua_State *L)
{
    luaL_openlibs(L);
    luaL_newmetatable(L, "gpuflame.error");
    lua_pushcfunction(L, error_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);

    /* Modules come only from the gpuflame search path and the bundle: no package.path/cpath lookups
     * (gpuflame often runs as root; a stray .so in the working directory must not load). */
    lua_getglobal(L, "package");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "path");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_getfield(L, -1, "searchers");
    lua_pushnil(L);
    lua_rawseti(L, -2, 4);
    lua_pushnil(L);
    lua_rawseti(L, -2, 3);
    lua_pushcfunction(L, searcher);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 1);
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, open_core);
    lua_setfield(L, -2, "gpuflame.core");
    lua_pop(L, 2);
    return 0;
}

static void add_env_dirs(gf_host *h)
{
    const char *env = getenv("GPUFLAME_PATH");
    if (env && *env) {
        char *copy = strdup(env);
        if (copy) {
            char *save = NULL;
            for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
                add_dir(h, tok, h->ndirs);
            free(copy);
        }
    }
    const char *home = getenv("HOME");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    char buf[4096];
    if (xdg && *xdg) {
        snprintf(buf, sizeof buf, "%s/gpuflame", xdg);
        add_dir(h, buf, h->ndirs);
    } else if (home && *home) {
        snprintf(buf, sizeof buf, "%s/.config/gpuflame", home);
        add_dir(h, buf, h->ndirs);
    }
    add_dir(h, "/etc/gpuflame", h->ndirs);
}

gf_host *gf_host_new(void)
{
    gf_host *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    size_t mb = GF_DEFAULT_LUA_MEM_MB;
    const char *env = getenv("GPUFLAME_LUA_MEM_MB");
    if (env && atol(env) > 0)
        mb = (size_t)atol(env);
    h->mem_limit = mb << 20;
    h->L = lua_newstate(host_alloc, h);
    if (!h->L) {
        free(h);
        return NULL;
    }
    lua_sethook(h->L, host_hook, LUA_MASKCOUNT, HOOK_COUNT);
    add_env_dirs(h);
    lua_pushcfunction(h->L, open_everything);
    if (pcall_host(h, 0, 0) != 0) {
        gf_host_free(h);
        return NULL;
    }
    return h;
}

void gf_host_free(gf_host *host)
{
    if (!host)
        return;
    if (host->L)
        lua_close(host->L);
    gf_free_strv(host->dirs, host->ndirs);
    free(host);
}

const char *gf_host_error(const gf_host *host)
{
    return host->error;
}

static void push_args(lua_State *L, int argc, const char *const *argv)
{
    lua_createtable(L, argc, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* Calls require(mod)[fn](args...) and converts its integer result into the exit code. */
static int call_entry(gf_host *h, const char *fn, int nargs)
{
    lua_State *L = h->L;
    int rc = pcall_host(h, nargs, 1);
    if (rc != 0)
        return rc;
    int code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
    (void)fn;
    lua_pop(L, 1);
    return code;
}

static int entry_trampoline(lua_State *L)
{
    /* upvalue 1: function name in gpuflame.main; args on the stack */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "gpuflame.main");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, lua_tostring(L, lua_upvalueindex(1)));
    lua_insert(L, 1);
    lua_pop(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int run_entry(gf_host *h, const char *fn, int nextra, int argc, const char *const *argv)
{
    lua_State *L = h->L;
    lua_pushstring(L, fn);
    lua_pushcclosure(L, entry_trampoline, 1);
    if (nextra)
        lua_insert(L, -1 - nextra);
    push_args(L, argc, argv);
    return call_entry(h, fn, nextra + 1);
}

int gf_host_run_cli(gf_host *host, int argc, const char *const *argv)
{
    return run_entry(host, "cli", 0, argc, argv);
}

int gf_host_run_script(gf_host *host, const char *path, int argc, const char *const *argv)
{
    lua_pushstring(host->L, path);
    return run_entry(host, "script", 1, argc, argv);
}

int gf_host_load_policy(gf_host *host, const char *file)
{
    lua_pushstring(host->L, file);
    return run_entry(host, "load_policy", 1, 0, NULL);
}

const char *gf_host_traceback(const gf_host *host)
{
    return host->traceback;
}

lua_State *gf_host_lua(gf_host *host)
{
    return host->L;
}
