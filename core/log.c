#include "log.h"
#include "textsafe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECRETS 32

static int current_level = GF_LOG_INFO;
static char *secrets[MAX_SECRETS];
static int nsecrets;

void gf_log_set_level(int level)
{
    current_level = level;
}

int gf_log_get_level(void)
{
    return current_level;
}

void gf_log_add_secret(const char *secret)
{
    if (!secret || strlen(secret) < 4 || nsecrets == MAX_SECRETS)
        return;
    for (int i = 0; i < nsecrets; i++)
        if (strcmp(secrets[i], secret) == 0)
            return;
    secrets[nsecrets] = strdup(secret);
    if (secrets[nsecrets])
        nsecrets++;
}

char *gf_log_redact(const char *text)
{
    char *out = strdup(text);
    for (int i = 0; out && i < nsecrets; i++) {
        size_t sl = strlen(secrets[i]);
        char *hit;
        while ((hit = strstr(out, secrets[i])) != NULL) {
            size_t pre = (size_t)(hit - out), rest = strlen(hit + sl);
            char *n = malloc(pre + 3 + rest + 1);
            if (!n) {
                free(out);
                return NULL;
            }
            memcpy(n, out, pre);
            memcpy(n + pre, "***", 3);
            memcpy(n + pre + 3, hit + sl, rest + 1);
            free(out);
            out = n;
        }
    }
    return out;
}

void gf_log(int level, const char *fmt, ...)
{
    if (level > current_level)
        return;
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *clean = gf_log_redact(buf);
    const char *text = clean ? clean : buf;
    char *safe = gf_text_escape(text, strlen(text), 1); /* nsys's bytes never reach the terminal raw */
    static const char *const prefix[] = {"error: ", "warning: ", "", "debug: "};
    fprintf(stderr, "gpuflame: %s%s\n", prefix[level < 0 ? 0 : level > 3 ? 3 : level], safe ? safe : "(out of memory)");
    free(safe);
    free(clean);
}
