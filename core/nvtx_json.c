/* The analysis.json writer (nvtx_json.h). Keys are written in sorted order, as json.dumps(sort_keys=True)
 * does; every section is one function. */
#include "nvtx_json.h"

#include <stdlib.h>
#include <string.h>

#include "nvtx_reports.h"
#include "pyjson.h"
#include "yamltree.h"

static void write_str(gf_jout *j, const char *s)
{
    gf_jout_string(j, s, strlen(s));
}

static void write_id(gf_jout *j, const gf_strtab *strs, uint32_t id)
{
    size_t len;
    const char *s = gf_strtab_get(strs, (int32_t)id, &len);
    gf_jout_string(j, s, len);
}

/* A scoped name: the path joined with '.'. */
static void write_path_name(gf_jout *j, const gf_nvtx_trie *t, uint32_t p)
{
    size_t len = (size_t)t->bytes[p];
    char *buf = malloc(len + 1);
    if (!buf) {
        j->failed = 1;
        return;
    }
    gf_nvtx_trie_join(t, p, buf);
    gf_jout_string(j, buf, len);
    free(buf);
}

/* The duration summary (§9) of vals[0..n) (sorted in place), or null without values. */
static void write_summary(gf_jout *j, int64_t *vals, size_t n)
{
    if (n == 0) {
        gf_jout_null(j);
        return;
    }
    gf_nvtx_summary s;
    gf_nvtx_summarize(vals, n, &s);
    gf_jout_begin_object(j);
    gf_jout_key(j, "maximum_ns");
    gf_jout_int(j, s.max);
    gf_jout_key(j, "mean_ns");
    gf_jout_double(j, s.mean);
    gf_jout_key(j, "median_ns");
    if (s.median_is_int)
        gf_jout_int(j, s.median_i);
    else
        gf_jout_double(j, s.median_f);
    gf_jout_key(j, "minimum_ns");
    gf_jout_int(j, s.min);
    gf_jout_key(j, "stddev_ns");
    gf_jout_double(j, s.stddev);
    gf_jout_key(j, "total_ns");
    gf_jout_int128(j, s.total);
    gf_jout_end_object(j);
}

/* §15: capture_gpu_work (kernels and memory transfers, sorted when read). */
static void write_capture_work(gf_jout *j, const gf_nvtx *nv)
{
    gf_jout_begin_object(j);
    gf_jout_key(j, "kernels");
    gf_jout_begin_array(j);
    for (size_t i = 0; i < nv->nkern; i++) {
        gf_jout_begin_object(j);
        gf_jout_key(j, "cumulative_duration_ns");
        gf_jout_int128(j, nv->kern[i].ns);
        gf_jout_key(j, "instances");
        gf_jout_int128(j, nv->kern[i].inst);
        gf_jout_key(j, "name");
        write_id(j, nv->strs, nv->kern[i].name);
        gf_jout_end_object(j);
    }
    gf_jout_end_array(j);
    gf_jout_key(j, "memory_transfers");
    gf_jout_begin_array(j);
    for (size_t i = 0; i < nv->nxfer; i++) {
        const gf_nvtx_xfer *x = &nv->xfer[i];
        gf_jout_begin_object(j);
        gf_jout_key(j, "cumulative_duration_ns");
        gf_jout_int128(j, x->ns);
        gf_jout_key(j, "destination_memory_kind");
        write_id(j, nv->strs, x->dst);
        gf_jout_key(j, "instances");
        gf_jout_int128(j, x->n);
        gf_jout_key(j, "source_memory_kind");
        write_id(j, nv->strs, x->src);
        gf_jout_key(j, "total_bytes");
        gf_jout_int128(j, x->bytes);
        gf_jout_end_object(j);
    }
    gf_jout_end_array(j);
    gf_jout_end_object(j);
}

static void write_gpu_ranges(gf_jout *j, const gf_nvtx_doc *d, int64_t *vals)
{
    const gf_nvtx_gpu_row *G = d->nv->gpu;
    gf_jout_begin_array(j);
    for (size_t k = 0; k < d->ngg; k++) {
        const gf_nvtx_group *g = &d->gg[k];
        __int128 ops = 0, host_total = 0;
        for (size_t q = 0; q < g->count; q++) {
            const gf_nvtx_gpu_row *r = &G[d->gorder[g->first + q]];
            ops += r->ngpu;
            host_total += r->odur;
            vals[q] = r->pdur;
        }
        gf_jout_begin_object(j);
        gf_jout_key(j, "gpu_operation_count");
        gf_jout_int128(j, ops);
        gf_jout_key(j, "host_total_ns");
        gf_jout_int128(j, host_total);
        gf_jout_key(j, "instances");
        gf_jout_int(j, (int64_t)g->count);
        gf_jout_key(j, "name");
        write_path_name(j, d->trie, g->path);
        gf_jout_key(j, "projected");
        write_summary(j, vals, g->count);
        gf_jout_key(j, "style");
        write_id(j, d->nv->strs, g->style);
        gf_jout_end_object(j);
    }
    gf_jout_end_array(j);
}

