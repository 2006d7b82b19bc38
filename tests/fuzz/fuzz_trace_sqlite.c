/* SQLite export import into the Trace model (mutated database files), the CPU side included (OS runtime
 * calls, samples with a small max_samples, running intervals), then trimming and every trace writer:
 * timeline JSON and its preview, Chrome trace, launch-stack folded. */
#include "fuzz_file.h"
#include "trace.h"
#include "trace_sqlite.h"
#include "trace_build.h"
#include "trace_json.h"
#include "trace_trim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, ".sqlite");
    gf_trace *t = gf_trace_new();
    gf_err err;
    gf_sqlite_opts o = {.stacks = 1, .cpu = {GF_CPU_OSRT | GF_CPU_SAMPLES | GF_CPU_RUNNING, 64}};
    if (t && gf_trace_begin(t, 0, 1, &err) == 0 && gf_trace_import_sqlite(t, path, &o, &err) == 0) {
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            gf_timeline_opts to = {"fuzz", 0.001, "busiest", (int)(size & 1), 200, 1, 0}; /* both event encodings */
            gf_trace_write_timeline_json(t, devnull, &to, &err);
            gf_trace_write_timeline_preview_json(t, devnull, &to, &err);
            gf_trace_write_chrome(t, devnull, &err);
            gf_trace_write_launch_folded(t, devnull, &err);
            gf_trace_trim(t, 50, 1, &err);
            gf_trace_write_timeline_json(t, devnull, &to, &err);
            fclose(devnull);
        }
    }
    gf_trace_free(t);
    unlink(path);
    return 0;
}
