/* Worker processes for importing several exports (see trace_workers.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace_io.h"
#include "trace_workers.h"
#include "trace_build.h"

typedef struct slot {
    pid_t pid; /* 0: free */
    size_t job;
} slot;

static void scratch_path(const gf_import_job *job, size_t i, const char *ext, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%zu.%s", job->scratch, i, ext);
}

/* In the child: import, save, _exit. Nothing of the parent's (stdio buffers, atexit) runs here. */
static void child_import(const gf_import_job *job, size_t i)
{
    char path[4096];
    gf_err err = {0};
    int rc = -1;
    gf_trace *t = gf_trace_new();
    if (!t)
        gf_oom(&err, job->paths[i]);
    else if (gf_trace_begin(t, 0, job->keep_partners, &err) == 0 &&
             gf_trace_import_sqlite(t, job->paths[i], &job->sqlite, &err) == 0) {
        scratch_path(job, i, "model", path, sizeof path);
        FILE *f = fopen(path, "wb");
        if (!f)
            gf_errf(&err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
        else {
            rc = gf_trace_save(t, f, &err);
            if (fclose(f) != 0 && rc == 0)
                rc = gf_errf(&err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
        }
    }
    if (rc != 0) {
        scratch_path(job, i, "err", path, sizeof path);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d\n%s", err.code ? err.code : GF_EXIT_ERROR, err.msg);
            fclose(f);
        }
    }
    /* no gf_trace_free: _exit gives the whole address space back at once, page by page freeing is wasted */
    _exit(rc == 0 ? 0 : 1);
}

/* The error a child left, or a description of how it died. */
static int child_failure(const gf_import_job *job, size_t i, int status, gf_err *err)
{
    char path[4096];
    if (WIFSIGNALED(status))
        return gf_errf(err, GF_EXIT_ERROR, "%s: the worker importing it was killed by signal %d%s", job->paths[i],
                       WTERMSIG(status), WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
    scratch_path(job, i, "err", path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return gf_errf(err, GF_EXIT_ERROR, "%s: the worker importing it failed (exit %d) without a message",
                       job->paths[i], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    int code = GF_EXIT_ERROR;
    char msg[sizeof err->msg] = "";
    if (fscanf(f, "%d\n", &code) != 1)
        code = GF_EXIT_ERROR;
    size_t len = fread(msg, 1, sizeof msg - 1, f);
    msg[len] = 0;
    fclose(f);
    return gf_errf(err, code, "%s", msg);
}

static int load_model(const gf_import_job *job, size_t i, gf_trace **out, gf_err *err)
{
    char path[4096];
    scratch_path(job, i, "model", path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
    gf_err why;
    struct stat st;
    out[i] = gf_trace_load(f, fstat(fileno(f), &st) == 0 ? (uint64_t)st.st_size : 0, &why);
    fclose(f);
    remove(path); /* the parent holds it now; the scratch space is freed report by report */
    if (!out[i])
        return gf_errf(err, why.code, "%s: %s", job->paths[i], why.msg);
    return 0;
}

static void stop_all(slot *s, int n)
{
    for (int k = 0; k < n; k++)
        if (s[k].pid > 0) {
            kill(s[k].pid, SIGKILL);
            waitpid(s[k].pid, NULL, 0);
            s[k].pid = 0;
        }
}

/* Waits until one child ends; returns its slot index and status. */
static int reap_one(slot *s, int n, int *status)
{
    const struct timespec tick = {0, 5 * 1000 * 1000};
    for (;;) {
        for (int k = 0; k < n; k++) {
            if (s[k].pid <= 0)
                continue;
            pid_t r = waitpid(s[k].pid, status, WNOHANG);
            if (r == s[k].pid || (r < 0 && errno == ECHILD)) {
                if (r < 0)
                    *status = 0x7f00; /* gone without a status: treated as a failure without a message */
                s[k].pid = 0;
                return k;
            }
        }
        nanosleep(&tick, NULL);
    }
}

/* Starts a worker in every free slot while reports remain. */
static int fill_slots(const gf_import_job *job, slot *s, int nw, size_t *next, gf_err *err)
{
    for (int k = 0; k < nw && *next < job->n; k++) {
        if (s[k].pid)
            continue;
        pid_t pid = fork();
        if (pid < 0)
            return gf_errf(err, GF_EXIT_ERROR, "%s: fork: %s", job->paths[*next], strerror(errno));
        if (pid == 0)
            child_import(job, *next);
        s[k].pid = pid;
        s[k].job = (*next)++;
    }
    return 0;
}

int gf_trace_import_workers(const gf_import_job *job, gf_trace **out, gf_err *err)
{
    int nw = job->workers < 1 ? 1 : job->workers;
    if ((size_t)nw > job->n)
        nw = (int)job->n;
    slot *s = calloc((size_t)(nw ? nw : 1), sizeof *s);
    if (!s)
        return gf_oom(err, "import");
    for (size_t i = 0; i < job->n; i++)
        out[i] = NULL;
    size_t next = 0, done = 0;
    int rc = 0;
    fflush(NULL); /* nothing buffered is written twice by a child */
    while (done < job->n && rc == 0) {
        if ((rc = fill_slots(job, s, nw, &next, err)) != 0)
            break;
        int status = 0;
        int k = reap_one(s, nw, &status);
        size_t i = s[k].job;
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            rc = child_failure(job, i, status, err);
        /* the next report's worker starts before this model is loaded, so loading overlaps its import */
        else if ((rc = fill_slots(job, s, nw, &next, err)) == 0 && (rc = load_model(job, i, out, err)) == 0) {
            done++;
            if (job->progress)
                job->progress(job->ctx, done, job->n, job->paths[i]);
        }
    }
    stop_all(s, nw);
    free(s);
    if (rc != 0)
        for (size_t i = 0; i < job->n; i++) {
            gf_trace_free(out[i]);
            out[i] = NULL;
        }
    return rc;
}
