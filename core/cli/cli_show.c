/* cli_show: the commands that read what is stored or installed — `runner
 * plugins`, `sweeps`, `show`, `plot` and `report`. Drawing and the HTML
 * page are plot.c's and report.c's; this file finds what to draw and where
 * to write it. */
#include "base/exit_status.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/strbuf.h"
#include "base/table.h"
#include "base/util.h"
#include "base/value.h"
#include "plugin/plugin.h"
#include "render/render.h"
#include "store/store.h"

static const char *type_label(runner_type t) { return value_type_name(t); }

static int describe_plugin(const loaded_plugin *lp)
{
    const runner_plugin *p = lp->desc;
    printf("%s %s: %s\n  file: %s\n  sha256: %s\n", p->name, p->version, p->summary, lp->path,
           lp->sha256);
    if (plugin_flags(p) & RUNNER_PLUGIN_COLLECTIVE)
        printf("  collective: under MPI every rank runs each point together (docs/mpi.md)\n");
    printf("\n");
    int width = 8;
    for (uint32_t i = 0; i < p->param_count; i++)
        if ((int)strlen(p->params[i].name) > width)
            width = (int)strlen(p->params[i].name);
    for (uint32_t i = 0; i < p->column_count; i++)
        if ((int)strlen(p->columns[i].name) > width)
            width = (int)strlen(p->columns[i].name);
    printf("parameters:\n");
    for (uint32_t i = 0; i < p->param_count; i++) {
        const runner_param *q = &p->params[i];
        char def[128], range[128] = "";
        value d = param_default(q);
        value_format(&d, 15, def, sizeof def);
        value_clear(&d);
        if (q->type == RUNNER_INTEGER || q->type == RUNNER_REAL) {
            param_describe_range(q, range, sizeof range);
        } else if (q->type == RUNNER_TEXT && q->choices) {
            size_t used = 0;
            for (const char *const *c = q->choices; *c && used < sizeof range - 2; c++) {
                int n = snprintf(range + used, sizeof range - used, "%s%s", used ? "|" : "", *c);
                if (n > 0)
                    used += (size_t)n;
            }
        }
        printf("  %-*s  %-8s %-12s default %-10s %-22s %s\n", width, q->name, type_label(q->type),
               *q->unit ? q->unit : "-", def, range, q->doc);
    }
    printf("\ncolumns:\n");
    for (uint32_t i = 0; i < p->column_count; i++) {
        const runner_column *c = &p->columns[i];
        printf("  %-*s  %-8s %-12s %s\n", width, c->name, type_label(c->type),
               *c->unit ? c->unit : "-", c->doc);
    }
    return EXIT_OK;
}

int cli_show_plugins(const options_parsed *a)
{
    plugin_registry *reg = NULL;
    char *err = NULL;
    if (plugin_registry_open(a->values[OPTION_PLUGIN_DIR].list, &reg, &err) != 0)
        return cli_fail(err);
    int status = EXIT_OK;
    if (a->positional) {
        const loaded_plugin *lp = plugin_registry_get(reg, a->positional, &err);
        status = lp ? describe_plugin(lp) : cli_fail(err);
    } else {
        for (size_t i = 0; i < plugin_registry_count(reg); i++) {
            const loaded_plugin *lp = plugin_registry_at(reg, i);
            printf("%-14s %-8s %s\n%-14s file: %s\n", lp->desc->name, lp->desc->version,
                   lp->desc->summary, "", lp->path);
        }
        for (size_t i = 0; i < plugin_registry_error_count(reg); i++)
            cli_error("%s", plugin_registry_error(reg, i));
        if (plugin_registry_error_count(reg) > 0)
            status = EXIT_USAGE;
        else if (plugin_registry_count(reg) == 0) {
            cli_error("no plugins found; searched %s", plugin_registry_search_path(reg));
            status = EXIT_USAGE;
        }
    }
    plugin_registry_free(reg);
    return status;
}

static output_format format_option(const options_parsed *a)
{
    output_format format = OUTPUT_TABLE;
    output_parse_format(a->values[OPTION_FORMAT].text, &format);
    return format;
}

