/* Unit tests for the one escaping function of external text (core/textsafe.c) and for SHA-256 of a
 * file (core/sha256.c, the export cache's key). Expected strings are written out by hand. */
#include <unistd.h>

#include "sha256.h"
#include "tap.h"
#include "textsafe.h"

static int esc_is(const char *in, size_t n, int keep_lines, const char *want)
{
    char *got = gf_text_escape(in, n, keep_lines);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        printf("# got [%s] want [%s]\n", got ? got : "(null)", want);
    free(got);
    return ok;
}
#define ESC(name, lit, keep, want) CHECK(name, esc_is(lit, sizeof(lit) - 1, keep, want))

static void test_escape(void)
{
    ESC("printable ASCII kept", "Exportation error: a-Z 0~9 {}\\", 0, "Exportation error: a-Z 0~9 {}\\");
    /* what nsys 2022.4 echoes for a report whose first bytes were overwritten */
    ESC("control bytes of a damaged header", "prefix: \x13\x01\x1d\x1b[31mJUNK\x07\x08", 0,
        "prefix: \\x13\\x01\\x1D\\x1B[31mJUNK\\x07\\x08");
    ESC("NUL inside the text", "a\0b", 0, "a\\x00b");
    ESC("DEL", "a\x7f", 0, "a\\x7F");
    ESC("invalid UTF-8 bytes", "\xff\xfe ok", 0, "\\xFF\\xFE ok");
    ESC("a truncated UTF-8 sequence", "x\xe2\x82", 0, "x\\xE2\\x82");
    ESC("an overlong encoding of '/'", "\xc0\xaf", 0, "\\xC0\\xAF");
    ESC("an overlong 3-byte sequence", "\xe0\x80\xaf", 0, "\\xE0\\x80\\xAF");
    ESC("a surrogate", "\xed\xa0\x80", 0, "\\xED\\xA0\\x80");
    ESC("beyond U+10FFFF", "\xf4\x90\x80\x80", 0, "\\xF4\\x90\\x80\\x80");
    ESC("a C1 control (U+009B, CSI)", "\xc2\x9b" "31m", 0, "\\xC2\\x9B31m");
    ESC("printable UTF-8 kept", "µs — 日本 😀", 0, "µs — 日本 😀");
    ESC("newline and tab escaped on one line", "a\nb\tc\r", 0, "a\\x0Ab\\x09c\\x0D");
    ESC("newline and tab kept with keep_lines, CR not", "a\nb\tc\r", 1, "a\nb\tc\\x0D");
    ESC("empty", "", 0, "");
}

static void test_sha256_file(void)
{
    const char *t = getenv("GF_TMP");
    char path[1024];
    snprintf(path, sizeof path, "%s/sha.bin", t && *t ? t : "/tmp");
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < 100000; i++) /* 1,000,000 bytes: longer than one read block */
        fputs("aaaaaaaaaa", f);
    fclose(f);
    char hex[65];
    gf_err err;
    /* FIPS 180-2 appendix B.3: one million 'a' */
    CHECK("sha256 of a file: a million 'a'", gf_sha256_file(path, hex, &err) == 0 &&
                                                 strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
    unlink(path);
    CHECK("sha256 of a missing file: exit 6 naming it", gf_sha256_file(path, hex, &err) != 0 && err.code == GF_EXIT_INPUT &&
                                                            strstr(err.msg, path) != NULL);
}

int main(void)
{
    test_escape();
    test_sha256_file();
    return tap_done();
}
