/* String interning: one table per model; callers keep int32 ids, never copies. Strings live in one
 * growing arena; a hash table (open addressing) maps bytes → id. Ids are dense, starting at 0. */
#ifndef GF_STRTAB_H
#define GF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct gf_strtab gf_strtab;

gf_strtab *gf_strtab_new(void);
void gf_strtab_free(gf_strtab *t);
/* Strings longer than the table's maximum length are cut to it before interning (default
 * GF_STRTAB_DEFAULT_MAX_LEN, the timeline's limit; docs/LIMITS.md). gf_strtab_set_max_len changes it for
 * a table whose names must stay whole (the NVTX analysis groups by them); at most UINT32_MAX. */
#define GF_STRTAB_DEFAULT_MAX_LEN (((size_t)1 << 23) - 1)
void gf_strtab_set_max_len(gf_strtab *t, size_t max_len);
/* Returns the id of s[0..len) (adding it when new), or -1 when memory is exhausted. */
int32_t gf_strtab_intern(gf_strtab *t, const char *s, size_t len);
int32_t gf_strtab_intern_cstr(gf_strtab *t, const char *s);
/* Returns the id or -1 when s is not in the table. */
int32_t gf_strtab_find(const gf_strtab *t, const char *s, size_t len);
/* NUL-terminated text of id (valid until the next intern); len may be NULL. */
const char *gf_strtab_get(const gf_strtab *t, int32_t id, size_t *len);
size_t gf_strtab_count(const gf_strtab *t);
/* Orders two ids by their bytes (memcmp; a prefix first): <0, 0 or >0. */
int gf_strtab_cmp(const gf_strtab *t, int32_t a, int32_t b);
/* Bytes held (arena + index), for memory accounting. */
size_t gf_strtab_bytes(const gf_strtab *t);

#endif
