/* The run manifest of the NVTX analysis (nvtx_manifest.h). */
#include "nvtx_manifest.h"

#include <sys/stat.h>

#include "nvtx.h"

gf_yv *gf_nvtx_load_manifest(const char *path, gf_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        gf_errf(err, GF_EXIT_INPUT, "Profiling manifest does not exist: %s", path);
        return NULL;
    }
    int status;
    gf_err detail;
    gf_yv *m = gf_yaml_load_file(path, &status, &detail);
    if (!m) {
        if (status == GF_YAML_MISSING)
            gf_errf(err, GF_EXIT_INPUT, "Profiling manifest does not exist: %s", path);
        else
            gf_errf(err, GF_EXIT_INPUT, "Profiling manifest is invalid YAML: %s", path);
        return NULL;
    }
    if (m->kind != GF_YV_MAP) {
        gf_yv_free(m);
        gf_errf(err, GF_EXIT_INPUT, "Profiling manifest must contain a mapping: %s", path);
        return NULL;
    }
    const gf_yv *cr = gf_yv_get(m, "capture_range");
    if (!cr || cr->kind != GF_YV_STR) {
        gf_yv_free(m);
        gf_errf(err, GF_EXIT_INPUT, "Manifest must define a string capture_range.");
        return NULL;
    }
    return m;
}

int gf_nvtx_record_count(const gf_yv *v, int64_t *out)
{
    if (!v || v->kind == GF_YV_NULL || (v->kind == GF_YV_BOOL && !v->b) || (v->kind == GF_YV_INT && v->i == 0) ||
        (v->kind == GF_YV_FLOAT && v->f == 0)) {
        *out = 0;
        return 0;
    }
    if (v->kind == GF_YV_SEQ || v->kind == GF_YV_MAP) {
        *out = (int64_t)v->n;
        return 0;
    }
    if (v->kind == GF_YV_STR) { /* Python len(str): code points */
        int64_t n = 0;
        for (size_t i = 0; i < v->len; i++)
            if (((unsigned char)v->s[i] & 0xC0) != 0x80)
                n++;
        *out = n;
        return 0;
    }
    return -1;
}
