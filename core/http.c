#include "http.h"
#include "mem.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gpuflame.h"
#include "interrupt.h"

#define DEFAULT_MAX_RESPONSE (16u << 20)

/* libcurl is loaded on the first request, not linked: it brings some 30 shared libraries (TLS, Kerberos,
 * LDAP, ...) whose loading and relocation cost each gpuflame start about 30 ms of CPU, and most commands
 * never speak HTTP. The headers still come from libcurl's -dev package, so the types are checked. */
#define GF_LIBCURL "libcurl.so.4"
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} cu;
static int curl_ready;

static int load_curl(gf_err *err)
{
    void *lib = dlopen(GF_LIBCURL, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return gf_errf(err, GF_EXIT_ERROR, "http: %s could not be loaded (Debian: apt-get install libcurl4): %s",
                       GF_LIBCURL, dlerror());
    struct {
        const char *name;
        void **slot;
    } syms[] = {
        {"curl_global_init", (void **)&cu.global_init},     {"curl_easy_init", (void **)&cu.easy_init},
        {"curl_easy_setopt", (void **)&cu.easy_setopt},     {"curl_easy_perform", (void **)&cu.easy_perform},
        {"curl_easy_getinfo", (void **)&cu.easy_getinfo},   {"curl_easy_cleanup", (void **)&cu.easy_cleanup},
        {"curl_easy_strerror", (void **)&cu.easy_strerror}, {"curl_slist_append", (void **)&cu.slist_append},
        {"curl_slist_free_all", (void **)&cu.slist_free_all},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot)
            return gf_errf(err, GF_EXIT_ERROR, "http: %s lacks %s", GF_LIBCURL, syms[i].name);
    }
    return 0;
}

static int global_init(gf_err *err)
{
    if (curl_ready)
        return 0;
    if (load_curl(err) != 0)
        return -1;
    CURLcode rc = cu.global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK)
        return gf_errf(err, GF_EXIT_ERROR, "libcurl initialisation failed: %s", cu.easy_strerror(rc));
    curl_ready = 1;
    return 0;
}

typedef struct sink {
    char *data;
    size_t len, cap, limit;
    int over;
} sink;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    sink *s = ud;
    size_t n = size * nmemb;
    if (s->len + n > s->limit) {
        s->over = 1;
        return 0; /* makes libcurl stop with CURLE_WRITE_ERROR */
    }
    if (GF_GROW(s->data, s->cap, s->len + n + 1, 4096) != 0)
        return 0;
    memcpy(s->data + s->len, ptr, n);
    s->len += n;
    s->data[s->len] = '\0';
    return n;
}

typedef struct hdrs {
    char **v;
    size_t n, cap;
    int broken;
} hdrs;

static void hdrs_clear(hdrs *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->v[i]);
    h->n = 0;
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
    hdrs *h = ud;
    size_t n = size * nitems;
    if (n >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        hdrs_clear(h); /* a new response (after 100-continue or a redirect): keep only the last */
        return n;
    }
    while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == '\n'))
        n--;
    if (n == 0 || h->n >= 512 || n > 16384)
        return size * nitems;
    if (GF_GROW(h->v, h->cap, h->n + 1, 16) != 0) {
        h->broken = 1;
        return 0;
    }
    char *line = malloc(n + 1);
    if (!line) {
        h->broken = 1;
        return 0;
    }
    memcpy(line, buf, n);
    line[n] = '\0';
    h->v[h->n++] = line;
    return size * nitems;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)ud;
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    return gf_interrupted ? 1 : 0;
}

char *gf_url_escape(const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '.' || c == '_' || c == '~') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return out;
}

/* url + "?k=v&k2=v2" (or "&..." when url already has a query). */
static char *build_url(const char *url, const char *const *query, gf_err *err)
{
    size_t cap = strlen(url) + 2, len = strlen(url);
    char *out = malloc(cap);
    if (!out)
        goto oom;
    memcpy(out, url, len + 1);
    int first = strchr(url, '?') == NULL;
    for (size_t i = 0; query && query[i]; i += 2) {
        if (!query[i + 1]) {
            free(out);
            gf_errf(err, GF_EXIT_USAGE, "http: query parameter '%s' has no value", query[i]);
            return NULL;
        }
        char *k = gf_url_escape(query[i], strlen(query[i]));
        char *v = gf_url_escape(query[i + 1], strlen(query[i + 1]));
        if (!k || !v) {
            free(k);
            free(v);
            free(out);
            goto oom;
        }
        size_t need = len + strlen(k) + strlen(v) + 3;
        if (GF_GROW(out, cap, need, 0) != 0) {
            free(k);
            free(v);
            free(out);
            goto oom;
        }
        len += (size_t)sprintf(out + len, "%c%s=%s", first ? '?' : '&', k, v);
        first = 0;
        free(k);
        free(v);
    }
    return out;
oom:
    gf_oom(err, NULL);
    return NULL;
}

