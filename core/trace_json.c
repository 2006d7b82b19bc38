/* Writers of the Trace model: the timeline page data (docs/TIMELINE_DATA.md), Chrome Trace Event JSON
 * (Perfetto / chrome://tracing, Kineto-style ac2g flows) and folded launch stacks. All stream to a
 * FILE*; nothing is built in memory first. */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "jsonw.h"

static void jstr(FILE *out, const gf_trace *t, int32_t id)
{
    size_t len;
    const char *s = gf_strtab_get(t->str, id, &len);
    gf_jsonw_string(out, s, len);
}

static void jkey(FILE *out, int *first, const char *k)
{
    if (!*first)
        putc(',', out);
    *first = 0;
    fprintf(out, "\"%s\":", k);
}

static void write_detail(FILE *out, const gf_trace *t, const gf_detail *d)
{
    int first = 1;
    putc('{', out);
    if (d->grid[0] >= 0) {
        jkey(out, &first, "grid");
        fprintf(out, "[%d,%d,%d]", d->grid[0], d->grid[1], d->grid[2]);
    }
    if (d->block[0] >= 0) {
        jkey(out, &first, "block");
        fprintf(out, "[%d,%d,%d]", d->block[0], d->block[1], d->block[2]);
    }
    if (d->regs >= 0) {
        jkey(out, &first, "regs");
        gf_jsonw_int(out, d->regs);
    }
    if (d->bytes >= 0) {
        jkey(out, &first, "bytes");
        gf_jsonw_int(out, d->bytes);
    }
    if (d->copy >= 0) {
        jkey(out, &first, "copy");
        jstr(out, t, d->copy);
    }
    if (d->nvtx_level >= 0) {
        jkey(out, &first, "nvtx_level");
        gf_jsonw_int(out, d->nvtx_level);
    }
    if (d->domain >= 0) {
        jkey(out, &first, "domain");
        jstr(out, t, d->domain);
    }
    putc('}', out);
}

