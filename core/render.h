/* HTML template renderer: fills named slots of a whole-page template.
 *
 * Template syntax:
 *   {{name}}       the slot's text, HTML-escaped (& < > " ' become entities)
 *   {{json:name}}  data for a <script>: a GF_SLOT_JSON value made script-safe (gf_json_script_safe), the
 *                  output of a GF_SLOT_WRITER, or a GF_SLOT_TEXT value written as a JSON string
 * A slot name is letters, digits, '_', '-' or '.'. A slot the template uses but the caller did not give,
 * an unterminated "{{", a malformed slot or {{name}} on a JSON/writer slot is an error naming the
 * template, its line and the slot. Output files are written atomically (gf_out_open/gf_out_commit). */
#ifndef GF_RENDER_H
#define GF_RENDER_H

#include <stddef.h>
#include <stdio.h>
#include "gf_err.h"

/* Writes script-safe JSON (use core/jsonout.h); returns 0 or -1 with err filled. */
typedef int (*gf_slot_writer)(FILE *out, void *ud, gf_err *err);

enum { GF_SLOT_TEXT, GF_SLOT_JSON, GF_SLOT_WRITER };

typedef struct gf_slot {
    const char *name;
    int kind;
    const char *value; /* TEXT and JSON */
    size_t len;        /* length of value */
    gf_slot_writer writer;
    void *ud;
} gf_slot;

int gf_render_file(const char *tmpl_name, const char *tmpl, size_t tmpl_len, const gf_slot *slots, size_t nslots,
                   const char *out_path, gf_err *err);
/* Same, to an open stream (no atomicity; the caller owns out). */
int gf_render_stream(const char *tmpl_name, const char *tmpl, size_t tmpl_len, const gf_slot *slots, size_t nslots,
                     FILE *out, gf_err *err);
/* Writes s HTML-escaped. */
void gf_html_escape(FILE *out, const char *s, size_t len);



/* Lua side (core/bind/l_render.c): a userdata whose metatable has the field GF_SLOT_WRITER_FIELD set to a
 * light userdata pointing at a static gf_slot_writer_ref can be passed as a slot ({data = ud}); the
 * writer gets the userdata's block as ud. This is how C models (stacks, traces) stream their JSON
 * into a page without a Lua copy. */
#define GF_SLOT_WRITER_FIELD "__gf_slot_writer"
typedef struct gf_slot_writer_ref {
    gf_slot_writer fn;
} gf_slot_writer_ref;
#endif
