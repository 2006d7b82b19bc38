#include "proc.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "interrupt.h"
#include "proctree.h"

typedef struct ringbuf {
    char *data;
    size_t len, cap, limit;
    size_t dropped; /* bytes discarded from the front to stay within limit */
} ringbuf;

struct gf_proc {
    pid_t pid;
    int fds[2]; /* stdout, stderr read ends (-1 when not captured or closed) */
    int tee[2]; /* GF_IO_TEE: what is read is also written to gpuflame's fd 1 / 2 */
    ringbuf bufs[2];
    enum gf_proc_status status;
    int exit_code, term_signal;
    double start, end, timeout, grace;
    int group_signaled, keep_on_interrupt;
    char leftovers[1024]; /* processes that outlived the run and were ended ("PID COMM" lines) */
};

/* Leaders of runs not yet reaped: every other child of ours is an orphan adopted as subreaper. */
static pid_t *live_pids;
static size_t live_count, live_cap;

static void track(pid_t pid)
{
    if (GF_GROW(live_pids, live_cap, live_count + 1, 16) != 0)
        return; /* untracked: at worst it is treated as an orphan after its run */
    live_pids[live_count++] = pid;
}

static void untrack(pid_t pid)
{
    for (size_t i = 0; i < live_count; i++)
        if (live_pids[i] == pid) {
            live_pids[i] = live_pids[--live_count];
            return;
        }
}

static int is_tracked(pid_t pid)
{
    for (size_t i = 0; i < live_count; i++)
        if (live_pids[i] == pid)
            return 1;
    return 0;
}

/* Orphans can only be told apart by having no live run left that might own them. */
static void end_orphans_if_idle(gf_proc *p, double grace)
{
    if (live_count == 0)
        gf_proctree_end_orphans(grace, is_tracked, p->leftovers, sizeof p->leftovers);
}

int gf_proc_end_orphans(double grace, char *report, size_t cap)
{
    if (report && cap)
        report[0] = '\0';
    if (!gf_proctree_subreaper_active())
        return 0; /* nothing can have been adopted */
    return gf_proctree_end_orphans(grace, is_tracked, report, cap);
}

