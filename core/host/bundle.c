#include "bundle.h"

#include <string.h>

const gf_bundle_entry *gf_bundle_find(const char *name)
{
    for (size_t i = 0; i < gf_bundle_count; i++)
        if (strcmp(gf_bundle_entries[i].name, name) == 0)
            return &gf_bundle_entries[i];
    return NULL;
}
