/* exec_shell: follows a shell = true template as /bin/sh reads it — quotes,
 * $( ), backquotes, $(( )), comments, here-documents, and each simple
 * command's words — so that a {name} is allowed only where the outer shell
 * expands it as a word or inside its double quotes. Whatever the tracking
 * gets wrong can misplace a value or refuse a template, never run a value:
 * the value is never written into the script, only a reference to its
 * environment variable. */
#include "exec_shell.h"

#include <stdio.h>
#include <string.h>

enum {
    SH_PLAIN,
    SH_SINGLE,
    SH_DOUBLE
};

/* What a command does with its arguments. */
enum {
    READER_NONE,
    READER_SCRIPT_OPTION, /* the word after -c (-e) is a script: sh, bash, python, perl... */
    READER_ALL            /* every argument becomes script text: eval, ssh, trap, watch */
};

/* Commands that run the rest of their words as a command: the command name
 * is the next word that is not an option, a number or an assignment. */
static const char *const wrappers[] = { "env", "exec", "command", "nice", "nohup", "time",
                                        "timeout", "sudo", "xargs", "stdbuf", "setsid", "ionice",
                                        "chrt", "taskset",
                                        /* keywords before a command */
                                        "if", "then", "else", "elif", "while", "until", "do", "!",
                                        NULL };
/* Shells: an option cluster holding c (-c, -ec, -lc) makes the next word a
 * script. */
static const char *const shells[] = { "sh",   "bash", "dash", "zsh",     "ksh", "ash",
                                      "mksh", "yash", "fish", "busybox", "su",  NULL };
/* Interpreters whose -c or -e (-E) takes a program. */
static const char *const interpreters[] = { "python", "python2", "python3", "perl",
                                            "ruby",   "node",    "nodejs",  "lua",
                                            "lua5.4", "Rscript", "php",     NULL };
static const char *const script_readers[] = { "eval", "ssh", "trap", "watch", "rsh", NULL };

static int listed(const char *const *list, const char *word)
{
    for (; *list; list++)
        if (strcmp(*list, word) == 0)
            return 1;
    return 0;
}

void exec_shell_init(exec_shell_scan *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->word_start = 1;
    sc->line_start = 1;
}

static exec_shell_level *level_of(exec_shell_scan *sc) { return &sc->level[sc->depth]; }

static void word_begin(exec_shell_level *lv)
{
    if (lv->in_word)
        return;
    lv->in_word = 1;
    lv->word_len = 0;
    lv->in_script = lv->script_next;
    lv->script_next = 0;
}

static void word_char(exec_shell_level *lv, char c)
{
    word_begin(lv);
    if (lv->word_len + 1 < sizeof lv->word)
        lv->word[lv->word_len++] = c;
}

static int is_script_option(const exec_shell_level *lv, const char *w)
{
    if (w[0] != '-' || w[1] == '-' || !w[1])
        return 0;
    if (listed(interpreters, lv->name))
        return strcmp(w, "-c") == 0 || strcmp(w, "-e") == 0 || strcmp(w, "-E") == 0;
    return strchr(w, 'c') != NULL; /* a shell's -c, -ec, -lc */
}

static void word_end(exec_shell_level *lv)
{
    if (!lv->in_word)
        return;
    lv->in_word = 0;
    lv->word[lv->word_len] = '\0';
    const char *w = lv->word;
    if (!lv->named) {
        const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
        int wrapped = lv->name[0] != '\0'; /* a wrapper came first */
        if (strchr(w, '=') || (wrapped && (w[0] == '-' || (w[0] >= '0' && w[0] <= '9'))))
            return; /* an assignment, or a wrapper's option */
        snprintf(lv->name, sizeof lv->name, "%s", base);
        if (listed(wrappers, base))
            return;
        lv->named = 1;
        /* python3.11, bash5: the name without its version */
        char stem[EXEC_SHELL_WORD_MAX];
        snprintf(stem, sizeof stem, "%s", base);
        stem[strcspn(stem, "0123456789.")] = '\0';
        lv->reader = listed(script_readers, base) ? READER_ALL
                     : listed(shells, base) || listed(interpreters, base) || listed(shells, stem) ||
                             listed(interpreters, stem)
                         ? READER_SCRIPT_OPTION
                         : READER_NONE;
        if (!listed(interpreters, base) && listed(interpreters, stem))
            snprintf(lv->name, sizeof lv->name, "%s", stem);
        return;
    }
    if (lv->in_script) {
        lv->in_script = 0;
        return;
    }
    if (lv->reader == READER_SCRIPT_OPTION && is_script_option(lv, w))
        lv->script_next = 1;
}

