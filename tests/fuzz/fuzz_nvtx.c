/* The NVTX analysis core: the input is split at the first NUL into the nvtx_pushpop_trace and the
 * nvtx_gpu_proj_trace CSVs; both are read and analysed with a fixed manifest (the spec's example). */
#include <string.h>

#include "fuzz_file.h"
#include "nvtx.h"
#include "yamltree.h"

static const char MANIFEST[] = "run_id: fuzz\nprofile_name: fuzz\ncapture_range: profile-target\n"
                               "workload:\n  iterations: 2\n  warmup: 1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gf_yv *manifest;
    gf_err err;
    if (!manifest) {
        int status;
        manifest = gf_yaml_load_string(MANIFEST, sizeof MANIFEST - 1, "manifest.yaml", &status, &err);
        if (!manifest)
            abort();
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t hlen = nul ? (size_t)(nul - data) : size;
    char host[256], gpu[256];
    snprintf(host, sizeof host, "%s", fuzz_write_file(data, hlen, ".host.csv"));
    snprintf(gpu, sizeof gpu, "%s", fuzz_write_file(nul ? nul + 1 : data, nul ? size - hlen - 1 : 0, ".gpu.csv"));
    gf_nvtx *nv = gf_nvtx_new();
    if (nv && gf_nvtx_read_host(nv, host, &err) == 0 && gf_nvtx_read_gpu(nv, gpu, &err) == 0) {
        gf_nvtx_input in;
        memset(&in, 0, sizeof in);
        in.manifest = manifest;
        in.nsys_version = "NVIDIA Nsight Systems version 2025.1.3";
        in.validated_version = "2025.1";
        in.manifest_path = "manifest.yaml";
        in.trace_path = "trace.nsys-rep";
        in.host_report = "stats/nsys_nvtx_pushpop_trace.csv";
        in.gpu_report = "stats/nsys_nvtx_gpu_proj_trace.csv";
        gf_nvtx_result res;
        memset(&res, 0, sizeof res);
        if (gf_nvtx_analyze(nv, &in, &res, &err) == 0)
            gf_nvtx_result_free(&res);
    }
    gf_nvtx_free(nv);
    unlink(host);
    unlink(gpu);
    return 0;
}
