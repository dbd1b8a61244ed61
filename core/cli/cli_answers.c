/* cli_answers: `runner answers SWEEP`, the answers a sweep has stored (fit,
 * pareto, sensitivity, diff --stat), each with its question and whether
 * its rows changed since; and `runner rm --answer KIND:ID`, which removes
 * answers (store/store_answer_keep.c). docs/analysis.md, "Answers are
 * kept". */
#include "base/exit_status.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/render.h"
#include "store/store.h"

int cli_answers(const options_parsed *a)
{
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0;
    table *t = NULL;
    char *err = NULL;
    int status = cli_open_sweep(a, &s, &sweep_id, &ids, &count);
    if (status != EXIT_OK)
        goto done;
    if (store_answers_list(s, sweep_id, &t, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    output_format format = OUTPUT_TABLE;
    output_parse_format(a->values[OPTION_ANSWERS_FORMAT].text, &format);
    if (format == OUTPUT_TABLE && t->row_count == 0) {
        printf("sweep %lld has no stored answers (runner fit, pareto, sensitivity and diff "
               "--stat store theirs)\n",
               (long long)sweep_id);
        goto done;
    }
    char *title = util_format("answers of sweep %lld", (long long)sweep_id);
    if (!title) {
        status = cli_fail(NULL);
        goto done;
    }
    free(t->title);
    t->title = title;
    /* at a terminal, asked to the minute: "2026-12-06 21:21" (csv and json
     * keep the stored time) */
    long asked = table_find_column(t, "asked");
    for (size_t r = 0; format == OUTPUT_TABLE && asked >= 0 && r < t->row_count; r++) {
        value *cell = table_cell(t, r, (size_t)asked);
        if (cell->type == RUNNER_TEXT && strlen(cell->as.text) > 16) {
            cell->as.text[16] = '\0';
            if (cell->as.text[10] == 'T')
                cell->as.text[10] = ' ';
        }
    }
    if (table_view_print(stdout, t, format,
                         output_terminal_width(stdout, a->values[OPTION_SHOW_WIDE].given)) != 0)
        status = cli_fail(util_format("cannot write the answers"));
    else if (format == OUTPUT_TABLE)
        printf("stale: the rows changed since; 'runner rm --answer KIND:ID' removes one\n");
done:
    table_free(t);
    free(ids);
    store_close(s);
    return status;
}

/* "fit:7" into ref (kind borrowed from text, which is cut at the colon).
 * 0, or -1 after printing why (exit 2). */
static int parse_ref(char *text, const char *given, store_answer_ref *ref)
{
    char *colon = strchr(text, ':');
    if (colon) {
        *colon = '\0';
        char *end = NULL;
        errno = 0;
        long long id = colon[1] >= '0' && colon[1] <= '9' ? strtoll(colon + 1, &end, 10) : 0;
        if (store_answer_kind_known(text) && end && !*end && errno == 0 && id > 0) {
            *ref = (store_answer_ref){ .kind = text, .id = id };
            return 0;
        }
    }
    cli_error("rm: --answer %s: expected KIND:ID, KIND one of fit, pareto, sensitivity, "
              "stat_diff and ID a positive integer (fit:7)",
              given);
    return -1;
}

int cli_answers_rm(const options_parsed *a)
{
    const option_value *given = &a->values[OPTION_RM_ANSWER];
    if (a->positional_count > 0)
        return options_usage_error("%s", "rm takes SWEEPs or --answer, not both");
    store_sweep_filter f;
    char since[32], until[32];
    int status = cli_sweep_filter(a, &f, since, until);
    if (status != EXIT_OK)
        return status;
    if (cli_sweep_filter_given(&f) || a->values[OPTION_RM_FORCE].given)
        return options_usage_error("%s", "rm --answer takes no filters and no --force");
    char **texts = calloc(given->count, sizeof *texts);
    store_answer_ref *refs = calloc(given->count, sizeof *refs);
    store *s = NULL;
    char *err = NULL;
    if (!texts || !refs) {
        status = cli_fail(NULL);
        goto done;
    }
    for (size_t i = 0; i < given->count && status == EXIT_OK; i++) {
        if (!(texts[i] = util_strdup(given->list[i])))
            status = cli_fail(NULL);
        else if (parse_ref(texts[i], given->list[i], &refs[i]) != 0)
            status = EXIT_USAGE;
    }
    if (status != EXIT_OK || (status = cli_open_existing(a->db_path, &s, 1)) != EXIT_OK)
        goto done;
    int rc = store_answers_remove(s, refs, given->count, &err);
    if (rc != 0) {
        /* an answer not stored is the user's mistake: one line, exit 2 */
        status = rc > 0 ? (cli_error("%s", err), free(err), EXIT_USAGE) : cli_fail(err);
        goto done;
    }
    for (size_t i = 0; i < given->count; i++) {
        int named = 0; /* an answer named twice was removed once */
        for (size_t j = 0; j < i; j++)
            named |= refs[j].id == refs[i].id && strcmp(refs[j].kind, refs[i].kind) == 0;
        if (!named)
            printf("removed %s %lld\n", refs[i].kind, (long long)refs[i].id);
    }
done:
    store_close(s);
    for (size_t i = 0; texts && i < given->count; i++)
        free(texts[i]);
    free(texts);
    free(refs);
    return status;
}
