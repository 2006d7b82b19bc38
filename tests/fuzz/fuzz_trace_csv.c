/* Trace CSV import (cuda_api_trace + cuda_gpu_trace): the input is split at the first NUL into the API
 * trace and the GPU trace, both read with the column layout of the reference CSVs, then trimmed and
 * written as timeline JSON. */
#include <string.h>

#include "fuzz_file.h"
#include "trace.h"
#include "trace_csv.h"
#include "trace_build.h"
#include "trace_json.h"

static const char *write_part(const uint8_t *d, size_t n, const char *suffix)
{
    static char paths[2][256];
    const char *p = fuzz_write_file(d, n, suffix);
    char *slot = paths[suffix[1] == 'a' ? 0 : 1];
    snprintf(slot, 256, "%s", p);
    return slot;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t alen = nul ? (size_t)(nul - data) : size;
    const char *api = write_part(data, alen, ".api.csv");
    const char *gpu = write_part(nul ? nul + 1 : data, nul ? size - alen - 1 : 0, ".gpu.csv");
    /* API_TRACE_CSV layout: Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name */
    gf_trace_csv_cols a, g;
    gf_trace_csv_cols_init(&a);
    a.start = 0, a.dur = 1, a.name = 2, a.corr = 4, a.pid = 5, a.tid = 6, a.thread = 8;
    /* GPU_TRACE_CSV layout: Start,Duration,CorrId,GrdX..Z,BlkX..Z,Reg/Trd,..,Bytes (MB),..,Device,Ctx,Strm,Name */
    gf_trace_csv_cols_init(&g);
    g.start = 0, g.dur = 1, g.corr = 2, g.grid[0] = 3, g.grid[1] = 4, g.grid[2] = 5, g.block[0] = 6;
    g.block[1] = 7, g.block[2] = 8, g.regs = 9, g.bytes = 12, g.bytes_scale = 1e6, g.device = 16, g.stream = 18;
    g.name = 19;
    gf_trace *t = gf_trace_new();
    gf_err err;
    if (t && gf_trace_begin(t, 100, 1, &err) == 0 && gf_trace_import_csv(t, api, &a, gpu, &g, &err) == 0) {
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            gf_timeline_opts to = {"fuzz", 0, NULL, (int)(size & 1), 0, 0, 0}; /* both event encodings */
            gf_trace_write_timeline_json(t, devnull, &to, &err);
            gf_trace_write_chrome(t, devnull, &err);
            fclose(devnull);
        }
    }
    gf_trace_free(t);
    unlink(api);
    unlink(gpu);
    return 0;
}
