/* File-system primitives: atomic output files, mkdir -p, temp dirs, whole-file reads, PATH lookup, glob. */
#ifndef GF_FS_H
#define GF_FS_H

#include <stddef.h>
#include <stdio.h>
#include "gf_err.h"

/* An output file that only appears under its final name when committed. */
typedef struct gf_out {
    FILE *fp;
    char *tmp_path;
    char *final_path;
} gf_out;

/* Creates a temporary file beside path ("<dir>/.<base>.tmp.XXXXXX"). */
int gf_out_open(gf_out *out, const char *path, gf_err *err);
/* Flushes, fsyncs and renames over the final name; on any write error removes the temp and fails. */
int gf_out_commit(gf_out *out, gf_err *err);
/* gf_out_commit for long renders: when SIGINT/SIGTERM arrived during the write (gf_interrupted), the new
 * file is discarded instead (the old file, if any, stays) and err is "<path>: interrupted; ...", exit 130. */
int gf_out_commit_unless_interrupted(gf_out *out, gf_err *err);
/* A writer failed while writing to out->fp: when the stream itself failed (disk full, file too large,
 * I/O error) err becomes "<final path>: cannot write output: <reason>", otherwise err is kept; the
 * temporary file is removed either way. Returns -1. */
int gf_out_fail(gf_out *out, gf_err *err);
/* Removes the temporary file. Safe to call on a committed or zeroed gf_out. */
void gf_out_abort(gf_out *out);

int gf_write_atomic(const char *path, const void *data, size_t len, gf_err *err);
/* Reads a whole file; *data is NUL-terminated and must be freed. */
int gf_read_file(const char *path, char **data, size_t *len, gf_err *err);
int gf_mkdir_p(const char *path, int mode, gf_err *err);
/* A directory private to this user (sessions, locks): created 0700 when missing; an existing one must be a
 * directory, not a symlink (opened O_NOFOLLOW), owned by the effective uid, and writable by nobody else;
 * group/other read or search bits (a hostPath's 0755) are removed (fchmod 0700). The parent must exist. Returns 0, or -1 with err naming the path and why it was refused (exit 1). */
int gf_private_dir(const char *path, gf_err *err);
/* Creates a fresh directory from a template prefix ("/tmp/gpuflame-"); returns a malloc'd path. */
char *gf_mkdtemp(const char *prefix, gf_err *err);
/* Removes a file or a whole directory tree. Missing paths are not an error. */
int gf_remove_tree(const char *path, gf_err *err);
/* Finds an executable on PATH (or the given path list); returns a malloc'd path or NULL. */
char *gf_which(const char *name, const char *path_list);
/* Expands a glob pattern; returns the number of matches and a malloc'd array of malloc'd strings. */
int gf_glob(const char *pattern, char ***matches, size_t *count, gf_err *err);
void gf_free_strv(char **v, size_t n);

/* Trust of a file gpuflame would run as code (docs/ARCHITECTURE.md, "Trust"): policies, modules and
 * every other file on the search path are trusted code, so as root (the fleet agent) such a file must
 * not be changeable by another user — sshd's StrictModes rule. gf_check_trusted: the file, resolved
 * through symlinks, must be a regular file owned by root and not group- or world-writable; its
 * directory must be owned by root and not group- or world-writable (a sticky directory such as /tmp
 * included); every directory above must be owned by root and not group- or world-writable unless it is
 * sticky (others cannot rename root's entries in a sticky directory, e.g. /tmp above a mktemp dir).
 * Returns 0, or -1 with err = "<path>: refusing to load as root: <why> ..." (exit 1). */
int gf_check_trusted(const char *path, gf_err *err);
/* gf_check_trusted when running as root (geteuid() == 0), else 0. */
int gf_require_trusted(const char *path, gf_err *err);

#endif
