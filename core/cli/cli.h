/* cli: runs one command line. cli.c dispatches to the commands (cli_run.c:
 * sweep, resume, notify; cli_show.c: plugins, sweeps, show, plot, report)
 * and holds what they share: the Ctrl-C flag and opening a stored sweep.
 * Options and their usage text come from one table (options.def). */
#ifndef RUNNER_CLI_H
#define RUNNER_CLI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "render/render.h"
#include "store/store.h"

/* Parses the command line and runs one command. Returns the process exit
 * status (exit_status.h, docs/cli.md). */
int cli_main(int argc, char **argv);

/* Set by the first stop signal (SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGXCPU:
 * base/stop_signals.h) once cli_install_signal_handlers ran:
 * the running point finishes, then the sweep stops (exit 130). */
extern volatile sig_atomic_t cli_stop_requested;
void cli_install_signal_handlers(void);

/* Prints "runner: <message>" and a newline on stderr, the whole message
 * through the terminal gate (quote_terminal: escape codes, newlines and
 * bytes that are not UTF-8 escaped, a long text cut with a count). Every
 * one-line message of a command that may echo user text is printed so. */
void cli_error(const char *fmt, ...) RUNNER_PRINTF(1, 2);
/* The lines that follow such a message in a report of several lines (runner
 * slurm's list of shards, the command to run next): each line of the
 * formatted text on stderr through the same gate, without the prefix. */
void cli_error_lines(const char *fmt, ...) RUNNER_PRINTF(1, 2);

/* Prints "runner: <err>" and frees err. Returns EXIT_USAGE. */
int cli_fail(char *err);

/* Opens an existing database; never creates one. Reading commands open it
 * read-only (store_open_read). Prints the error and returns EXIT_USAGE. */
int cli_open_existing(const char *path, store **s, int for_writing);

/* The one sweep the selector arg (selector.h) means in s; an id is
 * returned as given (the command says when it does not exist). Prints the
 * error (no match, ambiguous, malformed) and returns EXIT_USAGE. */
int cli_resolve_sweep(store *s, const char *arg, int64_t *sweep_id);

/* The command's SWEEP argument (any selector) in the database, read-only:
 * on success *s (store_close it), *sweep_id and its *ids (free them), at
 * least one. Otherwise prints the error and returns EXIT_USAGE. */
/* runner plot --series NAME (cli_series.c): the series' values of the
 * sweep as a table (point, step, NAME) into *out (caller frees) and spec's
 * axes, one line per point. EXIT_OK, or EXIT_USAGE after printing why (an
 * unknown name: the names it has). */
int cli_series_table(store *s, int64_t sweep_id, const char *name, table **out, plot_spec *spec);
/* Renders t by spec (plot_render) and writes the image to output, the
 * skip and reduction notes on stderr (cli_show.c; runner plot, and
 * runner history --plot). EXIT_OK, or the failure printed. */
int cli_plot_draw(const table *t, const plot_spec *spec, plot_format format, const char *output);

int cli_open_sweep(const options_parsed *args, store **s, int64_t *sweep_id, int64_t **ids,
                   size_t *count);
/* The same, opened for writing when for_writing (the commands that store
 * an answer: fit, pareto, sensitivity), which then also say in one line when
 * the sweep is still running and how many points it has stored so far. */
int cli_open_sweep_as(const options_parsed *args, int for_writing, store **s, int64_t *sweep_id,
                      int64_t **ids, size_t *count);

/* The filters of `runner sweeps` and `runner rm` (--name, --script, --tag,
 * --status, --plugin, --since, --until) into f; since and until hold the
 * times' text. Prints the error and returns EXIT_USAGE for a bad time. */
int cli_sweep_filter(const options_parsed *args, store_sweep_filter *f, char since[32],
                     char until[32]);
/* 1 when some filter is set. */
int cli_sweep_filter_given(const store_sweep_filter *f);

/* One section's rows, streamed to out in format (what `runner show` prints
 * for it; `runner export` writes the same after its header). The aligned
 * table fits in max_width characters (0: no limit). */
int cli_show_section(store *s, int64_t section_id, output_format format, size_t max_width,
                     FILE *out, char **err);

/* show --runs, export --runs (cli_runs.c): the columns of a section's runs
 * (its parameters, the run's own, its declared columns; *plugin malloc'd),
 * then the runs streamed to out in format: an output_format, or
 * CLI_RUNS_NDJSON (export's one object a line). */
#define CLI_RUNS_NDJSON 100
int cli_runs_columns(store *s, int64_t section_id, table **out, char **plugin, char **err);
int cli_show_runs_section(store *s, int64_t section_id, const table *cols, int format,
                          size_t max_width, FILE *out, char **err);

/* The commands (options_command.run). */
int cli_run_sweep(const options_parsed *args);
int cli_run_resume(const options_parsed *args);
int cli_run_notify(const options_parsed *args);
int cli_run_migrate(const options_parsed *args);
int cli_show_plugins(const options_parsed *args);
int cli_show_sweeps(const options_parsed *args);
int cli_show_rows(const options_parsed *args);
int cli_show_plot(const options_parsed *args);
int cli_show_report(const options_parsed *args);
int cli_merge(const options_parsed *args);   /* cli_merge.c */
int cli_machine(const options_parsed *args); /* cli_machine.c */
/* runner show SWEEP --provenance (cli_provenance.c): the sweep's record,
 * its plugins and its machine, in format, text wrapped at width. */
int cli_show_provenance(store *s, int64_t sweep_id, output_format format, size_t width);
/* m as a table of two text columns, field and value, titled title (for
 * record_print and the other formats); NULL when out of memory. */
table *cli_machine_table(const machine_facts *m, const char *title);
int cli_slurm(const options_parsed *args); /* cli_slurm.c */
int cli_manage_tag(const options_parsed *args);
int cli_manage_note(const options_parsed *args);
int cli_manage_rename(const options_parsed *args);
int cli_manage_rm(const options_parsed *args);
int cli_manage_vacuum(const options_parsed *args);
int cli_export_sweep(const options_parsed *args);
int cli_diff(const options_parsed *args);      /* cli_diff.c */
int cli_verify(const options_parsed *args);    /* cli_verify.c */
int cli_artifacts(const options_parsed *args); /* cli_artifacts.c */
int cli_serve(const options_parsed *args);
int cli_fit(const options_parsed *args);         /* cli_fit.c */
int cli_pareto(const options_parsed *args);      /* cli_pareto.c */
int cli_sensitivity(const options_parsed *args); /* cli_sensitivity.c */
int cli_history(const options_parsed *args);     /* cli_history.c */
int cli_answers(const options_parsed *args);     /* cli_answers.c */
/* runner rm --answer KIND:ID...: cli_manage_rm hands it over. */
int cli_answers_rm(const options_parsed *args);

#endif