static void write_host_ranges(gf_jout *j, const gf_nvtx_doc *d, int64_t *vals, int64_t *vals2)
{
    const gf_nvtx_host_row *H = d->nv->host;
    gf_jout_begin_array(j);
    for (size_t k = 0; k < d->nhg; k++) {
        const gf_nvtx_group *g = &d->hg[k];
        __int128 child = 0;
        for (size_t q = 0; q < g->count; q++) {
            const gf_nvtx_host_row *r = &H[d->horder[g->first + q]];
            child += r->dchild;
            vals[q] = r->dnonchild;
            vals2[q] = r->dur;
        }
        gf_jout_begin_object(j);
        gf_jout_key(j, "child_total_ns");
        gf_jout_int128(j, child);
        gf_jout_key(j, "exclusive");
        write_summary(j, vals, g->count);
        gf_jout_key(j, "inclusive");
        write_summary(j, vals2, g->count);
        gf_jout_key(j, "instances");
        gf_jout_int(j, (int64_t)g->count);
        gf_jout_key(j, "name");
        write_path_name(j, d->trie, g->path);
        gf_jout_end_object(j);
    }
    gf_jout_end_array(j);
}

static void write_iteration_summary(gf_jout *j, const gf_nvtx_doc *d, int64_t *vals)
{
    const gf_nvtx_host_row *H = d->nv->host;
    gf_jout_begin_object(j);
    gf_jout_key(j, "gpu_projected");
    for (size_t k = 0; k < d->ngit; k++)
        vals[k] = d->nv->gpu[d->git[k].row].pdur;
    write_summary(j, vals, d->ngit);
    gf_jout_key(j, "gpu_projected_iterations");
    gf_jout_int(j, (int64_t)d->ngit);
    gf_jout_key(j, "host_exclusive");
    for (size_t k = 0; k < d->nhit; k++)
        vals[k] = H[d->hit[k].row].dnonchild;
    write_summary(j, vals, d->nhit);
    gf_jout_key(j, "host_inclusive");
    for (size_t k = 0; k < d->nhit; k++)
        vals[k] = H[d->hit[k].row].dur;
    write_summary(j, vals, d->nhit);
    gf_jout_key(j, "host_iterations");
    gf_jout_int(j, (int64_t)d->nhit);
    gf_jout_key(j, "iterations");
    gf_jout_int(j, (int64_t)d->nit);
    gf_jout_end_object(j);
}

/* {k1: v1, k2: v2, k3: v3} (keys in sorted order), or null without a row */
static void write_ints3(gf_jout *j, int present, const char *k1, int64_t v1, const char *k2, int64_t v2, const char *k3,
                        int64_t v3)
{
    if (!present) {
        gf_jout_null(j);
        return;
    }
    gf_jout_begin_object(j);
    gf_jout_key(j, k1);
    gf_jout_int(j, v1);
    gf_jout_key(j, k2);
    gf_jout_int(j, v2);
    gf_jout_key(j, k3);
    gf_jout_int(j, v3);
    gf_jout_end_object(j);
}

static void write_iteration(gf_jout *j, int64_t index, const gf_nvtx_host_row *h, const gf_nvtx_gpu_row *g)
{
    gf_jout_begin_object(j);
    gf_jout_key(j, "gpu_projection");
    write_ints3(j, g != NULL, "gpu_operation_count", g ? g->ngpu : 0, "host_range_total_ns", g ? g->odur : 0,
                "projected_ns", g ? g->pdur : 0);
    gf_jout_key(j, "host");
    write_ints3(j, h != NULL, "child_total_ns", h ? h->dchild : 0, "exclusive_ns", h ? h->dnonchild : 0,
                "inclusive_ns", h ? h->dur : 0);
    gf_jout_key(j, "index");
    gf_jout_int(j, index);
    gf_jout_end_object(j);
}

static void write_iterations(gf_jout *j, const gf_nvtx_doc *d)
{
    gf_jout_begin_array(j);
    size_t a = 0, b = 0;
    for (size_t k = 0; k < d->nit; k++) {
        while (a < d->nhit && d->hit[a].index < d->idx[k])
            a++;
        while (b < d->ngit && d->git[b].index < d->idx[k])
            b++;
        const gf_nvtx_host_row *h = a < d->nhit && d->hit[a].index == d->idx[k] ? &d->nv->host[d->hit[a].row] : NULL;
        const gf_nvtx_gpu_row *g = b < d->ngit && d->git[b].index == d->idx[k] ? &d->nv->gpu[d->git[b].row] : NULL;
        write_iteration(j, d->idx[k], h, g);
    }
    gf_jout_end_array(j);
}