/* runner sweeps [filters]: one line per sweep, oldest first. */
int cli_show_sweeps(const options_parsed *a)
{
    store *s = NULL;
    table *t = NULL;
    char *err = NULL, since[32], until[32];
    store_sweep_filter filter;
    int status = cli_sweep_filter(a, &filter, since, until);
    const char *select = a->values[OPTION_SWEEPS_SELECT].text;
    int64_t id;
    int last;
    if (status == EXIT_OK && select)
        status = options_resolve_sweep(a->command, select, 1, &id, &last);
    if (status != EXIT_OK || (status = cli_open_existing(a->db_path, &s, 0)) != EXIT_OK)
        return status;
    /* --select: the one sweep a selector picks, as every SWEEP argument
     * resolves it, so programs need not re-implement selectors. */
    if (select && (status = cli_resolve_sweep(s, select, &filter.id)) != EXIT_OK) {
        store_close(s);
        return status;
    }
    if (store_list_sweeps_matching(s, &filter, &t, &err) != 0)
        status = cli_fail(err);
    else if (select && t->row_count == 0) {
        cli_error("%s: no sweep %s; 'runner sweeps' lists them", a->db_path, select);
        status = EXIT_USAGE;
    } else if (table_view_print(stdout, t, format_option(a),
                                output_terminal_width(stdout, a->values[OPTION_SHOW_WIDE].given)) !=
               0)
        status = cli_fail(util_format("cannot print the sweeps: out of memory or output closed"));
    table_free(t);
    store_close(s);
    return status;
}

/* The aligned table's view of a section (section_view.h): the order of its
 * columns and its folded line, from the facts of every row. */
typedef struct show_view {
    table_facts facts;
    section_view view;
    char **folded; /* "name = value unit" per folded column */
    int *digits;   /* per column, a real's significant digits (table_view.h) */
} show_view;

static void show_view_clear(show_view *v)
{
    section_view_free_settings(v->folded, v->view.folded_count);
    section_view_clear(&v->view);
    free(v->digits);
    table_facts_clear(&v->facts);
}

static int show_view_make(show_view *v, const table *cols, const char *plugin)
{
    if (section_view_init(&v->view, cols, &v->facts, plugin) != 0)
        return -1;
    v->folded = section_view_settings(&v->view, cols, &v->facts);
    v->digits = calloc(cols->column_count ? cols->column_count : 1, sizeof *v->digits);
    return v->folded && v->digits ? 0 : -1;
}

/* Streams the rows of cursor to out in format, `cols` describing them:
 * CSV and JSON in one pass; the aligned table in two, the first for the
 * column widths and the facts the section's view is made of (which columns
 * vary: section_view.h), fitted to max_width characters (0: no limit).
 * Memory stays the same whatever the row count. */
