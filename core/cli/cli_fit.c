/* cli_fit: `runner fit SWEEP --x X --y Y --model M`: picks the section
 * (plot's rule); analysis/fit_answer.c reads its rows, fits them and stores
 * every fit in one transaction; this prints the quantities as a table. A
 * fit that fails in any group stores nothing. */
#include "base/exit_status.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/table.h"
#include "base/util.h"
#include "store/store.h"

/* What one run of the command works on, freed by fit_job_clear. */
typedef struct fit_job {
    store *s;
    int64_t sweep_id, section_id;
    size_t section_ordinal;
    char *title;
    fit_answer answer;
} fit_job;

static void fit_job_clear(fit_job *job)
{
    fit_answer_clear(&job->answer);
    free(job->title);
    store_close(job->s);
}

/* The section: --section N, else the first whose columns include x and y
 * (as plot picks one). Without one, the first section, whose columns the
 * refusal then lists. */
static int pick_section(fit_job *job, const int64_t *ids, size_t count, const options_parsed *a)
{
    const option_value *section = &a->values[OPTION_FIT_SECTION];
    if (section->given && section->integer > count) {
        cli_error("fit: sweep %lld has %zu section%s; --section %llu is out of range",
                  (long long)job->sweep_id, count, count == 1 ? "" : "s",
                  (unsigned long long)section->integer);
        return EXIT_USAGE;
    }
    size_t chosen = section->given ? (size_t)section->integer - 1 : 0;
    for (size_t i = 0; !section->given && i < count; i++) {
        table *cols = NULL;
        char *plugin = NULL, *err = NULL;
        if (store_section_columns(job->s, ids[i], &cols, &plugin, &err) != 0)
            return cli_fail(err);
        int has = table_find_column(cols, a->values[OPTION_FIT_X].text) >= 0 &&
                  table_find_column(cols, a->values[OPTION_FIT_Y].text) >= 0;
        table_free(cols);
        free(plugin);
        if (has) {
            chosen = i;
            break;
        }
    }
    table *cols = NULL;
    char *plugin = NULL, *err = NULL;
    if (store_section_columns(job->s, ids[chosen], &cols, &plugin, &err) != 0)
        return cli_fail(err);
    job->section_id = ids[chosen];
    job->section_ordinal = chosen + 1;
    job->title = util_strdup(cols->title ? cols->title : "");
    table_free(cols);
    free(plugin);
    return job->title ? EXIT_OK : cli_fail(NULL);
}

/* One row per quantity of every fit: the fit's id, group, model, n, R^2
 * (the same on every row of a fit, so one line above the table when there
 * is one fit), then the quantity with its error and interval. */
static table *result_table(const fit_job *job, const fit_model *model, const options_parsed *a)
{
    const char *by = a->values[OPTION_FIT_BY].text;
    char *title = util_format("%s fit of %s = %s, x = %s (sweep %lld, section %zu: %s)",
                              fit_model_name(model), a->values[OPTION_FIT_Y].text,
                              fit_model_formula(model), a->values[OPTION_FIT_X].text,
                              (long long)job->sweep_id, job->section_ordinal, job->title);
    table *t = title ? table_new(title) : NULL;
    free(title);
    runner_type by_type = RUNNER_TEXT;
    for (size_t i = 0; i < job->answer.groups.count; i++)
        if (job->answer.groups.groups[i].by.type) {
            by_type = job->answer.groups.groups[i].by.type;
            break;
        }
    int ok = t && table_add_column(t, "fit", "", RUNNER_INTEGER, 1) == 0 &&
             (!by || table_add_column(t, by, "", by_type, 1) == 0) &&
             table_add_column(t, "n", "rows", RUNNER_INTEGER, 1) == 0 &&
             table_add_column(t, "excluded", "rows", RUNNER_INTEGER, 1) == 0 &&
             table_add_column(t, "r2", "", RUNNER_REAL, 1) == 0 &&
             table_add_column(t, "quantity", "", RUNNER_TEXT, 0) == 0 &&
             table_add_column(t, "value", "", RUNNER_REAL, 0) == 0 &&
             table_add_column(t, "stderr", "", RUNNER_REAL, 0) == 0 &&
             table_add_column(t, "ci95_low", "", RUNNER_REAL, 0) == 0 &&
             table_add_column(t, "ci95_high", "", RUNNER_REAL, 0) == 0 &&
             table_add_column(t, "unit", "", RUNNER_TEXT, 0) == 0 &&
             table_add_column(t, "interval", "", RUNNER_TEXT, 0) == 0;
    for (size_t i = 0; ok && i < job->answer.groups.count; i++) {
        const fit_result *r = &job->answer.results[i];
        const fit_group *g = &job->answer.groups.groups[i];
        for (size_t k = 0; ok && k < r->estimate_count; k++) {
            const fit_estimate *e = &r->estimates[k];
            value row[12];
            size_t c = 0;
            row[c++] = value_integer(job->answer.ids[i]);
            if (by && value_copy(&row[c++], &g->by) != 0)
                ok = 0;
            row[c++] = value_integer((int64_t)r->n);
            row[c++] = value_integer((int64_t)g->excluded);
            row[c++] = value_real(r->r2);
            row[c++] = value_text(e->name);
            row[c++] = value_real(e->value);
            row[c++] = value_real(e->std_error);
            row[c++] = value_real(e->ci_low);
            row[c++] = value_real(e->ci_high);
            char *unit =
                fit_unit_text(e->unit, job->answer.groups.x_unit, job->answer.groups.y_unit);
            row[c++] = value_text(unit ? unit : "");
            free(unit);
            row[c++] = value_text(e->interval);
            ok = ok && table_append_row(t, row) == 0;
            for (size_t j = 0; j < c; j++)
                value_clear(&row[j]);
        }
    }
    if (!ok) {
        table_free(t);
        return NULL;
    }
    return t;
}

