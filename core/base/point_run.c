/* point_run: a command point's runs, in memory (see point_run.h). */
#include "base/point_run.h"

#include <stdlib.h>

int point_runs_append(point_runs *list, point_run *run)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 8;
        point_run *grown = realloc(list->runs, capacity * sizeof *grown);
        if (!grown) {
            free(run->values_json);
            run->values_json = NULL;
            return -1;
        }
        list->runs = grown;
        list->capacity = capacity;
    }
    list->runs[list->count++] = *run;
    run->values_json = NULL;
    return 0;
}

void point_runs_free(point_runs *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->runs[i].values_json);
    free(list->runs);
    free(list);
}