static int stream_rows(FILE *out, store *s, int64_t section_id, store_cursor *cursor,
                       const table *cols, const char *plugin, output_format format,
                       size_t max_width, value *row, char **err)
{
    store_cursor *shown_cursor = NULL;
    output_text_layout layout;
    show_view view = { 0 };
    size_t count = 0;
    int rc = 0;
    if (format == OUTPUT_TABLE) {
        if (output_text_layout_init(&layout, cols) != 0 ||
            table_facts_init(&view.facts, cols->column_count) != 0)
            return util_fail(err, "out of memory");
        store_row_key key;
        while ((rc = store_cursor_next(cursor, row, &key, err)) == 1) {
            output_text_layout_note(&layout, row);
            output_text_layout_widen(&layout, row);
            if (table_facts_add(&view.facts, row, (facts_where){ key.point_id, key.row_id }) != 0)
                rc = util_fail(err, "out of memory");
            for (size_t c = 0; c < cols->column_count; c++)
                value_clear(&row[c]);
            if (rc < 0)
                break;
        }
        if (rc == 0 && show_view_make(&view, cols, plugin) != 0)
            rc = util_fail(err, "out of memory");
        if (rc == 0) {
            table_view_layout_digits(&layout, &view.facts, view.digits);
            output_text_layout_set_view(&layout, view.view.shown, view.view.shown_count,
                                        (const char *const *)view.folded, view.view.folded_count,
                                        max_width);
            output_text_layout_print_head(out, &layout);
            /* The second pass reads only the columns printed (about half). */
            unsigned char *wanted = calloc(cols->column_count, 1);
            for (size_t i = 0; wanted && i < layout.fitted; i++)
                wanted[layout.order[i]] = 1;
            if (wanted && store_cursor_open_some(s, section_id, plugin, cols, wanted, &shown_cursor,
                                                 err) == 0)
                cursor = shown_cursor;
            else
                rc = wanted ? -1 : util_fail(err, "out of memory");
            free(wanted);
        }
    } else if (format == OUTPUT_CSV) {
        output_csv_header(out, cols);
    } else if (output_json_begin(out, cols) != 0) {
        return util_fail(err, "out of memory");
    }
    rc = rc < 0 ? -1 : 0;
    while (rc == 0 && (rc = store_cursor_next(cursor, row, NULL, err)) == 1) {
        if (format == OUTPUT_TABLE)
            output_text_layout_print_row(out, &layout, row);
        else if (format == OUTPUT_CSV)
            output_csv_row(out, cols, row);
        else if (output_json_row(out, cols, row, count) != 0)
            rc = util_fail(err, "out of memory");
        count++;
        for (size_t c = 0; c < cols->column_count; c++)
            value_clear(&row[c]);
        rc = rc < 0 ? rc : 0;
    }
    store_cursor_close(shown_cursor);
    if (format == OUTPUT_TABLE) {
        output_text_layout_clear(&layout);
        show_view_clear(&view);
    } else if (format == OUTPUT_JSON && rc == 0) {
        output_json_end(out, count);
    }
    return rc;
}

int cli_show_section(store *s, int64_t section_id, output_format format, size_t max_width,
                     FILE *out, char **err)
{
    table *cols = NULL;
    char *plugin = NULL;
    store_cursor *cursor = NULL;
    value *row = NULL;
    if (store_section_columns(s, section_id, &cols, &plugin, err) != 0)
        return -1;
    int rc = 0;
    if (cols->column_count == 0) /* nothing recorded for the plugin: no rows to show */
        output_table(out, cols, format);
    else if (!(row = calloc(cols->column_count, sizeof *row)))
        rc = util_fail(err, "out of memory");
    else if ((rc = store_cursor_open(s, section_id, plugin, cols, NULL, NULL, 0, &cursor, err)) ==
             0)
        rc = stream_rows(out, s, section_id, cursor, cols, plugin, format, max_width, row, err);
    store_cursor_close(cursor);
    free(row);
    free(plugin);
    table_free(cols);
    return rc;
}

/* show --runs: one section's runs. */
static int show_runs(store *s, int64_t section_id, output_format format, size_t max_width,
                     char **err)
{
    table *cols = NULL;
    char *plugin = NULL;
    int rc = cli_runs_columns(s, section_id, &cols, &plugin, err);
    if (rc == 0)
        rc = cli_show_runs_section(s, section_id, cols, (int)format, max_width, stdout, err);
    table_free(cols);
    free(plugin);
    return rc;
}

/* runner show SWEEP [--section N]: each section's table, one after another.
 * One CSV holds one table: several sections as CSV are refused with where
 * to go instead (--section, runner export). */
