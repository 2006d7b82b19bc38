/* Process runner: argv (never a shell string), environment, working directory, captured or redirected
 * output, a timeout that kills the whole process group (SIGTERM, then SIGKILL after a grace period). */
#ifndef GF_PROC_H
#define GF_PROC_H

#include <stddef.h>
#include <sys/types.h>
#include "gf_err.h"

/* GF_IO_TEE: captured, and also written to gpuflame's own stream of the same name as it arrives (`launch`
 * passes nsys's output on and still recognises what nsys said) */
enum gf_io { GF_IO_INHERIT, GF_IO_NULL, GF_IO_CAPTURE, GF_IO_FILE, GF_IO_STDOUT /* stderr only */, GF_IO_TEE };
enum gf_proc_status { GF_PROC_RUNNING, GF_PROC_EXITED, GF_PROC_SIGNALED, GF_PROC_TIMEOUT, GF_PROC_INTERRUPTED,
                      GF_PROC_KILLED };

typedef struct gf_proc_opts {
    const char *const *argv;   /* argv[0] is looked up on PATH when it has no '/' */
    const char *const *env;    /* NULL: inherit */
    const char *cwd;           /* NULL: inherit */
    enum gf_io out, err;
    const char *out_path, *err_path; /* for GF_IO_FILE (appended) */
    size_t capture_limit;      /* keep at most the last N bytes of each captured stream (0: 1 MiB) */
    double timeout;            /* seconds; <= 0: none */
    double kill_grace;         /* seconds between SIGTERM and SIGKILL (default 5) */
    int stdin_null;            /* 1: stdin from /dev/null (default for captured runs) */
    int keep_on_interrupt;     /* 1: SIGINT/SIGTERM do not end it; the caller decides (passes them on) */
    int parent_death_signal;   /* > 0: the child gets this signal when gpuflame dies (even by SIGKILL) */
} gf_proc_opts;

typedef struct gf_proc gf_proc;

int gf_proc_spawn(gf_proc **out, const gf_proc_opts *opts, gf_err *err);
/* Drains output and checks for exit, waiting up to wait_ms. Enforces the timeout and the interrupt
 * flag. Returns 1 when the process has finished, 0 while it runs. */
int gf_proc_poll(gf_proc *p, int wait_ms);
/* Blocks until finished (see gf_proc_poll). */
void gf_proc_wait(gf_proc *p);
/* Ends the whole group: SIGTERM, grace, SIGKILL; waits for the leader. status becomes `why`. */
void gf_proc_terminate(gf_proc *p, enum gf_proc_status why);
void gf_proc_signal(gf_proc *p, int sig);
/* Seconds between SIGTERM and SIGKILL for later terminations (<= 0: unchanged). */
void gf_proc_set_grace(gf_proc *p, double grace);

pid_t gf_proc_pid(const gf_proc *p);
enum gf_proc_status gf_proc_status_of(const gf_proc *p);
int gf_proc_exit_code(const gf_proc *p);   /* -1 unless EXITED */
int gf_proc_term_signal(const gf_proc *p); /* 0 unless killed by a signal */
double gf_proc_elapsed(const gf_proc *p);
const char *gf_proc_output(const gf_proc *p, int which /* 1 stdout, 2 stderr */, size_t *len);
/* Did any process of the group survive? (1 yes, 0 no) — for tests and diagnostics. */
int gf_proc_group_alive(const gf_proc *p);
void gf_proc_free(gf_proc *p);
/* Processes that outlived this run (daemons re-parented to gpuflame as subreaper) and were ended when it
 * finished: "PID COMM" lines, "" when none. */
const char *gf_proc_leftovers(const gf_proc *p);
/* Ends every orphan adopted by this process that no live run claims (see proctree.h); the ended ones
 * are listed in report. Returns how many had to be signalled. */
int gf_proc_end_orphans(double grace, char *report, size_t cap);
const char *gf_proc_status_name(enum gf_proc_status s);

#endif