/* The end of a simple command (; & | newline ( )): the next word names one. */
static void command_end(exec_shell_level *lv)
{
    word_end(lv);
    lv->named = lv->reader = lv->script_next = lv->in_script = 0;
    lv->name[0] = '\0';
}

static void level_push(exec_shell_scan *sc, int backquote, int arith)
{
    if (sc->depth + 1 >= EXEC_SHELL_DEPTH_MAX) {
        sc->lost = 1;
        return;
    }
    word_begin(level_of(sc)); /* the substitution is part of the outer word */
    sc->depth++;
    memset(level_of(sc), 0, sizeof *level_of(sc));
    level_of(sc)->backquote = backquote;
    level_of(sc)->arith = arith;
    sc->word_start = 1;
}

static void level_pop(exec_shell_scan *sc)
{
    command_end(level_of(sc));
    sc->depth--;
}

/* << or <<- and its delimiter: the body starts after this line. */
static size_t heredoc_operator(exec_shell_scan *sc, const char *p)
{
    size_t n = 2;
    int tabs = p[n] == '-';
    n += (size_t)tabs;
    while (p[n] == ' ' || p[n] == '\t')
        n++;
    char delimiter[EXEC_SHELL_WORD_MAX];
    size_t len = 0;
    for (; p[n] && !strchr(" \t\n;&|<>()", p[n]); n++) {
        if (p[n] == '\'' || p[n] == '"' || p[n] == '\\')
            continue;
        if (len + 1 >= sizeof delimiter) {
            sc->lost = 1;
            return n;
        }
        delimiter[len++] = p[n];
    }
    delimiter[len] = '\0';
    if (len == 0 || sc->heredoc_pending == EXEC_SHELL_HEREDOCS_MAX) {
        sc->lost = 1;
        return n;
    }
    memcpy(sc->heredoc[sc->heredoc_pending], delimiter, len + 1);
    sc->heredoc_tabs[sc->heredoc_pending++] = tabs;
    return n;
}

/* Inside a here-document's body: its end line, or one character. */
static size_t heredoc_step(exec_shell_scan *sc, const char *p)
{
    if (sc->line_start) {
        size_t n = 0;
        if (sc->heredoc_tabs[sc->heredoc_current])
            while (p[n] == '\t')
                n++;
        const char *delimiter = sc->heredoc[sc->heredoc_current];
        size_t len = strlen(delimiter);
        if (strncmp(p + n, delimiter, len) == 0 && (p[n + len] == '\n' || !p[n + len])) {
            n += len + (p[n + len] == '\n');
            if (++sc->heredoc_current == sc->heredoc_pending)
                sc->in_heredoc = sc->heredoc_pending = sc->heredoc_current = 0;
            sc->line_start = 1;
            sc->word_start = 1;
            return n;
        }
    }
    sc->line_start = *p == '\n';
    return 1;
}

