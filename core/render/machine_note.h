/* machine_note: whether two sweeps ran on different machines or settings
 * (their sweep_machine facts), in the one line runner diff prints. */
#ifndef RUNNER_MACHINE_NOTE_H
#define RUNNER_MACHINE_NOTE_H

#include <stdint.h>

#include "store/store.h"

/* The line diff prints (without "\n"), malloc'd into *line; NULL when the
 * two ran on the same machine with the same settings. 0, or -1 with *err. */
int machine_note_line(store *s, int64_t a, int64_t b, char **line, char **err);

#endif