const char *gf_proc_leftovers(const gf_proc *p)
{
    return p->leftovers;
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void ring_append(ringbuf *b, const char *src, size_t n)
{
    if (n >= b->limit) {
        b->dropped += b->len + (n - b->limit);
        src += n - b->limit;
        n = b->limit;
        b->len = 0;
    } else if (b->len + n > b->limit) {
        size_t drop = b->len + n - b->limit;
        memmove(b->data, b->data + drop, b->len - drop);
        b->len -= drop;
        b->dropped += drop;
    }
    if (GF_GROW(b->data, b->cap, b->len + n + 1, 4096) != 0)
        return;
    memcpy(b->data + b->len, src, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static int open_redirect(enum gf_io mode, const char *path, int target, int capture_wr, gf_err *err)
{
    int fd = -1;
    switch (mode) {
    case GF_IO_INHERIT:
        return 0;
    case GF_IO_NULL:
        fd = open("/dev/null", O_WRONLY);
        break;
    case GF_IO_CAPTURE:
    case GF_IO_TEE:
        fd = capture_wr;
        break;
    case GF_IO_FILE:
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
            return gf_errf(err, GF_EXIT_ERROR, "%s: cannot open for the process output: %s", path,
                           strerror(errno));
        break;
    case GF_IO_STDOUT:
        fd = 1;
        break;
    }
    (void)target;
    return fd;
}

int gf_proc_spawn(gf_proc **out, const gf_proc_opts *o, gf_err *err)
{
    *out = NULL;
    if (!o->argv || !o->argv[0] || !o->argv[0][0])
        return gf_errf(err, GF_EXIT_USAGE, "process runner: empty argv");
    char *exe = gf_which(o->argv[0], NULL);
    if (!exe)
        return gf_errf(err, GF_EXIT_ERROR, "%s: not found or not executable", o->argv[0]);
    gf_proc *p = calloc(1, sizeof *p);
    if (!p) {
        free(exe);
        return gf_oom(err, NULL);
    }
    p->fds[0] = p->fds[1] = -1;
    size_t limit = o->capture_limit ? o->capture_limit : (1u << 20);
    p->bufs[0].limit = p->bufs[1].limit = limit;
    p->timeout = o->timeout;
    p->grace = o->kill_grace > 0 ? o->kill_grace : 5.0;
    p->exit_code = -1;
    p->keep_on_interrupt = o->keep_on_interrupt;
    pid_t parent = getpid();

    int pipes[2][2] = {{-1, -1}, {-1, -1}};
    enum gf_io modes[2] = {o->out, o->err};
    const char *paths[2] = {o->out_path, o->err_path};
    int child_fds[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        p->tee[i] = modes[i] == GF_IO_TEE;
        if ((modes[i] == GF_IO_CAPTURE || modes[i] == GF_IO_TEE) && pipe2(pipes[i], O_CLOEXEC) != 0) {
            gf_errf(err, GF_EXIT_ERROR, "pipe: %s", strerror(errno));
            goto fail;
        }
        child_fds[i] = open_redirect(modes[i], paths[i], i + 1, pipes[i][1], err);
        if (child_fds[i] < 0)
            goto fail;
    }
    /* Error pipe: the child reports a failed exec/chdir through it. */
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        gf_errf(err, GF_EXIT_ERROR, "pipe: %s", strerror(errno));
        goto fail;
    }
    /* Daemons the child starts (nsys's agent) come back to us when orphaned, not to init. */
    gf_proctree_subreaper();
    p->start = now_mono();
    pid_t pid = fork();
    if (pid < 0) {
        gf_errf(err, GF_EXIT_ERROR, "fork: %s", strerror(errno));
        close(errpipe[0]);
        close(errpipe[1]);
        goto fail;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (o->parent_death_signal > 0) {
            prctl(PR_SET_PDEATHSIG, o->parent_death_signal);
            if (getppid() != parent) /* gpuflame died before prctl */
                _exit(127);
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        for (int s = 1; s < 32; s++)
            if (s != SIGKILL && s != SIGSTOP)
                sigaction(s, &sa, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (o->stdin_null || modes[0] == GF_IO_CAPTURE) {
            int nullfd = open("/dev/null", O_RDONLY);
            if (nullfd >= 0) {
                dup2(nullfd, 0);
                close(nullfd);
            }
        }
        if (modes[0] != GF_IO_INHERIT)
            dup2(child_fds[0], 1);
        if (modes[1] == GF_IO_STDOUT)
            dup2(1, 2);
        else if (modes[1] != GF_IO_INHERIT)
            dup2(child_fds[1], 2);
        int e = 0;
        const char *what = "exec";
        if (o->cwd && chdir(o->cwd) != 0) {
            e = errno;
            what = "chdir";
        } else {
            if (o->env)
                execve(exe, (char *const *)o->argv, (char *const *)o->env);
            else
                execv(exe, (char *const *)o->argv);
            e = errno;
        }
        char msg[256];
        int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(e));
        if (write(errpipe[1], msg, (size_t)n) < 0) {
            /* nothing more can be done in the child */
        }
        _exit(127);
    }
    setpgid(pid, pid); /* also from the parent: no race with an early kill */
    close(errpipe[1]);
    p->pid = pid;
    track(pid);
    for (int i = 0; i < 2; i++) {
        if (modes[i] == GF_IO_CAPTURE || modes[i] == GF_IO_TEE) {
            close(pipes[i][1]);
            p->fds[i] = pipes[i][0];
            fcntl(p->fds[i], F_SETFL, O_NONBLOCK);
        } else if (modes[i] == GF_IO_FILE || modes[i] == GF_IO_NULL) {
            close(child_fds[i]);
        }
    }
    char cmsg[256];
    ssize_t cn = read(errpipe[0], cmsg, sizeof cmsg - 1);
    close(errpipe[0]);
    if (cn > 0) {
        cmsg[cn] = '\0';
        int st;
        waitpid(pid, &st, 0);
        untrack(pid);
        p->pid = -pid;
        gf_errf(err, GF_EXIT_ERROR, "%s: cannot start: %s", o->argv[0], cmsg);
        gf_proc_free(p);
        free(exe);
        return -1;
    }
    free(exe);
    p->status = GF_PROC_RUNNING;
    *out = p;
    return 0;

fail:
    for (int i = 0; i < 2; i++) {
        if (pipes[i][0] >= 0)
            close(pipes[i][0]);
        if (pipes[i][1] >= 0)
            close(pipes[i][1]);
        if ((modes[i] == GF_IO_FILE || modes[i] == GF_IO_NULL) && child_fds[i] > 0)
            close(child_fds[i]);
    }
    free(exe);
    free(p);
    return -1;
}

/* Passes output on (GF_IO_TEE); a stream gpuflame cannot write to only loses the copy. */
static void write_all(int fd, const char *b, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        b += w;
        n -= (size_t)w;
    }
}

static void drain(gf_proc *p, int wait_ms)
{
    struct pollfd pfd[2];
    int n = 0, idx[2];
    for (int i = 0; i < 2; i++) {
        if (p->fds[i] >= 0) {
            pfd[n].fd = p->fds[i];
            pfd[n].events = POLLIN;
            idx[n++] = i;
        }
    }
    if (n == 0) {
        if (wait_ms > 0) {
            struct timespec ts = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        return;
    }
    if (poll(pfd, (nfds_t)n, wait_ms) <= 0)
        return;
    char buf[65536];
    for (int k = 0; k < n; k++) {
        if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        int i = idx[k];
        for (;;) {
            ssize_t r = read(p->fds[i], buf, sizeof buf);
            if (r > 0) {
                ring_append(&p->bufs[i], buf, (size_t)r);
                if (p->tee[i])
                    write_all(i + 1, buf, (size_t)r);
                continue;
            }
            if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(p->fds[i]);
                p->fds[i] = -1;
            }
            break;
        }
    }
}

static int reap(gf_proc *p, int block)
{
    int st;
    pid_t r = waitpid(p->pid, &st, block ? 0 : WNOHANG);
    if (r != p->pid)
        return 0;
    p->end = now_mono();
    if (p->status == GF_PROC_RUNNING) {
        if (WIFEXITED(st)) {
            p->status = GF_PROC_EXITED;
            p->exit_code = WEXITSTATUS(st);
        } else {
            p->status = GF_PROC_SIGNALED;
            p->term_signal = WTERMSIG(st);
        }
    } else if (WIFSIGNALED(st)) {
        p->term_signal = WTERMSIG(st);
    } else if (WIFEXITED(st)) {
        p->exit_code = WEXITSTATUS(st);
    }
    untrack(p->pid);
    p->pid = -p->pid; /* remember the group id, mark the leader reaped */
    return 1;
}

static int leader_reaped(const gf_proc *p)
{
    return p->pid < 0;
}

static pid_t group_id(const gf_proc *p)
{
    return p->pid < 0 ? -p->pid : p->pid;
}

void gf_proc_signal(gf_proc *p, int sig)
{
    kill(-group_id(p), sig);
}

int gf_proc_group_alive(const gf_proc *p)
{
    return kill(-group_id(p), 0) == 0;
}

/* The group, every descendant found in /proc and the groups they lead (never our own group). */
static void signal_tree(pid_t group, const pid_t *desc, size_t n, int sig)
{
    pid_t own = getpgrp();
    kill(-group, sig);
    for (size_t i = 0; i < n; i++) {
        pid_t g = gf_proctree_pgrp(desc[i]);
        if (g > 1 && g != own && g != group)
            kill(-g, sig);
        kill(desc[i], sig);
    }
}

static int tree_alive(pid_t group, const pid_t *desc, size_t n)
{
    if (kill(-group, 0) == 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (gf_proctree_alive(desc[i]))
            return 1;
    return 0;
}

void gf_proc_set_grace(gf_proc *p, double grace)
{
    if (grace > 0)
        p->grace = grace;
}

void gf_proc_terminate(gf_proc *p, enum gf_proc_status why)
{
    if (p->status == GF_PROC_RUNNING && !leader_reaped(p))
        p->status = why;
    pid_t g = group_id(p);
    /* Descendants that left the group (setsid daemons) are found while the tree is still linked. */
    enum { MAX_DESC = 512 };
    pid_t desc[MAX_DESC];
    size_t nd = gf_proctree_descendants(g, desc, MAX_DESC);
    signal_tree(g, desc, nd, SIGTERM);
    signal_tree(g, desc, nd, SIGCONT);
    double until = now_mono() + p->grace;
    while (now_mono() < until) {
        drain(p, 50);
        if (!leader_reaped(p))
            reap(p, 0);
        gf_proctree_reap(is_tracked);
        if (leader_reaped(p) && !tree_alive(g, desc, nd))
            break;
    }
    /* Whatever is left (the leader, children that ignore SIGTERM, daemons) is killed. */
    signal_tree(g, desc, nd, SIGKILL);
    if (!leader_reaped(p))
        reap(p, 1);
    for (int i = 0; i < 50 && tree_alive(g, desc, nd); i++) {
        drain(p, 20);
        gf_proctree_reap(is_tracked);
    }
    drain(p, 0);
    end_orphans_if_idle(p, 0.5);
}

int gf_proc_poll(gf_proc *p, int wait_ms)
{
    if (leader_reaped(p))
        return 1;
    drain(p, wait_ms);
    if (reap(p, 0)) {
        /* The leader is gone; collect what is still buffered, but never wait on grandchildren that
         * keep the pipe open. Any of them left in the group is killed so nothing is orphaned. */
        drain(p, 0);
        if (kill(-group_id(p), 0) == 0) {
            kill(-group_id(p), SIGKILL);
            for (int i = 0; i < 50 && kill(-group_id(p), 0) == 0; i++)
                drain(p, 20);
        }
        for (int i = 0; i < 2; i++) {
            if (p->fds[i] >= 0) {
                drain(p, 0);
                close(p->fds[i]);
                p->fds[i] = -1;
            }
        }
        /* Daemons it left (nsys's agent) get the grace period to finish on their own, then are ended. */
        end_orphans_if_idle(p, p->grace);
        return 1;
    }
    if (gf_interrupted && !p->keep_on_interrupt) {
        gf_proc_terminate(p, GF_PROC_INTERRUPTED);
        return 1;
    }
    if (p->timeout > 0 && now_mono() - p->start > p->timeout) {
        gf_proc_terminate(p, GF_PROC_TIMEOUT);
        return 1;
    }
    return 0;
}

void gf_proc_wait(gf_proc *p)
{
    while (!gf_proc_poll(p, 100)) {
    }
}

pid_t gf_proc_pid(const gf_proc *p)
{
    return group_id(p);
}

enum gf_proc_status gf_proc_status_of(const gf_proc *p)
{
    return p->status;
}

int gf_proc_exit_code(const gf_proc *p)
{
    return p->status == GF_PROC_EXITED ? p->exit_code : -1;
}

int gf_proc_term_signal(const gf_proc *p)
{
    return p->term_signal;
}

double gf_proc_elapsed(const gf_proc *p)
{
    return (leader_reaped(p) ? p->end : now_mono()) - p->start;
}

const char *gf_proc_output(const gf_proc *p, int which, size_t *len)
{
    const ringbuf *b = &p->bufs[which == 2 ? 1 : 0];
    *len = b->len;
    return b->data ? b->data : "";
}

void gf_proc_free(gf_proc *p)
{
    if (!p)
        return;
    if (!leader_reaped(p) && p->pid > 0)
        gf_proc_terminate(p, GF_PROC_KILLED);
    for (int i = 0; i < 2; i++) {
        if (p->fds[i] >= 0)
            close(p->fds[i]);
        free(p->bufs[i].data);
    }
    free(p);
}

const char *gf_proc_status_name(enum gf_proc_status s)
{
    switch (s) {
    case GF_PROC_RUNNING: return "running";
    case GF_PROC_EXITED: return "exited";
    case GF_PROC_SIGNALED: return "signaled";
    case GF_PROC_TIMEOUT: return "timeout";
    case GF_PROC_INTERRUPTED: return "interrupted";
    case GF_PROC_KILLED: return "killed";
    }
    return "?";
}
