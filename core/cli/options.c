/* options: the one table of command-line options (options.def) turned into
 * parsing, checking and usage text. Values are checked strictly (no
 * leading blanks, signs, hex or "inf"): a flag that was mistyped is refused
 * rather than read as something else. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/exit_status.h"
#include "base/quote.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "selector.h"

/* Help is wrapped to this many columns; synopses two fewer, so that
 * `runner --help` can indent them. */
#define OPTIONS_WIDTH 79
#define OPTIONS_SYNOPSIS_WIDTH 77
/* Where an option's help line starts in `runner COMMAND --help`; a longer
 * option starts its help on the next line. */
#define OPTIONS_HELP_COLUMN 24

static const option_spec option_table[OPTION_COUNT] = {
#define OPTION(id, ...) [OPTION_##id] = { __VA_ARGS__ },
#include "options.def"
#undef OPTION
};

const option_spec *options_spec(option_id id) { return &option_table[id]; }

int options_usage_error(const char *fmt, const char *arg)
{
    char *shown = quote_terminal(arg); /* what the user typed, for a terminal */
    /* fmt's one %s is replaced here rather than by printf, so no format
     * reaches printf that the compiler cannot check (-Wformat=2). */
    const char *slot = strstr(fmt, "%s");
    size_t before = slot ? (size_t)(slot - fmt) : strlen(fmt);
    fprintf(stderr, "runner: %.*s%s%s; see 'runner --help'\n", (int)before, fmt,
            slot ? (shown ? shown : "?") : "", slot ? slot + 2 : "");
    free(shown);
    return EXIT_USAGE;
}

/* ---- checking values ---- */

/* Decimal digits only, no sign or blank, within uint64_t. */
static int parse_digits(const char *text, uint64_t *out)
{
    uint64_t v = 0;
    if (!*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned digit = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    *out = v;
    return 0;
}

/* A plain decimal number: digits with an optional fraction and exponent
 * ("2", "0.5", ".5", "1e3"); no sign, blank, hex, inf or nan. */
static int parse_decimal(const char *text, double *out)
{
    const char *p = text;
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        size_t fraction = strspn(p + 1, "0123456789");
        digits += fraction;
        p += 1 + fraction;
    }
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t exponent = strspn(p, "0123456789");
        if (exponent == 0)
            return -1;
        p += exponent;
    }
    if (*p)
        return -1;
    errno = 0;
    *out = strtod(text, NULL);
    return errno == ERANGE && isinf(*out) ? -1 : 0;
}

/* Whether text is one of the '|'-separated words of choices. */
static int is_choice(const char *choices, const char *text)
{
    size_t n = strlen(text);
    for (const char *w = choices; *w;) {
        size_t len = strcspn(w, "|");
        if (len == n && strncmp(w, text, n) == 0)
            return 1;
        w += len + (w[len] == '|');
    }
    return 0;
}

/* Checks text against spec and stores it in v. Returns 0, or -1 when text
 * is not a value of this option. */
static int check_value(const option_spec *spec, const char *text, option_value *v)
{
    switch (spec->kind) {
    case OPTION_FLAG: return -1;
    case OPTION_TEXT: break;
    case OPTION_LIST: v->list[v->count++] = text; break;
    case OPTION_INTEGER: {
        uint64_t n;
        if (parse_digits(text, &n) != 0 || n < spec->min || n > spec->max)
            return -1;
        v->integer = n;
        break;
    }
    case OPTION_SECONDS: {
        double s;
        /* max 0: any finite number (1e999 reads as inf) */
        if (parse_decimal(text, &s) != 0 || !(s > 0 || (spec->zero && s == 0)) || !isfinite(s) ||
            (spec->max && s > (double)spec->max))
            return -1;
        v->seconds = s;
        break;
    }
    case OPTION_CHOICE:
        if (!is_choice(spec->arg, text))
            return -1;
        break;
    }
    v->text = text;
    return 0;
}

/* ---- parsing ---- */

