#include "fs.h"
#include "mem.h"
#include "interrupt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_printf(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

int gf_out_open(gf_out *out, const char *path, gf_err *err)
{
    memset(out, 0, sizeof *out);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return gf_errf(err, GF_EXIT_USAGE, "%s: output path names a directory", path);
    size_t n = dirlen + strlen(base) + 16;
    out->tmp_path = malloc(n);
    out->final_path = strdup(path);
    if (!out->tmp_path || !out->final_path) {
        gf_out_abort(out);
        return gf_oom(err, path);
    }
    snprintf(out->tmp_path, n, "%.*s.%s.tmp.XXXXXX", (int)dirlen, path, base);
    int fd = mkstemp(out->tmp_path);
    if (fd < 0) {
        int e = errno;
        free(out->tmp_path);
        out->tmp_path = NULL;
        gf_out_abort(out);
        return gf_errf(err, GF_EXIT_ERROR, "%s: cannot create output: %s", path, strerror(e));
    }
    fchmod(fd, 0644);
    out->fp = fdopen(fd, "w");
    if (!out->fp) {
        int e = errno;
        close(fd);
        gf_out_abort(out);
        return gf_errf(err, GF_EXIT_ERROR, "%s: cannot open output: %s", path, strerror(e));
    }
    return 0;
}

int gf_out_commit(gf_out *out, gf_err *err)
{
    if (!out->fp)
        return gf_errf(err, GF_EXIT_ERROR, "%s: output is not open", out->final_path ? out->final_path : "?");
    int failed = ferror(out->fp);
    int e = failed ? EIO : 0;
    if (fflush(out->fp) != 0) {
        failed = 1;
        e = errno;
    }
    if (!failed && fsync(fileno(out->fp)) != 0 && errno != EINVAL) {
        failed = 1;
        e = errno;
    }
    if (fclose(out->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    out->fp = NULL;
    if (!failed && rename(out->tmp_path, out->final_path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        gf_errf(err, GF_EXIT_ERROR, "%s: cannot write output: %s", out->final_path, strerror(e));
        gf_out_abort(out);
        return -1;
    }
    free(out->tmp_path);
    free(out->final_path);
    out->tmp_path = out->final_path = NULL;
    return 0;
}

int gf_out_commit_unless_interrupted(gf_out *out, gf_err *err)
{
    if (gf_interrupted) {
        gf_errf(err, GF_EXIT_INTERRUPTED, "%s: interrupted; not written (an existing file is left as it was)",
                out->final_path ? out->final_path : "?");
        gf_out_abort(out);
        return -1;
    }
    return gf_out_commit(out, err);
}

int gf_out_fail(gf_out *out, gf_err *err)
{
    if (out->fp && ferror(out->fp)) {
        int e = errno;
        clearerr(out->fp);
        if (fflush(out->fp) != 0) /* the buffered bytes fail again with the real reason */
            e = errno;
        gf_errf(err, GF_EXIT_ERROR, "%s: cannot write output: %s", out->final_path ? out->final_path : "?",
                strerror(e ? e : EIO));
    }
    gf_out_abort(out);
    return -1;
}

void gf_out_abort(gf_out *out)
{
    if (out->fp) {
        fclose(out->fp);
        out->fp = NULL;
    }
    if (out->tmp_path) {
        unlink(out->tmp_path);
        free(out->tmp_path);
        out->tmp_path = NULL;
    }
    free(out->final_path);
    out->final_path = NULL;
}

int gf_write_atomic(const char *path, const void *data, size_t len, gf_err *err)
{
    gf_out out;
    if (gf_out_open(&out, path, err) != 0)
        return -1;
    if (len && fwrite(data, 1, len, out.fp) != len) {
        int e = errno;
        gf_out_abort(&out);
        return gf_errf(err, GF_EXIT_ERROR, "%s: cannot write output: %s", path, strerror(e));
    }
    return gf_out_commit(&out, err);
}

int gf_read_file(const char *path, char **data, size_t *len, gf_err *err)
{
    *data = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return gf_errf(err, GF_EXIT_INPUT, "%s: cannot read: %s", path, strerror(errno));
    size_t cap = 65536, n = 0, bcap = cap + 1; /* the buffer: cap bytes and a terminator */
    char *buf = malloc(bcap);
    if (!buf) {
        fclose(fp);
        return gf_oom(err, path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > ((size_t)1 << 40)) {
                free(buf);
                fclose(fp);
                return gf_errf(err, GF_EXIT_INPUT, "%s: file too large", path);
            }
            if (GF_GROW(buf, bcap, bcap + 1, 0) != 0) {
                free(buf);
                fclose(fp);
                return gf_oom(err, path);
            }
            cap = bcap - 1;
        }
        size_t r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(fp)) {
        int e = errno;
        free(buf);
        fclose(fp);
        return gf_errf(err, GF_EXIT_INPUT, "%s: cannot read: %s", path, strerror(e ? e : EIO));
    }
    fclose(fp);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

int gf_mkdir_p(const char *path, int mode, gf_err *err)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return gf_errf(err, GF_EXIT_USAGE, "invalid directory path '%s'", path);
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char saved = *p;
            *p = '\0';
            if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
                return gf_errf(err, GF_EXIT_ERROR, "%s: cannot create directory: %s", buf, strerror(errno));
            *p = saved;
            if (saved == '\0')
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return gf_errf(err, GF_EXIT_ERROR, "%s: exists and is not a directory", path);
    return 0;
}

char *gf_mkdtemp(const char *prefix, gf_err *err)
{
    char *tmpl = dup_printf(prefix, "XXXXXX", "");
    if (!tmpl) {
        gf_oom(err, NULL);
        return NULL;
    }
    if (!mkdtemp(tmpl)) {
        gf_errf(err, GF_EXIT_ERROR, "%sXXXXXX: cannot create temporary directory: %s", prefix, strerror(errno));
        free(tmpl);
        return NULL;
    }
    return tmpl;
}

int gf_remove_tree(const char *path, gf_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
        struct dirent *de;
        int rc = 0;
        while ((de = readdir(d)) != NULL) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char *child = dup_printf(path, "/", de->d_name);
            if (!child || gf_remove_tree(child, err) != 0)
                rc = -1;
            free(child);
            if (rc)
                break;
        }
        closedir(d);
        if (rc)
            return -1;
        if (rmdir(path) != 0)
            return gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (unlink(path) != 0 && errno != ENOENT)
        return gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(errno));
    return 0;
}

