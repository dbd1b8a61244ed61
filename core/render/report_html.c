/* report_html: the HTML text that both halves of the report write
 * (report.c, the sweep's page; report_fit.c, its fits): escaped text and
 * gnuplot's SVG inlined with its ids made unique. */
#include <stdio.h>
#include <string.h>

#include "report_int.h"

void report_escape_html(FILE *out, const char *text)
{
    if (!text)
        return;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\n':
        case '\t': fputc(*p, out); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fputs("&#xFFFD;", out);
            else
                fputc(*p, out);
        }
    }
}

/* Writes gnuplot's SVG inline, without the XML prolog, with its ids made
 * unique per plot (several SVGs share one HTML document). */
void report_put_svg(FILE *out, const char *svg, const char *prefix)
{
    const char *start = strstr(svg, "<svg");
    if (!start)
        return;
    static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
    for (const char *p = start; *p;) {
        size_t k = 0, n = 0;
        for (; k < sizeof refs / sizeof refs[0]; k++) {
            n = strlen(refs[k]);
            if (strncmp(p, refs[k], n) == 0)
                break;
        }
        if (k < sizeof refs / sizeof refs[0]) {
            fwrite(p, 1, n, out);
            fputs(prefix, out);
            p += n;
        } else {
            fputc(*p++, out);
        }
    }
}