int cli_show_rows(const options_parsed *a)
{
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0, first = 0;
    int status = cli_open_sweep(a, &s, &sweep_id, &ids, &count);
    if (status != EXIT_OK)
        return status;
    output_format format = format_option(a);
    size_t max_width = output_terminal_width(stdout, a->values[OPTION_SHOW_WIDE].given);
    const option_value *section = &a->values[OPTION_SHOW_SECTION];
    if (a->values[OPTION_SHOW_PROVENANCE].given) {
        status = section->given ? options_usage_error("show: --provenance prints the sweep's "
                                                      "record, not a section's rows; drop %s",
                                                      "--section")
                                : cli_show_provenance(s, sweep_id, format, max_width);
        free(ids);
        store_close(s);
        return status;
    }
    if (section->given && section->integer > count) {
        cli_error("show: sweep %lld has %zu section%s; --section %llu is out of "
                  "range",
                  (long long)sweep_id, count, count == 1 ? "" : "s",
                  (unsigned long long)section->integer);
        status = EXIT_USAGE;
    } else if (section->given) {
        first = (size_t)section->integer - 1;
        count = first + 1;
    } else if (format == OUTPUT_CSV && count > 1) {
        cli_error("show %s --format csv: sweep %lld has %zu sections and one CSV "
                  "holds one table; choose one with --section N, or write a file per section "
                  "with 'runner export %lld'",
                  a->positional, (long long)sweep_id, count, (long long)sweep_id);
        status = EXIT_USAGE;
    }
    /* To a pipe or a file, write in 64 kB pieces (stdio's default there is
     * 4 kB: a write(2) every 15 rows). glibc ignores the size unless it is
     * given the buffer; static, as stdout outlives this function. Nothing
     * is on stdout yet. */
    static char stdout_buffer[1 << 16];
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
    if (format == OUTPUT_JSON && status == EXIT_OK)
        printf("[\n");
    for (size_t i = first; i < count && status == EXIT_OK; i++) {
        char *err = NULL;
        if (format == OUTPUT_JSON && i > first)
            printf(",\n");
        if ((a->values[OPTION_SHOW_RUNS].given
                 ? show_runs(s, ids[i], format, max_width, &err)
                 : cli_show_section(s, ids[i], format, max_width, stdout, &err)) != 0) {
            fflush(stdout);
            status = cli_fail(err);
            break;
        }
        if (format == OUTPUT_TABLE && i + 1 < count)
            printf("\n");
    }
    if (format == OUTPUT_JSON && status == EXIT_OK)
        printf("]\n");
    free(ids);
    store_close(s);
    return status;
}

/* Why no section of the sweep can be drawn: a column no section has (with
 * every column the sweep has), a section with the columns but wrong types,
 * or no section with them together. Printed on stderr. */
static void explain_no_section(table *const *tables, size_t first, size_t last, int64_t sweep_id,
                               const plot_spec *spec)
{
    char *err = NULL;
    const char *names[3] = { spec->x, spec->y, spec->by };
    for (int n = 0; n < 3; n++) {
        if (!names[n])
            continue;
        size_t i = first;
        while (i < last && table_find_column(tables[i], names[n]) < 0)
            i++;
        if (i < last)
            continue;
        table *all = table_new(NULL);
        for (size_t k = first; all && k < last; k++)
            for (size_t c = 0; c < tables[k]->column_count; c++)
                if (table_find_column(all, tables[k]->columns[c].name) < 0)
                    table_add_column(all, tables[k]->columns[c].name, "", RUNNER_REAL, 0);
        plot_spec missing = { .x = names[n], .y = names[n] };
        if (all)
            plot_check_spec(all, &missing, &err);
        cli_error("sweep %lld has %s", (long long)sweep_id, err ? err : "missing columns");
        table_free(all);
        free(err);
        return;
    }
    for (size_t i = first; i < last; i++) {
        if (table_find_column(tables[i], spec->x) >= 0 &&
            table_find_column(tables[i], spec->y) >= 0 &&
            (!spec->by || table_find_column(tables[i], spec->by) >= 0)) {
            plot_check_spec(tables[i], spec, &err);
            cli_error("sweep %lld, section %zu (%s): %s", (long long)sweep_id, i + 1,
                      tables[i]->title ? tables[i]->title : "", err ? err : "");
            free(err);
            return;
        }
    }
    cli_error("no section of sweep %lld has all of %s, %s%s%s; 'runner show %lld' "
              "prints each section's columns",
              (long long)sweep_id, spec->x, spec->y, spec->by ? ", " : "", spec->by ? spec->by : "",
              (long long)sweep_id);
}

