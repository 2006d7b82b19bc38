/* SQLite export import, per-name totals (mutated database files): kernels and API calls. */
#include "fuzz_file.h"
#include "sqlite_kernels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, ".sqlite");
    gf_err err;
    char why[256];
    for (int what = GF_SQL_KERNELS; what <= GF_SQL_API; what++) {
        gf_name_total *t = NULL;
        size_t n = 0;
        if (gf_sqlite_totals(path, what, &t, &n, why, sizeof why, &err) == 0)
            gf_name_totals_free(t, n);
    }
    unlink(path);
    return 0;
}
