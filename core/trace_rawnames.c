/* The names CUDA API calls were recorded under, beside the display names their events carry.
 *
 * nsys's reports strip a _vNNNN suffix (cuda_api_sum: cudaMemcpy_v3020 → cudaMemcpy) and so do the
 * timeline and the flamegraph, but nsys analyze's rules print StringIds.value as it is. The display →
 * recorded map is not a function: an nsys 2022.2 export taken with --cudabacktrace holds two RUNTIME rows
 * per call with one correlation id, one named cudaMemcpy and one cudaMemcpy_v3020, and the rules list
 * both. So the first recorded name of each display name is kept per name (one entry per name), and only
 * a call recorded under another one is kept per event, by seq (none in an ordinary export). */
#include "trace.h"
#include "trace_build.h"
#include "trace_rawnames.h"

int gf_trace_note_raw_name(gf_trace *t, int32_t name, int32_t raw)
{
    int ins;
    int64_t *v = gf_hmap_put(&t->raw_names, (uint64_t)(uint32_t)name, raw, &ins);
    if (!v)
        return -1;
    int64_t seq = gf_trace_last_seq(t);
    if (ins || *v == raw || seq < 0)
        return 0;
    return gf_hmap_put(&t->raw_by_seq, (uint64_t)(uint32_t)seq, raw, &ins) ? 0 : -1;
}

int32_t gf_trace_raw_name(const gf_trace *t, int32_t name)
{
    int64_t *v = gf_hmap_get(&t->raw_names, (uint64_t)(uint32_t)name);
    return v ? (int32_t)*v : name;
}

int32_t gf_trace_event_raw_name(const gf_trace *t, size_t i)
{
    if (t->kind[i] == GF_EV_API && t->raw_by_seq.n) {
        int64_t *v = gf_hmap_get(&t->raw_by_seq, (uint64_t)t->seq[i]);
        if (v)
            return (int32_t)*v;
    }
    return gf_trace_raw_name(t, t->name[i]);
}
