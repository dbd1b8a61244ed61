/* RUNNER_BUG: an invariant that, broken, means a bug in runner itself —
 * not bad input, not a failing system call. It prints where and what, and
 * aborts (a core dump and the sanitizers' stack show the rest). Kept in
 * release builds: use it where the check costs nothing beside the work it
 * guards (a comparison), never in a loop over rows. Errors a user can
 * cause go through the ordinary paths (HACKING.md, "Errors"). */
#ifndef RUNNER_BASE_BUG_H
#define RUNNER_BASE_BUG_H

#include <stdio.h>
#include <stdlib.h>

#define RUNNER_BUG_IF(cond, what)                                                                  \
    do {                                                                                           \
        if (cond) {                                                                                \
            fprintf(stderr, "runner: bug: %s (%s:%d, %s); please report it\n", (what), __FILE__,   \
                    __LINE__, #cond);                                                              \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
