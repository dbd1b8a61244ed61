/* cli_pareto: `runner pareto SWEEP --min COL --max COL ...`: the rows of one
 * section that no other row beats on every objective (analysis/pareto.c),
 * stored (pareto tables) and printed with their parameters, sorted by the
 * objectives. pareto_data.c reads the section and stores the front. */
#include "base/exit_status.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "render/render.h"

/* The question: a section, its objectives and their directions. */
typedef struct pareto_job {
    int64_t sweep, section;
    int ordinal;        /* the section's number (1, 2, ...) */
    char *plugin;       /* owned: its result table */
    table *all;         /* owned: the section's columns */
    size_t objectives;  /* k */
    const char **names; /* owned array, borrowed names: the objectives in order */
    int *maximize;      /* owned: per objective */
} pareto_job;

static void pareto_job_clear(pareto_job *j)
{
    free(j->plugin);
    table_free(j->all);
    free(j->names);
    free(j->maximize);
}

/* 1 when the section's columns hold every objective. */
static int has_objectives(const table *all, const pareto_job *j)
{
    for (size_t i = 0; i < j->objectives; i++)
        if (table_find_column(all, j->names[i]) < 0)
            return 0;
    return 1;
}

/* Picks the section (--section, else the first with the objectives) and
 * checks the objectives. EXIT_OK or EXIT_USAGE (printed). */
static int pick_section(const options_parsed *a, store *s, const int64_t *ids, size_t count,
                        pareto_job *j)
{
    const option_value *given = &a->values[OPTION_PARETO_SECTION];
    char *err = NULL;
    for (size_t i = 0; i < count; i++) {
        if (given->given && i + 1 != given->integer)
            continue;
        table *all = NULL;
        char *plugin = NULL;
        if (store_section_columns(s, ids[i], &all, &plugin, &err) != 0)
            return cli_fail(err);
        if (given->given || has_objectives(all, j)) {
            j->section = ids[i];
            j->ordinal = (int)i + 1;
            j->all = all;
            j->plugin = plugin;
            break;
        }
        table_free(all);
        free(plugin);
    }
    if (given->given && !j->all) {
        cli_error("pareto: sweep %lld has %zu section%s, not %llu", (long long)j->sweep, count,
                  count == 1 ? "" : "s", (unsigned long long)given->integer);
        return EXIT_USAGE;
    }
    if (!j->all) {
        strbuf names = { 0 };
        for (size_t i = 0; i < j->objectives; i++)
            strbuf_printf(&names, "%s %s", i ? "," : "", j->names[i]);
        cli_error("pareto: no section of sweep %lld has the columns%s ('runner show' names them)",
                  (long long)j->sweep, names.data ? names.data : "");
        strbuf_free(&names);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cli_pareto(const options_parsed *a)
{
    const option_value *v = a->values;
    const option_value *mins = &v[OPTION_PARETO_MIN], *maxs = &v[OPTION_PARETO_MAX];
    if (!a->positional)
        return options_usage_error("%s needs a sweep: runner pareto SWEEP --min COL --max COL",
                                   "pareto");
    if (mins->count + maxs->count < 2) {
        cli_error("pareto: two or more objectives are needed (--min COL, --max "
                  "COL; each repeatable)");
        return EXIT_USAGE;
    }
    pareto_job j = { .objectives = mins->count + maxs->count };
    store *s = NULL;
    int64_t *ids = NULL;
    size_t count = 0;
    pareto_answer ans = { 0 };
    char *err = NULL, *title = NULL;
    /* The front is stored: opened for writing, like fit. */
    int status = cli_open_sweep_as(a, 1, &s, &j.sweep, &ids, &count);
    if (status != EXIT_OK)
        goto done;
    j.names = malloc(j.objectives * sizeof *j.names);
    j.maximize = malloc(j.objectives * sizeof *j.maximize);
    if (!j.names || !j.maximize) {
        status = cli_fail(NULL);
        goto done;
    }
    for (size_t i = 0; i < j.objectives; i++) {
        int max = i >= mins->count;
        j.names[i] = max ? maxs->list[i - mins->count] : mins->list[i];
        j.maximize[i] = max;
    }
    if ((status = pick_section(a, s, ids, count, &j)) != EXIT_OK)
        goto done;
    title = util_format("pareto front of sweep %lld, section %d (%s)", (long long)j.sweep,
                        j.ordinal, j.plugin);
    pareto_question q = { .sweep_id = j.sweep,
                          .section_id = j.section,
                          .ordinal = j.ordinal,
                          .objective_count = j.objectives,
                          .names = j.names,
                          .maximize = j.maximize,
                          .again = v[OPTION_ANSWER_AGAIN].given ? STORE_ANSWER_AGAIN
                                                                : STORE_ANSWER_KEEP };
    if (!title) {
        status = cli_fail(NULL);
        goto done;
    }
    if (pareto_answer_section(s, &q, title, &ans, &err) != 0) {
        cli_error("pareto: %s", err ? err : "failed");
        free(err);
        status = EXIT_USAGE;
        goto done;
    }
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_PARETO_FORMAT].text, &format);
    if (table_view_print(stdout, ans.front, format,
                         output_terminal_width(stdout, v[OPTION_SHOW_WIDE].given)) != 0) {
        status = cli_fail(util_format("cannot write the front"));
        goto done;
    }
    size_t with_nan = ans.excluded;
    if (format == OUTPUT_TABLE)
        printf("front: %zu of %zu rows%s", ans.front->row_count, ans.rows, with_nan ? "; " : "\n");
    if (with_nan)
        fprintf(format == OUTPUT_TABLE ? stdout : stderr, "%s%zu row%s with NaN excluded\n",
                format == OUTPUT_TABLE ? "" : "runner: pareto: ", with_nan,
                with_nan == 1 ? "" : "s");
    if (format == OUTPUT_TABLE && ans.kept)
        printf("as stored in pareto %lld, which read the same rows (--again finds the front "
               "anew and replaces it)\n",
               (long long)ans.id);
    else if (format == OUTPUT_TABLE)
        printf("stored as pareto %lld: pareto_member holds its rows (docs/analysis.md)\n",
               (long long)ans.id);
done:
    free(title);
    pareto_answer_clear(&ans);
    free(ids);
    store_close(s);
    pareto_job_clear(&j);
    return status;
}
