/* YAML documents (libyaml) as a small value tree, with PyYAML's safe_load typing (YAML 1.1 resolver:
 * yes/no/on/off booleans, 0x/0o/0b/sexagesimal ints, `1.5e+3` floats, ~ and empty as null), anchors
 * and aliases, `<<` merge keys. Used for run manifests (manifest.yaml). */
#ifndef GF_YAMLTREE_H
#define GF_YAMLTREE_H

#include <stddef.h>
#include <stdint.h>
#include "gf_err.h"

enum gf_yv_kind { GF_YV_NULL, GF_YV_BOOL, GF_YV_INT, GF_YV_BIGINT, GF_YV_FLOAT, GF_YV_STR, GF_YV_SEQ, GF_YV_MAP };

typedef struct gf_yv {
    enum gf_yv_kind kind;
    int b;              /* BOOL */
    int64_t i;          /* INT */
    double f;           /* FLOAT */
    char *s;            /* STR (UTF-8), BIGINT (canonical decimal digits with optional '-') */
    size_t len;         /* length of s */
    size_t n;           /* SEQ/MAP: number of items */
    struct gf_yv **items; /* SEQ items, MAP values */
    char **keys;        /* MAP keys as strings (how Python's json would write them) */
    size_t *klens;
} gf_yv;

enum { GF_YAML_OK = 0, GF_YAML_MISSING = 1, GF_YAML_UNREADABLE = 2, GF_YAML_INVALID = 3 };

/* Loads a single-document YAML file. Returns the root (a NULL-kind node for an empty document) or NULL
 * with *status (GF_YAML_MISSING, GF_YAML_UNREADABLE, GF_YAML_INVALID) and a detailed message in err
 * ("<path>:<line>:<col>: <problem>"). */
gf_yv *gf_yaml_load_file(const char *path, int *status, gf_err *err);
gf_yv *gf_yaml_load_string(const char *text, size_t len, const char *name, int *status, gf_err *err);
void gf_yv_free(gf_yv *v);
/* Value of a string key in a mapping, NULL when absent or when m is not a mapping. */
const gf_yv *gf_yv_get(const gf_yv *m, const char *key);

#endif
