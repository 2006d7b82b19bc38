/* Error values shared by every C primitive: a code (the process exit code it maps to) and a message. */
#ifndef GF_ERR_H
#define GF_ERR_H

#include <stdarg.h>

/* The process exit codes, defined once: C uses GF_EXIT_<NAME>, Lua reads the same table through
 * require("gpuflame.core").exit (lua/gpuflame/errors.lua). README documents them. */
#define GF_EXIT_CODES(X)                                                                                    \
    X(OK, 0)                                                                                                \
    X(ERROR, 1)                                                                                             \
    X(USAGE, 2)                                                                                             \
    X(NO_NSYS, 3)                                                                                           \
    X(CAPTURE, 4)                                                                                           \
    X(NO_DATA, 5)                                                                                           \
    X(INPUT, 6)                                                                                             \
    X(DELIVERY, 7)                                                                                          \
    X(REGRESSION, 10)                                                                                       \
    X(NOT_COMPARABLE, 11)                                                                                   \
    X(INTERRUPTED, 130)

enum {
#define GF_EXIT_ENUM(name, value) GF_EXIT_##name = value,
    GF_EXIT_CODES(GF_EXIT_ENUM)
#undef GF_EXIT_ENUM
};

typedef struct gf_err {
    int code;
    char msg[1024];
} gf_err;

/* Fills err (if not NULL) and returns -1 so callers can `return gf_errf(...)`. */
int gf_errf(gf_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gf_verrf(gf_err *err, int code, const char *fmt, va_list ap);
void gf_err_clear(gf_err *err);
/* The one out-of-memory error: "WHAT: out of memory" ("out of memory" when what is NULL), code
 * GF_EXIT_ERROR; returns -1. */
int gf_oom(gf_err *err, const char *what);

#endif
