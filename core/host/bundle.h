/* The scripts, policies and templates compiled into the binary (generated at build time). */
#ifndef GF_BUNDLE_H
#define GF_BUNDLE_H

#include <stddef.h>

typedef struct gf_bundle_entry {
    const char *name; /* logical name, e.g. "gpuflame/cli.lua", "policies/default.lua" */
    const char *data; /* NUL-terminated source text */
    size_t len;
} gf_bundle_entry;

extern const gf_bundle_entry *gf_bundle_entries;
extern const size_t gf_bundle_count;

/* Returns the entry with this logical name, or NULL. */
const gf_bundle_entry *gf_bundle_find(const char *name);

#endif