int gf_gzip(const void *data, size_t len, int level, char **out, size_t *out_len, gf_err *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    *out = NULL;
    *out_len = 0;
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return gf_errf(err, GF_EXIT_ERROR, "gzip: deflateInit2 failed");
    size_t cap = deflateBound(&zs, (uLong)len) + 32;
    char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&zs);
        return gf_errf(err, GF_EXIT_ERROR, "gzip: out of memory (%zu bytes)", cap);
    }
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)buf;
    zs.avail_out = (uInt)cap;
    int rc = deflate(&zs, Z_FINISH);
    if (rc != Z_STREAM_END) {
        deflateEnd(&zs);
        free(buf);
        return gf_errf(err, GF_EXIT_ERROR, "gzip: deflate failed (%d)", rc);
    }
    *out_len = zs.total_out;
    deflateEnd(&zs);
    *out = buf;
    return 0;
}

int gf_gunzip(const void *data, size_t len, size_t max_out, char **out, size_t *out_len, gf_err *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    *out = NULL;
    *out_len = 0;
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        return gf_errf(err, GF_EXIT_ERROR, "gunzip: inflateInit2 failed");
    /* One byte beyond max_out is allowed in the buffer: producing it proves the output is too big. */
    size_t limit = max_out + 1;
    size_t cap = len * 4 + 64 < limit ? len * 4 + 64 : limit, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        inflateEnd(&zs);
        return gf_oom(err, "gunzip");
    }
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    int rc;
    for (;;) {
        if (n == cap) {
            if (cap >= limit)
                break;
            size_t nc = cap * 2 > limit ? limit : cap * 2; /* not gf_grow: the size stops at the limit */
            if (gf_resize((void **)&buf, nc + 1, 1) != 0) {
                inflateEnd(&zs);
                free(buf);
                return gf_oom(err, "gunzip");
            }
            cap = nc;
        }
        zs.next_out = (Bytef *)buf + n;
        zs.avail_out = (uInt)(cap - n);
        rc = inflate(&zs, Z_NO_FLUSH);
        n = zs.total_out;
        if (rc == Z_STREAM_END)
            break;
        if (rc != Z_OK && !(rc == Z_BUF_ERROR && n == cap)) {
            inflateEnd(&zs);
            free(buf);
            return gf_errf(err, GF_EXIT_INPUT, "gunzip: corrupt or truncated data (%s)", zs.msg ? zs.msg : "?");
        }
    }
    if (n > max_out) {
        inflateEnd(&zs);
        free(buf);
        return gf_errf(err, GF_EXIT_INPUT, "gunzip: output larger than %zu bytes", max_out);
    }
    inflateEnd(&zs);
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;
}

static const char *classify(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return "dns";
    case CURLE_COULDNT_CONNECT:
        return "connect";
    case CURLE_OPERATION_TIMEDOUT:
        return "timeout";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_USE_SSL_FAILED:
        return "tls";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return "network";
    case CURLE_ABORTED_BY_CALLBACK:
        return "interrupted";
    default:
        return "error";
    }
}

