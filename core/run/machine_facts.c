/* machine_facts: the machine as a sweep records it, and the warning of a
 * measured sweep on a machine not fit to measure on. */
#include "machine_facts.h"

#include <stdlib.h>

#include "analysis/analysis.h"
#include "base/strbuf.h"
#include "notify/notify.h"
#include "store/store.h"
#include "run_int.h"

int machine_facts_read(machine_facts *m, const char *lua_version)
{
    char load[64];
    if (machine_read(m) != 0)
        return -1;
    machine_load_average(load, sizeof load);
    if (machine_set(m, "sqlite", store_sqlite_version()) != 0 ||
        machine_set(m, "lua", lua_version) != 0 ||
        machine_set(m, "gsl", stats_gsl_version()) != 0 ||
        machine_set(m, "libcurl_headers", webhook_libcurl_headers_version()) != 0 ||
        machine_set(m, "load_start", load) != 0) {
        machine_facts_clear(m);
        return -1;
    }
    return 0;
}

char *machine_facts_warning(const machine_facts *m, int jobs)
{
    machine_finding *found = NULL;
    size_t count = 0;
    if (machine_judge(m, jobs, &found, &count) != 0)
        return NULL;
    char *line = NULL;
    if (machine_noisy_count(found, count) > 0) {
        strbuf b = { 0 };
        strbuf_str(&b, "runner: warning: timings here may be noisy (");
        for (size_t i = 0; i < count; i++)
            if (found[i].noisy)
                strbuf_printf(&b, "%s%s", i ? ", " : "", found[i].label);
        strbuf_str(&b, "); 'runner machine' says what to do");
        if (b.oom)
            strbuf_free(&b);
        line = b.data;
    }
    machine_findings_free(found, count);
    return line;
}
