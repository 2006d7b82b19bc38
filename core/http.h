/* HTTP client on libcurl: GET/POST/PUT with headers, URL-encoded query parameters, optional gzip of the
 * request body, connect and total timeouts, TLS options (CA bundle, client certificate and key),
 * proxies from the environment (libcurl's own rules: http_proxy, https_proxy, no_proxy — lowercase
 * http_proxy only), a cap on the response size, and failures classified by kind. Nothing is logged
 * here: callers own the redaction of tokens. */
#ifndef GF_HTTP_H
#define GF_HTTP_H

#include <stddef.h>
#include "gf_err.h"

typedef struct gf_http_req {
    const char *method;              /* "GET", "POST", "PUT" (others passed through as custom) */
    const char *url;                 /* may already carry a query string */
    const char *const *query;        /* NULL or key, value, key, value, ..., NULL — values URL-encoded */
    const char *const *headers;      /* NULL or "Name: value" strings, NULL-terminated */
    const char *body;                /* NULL: no body */
    size_t body_len;
    int gzip_body;                   /* 1: gzip the body and add Content-Encoding: gzip */
    double connect_timeout;          /* seconds; <= 0: 10 */
    double timeout;                  /* seconds for the whole transfer; <= 0: 120 */
    const char *ca_bundle, *client_cert, *client_key; /* NULL: system defaults / none */
    size_t max_response;             /* bytes of response body kept; 0: 16 MiB; more is an error */
} gf_http_req;

typedef struct gf_http_resp {
    long status;                     /* 0 when no response was received */
    char *body;                      /* NUL-terminated, malloc'd */
    size_t body_len;
    char **headers;                  /* "name: value" lines of the final response, malloc'd */
    size_t nheaders;
    double elapsed;                  /* seconds */
    size_t request_body_len;         /* bytes of body sent (after gzip) */
    const char *kind;                /* "ok", "http" (status >= 400), "dns", "connect", "tls", "timeout",
                                        "network", "too_large", "interrupted", "error" */
    char error[1024];                 /* human message for kind != ok ("" otherwise) */
} gf_http_resp;

/* Performs the request. Returns 0 when a response arrived (any status; kind "ok" or "http") and -1
 * on a transport failure (resp->kind and resp->error say which). A usage problem (bad method, no
 * URL) also returns -1 with kind "error" and fills err. Free resp with gf_http_resp_free. */
int gf_http_request(const gf_http_req *req, gf_http_resp *resp, gf_err *err);
void gf_http_resp_free(gf_http_resp *resp);

/* gzip (RFC 1952) of data into a malloc'd buffer. level -1: zlib default. Returns 0 or -1. */
int gf_gzip(const void *data, size_t len, int level, char **out, size_t *out_len, gf_err *err);
/* Inverse of gf_gzip (also accepts zlib streams); refuses to produce more than max_out bytes. */
int gf_gunzip(const void *data, size_t len, size_t max_out, char **out, size_t *out_len, gf_err *err);
/* URL-encodes s (RFC 3986 unreserved characters kept) into a malloc'd string. */
char *gf_url_escape(const char *s, size_t len);

#endif
