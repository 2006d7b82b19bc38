/* Python's text forms that are not the JSON writer's (core/jsonout.h): repr(str), and a YAML value tree
 * written through the JSON writer with its mapping keys sorted as Python's sort_keys sorts them. */
#ifndef GF_PYJSON_H
#define GF_PYJSON_H

#include <stddef.h>

#include "jsonout.h"

struct gf_yv;

/* A whole YAML value tree (mapping keys sorted by code point). */
void gf_jout_yv(gf_jout *j, const struct gf_yv *v);
/* Python repr(str) of a UTF-8 string: '...' or "..." with Python's escapes. Returns a malloc'd string. */
char *gf_py_str_repr(const char *s, size_t len);

#endif
