/* artifact: the list a point leaves behind (see artifact.h). Here, in
 * base/, because every layer that holds such a list frees it: plugin/
 * (host.c), exec/ and run/. */
#include "artifact.h"

#include <stdlib.h>

void artifact_list_free(artifact *list)
{
    while (list) {
        artifact *next = list->next;
        free(list->name);
        free(list->data);
        free(list);
        list = next;
    }
}