int gf_trace_write_timeline_json(const gf_trace *t, FILE *out, const gf_timeline_opts *o, gf_err *err)
{
    size_t nstr = gf_strtab_count(t->str);
    int32_t *nmap = malloc((nstr ? nstr : 1) * sizeof *nmap);
    int32_t *lmap = malloc((t->nlanes ? t->nlanes : 1) * sizeof *lmap);
    int32_t *smap = malloc((t->nstacks ? t->nstacks : 1) * sizeof *smap);
    int32_t *order = malloc((nstr ? nstr : 1) * sizeof *order);
    if (!nmap || !lmap || !smap || !order) {
        free(nmap);
        free(lmap);
        free(smap);
        free(order);
        return gf_errf(err, GF_EXIT_ERROR, "timeline: out of memory");
    }
    memset(nmap, 0xff, (nstr ? nstr : 1) * sizeof *nmap);
    memset(lmap, 0xff, (t->nlanes ? t->nlanes : 1) * sizeof *lmap);
    memset(smap, 0xff, (t->nstacks ? t->nstacks : 1) * sizeof *smap);
    int64_t t0 = 0, tend = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (i == 0 || t->start[i] < t0)
            t0 = t->start[i];
        if (i == 0 || t->start[i] + t->dur[i] > tend)
            tend = t->start[i] + t->dur[i];
        if (t->lane[i] >= 0)
            lmap[t->lane[i]] = 0;
        if (t->stack[i] >= 0)
            smap[t->stack[i]] = 0;
    }
    int32_t nl = 0, ncpu = 0, ns = 0, nn = 0;
    for (size_t l = 0; l < t->nlanes; l++)
        if (lmap[l] == 0) {
            lmap[l] = nl++;
            ncpu += t->lanes[l].kind == GF_LANE_CPU;
        }
    for (size_t s = 0; s < t->nstacks; s++)
        if (smap[s] == 0)
            smap[s] = ns++;
    /* names in order of first appearance */
    for (size_t i = 0; i < t->n; i++)
        if (nmap[t->name[i]] < 0) {
            nmap[t->name[i]] = nn;
            order[nn++] = t->name[i];
        }

    fputs("{\"title\":", out);
    const char *title = o && o->title ? o->title : "nsys CPU/GPU timeline";
    gf_jsonw_string(out, title, strlen(title));
    int64_t span = tend - t0 > 1 ? tend - t0 : 1;
    fprintf(out, ",\"t0\":%lld,\"span\":%lld,\"total\":%llu,\"shown\":%zu", (long long)t0, (long long)span,
            (unsigned long long)t->total, t->n);
    fputs(",\"lanes\":[", out);
    int first = 1;
    for (size_t l = 0; l < t->nlanes; l++) {
        if (lmap[l] < 0)
            continue;
        const gf_lane *ln = &t->lanes[l];
        fputs(first ? "{\"label\":" : ",{\"label\":", out);
        first = 0;
        jstr(out, t, ln->label);
        fprintf(out, ",\"kind\":\"%s\"", gf_lane_kind_names[ln->kind]);
        if (ln->kind == GF_LANE_GPU) {
            fputs(",\"device\":", out);
            if (ln->device >= 0)
                jstr(out, t, ln->device);
            else
                fputs("null", out);
            fprintf(out, ",\"stream\":%lld", (long long)ln->stream);
            if (ln->sync)
                fputs(",\"sync\":true", out);
        } else {
            fprintf(out, ",\"pid\":%lld,\"tid\":%lld", (long long)ln->pid, (long long)ln->tid);
            if (ln->tname >= 0) {
                fputs(",\"thread\":", out);
                jstr(out, t, ln->tname);
            }
        }
        putc('}', out);
    }
    fprintf(out, "],\"cpuLanes\":%d,\"kinds\":[", ncpu);
    for (int k = 0; k < GF_EV_NKINDS; k++)
        fprintf(out, "%s\"%s\"", k ? "," : "", gf_ev_kind_names[k]);
    fputs("],\"names\":[", out);
    for (int32_t i = 0; i < nn; i++) {
        if (i)
            putc(',', out);
        jstr(out, t, order[i]);
    }
    fputs("],\"events\":[", out);
    for (size_t i = 0; i < t->n; i++)
        fprintf(out, "%s[%lld,%lld,%d,%lld,%d,%d,%d,%d]", i ? "," : "", (long long)(t->start[i] - t0),
                (long long)t->dur[i], t->lane[i] >= 0 ? lmap[t->lane[i]] : -1, (long long)t->corr[i],
                nmap[t->name[i]], t->stack[i] >= 0 ? smap[t->stack[i]] : -1, t->kind[i], t->detail[i]);
    fputs("],\"details\":[", out);
    for (size_t d = 0; d < t->ndetails; d++) {
        if (d)
            putc(',', out);
        write_detail(out, t, &t->details[d]);
    }
    fputs("],\"stacks\":[", out);
    int sfirst = 1;
    for (size_t s = 0; s < t->nstacks; s++) {
        if (smap[s] < 0)
            continue;
        fputs(sfirst ? "[" : ",[", out);
        sfirst = 0;
        for (size_t f = t->stack_off[s]; f < t->stack_off[s + 1]; f++) {
            if (f > t->stack_off[s])
                putc(',', out);
            jstr(out, t, t->frames[f]);
        }
        putc(']', out);
    }
    fputs("],\"launchFlame\":", out);
    if (!t->nflame) {
        fputs("null", out);
    } else {
        /* frames table: every frame and leaf the flame uses, in order of first use */
        memset(nmap, 0xff, (nstr ? nstr : 1) * sizeof *nmap);
        nn = 0;
        int64_t total = 0;
        fputs("{\"unit\":\"ns\",\"frames\":[", out);
        for (size_t e = 0; e < t->nflame; e++) {
            const gf_flame_entry *fe = &t->flame[e];
            total += fe->weight;
            size_t a = t->stack_off[fe->stack], b = t->stack_off[fe->stack + 1];
            for (size_t f = b; f-- > a;)
                if (nmap[t->frames[f]] < 0) {
                    fputs(nn ? "," : "", out);
                    nmap[t->frames[f]] = nn++;
                    jstr(out, t, t->frames[f]);
                }
            if (nmap[fe->leaf] < 0) {
                fputs(nn ? "," : "", out);
                nmap[fe->leaf] = nn++;
                jstr(out, t, fe->leaf);
            }
        }
        fputs("],\"stacks\":[", out);
        for (size_t e = 0; e < t->nflame; e++) {
            const gf_flame_entry *fe = &t->flame[e];
            fputs(e ? ",[[" : "[[", out);
            size_t a = t->stack_off[fe->stack], b = t->stack_off[fe->stack + 1];
            for (size_t f = b; f-- > a;)
                fprintf(out, "%d,", nmap[t->frames[f]]);
            fprintf(out, "%d],%lld]", nmap[fe->leaf], (long long)fe->weight);
        }
        fprintf(out, "],\"total\":%lld}", (long long)total);
    }
    fputs(",\"warnings\":[", out);
    for (size_t w = 0; w < t->nwarnings; w++) {
        if (w)
            putc(',', out);
        gf_jsonw_string(out, t->warnings[w], strlen(t->warnings[w]));
    }
    fputs("],\"source\":", out);
    if (t->source)
        gf_jsonw_string(out, t->source, strlen(t->source));
    else
        fputs("null", out);
    putc('}', out);
    free(nmap);
    free(lmap);
    free(smap);
    free(order);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "timeline: write failed");
    return 0;
}