int cli_fit(const options_parsed *a)
{
    const option_value *v = a->values;
    int64_t id;
    int last;
    int status = options_resolve_sweep(a->command, a->positional, 1, &id, &last);
    if (status != EXIT_OK)
        return status;
    if (!v[OPTION_FIT_X].text || !v[OPTION_FIT_Y].text || !v[OPTION_FIT_MODEL].text)
        return options_usage_error("%s", "fit needs --x COLUMN, --y COLUMN and --model MODEL");
    const fit_model *model = fit_model_find(v[OPTION_FIT_MODEL].text);
    if (!model) {
        cli_error("--model %s: expected %s; see 'runner --help'", v[OPTION_FIT_MODEL].text,
                  fit_model_names());
        return EXIT_USAGE;
    }
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_FIT_FORMAT].text, &format);

    fit_job job = { 0 };
    int64_t *ids = NULL;
    size_t count = 0;
    char *err = NULL;
    table *t = NULL;
    /* Fitting writes its rows: the file is opened for writing (and an
     * older one upgraded) like any writing command. */
    if ((status = cli_open_sweep_as(a, 1, &job.s, &job.sweep_id, &ids, &count)) != EXIT_OK)
        goto done;
    if ((status = pick_section(&job, ids, count, a)) != EXIT_OK)
        goto done;
    int relative = strcmp(v[OPTION_FIT_NOISE].text, "relative") == 0;
    if (relative && v[OPTION_FIT_WEIGHTS].text) {
        cli_error("fit: --noise relative and --weights both give each row's "
                  "weight; give one");
        status = EXIT_USAGE;
        goto done;
    }
    fit_question q = { .sweep_id = job.sweep_id,
                       .section_id = job.section_id,
                       .ordinal = (int)job.section_ordinal,
                       .model = model,
                       .columns = { v[OPTION_FIT_X].text, v[OPTION_FIT_Y].text,
                                    v[OPTION_FIT_BY].text, v[OPTION_FIT_WEIGHTS].text },
                       .relative_noise = relative,
                       .again =
                           v[OPTION_ANSWER_AGAIN].given ? STORE_ANSWER_AGAIN : STORE_ANSWER_KEEP };
    if (fit_answer_section(job.s, &q, &job.answer, &err) != 0) {
        cli_error("fit: %s", err ? err : "failed");
        free(err);
        status = EXIT_USAGE;
        goto done;
    }
    size_t excluded = job.answer.excluded;
    if (excluded)
        cli_error("fit: %zu row%s excluded (NaN, inf or empty in %s or %s%s%s)", excluded,
                  excluded == 1 ? "" : "s", v[OPTION_FIT_X].text, v[OPTION_FIT_Y].text,
                  v[OPTION_FIT_WEIGHTS].text ? ", or a weight not > 0 in " : "",
                  v[OPTION_FIT_WEIGHTS].text ? v[OPTION_FIT_WEIGHTS].text : "");
    /* The residual check: unweighted fits whose residuals grow with the
     * fitted value (one line, the first such group). */
    for (size_t g = 0; !relative && !v[OPTION_FIT_WEIGHTS].text && g < job.answer.groups.count;
         g++) {
        double ratio, p;
        if (fit_noise_grows(&job.answer.results[g], &ratio, &p) == 1) {
            cli_error("fit: warning: the residuals grow with the fitted value (Goldfeld-"
                      "Quandt: %.3g times the variance, p = %.2g): the noise looks relative; try "
                      "--noise relative",
                      ratio, p);
            break;
        }
    }
    if (!(t = result_table(&job, model, a))) {
        status = cli_fail(NULL);
        goto done;
    }
    size_t width = output_terminal_width(stdout, v[OPTION_SHOW_WIDE].given);
    if (table_view_print(stdout, t, format, width) != 0) {
        status = cli_fail(util_format("cannot print the fit: out of memory or output closed"));
        goto done;
    }
    char *stored = NULL;
    size_t groups = job.answer.groups.count;
    if (format == OUTPUT_TABLE && job.answer.kept)
        stored =
            groups == 1
                ? util_format("as stored in fit %lld, which fitted the same rows (--again "
                              "fits anew and replaces it)",
                              (long long)job.answer.ids[0])
                : util_format("as stored in fits %lld to %lld, which fitted the same rows "
                              "(--again fits anew and replaces them)",
                              (long long)job.answer.ids[0], (long long)job.answer.ids[groups - 1]);
    else if (format == OUTPUT_TABLE && groups == 1)
        stored = util_format("stored as fit %lld: fit_param holds these, fit_residual each row's "
                             "fitted value and residual (docs/analysis.md)",
                             (long long)job.answer.ids[0]);
    else if (format == OUTPUT_TABLE)
        stored = util_format("stored as fits %lld to %lld: fit_param holds these, fit_residual "
                             "each row's fitted value and residual (docs/analysis.md)",
                             (long long)job.answer.ids[0],
                             (long long)job.answer.ids[job.answer.groups.count - 1]);
    if (stored)
        output_wrapped(stdout, stored, width);
    free(stored);
done:
    table_free(t);
    free(ids);
    fit_job_clear(&job);
    return status;
}
