/* exec_template: a command's argv template with its {name}s substituted
 * by a point's values (or, with shell = true, by references to the
 * environment variables that carry them), and the text of each value.
 * Called by exec.c (checking the template when the command is declared)
 * and exec_point.c (each point's argv), and calls neither. */
#include "exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "exec_shell.h"
#include "plugin/plugin.h"

const char *exec_value_text(const value *v, char *buf, size_t size)
{
    switch (v->type) {
    case RUNNER_INTEGER: snprintf(buf, size, "%lld", (long long)v->as.integer); break;
    case RUNNER_REAL:
        if (isnan(v->as.real) || isinf(v->as.real)) {
            snprintf(buf, size, "%s", isnan(v->as.real) ? "nan" : v->as.real > 0 ? "inf" : "-inf");
            break;
        }
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(buf, size, "%.*g", digits, v->as.real);
            if (strtod(buf, NULL) == v->as.real)
                break;
        }
        break;
    case RUNNER_BOOLEAN: snprintf(buf, size, "%s", v->as.boolean ? "true" : "false"); break;
    case RUNNER_TEXT: snprintf(buf, size, "%s", v->as.text ? v->as.text : ""); break;
    default: snprintf(buf, size, "%s", "");
    }
    return buf;
}

/* Resolves one {name}: appends its text (shell: a reference to its
 * environment variable), or with params NULL only checks that it names
 * something. */
static int substitute_name(strbuf *out, const char *name, size_t len, const runner_plugin *plugin,
                           const value *params, uint64_t seed, exec_shell_scan *shell, char **err)
{
    char text[4096];
    char wanted[64];
    snprintf(wanted, sizeof wanted, "%.*s", (int)(len < 63 ? len : 63), name);
    long index = len < 63 ? param_find(plugin, wanted) : -1;
    if (index < 0 && strcmp(wanted, "seed") != 0) {
        const char *like = param_suggest(plugin, wanted);
        if (like)
            return util_fail(err, "{%s} names no parameter (did you mean {%s}?)", wanted, like);
        /* Most often a program's own braces (awk, a JSON argument). */
        return util_fail(err, "{%s} names no parameter (write {{ and }} for literal braces)",
                         wanted);
    }
    if (shell) {
        char variable[80], where[64];
        exec_param_variable(index < 0 ? NULL : plugin->params[index].name, variable,
                            sizeof variable);
        if (exec_shell_refusal(shell, where, sizeof where))
            return util_fail(err,
                             "{%s} %s would put its value into code another reading runs; "
                             "write \"$%s\" there instead (with shell = true every value is "
                             "also in the environment)",
                             wanted, where, variable);
        exec_shell_reference(out, shell, variable);
        return 0;
    }
    if (!params)
        return 0;
    const char *t = text;
    if (index < 0)
        snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
    else if (params[index].type == RUNNER_TEXT)
        t = params[index].as.text;
    else
        exec_value_text(&params[index], text, sizeof text);
    strbuf_str(out, t);
    return 0;
}

void exec_param_variable(const char *param_name, char *buf, size_t size)
{
    snprintf(buf, size, "%s", param_name ? "RUNNER_PARAM_" : "RUNNER_SEED");
    size_t k = strlen(buf);
    for (const char *p = param_name ? param_name : ""; *p && k + 1 < size; p++)
        buf[k++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    buf[k] = '\0';
}

char *exec_substitute(const char *template_text, const runner_plugin *plugin, const value *params,
                      uint64_t seed, int shell, char **err)
{
    strbuf out = { 0 };
    exec_shell_scan scan;
    exec_shell_init(&scan);
    strbuf_str(&out, "");
    for (const char *p = template_text; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            strbuf_add(&out, "{", 1), p += 2;
            exec_shell_literal(&scan);
        } else if (p[0] == '}' && p[1] == '}') {
            strbuf_add(&out, "}", 1), p += 2;
            exec_shell_literal(&scan);
        } else if (p[0] == '{') {
            const char *close = strchr(p, '}');
            if (!close) {
                strbuf_free(&out);
                util_fail(err, "'{' without '}' (write {{ for a literal brace)");
                return NULL;
            }
            if (substitute_name(&out, p + 1, (size_t)(close - p - 1), plugin, params, seed,
                                shell ? &scan : NULL, err) != 0) {
                strbuf_free(&out);
                return NULL;
            }
            p = close + 1;
        } else if (shell) {
            size_t n = exec_shell_step(&scan, p);
            strbuf_add(&out, p, n), p += n;
        } else {
            size_t n = strcspn(p, "{}");
            if (n == 0)
                n = 1; /* a lone '}' */
            strbuf_add(&out, p, n), p += n;
        }
    }
    if (out.oom) {
        strbuf_free(&out);
        util_fail(err, "out of memory");
        return NULL;
    }
    return out.data;
}
