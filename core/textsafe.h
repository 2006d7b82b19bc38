/* Text from outside gpuflame (nsys's stdout and stderr, the bytes of a damaged report it echoes back) made
 * safe for a terminal and a log: every byte that is not printable UTF-8 is written as \xNN. This is the
 * one escaping function: the logger (core/log.c), the top-level error message (core/host/main.c) and
 * Lua's core.log.escape / nsys.clean_text all use it. */
#ifndef GF_TEXTSAFE_H
#define GF_TEXTSAFE_H

#include <stddef.h>

/* A malloc'd, NUL-terminated copy of s[0..n) where ASCII 0x20-0x7E and well-formed UTF-8 sequences of
 * printable characters are kept; \n and \t are kept when keep_lines; every other byte (C0 and C1
 * controls, DEL, ESC, NUL, invalid, overlong or truncated UTF-8, surrogates) becomes "\xNN" (upper-case
 * hex). NULL when out of memory. */
char *gf_text_escape(const char *s, size_t n, int keep_lines);

#endif