static const option_spec *find_option(const options_command *command, const char *arg, size_t len)
{
    for (int id = 0; id < OPTION_COUNT; id++) {
        const option_spec *o = &option_table[id];
        if (!(o->commands & command->bit))
            continue;
        if ((strlen(o->name) == len && strncmp(o->name, arg, len) == 0) ||
            (o->alias && strlen(o->alias) == len && strncmp(o->alias, arg, len) == 0))
            return o;
    }
    return NULL;
}

/* The kind of option that fills a sweep_options member of each type. */
static int fills_its_type(const option_spec *o)
{
    switch (o->sweep.type) {
    case OPTION_FIELD_NONE: return 1;
    case OPTION_FIELD_INT: return o->kind == OPTION_FLAG;
    case OPTION_FIELD_U64: return o->kind == OPTION_INTEGER;
    case OPTION_FIELD_DOUBLE: return o->kind == OPTION_SECONDS;
    case OPTION_FIELD_TEXT: return o->kind == OPTION_TEXT || o->kind == OPTION_CHOICE;
    }
    return 0;
}

/* Sets every option to its default; lists get room for every argument. */
static int set_defaults(int argc, options_parsed *out)
{
    for (int id = 0; id < OPTION_COUNT; id++) {
        const option_spec *o = &option_table[id];
        option_value *v = &out->values[id];
        if (!fills_its_type(o)) {
            fprintf(stderr,
                    "runner: options.def: %s cannot fill its sweep_options member (a "
                    "flag fills an int, an integer a uint64_t, seconds a double, text a "
                    "const char *)\n",
                    o->name);
            return EXIT_USAGE;
        }
        if (o->kind == OPTION_LIST) {
            v->list = calloc((size_t)argc + 1, sizeof *v->list);
            if (!v->list)
                return options_usage_error("%s", "out of memory");
        }
        if (o->value && check_value(o, o->value, v) != 0) {
            fprintf(stderr, "runner: options.def: %s's default '%s' is not one of its values\n",
                    o->name, o->value);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* Takes argv[*i], an option; its value is "=VALUE" or the next argument. */
static int parse_option(const options_command *command, int argc, char **argv, int *i,
                        options_parsed *out)
{
    const char *arg = argv[*i];
    size_t len = strcspn(arg, "=");
    const option_spec *o = find_option(command, arg, len);
    if (!o) {
        char *name = util_format("%.*s", (int)len, arg);
        char *shown = name ? quote_terminal(name) : NULL;
        fprintf(stderr, "runner: %s: unknown option '%s'; see 'runner --help'\n", command->name,
                shown ? shown : "?");
        free(shown);
        free(name);
        return EXIT_USAGE;
    }
    option_value *v = &out->values[o - option_table];
    if (o->kind == OPTION_FLAG) {
        if (arg[len] == '=') {
            fprintf(stderr, "runner: %s: option '%s' takes no value; see 'runner --help'\n",
                    command->name, o->name);
            return EXIT_USAGE;
        }
        v->given = 1;
        return EXIT_OK;
    }
    const char *text = arg[len] == '=' ? arg + len + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!text) {
        fprintf(stderr, "runner: %s: option '%s' needs a value; see 'runner --help'\n",
                command->name, o->name);
        return EXIT_USAGE;
    }
    if (check_value(o, text, v) != 0) {
        /* A blank that would not show is shown quoted: --jobs ' 4'. */
        const char *quote = !*text || strpbrk(text, " \t\n") ? "'" : "";
        char *shown = quote_terminal(text);
        fprintf(stderr, "runner: %s%s%s %s%s%s: expected %s; see 'runner --help'\n",
                o->names_command ? command->name : "", o->names_command ? ": " : "", o->name, quote,
                shown ? shown : "?", quote, o->expected);
        free(shown);
        return EXIT_USAGE;
    }
    v->given = 1;
    return EXIT_OK;
}

int options_many_positionals(const options_command *command)
{
    const char *p = command->positional;
    return p && strstr(p, "...") != NULL;
}

int options_parse(const options_command *command, int argc, char **argv, options_parsed *out)
{
    memset(out, 0, sizeof *out);
    out->argc = argc;
    out->argv = argv;
    out->command = command->name;
    int status = set_defaults(argc, out);
    out->positionals = calloc((size_t)argc + 1, sizeof *out->positionals);
    if (!out->positionals && status == EXIT_OK)
        status = options_usage_error("%s", "out of memory");
    for (int i = 2; i < argc && status == EXIT_OK; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            out->help = 1;
            return EXIT_OK;
        }
        int many = options_many_positionals(command);
        int dash_word =
            many && arg[0] == '-' && arg[1] != '-' && !find_option(command, arg, strcspn(arg, "="));
        if (arg[0] == '-' && arg[1] != '\0' && !dash_word) {
            status = parse_option(command, argc, argv, &i, out);
        } else if (many) {
            out->positionals[out->positional_count++] = arg;
            out->positional = out->positionals[0];
        } else if (out->positional && !out->positional2 && command->positional &&
                   strchr(command->positional, ' ')) {
            out->positional2 = arg; /* "A B": a command of two (diff, note, rename) */
            out->positionals[out->positional_count++] = arg;
        } else if (out->positional || !command->positional) {
            char *shown = quote_terminal(arg);
            fprintf(stderr, "runner: %s: unexpected argument '%s'; see 'runner --help'\n",
                    command->name, shown ? shown : "?");
            free(shown);
            status = EXIT_USAGE;
        } else {
            out->positional = arg;
            out->positionals[out->positional_count++] = arg;
        }
    }
    if (status == EXIT_OK && (option_table[OPTION_DB].commands & command->bit)) {
        const option_value *db = &out->values[OPTION_DB];
        status = options_resolve_db(db->given ? db->text : NULL, &out->db_path);
    }
    return status;
}

void options_free(options_parsed *parsed)
{
    for (int id = 0; id < OPTION_COUNT; id++) {
        free(parsed->values[id].list);
        parsed->values[id].list = NULL;
    }
    free(parsed->positionals);
    parsed->positionals = NULL;
}

void options_fill_sweep(const options_parsed *parsed, sweep_options *out)
{
    for (int id = 0; id < OPTION_COUNT; id++) {
        const option_spec *o = &option_table[id];
        const option_value *v = &parsed->values[id];
        char *member = (char *)out + o->sweep.offset;
        switch (o->sweep.type) {
        case OPTION_FIELD_NONE: break;
        case OPTION_FIELD_INT: *(int *)(void *)member = v->given; break;
        case OPTION_FIELD_U64: *(uint64_t *)(void *)member = v->integer; break;
        case OPTION_FIELD_DOUBLE: *(double *)(void *)member = v->seconds; break;
        case OPTION_FIELD_TEXT: *(const char **)(void *)member = v->text; break;
        }
    }
}

/* ---- the resolvers every command shares ---- */

int options_resolve_db(const char *given, const char **path)
{
    const char *env = getenv("RUNNER_DB");
    *path = given ? given : env && *env ? env : "results.db";
    if (!**path)
        return options_usage_error("%s", "--db needs a file name");
    if (strcmp(*path, ":memory:") == 0 || strncmp(*path, "file:", 5) == 0)
        return options_usage_error("--db %s: give a file name; results in memory would be lost "
                                   "at exit",
                                   *path);
    return EXIT_OK;
}

int options_resolve_sweep(const char *command, const char *arg, int allow_last, int64_t *id,
                          int *last)
{
    (void)allow_last; /* every command takes every selector (selector.h) */
    *id = 0;
    *last = 0;
    if (!arg)
        return options_usage_error("%s needs a SWEEP: an id, last, a name, a script or tag:T "
                                   "(see 'runner sweeps')",
                                   command);
    sweep_selector sel;
    char *err = NULL;
    int rc = selector_parse(arg, &sel, &err);
    if (rc == 0) {
        *id = sel.id;
        *last = sel.id == 0 && sel.back == 0 && strcmp(arg, "last") == 0;
    } else {
        char *shown = err ? quote_terminal(err) : NULL; /* it quotes the selector */
        fprintf(stderr, "runner: %s: %s; see 'runner --help'\n", command,
                shown ? shown : "out of memory");
        free(shown);
    }
    free(err);
    selector_clear(&sel);
    return rc == 0 ? EXIT_OK : EXIT_USAGE;
}

/* ---- usage text ---- */

/* Appends word to the synopsis in b, starting a new line of indent spaces
 * when it would pass the width. */
static void synopsis_add(strbuf *b, size_t *line_start, size_t indent, const char *word)
{
    if (b->len - *line_start + 1 + strlen(word) > OPTIONS_SYNOPSIS_WIDTH) {
        strbuf_printf(b, "\n%*s", (int)indent, "");
        *line_start = b->len - indent;
    } else {
        strbuf_str(b, " ");
    }
    strbuf_str(b, word);
}

void options_print_synopsis(FILE *out, const options_command *command, const char *prefix)
{
    strbuf b = { 0 };
    size_t line_start = 0, indent = strlen("runner ") + strlen(command->name) + 1;
    strbuf_printf(&b, "runner %s", command->name);
    if (command->positional)
        synopsis_add(&b, &line_start, indent, command->positional);
    for (int id = 0; id < OPTION_COUNT; id++) {
        const option_spec *o = &option_table[id];
        if (!(o->commands & command->bit))
            continue;
        int required = (o->required & command->bit) != 0;
        char word[128];
        snprintf(word, sizeof word, "%s%s%s%s%s%s", required ? "" : "[", o->name, o->arg ? " " : "",
                 o->arg ? o->arg : "", required ? "" : "]", o->kind == OPTION_LIST ? "..." : "");
        synopsis_add(&b, &line_start, indent, word);
    }
    for (const char *line = b.data; line && *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%s%.*s\n", prefix, (int)len, line);
        line += len + (line[len] == '\n');
    }
    strbuf_free(&b);
}

/* Prints text after lead, from column indent (on the next line when lead is
 * wider), wrapped to the width with following lines indented alike. */
static void print_wrapped(FILE *out, const char *lead, size_t indent, const char *text)
{
    size_t column = strlen(lead);
    fputs(lead, out);
    if (column + 2 > indent && indent > 0) {
        fputc('\n', out);
        column = 0;
    }
    if (column < indent) {
        fprintf(out, "%*s", (int)(indent - column), "");
        column = indent;
    }
    int first = 1;
    for (const char *w = text; *w;) {
        w += strspn(w, " ");
        size_t len = strcspn(w, " ");
        if (!len)
            break;
        if (!first && column + 1 + len > OPTIONS_WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            column = indent;
        } else if (!first) {
            fputc(' ', out);
            column++;
        }
        fprintf(out, "%.*s", (int)len, w);
        column += len;
        w += len;
        first = 0;
    }
    fputc('\n', out);
}

void options_print_command_help(FILE *out, const options_command *command)
{
    options_print_synopsis(out, command, "");
    fputc('\n', out);
    print_wrapped(out, "", 0, command->summary);
    fprintf(out, "\noptions:\n");
    for (int id = 0; id < OPTION_COUNT; id++) {
        const option_spec *o = &option_table[id];
        if (!(o->commands & command->bit))
            continue;
        char lead[96], text[256];
        snprintf(lead, sizeof lead, "  %s%s%s%s%s", o->name, o->alias ? ", " : "",
                 o->alias ? o->alias : "", o->arg ? " " : "", o->arg ? o->arg : "");
        const char *default_text = o->shown ? o->shown : o->value;
        snprintf(text, sizeof text, "%s%s%s%s", o->help, default_text ? " (default: " : "",
                 default_text ? default_text : "", default_text ? ")" : "");
        print_wrapped(out, lead, OPTIONS_HELP_COLUMN, text);
    }
    print_wrapped(out, "  -h, --help", OPTIONS_HELP_COLUMN, "print this help and exit");
}

void options_print_commands(FILE *out, const options_command *commands, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        options_print_synopsis(out, &commands[i], "  ");
        print_wrapped(out, "", 6, commands[i].summary);
    }
}