/* ---- Chrome Trace Event format ---- */

static void us(FILE *out, int64_t ns)
{
    if (ns < 0) {
        putc('-', out);
        ns = -ns;
    }
    fprintf(out, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

typedef struct ctrack {
    int64_t pid, tid;
} ctrack;

int gf_trace_write_chrome(const gf_trace *t, FILE *out, gf_err *err)
{
    ctrack *tr = malloc((t->nlanes ? t->nlanes : 1) * sizeof *tr);
    if (!tr)
        return gf_errf(err, GF_EXIT_ERROR, "chrome-trace: out of memory");
    /* GPU devices become processes of their own, numbered after the real pids */
    const int64_t gpu_pid_base = 1ll << 32;
    int32_t lastdev = -2;
    int64_t devidx = -1;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpuflame\"},\"traceEvents\":[", out);
    int first = 1;
    for (size_t l = 0; l < t->nlanes; l++) {
        const gf_lane *ln = &t->lanes[l];
        if (ln->kind == GF_LANE_GPU) {
            if (ln->device != lastdev) {
                lastdev = ln->device;
                devidx++;
                fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":0,\"args\":{\"name\":",
                        first ? "" : ",", (long long)(gpu_pid_base + devidx));
                first = 0;
                char buf[600];
                snprintf(buf, sizeof buf, "GPU %s", ln->device >= 0 ? gf_strtab_get(t->str, ln->device, NULL) : "?");
                gf_jsonw_string(out, buf, strlen(buf));
                fprintf(out, "}},{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%lld,\"tid\":0,"
                             "\"args\":{\"sort_index\":%lld}}",
                        (long long)(gpu_pid_base + devidx), (long long)(1000000 + devidx));
            }
            tr[l].pid = gpu_pid_base + devidx;
            tr[l].tid = (int64_t)l + 1;
        } else {
            tr[l].pid = ln->pid >= 0 ? ln->pid : 0;
            tr[l].tid = (ln->tid >= 0 ? ln->tid : 0) + (ln->kind == GF_LANE_NVTX ? (1ll << 32) : 0);
        }
        fprintf(out, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%lld,\"tid\":%lld,\"args\":{\"name\":",
                first ? "" : ",", (long long)tr[l].pid, (long long)tr[l].tid);
        first = 0;
        jstr(out, t, ln->label);
        fprintf(out, "}},{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%lld,\"tid\":%lld,"
                     "\"args\":{\"sort_index\":%zu}}",
                (long long)tr[l].pid, (long long)tr[l].tid, l);
    }
    /* one process_name per CPU pid */
    for (size_t l = 0; l < t->nlanes; l++) {
        const gf_lane *ln = &t->lanes[l];
        if (ln->kind == GF_LANE_GPU)
            continue;
        int seen = 0;
        for (size_t k = 0; k < l && !seen; k++)
            seen = t->lanes[k].kind != GF_LANE_GPU && t->lanes[k].pid == ln->pid;
        if (!seen) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%lld,\"tid\":0,"
                         "\"args\":{\"name\":\"Process %lld\"}}",
                    first ? "" : ",", (long long)tr[l].pid, (long long)ln->pid);
            first = 0;
        }
    }
    int64_t *partner = NULL;
    if (gf_trace_partners(t, &partner, err) != 0) {
        free(tr);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        int32_t l = t->lane[i];
        if (l < 0)
            continue;
        fputs(first ? "{\"ph\":\"X\",\"name\":" : ",{\"ph\":\"X\",\"name\":", out);
        first = 0;
        jstr(out, t, t->name[i]);
        fprintf(out, ",\"cat\":\"%s\",\"pid\":%lld,\"tid\":%lld,\"ts\":", gf_ev_kind_names[t->kind[i]],
                (long long)tr[l].pid, (long long)tr[l].tid);
        us(out, t->start[i]);
        fputs(",\"dur\":", out);
        us(out, t->dur[i]);
        fputs(",\"args\":{", out);
        int af = 1;
        if (t->corr[i] >= 0) {
            fprintf(out, "\"correlation\":%lld", (long long)t->corr[i]);
            af = 0;
        }
        if (t->detail[i] >= 0) {
            const gf_detail *d = &t->details[t->detail[i]];
            if (d->grid[0] >= 0)
                fprintf(out, "%s\"grid\":[%d,%d,%d]", af ? "" : ",", d->grid[0], d->grid[1], d->grid[2]), af = 0;
            if (d->block[0] >= 0)
                fprintf(out, "%s\"block\":[%d,%d,%d]", af ? "" : ",", d->block[0], d->block[1], d->block[2]), af = 0;
            if (d->regs >= 0)
                fprintf(out, "%s\"registers per thread\":%d", af ? "" : ",", d->regs), af = 0;
            if (d->bytes >= 0)
                fprintf(out, "%s\"bytes\":%lld", af ? "" : ",", (long long)d->bytes), af = 0;
            if (d->domain >= 0) {
                fprintf(out, "%s\"domain\":", af ? "" : ",");
                af = 0;
                jstr(out, t, d->domain);
            }
        }
        if (t->stack[i] >= 0) {
            fprintf(out, "%s\"backtrace\":[", af ? "" : ",");
            for (size_t f = t->stack_off[t->stack[i]]; f < t->stack_off[t->stack[i] + 1]; f++) {
                if (f > t->stack_off[t->stack[i]])
                    putc(',', out);
                jstr(out, t, t->frames[f]);
            }
            putc(']', out);
        }
        fputs("}}", out);
    }
    /* launch → GPU work flows, Kineto's ac2g shape */
    for (size_t i = 0; i < t->n; i++) {
        if (!gf_ev_is_gpu_work(t->kind[i]) || partner[i] < 0)
            continue;
        size_t a = (size_t)partner[i];
        int32_t la = t->lane[a], lg = t->lane[i];
        if (la < 0 || lg < 0)
            continue;
        fprintf(out, ",{\"ph\":\"s\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)t->corr[i],
                (long long)tr[la].pid, (long long)tr[la].tid);
        us(out, t->start[a]);
        fprintf(out, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"args\":{\"correlation\":%lld}}", (long long)t->corr[i]);
        fprintf(out, ",{\"ph\":\"f\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)t->corr[i],
                (long long)tr[lg].pid, (long long)tr[lg].tid);
        us(out, t->start[i]);
        fprintf(out, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\",\"args\":{\"correlation\":%lld}}",
                (long long)t->corr[i]);
    }
    fputs("]}\n", out);
    free(partner);
    free(tr);
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "chrome-trace: write failed");
    return 0;
}

/* ---- folded launch stacks ---- */

static void folded_frame(FILE *out, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        if (c == ';')
            c = ':';
        else if (c == '\n' || c == '\r')
            c = ' ';
        putc(c, out);
    }
}

int gf_trace_write_launch_folded(const gf_trace *t, FILE *out, gf_err *err)
{
    for (size_t e = 0; e < t->nflame; e++) {
        const gf_flame_entry *fe = &t->flame[e];
        size_t a = t->stack_off[fe->stack], b = t->stack_off[fe->stack + 1];
        for (size_t f = b; f-- > a;) {
            folded_frame(out, gf_strtab_get(t->str, t->frames[f], NULL));
            putc(';', out);
        }
        folded_frame(out, gf_strtab_get(t->str, fe->leaf, NULL));
        fprintf(out, "%s %lld\n", fe->gpu ? "_[G]" : "", (long long)fe->weight);
    }
    if (ferror(out))
        return gf_errf(err, GF_EXIT_ERROR, "folded: write failed");
    return 0;
}
