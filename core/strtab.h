/* String interning: one table per model; callers keep int32 ids, never copies. Strings live in one
 * growing arena; a hash table (open addressing) maps bytes → id. Ids are dense, starting at 0. */
#ifndef GF_STRTAB_H
#define GF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct gf_strtab gf_strtab;

gf_strtab *gf_strtab_new(void);
void gf_strtab_free(gf_strtab *t);
/* Returns the id of s[0..len) (adding it when new), or -1 when memory is exhausted. */
int32_t gf_strtab_intern(gf_strtab *t, const char *s, size_t len);
int32_t gf_strtab_intern_cstr(gf_strtab *t, const char *s);
/* Returns the id or -1 when s is not in the table. */
int32_t gf_strtab_find(const gf_strtab *t, const char *s, size_t len);
/* NUL-terminated text of id (valid until the next intern); len may be NULL. */
const char *gf_strtab_get(const gf_strtab *t, int32_t id, size_t *len);
size_t gf_strtab_count(const gf_strtab *t);
/* Bytes held (arena + index), for memory accounting. */
size_t gf_strtab_bytes(const gf_strtab *t);

#endif
