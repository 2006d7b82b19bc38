/* Fuzz targets whose parser reads a file: the input is written to a per-process temporary file. */
#ifndef GF_FUZZ_FILE_H
#define GF_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *fuzz_write_file(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[256];
    /* tmpfs when available: the fuzzer writes this file for every input */
    snprintf(path, sizeof path, "%s/gf-fuzz-%d%s", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
             (int)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
}

#endif