static void write_provenance(gf_jout *j, const gf_nvtx_input *in)
{
    gf_jout_begin_object(j);
    gf_jout_key(j, "manifest_path");
    write_str(j, in->manifest_path);
    gf_jout_key(j, "nsys_version");
    write_str(j, in->nsys_version ? in->nsys_version : "unknown");
    gf_jout_key(j, "reports");
    gf_jout_begin_object(j);
    if (in->schema_version == 2 && in->kern_report && in->trace_report) {
        gf_jout_key(j, "cuda_gpu_kern_sum");
        write_str(j, in->kern_report);
        gf_jout_key(j, "cuda_gpu_trace");
        write_str(j, in->trace_report);
    }
    gf_jout_key(j, "nvtx_gpu_proj_trace");
    write_str(j, in->gpu_report);
    gf_jout_key(j, "nvtx_pushpop_trace");
    write_str(j, in->host_report);
    gf_jout_end_object(j);
    if (in->source) { /* how the report CSVs were made; absent in the spec's default output */
        gf_jout_key(j, "source");
        write_str(j, in->source);
    }
    gf_jout_key(j, "trace_path");
    write_str(j, in->trace_path);
    gf_jout_end_object(j);
}

/* A manifest mapping copied whole, or {} when absent or not a mapping. */
static void write_map(gf_jout *j, const gf_yv *v)
{
    if (v && v->kind == GF_YV_MAP) {
        gf_jout_yv(j, v);
    } else {
        gf_jout_begin_object(j);
        gf_jout_end_object(j);
    }
}

static void write_run(gf_jout *j, const gf_yv *man, int64_t record_count)
{
    gf_jout_begin_object(j);
    gf_jout_key(j, "capture_range");
    gf_jout_yv(j, gf_yv_get(man, "capture_range"));
    gf_jout_key(j, "cuda");
    write_map(j, gf_yv_get(man, "cuda"));
    gf_jout_key(j, "device");
    gf_jout_yv(j, gf_yv_get(man, "device"));
    gf_jout_key(j, "git_commit");
    gf_jout_yv(j, gf_yv_get(man, "git_commit"));
    gf_jout_key(j, "profile_name");
    gf_jout_yv(j, gf_yv_get(man, "profile_name"));
    gf_jout_key(j, "record_count");
    gf_jout_int(j, record_count);
    gf_jout_key(j, "run_id");
    gf_jout_yv(j, gf_yv_get(man, "run_id"));
    gf_jout_key(j, "workload");
    write_map(j, gf_yv_get(man, "workload"));
    gf_jout_end_object(j);
}

/* The largest number of values one summary takes. */
static size_t max_values(const gf_nvtx_doc *d)
{
    size_t m = d->nhit > d->ngit ? d->nhit : d->ngit;
    for (size_t k = 0; k < d->nhg; k++)
        m = d->hg[k].count > m ? d->hg[k].count : m;
    for (size_t k = 0; k < d->ngg; k++)
        m = d->gg[k].count > m ? d->gg[k].count : m;
    return m ? m : 1;
}

char *gf_nvtx_json(const gf_nvtx_doc *d, size_t *len)
{
    size_t maxn = max_values(d);
    int64_t *vals = malloc(maxn * sizeof *vals), *vals2 = malloc(maxn * sizeof *vals2);
    if (!vals || !vals2) {
        free(vals);
        free(vals2);
        return NULL;
    }
    int schema2 = d->in->schema_version == 2;
    gf_jout j;
    gf_jout_init_python(&j);
    gf_jout_begin_object(&j);
    if (schema2) {
        gf_jout_key(&j, "capture_gpu_work");
        write_capture_work(&j, d->nv);
    }
    gf_jout_key(&j, "gpu_projected_ranges");
    write_gpu_ranges(&j, d, vals);
    gf_jout_key(&j, "host_ranges");
    write_host_ranges(&j, d, vals, vals2);
    gf_jout_key(&j, "iteration_summary");
    write_iteration_summary(&j, d, vals);
    gf_jout_key(&j, "iterations");
    write_iterations(&j, d);
    gf_jout_key(&j, "provenance");
    write_provenance(&j, d->in);
    gf_jout_key(&j, "run");
    write_run(&j, d->in->manifest, d->record_count);
    gf_jout_key(&j, "schema_version");
    gf_jout_int(&j, schema2 ? 2 : 1);
    gf_jout_key(&j, "warnings");
    gf_jout_begin_array(&j);
    for (size_t k = 0; k < d->nwarnings; k++)
        write_str(&j, d->warnings[k]);
    gf_jout_end_array(&j);
    gf_jout_end_object(&j);
    free(vals);
    free(vals2);
    return gf_jout_finish(&j, len); /* NULL (and freed) on OOM */
}
