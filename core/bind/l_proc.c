/* Binding: the process runner. core.proc.run(opts) → result; core.proc.spawn(opts) → handle. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "l_util.h"
#include "proc.h"

extern char **environ;

#define PROC_MT "gpuflame.proc"

typedef struct lproc {
    gf_proc *p;
} lproc;

static enum gf_io io_mode(lua_State *L, const char *v, int is_err)
{
    if (!v || !strcmp(v, "capture"))
        return GF_IO_CAPTURE;
    if (!strcmp(v, "inherit"))
        return GF_IO_INHERIT;
    if (!strcmp(v, "null"))
        return GF_IO_NULL;
    if (!strcmp(v, "file"))
        return GF_IO_FILE;
    if (!strcmp(v, "tee"))
        return GF_IO_TEE;
    if (is_err && !strcmp(v, "stdout"))
        return GF_IO_STDOUT;
    gf_lua_raisef(L, GF_EXIT_USAGE, "process runner: unknown output mode '%s'", v);
    return GF_IO_NULL;
}

/* Builds a NULL-terminated string array from a Lua list (argv) or map (env) at idx; the strings stay
 * owned by Lua (anchored in the options table), the array is malloc'd. */
static const char **list_of(lua_State *L, int idx, const char *what)
{
    size_t n = lua_rawlen(L, idx);
    const char **v = calloc(n + 1, sizeof *v);
    if (!v)
        gf_lua_raisef(L, GF_EXIT_ERROR, "out of memory");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        if (!lua_isstring(L, -1)) {
            free(v);
            gf_lua_raisef(L, GF_EXIT_USAGE, "process runner: %s[%zu] must be a string", what, i + 1);
        }
        v[i] = lua_tostring(L, -1);
        lua_pop(L, 1); /* still referenced by the table */
    }
    return v;
}

static void push_env_entry(lua_State *L, int list, lua_Integer *n)
{
    /* key and value at -2 and -1 */
    if (lua_type(L, -2) == LUA_TSTRING && lua_isstring(L, -1)) {
        lua_pushfstring(L, "%s=%s", lua_tostring(L, -2), lua_tostring(L, -1));
        lua_rawseti(L, list, ++*n);
    }
}

static const char **env_of(lua_State *L, int idx)
{
    /* env = {NAME = "value", ...}; the names in its list part ({"NAME", ...}) come first, in that order
     * (a program that records its environment sees them at the start). Converted into a list table kept at
     * the top of the stack. */
    lua_newtable(L);
    int list = lua_gettop(L);
    lua_newtable(L);
    int first = lua_gettop(L);
    lua_Integer n = 0;
    for (lua_Integer i = 1; lua_rawgeti(L, idx, i) == LUA_TSTRING; i++) {
        lua_pushvalue(L, -1);
        if (lua_rawget(L, first) != LUA_TNIL) { /* named twice: placed once */
            lua_pop(L, 2);
            continue;
        }
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawget(L, idx);
        push_env_entry(L, list, &n);
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_rawset(L, first);
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pushvalue(L, -2);
        int placed = lua_rawget(L, first) != LUA_TNIL;
        lua_pop(L, 1);
        if (!placed)
            push_env_entry(L, list, &n);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return list_of(L, list, "env");
}

static gf_proc *spawn_from(lua_State *L, int opts)
{
    luaL_checktype(L, opts, LUA_TTABLE);
    gf_proc_opts o;
    memset(&o, 0, sizeof o);
    if (lua_getfield(L, opts, "argv") != LUA_TTABLE)
        gf_lua_raisef(L, GF_EXIT_USAGE, "process runner: opts.argv must be a list of strings");
    int argv_idx = lua_gettop(L);
    const char **argv = list_of(L, argv_idx, "argv");
    const char **env = NULL;
    if (lua_getfield(L, opts, "env") == LUA_TTABLE)
        env = env_of(L, lua_gettop(L));
    o.argv = argv;
    o.env = env;
    o.cwd = gf_opt_string_field(L, opts, "cwd", NULL);
    o.out = io_mode(L, gf_opt_string_field(L, opts, "stdout", "capture"), 0);
    o.err = io_mode(L, gf_opt_string_field(L, opts, "stderr", "capture"), 1);
    o.out_path = gf_opt_string_field(L, opts, "stdout_path", NULL);
    o.err_path = gf_opt_string_field(L, opts, "stderr_path", NULL);
    o.capture_limit = (size_t)gf_opt_int_field(L, opts, "capture_limit", 0);
    o.timeout = gf_opt_num_field(L, opts, "timeout", 0);
    o.kill_grace = gf_opt_num_field(L, opts, "kill_grace", 5);
    o.stdin_null = gf_opt_bool_field(L, opts, "stdin_null", 1);
    o.keep_on_interrupt = gf_opt_bool_field(L, opts, "keep_on_interrupt", 0);
    o.parent_death_signal = (int)gf_opt_int_field(L, opts, "parent_death_signal", 0);
    if ((o.out == GF_IO_FILE && !o.out_path) || (o.err == GF_IO_FILE && !o.err_path)) {
        free(argv);
        free(env);
        gf_lua_raisef(L, GF_EXIT_USAGE, "process runner: output mode 'file' needs stdout_path/stderr_path");
    }
    gf_proc *p;
    gf_err err;
    int rc = gf_proc_spawn(&p, &o, &err);
    free(argv);
    free(env);
    if (rc != 0)
        gf_lua_raise(L, &err);
    return p;
}

/* "a\nb\n" → {"a", "b"} */
static void push_lines(lua_State *L, const char *text)
{
    lua_newtable(L);
    lua_Integer n = 0;
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        if (len > 0) {
            lua_pushlstring(L, text, len);
            lua_rawseti(L, -2, ++n);
        }
        text += len + (nl ? 1 : 0);
    }
}

