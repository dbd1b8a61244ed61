/* selector.c: the SWEEP argument's grammar (selector.h) and the rules for
 * sweep names and tags, which keep the bare forms apart: a name starts with
 * a letter and has no '/', ':' or '~' and no .lua ending, so it is never an
 * id, `last`, a script or a prefixed selector. */
#include "selector.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"

#define SELECTOR_WORD_MAX 64

static const char selector_forms[] =
    "give an id, last, last~N, a name, a script (FILE.lua or a path), tag:T or plugin:P "
    "(docs/cli.md, \"Selecting sweeps\")";

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Letters, digits, '_', '-', '.': the rest of a name or tag. */
static int is_word(const char *text)
{
    for (const char *p = text; *p; p++)
        if (!is_letter(*p) && !is_digit(*p) && !strchr("_-.", *p))
            return 0;
    return 1;
}

static int ends_with(const char *text, const char *end)
{
    size_t n = strlen(text), m = strlen(end);
    return n >= m && strcmp(text + n - m, end) == 0;
}

/* Digits only, > 0, within int64_t; 0 when not. */
static int64_t parse_id(const char *text)
{
    int64_t n = 0;
    if (!*text)
        return 0;
    for (const char *p = text; *p; p++) {
        if (!is_digit(*p) || n > (INT64_MAX - (*p - '0')) / 10)
            return 0;
        n = n * 10 + (*p - '0');
    }
    return n;
}

static int name_ok(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n <= SELECTOR_WORD_MAX && is_letter(name[0]) && is_word(name) &&
           strcmp(name, "last") != 0 && !ends_with(name, ".lua");
}

static int tag_ok(const char *tag)
{
    size_t n = strlen(tag);
    return n > 0 && n <= SELECTOR_WORD_MAX && (is_letter(tag[0]) || is_digit(tag[0])) &&
           is_word(tag);
}

int selector_check_name(const char *option, const char *name, char **err)
{
    if (name_ok(name))
        return 0;
    return util_fail(err,
                     "%s '%s': a sweep name starts with a letter, holds only letters, "
                     "digits, '_', '-' and '.' (%d at most), is not 'last' and does not end "
                     "in .lua",
                     option, name, SELECTOR_WORD_MAX);
}

int selector_check_tag(const char *option, const char *tag, char **err)
{
    if (tag_ok(tag))
        return 0;
    return util_fail(err,
                     "%s '%s': a tag starts with a letter or digit and holds only "
                     "letters, digits, '_', '-' and '.' (%d at most)",
                     option, tag, SELECTOR_WORD_MAX);
}

void selector_clear(sweep_selector *sel)
{
    free(sel->owned);
    memset(sel, 0, sizeof *sel);
}

/* base (without ~N) with a prefix: tag:, plugin:, name:, script:. */
static int parse_prefixed(char *base, const char *text, store_sweep_filter *f, char **err)
{
    char *value = strchr(base, ':');
    *value++ = '\0';
    if (strcmp(base, "tag") == 0 && tag_ok(value))
        f->tag = value;
    else if (strcmp(base, "plugin") == 0 && *value)
        f->plugin = value;
    else if (strcmp(base, "name") == 0 && name_ok(value))
        f->name = value;
    else if (strcmp(base, "script") == 0 && *value)
        f->script = value;
    else
        return util_fail(err, "'%s' is not a sweep selector: %s", text, selector_forms);
    return 0;
}

int selector_parse(const char *text, sweep_selector *out, char **err)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return util_fail(err, "an empty SWEEP is not a sweep selector: %s", selector_forms);
    if ((out->id = parse_id(text)) > 0)
        return 0;
    if (!(out->owned = util_strdup(text)))
        return util_fail(err, "out of memory");
    char *base = out->owned;
    char *tilde = strrchr(base, '~');
    if (tilde && (out->back = parse_id(tilde + 1)) > 0)
        *tilde = '\0';
    else if (tilde && strcmp(tilde + 1, "0") == 0)
        *tilde = '\0'; /* ~0: the newest itself */
    store_sweep_filter *f = &out->filter;
    if (strcmp(base, "last") == 0)
        return 0;
    if (strchr(base, ':'))
        return parse_prefixed(base, text, f, err);
    if (strchr(base, '/') || ends_with(base, ".lua")) {
        f->script = base;
        return 0;
    }
    if (name_ok(base)) {
        f->name = base;
        return 0;
    }
    return util_fail(err, "'%s' is not a sweep selector: %s", text, selector_forms);
}

/* A file name that scripts in several folders share: -1 with the
 * candidates in *err; 0 when it names one script (or none). */
static int check_one_script(store *s, const sweep_selector *sel, const char *text, char **err)
{
    char **paths = NULL;
    int64_t *newest = NULL;
    size_t count = 0;
    if (store_sweep_scripts_matching(s, &sel->filter, &paths, &newest, &count, err) != 0)
        return -1;
    int rc = 0;
    if (count > 1) {
        strbuf b = { 0 };
        strbuf_printf(&b, "%s: '%s' is ambiguous: %zu scripts of that name have sweeps: ",
                      store_path(s), text, count);
        for (size_t i = 0; i < count; i++)
            strbuf_printf(&b, "%s%s (newest sweep %lld)", i ? ", " : "", paths[i],
                          (long long)newest[i]);
        strbuf_str(&b, "; give its path or a sweep id");
        rc = b.data ? (*err = b.data, -1) : util_fail(err, "out of memory");
    }
    store_free_strings(paths, count);
    free(newest);
    return rc;
}

int selector_resolve(store *s, const sweep_selector *sel, const char *text, int64_t *sweep_id,
                     char **err)
{
    *sweep_id = 0;
    if (sel->id > 0) {
        *sweep_id = sel->id;
        return 0;
    }
    if (sel->filter.script && !strchr(sel->filter.script, '/') &&
        check_one_script(s, sel, text, err) != 0)
        return -1;
    int64_t *ids = NULL;
    size_t count = 0;
    if (store_sweeps_matching(s, &sel->filter, &ids, &count, err) != 0)
        return -1;
    if ((size_t)sel->back < count)
        *sweep_id = ids[sel->back];
    free(ids);
    if (*sweep_id > 0)
        return 0;
    if (count > 0)
        return util_fail(err,
                         "%s: no sweep matches '%s': only %zu sweep%s match%s without "
                         "the ~%lld; 'runner sweeps' lists them",
                         store_path(s), text, count, count == 1 ? "" : "s", count == 1 ? "es" : "",
                         (long long)sel->back);
    return util_fail(err, "%s: no sweep matches '%s'; 'runner sweeps' lists them", store_path(s),
                     text);
}
