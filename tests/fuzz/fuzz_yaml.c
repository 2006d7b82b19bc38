/* YAML manifest: libyaml-backed tree loading, then the manifest checks of the NVTX analysis. */
#include "fuzz_file.h"
#include "nvtx.h"
#include "yamltree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gf_err err;
    int status;
    gf_yv *v = gf_yaml_load_string((const char *)data, size, "fuzz.yaml", &status, &err);
    if (v)
        gf_yv_free(v);
    const char *path = fuzz_write_file(data, size, ".yaml");
    v = gf_nvtx_load_manifest(path, &err);
    if (v)
        gf_yv_free(v);
    unlink(path);
    return 0;
}
