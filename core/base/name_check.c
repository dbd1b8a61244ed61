/* name_check: UTF-8, no NUL, no control characters, a length cap. */
#include "name_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "util.h"

int name_check(const char *what, const char *text, size_t len, size_t max_bytes, char **err)
{
    const char *why = NULL;
    size_t nul = strnlen(text, len);
    if (nul < len)
        why = "holds a NUL byte";
    else if (len > max_bytes)
        why = "is too long";
    else if (!util_utf8_valid(text))
        why = "is not valid UTF-8";
    else
        for (size_t i = 0; i < len && !why; i++)
            if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
                why = "holds a control character";
    if (!why)
        return 0;
    /* a long name is shown by its head: the line stays one readable line */
    size_t shown_len = nul > NAME_CHECK_SHOWN ? NAME_CHECK_SHOWN : nul;
    char *head = strndup(text, shown_len);
    char *shown = head ? quote_terminal(head) : NULL;
    char more[48] = "";
    if (shown_len < nul)
        snprintf(more, sizeof more, "... (%zu more bytes)", nul - shown_len);
    util_fail(err,
              "%s '%s%s' %s (names are UTF-8 text without control characters, %zu bytes at "
              "most)",
              what, shown ? shown : "", more, why, max_bytes);
    free(shown);
    free(head);
    return -1;
}