size_t exec_shell_step(exec_shell_scan *sc, const char *p)
{
    if (sc->in_heredoc)
        return heredoc_step(sc, p);
    exec_shell_level *lv = level_of(sc);
    int start = sc->word_start;
    sc->word_start = strchr(" \t\n;&|()", *p) != NULL;
    sc->line_start = *p == '\n';
    if (sc->comment) {
        sc->comment = *p != '\n';
        if (*p == '\n')
            goto newline;
        return 1;
    }
    if (lv->quote == SH_SINGLE) {
        if (*p == '\'')
            lv->quote = SH_PLAIN;
        word_char(lv, *p);
        return 1;
    }
    if (*p == '\\' && p[1] && p[1] != '{' && p[1] != '}') {
        if (p[1] != '\n') /* a line continuation joins the word */
            word_char(lv, p[1]);
        return 2; /* an escaped character; braces stay the template's */
    }
    if (*p == '$' && p[1] == '(' && p[2] == '(') {
        level_push(sc, 0, 1);
        return 3;
    }
    if (*p == '$' && p[1] == '(') {
        level_push(sc, 0, 0);
        return 2;
    }
    if (*p == '`') {
        if (sc->depth > 0 && lv->backquote && lv->quote == SH_PLAIN)
            level_pop(sc);
        else
            level_push(sc, 1, 0);
        return 1;
    }
    if (lv->quote == SH_DOUBLE) {
        if (*p == '"')
            lv->quote = SH_PLAIN;
        word_char(lv, *p);
        return 1;
    }
    if (lv->arith) {
        if (*p == '(')
            lv->parens++;
        else if (*p == ')' && lv->parens > 0)
            lv->parens--;
        else if (*p == ')' && p[1] == ')') {
            level_pop(sc);
            return 2;
        }
        return 1;
    }
    if (*p == '\'') {
        lv->quote = SH_SINGLE;
        word_char(lv, *p);
    } else if (*p == '"') {
        lv->quote = SH_DOUBLE;
        word_char(lv, *p);
    } else if (*p == '#' && start) {
        sc->comment = 1; /* nothing in it is quoting */
    } else if (*p == '<' && p[1] == '<' && p[2] != '<') {
        word_end(lv);
        return heredoc_operator(sc, p);
    } else if (*p == ' ' || *p == '\t') {
        word_end(lv);
    } else if (*p == '(' && sc->depth > 0 && !lv->backquote) {
        lv->parens++;
        command_end(lv);
    } else if (*p == ')' && sc->depth > 0 && !lv->backquote && lv->parens-- == 0) {
        level_pop(sc);
    } else if (strchr("\n;&|()", *p)) {
        command_end(lv);
        if (*p == '\n')
            goto newline;
    } else {
        word_char(lv, *p);
    }
    return 1;
newline:
    if (sc->heredoc_pending > 0) {
        sc->in_heredoc = 1;
        sc->line_start = 1;
    }
    return 1;
}

const char *exec_shell_refusal(const exec_shell_scan *sc, char *buf, size_t size)
{
    if (sc->lost)
        snprintf(buf, size, "after more nesting than runner follows");
    else if (sc->in_heredoc)
        snprintf(buf, size, "in a here-document");
    else if (sc->level[sc->depth].quote == SH_SINGLE)
        snprintf(buf, size, "inside single quotes");
    else {
        for (int d = sc->depth; d >= 0; d--) {
            const exec_shell_level *lv = &sc->level[d];
            /* at the current level, a {name} that starts a word starts the
             * script word too */
            int script = lv->in_script || (d == sc->depth && !lv->in_word && lv->script_next);
            if (lv->arith)
                snprintf(buf, size, "inside $(( ))");
            else if (script)
                snprintf(buf, size, "in the script of %s", lv->name);
            else if (lv->named && lv->reader == READER_ALL)
                snprintf(buf, size, "in an argument of %s", lv->name);
            else
                continue;
            return buf;
        }
        return NULL;
    }
    return buf;
}

void exec_shell_reference(strbuf *out, exec_shell_scan *sc, const char *variable)
{
    exec_shell_level *lv = level_of(sc);
    if (lv->quote == SH_DOUBLE)
        strbuf_printf(out, "${%s}", variable);
    else
        strbuf_printf(out, "\"${%s}\"", variable);
    word_char(lv, '$');
    sc->word_start = 0;
    sc->line_start = 0;
}

void exec_shell_literal(exec_shell_scan *sc)
{
    if (!sc->in_heredoc)
        word_char(level_of(sc), '{');
    sc->word_start = 0;
    sc->line_start = 0;
}
