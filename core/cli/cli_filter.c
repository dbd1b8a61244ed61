/* cli_filter: the sweeps filters every listing command takes (--name,
 * --script, --tag, --plugin, --status, --since, --until: docs/cli.md,
 * "Selecting sweeps"); --since and --until are read by base/sweep_time.c
 * (a UTC date, a date and time or an age), which the dashboard shares.
 * sweeps, rm, history and answers call it. */
#include "base/exit_status.h"
#include "cli.h"

#include "base/sweep_time.h"

int cli_sweep_filter(const options_parsed *a, store_sweep_filter *f, char since[32], char until[32])
{
    const option_value *v = a->values;
    *f = (store_sweep_filter){
        .name = v[OPTION_FILTER_NAME].text,
        .script = v[OPTION_FILTER_SCRIPT].text,
        .tag = v[OPTION_FILTER_TAG].text,
        .plugin = v[OPTION_FILTER_PLUGIN].text,
        .status = v[OPTION_FILTER_STATUS].given ? v[OPTION_FILTER_STATUS].text : NULL,
    };
    const char *times[2] = { v[OPTION_SINCE].text, v[OPTION_UNTIL].text };
    char *outs[2] = { since, until };
    const char *names[2] = { "--since", "--until" };
    for (int i = 0; i < 2; i++) {
        if (!times[i])
            continue;
        int parsed = sweep_time_parse(times[i], outs[i]);
        if (parsed != 0) {
            cli_error("%s %s: %sexpected a UTC date (2026-12-01), date and time "
                      "(2026-12-01T14:30) or an age (90m, 2h, 7d); see 'runner --help'",
                      names[i], times[i], parsed == -2 ? "no such date or time; " : "");
            return EXIT_USAGE;
        }
    }
    f->since = times[0] ? since : NULL;
    f->until = times[1] ? until : NULL;
    return EXIT_OK;
}

int cli_sweep_filter_given(const store_sweep_filter *f)
{
    return f->name || f->script || f->tag || f->plugin || f->status || f->since || f->until;
}
