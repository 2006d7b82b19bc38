/* Process trees that outlive their process group. nsys starts an agent (`nsys --start-agent`) that
 * daemonizes: it leaves the process group and the session, so killing the group misses it. gpuflame
 * becomes a child subreaper (PR_SET_CHILD_SUBREAPER): such daemons are re-parented to gpuflame instead
 * of init, and are ended here with the capture. One-shot scans of /proc, no polling threads. */
#ifndef GF_PROCTREE_H
#define GF_PROCTREE_H

#include <stddef.h>
#include <sys/types.h>

/* Makes this process a child subreaper (once; later calls are free). 0 ok, -1 not supported. */
int gf_proctree_subreaper(void);

/* Has gf_proctree_subreaper succeeded in this process? */
int gf_proctree_subreaper_active(void);

/* Descendants of root (not root itself), read from /proc: pids into out (at most cap). Returns the count. */
size_t gf_proctree_descendants(pid_t root, pid_t *out, size_t cap);

/* Children of this process that `is_tracked` does not claim: orphans re-parented to the subreaper.
 * They are given `grace` seconds to leave on their own, then SIGTERM (their group and themselves),
 * `grace` more seconds, then SIGKILL; every one is reaped. What was ended ("PID COMM" lines, newline
 * separated) is appended to `report` (size report_cap) when given. Returns how many had to be signalled. */
typedef int (*gf_proctree_tracked_fn)(pid_t pid);
int gf_proctree_end_orphans(double grace, gf_proctree_tracked_fn is_tracked, char *report, size_t report_cap);

/* Alive and not a zombie. */
int gf_proctree_alive(pid_t pid);
/* Process group of pid, -1 when gone. */
pid_t gf_proctree_pgrp(pid_t pid);

/* Reaps untracked children that have exited; returns how many untracked children are still alive. */
size_t gf_proctree_reap(gf_proctree_tracked_fn is_tracked);

/* "comm" of a process (from /proc/PID/stat), "?" when gone. */
void gf_proctree_comm(pid_t pid, char *out, size_t cap);

#endif
