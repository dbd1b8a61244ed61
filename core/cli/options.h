/* options: runner's command-line options as one table (options.def), the
 * parser every command uses, the usage text made from the table, and the
 * two resolvers every command shares: the database path and a SWEEP
 * argument. Errors are printed here, once, as `runner: ...` lines. */
#ifndef RUNNER_OPTIONS_H
#define RUNNER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run/run.h"

/* The commands, as bits of option_spec.commands. */
enum {
    CMD_SWEEP = 1u << 0,
    CMD_RESUME = 1u << 1,
    CMD_PLUGINS = 1u << 2,
    CMD_SWEEPS = 1u << 3,
    CMD_SHOW = 1u << 4,
    CMD_PLOT = 1u << 5,
    CMD_REPORT = 1u << 6,
    CMD_NOTIFY = 1u << 7,
    CMD_MIGRATE = 1u << 8,
    CMD_ARTIFACTS = 1u << 9,
    CMD_DIFF = 1u << 10,
    CMD_VERIFY = 1u << 11,
    CMD_MERGE = 1u << 12,
    CMD_SLURM = 1u << 13,
    CMD_SERVE = 1u << 14,
    CMD_TAG = 1u << 15,
    CMD_NOTE = 1u << 16,
    CMD_RENAME = 1u << 17,
    CMD_RM = 1u << 18,
    CMD_VACUUM = 1u << 19,
    CMD_EXPORT = 1u << 20,
    CMD_FIT = 1u << 21,
    CMD_PARETO = 1u << 22,
    CMD_SENSITIVITY = 1u << 23,
    CMD_MACHINE = 1u << 24,
    CMD_HISTORY = 1u << 25,
    CMD_ANSWERS = 1u << 26,
};

typedef enum option_kind {
    OPTION_FLAG,    /* a switch: --quiet; "--quiet=x" is refused */
    OPTION_TEXT,    /* any text; given twice, the last wins */
    OPTION_LIST,    /* repeatable text, kept in order */
    OPTION_INTEGER, /* decimal digits only, within [min, max] */
    OPTION_SECONDS, /* a positive decimal number (1, 0.5, 2e3), at most max (0: any finite) */
    OPTION_CHOICE,  /* one of the words of arg, "table|csv|json" */
} option_kind;

/* The type of the sweep_options member an option fills. */
typedef enum option_field_type {
    OPTION_FIELD_NONE = 0, /* the option fills none */
    OPTION_FIELD_INT,      /* int: a flag's 1 when given */
    OPTION_FIELD_U64,      /* uint64_t: an integer's value */
    OPTION_FIELD_DOUBLE,   /* double: a number of seconds */
    OPTION_FIELD_TEXT,     /* const char *: the text */
} option_field_type;

/* Where an option's value goes in sweep_options (options_fill_sweep). */
typedef struct option_field {
    size_t offset; /* offsetof(sweep_options, member) */
    option_field_type type;
} option_field;

/* .sweep = OPTION_SWEEP(member) in options.def: the option fills that
 * sweep_options member. Its type is taken from the member (a member of any
 * other type does not compile); options_parse refuses a kind that cannot
 * fill it (a flag fills an int, an integer a uint64_t, seconds a double,
 * text a const char *). */
#define OPTION_SWEEP(member)                                                                         \
    {                                                                                                \
        offsetof(sweep_options, member),                                                           \
            _Generic(((sweep_options *)0)->member,                                                 \
            int: OPTION_FIELD_INT,                                                                 \
            uint64_t: OPTION_FIELD_U64,                                                            \
            double: OPTION_FIELD_DOUBLE,                                                           \
            const char *: OPTION_FIELD_TEXT) \
    }

/* One row of options.def. */
typedef struct option_spec {
    const char *name;  /* "--db", "-o" */
    const char *alias; /* another accepted spelling, or NULL */
    const char *arg;   /* placeholder ("FILE"); NULL for OPTION_FLAG */
    option_kind kind;
    uint64_t min, max;    /* OPTION_INTEGER bounds; OPTION_SECONDS: max only */
    int zero;             /* OPTION_SECONDS: 0 is a value too (it turns a thing off) */
    const char *expected; /* "a positive integer": the end of a bad value's error */
    int names_command;    /* that error starts "COMMAND: " (plot --section) */
    const char *value;    /* the default, parsed as if typed; NULL: none */
    const char *shown;    /* the default as help prints it, when not value */
    unsigned commands;    /* CMD_* bits: who takes it */
    unsigned required;    /* CMD_* bits: shown without brackets */
    const char *help;
    option_field sweep; /* OPTION_SWEEP(member): filled by options_fill_sweep */
} option_spec;

