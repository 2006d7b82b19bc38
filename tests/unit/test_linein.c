/* The line reader (core/linein.c): lines split on "\n" with "\r" dropped, the length cap (a longer line
 * discarded up to its newline and reported once, never buffered whole), a last line without a newline,
 * timeouts on a pipe with nothing to read, and lines that arrive in pieces. */
#include <string.h>
#include <unistd.h>

#include "linein.h"
#include "tap.h"

static int next_is(gf_linein *r, int want_rc, const char *want)
{
    const char *line = NULL;
    size_t len = 0;
    gf_err err = {0};
    int rc = gf_linein_next(r, 0, &line, &len, &err);
    if (rc != want_rc)
        return 0;
    return !want || (len == strlen(want) && memcmp(line, want, len) == 0);
}

int main(void)
{
    int p[2];
    gf_err err = {0};
    CHECK("pipe", pipe(p) == 0);
    gf_linein *r = gf_linein_new(p[0], 8, &err);
    CHECK("a reader with an 8-byte cap", r != NULL);
    CHECK("nothing to read: a timeout, not a wait", next_is(r, GF_LINE_TIMEOUT, NULL));
    const char *in = "ab\r\n12345678\n123456789\n";
    CHECK("write", write(p[1], in, strlen(in)) == (ssize_t)strlen(in));
    CHECK("a line, its \\r dropped", next_is(r, GF_LINE_OK, "ab"));
    CHECK("a line of exactly the cap", next_is(r, GF_LINE_OK, "12345678"));
    CHECK("a line one byte over the cap: too long", next_is(r, GF_LINE_TOOLONG, NULL));
    const char *big = "0123456789012345678901234567890123456789";
    int wrote = 1;
    for (int i = 0; i < 100; i++)
        wrote &= write(p[1], big, strlen(big)) == (ssize_t)strlen(big);
    CHECK("write a 4,000-byte line in pieces", wrote);
    CHECK("a line far over the cap, unfinished: no line yet", next_is(r, GF_LINE_TIMEOUT, NULL));
    CHECK("and not buffered whole", gf_linein_buffered(r) <= 10);
    CHECK("its end", write(p[1], "tail\nok\npart", 12) == 12);
    CHECK("the long line reported once as too long", next_is(r, GF_LINE_TOOLONG, NULL));
    CHECK("the next line whole", next_is(r, GF_LINE_OK, "ok"));
    CHECK("a partial line waits for its newline", next_is(r, GF_LINE_TIMEOUT, NULL));
    close(p[1]);
    CHECK("at the end of input, the last line without its newline", next_is(r, GF_LINE_OK, "part"));
    CHECK("then the end", next_is(r, GF_LINE_EOF, NULL));
    CHECK("and the end again", next_is(r, GF_LINE_EOF, NULL));
    gf_linein_free(r);
    close(p[0]);
    CHECK("a zero cap is refused", gf_linein_new(0, 0, &err) == NULL && strstr(err.msg, "max_line"));
    return tap_done();
}
