/* The JSON writer (core/jsonout.c) on any bytes: the first byte picks the style (ASCII, HTML-safe,
 * indent), the rest is written as a string, as an object key and inside an array. Checked, not just run:
 * the text must parse (cJSON), read back as the input with each invalid UTF-8 byte replaced by U+FFFD,
 * stay ASCII under GF_JOUT_ASCII and free of <, >, &, U+2028/9 under GF_JOUT_HTML_SAFE; with
 * GF_JOUT_STRICT_UTF8 the writer fails exactly when the input is not valid UTF-8. A violation aborts. */
#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

/* The input with invalid bytes replaced by U+FFFD, cut at the first NUL (cJSON's strings end there);
 * *valid: the whole input is valid UTF-8. */
static char *expected(const unsigned char *s, size_t n, int *valid)
{
    char *out = malloc(n * 3 + 1);
    size_t o = 0;
    int cut = 0; /* past the first NUL: still checked for validity, no longer compared */
    *valid = 1;
    for (size_t i = 0; out && i < n;) {
        uint32_t cp;
        size_t k = gf_utf8_decode(s + i, n - i, &cp);
        if (k == 0) {
            *valid = 0;
            if (!cut)
                memcpy(out + o, "\xEF\xBF\xBD", 3), o += 3;
            i++;
            continue;
        }
        cut |= cp == 0;
        if (!cut)
            memcpy(out + o, s + i, k), o += k;
        i += k;
    }
    if (out)
        out[o] = '\0';
    return out;
}

static void check_style(const char *text, size_t len, unsigned flags)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((flags & GF_JOUT_ASCII) && c >= 0x80)
            abort();
        if ((flags & GF_JOUT_HTML_SAFE) && (c == '<' || c == '>' || c == '&'))
            abort();
        if ((flags & GF_JOUT_HTML_SAFE) && c == 0xE2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
            ((unsigned char)text[i + 2] == 0xA8 || (unsigned char)text[i + 2] == 0xA9))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned style = data[0];
    unsigned flags = (style & 1 ? GF_JOUT_ASCII : 0) | (style & 2 ? GF_JOUT_HTML_SAFE : 0) |
                     (style & 4 ? GF_JOUT_STRICT_UTF8 : 0);
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    gf_jout w;
    gf_jout_init_buffer(&w, flags, style & 8 ? 2 : 0);
    gf_jout_begin_object(&w);
    gf_jout_key_len(&w, s, n);
    gf_jout_begin_array(&w);
    gf_jout_string(&w, s, n);
    gf_jout_int(&w, (int64_t)n);
    gf_jout_end_array(&w);
    gf_jout_end_object(&w);
    size_t len = 0;
    char *text = gf_jout_finish(&w, &len);
    int valid;
    char *want = expected((const unsigned char *)s, n, &valid);
    if (!want)
        abort();
    if (flags & GF_JOUT_STRICT_UTF8) {
        if (valid != (text != NULL))
            abort();
        if (!text) {
            free(want);
            return 0;
        }
    }
    if (!text)
        abort();
    check_style(text, len, flags);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root || !cJSON_IsObject(root) || !root->child || !root->child->string || strcmp(root->child->string, want) != 0)
        abort();
    cJSON *arr = root->child;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 2 || strcmp(cJSON_GetArrayItem(arr, 0)->valuestring, want) != 0 ||
        cJSON_GetArrayItem(arr, 1)->valuedouble != (double)n)
        abort();
    cJSON_Delete(root);
    free(want);
    free(text);
    return 0;
}
