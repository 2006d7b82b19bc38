/* The one JSON writer. Every C writer of JSON in gpuflame goes through it: the timeline, flamegraph and
 * diff pages' data (a stream, HTML-safe), analysis.json and the nvtx reports (a buffer, byte-compatible
 * with Python's json.dumps(indent=2, sort_keys=True)), and core.json.encode for Lua (a buffer, compact or
 * indented).
 *
 * Target: a FILE stream or a growable buffer. A buffer that cannot grow marks the writer failed: finish
 * then returns NULL, never a shortened text.
 * Strings are always valid UTF-8 JSON: invalid bytes become U+FFFD, or fail the writer under
 * GF_JOUT_STRICT_UTF8 (the first offending byte offset is kept). Flags choose the rest of the style. */
#ifndef GF_JSONOUT_H
#define GF_JSONOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
    GF_JOUT_ASCII = 1,       /* non-ASCII as \uXXXX (surrogate pairs above U+FFFF), as Python's ensure_ascii */
    GF_JOUT_HTML_SAFE = 2,   /* <, >, &, U+2028 and U+2029 as \u escapes: safe inside <script> */
    GF_JOUT_STRICT_UTF8 = 4, /* invalid UTF-8 in a string fails the writer instead of becoming U+FFFD */
    GF_JOUT_PY_FLOAT = 8,    /* floats as Python's repr (1.0, 1e+16, NaN, Infinity); else shortest %g, null */
    GF_JOUT_NEWLINE = 16,    /* finish appends "\n" (Python's json.dump + write("\n")) */
};

#define GF_JOUT_MAX_DEPTH 256

/* The decimal digits of v written backwards from end (a buffer of 21 bytes or more); returns where they
 * start. For the writers of many numbers (the flamegraph page's nodes, folded and diff lines). */
static inline char *gf_fmt_i64(char *end, int64_t v)
{
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = end;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

typedef struct gf_jout {
    FILE *file;         /* the stream target; NULL: the buffer below */
    char *buf;
    size_t len, cap;
    unsigned flags;
    int indent;         /* 0: compact ("," ":"); n > 0: a newline and n spaces a level, ": " after keys */
    int failed;         /* out of memory, or invalid UTF-8 under GF_JOUT_STRICT_UTF8 */
    int bad_utf8;       /* failed by invalid UTF-8: bad_utf8_at is the byte offset in the offending string */
    size_t bad_utf8_at;
    int depth, after_key;
    size_t count[GF_JOUT_MAX_DEPTH + 1]; /* items written at each depth */
} gf_jout;

void gf_jout_init_buffer(gf_jout *w, unsigned flags, int indent);
void gf_jout_init_file(gf_jout *w, FILE *f, unsigned flags, int indent);
/* Python's json.dumps(obj, indent=2, sort_keys=True) + "\n" into a buffer (keys: the caller sorts). */
void gf_jout_init_python(gf_jout *w);
/* Buffer target: the text (caller frees), NULL when the writer failed; the writer is reset either way.
 * Stream target: returns NULL; the stream's own error state tells about write errors. */
char *gf_jout_finish(gf_jout *w, size_t *len);
void gf_jout_free(gf_jout *w);

void gf_jout_begin_object(gf_jout *w);
void gf_jout_end_object(gf_jout *w);
void gf_jout_begin_array(gf_jout *w);
void gf_jout_end_array(gf_jout *w);
void gf_jout_key(gf_jout *w, const char *key);
void gf_jout_key_len(gf_jout *w, const char *key, size_t len);
void gf_jout_int(gf_jout *w, int64_t v);
void gf_jout_int128(gf_jout *w, __int128 v);
void gf_jout_double(gf_jout *w, double v);
void gf_jout_string(gf_jout *w, const char *s, size_t len);
void gf_jout_null(gf_jout *w);
void gf_jout_bool(gf_jout *w, int b);
/* A value already in JSON form (a big integer's digits), placed like any other value. */
void gf_jout_literal(gf_jout *w, const char *text, size_t len);

/* Streams without structure tracking, for writers that lay out their own punctuation: an HTML-safe
 * string, an integer, a shortest round-trip double (null when not finite). */
void gf_json_file_string(FILE *out, const char *s, size_t len);
void gf_json_file_int(FILE *out, int64_t v);
void gf_json_file_double(FILE *out, double v);

/* Makes a script-safe copy of existing JSON text (escapes <, >, & and U+2028/9 wherever they occur;
 * outside strings they cannot occur in valid JSON). Returns a malloc'd string. */
char *gf_json_script_safe(const char *json, size_t len, size_t *out_len);

/* Length (1..4) of the valid UTF-8 sequence at s and its code point, or 0 when the bytes are not valid
 * UTF-8 (overlong forms, surrogates and values above U+10FFFF are invalid). */
size_t gf_utf8_decode(const unsigned char *s, size_t left, uint32_t *cp);
/* Python repr(float) into buf (at least 32 bytes): "336423.0", "1e+16", "1.5e-07", "inf", "nan". */
void gf_py_float_repr(double v, char *buf, size_t n);
/* What json.dumps writes for a float: repr, or Infinity / -Infinity / NaN. */
void gf_pyjson_float_text(double v, char *buf, size_t n);
/* Decimal text of a 128-bit integer into buf (at least 42 bytes). */
void gf_int128_text(__int128 v, char *buf);

#endif
