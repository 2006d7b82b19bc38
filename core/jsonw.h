/* Streaming JSON writing for data embedded in HTML: strings are escaped so that the output is safe
 * inside <script> (`<`, `>`, `&`, U+2028, U+2029 become \u escapes) and always valid UTF-8 (invalid
 * bytes become U+FFFD, NUL becomes \u0000). Every C writer of JSON in gpuflame uses these. */
#ifndef GF_JSONW_H
#define GF_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length (1..4) of the valid UTF-8 sequence at s and its code point, or 0 when the bytes are not valid
 * UTF-8 (overlong forms, surrogates and values above U+10FFFF are invalid). */
size_t gf_utf8_decode(const unsigned char *s, size_t left, uint32_t *cp);

/* Writes "..." with the escaping described above. */
void gf_jsonw_string(FILE *out, const char *s, size_t len);
/* Makes a script-safe copy of existing JSON text (escapes <, >, & and U+2028/9 wherever they occur;
 * outside strings they cannot occur in valid JSON). Returns a malloc'd string. */
char *gf_json_script_safe(const char *json, size_t len, size_t *out_len);
void gf_jsonw_int(FILE *out, int64_t v);
/* Shortest round-trip representation; non-finite values are written as null. */
void gf_jsonw_double(FILE *out, double v);

#endif
