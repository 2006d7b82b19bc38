/* Streaming CSV reader on libcsv for nsys stats output (and any RFC 4180 file).
 *
 * The whole file is never loaded: rows are parsed a chunk at a time and handed out one by one.
 * Tolerates a UTF-8 BOM, CRLF line ends and quoted fields holding commas, quotes and newlines.
 * Header names are trimmed. Every error names the file and the line (and the column for values).
 *
 *   gf_csv *c; gf_err err;
 *   if (gf_csv_open(&c, path, NULL, &err) != 0) ...
 *   static const char *const names[] = {"Name", "Kernel Name"};
 *   int name = gf_csv_find(c, names, 2);
 *   while ((rc = gf_csv_next(c, &err)) == 1) { size_t n; const char *s = gf_csv_field(c, name, &n); ... }
 *   gf_csv_close(c);
 */
/* libcsv's own header is also called csv.h and -Icore shadows it: core/csv.c defines GF_CSV_LIBCSV and
 * includes <csv.h> (this file), which pulls libcsv's header in with #include_next. */
#if defined(GF_CSV_LIBCSV) && !defined(GF_CSV_LIBCSV_DONE)
#define GF_CSV_LIBCSV_DONE
#include_next <csv.h>
#endif

#ifndef GF_CSV_H
#define GF_CSV_H

#include <stddef.h>
#include <stdint.h>
#include "gf_err.h"

typedef struct gf_csv gf_csv;

typedef struct gf_csv_opts {
    /* Skip lines before the header (captured `nsys stats` stdout: "Processing [...]" and the like).
     * The header is the first row that has a field equal (trimmed, case-insensitive) to header_hint,
     * or, without a hint, the first row with at least two fields. With skip_preamble the table ends at
     * the first blank line (nsys prints one after the rows). */
    int skip_preamble;
    /* A column name the header must contain. Without skip_preamble a header lacking it is an error. */
    const char *header_hint;
    /* Rows with fewer fields than the header are accepted (missing fields read as empty). Rows with
     * more fields are always an error. */
    int allow_short_rows;
    /* Name used in messages instead of the path (e.g. "nsys stats stdout"); NULL = the path. */
    const char *display_name;
} gf_csv_opts;

/* Opens path and reads the header. An empty file (or, with skip_preamble, no header line) fails with
 * code GF_EXIT_NO_DATA; unreadable files and malformed CSV fail with GF_EXIT_INPUT. */
int gf_csv_open(gf_csv **out, const char *path, const gf_csv_opts *opts, gf_err *err);
void gf_csv_close(gf_csv *c);

const char *gf_csv_path(const gf_csv *c);
size_t gf_csv_ncols(const gf_csv *c);
/* Trimmed header name of column i (0-based), or NULL when out of range. */
const char *gf_csv_colname(const gf_csv *c, size_t i);
/* First header (left to right) that equals one of the aliases, compared trimmed and case-insensitively;
 * aliases are tried in order, so the first alias that matches any column wins. -1 if none. */
int gf_csv_find(const gf_csv *c, const char *const *aliases, size_t n);
/* Writes "A, B, C" (the header names) into buf for messages; returns buf. */
char *gf_csv_columns_str(const gf_csv *c, char *buf, size_t size);

/* Advances to the next row: 1 = a row, 0 = end of data, -1 = error (err filled). */
int gf_csv_next(gf_csv *c, gf_err *err);
/* Field i of the current row, NUL-terminated (untrimmed); "" when the row is short. */
const char *gf_csv_field(const gf_csv *c, size_t i, size_t *len);
/* All fields of the current row at once, for readers that take several per row: field i (< *n) is the
 * NUL-terminated base + f[i].off, f[i].len bytes long (untrimmed), and the 8 bytes after its last byte
 * can be read (word-at-a-time parsing; their values are unspecified). Valid until the next gf_csv_next. */
typedef struct gf_csv_span {
    size_t off, len;
} gf_csv_span;
const char *gf_csv_row(const gf_csv *c, const gf_csv_span **f, size_t *n);
/* gf_csv_next and, when it returns 1, gf_csv_row in one call (readers of many rows). */
int gf_csv_next_row(gf_csv *c, const char **base, const gf_csv_span **f, size_t *n, gf_err *err);
/* Number of fields in the current row. */
size_t gf_csv_nfields(const gf_csv *c);
/* For readers that accept short rows: fails (GF_EXIT_INPUT) when the current row ends before any of the
 * columns cols[0..n) (negative entries ignored), naming the file, line and the missing columns —
 * a cut-off last row of a truncated file, say. */
int gf_csv_require(const gf_csv *c, const int *cols, size_t n, gf_err *err);
/* 1-based file line where the current row starts (the header's line before the first next()). */
size_t gf_csv_line(const gf_csv *c);
/* Rows returned so far. */
size_t gf_csv_rows(const gf_csv *c);

/* Typed values of column col in the current row (whitespace-trimmed). Errors read
 * "<file>:<line>:<col> (column '<name>'): invalid integer '<value>'" with code GF_EXIT_INPUT. */
int gf_csv_int64(const gf_csv *c, size_t col, int64_t *v, gf_err *err);
int gf_csv_double(const gf_csv *c, size_t col, double *v, gf_err *err);
/* 1 when the field is empty or only whitespace. */
int gf_csv_is_blank(const gf_csv *c, size_t col);

#endif
