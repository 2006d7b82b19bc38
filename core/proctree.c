#include "proctree.h"
#include "mem.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct pinfo {
    pid_t pid, ppid, pgrp;
    char state;
} pinfo;

static int subreaper_state; /* 0 not tried, 1 on, -1 unsupported */

int gf_proctree_subreaper_active(void)
{
    return subreaper_state == 1;
}

int gf_proctree_subreaper(void)
{
    int state = subreaper_state;
    if (state == 0)
        state = subreaper_state = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 1 : -1;
    return state == 1 ? 0 : -1;
}

/* "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so parse after the last ')'. */
static int read_stat(pid_t pid, pinfo *pi, char *comm, size_t comm_cap)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close < open)
        return -1;
    if (comm && comm_cap) {
        size_t len = (size_t)(close - open - 1);
        if (len >= comm_cap)
            len = comm_cap - 1;
        memcpy(comm, open + 1, len);
        comm[len] = '\0';
    }
    char state;
    int ppid, pgrp;
    if (sscanf(close + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
        return -1;
    pi->pid = pid;
    pi->ppid = ppid;
    pi->pgrp = pgrp;
    pi->state = state;
    return 0;
}

void gf_proctree_comm(pid_t pid, char *out, size_t cap)
{
    pinfo pi;
    if (read_stat(pid, &pi, out, cap) != 0)
        snprintf(out, cap, "?");
}

/* Every process visible in /proc (malloc'd array; *n its length). */
static pinfo *scan_all(size_t *n)
{
    *n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    size_t cap = 256;
    pinfo *all = malloc(cap * sizeof *all);
    struct dirent *e;
    while (all && (e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pinfo pi;
        if (read_stat((pid_t)atoi(e->d_name), &pi, NULL, 0) != 0)
            continue;
        if (GF_GROW(all, cap, *n + 1, 0) != 0)
            break;
        all[(*n)++] = pi;
    }
    closedir(d);
    return all;
}

size_t gf_proctree_descendants(pid_t root, pid_t *out, size_t cap)
{
    size_t n = 0, count = 0;
    pinfo *all = scan_all(&n);
    if (!all)
        return 0;
    /* Breadth first; out doubles as the queue of parents still to expand. */
    for (size_t i = 0; i < n && count < cap; i++)
        if (all[i].ppid == root)
            out[count++] = all[i].pid;
    for (size_t head = 0; head < count; head++)
        for (size_t i = 0; i < n && count < cap; i++)
            if (all[i].ppid == out[head])
                out[count++] = all[i].pid;
    free(all);
    return count;
}

int gf_proctree_alive(pid_t pid)
{
    pinfo pi;
    return read_stat(pid, &pi, NULL, 0) == 0 && pi.state != 'Z' && pi.state != 'X';
}

pid_t gf_proctree_pgrp(pid_t pid)
{
    pinfo pi;
    return read_stat(pid, &pi, NULL, 0) == 0 ? pi.pgrp : -1;
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Untracked children of ours that are still alive (zombies are reaped on the way). */
static size_t orphans(gf_proctree_tracked_fn is_tracked, pid_t *out, size_t cap)
{
    size_t n = 0, count = 0;
    pinfo *all = scan_all(&n);
    pid_t self = getpid();
    for (size_t i = 0; all && i < n; i++) {
        if (all[i].ppid != self || (is_tracked && is_tracked(all[i].pid)))
            continue;
        int st;
        if (waitpid(all[i].pid, &st, WNOHANG) == all[i].pid)
            continue; /* it had already exited: now reaped */
        if (count < cap)
            out[count++] = all[i].pid;
    }
    free(all);
    return count;
}

size_t gf_proctree_reap(gf_proctree_tracked_fn is_tracked)
{
    pid_t list[256];
    return orphans(is_tracked, list, 256);
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits up to `seconds` for the orphans to go (reaping them); returns how many are left. */
static size_t wait_orphans(double seconds, gf_proctree_tracked_fn is_tracked, pid_t *list, size_t cap)
{
    double until = now_mono() + seconds;
    size_t n = orphans(is_tracked, list, cap);
    while (n > 0 && now_mono() < until) {
        nap_ms(20);
        n = orphans(is_tracked, list, cap);
    }
    return n;
}

static void signal_orphans(const pid_t *list, size_t n, int sig)
{
    pid_t own_group = getpgrp();
    for (size_t i = 0; i < n; i++) {
        pinfo pi;
        /* A daemon leads its own group (setsid): its helpers go with it. Never our own group. */
        if (read_stat(list[i], &pi, NULL, 0) == 0 && pi.pgrp > 1 && pi.pgrp != own_group)
            kill(-pi.pgrp, sig);
        kill(list[i], sig);
    }
}

int gf_proctree_end_orphans(double grace, gf_proctree_tracked_fn is_tracked, char *report, size_t report_cap)
{
    enum { CAP = 256 };
    pid_t list[CAP];
    int signalled = 0;
    /* Ending an orphan can orphan its own children in turn: repeat until none is left (bounded). */
    for (int round = 0; round < 8; round++) {
        size_t n = wait_orphans(round == 0 ? grace : 0.2, is_tracked, list, CAP);
        if (n == 0)
            break;
        for (size_t i = 0; i < n && report; i++) {
            char comm[64], line[96];
            gf_proctree_comm(list[i], comm, sizeof comm);
            snprintf(line, sizeof line, "%d %s\n", (int)list[i], comm);
            size_t used = strlen(report);
            if (used + strlen(line) < report_cap)
                memcpy(report + used, line, strlen(line) + 1);
        }
        signalled += (int)n;
        signal_orphans(list, n, SIGTERM);
        signal_orphans(list, n, SIGCONT);
        n = wait_orphans(grace > 0 ? grace : 1.0, is_tracked, list, CAP);
        if (n == 0)
            continue;
        signal_orphans(list, n, SIGKILL);
        wait_orphans(2.0, is_tracked, list, CAP);
    }
    return signalled;
}
