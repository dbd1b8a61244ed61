/* quote: text escaped for its destination (see quote.h). */
#include "quote.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void quote_shell_word(strbuf *out, const char *text)
{
    strbuf_add(out, "'", 1);
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            strbuf_str(out, "'\\''");
        else
            strbuf_add(out, p, 1);
    }
    strbuf_add(out, "'", 1);
}

void quote_shell_word_readable(strbuf *out, const char *text)
{
    size_t plain = strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_./:=@+,-");
    if (*text && !text[plain])
        strbuf_str(out, text);
    else
        quote_shell_word(out, text);
}

int quote_has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* 1 when sbatch reads text as it is: nothing to quote, nothing Slurm
 * expands (ordinary names and paths keep their plain form). */
static int sbatch_plain(const char *text)
{
    if (!*text)
        return 0;
    for (const char *p = text; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.:/@+,=-", *p))
            return 0;
    return 1;
}

int quote_sbatch_value(strbuf *out, const char *text, int filename)
{
    if (quote_has_control(text) || (filename && strchr(text, '\\')))
        return -1;
    if (sbatch_plain(text)) {
        strbuf_str(out, text);
        return 0;
    }
    strbuf_add(out, "\"", 1);
    for (const char *p = text; *p; p++) {
        if (*p == '\\' || *p == '"')
            strbuf_add(out, "\\", 1);
        else if (filename && *p == '%')
            strbuf_add(out, "%", 1);
        strbuf_add(out, p, 1);
    }
    strbuf_add(out, "\"", 1);
    return 0;
}

char *quote_terminal(const char *text)
{
    const char *s = text ? text : "";
    size_t len = strlen(s), kept = len;
    if (len > QUOTE_TERMINAL_MAX_BYTES) {
        kept = QUOTE_TERMINAL_MAX_BYTES;
        while (kept > 0 && ((unsigned char)s[kept] & 0xC0) == 0x80)
            kept--; /* not inside a UTF-8 character */
    }
    char *head = kept < len ? strndup(s, kept) : NULL;
    if (kept < len && !head)
        return NULL;
    /* each byte becomes at most 4 (\xNN); util_printable keeps 5 spare */
    size_t size = 4 * kept + 6 + 48;
    char *buf = malloc(size);
    if (buf) {
        util_printable(head ? head : s, buf, size - 48);
        if (kept < len)
            snprintf(buf + strlen(buf), 48, "... (%zu more bytes)", len - kept);
    }
    free(head);
    return buf;
}
