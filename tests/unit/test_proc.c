/* Process runner: capture, exit codes, env, cwd, timeouts that kill a whole process group whose
 * members ignore SIGTERM, and spawn failures. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "tap.h"

static gf_proc *run(const char *const *argv, double timeout, gf_err *err)
{
    gf_proc_opts o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.out = GF_IO_CAPTURE;
    o.err = GF_IO_CAPTURE;
    o.timeout = timeout;
    o.kill_grace = 1;
    gf_proc *p = NULL;
    if (gf_proc_spawn(&p, &o, err) != 0)
        return NULL;
    gf_proc_wait(p);
    return p;
}

static int pid_alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')');
    return close && close[1] == ' ' && close[2] != 'Z' && close[2] != 'X';
}

static pid_t read_pid(const char *path)
{
    int v = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 0;
        fclose(f);
    }
    return (pid_t)v;
}

/* Stand-ins for nsys's agent: a daemon in its own session (setsid), out of the run's process group. */
static void daemon_cases(void)
{
    gf_err err;
    gf_proc *p;
    gf_proc_opts o;
    char script[512];
    /* this process's own file: the plain and the sanitizer builds' test_proc run side by side (tests/run) */
    char pidfile[64];
    snprintf(pidfile, sizeof pidfile, "/tmp/gf-test-proc-daemon.%ld.pid", (long)getpid());

    /* 1. Timeout: the leader and a daemon it started that ignores SIGTERM both end. */
    unlink(pidfile);
    snprintf(script, sizeof script,
             "setsid sh -c 'trap \"\" TERM; while :; do sleep 1; done' & echo $! > %s; while :; do sleep 1; done",
             pidfile);
    const char *timeout_argv[] = {"sh", "-c", script, NULL};
    memset(&o, 0, sizeof o);
    o.argv = timeout_argv;
    o.out = GF_IO_NULL;
    o.err = GF_IO_NULL;
    o.timeout = 1.0;
    o.kill_grace = 1;
    if (gf_proc_spawn(&p, &o, &err) == 0) {
        gf_proc_wait(p);
        pid_t d = read_pid(pidfile);
        CHECK("timeout: the run timed out", gf_proc_status_of(p) == GF_PROC_TIMEOUT);
        CHECK("timeout: the daemon it started (own session, ignores SIGTERM) is gone", d > 0 && !pid_alive(d));
        gf_proc_free(p);
    } else {
        CHECK("timeout: spawn", 0);
    }

    /* 2. The leader exits and leaves a daemon: it is re-parented to us (subreaper), given the grace
     * period, then ended and named. The leader exits only once the daemon has left its process group (the
     * daemon writes its pid after setsid): a leader that went first could have its group, the daemon still in
     * it before setsid, ended with it on a loaded machine, and then nothing was an orphan to name (CI run 46). */
    unlink(pidfile);
    snprintf(script, sizeof script,
             "setsid sh -c 'echo $$ > %s; while :; do sleep 1; done' & "
             "i=0; while [ ! -s %s ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done",
             pidfile, pidfile);
    const char *orphan_argv[] = {"sh", "-c", script, NULL};
    memset(&o, 0, sizeof o);
    o.argv = orphan_argv;
    o.out = GF_IO_NULL;
    o.err = GF_IO_NULL;
    o.kill_grace = 0.5;
    if (gf_proc_spawn(&p, &o, &err) == 0) {
        gf_proc_wait(p);
        pid_t d = read_pid(pidfile);
        CHECK("orphan: the leader exited 0", gf_proc_exit_code(p) == 0);
        CHECK("orphan: the daemon left behind is ended", d > 0 && !pid_alive(d));
        /* by its pid ("sh" by then, as setsid has exec'd it) */
        char named[32], line[34];
        snprintf(named, sizeof named, "%d ", (int)d);
        snprintf(line, sizeof line, "\n%s", named);
        const char *left = gf_proc_leftovers(p);
        CHECK("orphan: it is named in the leftovers (a line \"PID COMM\")",
              strncmp(left, named, strlen(named)) == 0 || strstr(left, line) != NULL);
        gf_proc_free(p);
    } else {
        CHECK("orphan: spawn", 0);
    }

    /* 3. A daemon that finishes on its own within the grace period is not reported. */
    const char *brief_argv[] = {"sh", "-c", "setsid sh -c 'sleep 0.2' &", NULL};
    memset(&o, 0, sizeof o);
    o.argv = brief_argv;
    o.out = GF_IO_NULL;
    o.err = GF_IO_NULL;
    o.kill_grace = 3;
    if (gf_proc_spawn(&p, &o, &err) == 0) {
        gf_proc_wait(p);
        CHECK("brief daemon: finishes on its own, nothing reported", gf_proc_leftovers(p)[0] == '\0');
        CHECK("brief daemon: waited for it, not the whole grace", gf_proc_elapsed(p) < 2.5);
        gf_proc_free(p);
    }
    char left[256];
    CHECK("nothing adopted is left at the end", gf_proc_end_orphans(0.5, left, sizeof left) == 0);
    unlink(pidfile);
}

