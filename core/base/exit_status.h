/* exit_status: the process exit statuses every command shares (docs/cli.md),
 * in a header of their own so that no module includes the CLI to learn them. */
#ifndef RUNNER_EXIT_STATUS_H
#define RUNNER_EXIT_STATUS_H

#define EXIT_OK 0
#define EXIT_POINTS_FAILED 1 /* the sweep ran; some of its points failed */
#define EXIT_DIFFERENT 1     /* diff, verify: the rows differ, or were not reproduced */
#define EXIT_REGRESSION 1    /* history: a change past --tolerance, the worse way */
#define EXIT_NOT_FIT 1       /* machine: something here makes timings noisy */
#define EXIT_USAGE 2         /* bad input or usage; nothing stored was changed */
#define EXIT_NOT_DELIVERED 3 /* --webhook-strict: the summary stays in the outbox */
#define EXIT_PLUGIN_EXITED 4 /* a plugin called exit() in runner's process (exit_guard.h) */
#define EXIT_TAKEN_OVER                                                                            \
    5                        /* another process took the sweep over (fencing): this one
                              * stopped storing; docs/guarantees.md */
#define EXIT_INTERRUPTED 130 /* Ctrl-C or SIGTERM; finished points are stored */

#endif
