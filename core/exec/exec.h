/* exec: command experiments (docs/command-experiments.md). A script's
 * `command` declaration becomes a runner_plugin built at run time, whose
 * run() spawns the program once per point (plus repeats and warmup) and
 * turns its output into rows; everything after that (validation, storage,
 * --jobs, resume, isolation, provenance) is the plugin path unchanged.
 *
 * Build one with exec_command_new, the add/set calls, then
 * exec_command_finish, which checks the declaration, resolves and hashes
 * the executable and appends the measured columns. */
#ifndef RUNNER_EXEC_H
#define RUNNER_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/artifact.h"
#include "base/wire.h"
#include "exec_parse.h"
#include "plugin/plugin.h"

#define EXEC_OUTPUT_MAX_BYTES (16u << 20)          /* per stream and run */
#define EXEC_ARTIFACT_POINT_MAX_BYTES (64u << 20)  /* a point's artifacts */
#define EXEC_ARTIFACT_SWEEP_MAX_BYTES (1ull << 30) /* a sweep's, in this run */

typedef struct exec_command exec_command;

/* What a declaration sets besides its lists; exec_command_settings gives
 * the command's own copy, filled with defaults, to change before finish. */
typedef struct exec_settings {
    exec_output_kind output;   /* EXEC_OUTPUT_JSONL by default */
    int repeats, warmup;       /* 1 and 0 */
    double timeout_s;          /* 0: none */
    int shell;                 /* argv is one string run by /bin/sh -c */
    int max_jobs;              /* points at once in one process; 0: --jobs */
    uint64_t output_max_bytes; /* per stream */
    uint64_t artifact_point_max_bytes, artifact_sweep_max_bytes;
    int script_line; /* where it was declared, for messages */
} exec_settings;

/* NULL when out of memory. name is copied. */
exec_command *exec_command_new(const char *name);
void exec_command_free(exec_command *c); /* accepts NULL; removes its work directory */
exec_settings *exec_command_settings(exec_command *c);
/* Each copies what it is given. Return 0, or -1 (no memory). */
int exec_command_add_param(exec_command *c, const runner_param *param);
/* 1 when name is one of the columns runner measures of a command's points
 * (wall_s, user_s, ..., wall_runs), 0 for a declared one. */
int exec_is_measured_column(const char *name);
int exec_command_add_column(exec_command *c, const runner_column *column);
int exec_command_add_argv(exec_command *c, const char *element);
int exec_command_add_artifact(exec_command *c, const char *file_name);
/* output = { column = "pattern" }: the pattern for a declared column. */
int exec_command_set_pattern(exec_command *c, const char *column, const char *pattern);

/* Checks the declaration (names, types, defaults, the argv template's
 * {names}, patterns), finds the executable (a bare name: runner's libexec
 * directory, then PATH) and hashes it, appends the measured columns and
 * makes the command's work directory. Returns 0, or -1 with *err (the
 * caller frees) saying what to fix. */
int exec_command_finish(exec_command *c, char **err);

/* The finished command as the loader would have it: desc, path (the
 * executable) and sha256 (its SHA-256). Borrowed from c. */
const loaded_plugin *exec_command_plugin(const exec_command *c);

/* Drops from *list (a command's point's artifacts, index its point) those
 * past the sweep's artifact_sweep_max_bytes, saying so on stderr. The
 * writer calls it in point order, so which files a capped sweep keeps does
 * not depend on --jobs. plugin must be a command's. */
void exec_keep_within_sweep_cap(const runner_plugin *plugin, uint64_t index, artifact **list);

/* exec_wire.c: a declaration for a process that never ran the script (an
 * MPI worker rank, docs/mpi.md). exec_command_encode appends what the
 * script declared (plugin must be a command's): name, settings, parameters,
 * declared columns, argv template, artifact names and output patterns.
 * exec_command_decode reads it back and finishes it here, so the program
 * is resolved and hashed on this host (the caller compares the SHA-256
 * with the sender's). Returns the command (exec_command_free it), or NULL
 * with *err: a malformed message, or what exec_command_finish says. */
void exec_command_encode(const runner_plugin *plugin, wire_writer *w);
exec_command *exec_command_decode(wire_reader *r, char **err);

/* 1 when plugin is a command's descriptor. */
int exec_is_command(const runner_plugin *plugin);
/* For provenance: the argv template as a JSON array (malloc'd; NULL when
 * out of memory) and whether it runs through /bin/sh. plugin must be a
 * command's. */
char *exec_argv_json(const runner_plugin *plugin);
int exec_uses_shell(const runner_plugin *plugin);
/* The declaration's repeats: the measured runs of each point (1: one).
 * plugin must be a command's. */
int exec_repeats(const runner_plugin *plugin);
/* The declaration's jobs: at most this many of the command's points run at
 * once under --jobs (a program that times itself, or starts mpirun, runs
 * alone); 0 when it set none. plugin must be a command's. */
int exec_max_jobs(const runner_plugin *plugin);

/* The text {name} becomes in argv: integers in full, reals in the
 * shortest form that reads back the same, booleans true/false, text as it
 * is. Writes into buf; returns buf. */
const char *exec_value_text(const value *v, char *buf, size_t size);
/* The environment variable a point's value of param_name travels in:
 * RUNNER_PARAM_<NAME> (upper case), or RUNNER_SEED for NULL. */
void exec_param_variable(const char *param_name, char *buf, size_t size);
/* template with {name}, {seed} and {{ replaced (exec.c). shell: the
 * template is a /bin/sh script, and each {name} becomes a reference to its
 * environment variable quoted for where it stands ("${RUNNER_PARAM_N}"
 * outside quotes, ${RUNNER_PARAM_N} inside "...", '"${RUNNER_PARAM_N}"'
 * inside '...'), so a value is never script text; params is then unused.
 * malloc'd, or NULL with *err. */
char *exec_substitute(const char *template_text, const runner_plugin *plugin, const value *params,
                      uint64_t seed, int shell, char **err);

#endif
