/* machine_note: whether two sweeps ran on different machines or settings
 * (their sweep_machine facts), in the one line runner diff prints. */
#ifndef RUNNER_MACHINE_NOTE_H
#define RUNNER_MACHINE_NOTE_H

#include <stdint.h>

#include "store/store.h"

/* The facts both sweeps recorded whose values differ and that say the
 * machine or its settings changed (machine_field_is_setting: the load does
 * not), in a's order, joined by ", " into *fields (malloc'd; NULL when
 * there are none). A field only one sweep recorded (a newer runner's) is
 * not compared. *missing: the sweep that recorded no machine at all (a,
 * b, or 0). Returns 0, or -1 with *err. */
int machine_note_fields(store *s, int64_t a, int64_t b, char **fields, int64_t *missing,
                        char **err);
/* The line diff prints (without "\n"), malloc'd into *line; NULL when the
 * two ran on the same machine with the same settings. 0, or -1 with *err. */
int machine_note_line(store *s, int64_t a, int64_t b, char **line, char **err);

#endif