/* *out: the columns x, y and by of every row of the section. */
/* The --pareto objectives, at most this many. */
#define PARETO_MAX 8

/* pre not NULL (no --pareto, which marks rows of the whole table): only
 * the rows the picture draws (plot_load.h), described in *pre. */
static int load_plotted(store *s, int64_t section_id, const table *cols, const plot_spec *spec,
                        const char *const *extra, size_t extra_count, plot_preload *pre,
                        table **out)
{
    char *plugin = NULL, *err = NULL;
    table *again = NULL;
    const char *names[3 + PARETO_MAX] = { spec->x, spec->y, spec->by };
    size_t count = 3;
    for (size_t i = 0; i < extra_count && i < PARETO_MAX; i++)
        if (table_find_column(cols, extra[i]) >= 0) /* plot_pareto_mark names the others */
            names[count++] = extra[i];
    int rc = store_section_columns(s, section_id, &again, &plugin, &err);
    if (rc == 0 && pre)
        rc = plot_load_section(s, section_id, plugin, cols, spec, out, pre, &err);
    else if (rc == 0)
        rc = section_columns_load(s, section_id, plugin, cols, names, count, out, &err);
    table_free(again);
    free(plugin);
    return rc == 0 ? EXIT_OK : cli_fail(err);
}

/* Picks the section to draw: --section N, or the first whose table has the
 * columns. On success *out is that table (caller frees). */
static int pick_section(store *s, int64_t sweep_id, const int64_t *ids, size_t count,
                        uint64_t section, const plot_spec *spec, const char *const *extra,
                        size_t extra_count, plot_preload *pre, table **out, size_t *ordinal)
{
    *out = NULL;
    table **tables = calloc(count, sizeof *tables);
    char *err = NULL;
    int status = EXIT_USAGE;
    if (!tables)
        return cli_fail(NULL);
    size_t first = 0, last = count;
    if (section > 0) {
        if (section > count) {
            cli_error("plot: sweep %lld has %zu section%s; --section %llu is out of "
                      "range",
                      (long long)sweep_id, count, count == 1 ? "" : "s",
                      (unsigned long long)section);
            goto done;
        }
        first = (size_t)section - 1;
        last = first + 1;
    }
    /* The columns first; the rows (of the plotted columns only) once the
     * section is known. */
    for (size_t i = first; i < last; i++) {
        char *plugin = NULL;
        int rc = store_section_columns(s, ids[i], &tables[i], &plugin, &err);
        free(plugin);
        if (rc != 0) {
            cli_error("%s", err);
            goto done;
        }
    }
    /* The first section with every column, and x and y numeric. */
    for (size_t i = first; i < last; i++) {
        if (plot_check_spec(tables[i], spec, NULL) == 0) {
            status = load_plotted(s, ids[i], tables[i], spec, extra, extra_count, pre, out);
            *ordinal = i + 1;
            goto done;
        }
    }
    if (section > 0) {
        plot_check_spec(tables[first], spec, &err);
        cli_error("sweep %lld, section %llu (%s): %s", (long long)sweep_id,
                  (unsigned long long)section, tables[first]->title ? tables[first]->title : "",
                  err ? err : "");
        goto done;
    }
    explain_no_section(tables, first, last, sweep_id, spec);
done:
    for (size_t i = 0; i < count; i++)
        table_free(tables[i]);
    free(tables);
    free(err);
    return status;
}

/* A new file renamed over path (outfile.h): never written through a link
 * planted there, never blocked by a FIFO. */
static int write_file(const char *path, const void *data, size_t size)
{
    char *err = NULL;
    return outfile_write_path(path, data, size, 0666, &err) == 0 ? EXIT_OK : cli_fail(err);
}

