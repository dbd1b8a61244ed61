/* exec_wire: a command's declaration in wire.c's bytes, so that MPI worker
 * ranks, which never run the script, build the same command rank 0 built
 * and run its points (exec.h, docs/mpi.md). Both ends are the same runner
 * build (mpi_build_check), so the layout needs no version. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "exec_int.h"

static void put_list(wire_writer *w, char *const *list, size_t count)
{
    wire_put_u32(w, (uint32_t)count);
    for (size_t i = 0; i < count; i++)
        wire_put_text(w, list[i]);
}

void exec_command_encode(const runner_plugin *plugin, wire_writer *w)
{
    const exec_command *c = (const exec_command *)plugin;
    const exec_settings *s = &c->settings;
    wire_put_text(w, c->name);
    wire_put_u8(w, (uint8_t)s->output);
    wire_put_u32(w, (uint32_t)s->repeats);
    wire_put_u32(w, (uint32_t)s->warmup);
    wire_put_f64(w, s->timeout_s);
    wire_put_u8(w, (uint8_t)s->shell);
    wire_put_u64(w, s->output_max_bytes);
    wire_put_u64(w, s->artifact_point_max_bytes);
    wire_put_u64(w, s->artifact_sweep_max_bytes);
    wire_put_u32(w, (uint32_t)s->script_line);
    wire_put_u32(w, (uint32_t)c->param_count);
    for (size_t i = 0; i < c->param_count; i++) {
        const runner_param *p = &c->params[i];
        size_t choices = 0;
        while (p->choices && p->choices[choices])
            choices++;
        wire_put_text(w, p->name);
        wire_put_u8(w, (uint8_t)p->type);
        wire_put_text(w, p->unit);
        wire_put_text(w, p->doc);
        wire_put_f64(w, p->default_number);
        wire_put_u8(w, p->default_text != NULL);
        wire_put_text(w, p->default_text);
        wire_put_f64(w, p->min);
        wire_put_f64(w, p->max);
        /* NULL (any text) and an empty list differ: count + 1, 0 for NULL */
        wire_put_u32(w, p->choices ? (uint32_t)choices + 1 : 0);
        for (size_t k = 0; k < choices; k++)
            wire_put_text(w, p->choices[k]);
    }
    wire_put_u32(w, (uint32_t)c->declared_columns);
    for (size_t i = 0; i < c->declared_columns; i++) {
        wire_put_text(w, c->columns[i].name);
        wire_put_u8(w, (uint8_t)c->columns[i].type);
        wire_put_text(w, c->columns[i].unit);
        wire_put_text(w, c->columns[i].doc);
    }
    put_list(w, c->argv, c->argc);
    put_list(w, c->artifact_files, c->artifact_count);
    put_list(w, c->pattern_columns, c->pattern_count);
    put_list(w, c->pattern_texts, c->pattern_count);
}

/* Reads a put_list into add(c, element) calls. Returns the count, or -1. */
static long get_list(wire_reader *r, exec_command *c, int (*add)(exec_command *, const char *))
{
    uint32_t n = wire_get_u32(r);
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        char *element = wire_get_text(r);
        int rc = element ? add(c, element) : -1;
        free(element);
        if (rc != 0)
            return -1;
    }
    return r->failed ? -1 : (long)n;
}

/* One parameter into c; -1 when malformed or out of memory. */
static int get_param(wire_reader *r, exec_command *c)
{
    runner_param p = { 0 };
    int rc = -1;
    char **choices = NULL;
    char *name = wire_get_text(r);
    p.type = (runner_type)wire_get_u8(r);
    char *unit = wire_get_text(r), *doc = wire_get_text(r);
    p.default_number = wire_get_f64(r);
    int has_text = wire_get_u8(r);
    char *text = wire_get_text(r);
    p.min = wire_get_f64(r);
    p.max = wire_get_f64(r);
    uint32_t choice_slots = wire_get_u32(r);
    if (r->failed || choice_slots > r->len)
        goto done;
    choices = choice_slots ? calloc(choice_slots, sizeof *choices) : NULL;
    if (choice_slots && !choices)
        goto done;
    for (uint32_t k = 0; k + 1 < choice_slots; k++)
        if (!(choices[k] = wire_get_text(r)))
            goto done;
    p.name = name, p.unit = unit, p.doc = doc;
    p.default_text = has_text ? text : NULL;
    p.choices = (const char *const *)choices;
    rc = exec_command_add_param(c, &p); /* copies */
done:
    for (uint32_t k = 0; choices && k < choice_slots; k++)
        free(choices[k]);
    free(choices);
    free(name), free(unit), free(doc), free(text);
    return rc;
}

static int get_column(wire_reader *r, exec_command *c)
{
    char *name = wire_get_text(r);
    runner_type type = (runner_type)wire_get_u8(r);
    char *unit = wire_get_text(r), *doc = wire_get_text(r);
    runner_column col = { name, type, unit, doc };
    int rc = r->failed ? -1 : exec_command_add_column(c, &col);
    free(name), free(unit), free(doc);
    return rc;
}

/* What follows the declaration in r is the caller's. */
exec_command *exec_command_decode(wire_reader *r, char **err)
{
    char *name = wire_get_text(r);
    exec_command *c = name ? exec_command_new(name) : NULL;
    free(name);
    if (!c) {
        util_fail(err, r->failed ? "a malformed command declaration" : "out of memory");
        return NULL;
    }
    exec_settings *s = exec_command_settings(c);
    s->output = (exec_output_kind)wire_get_u8(r);
    s->repeats = (int)wire_get_u32(r);
    s->warmup = (int)wire_get_u32(r);
    s->timeout_s = wire_get_f64(r);
    s->shell = wire_get_u8(r);
    s->output_max_bytes = wire_get_u64(r);
    s->artifact_point_max_bytes = wire_get_u64(r);
    s->artifact_sweep_max_bytes = wire_get_u64(r);
    s->script_line = (int)wire_get_u32(r);
    int bad = 0;
    uint32_t params = wire_get_u32(r);
    for (uint32_t i = 0; i < params && !bad; i++)
        bad = r->failed || get_param(r, c) != 0;
    uint32_t columns = bad ? 0 : wire_get_u32(r);
    for (uint32_t i = 0; i < columns && !bad; i++)
        bad = r->failed || get_column(r, c) != 0;
    bad = bad || get_list(r, c, exec_command_add_argv) < 0 ||
          get_list(r, c, exec_command_add_artifact) < 0;
    /* The patterns: the column names, then the texts in the same order. */
    uint32_t patterns = bad ? 0 : wire_get_u32(r);
    char **pattern_columns =
        patterns && patterns <= r->len ? calloc(patterns, sizeof(char *)) : NULL;
    if (patterns && !pattern_columns)
        bad = 1;
    for (uint32_t i = 0; i < patterns && !bad; i++)
        bad = !(pattern_columns[i] = wire_get_text(r));
    if (!bad && wire_get_u32(r) != patterns)
        bad = 1;
    for (uint32_t i = 0; i < patterns && !bad; i++) {
        char *text = wire_get_text(r);
        bad = !text || exec_command_set_pattern(c, pattern_columns[i], text) != 0;
        free(text);
    }
    for (uint32_t i = 0; pattern_columns && i < patterns; i++)
        free(pattern_columns[i]);
    free(pattern_columns);
    if (bad || r->failed) {
        util_fail(err, "a malformed command declaration");
        exec_command_free(c);
        return NULL;
    }
    if (exec_command_finish(c, err) != 0) {
        exec_command_free(c);
        return NULL;
    }
    return c;
}