typedef enum option_id {
#define OPTION(id, ...) OPTION_##id,
#include "options.def"
#undef OPTION
    OPTION_COUNT
} option_id;

/* An option's value after parsing: what was typed, else the default. */
typedef struct option_value {
    int given;         /* on the command line */
    const char *text;  /* as typed or as the default; NULL: neither */
    uint64_t integer;  /* OPTION_INTEGER */
    double seconds;    /* OPTION_SECONDS */
    const char **list; /* OPTION_LIST: NULL-terminated (never NULL after parsing) */
    size_t count;      /* OPTION_LIST entries */
} option_value;

/* What a command was given: filled by options_parse, read by the command. */
typedef struct options_parsed {
    int argc;
    char **argv;             /* the whole command line (the sweep records it) */
    const char *command;     /* "sweep" */
    const char *positional;  /* SCRIPT, SWEEP or NAME; NULL if none */
    const char *positional2; /* the second of two ("A B": diff's B); NULL if none */
    const char *db_path;     /* resolved (options_resolve_db) for commands with --db */
    int help;                /* --help or -h was given */
    option_value values[OPTION_COUNT];
    /* Every positional argument (NULL-terminated; positional is the first).
     * More than one only for a command with many_positionals. */
    const char **positionals;
    size_t positional_count;
} options_parsed;

/* A command: how usage shows it, and the function that runs it. */
typedef struct options_command {
    const char *name;                       /* "sweep" */
    unsigned bit;                           /* CMD_SWEEP */
    const char *positional;                 /* "SCRIPT", "[NAME]"; NULL: takes none */
    const char *summary;                    /* one sentence for help */
    int (*run)(const options_parsed *args); /* returns the exit status */
} options_command;

/* A command whose positional placeholder holds "..." ("[SWEEP...]") takes
 * any number of positional arguments, and a "-word" that is none of its
 * options is one too (runner tag SWEEP -old). One with a blank ("A B")
 * takes two (positional2). */
int options_many_positionals(const options_command *command);

/* The table row of an option. */
const option_spec *options_spec(option_id id);

/* Parses argv[2..] for command: "--name VALUE" or "--name=VALUE" in any
 * order, at most one positional argument (none when command->positional is
 * NULL). Options not given take their defaults; with --db, the database
 * path is resolved too. Returns 0, or prints one error line and returns
 * EXIT_USAGE. Free with options_free. */
int options_parse(const options_command *command, int argc, char **argv, options_parsed *out);

void options_free(options_parsed *parsed);

/* Sets every sweep_options member an option of options.def names
 * (OPTION_SWEEP) from what was parsed, typed or default, and leaves the
 * others as they are: the command sets those (the database, the webhook,
 * --jobs's one per core). */
void options_fill_sweep(const options_parsed *parsed, sweep_options *out);

/* The database: --db, else $RUNNER_DB when not empty, else results.db.
 * Refuses an empty name and SQLite's in-memory names (the results would be
 * lost). Returns 0 with *path (borrowed), or prints and returns EXIT_USAGE. */
int options_resolve_db(const char *given, const char **path);

/* Checks a SWEEP argument's syntax (selector.h): any selector. *id is set
 * for an id, *last for exactly "last"; for the others both are 0, and the
 * command finds the sweep with cli_resolve_sweep once the database is open
 * (allow_last is ignored: every command takes every selector). Prints the
 * command's error and returns EXIT_USAGE when missing or malformed. */
int options_resolve_sweep(const char *command, const char *arg, int allow_last, int64_t *id,
                          int *last);

/* Prints a usage error the way every command does:
 * "runner: <fmt with arg>; see 'runner --help'". fmt holds one %s, where
 * arg goes, escaped for a terminal, and no other conversion. Returns
 * EXIT_USAGE. */
int options_usage_error(const char *fmt, const char *arg);

/* The command's synopsis, wrapped to 79 columns, each line after prefix:
 * "runner sweep SCRIPT [--db FILE] ...". docs/cli.md holds it verbatim. */
void options_print_synopsis(FILE *out, const options_command *command, const char *prefix);

/* `runner COMMAND --help`: the synopsis, the summary, and every option the
 * command takes with its help line and default. */
void options_print_command_help(FILE *out, const options_command *command);

/* `runner --help`'s list of commands: each synopsis and its summary. */
void options_print_commands(FILE *out, const options_command *commands, size_t count);

#endif