/* Draws t to the file output, noting on stderr the rows left out. */
int cli_plot_draw(const table *t, const plot_spec *spec, plot_format format, const char *output)
{
    plot_image image;
    char *err = NULL;
    if (plot_render(t, spec, format, &image, &err) != 0) {
        plot_image_free(&image);
        return cli_fail(err ? err : util_strdup("plot failed"));
    }
    char *note = plot_skip_note(spec, &image);
    if (note)
        cli_error("plot: %s", note);
    free(note);
    note = plot_reduce_note(&image.reduced, spec->by);
    if (note)
        cli_error("plot: %s", note);
    free(note);
    int status = write_file(output, image.data, image.size);
    plot_image_free(&image);
    return status;
}

/* The sweep argument is checked first, so its message comes before any
 * other; the sweep is found later, once the rest is known to be right. */
static int check_sweep_argument(const options_parsed *a)
{
    int64_t id;
    int last;
    return options_resolve_sweep(a->command, a->positional, 1, &id, &last);
}

/* The default plot of one section (section_view.h) into *out; 1 when it
 * has one, 0 when not (why says why), -1 on a read error (printed). */
static int section_default_plot(store *s, int64_t section_id, plot_spec *out, char *owned[3],
                                char *why, size_t why_size, char **title)
{
    table *cols = NULL;
    char *plugin = NULL, *err = NULL;
    table_facts facts = { 0 };
    section_view view = { 0 };
    int rc = store_section_columns(s, section_id, &cols, &plugin, &err) == 0 &&
                     section_view_read_facts(s, section_id, plugin, cols, &facts, &err) == 0 &&
                     (section_view_init(&view, cols, &facts, plugin) == 0 ||
                      util_fail(&err, "out of memory") == 0)
                 ? 0
                 : -1;
    if (rc == 0 && section_view_plot(&view, cols, out) == 0) {
        owned[0] = util_strdup(out->x);
        owned[1] = util_strdup(out->y);
        owned[2] = out->by ? util_strdup(out->by) : NULL;
        out->x = owned[0];
        out->y = owned[1];
        out->by = owned[2];
        rc = 1;
    } else if (rc == 0) {
        snprintf(why, why_size, "%s", view.why);
        *title = util_strdup(cols->title ? cols->title : "");
    } else {
        cli_error("%s", err ? err : "out of memory");
    }
    section_view_clear(&view);
    table_facts_clear(&facts);
    table_free(cols);
    free(plugin);
    free(err);
    return rc;
}

/* Fills the axes --x and --y left open from the default plot of the section
 * --section names, else of the first section that has one (*section is then
 * its number); --by and the log scales come with it when neither axis was
 * given. owned[] keeps the names (the caller frees them). */
static int default_axes(const options_parsed *a, store *s, int64_t sweep_id, const int64_t *ids,
                        size_t count, uint64_t *section, plot_spec *spec, char *owned[3])
{
    size_t first = 0, last = count;
    if (*section > 0) {
        if (*section > count) /* pick_section says so */
            return EXIT_OK;
        first = (size_t)*section - 1;
        last = first + 1;
    }
    char why[200] = "", *title = NULL;
    for (size_t i = first; i < last; i++) {
        plot_spec found = { 0 };
        char reason[200] = "";
        char *section_title = NULL;
        int rc =
            section_default_plot(s, ids[i], &found, owned, reason, sizeof reason, &section_title);
        if (rc < 0) {
            free(title);
            return EXIT_USAGE;
        }
        if (rc == 1) {
            int neither = !spec->x && !spec->y;
            if (!spec->x) {
                spec->x = found.x;
                spec->logx |= found.logx;
            }
            if (!spec->y) {
                spec->y = found.y;
                spec->logy |= found.logy;
            }
            if (neither && !a->values[OPTION_BY].given)
                spec->by = found.by;
            *section = i + 1;
            free(title);
            return EXIT_OK;
        }
        if (!title) {
            snprintf(why, sizeof why, "section %zu (%s): %s", i + 1, section_title, reason);
            title = section_title;
        } else {
            free(section_title);
        }
    }
    if (last - first == 1)
        cli_error("plot: sweep %lld, %s; nothing to draw by default: choose --x and "
                  "--y",
                  (long long)sweep_id, why);
    else
        cli_error("plot: no section of sweep %lld has a default plot (%s); choose "
                  "--section N with --x and --y",
                  (long long)sweep_id, why);
    free(title);
    return EXIT_USAGE;
}

