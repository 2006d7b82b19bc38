/* Error values shared by every C primitive: a code (the process exit code it maps to) and a message. */
#ifndef GF_ERR_H
#define GF_ERR_H

#include <stdarg.h>

enum {
    GF_EXIT_OK = 0,
    GF_EXIT_ERROR = 1,
    GF_EXIT_USAGE = 2,
    GF_EXIT_NO_NSYS = 3,
    GF_EXIT_CAPTURE = 4,
    GF_EXIT_NO_DATA = 5,
    GF_EXIT_INPUT = 6,
    GF_EXIT_DELIVERY = 7,
    GF_EXIT_INTERRUPTED = 130
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

#endif
