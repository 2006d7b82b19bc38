/* Lines read from a file descriptor (the MCP server's stdin, newline-delimited JSON-RPC) with a timeout and
 * a hard cap on a line's length: a longer line is discarded up to its newline and reported as too long, so
 * a peer cannot make the reader buffer without bound. Lua-free. */
#ifndef GF_LINEIN_H
#define GF_LINEIN_H

#include <stddef.h>

#include "gf_err.h"

typedef struct gf_linein gf_linein;

enum {
    GF_LINE_OK = 0,      /* *line, *len: the line without its "\n" (and "\r"), valid until the next call */
    GF_LINE_TIMEOUT,     /* no whole line within timeout_ms (0: only what is already readable) */
    GF_LINE_EOF,         /* the peer closed its end and every line was returned */
    GF_LINE_TOOLONG,     /* a line over max_line bytes was discarded (up to and with its newline) */
    GF_LINE_INTERRUPTED, /* a signal arrived while waiting (the caller checks gf_interrupted) */
    GF_LINE_ERROR        /* a read error: err says which */
};

/* A reader of fd with lines of at most max_line bytes (>= 1). NULL and err on failure. */
gf_linein *gf_linein_new(int fd, size_t max_line, gf_err *err);
void gf_linein_free(gf_linein *r);
/* The next line, waiting at most timeout_ms for data (< 0: no limit). Returns one of GF_LINE_*. */
int gf_linein_next(gf_linein *r, int timeout_ms, const char **line, size_t *len, gf_err *err);
/* Bytes buffered and not yet returned (a test hook: 0 after a line has been discarded and returned). */
size_t gf_linein_buffered(const gf_linein *r);

/* The protocol's own copy of stdout: returns a duplicate of fd 1 and points fd 1 at stderr, so that nothing
 * else the process prints (a library, a child process) can corrupt the protocol stream. -1 and err on
 * failure. */
int gf_linein_claim_stdout(gf_err *err);

#endif
