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
    CHECK("remove_tree", gf_remove_tree(base, &err) == 0 && access(base, F_OK) != 0);
    return tap_done();
}
