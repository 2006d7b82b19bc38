/* The export's tables that `gpuflame stats` reads, copied into a small SQLite database that a model file
 * carries (issue 27, docs/MODEL_FORMAT.md "Tables"): stats over a model file then runs the same code over
 * the same rows (rowids, schema and indexes kept) and writes the same bytes as over the export. Tables an
 * export lacks stay absent; nothing else of the export is copied (no META_DATA_CAPTURE: its environment). */
#ifndef GF_MODEL_TABLES_H
#define GF_MODEL_TABLES_H

#include "gf_err.h"

/* The tables copied, NULL-terminated (what core/stats*.c and related inputs' checks read). */
extern const char *const gf_model_tables_list[];

/* Writes dest (a new file; an existing one is replaced) with the export's tables of gf_model_tables_list.
 * Errors name the export (GF_EXIT_INPUT: not a readable export) or dest (GF_EXIT_ERROR). */
int gf_model_tables_build(const char *export_path, const char *dest, gf_err *err);

#endif
