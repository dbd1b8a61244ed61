/* budget: one thread-local budget, checked by the loops of long work. */
#include "budget.h"

#include <stdint.h>

#include "util.h"

static _Thread_local budget *current;

void budget_enter(budget *b)
{
    b->state = BUDGET_OK;
    current = b;
}

void budget_leave(void) { current = NULL; }

static budget_state refuse(budget_state why, char **err)
{
    if (current->state == BUDGET_OK)
        current->state = why;
    if (err && !*err)
        util_fail(err, "%s",
                  why == BUDGET_TIME     ? "the script's time ran out (--script-timeout)"
                  : why == BUDGET_MEMORY ? "the script's memory ran out (--script-memory)"
                                         : "interrupted");
    return why;
}

budget_state budget_check(char **err)
{
    if (!current)
        return BUDGET_OK;
    if (current->state != BUDGET_OK)
        return refuse(current->state, err);
    if (current->stop && *current->stop)
        return refuse(BUDGET_STOPPED, err);
    if (current->deadline_s > 0 && util_monotonic() > current->deadline_s)
        return refuse(BUDGET_TIME, err);
    return BUDGET_OK;
}

budget_state budget_spend(size_t bytes, char **err)
{
    if (!current)
        return BUDGET_OK;
    budget_state state = budget_check(err);
    if (state != BUDGET_OK)
        return state;
    if (current->memory_left_bytes != SIZE_MAX) {
        if (bytes > current->memory_left_bytes)
            return refuse(BUDGET_MEMORY, err);
        current->memory_left_bytes -= bytes;
    }
    return BUDGET_OK;
}

budget_state budget_current_state(void) { return current ? current->state : BUDGET_OK; }
