/* exec_shell: where a {name} stands in a shell = true template, as /bin/sh
 * will read it, and whether a value may stand there at all. A value is
 * never part of script text: {name} becomes a reference to the environment
 * variable that holds it, and it is allowed only where the outer shell
 * expands that reference as a word or inside its double quotes. Where
 * another reading would take the expanded text as code — single quotes
 * (most often another program's script), a here-document, $(( )), the
 * script of sh -c (bash, python, perl... -c/-e), the arguments of eval or
 * ssh — the declaration is refused with the safe form
 * (docs/command-experiments.md, "Values and the shell"). */
#ifndef RUNNER_EXEC_SHELL_H
#define RUNNER_EXEC_SHELL_H

#include <stddef.h>

#include "base/strbuf.h"

#define EXEC_SHELL_DEPTH_MAX 32
#define EXEC_SHELL_HEREDOCS_MAX 8
#define EXEC_SHELL_WORD_MAX 24 /* what is kept of a word: command names, -c */

/* One level: the outer script, or the inside of a $( ), backquotes or
 * $(( )). */
typedef struct exec_shell_level {
    int quote;     /* plain, '...' or "..." */
    int parens;    /* ( open inside a $( ) or $(( )) level */
    int backquote; /* opened by ` */
    int arith;     /* opened by $(( */
    /* The simple command being read at this level. */
    int in_word;
    char word[EXEC_SHELL_WORD_MAX]; /* the current word's first characters */
    size_t word_len;
    int named;       /* its command name was read */
    int reader;      /* what that command does with its arguments (exec_shell.c) */
    int script_next; /* the previous word was -c (or -e): this one is a script */
    int in_script;   /* the current word is that script */
    char name[EXEC_SHELL_WORD_MAX];
} exec_shell_level;

typedef struct exec_shell_scan {
    exec_shell_level level[EXEC_SHELL_DEPTH_MAX];
    int depth;
    int word_start; /* a # here begins a comment */
    int comment;    /* inside one, up to the newline */
    int line_start;
    /* Here-documents: delimiters read on this line, bodies after it. */
    char heredoc[EXEC_SHELL_HEREDOCS_MAX][EXEC_SHELL_WORD_MAX];
    int heredoc_tabs[EXEC_SHELL_HEREDOCS_MAX]; /* <<- strips leading tabs */
    int heredoc_pending, heredoc_current, in_heredoc;
    int lost; /* more than the scan can follow: refuse every {name} after */
} exec_shell_scan;

/* A scan at the start of a template. */
void exec_shell_init(exec_shell_scan *sc);

/* Moves the scan past the template text at p (one character, or more for
 * an escape, "$(", "$((", a here-document's delimiter or its end line);
 * returns how many were consumed (at least 1). */
size_t exec_shell_step(exec_shell_scan *sc, const char *p);

/* Whether a {name} may stand where the scan is: NULL when it may, else
 * where it stands ("inside single quotes", "in the script of bash -c"...),
 * written into buf. */
const char *exec_shell_refusal(const exec_shell_scan *sc, char *buf, size_t size);

/* Appends the reference to variable, quoted for where the scan stands, and
 * moves the scan past it: one word part holding the value, whatever the
 * value holds. */
void exec_shell_reference(strbuf *out, exec_shell_scan *sc, const char *variable);

/* A literal brace ({{ or }}) was written: word text for the scan. */
void exec_shell_literal(exec_shell_scan *sc);

#endif
