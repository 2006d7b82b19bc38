/* Template rendering: the input is split at the first NUL into a template and slot values (text and
 * JSON), so the fuzzer explores both the {{...}} syntax and hostile slot contents. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t tlen = nul ? (size_t)(nul - data) : size;
    const char *value = nul ? (const char *)nul + 1 : "";
    size_t vlen = nul ? size - tlen - 1 : 0;
    gf_slot slots[] = {
        {"title", GF_SLOT_TEXT, value, vlen, NULL, NULL},
        {"data", GF_SLOT_JSON, value, vlen, NULL, NULL},
        {"name", GF_SLOT_TEXT, value, vlen / 2, NULL, NULL},
    };
    FILE *devnull = fopen("/dev/null", "w");
    if (!devnull)
        return 0;
    gf_err err;
    gf_render_stream("fuzz.html", (const char *)data, tlen, slots, 3, devnull, &err);
    fclose(devnull);
    return 0;
}
