/* exec_progress: progress lines out of a command's stdout, byte by byte
 * across reads (a line may arrive in pieces), and into series values. */
#include "exec_progress.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
    AT_START, /* deciding: the line so far matches the prefix */
    PASS,     /* an ordinary line: copied */
    PROGRESS, /* a progress line: gathered into line */
    TOO_LONG  /* a progress line past EXEC_PROGRESS_LINE_MAX: dropped */
};

void exec_progress_begin(exec_progress *pr, runner_point *point)
{
    pr->point = point;
    pr->mode = AT_START;
    pr->held = pr->line_len = 0;
    pr->line_no = 1;
}

static void refuse(exec_progress *pr, const char *what)
{
    char why[160];
    snprintf(why, sizeof why, "stdout line %llu: %s", pr->line_no, what);
    host_series_refuse(pr->point, why);
}

/* One progress line (after the prefix): every numeric field but step. */
static void handle(exec_progress *pr)
{
    json_error_t error;
    json_t *o = json_loadb(pr->line, pr->line_len, 0, &error);
    json_t *step = o ? json_object_get(o, "step") : NULL;
    if (!json_is_object(o) || !json_is_number(step)) {
        refuse(pr, "RUNNER_SERIES needs a JSON object with a numeric \"step\"");
        json_decref(o);
        return;
    }
    const char *key;
    json_t *v;
    int fields = 0;
    json_object_foreach(o, key, v)
    {
        if (strcmp(key, "step") == 0)
            continue;
        fields++;
        if (!json_is_number(v) && !json_is_null(v)) {
            char what[120];
            snprintf(what, sizeof what, "\"%.40s\" is not a number", key);
            refuse(pr, what);
            continue;
        }
        host_series_add(pr->point, key, json_number_value(step),
                        json_is_null(v) ? NAN : json_number_value(v), 0);
    }
    if (fields == 0)
        refuse(pr, "RUNNER_SERIES line has no value beside \"step\"");
    json_decref(o);
}

size_t exec_progress_filter(exec_progress *pr, const char *in, size_t n, char *out)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        switch (pr->mode) {
        case AT_START:
            if (c == EXEC_PROGRESS_PREFIX[pr->held]) {
                if (++pr->held == EXEC_PROGRESS_PREFIX_LEN) {
                    pr->mode = PROGRESS;
                    pr->line_len = 0;
                }
                break;
            }
            memcpy(out + w, EXEC_PROGRESS_PREFIX, pr->held);
            w += pr->held;
            pr->held = 0;
            out[w++] = c;
            if (c == '\n')
                pr->line_no++;
            else
                pr->mode = PASS;
            break;
        case PASS:
            out[w++] = c;
            if (c == '\n') {
                pr->mode = AT_START;
                pr->line_no++;
            }
            break;
        case PROGRESS:
        case TOO_LONG:
            if (c == '\n') {
                if (pr->mode == PROGRESS)
                    handle(pr);
                else
                    refuse(pr, "RUNNER_SERIES line longer than 4096 bytes");
                pr->mode = AT_START;
                pr->held = 0;
                pr->line_no++;
            } else if (pr->mode == PROGRESS && pr->line_len < EXEC_PROGRESS_LINE_MAX) {
                pr->line[pr->line_len++] = c;
            } else {
                pr->mode = TOO_LONG;
            }
            break;
        }
    }
    return w;
}

size_t exec_progress_finish(exec_progress *pr, char *out)
{
    size_t w = 0;
    if (pr->mode == AT_START && pr->held) {
        memcpy(out, EXEC_PROGRESS_PREFIX, pr->held);
        w = pr->held;
    } else if (pr->mode == PROGRESS) {
        handle(pr);
    } else if (pr->mode == TOO_LONG) {
        refuse(pr, "RUNNER_SERIES line longer than 4096 bytes");
    }
    pr->mode = AT_START;
    pr->held = 0;
    return w;
}
