/* Model files (`gpuflame import`, docs/MODEL_FORMAT.md): the header, provenance, payload and trailer
 * checks of gf_model_read over any bytes; a file that loads is written again and must load again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gf_trace *t;
    char *prov;
    gf_err err;
    if (gf_model_from_buffer((const char *)data, size, "fuzz.gfmodel", &t, &prov, &err) != 0)
        return 0;
    char *buf;
    size_t len;
    if (gf_model_to_buffer(t, prov, strlen(prov), &buf, &len, &err) == 0) {
        gf_trace *t2;
        char *prov2;
        if (gf_model_from_buffer(buf, len, "again", &t2, &prov2, &err) != 0)
            abort(); /* what was written must read back */
        gf_trace_free(t2);
        free(prov2);
        free(buf);
    }
    gf_trace_free(t);
    free(prov);
    return 0;
}