/* GF_IO_TEE: stderr is captured and also written to our own stderr as it arrives (here a file). */
static void tee_case(void)
{
    char path[] = "/tmp/gf-test-tee-XXXXXX";
    int fd = mkstemp(path);
    CHECK("tee: temp file", fd >= 0);
    if (fd < 0)
        return;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    gf_proc_opts o;
    memset(&o, 0, sizeof o);
    const char *argv[] = {"sh", "-c", "echo out; echo nsys said >&2; exit 1", NULL};
    o.argv = argv;
    o.out = GF_IO_CAPTURE;
    o.err = GF_IO_TEE;
    gf_proc *p = NULL;
    gf_err err;
    int rc = gf_proc_spawn(&p, &o, &err);
    if (rc == 0)
        gf_proc_wait(p);
    dup2(saved, 2);
    close(saved);
    char buf[64] = {0};
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    unlink(path);
    size_t len;
    CHECK("tee: stderr kept", rc == 0 && strcmp(gf_proc_output(p, 2, &len), "nsys said\n") == 0);
    CHECK("tee: stderr passed on as it came", n > 0 && strcmp(buf, "nsys said\n") == 0);
    CHECK("tee: stdout only captured", rc == 0 && strcmp(gf_proc_output(p, 1, &len), "out\n") == 0);
    if (rc == 0)
        gf_proc_free(p);
}

int main(void)
{
    gf_err err;
    size_t n;

    const char *echo[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    gf_proc *p = run(echo, 10, &err);
    CHECK("spawn sh", p != NULL);
    if (p) {
        CHECK("exit code captured", gf_proc_status_of(p) == GF_PROC_EXITED && gf_proc_exit_code(p) == 3);
        CHECK("stdout captured", strcmp(gf_proc_output(p, 1, &n), "out\n") == 0);
        CHECK("stderr captured", strcmp(gf_proc_output(p, 2, &n), "err\n") == 0);
        gf_proc_free(p);
    }

    const char *selfkill[] = {"sh", "-c", "kill -USR1 $$", NULL};
    p = run(selfkill, 10, &err);
    CHECK("signal reported", p && gf_proc_status_of(p) == GF_PROC_SIGNALED && gf_proc_term_signal(p) == SIGUSR1);
    gf_proc_free(p);

    const char *missing[] = {"/nonexistent/program", NULL};
    p = run(missing, 10, &err);
    CHECK("missing program is an error", p == NULL && strstr(err.msg, "/nonexistent/program") != NULL);

    /* env replaced entirely, cwd honoured */
    gf_proc_opts o;
    memset(&o, 0, sizeof o);
    const char *envp[] = {"GF_TEST_VAR=hello world", "PATH=/usr/bin:/bin", NULL};
    const char *pr[] = {"sh", "-c", "printf '%s|%s|%s' \"$GF_TEST_VAR\" \"$HOME\" \"$(pwd)\"", NULL};
    o.argv = pr;
    o.env = envp;
    o.cwd = "/tmp";
    o.out = GF_IO_CAPTURE;
    o.err = GF_IO_CAPTURE;
    if (gf_proc_spawn(&p, &o, &err) == 0) {
        gf_proc_wait(p);
        CHECK("env and cwd applied", strcmp(gf_proc_output(p, 1, &n), "hello world||/tmp") == 0);
        gf_proc_free(p);
    } else {
        CHECK("env and cwd applied", 0);
    }

    /* A workload that ignores SIGTERM and forks children that ignore it too: at the timeout the whole
     * group is killed and nothing of it survives. */
    const char *stubborn[] = {"sh", "-c",
                              "trap '' TERM; (trap '' TERM; sleep 300) & (trap '' TERM; sleep 300 & wait) & "
                              "echo started; while :; do sleep 1; done",
                              NULL};
    memset(&o, 0, sizeof o);
    o.argv = stubborn;
    o.out = GF_IO_CAPTURE;
    o.err = GF_IO_CAPTURE;
    o.timeout = 1.5;
    o.kill_grace = 1;
    if (gf_proc_spawn(&p, &o, &err) == 0) {
        pid_t pgid = gf_proc_pid(p);
        gf_proc_wait(p);
        CHECK("timeout status", gf_proc_status_of(p) == GF_PROC_TIMEOUT);
        CHECK("timed out after about timeout + grace", gf_proc_elapsed(p) >= 1.4 && gf_proc_elapsed(p) < 6);
        CHECK("output before the timeout kept", strstr(gf_proc_output(p, 1, &n), "started") != NULL);
        /* No live (non-zombie) member of the process group remains. */
        int alive = 0;
        char cmd[128];
        snprintf(cmd, sizeof cmd, "ps -e -o pgid=,stat= | awk '$1 == %d && $2 !~ /^Z/' | wc -l", (int)pgid);
        FILE *ps = popen(cmd, "r");
        if (ps) {
            if (fscanf(ps, "%d", &alive) != 1)
                alive = -1;
            pclose(ps);
        }
        CHECK("no process of the group survives the timeout", alive == 0);
        gf_proc_free(p);
    } else {
        CHECK("spawn stubborn workload", 0);
    }

    /* Output larger than the capture limit keeps the tail. */
    const char *big[] = {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done", NULL};
    memset(&o, 0, sizeof o);
    o.argv = big;
    o.out = GF_IO_CAPTURE;
    o.err = GF_IO_NULL;
    o.capture_limit = 100;
    if (gf_proc_spawn(&p, &o, &err) == 0) {
        gf_proc_wait(p);
        const char *s = gf_proc_output(p, 1, &n);
        CHECK("capture limit keeps the last bytes", n == 100 && strstr(s, "line1999\n") != NULL);
        gf_proc_free(p);
    }
    tee_case();
    daemon_cases();
    return tap_done();
}
