/* `perf script` text → the collapse table (core/stacks.h), streamed: one line buffer and the current
 * sample's frame ids are all the memory besides the table itself.
 *
 * Input (perf script's default output; `perf record -g`):
 *
 *   comm  pid/tid  [cpu] time: period event:        one header line per sample
 *   \t    addr sym+off (dso)                         one frame per line, leaf first, indented
 *   <blank line>                                     ends the sample
 *
 * The rules are those of the former Lua loop in lua/backends/perf.lua (kept, for comparison, as
 * bench/ref_perf_fold.lua), byte for byte:
 *
 *   - lines are split on '\n' only; "whitespace" is ' ', \t, \n, \v, \f, \r (so CRLF input works);
 *   - a line of whitespace ends the sample; a line starting with '#' is ignored (no effect on the
 *     sample); an indented line is a frame; any other line is a header and starts a new sample (the
 *     previous one, even without its blank line, is counted; so is a truncated last one);
 *   - header: comm = the text before the first "<ws><digits>[/<digits>]<ws>" (so a comm may contain
 *     spaces), else the first word;
 *   - frame: "<ws><hex addr><ws>SYM<ws>(DSO)" with DSO running to the last ')' of the line, else
 *     "<ws><hex addr><ws>SYM" without a dso; lines of another shape are skipped; a trailing
 *     "+0x<hex>" offset is removed from SYM; "[unknown]" with a known dso becomes "[<dso basename>]";
 *     a dso containing "kernel.kallsyms" or starting with "[kernel" appends "_[k]" (gProfiler's kernel
 *     suffix);
 *   - the stack is comm;root;...;leaf (frames reversed), weight 1 per sample (the period is not
 *     used); frames collected before any header are dropped;
 *   - frame names are interned by gf_stacks_intern: ';' becomes ',' (as before) and a CR or LF inside a
 *     name becomes ' ' (the Lua loop kept a lone CR inside a symbol; nothing else differs).
 */
#ifndef GF_PERF_FOLD_H
#define GF_PERF_FOLD_H

#include <stddef.h>
#include <stdio.h>
#include "gf_err.h"
#include "stacks.h"

/* The longest line accepted (bytes, without the '\n') when max_line is 0: a longer line is an error
 * (GF_EXIT_INPUT, "FILE:LINE: line longer than N bytes ..."), so a file that is not perf script output
 * cannot make the line buffer grow without bound. */
#define GF_PERF_MAX_LINE ((size_t)8 << 20)

typedef struct gf_perf_fold_stats {
    size_t lines;          /* lines read */
    size_t samples;        /* header lines: samples added to the table */
    size_t frames;         /* frame lines used */
    size_t skipped_frames; /* indented lines that are not "addr sym [(dso)]" */
    size_t orphan_frames;  /* frame lines before any header (dropped) */
} gf_perf_fold_stats;

/* Folds perf script text read from `in` (a file or a pipe; read to EOF, not closed) into s. `name`
 * names the input in messages. Returns 0, or -1 with err: GF_EXIT_INPUT for a read error or an
 * over-long line, GF_EXIT_INTERRUPTED when SIGINT/SIGTERM arrived, GF_EXIT_ERROR when out of memory. */
int gf_perf_fold(gf_stacks *s, FILE *in, const char *name, size_t max_line, gf_perf_fold_stats *st, gf_err *err);
/* The same on a path ("-" = standard input). */
int gf_perf_fold_file(gf_stacks *s, const char *path, size_t max_line, gf_perf_fold_stats *st, gf_err *err);
/* The same on a buffer (tests, fuzzing). */
int gf_perf_fold_mem(gf_stacks *s, const char *data, size_t len, gf_perf_fold_stats *st, gf_err *err);

#endif
