/* stop_signals: the signals that ask runner to stop — what a user, a
 * closed terminal or a scheduler sends. Each is handled as SIGTERM: the
 * running points finish or are stopped, what finished is committed, the
 * sweep is marked interrupted and resumable, exit 130
 * (docs/guarantees.md, "Signals"). One list, so the handler, the threads
 * that must not take them and the dashboard's sigwait agree. */
#ifndef RUNNER_BASE_STOP_SIGNALS_H
#define RUNNER_BASE_STOP_SIGNALS_H

#include <signal.h>

/* SIGINT (Ctrl-C), SIGTERM (kill, timeout(1), mpirun), SIGHUP (the
 * terminal or ssh session closed), SIGUSR1 (Slurm's warning before the
 * time limit: sbatch --signal=B:USR1@SECONDS), SIGXCPU (the CPU-time
 * limit, ulimit -t or a scheduler's). */
#define STOP_SIGNALS_COUNT 5
extern const int stop_signals_list[STOP_SIGNALS_COUNT];

/* Empties *set and adds every stop signal. */
void stop_signals_fill(sigset_t *set);

/* "SIGINT", "SIGTERM", ...: a static name, "a signal" for another. */
const char *stop_signals_name(int signo);

#endif
