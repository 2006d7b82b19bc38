/* Lines from a file descriptor with a timeout and a hard length cap (see linein.h). The buffer holds at most
 * max_line + 1 bytes: a line that does not fit is dropped byte by byte until its newline ("discarding"),
 * then reported once as GF_LINE_TOOLONG. */
#include "linein.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gf_linein {
    int fd;
    int eof;
    int discarding; /* inside a line that was too long: dropping bytes up to its newline */
    size_t max_line;
    size_t start, end, cap; /* buf[start, end): bytes not yet returned */
    char *buf;
};

gf_linein *gf_linein_new(int fd, size_t max_line, gf_err *err)
{
    if (max_line < 1 || max_line > ((size_t)1 << 30)) {
        gf_errf(err, GF_EXIT_USAGE, "line reader: max_line %zu out of range (1 .. 1 GiB)", max_line);
        return NULL;
    }
    gf_linein *r = calloc(1, sizeof *r);
    char *buf = malloc(max_line + 2);
    if (!r || !buf) {
        free(r);
        free(buf);
        gf_errf(err, GF_EXIT_ERROR, "line reader: out of memory");
        return NULL;
    }
    r->fd = fd;
    r->max_line = max_line;
    r->cap = max_line + 2; /* the line, "\r" and "\n" */
    r->buf = buf;
    return r;
}

void gf_linein_free(gf_linein *r)
{
    if (!r)
        return;
    free(r->buf);
    free(r);
}

size_t gf_linein_buffered(const gf_linein *r)
{
    return r->end - r->start;
}

/* A whole line in the buffer, or the end of a discarded one: its result, else -1 (more bytes needed). */
static int take_line(gf_linein *r, const char **line, size_t *len)
{
    char *s = r->buf + r->start;
    char *nl = memchr(s, '\n', r->end - r->start);
    if (r->discarding) {
        if (!nl) {
            r->start = r->end = 0; /* drop what came so far */
            return -1;
        }
        r->start += (size_t)(nl - s) + 1;
        r->discarding = 0;
        return GF_LINE_TOOLONG;
    }
    if (!nl) {
        if (r->end - r->start > r->max_line + 1) { /* no room for the newline: the line is too long */
            r->discarding = 1;
            r->start = r->end = 0;
        }
        return -1;
    }
    size_t n = (size_t)(nl - s);
    r->start += n + 1;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    if (n > r->max_line)
        return GF_LINE_TOOLONG;
    s[n] = '\0';
    *line = s;
    *len = n;
    return GF_LINE_OK;
}

int gf_linein_next(gf_linein *r, int timeout_ms, const char **line, size_t *len, gf_err *err)
{
    for (;;) {
        int got = take_line(r, line, len);
        if (got >= 0)
            return got;
        if (r->eof) {
            if (r->discarding) {
                r->discarding = 0;
                return GF_LINE_TOOLONG;
            }
            if (r->end > r->start) { /* a last line without its newline */
                size_t n = r->end - r->start;
                if (n > r->max_line) {
                    r->start = r->end = 0;
                    return GF_LINE_TOOLONG;
                }
                if (r->end == r->cap) { /* room for the terminator */
                    memmove(r->buf, r->buf + r->start, n);
                    r->start = 0;
                    r->end = n;
                }
                r->buf[r->end] = '\0';
                *line = r->buf + r->start;
                *len = n;
                r->start = r->end = 0;
                return GF_LINE_OK;
            }
            return GF_LINE_EOF;
        }
        if (r->start > 0) { /* keep the partial line at the front */
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        int pr = poll(&p, 1, timeout_ms);
        if (pr < 0) {
            if (errno == EINTR)
                return GF_LINE_INTERRUPTED;
            return gf_errf(err, GF_EXIT_ERROR, "line reader: poll: %s", strerror(errno)), GF_LINE_ERROR;
        }
        if (pr == 0)
            return GF_LINE_TIMEOUT;
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n < 0) {
            if (errno == EINTR)
                return GF_LINE_INTERRUPTED;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return GF_LINE_TIMEOUT;
            return gf_errf(err, GF_EXIT_ERROR, "line reader: read: %s", strerror(errno)), GF_LINE_ERROR;
        }
        if (n == 0)
            r->eof = 1;
        r->end += (size_t)n;
    }
}

int gf_linein_claim_stdout(gf_err *err)
{
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return gf_errf(err, GF_EXIT_ERROR, "cannot duplicate stdout: %s", strerror(errno));
    if (dup2(2, 1) < 0) {
        int e = errno;
        close(fd);
        return gf_errf(err, GF_EXIT_ERROR, "cannot point stdout at stderr: %s", strerror(e));
    }
    return fd;
}
