/* machine_note: two sweeps' machines compared, for runner diff. */
#include "machine_note.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "render_int.h"

int machine_note_fields(store *s, int64_t a, int64_t b, char **fields, int64_t *missing, char **err)
{
    machine_facts on_a = { 0 }, on_b = { 0 };
    *fields = NULL;
    *missing = 0;
    if (store_sweep_machine(s, a, &on_a, err) != 0 || store_sweep_machine(s, b, &on_b, err) != 0) {
        machine_facts_clear(&on_a);
        return -1;
    }
    *missing = on_a.count == 0 ? a : on_b.count == 0 ? b : 0;
    strbuf list = { 0 };
    for (size_t i = 0; !*missing && i < on_a.count; i++) {
        const machine_field *f = &on_a.fields[i];
        const char *other = machine_get(&on_b, f->name);
        if (other && strcmp(other, f->value) != 0 && machine_field_is_setting(f->name))
            strbuf_printf(&list, "%s%s", list.len ? ", " : "", f->name);
    }
    machine_facts_clear(&on_a);
    machine_facts_clear(&on_b);
    if (list.oom) {
        strbuf_free(&list);
        return util_fail(err, "out of memory");
    }
    *fields = list.data;
    return 0;
}

int machine_note_line(store *s, int64_t a, int64_t b, char **line, char **err)
{
    char *fields = NULL;
    int64_t missing = 0;
    *line = NULL;
    if (machine_note_fields(s, a, b, &fields, &missing, err) != 0)
        return -1;
    if (missing)
        *line = util_format("note: sweep %lld recorded no machine (an older runner ran it): "
                            "whether the two ran alike is not known",
                            (long long)missing);
    else if (fields)
        *line = util_format("note: sweeps %lld and %lld ran on different machines or settings: "
                            "%s",
                            (long long)a, (long long)b, fields);
    int said = missing || fields;
    free(fields);
    return said && !*line ? util_fail(err, "out of memory") : 0;
}
