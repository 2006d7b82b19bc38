/* Unit tests for the template renderer (core/render.c). */
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "jsonout.h"
#include "render.h"
#include "tap.h"

static char tmpdir[512];

static int writer_calls;
static int list_writer(FILE *out, void *ud, gf_err *err)
{
    (void)err;
    writer_calls++;
    const char *name = ud;
    fputs("[", out);
    gf_json_file_string(out, name, strlen(name));
    fputs(",1]", out);
    return 0;
}

static int failing_writer(FILE *out, void *ud, gf_err *err)
{
    (void)out;
    (void)ud;
    return gf_errf(err, GF_EXIT_INPUT, "model is broken");
}

static char *render_str(const char *tmpl, const gf_slot *slots, size_t n, int *rc, gf_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *rc = gf_render_stream("t.html", tmpl, strlen(tmpl), slots, n, f, err);
    fclose(f);
    return buf;
}

int main(void)
{
    const char *t = getenv("GF_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s", t && *t ? t : "/tmp");
    const char *hostile = "</script><img src=x onerror=alert(1)>";
    gf_slot slots[] = {
        {"title", GF_SLOT_TEXT, "a < b & \"c\" 'd'", 15, NULL, NULL},
        {"data", GF_SLOT_JSON, "{\"n\":\"</script>\\u2028\"}", 23, NULL, NULL},
        {"stacks", GF_SLOT_WRITER, NULL, 0, list_writer, (void *)hostile},
        {"name", GF_SLOT_TEXT, hostile, strlen(hostile), NULL, NULL},
    };
    gf_err err;
    int rc;
    char *out = render_str("<title>{{title}}</title><script>var d={{json:data}},s={{json:stacks}},"
                           "n={{json:name}};</script>{{name}}",
                           slots, 4, &rc, &err);
    CHECK("render: ok", rc == 0);
    CHECK("render: text is HTML-escaped", strstr(out, "<title>a &lt; b &amp; &quot;c&quot; &#39;d&#39;</title>"));
    CHECK("render: JSON slot made script-safe", strstr(out, "var d={\"n\":\"\\u003c/script\\u003e\\u2028\"}"));
    CHECK("render: writer slot", strstr(out, "s=[\"\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e\",1]"));
    CHECK("render: json:text is a JSON string", strstr(out, "n=\"\\u003c/script\\u003e"));
    CHECK("render: no raw </script> from data", strstr(out, "</script><img") == NULL);
    CHECK("render: text slot in body", strstr(out, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"));
    free(out);

    writer_calls = 0;
    out = render_str("a {{missing}} b {{json:stacks}}", slots, 4, &rc, &err);
    CHECK("missing slot: error", rc == -1 && strstr(err.msg, "template t.html:1: slot 'missing' was not given"));
    CHECK("missing slot: writers not called", writer_calls == 0);
    free(out);

    out = render_str("line1\nline2 {{title\n}}", slots, 4, &rc, &err);
    CHECK("unterminated: error names template and line",
          rc == -1 && strstr(err.msg, "template t.html:2: unterminated '{{'"));
    free(out);

    out = render_str("x {{ title }}", slots, 4, &rc, &err);
    CHECK("malformed slot: error", rc == -1 && strstr(err.msg, "malformed slot"));
    free(out);

    out = render_str("x {{data}}", slots, 4, &rc, &err);
    CHECK("data slot as text: error", rc == -1 && strstr(err.msg, "use {{json:data}}"));
    free(out);

    out = render_str("no slots { } {x} }}", slots, 4, &rc, &err);
    CHECK("plain braces pass through", rc == 0 && strcmp(out, "no slots { } {x} }}") == 0);
    free(out);

    char path[1024];
    snprintf(path, sizeof path, "%s/page.html", tmpdir);
    const char *tmpl = "<h1>{{title}}</h1>";
    CHECK("file: renders", gf_render_file("page", tmpl, strlen(tmpl), slots, 4, path, &err) == 0);
    char *data;
    size_t len;
    CHECK("file: content", gf_read_file(path, &data, &len, &err) == 0 &&
                               strcmp(data, "<h1>a &lt; b &amp; &quot;c&quot; &#39;d&#39;</h1>") == 0);
    free(data);

    gf_slot bad[] = {{"d", GF_SLOT_WRITER, NULL, 0, failing_writer, NULL}};
    const char *t2 = "<p>{{json:d}}</p>";
    snprintf(path, sizeof path, "%s/failed.html", tmpdir);
    CHECK("file: writer failure fails", gf_render_file("page2", t2, strlen(t2), bad, 1, path, &err) == -1 &&
                                            strstr(err.msg, "slot 'd': model is broken") && err.code == GF_EXIT_INPUT);
    CHECK("file: no half-written output", access(path, F_OK) != 0);
    /* no temp files left behind */
    char **m;
    size_t nm;
    char pat[1100];
    snprintf(pat, sizeof pat, "%s/.*tmp*", tmpdir);
    gf_glob(pat, &m, &nm, &err);
    CHECK("file: no temp file left", nm == 0);
    gf_free_strv(m, nm);
    return tap_done();
}