int gf_http_request(const gf_http_req *req, gf_http_resp *resp, gf_err *err)
{
    memset(resp, 0, sizeof *resp);
    resp->kind = "error";
    if (!req->url || !*req->url) {
        snprintf(resp->error, sizeof resp->error, "http: no URL");
        return gf_errf(err, GF_EXIT_USAGE, "http: no URL");
    }
    const char *method = req->method && *req->method ? req->method : "GET";
    if (global_init(err) != 0) {
        snprintf(resp->error, sizeof resp->error, "%.1000s", err->msg);
        return -1;
    }
    char *url = build_url(req->url, req->query, err);
    if (!url) {
        snprintf(resp->error, sizeof resp->error, "%.1000s", err->msg);
        return -1;
    }
    char *gz = NULL;
    size_t gz_len = 0;
    const char *body = req->body;
    size_t body_len = req->body_len;
    if (body && req->gzip_body) {
        if (gf_gzip(body, body_len, -1, &gz, &gz_len, err) != 0) {
            free(url);
            snprintf(resp->error, sizeof resp->error, "%.1000s", err->msg);
            return -1;
        }
        body = gz;
        body_len = gz_len;
    }
    CURL *c = cu.easy_init();
    if (!c) {
        free(url);
        free(gz);
        snprintf(resp->error, sizeof resp->error, "http: curl_easy_init failed");
        return gf_errf(err, GF_EXIT_ERROR, "http: curl_easy_init failed");
    }
    struct curl_slist *hl = NULL;
    for (size_t i = 0; req->headers && req->headers[i]; i++)
        hl = cu.slist_append(hl, req->headers[i]);
    if (body && req->gzip_body)
        hl = cu.slist_append(hl, "Content-Encoding: gzip");
    hl = cu.slist_append(hl, "Expect:"); /* no 100-continue round trip */
    sink s = {NULL, 0, 0, req->max_response ? req->max_response : DEFAULT_MAX_RESPONSE, 0};
    hdrs h = {NULL, 0, 0, 0};

    cu.easy_setopt(c, CURLOPT_URL, url);
    cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    cu.easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    cu.easy_setopt(c, CURLOPT_USERAGENT, "gpuflame/" GPUFLAME_VERSION);
    cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    cu.easy_setopt(c, CURLOPT_WRITEDATA, &s);
    cu.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    cu.easy_setopt(c, CURLOPT_HEADERDATA, &h);
    cu.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    cu.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    cu.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    cu.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    long cto = (long)((req->connect_timeout > 0 ? req->connect_timeout : 10) * 1000);
    long tto = (long)((req->timeout > 0 ? req->timeout : 120) * 1000);
    cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, cto);
    cu.easy_setopt(c, CURLOPT_TIMEOUT_MS, tto);
    if (req->ca_bundle)
        cu.easy_setopt(c, CURLOPT_CAINFO, req->ca_bundle);
    if (req->client_cert)
        cu.easy_setopt(c, CURLOPT_SSLCERT, req->client_cert);
    if (req->client_key)
        cu.easy_setopt(c, CURLOPT_SSLKEY, req->client_key);
    /* Proxies: libcurl's default reads http_proxy / https_proxy / all_proxy / no_proxy. */
    if (!strcmp(method, "GET")) {
        cu.easy_setopt(c, CURLOPT_HTTPGET, 1L);
    } else {
        if (strcmp(method, "POST") != 0)
            cu.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
        if (!strcmp(method, "HEAD"))
            cu.easy_setopt(c, CURLOPT_NOBODY, 1L);
        else {
            cu.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? body_len : 0));
            cu.easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
        }
    }
    resp->request_body_len = body ? body_len : 0;
    CURLcode rc = cu.easy_perform(c);
    cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
    double tt = 0;
    cu.easy_getinfo(c, CURLINFO_TOTAL_TIME, &tt);
    resp->elapsed = tt;
    int ret = 0;
    if (rc != CURLE_OK) {
        ret = -1;
        if (s.over) {
            resp->kind = "too_large";
            snprintf(resp->error, sizeof resp->error, "%.16s %.400s: response larger than the %zu-byte cap", method,
                     req->url, s.limit);
        } else {
            resp->kind = classify(rc);
            snprintf(resp->error, sizeof resp->error, "%.16s %.400s: %.200s (%s)", method, req->url, cu.easy_strerror(rc),
                     resp->kind);
        }
        free(s.data);
        s.data = NULL;
        s.len = 0;
        hdrs_clear(&h);
    } else if (resp->status >= 400) {
        resp->kind = "http";
        snprintf(resp->error, sizeof resp->error, "%.16s %.400s: HTTP %ld", method, req->url, resp->status);
    } else {
        resp->kind = "ok";
    }
    resp->body = s.data ? s.data : calloc(1, 1);
    resp->body_len = s.len;
    resp->headers = h.v;
    resp->nheaders = h.n;
    cu.slist_free_all(hl);
    cu.easy_cleanup(c);
    free(url);
    free(gz);
    if (ret != 0)
        gf_errf(err, GF_EXIT_DELIVERY, "%s", resp->error);
    return ret;
}

void gf_http_resp_free(gf_http_resp *resp)
{
    if (!resp)
        return;
    free(resp->body);
    for (size_t i = 0; i < resp->nheaders; i++)
        free(resp->headers[i]);
    free(resp->headers);
    resp->body = NULL;
    resp->headers = NULL;
    resp->nheaders = 0;
}
