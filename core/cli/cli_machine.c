/* cli_machine: `runner machine`, this machine's facts as a sweep records
 * them and what in them makes timings noisy, each with what to do (as
 * `pyperf system show` prints them; docs/cli.md). */
#include <stdio.h>
#include <string.h>

#include "base/exit_status.h"
#include "base/machine.h"
#include "cli.h"
#include "render/render.h"
#include "run/run.h"
#include "script/script.h"

#define MACHINE_WIDTH 80 /* printed for a terminal of 80 columns */

table *cli_machine_table(const machine_facts *m, const char *title)
{
    table *t = table_new(title);
    if (!t || table_add_column(t, "field", NULL, RUNNER_TEXT, 0) != 0 ||
        table_add_column(t, "value", NULL, RUNNER_TEXT, 0) != 0) {
        table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < m->count; i++) {
        value row[2] = { value_text(m->fields[i].name), value_text(m->fields[i].value) };
        if (!row[0].type || !row[1].type || table_append_row(t, row) != 0) {
            value_clear(&row[0]);
            value_clear(&row[1]);
            table_free(t);
            return NULL;
        }
    }
    return t;
}

int cli_machine(const options_parsed *a)
{
    const option_value *jobs_option = &a->values[OPTION_JOBS];
    int jobs = jobs_option->given ? (int)jobs_option->integer : 0;
    machine_facts m = { 0 };
    machine_finding *found = NULL;
    size_t count = 0;
    if (machine_facts_read(&m, script_lua_version()) != 0 ||
        machine_judge(&m, jobs, &found, &count) != 0) {
        machine_facts_clear(&m);
        return cli_fail(NULL);
    }
    table *facts = cli_machine_table(&m, "this machine, as a sweep records it");
    if (!facts) {
        machine_findings_free(found, count);
        machine_facts_clear(&m);
        return cli_fail(NULL);
    }
    record_print(stdout, facts, MACHINE_WIDTH);
    table_free(facts);
    size_t noisy = machine_noisy_count(found, count);
    putchar('\n');
    for (size_t i = 0; i < count; i++) {
        const char *head = found[i].noisy ? "noisy: " : "note: ";
        fputs(head, stdout);
        record_wrap(stdout, found[i].problem, strlen(head), 2, MACHINE_WIDTH);
        fputs("  do: ", stdout);
        record_wrap(stdout, found[i].advice, 6, 6, MACHINE_WIDTH);
    }
    if (noisy)
        printf("not fit to measure on: %zu thing%s above make%s timings noisy\n", noisy,
               noisy == 1 ? "" : "s", noisy == 1 ? "s" : "");
    else
        printf("fit to measure on%s\n", jobs ? "" : " (give --jobs N to judge a sweep's)");
    machine_findings_free(found, count);
    machine_facts_clear(&m);
    return noisy ? EXIT_NOT_FIT : EXIT_OK;
}
