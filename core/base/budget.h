/* budget: the time and memory a piece of work may still spend, checked
 * inside its loops. A Lua script's built-in analyses (fit{}, pareto{},
 * sensitivity{}) run in C, where Lua's count hook never fires and Lua's
 * allocator sees nothing: the script sets a budget from --script-timeout and
 * --script-memory before the call, and the analysis loops check it, so an
 * analysis counts toward the script's limits (docs/guarantees.md, "The
 * script's limits"). One budget per thread, set around one call; with none
 * set every check passes. */
#ifndef RUNNER_BASE_BUDGET_H
#define RUNNER_BASE_BUDGET_H

#include <signal.h>
#include <stddef.h>

typedef enum budget_state {
    BUDGET_OK = 0,
    BUDGET_TIME,   /* the deadline passed */
    BUDGET_MEMORY, /* more bytes asked for than were left */
    BUDGET_STOPPED /* a stop signal arrived */
} budget_state;

typedef struct budget {
    double deadline_s;                 /* util_monotonic() past which work stops; 0: none */
    size_t memory_left_bytes;          /* SIZE_MAX: no limit */
    const volatile sig_atomic_t *stop; /* Ctrl-C and the other stop signals; may be NULL */
    budget_state state;                /* the first refusal, kept */
} budget;

/* Makes b this thread's budget until budget_leave; b stays the caller's. */
void budget_enter(budget *b);
void budget_leave(void);

/* BUDGET_OK while this thread's budget has time left (or none is set);
 * else the reason, with *err set to one line naming it (the caller owns
 * it). Cheap: call it once a row or an iteration. */
budget_state budget_check(char **err);

/* Charges bytes about to be allocated: BUDGET_OK, or BUDGET_MEMORY with
 * *err set when they exceed what is left (and the time checks of
 * budget_check). */
budget_state budget_spend(size_t bytes, char **err);

/* The state of this thread's budget: BUDGET_OK when none is set. */
budget_state budget_current_state(void);

#endif
