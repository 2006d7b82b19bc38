/* SHA-256 (FIPS 180-4), for fingerprints of values that must not be shown themselves (a capture's
 * command line): equal inputs give equal hashes, the text cannot be read back from them; and of a
 * file's content (the export cache's key). */
#ifndef GF_SHA256_H
#define GF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "gf_err.h"

typedef struct gf_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t nbuf;
} gf_sha256;

void gf_sha256_init(gf_sha256 *c);
void gf_sha256_update(gf_sha256 *c, const void *data, size_t n);
void gf_sha256_final(gf_sha256 *c, unsigned char out[32]);
/* Lower-case hex digest of data (65 bytes with the NUL). */
void gf_sha256_hex(const void *data, size_t n, char out[65]);
/* Lower-case hex digest of a file's content, read in blocks (any size). 0, or -1 with err (exit 6). */
int gf_sha256_file(const char *path, char out[65], gf_err *err);

#endif
