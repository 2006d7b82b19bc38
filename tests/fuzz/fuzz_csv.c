/* Stats CSV import: the streaming reader with and without preamble skipping, column lookup by the
 * alias tables the reports use, typed values of every field, and the kern/api-sum collapse. */
#include <string.h>

#include "csv.h"
#include "fuzz_file.h"
#include "stacks.h"

static void read_all(const char *path, int skip_preamble, const char *hint)
{
    gf_csv_opts o;
    memset(&o, 0, sizeof o);
    o.skip_preamble = skip_preamble;
    o.header_hint = hint;
    o.allow_short_rows = skip_preamble;
    gf_csv *c;
    gf_err err;
    if (gf_csv_open(&c, path, &o, &err) != 0)
        return;
    static const char *const names[] = {"Name", "Kernel Name", "kernel"};
    static const char *const totals[] = {"Total Time (ns)", "Total Time(ns)", "Total (ns)", "Time (ns)"};
    int name = gf_csv_find(c, names, 3);
    int total = gf_csv_find(c, totals, 4);
    char buf[256];
    gf_csv_columns_str(c, buf, sizeof buf);
    int rc;
    size_t rows = 0;
    while ((rc = gf_csv_next(c, &err)) == 1 && rows++ < 100000) {
        for (size_t i = 0; i < gf_csv_nfields(c) && i < gf_csv_ncols(c); i++) {
            int64_t v;
            double d;
            size_t n;
            gf_csv_int64(c, i, &v, &err);
            gf_csv_double(c, i, &d, &err);
            gf_csv_field(c, i, &n);
            gf_csv_is_blank(c, i);
        }
    }
    gf_csv_close(c);
    if (name >= 0 && total >= 0 && gf_csv_open(&c, path, &o, &err) == 0) {
        gf_stacks *s = gf_stacks_new();
        gf_summary_stats st;
        gf_stacks_from_summary_csv(s, c, (size_t)name, (size_t)total, "gpu;nsys;cuda_kernel", 1000, &st, &err);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            gf_stacks_write_folded(s, devnull, 1, &err);
            fclose(devnull);
        }
        gf_stacks_free(s);
        gf_csv_close(c);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, ".csv");
    read_all(path, 0, NULL);
    read_all(path, 1, "Name");
    unlink(path);
    return 0;
}
