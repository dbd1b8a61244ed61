/* quote: text escaped for where it lands, one function per destination,
 * so that a name or value from a user never becomes code or layout there:
 * a /bin/sh word, the value of an #SBATCH directive, a line on a terminal.
 * (HTML text belongs to render/, SQL identifiers to store/.) */
#ifndef RUNNER_QUOTE_H
#define RUNNER_QUOTE_H

#include "strbuf.h"

/* Appends text as one /bin/sh word: single-quoted, each ' as '\''. Any
 * byte but NUL survives (a newline stays inside the quotes), and nothing
 * in it is expanded. */
void quote_shell_word(strbuf *out, const char *text);
/* The same word, left as it is when made only of letters, digits and
 * _./:=@+,- (nothing a shell expands or splits): a command a person reads
 * and copies (runner slurm's --resubmit line). */
void quote_shell_word_readable(strbuf *out, const char *text);

/* Appends text as the value of an `#SBATCH --option=VALUE` line: double
 * quotes, with \ and " escaped by a backslash, as sbatch's directive parser
 * reads them (a value made only of letters, digits and _.:/@+,=- is left
 * as it is). filename: also % doubled, so Slurm's filename patterns (%a,
 * %j) in text stay literal. Returns 0, or -1 (nothing appended) when text
 * holds a control character (a newline would end the directive and start a
 * line of the shell script), or with filename a backslash (which tells
 * Slurm to expand no pattern of the whole name): refuse such text. */
int quote_sbatch_value(strbuf *out, const char *text, int filename);

/* 1 when text holds a byte below 0x20 or 0x7f: what a one-line directive
 * or file name given to a scheduler cannot carry. */
int quote_has_control(const char *text);

/* text for a terminal, malloc'd (NULL: no memory): util_printable's rules
 * (control characters and bytes that are not UTF-8 as \n, \t, \xNN).
 * The one gate for user text shown on a terminal (docs/guarantees.md,
 * "Text in and out"). A text longer than QUOTE_TERMINAL_MAX_BYTES is cut
 * there (at a character's start) and ends with "... (N more bytes)", so a
 * 1 MB name makes one readable line. */
#define QUOTE_TERMINAL_MAX_BYTES 4096
char *quote_terminal(const char *text);

#endif
