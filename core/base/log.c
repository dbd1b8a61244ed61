/* log: levelled messages on stderr (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic int threshold = LOG_LEVEL_INFO;

void log_set_threshold(log_level lowest)
{
    atomic_store(&threshold, lowest > LOG_LEVEL_WARN ? LOG_LEVEL_WARN : (int)lowest);
}

int log_parse_level(const char *name, log_level *out)
{
    static const char *const names[] = { "debug", "info", "warn" };
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (log_level)i;
            return 0;
        }
    return -1;
}

int log_enabled(log_level level) { return (int)level >= atomic_load(&threshold); }

void log_print(log_level level, const char *fmt, ...)
{
    if (!log_enabled(level))
        return;
    char line[4096];
    size_t n = 0;
    if (level == LOG_LEVEL_DEBUG)
        n = (size_t)snprintf(line, sizeof line, "runner: debug: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    if ((size_t)m >= sizeof line - n) { /* longer than the buffer: said in two writes */
        va_start(ap, fmt);
        fputs(level == LOG_LEVEL_DEBUG ? "runner: debug: " : "", stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        return;
    }
    fputs(line, stderr);
}