static void push_result(lua_State *L, gf_proc *p)
{
    lua_createtable(L, 0, 8);
    lua_pushstring(L, gf_proc_status_name(gf_proc_status_of(p)));
    lua_setfield(L, -2, "status");
    lua_pushinteger(L, gf_proc_exit_code(p));
    lua_setfield(L, -2, "code");
    lua_pushinteger(L, gf_proc_term_signal(p));
    lua_setfield(L, -2, "signal");
    lua_pushnumber(L, gf_proc_elapsed(p));
    lua_setfield(L, -2, "elapsed");
    lua_pushinteger(L, gf_proc_pid(p));
    lua_setfield(L, -2, "pid");
    size_t n;
    const char *s = gf_proc_output(p, 1, &n);
    lua_pushlstring(L, s, n);
    lua_setfield(L, -2, "stdout");
    s = gf_proc_output(p, 2, &n);
    lua_pushlstring(L, s, n);
    lua_setfield(L, -2, "stderr");
    lua_pushboolean(L, gf_proc_status_of(p) == GF_PROC_EXITED && gf_proc_exit_code(p) == 0);
    lua_setfield(L, -2, "ok");
    push_lines(L, gf_proc_leftovers(p));
    lua_setfield(L, -2, "leftovers");
}

static int l_run(lua_State *L)
{
    gf_proc *p = spawn_from(L, 1);
    gf_proc_wait(p);
    push_result(L, p);
    gf_proc_free(p);
    return 1;
}

static lproc *check_proc(lua_State *L)
{
    lproc *lp = luaL_checkudata(L, 1, PROC_MT);
    if (!lp->p)
        gf_lua_raisef(L, GF_EXIT_USAGE, "process handle already closed");
    return lp;
}

static int l_spawn(lua_State *L)
{
    lproc *lp = lua_newuserdatauv(L, sizeof *lp, 0);
    int ud = lua_gettop(L);
    lp->p = NULL;
    luaL_setmetatable(L, PROC_MT);
    lp->p = spawn_from(L, 1);
    lua_pushvalue(L, ud);
    return 1;
}

static int m_poll(lua_State *L)
{
    lproc *lp = check_proc(L);
    lua_pushboolean(L, gf_proc_poll(lp->p, (int)luaL_optinteger(L, 2, 0)));
    return 1;
}

static int m_wait(lua_State *L)
{
    lproc *lp = check_proc(L);
    gf_proc_wait(lp->p);
    push_result(L, lp->p);
    return 1;
}

static int m_result(lua_State *L)
{
    push_result(L, check_proc(L)->p);
    return 1;
}

static int m_terminate(lua_State *L)
{
    lproc *lp = check_proc(L);
    if (!lua_isnoneornil(L, 2))
        gf_proc_set_grace(lp->p, luaL_checknumber(L, 2));
    gf_proc_terminate(lp->p, GF_PROC_KILLED);
    push_result(L, lp->p);
    return 1;
}

static int m_signal(lua_State *L)
{
    gf_proc_signal(check_proc(L)->p, (int)luaL_checkinteger(L, 2));
    return 0;
}

static int m_pid(lua_State *L)
{
    lua_pushinteger(L, gf_proc_pid(check_proc(L)->p));
    return 1;
}

static int m_group_alive(lua_State *L)
{
    lua_pushboolean(L, gf_proc_group_alive(check_proc(L)->p));
    return 1;
}

static int m_gc(lua_State *L)
{
    lproc *lp = luaL_checkudata(L, 1, PROC_MT);
    gf_proc_free(lp->p);
    lp->p = NULL;
    return 0;
}

static int l_environ(lua_State *L)
{
    lua_newtable(L);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        lua_pushlstring(L, *e, (size_t)(eq - *e));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
    return 1;
}

/* core.proc.end_orphans([grace]) → list of "PID COMM" of the processes that had to be ended */
static int l_end_orphans(lua_State *L)
{
    char report[2048];
    gf_proc_end_orphans(luaL_optnumber(L, 1, 2.0), report, sizeof report);
    push_lines(L, report);
    return 1;
}

static int l_getpid(lua_State *L)
{
    lua_pushinteger(L, getpid());
    return 1;
}

static int l_kill(lua_State *L)
{
    lua_pushboolean(L, kill((pid_t)luaL_checkinteger(L, 1), (int)luaL_optinteger(L, 2, 15)) == 0);
    return 1;
}

int gf_luaopen_proc(lua_State *L)
{
    static const luaL_Reg methods[] = {{"poll", m_poll},           {"wait", m_wait},     {"result", m_result},
                                       {"terminate", m_terminate}, {"signal", m_signal}, {"pid", m_pid},
                                       {"group_alive", m_group_alive}, {NULL, NULL}};
    gf_new_class(L, PROC_MT, methods, m_gc);
    static const luaL_Reg fns[] = {{"run", l_run},     {"spawn", l_spawn}, {"environ", l_environ},
                                   {"getpid", l_getpid}, {"kill", l_kill},   {"end_orphans", l_end_orphans},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