char *gf_which(const char *name, const char *path_list)
{
    if (!name || !*name)
        return NULL;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? strdup(name) : NULL;
    if (!path_list)
        path_list = getenv("PATH");
    if (!path_list)
        path_list = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path_list;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char dir[PATH_MAX];
        if (len == 0) {
            strcpy(dir, ".");
        } else if (len < sizeof dir) {
            memcpy(dir, p, len);
            dir[len] = '\0';
        } else {
            dir[0] = '\0';
        }
        if (dir[0]) {
            char *cand = dup_printf(dir, "/", name);
            struct stat st;
            if (cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
                return cand;
            free(cand);
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    return NULL;
}

int gf_glob(const char *pattern, char ***matches, size_t *count, gf_err *err)
{
    glob_t g;
    *matches = NULL;
    *count = 0;
    int rc = glob(pattern, 0, NULL, &g);
    if (rc == GLOB_NOMATCH)
        return 0;
    if (rc != 0)
        return gf_errf(err, GF_EXIT_ERROR, "glob '%s' failed", pattern);
    char **v = calloc(g.gl_pathc ? g.gl_pathc : 1, sizeof *v);
    if (!v) {
        globfree(&g);
        return gf_oom(err, NULL);
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        v[i] = strdup(g.gl_pathv[i]);
        if (!v[i]) {
            gf_free_strv(v, i);
            globfree(&g);
            return gf_oom(err, NULL);
        }
    }
    *count = g.gl_pathc;
    *matches = v;
    globfree(&g);
    return 0;
}

void gf_free_strv(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Why a directory is not safe for a root-run file, or NULL. `parent`: the file's own directory. */
static const char *untrusted_dir(const struct stat *st, int parent, char *buf, size_t n)
{
    if (st->st_uid != 0) {
        snprintf(buf, n, "is owned by uid %u, not root", (unsigned)st->st_uid);
        return buf;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        if (!parent && (st->st_mode & S_ISVTX))
            return NULL;
        snprintf(buf, n, "is %s-writable (mode %04o)%s", (st->st_mode & S_IWOTH) ? "world" : "group",
                 (unsigned)(st->st_mode & 07777), (st->st_mode & S_ISVTX) ? "; sticky or not, another user could "
                 "place files in it" : "");
        return buf;
    }
    return NULL;
}

int gf_check_trusted(const char *path, gf_err *err)
{
    char real[PATH_MAX], why[PATH_MAX + 256], d[200];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0)
        return gf_errf(err, GF_EXIT_INPUT, "%s: %s", path, strerror(errno));
    why[0] = '\0';
    if (!S_ISREG(st.st_mode))
        snprintf(why, sizeof why, "it is not a regular file");
    else if (st.st_uid != 0)
        snprintf(why, sizeof why, "it is owned by uid %u, not root", (unsigned)st.st_uid);
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, sizeof why, "it is %s-writable (mode %04o)", (st.st_mode & S_IWOTH) ? "world" : "group",
                 (unsigned)(st.st_mode & 07777));
    else {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", real);
        for (int level = 0;; level++) {
            char *slash = strrchr(dir, '/');
            if (!slash)
                break;
            if (slash == dir)
                slash[1] = '\0';
            else
                *slash = '\0';
            struct stat ds;
            if (stat(dir, &ds) != 0)
                return gf_errf(err, GF_EXIT_INPUT, "%s: %s", dir, strerror(errno));
            const char *bad = untrusted_dir(&ds, level == 0, d, sizeof d);
            if (bad) {
                snprintf(why, sizeof why, "%s %s%s %s", level == 0 ? "its directory" : "the directory", dir,
                         level == 0 ? "" : " above it", bad);
                break;
            }
            if (strcmp(dir, "/") == 0)
                break;
        }
    }
    if (!why[0])
        return 0;
    char shown[PATH_MAX + 8] = "";
    if (strcmp(real, path) != 0)
        snprintf(shown, sizeof shown, " (%s)", real);
    return gf_errf(err, GF_EXIT_ERROR,
                   "%s%s: refusing to load as root: %s. As root gpuflame loads only files owned by root and "
                   "writable by nobody else, in directories that are too (chown root, chmod go-w; "
                   "docs/ARCHITECTURE.md, Trust)",
                   path, shown, why);
}

int gf_private_dir(const char *path, gf_err *err)
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return gf_errf(err, GF_EXIT_ERROR, "%s: cannot create the private directory: %s", path, strerror(errno));
    /* opened without following a symlink, then checked and tightened through the descriptor: what is
     * checked is what is used, whatever is renamed in the meantime */
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    char why[160] = "";
    unsigned uid = (unsigned)geteuid();
    if (fd < 0) {
        int e = errno;
        struct stat lst;
        if (lstat(path, &lst) != 0)
            return gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(e));
        if (S_ISLNK(lst.st_mode))
            snprintf(why, sizeof why, "it is a symbolic link");
        else if (!S_ISDIR(lst.st_mode))
            snprintf(why, sizeof why, "it is not a directory");
        else if ((unsigned)lst.st_uid != uid)
            snprintf(why, sizeof why, "it is owned by uid %u, not by this user (uid %u)", (unsigned)lst.st_uid, uid);
        else
            return gf_errf(err, GF_EXIT_ERROR, "%s: %s", path, strerror(e));
    } else if (fstat(fd, &st) != 0) {
        snprintf(why, sizeof why, "fstat: %s", strerror(errno));
    } else if ((unsigned)st.st_uid != uid) {
        snprintf(why, sizeof why, "it is owned by uid %u, not by this user (uid %u)", (unsigned)st.st_uid, uid);
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, sizeof why, "its mode is %04o: others could have placed files in it (want 0700)",
                 (unsigned)(st.st_mode & 07777));
    } else if ((st.st_mode & 077) && fchmod(fd, 0700) != 0) {
        snprintf(why, sizeof why, "its mode is %04o and chmod 0700 failed: %s", (unsigned)(st.st_mode & 07777),
                 strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    if (!why[0])
        return 0;
    return gf_errf(err, GF_EXIT_ERROR, "%s: refusing to keep private state there: %s. Remove it, or name another "
                   "directory (docs/LIVE.md, \"Where state lives\")", path, why);
}

int gf_require_trusted(const char *path, gf_err *err)
{
    if (geteuid() != 0)
        return 0;
    return gf_check_trusted(path, err);
}
