/* store_findings: a sweep's stored answers, read for the dashboard's sweep
 * page (docs/serve.md, "What a sweep found"): its fronts, sensitivity
 * indices and diff --stat comparisons, each as one table. A file older
 * than the answers' tables (schema 13, read as it is) has none. */
#include <sqlite3.h>
#include <stdlib.h>

#include "store_int.h"

/* 1 when the file has table name (a reader may meet an older catalog). */
static int has_table(store *s, const char *name)
{
    return sqlite3_table_column_metadata(s->db, "main", name, NULL, NULL, NULL, NULL, NULL, NULL) ==
           SQLITE_OK;
}

/* st's rows with ?1 = id (and ?2 = limit when limit >= 0) into *out; NULL
 * *out when table is missing. */
static int read_rows(store *s, const char *table_name, const char *sql, int64_t id,
                     const char *what, table **out, char **err)
{
    *out = NULL;
    if (!has_table(s, table_name))
        return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, id);
    int rc = storei_query_table(s, st, what, out, err);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_fronts(store *s, int64_t sweep_id, table **out, char **err)
{
    /* the newest front per section and objectives */
    return read_rows(
        s, "pareto",
        "WITH f AS (SELECT p.id, p.section_id, p.rows, p.excluded, p.front_size,"
        " (SELECT group_concat(o.direction || ' ' || o.column_name, ', ') FROM"
        " (SELECT * FROM pareto_objective WHERE pareto_id = p.id ORDER BY position) AS o)"
        " AS objectives FROM pareto AS p WHERE p.sweep_id = ?1)"
        " SELECT max(id) AS id, section_id, rows, excluded, front_size, objectives FROM f"
        " GROUP BY section_id, objectives ORDER BY section_id, id",
        sweep_id, "cannot read the sweep's fronts", out, err);
}

int store_sweep_sensitivities(store *s, int64_t sweep_id, table **out, char **err)
{
    /* each index of the newest analysis per section and output */
    return read_rows(s, "sensitivity",
                     "SELECT h.id, h.section_id, h.y_column, h.y_unit, h.base_samples, i.parameter,"
                     " i.first_order, i.first_low, i.first_high, i.total, i.total_low, i.total_high"
                     " FROM sensitivity AS h JOIN sensitivity_index AS i ON i.sensitivity_id = h.id"
                     " WHERE h.sweep_id = ?1 AND h.id = (SELECT max(g.id) FROM sensitivity AS g"
                     " WHERE g.section_id = h.section_id AND g.y_column = h.y_column)"
                     " ORDER BY h.section_id, h.id, i.position",
                     sweep_id, "cannot read the sweep's sensitivity indices", out, err);
}

int store_sweep_stat_diffs(store *s, int64_t sweep_id, table **out, char **err)
{
    /* the newest comparison per pair of sweeps this one is in */
    return read_rows(s, "stat_diff",
                     "SELECT h.id, h.sweep_a, h.sweep_b, h.tolerance_s, h.confidence, h.compared,"
                     " h.past_tolerance, h.created_at,"
                     " (SELECT count(*) FROM stat_diff_row AS r WHERE r.stat_diff_id = h.id"
                     " AND r.verdict <> 'no change') AS changed,"
                     " (SELECT count(*) FROM stat_diff_row AS r WHERE r.stat_diff_id = h.id)"
                     " AS row_count"
                     " FROM stat_diff AS h WHERE (h.sweep_a = ?1 OR h.sweep_b = ?1)"
                     " AND h.id = (SELECT max(g.id) FROM stat_diff AS g"
                     " WHERE g.sweep_a = h.sweep_a AND g.sweep_b = h.sweep_b) ORDER BY h.id",
                     sweep_id, "cannot read the sweep's comparisons", out, err);
}

int store_stat_diff_rows(store *s, int64_t stat_diff_id, int changes_first, int64_t offset,
                         int64_t limit, table **out, char **err)
{
    *out = NULL;
    if (!has_table(s, "stat_diff_row"))
        return 0;
    const char *what = "cannot read the comparison's rows";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            s->db,
            "SELECT position, plugin, section_a, section_b, point, column_name, unit,"
            " n_a, mean_a, sd_a, n_b, mean_b, sd_b, ratio, ratio_low, ratio_high,"
            " p_value, verdict, test FROM stat_diff_row WHERE stat_diff_id = ?1"
            " ORDER BY CASE WHEN ?2 THEN verdict = 'no change' ELSE 0 END, position"
            " LIMIT ?3 OFFSET ?4",
            -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, stat_diff_id);
    sqlite3_bind_int(st, 2, changes_first != 0);
    sqlite3_bind_int64(st, 3, limit < 0 ? INT64_MAX : limit);
    sqlite3_bind_int64(st, 4, offset);
    int rc = storei_query_table(s, st, what, out, err);
    sqlite3_finalize(st);
    return rc;
}
