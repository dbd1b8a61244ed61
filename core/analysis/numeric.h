/* numeric: one error discipline for the numerical code (GSL). GSL's
 * default handler prints and aborts the process; runner turns it off once,
 * at start-up, and every caller checks GSL's status or the finiteness of
 * what it returns instead (docs/guarantees.md, "Numbers"). */
#ifndef RUNNER_ANALYSIS_NUMERIC_H
#define RUNNER_ANALYSIS_NUMERIC_H

/* Turns GSL's aborting error handler off for the whole process. Called
 * first by cli_main (and by unit tests that use GSL); idempotent and safe
 * to call from several threads. */
void numeric_init(void);

#endif
