/* core/csv.c reading every row and touching every field: compared with csv_raw.c on the same file. */
#include <stdio.h>
#include "csv.h"

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    gf_csv *c;
    gf_err err;
    if (gf_csv_open(&c, argv[1], NULL, &err) != 0) { fprintf(stderr, "%s\n", err.msg); return 1; }
    size_t rows = 0, bytes = 0;
    int rc;
    while ((rc = gf_csv_next(c, &err)) == 1) {
        rows++;
        for (size_t i = 0; i < gf_csv_ncols(c); i++) { size_t n; gf_csv_field(c, i, &n); bytes += n; }
    }
    if (rc < 0) { fprintf(stderr, "%s\n", err.msg); return 1; }
    gf_csv_close(c);
    printf("%zu rows %zu bytes\n", rows, bytes);
    return 0;
}
