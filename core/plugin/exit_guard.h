/* exit_guard: what runner does when a plugin running in its process calls
 * exit(). exit() cannot be refused, but it runs the handlers registered
 * with atexit/on_exit first, in the thread that called it: one of them marks
 * the sweep failed, tells the user which plugin and point did it, and ends
 * the process with EXIT_PLUGIN_EXITED instead of the plugin's status.
 * _exit() and signals run no handlers: only --isolate contains them
 * (docs/guarantees.md, Plugins). */
#ifndef RUNNER_EXIT_GUARD_H
#define RUNNER_EXIT_GUARD_H

/* Marks the sweep failed in the database from inside exit(), in whatever
 * thread the plugin called it; returns 0, or -1 with *err. It may block
 * until no other thread is inside the store, and need not return the store
 * to anyone: the process ends right after. */
typedef int (*exit_guard_mark_fn)(void *context, char **err);

/* Registers the handler and sets how to mark the sweep while points run:
 * mark(context), or nothing when mark is NULL. Call it before the threads
 * that run plugins start (threads: how many may call exit() at once) and
 * after they are joined: the handler reads it without a lock. */
void exit_guard_watch(exit_guard_mark_fn mark, void *context, int threads);

#endif
