/* Raw libcsv parse speed on a file (no row handling): the floor for core/csv.c's throughput. */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>

static size_t fields, rows;
static void cb1(void *s, size_t n, void *ud) { (void)s; (void)n; (void)ud; fields++; }
static void cb2(int c, void *ud) { (void)c; (void)ud; rows++; }

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 1;
    struct csv_parser p;
    csv_init(&p, 0);
    static char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&p, buf, n, cb1, cb2, NULL) != n) return 1;
    csv_fini(&p, cb1, cb2, NULL);
    csv_free(&p);
    fclose(f);
    printf("%zu rows %zu fields\n", rows, fields);
    return 0;
}
