/* store_catalog.c: the names runner's catalog takes, in one list. Plugins'
 * result tables share SQLite's one namespace of tables, views, indexes and
 * triggers with the catalog, so a plugin (or a command experiment, or a
 * column) may not be named like any object the catalog has or ever had:
 * the loader refuses such a name before anything is written.
 * tests/unit/test_store_catalog.c builds the whole catalog and checks that
 * every object in it is listed here. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* Every table, view, index and trigger of schema.sql and of the migration
 * steps (store_open.c), past and present: a name once used stays here, so
 * an old file's objects never meet a plugin of that name. */
/* clang-format off */
static const char *const catalog_names[] = {
    /* tables and views */
    "sweep", "sweep_plugin", "section", "point", "point_block", "point_index",
    "plugin_column", "outbox", "sweep_command", "artifact_blob", "artifact", "sweep_tag",
    "id_high_water", "sqlite_stat1", "fit", "fit_param", "fit_residual", "sqlite_sequence",
    "sensitivity", "sensitivity_index", "pareto", "pareto_objective", "pareto_member",
    "stat_diff", "stat_diff_row", "merge_source", "fit_curve",
    "command_run", "sweep_machine", "series", "point_system", "point_once", "sweep_printed",
    /* indexes */
    "section_by_sweep", "point_by_section", "point_by_identity", "point_block_by_section",
    "point_block_by_last_id", "point_block_by_sweep", "point_index_not_ok",
    "point_index_failed", "point_index_crashed", "point_index_timeout", "outbox_pending",
    "artifact_by_sweep", "artifact_by_blob", "sweep_tag_by_tag", "sweep_list", "sweep_by_name",
    "fit_by_section", "sensitivity_by_section", "pareto_by_section", "stat_diff_by_sweeps",
    "series_by_sweep",
    /* triggers */
    "sweep_high_water", "section_high_water", "point_high_water", "point_once_insert",
    "point_once_delete", "point_once_update",
};
/* clang-format on */

const char *const storei_fixed_columns[STOREI_FIXED_COLUMNS] = { "row_id", "sweep_id", "section_id",
                                                                 "point_id" };

static int ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : (unsigned char)c; }

int storei_casecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = ascii_lower(*a), cb = ascii_lower(*b);
        if (ca != cb || ca == 0)
            return ca - cb;
    }
}

/* Table names are case-insensitive in SQLite, hence the comparisons. */
int store_reserved_name(const char *name)
{
    if (!name)
        return 0;
    static const char sqlite_prefix[] = "sqlite_";
    size_t i = 0;
    while (sqlite_prefix[i] && name[i] && ascii_lower(name[i]) == sqlite_prefix[i])
        i++;
    if (!sqlite_prefix[i])
        return 1;
    for (size_t k = 0; k < sizeof catalog_names / sizeof catalog_names[0]; k++)
        if (storei_casecmp(name, catalog_names[k]) == 0)
            return 1;
    for (size_t k = 0; k < STOREI_FIXED_COLUMNS; k++)
        if (storei_casecmp(name, storei_fixed_columns[k]) == 0)
            return 1;
    return 0;
}

int store_catalog_objects(store *s, char ***names, size_t *count, char **err)
{
    *names = NULL;
    *count = 0;
    const char *what = "cannot read the catalog";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT name FROM sqlite_schema ORDER BY name", -1, &st, NULL) !=
        SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    int rc, oom = 0;
    size_t capacity = 0;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            char **grown = realloc(*names, capacity * sizeof *grown);
            if (!grown) {
                oom = 1;
                break;
            }
            *names = grown;
        }
        (*names)[*count] = storei_column_strdup(st, 0, &oom);
        *count += (*names)[*count] != NULL;
    }
    if (!oom && rc != SQLITE_DONE)
        storei_fail_sql(s, err, "%s", what);
    else if (oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    sqlite3_finalize(st);
    if (oom || rc != SQLITE_DONE) {
        store_free_strings(*names, *count);
        *names = NULL;
        *count = 0;
        return -1;
    }
    return 0;
}
