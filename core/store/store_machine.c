/* store_machine: the machine a sweep ran on, one row per fact
 * (sweep_machine; base/machine.c reads the facts). */
#include <sqlite3.h>

#include "store_int.h"

const char *store_sqlite_version(void) { return sqlite3_libversion(); }

int store_sweep_machine_set(store *s, int64_t sweep_id, const char *field, const char *value,
                            char **err)
{
    const char *what = "cannot record the sweep's machine";
    sqlite3_stmt *st = NULL;
    /* replaced in place (UPSERT), so the field keeps its place in the order */
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO sweep_machine (sweep_id, field, value) VALUES (?1, ?2, ?3)"
                           " ON CONFLICT (sweep_id, field) DO UPDATE SET value = excluded.value",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_text(st, 2, field, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
    int rc = storei_step_done(s, st, what, err);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_machine_write(store *s, int64_t sweep_id, const machine_facts *m, char **err)
{
    for (size_t i = 0; i < m->count; i++)
        if (store_sweep_machine_set(s, sweep_id, m->fields[i].name, m->fields[i].value, err) != 0)
            return -1;
    return 0;
}

int store_sweep_machine(store *s, int64_t sweep_id, machine_facts *out, char **err)
{
    const char *what = "cannot read the sweep's machine";
    sqlite3_stmt *st = NULL;
    /* a file of schema 15, which readers read without upgrading, has no
     * such table: its sweeps recorded no machine */
    if (sqlite3_table_column_metadata(s->db, "main", "sweep_machine", NULL, NULL, NULL, NULL, NULL,
                                      NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT field, value FROM sweep_machine WHERE sweep_id = ?1"
                           " ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc, failed = 0;
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW)
        failed = machine_set(out, (const char *)sqlite3_column_text(st, 0),
                             (const char *)sqlite3_column_text(st, 1)) != 0;
    sqlite3_finalize(st);
    if (failed) {
        machine_facts_clear(out);
        return util_fail(err, "out of memory");
    }
    if (rc != SQLITE_DONE) {
        machine_facts_clear(out);
        return storei_fail_sql(s, err, "%s", what);
    }
    return 0;
}