/* --fit ID|latest: the fit id (0: latest), or -1 after saying why. */
static int64_t fit_argument(const char *text)
{
    if (strcmp(text, "latest") == 0)
        return 0;
    char *end = NULL;
    errno = 0;
    long long id = strtoll(text, &end, 10);
    if (text[0] >= '1' && text[0] <= '9' && *end == '\0' && errno == 0)
        return id;
    options_usage_error("plot: --fit %s: expected a fit id (runner fit prints it) or latest", text);
    return -1;
}

/* Takes the plot's section and columns from the fits unless given, and
 * refuses given ones that differ (the curve would not be of these points). */
static int fit_defaults(const plot_fit_set *fits, int64_t sweep_id, const int64_t *ids,
                        size_t count, uint64_t *section, plot_spec *spec, int by_given)
{
    size_t ordinal = 0;
    for (size_t i = 0; i < count; i++)
        if (ids[i] == fits->section_id)
            ordinal = i + 1;
    const char *x = spec->x ? spec->x : fits->x, *y = spec->y ? spec->y : fits->y;
    if ((*section && *section != ordinal) || strcmp(x, fits->x) != 0 || strcmp(y, fits->y) != 0) {
        cli_error("plot: fit %lld is of sweep %lld, section %zu, %s against %s; leave out "
                  "--section, --x and --y or give those",
                  (long long)fits->first_id, (long long)sweep_id, ordinal, fits->y, fits->x);
        return EXIT_USAGE;
    }
    *section = ordinal;
    spec->x = fits->x;
    spec->y = fits->y;
    if (!by_given)
        spec->by = fits->by;
    spec->curves = fits->curves;
    spec->curve_count = fits->count;
    return EXIT_OK;
}

/* --pareto: marks the front's rows of t in spec (*marked is the caller's). */
static int mark_front(const table *t, const char *const *names, const int *maximize, size_t k,
                      plot_spec *spec, unsigned char **marked, char **title)
{
    size_t front = 0, excluded = 0;
    char *err = NULL;
    if (plot_pareto_mark(t, names, maximize, k, marked, &front, &excluded, &err) != 0) {
        cli_error("plot: %s", err ? err : "out of memory");
        free(err);
        return EXIT_USAGE;
    }
    strbuf b = { 0 };
    strbuf_printf(&b, "front (");
    for (size_t j = 0; j < k; j++)
        strbuf_printf(&b, "%s%s %s", j ? ", " : "", maximize[j] ? "max" : "min", names[j]);
    strbuf_printf(&b, "): %zu of %zu rows", front, t->row_count);
    if (b.oom)
        return cli_fail(NULL);
    if (excluded)
        cli_error("plot: --pareto: %zu rows with NaN excluded", excluded);
    spec->marked = *marked;
    spec->marked_title = *title = b.data;
    return EXIT_OK;
}

