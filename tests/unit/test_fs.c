/* fs primitives: atomic output (commit and abort), read, mkdir -p, which, glob. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "tap.h"

int main(void)
{
    gf_err err;
    const char *tmp = getenv("GF_TMP");
    char base[512], path[600];
    snprintf(base, sizeof base, "%s/fs", tmp && *tmp ? tmp : "/tmp");
    CHECK("mkdir -p nested", gf_mkdir_p(base, 0755, &err) == 0);
    snprintf(path, sizeof path, "%s/a/b/c", base);
    CHECK("mkdir -p deep", gf_mkdir_p(path, 0755, &err) == 0);

    snprintf(path, sizeof path, "%s/out.txt", base);
    CHECK("write_atomic", gf_write_atomic(path, "v1", 2, &err) == 0);
    gf_out o;
    CHECK("out_open", gf_out_open(&o, path, &err) == 0);
    fputs("partial v2", o.fp);
    char *data;
    size_t len;
    gf_read_file(path, &data, &len, &err);
    CHECK("old content visible while the new one is written", len == 2 && memcmp(data, "v1", 2) == 0);
    free(data);
    gf_out_abort(&o);
    gf_read_file(path, &data, &len, &err);
    CHECK("abort keeps the old file", len == 2 && memcmp(data, "v1", 2) == 0);
    free(data);
    CHECK("out_open again", gf_out_open(&o, path, &err) == 0);
    fputs("v2", o.fp);
    CHECK("commit", gf_out_commit(&o, &err) == 0);
    gf_read_file(path, &data, &len, &err);
    CHECK("commit replaces", len == 2 && memcmp(data, "v2", 2) == 0);
    free(data);
    char **m;
    size_t n;
    char pat[600];
    snprintf(pat, sizeof pat, "%s/.out.txt.tmp.*", base);
    gf_glob(pat, &m, &n, &err);
    CHECK("no temp files left behind", n == 0);
    gf_free_strv(m, n);

    CHECK("read of a missing file names it",
          gf_read_file("/nonexistent/x", &data, &len, &err) != 0 && strstr(err.msg, "/nonexistent/x") &&
              err.code == GF_EXIT_INPUT);
    CHECK("out_open in a missing directory fails cleanly",
          gf_out_open(&o, "/nonexistent/dir/file", &err) != 0 && strstr(err.msg, "/nonexistent/dir/file"));

    char *sh = gf_which("sh", NULL);
    CHECK("which sh", sh && access(sh, X_OK) == 0);
    free(sh);
    CHECK("which of a missing program", gf_which("no-such-program-gf", NULL) == NULL);

    snprintf(pat, sizeof pat, "%s/a/*", base);
    CHECK("glob", gf_glob(pat, &m, &n, &err) == 0 && n == 1);
    gf_free_strv(m, n);

    /* the root trust rule (gf_check_trusted): files and directories must be root's and not writable by others */
    if (geteuid() == 0) {
        char dir[600], f[700];
        snprintf(dir, sizeof dir, "%s/trust", base);
        gf_mkdir_p(dir, 0755, &err);
        chmod(dir, 0755);
        snprintf(f, sizeof f, "%s/p.lua", dir);
        gf_write_atomic(f, "return {}\n", 10, &err);
        chmod(f, 0644);
        CHECK("trust: root 0644 file in a root 0755 dir", gf_check_trusted(f, &err) == 0);
        chmod(f, 0646);
        CHECK("trust: world-writable file refused, named, exit 1",
              gf_check_trusted(f, &err) != 0 && err.code == GF_EXIT_ERROR && strstr(err.msg, f) &&
                  strstr(err.msg, "world-writable (mode 0646)"));
        chmod(f, 0664);
        CHECK("trust: group-writable file refused", gf_check_trusted(f, &err) != 0 && strstr(err.msg, "group-writable"));
        chmod(f, 0644);
        CHECK("trust: another owner refused", chown(f, 65534, 0) == 0 && gf_check_trusted(f, &err) != 0 &&
                                                   strstr(err.msg, "owned by uid 65534"));
        CHECK("trust: back to root", chown(f, 0, 0) == 0 && gf_check_trusted(f, &err) == 0);
        chmod(dir, 01777);
        CHECK("trust: sticky world-writable directory of the file refused",
              gf_check_trusted(f, &err) != 0 && strstr(err.msg, "its directory") && strstr(err.msg, "(mode 1777)"));
        char sub[700], g[800];
        snprintf(sub, sizeof sub, "%s/in", dir);
        gf_mkdir_p(sub, 0755, &err);
        chmod(sub, 0755);
        snprintf(g, sizeof g, "%s/q.lua", sub);
        gf_write_atomic(g, "return {}\n", 10, &err);
        chmod(g, 0644);
        CHECK("trust: a root-owned sticky directory further up is accepted", gf_check_trusted(g, &err) == 0);
        chmod(dir, 0777);
        CHECK("trust: a world-writable directory further up is refused",
              gf_check_trusted(g, &err) != 0 && strstr(err.msg, "above it is world-writable"));
        chmod(dir, 0755);
        CHECK("trust: gf_require_trusted checks as root", gf_require_trusted(f, &err) == 0);
    } else {
        SKIP("trust rule", "not running as root");
    }
    CHECK("remove_tree", gf_remove_tree(base, &err) == 0 && access(base, F_OK) != 0);
    return tap_done();
}
