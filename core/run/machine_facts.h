/* machine_facts: the facts a sweep records about the machine it runs on:
 * base/machine.c's, the versions of the libraries runner runs on (each
 * from the folder that owns it) and the load; and the one-line warning a
 * measured sweep prints when the machine is not fit to measure on. */
#ifndef RUNNER_MACHINE_FACTS_H
#define RUNNER_MACHINE_FACTS_H

#include "base/machine.h"

/* Reads them into *m (zeroed or cleared): machine_read's facts, then
 * sqlite, lua (lua_version; NULL: unknown), gsl, libcurl_headers and
 * load_start. Returns 0, or -1 when out of memory. */
int machine_facts_read(machine_facts *m, const char *lua_version);

#endif
