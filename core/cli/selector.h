/* selector: which sweep a SWEEP argument means, one grammar for every
 * command (docs/cli.md, "Selecting sweeps"), and what a sweep name or tag
 * may be, so that a name can never be read as anything else:
 *
 *   42               the sweep with that id
 *   last, last~N     the newest sweep; the Nth before it
 *   NAME             the newest sweep of that name (a name starts with a letter
 *                    and has no '/', ':' or '~', and does not end in .lua)
 *   FILE.lua, PATH   the newest sweep of a script: by file name, or (with a '/')
 *                    by the path it was run as
 *   tag:T, plugin:P  the newest sweep with tag T; with a section of plugin P
 *   name:NAME, script:FILE  the same as the bare forms, spelled out
 * Any selector but an id takes ~N: the Nth match before the newest. */
#ifndef RUNNER_SELECTOR_H
#define RUNNER_SELECTOR_H

#include <stdint.h>

#include "store/store.h"

typedef struct sweep_selector {
    int64_t id;                /* an id selector, else 0 */
    int64_t back;              /* ~N, else 0 */
    store_sweep_filter filter; /* the others; all NULL for last */
    char *owned;               /* the text the filter points into */
} sweep_selector;

/* Parses text. Returns 0, or -1 with *err saying what a selector may be.
 * Clear out with selector_clear (also after a failure). */
int selector_parse(const char *text, sweep_selector *out, char **err);
void selector_clear(sweep_selector *sel);

/* The one sweep sel means in s: 0 with *sweep_id (an id selector is
 * returned as given: the caller says when no such sweep exists), or -1
 * with *err: "<db>: no sweep matches 'TEXT'; ..." or, for a file name that
 * several scripts share, "<db>: 'TEXT' is ambiguous: ..." with each
 * candidate. text is the selector as typed, for the messages. */
int selector_resolve(store *s, const sweep_selector *sel, const char *text, int64_t *sweep_id,
                     char **err);

/* 0 when name may name a sweep, tag tag one; else -1 with *err saying
 * what is allowed. option is the flag or command that gave it. */
int selector_check_name(const char *option, const char *name, char **err);
int selector_check_tag(const char *option, const char *tag, char **err);

#endif
