/* Logging to stderr with levels and secret redaction (tokens never reach a log line). */
#ifndef GF_LOG_H
#define GF_LOG_H

enum gf_log_level { GF_LOG_ERROR = 0, GF_LOG_WARN = 1, GF_LOG_INFO = 2, GF_LOG_DEBUG = 3 };

void gf_log_set_level(int level);
int gf_log_get_level(void);
/* Registers a secret: every later log line has it replaced by "***". */
void gf_log_add_secret(const char *secret);
/* Returns a malloc'd copy of text with every registered secret replaced. */
char *gf_log_redact(const char *text);
void gf_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