int cli_show_plot(const options_parsed *a)
{
    const option_value *v = a->values;
    const char *output = v[OPTION_PLOT_OUTPUT].text;
    plot_spec spec = { .x = v[OPTION_X].text,
                       .y = v[OPTION_Y].text,
                       .by = v[OPTION_BY].text,
                       .logx = v[OPTION_LOGX].given,
                       .logy = v[OPTION_LOGY].given };
    int status = check_sweep_argument(a);
    if (status != EXIT_OK)
        return status;
    plot_format format;
    if (!output)
        return options_usage_error("%s", "plot needs -o FILE.svg or -o FILE.png");
    if (plot_format_from_path(output, &format) != 0)
        return options_usage_error("plot: -o %s: expected a file name ending in .svg or .png",
                                   output);
    int64_t fit_id = v[OPTION_PLOT_FIT].text ? fit_argument(v[OPTION_PLOT_FIT].text) : -1;
    if (v[OPTION_PLOT_FIT].text && fit_id < 0)
        return EXIT_USAGE;
    const char *objectives[PARETO_MAX];
    int maximize[PARETO_MAX];
    char *pareto_copy = NULL, *err = NULL, *front_title = NULL;
    unsigned char *marked = NULL;
    int k = 0;
    if (v[OPTION_PLOT_PARETO].text &&
        (k = plot_pareto_parse(v[OPTION_PLOT_PARETO].text, &pareto_copy, objectives, maximize,
                               PARETO_MAX, &err)) < 0) {
        free(pareto_copy);
        int usage = options_usage_error("plot: %s", err ? err : "out of memory");
        free(err);
        return usage;
    }
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0, ordinal = 0;
    table *t = NULL;
    plot_fit_set fits = { 0 };
    if ((status = cli_open_sweep(a, &s, &sweep_id, &ids, &count)) != EXIT_OK) {
        free(pareto_copy);
        return status;
    }
    if (v[OPTION_PLOT_SERIES].text) { /* cli_series.c */
        table *series = NULL;
        status = cli_series_table(s, sweep_id, v[OPTION_PLOT_SERIES].text, &series, &spec);
        if (status == EXIT_OK)
            status = cli_plot_draw(series, &spec, format, output);
        table_free(series);
        free(ids);
        store_close(s);
        free(pareto_copy);
        return status;
    }
    uint64_t section = v[OPTION_SECTION].given ? v[OPTION_SECTION].integer : 0;
    char *owned[3] = { NULL, NULL, NULL };
    if (fit_id >= 0) {
        if (plot_fit_load(s, sweep_id, fit_id, spec.logx, &fits, &err) != 0) {
            cli_error("plot: %s", err ? err : "out of memory");
            status = EXIT_USAGE;
        } else {
            status = fit_defaults(&fits, sweep_id, ids, count, &section, &spec, v[OPTION_BY].given);
        }
    }
    if (status == EXIT_OK && (!spec.x || !spec.y))
        status = default_axes(a, s, sweep_id, ids, count, &section, &spec, owned);
    plot_preload preload;
    if (status == EXIT_OK)
        status = pick_section(s, sweep_id, ids, count, section, &spec, objectives, (size_t)k,
                              k > 0 ? NULL : &preload, &t, &ordinal);
    if (status == EXIT_OK && k == 0)
        spec.preload = &preload;
    free(ids);
    store_close(s);
    if (status == EXIT_OK && k > 0)
        status = mark_front(t, objectives, maximize, (size_t)k, &spec, &marked, &front_title);
    char *default_title = NULL;
    if (status == EXIT_OK) {
        default_title = util_format("%s\n(sweep %lld, section %zu)", t->title ? t->title : "",
                                    (long long)sweep_id, ordinal);
        spec.title = v[OPTION_TITLE].text ? v[OPTION_TITLE].text : default_title;
        status = cli_plot_draw(t, &spec, format, output);
    }
    free(default_title);
    for (int i = 0; i < 3; i++)
        free(owned[i]);
    table_free(t);
    plot_fit_set_clear(&fits);
    free(marked);
    free(front_title);
    free(pareto_copy);
    free(err);
    return status;
}

int cli_show_report(const options_parsed *a)
{
    const char *output = a->values[OPTION_REPORT_OUTPUT].text;
    int status = check_sweep_argument(a);
    if (status != EXIT_OK)
        return status;
    if (!output)
        return options_usage_error("%s", "report needs -o FILE.html");
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0, html_size = 0;
    char *html = NULL, *err = NULL;
    int gnuplot_missing = 0;
    if ((status = cli_open_sweep(a, &s, &sweep_id, &ids, &count)) != EXIT_OK)
        return status;
    if (report_render(s, a->db_path, sweep_id, ids, count, &html, &html_size, &gnuplot_missing,
                      &err) != 0)
        status = cli_fail(err);
    else
        status = write_file(output, html, html_size);
    if (status == EXIT_OK && gnuplot_missing)
        cli_error("%s; %s has no plots", PLOT_NO_GNUPLOT_MESSAGE, output);
    free(html);
    free(ids);
    store_close(s);
    return status;
}
