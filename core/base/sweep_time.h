/* sweep_time: the time a --since or --until filter names. */
#ifndef RUNNER_BASE_SWEEP_TIME_H
#define RUNNER_BASE_SWEEP_TIME_H

/* TIME as --since and --until take it, into out as UTC ISO 8601 text that
 * compares with sweep.started_at: a date, a date and time (T or a blank
 * between, an optional Z), or an age before now (90m, 2h, 7d). Returns 0,
 * -1 when text has none of these forms, or -2 when it names a day or time
 * that does not exist (2026-02-30, 25:00). */
int sweep_time_parse(const char *text, char out[32]);

#endif
