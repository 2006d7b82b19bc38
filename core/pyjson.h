/* JSON text byte-compatible with Python's `json.dumps(obj, indent=2, sort_keys=True)` + "\n":
 * 2-space indent, `": "`, `[]`/`{}` for empty containers, ASCII-only strings (\uXXXX, surrogate pairs),
 * floats as Python's repr(float) (shortest round-trip; fixed notation for 1e-4 <= |x| < 1e16), and
 * Infinity/NaN like Python. Written into a growable memory buffer. */
#ifndef GF_PYJSON_H
#define GF_PYJSON_H

#include <stddef.h>
#include <stdint.h>

struct gf_yv;

typedef struct gf_pyj {
    char *buf;
    size_t len, cap;
    int depth;
    int oom;
    int after_key;
    size_t count[256]; /* items written at each depth */
} gf_pyj;

void gf_pyj_init(gf_pyj *j);
void gf_pyj_free(gf_pyj *j);
/* Takes the text (with the final "\n" added); the writer is reset. NULL when memory ran out. */
char *gf_pyj_finish(gf_pyj *j, size_t *len);

void gf_pyj_begin_object(gf_pyj *j);
void gf_pyj_end_object(gf_pyj *j);
void gf_pyj_begin_array(gf_pyj *j);
void gf_pyj_end_array(gf_pyj *j);
/* Object member key; the caller writes keys in sorted order. */
void gf_pyj_key(gf_pyj *j, const char *key);
void gf_pyj_int(gf_pyj *j, int64_t v);
void gf_pyj_int128(gf_pyj *j, __int128 v);
void gf_pyj_float(gf_pyj *j, double v);
void gf_pyj_string(gf_pyj *j, const char *s, size_t len);
void gf_pyj_null(gf_pyj *j);
void gf_pyj_bool(gf_pyj *j, int b);
/* A whole YAML value tree (mapping keys sorted by code point). */
void gf_pyj_yv(gf_pyj *j, const struct gf_yv *v);

/* Python repr(float) into buf (at least 32 bytes): "336423.0", "1e+16", "1.5e-07", "inf", "nan". */
void gf_py_float_repr(double v, char *buf, size_t n);
/* What json.dumps writes for a float: repr, or Infinity / -Infinity / NaN. */
void gf_pyjson_float_text(double v, char *buf, size_t n);
/* Python repr(str) of a UTF-8 string: '...' or "..." with Python's escapes. Returns a malloc'd string. */
char *gf_py_str_repr(const char *s, size_t len);
/* Decimal text of a 128-bit integer into buf (at least 42 bytes). */
void gf_int128_text(__int128 v, char *buf);

#endif
