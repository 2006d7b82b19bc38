/* core/http.c without a server: gzip round trip (checked against zlib's own gunzip of the bytes),
 * the gunzip output cap, URL escaping, and transport-failure classification (connect refused on a
 * closed loopback port, an unresolvable name). Server-side behaviour is tested in
 * tests/cli/test_fleet_http.sh against tests/studio_server.py. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http.h"
#include "tap.h"

static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &l) != 0)
        return 1;
    int port = ntohs(a.sin_port);
    close(fd); /* bound then closed without listen: nothing accepts there */
    return port;
}

int main(void)
{
    gf_err err;
    /* gzip round trip on data with structure and on incompressible data */
    size_t n = 300000;
    char *data = malloc(n);
    unsigned x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        data[i] = i < n / 2 ? (char)('a' + (i % 7)) : (char)(x >> 16);
    }
    char *gz, *back;
    size_t gz_len, back_len;
    CHECK("gzip succeeds", gf_gzip(data, n, -1, &gz, &gz_len, &err) == 0);
    CHECK("gzip has the RFC 1952 magic", gz_len > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
    CHECK("gzip compresses the repetitive half", gz_len < n * 3 / 4);
    CHECK("gunzip succeeds", gf_gunzip(gz, gz_len, n, &back, &back_len, &err) == 0);
    CHECK("gunzip restores the exact bytes", back_len == n && memcmp(back, data, n) == 0);
    free(back);
    CHECK("gunzip refuses output above its cap", gf_gunzip(gz, gz_len, n - 1, &back, &back_len, &err) == -1 &&
                                                        strstr(err.msg, "larger than") != NULL);
    CHECK("gunzip rejects truncated data", gf_gunzip(gz, gz_len / 2, n, &back, &back_len, &err) == -1);
    free(gz);
    CHECK("gzip of empty input", gf_gzip("", 0, -1, &gz, &gz_len, &err) == 0 && gz_len >= 20);
    CHECK("gunzip of empty gzip", gf_gunzip(gz, gz_len, 10, &back, &back_len, &err) == 0 && back_len == 0);
    free(gz);
    free(back);
    free(data);

    char *e = gf_url_escape("a b&c=d/é~_.-", strlen("a b&c=d/é~_.-"));
    CHECK("url escape (RFC 3986 unreserved kept)", e && strcmp(e, "a%20b%26c%3Dd%2F%C3%A9~_.-") == 0);
    free(e);

    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", closed_port());
    gf_http_req r;
    memset(&r, 0, sizeof r);
    r.url = url;
    r.connect_timeout = 3;
    r.timeout = 5;
    gf_http_resp resp;
    CHECK("closed port: transport failure", gf_http_request(&r, &resp, &err) == -1);
    CHECK("closed port: kind connect", strcmp(resp.kind, "connect") == 0);
    CHECK("closed port: no status", resp.status == 0);
    CHECK("closed port: exit code 7", err.code == GF_EXIT_DELIVERY);
    gf_http_resp_free(&resp);

    r.url = "http://gpuflame-test.invalid/";
    CHECK("unresolvable name: transport failure", gf_http_request(&r, &resp, &err) == -1);
    CHECK("unresolvable name: kind dns", strcmp(resp.kind, "dns") == 0);
    gf_http_resp_free(&resp);

    const char *q[] = {"key", NULL, NULL};
    r.url = url;
    r.query = q;
    CHECK("query parameter without value is a usage error", gf_http_request(&r, &resp, &err) == -1 &&
                                                              err.code == GF_EXIT_USAGE);
    gf_http_resp_free(&resp);
    r.url = "";
    r.query = NULL;
    CHECK("empty URL is a usage error", gf_http_request(&r, &resp, &err) == -1 && err.code == GF_EXIT_USAGE);
    gf_http_resp_free(&resp);
    return tap_done();
}
