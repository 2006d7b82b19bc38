#include "gf_err.h"

#include <stdio.h>

int gf_verrf(gf_err *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return -1;
}

int gf_errf(gf_err *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gf_verrf(err, code, fmt, ap);
    va_end(ap);
    return -1;
}

void gf_err_clear(gf_err *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}

int gf_oom(gf_err *err, const char *what)
{
    if (what)
        return gf_errf(err, GF_EXIT_ERROR, "%s: out of memory", what);
    return gf_errf(err, GF_EXIT_ERROR, "%s", "out of memory");
}
