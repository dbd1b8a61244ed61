/* store_reuse: `runner sweep --reuse`. Finds the points other sweeps of this
 * database stored ok with the same plugin file (.so SHA-256), identity
 * (plugin, version, canonical parameters, sweep seed) and point seed, and
 * copies a found point's rows in SQL, value for value, so the copy holds
 * exactly what the stored rows hold (docs/schema.md, reused_from), and its
 * artifacts with them. */
#include "store_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The stored ok points of plugin whose sweep recorded so_sha256 for it,
 * outside sweep exclude: identity, seed, point, section, sweep; oldest
 * block first, so the first entry kept per identity is the point first
 * computed (a reused point is a candidate too, but comes later). */
static const char candidates_sql[] =
    "SELECT json_extract(p.value, '$[3]'), json_extract(p.value, '$[4]'),"
    " json_extract(p.value, '$[0]'), b.section_id, b.sweep_id"
    " FROM section AS s"
    " JOIN sweep_plugin AS sp ON sp.sweep_id = s.sweep_id AND sp.plugin = s.plugin"
    " JOIN point_block AS b ON b.section_id = s.id, json_each(b.points) AS p"
    " WHERE s.plugin = ?1 AND sp.so_sha256 = ?2 AND s.sweep_id <> ?3 AND b.ok_count > 0"
    " AND json_extract(p.value, '$[5]') = 'ok' ORDER BY b.id";

/* The set is an open-addressing hash table of entry indexes (slots hold
 * index + 1; 0 is empty), so memory follows the distinct computations, not
 * how many sweeps repeated them. */
static uint64_t identity_hash(const char *identity, uint64_t seed)
{
    uint64_t h = seed;
    for (int i = 0; i < 16; i++) { /* the first 64 bits of the SHA-256 */
        char c = identity[i];
        h = h << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    h ^= seed * 0x9e3779b97f4a7c15u; /* splitmix64's finalizer */
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    return h ^ (h >> 31);
}

static size_t *find_slot(const store_reuse_set *set, const char *identity, uint64_t seed)
{
    size_t mask = set->slot_count - 1;
    for (size_t i = identity_hash(identity, seed) & mask;; i = (i + 1) & mask) {
        size_t *slot = &set->slots[i];
        if (!*slot)
            return slot;
        const store_reuse_entry *e = &set->entries[*slot - 1];
        if (e->seed == seed && memcmp(e->identity, identity, 64) == 0)
            return slot;
    }
}

/* Room for one more entry: the entries array and, at half full, twice the
 * slots. 0 or -1 (memory). */
static int reserve(store_reuse_set *set, size_t *capacity)
{
    if (set->count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 256;
        store_reuse_entry *bigger = realloc(set->entries, *capacity * sizeof *bigger);
        if (!bigger)
            return -1;
        set->entries = bigger;
    }
    if ((set->count + 1) * 2 <= set->slot_count)
        return 0;
    size_t old_count = set->slot_count, *old = set->slots;
    set->slot_count = old_count ? old_count * 2 : 512;
    if (!(set->slots = calloc(set->slot_count, sizeof *set->slots))) {
        set->slots = old;
        set->slot_count = old_count;
        return -1;
    }
    for (size_t i = 0; i < old_count; i++)
        if (old[i]) {
            const store_reuse_entry *e = &set->entries[old[i] - 1];
            *find_slot(set, e->identity, e->seed) = old[i];
        }
    free(old);
    return 0;
}

/* Keeps the row's point unless an earlier one has its identity and seed. */
static int add_entry(store_reuse_set *set, size_t *capacity, sqlite3_stmt *st)
{
    const char *identity = (const char *)sqlite3_column_text(st, 0);
    if (!identity || strlen(identity) != 64)
        return 0;
    int64_t signed_seed = sqlite3_column_int64(st, 1);
    uint64_t seed;
    memcpy(&seed, &signed_seed, sizeof seed); /* stored as signed 64-bit */
    if (reserve(set, capacity) != 0)
        return -1;
    size_t *slot = find_slot(set, identity, seed);
    if (*slot)
        return 0;
    store_reuse_entry *e = &set->entries[set->count++];
    memcpy(e->identity, identity, 65);
    e->seed = seed;
    e->point_id = sqlite3_column_int64(st, 2);
    e->section_id = sqlite3_column_int64(st, 3);
    e->sweep_id = sqlite3_column_int64(st, 4);
    *slot = set->count;
    return 0;
}

int store_reuse_find(store *s, const char *plugin, const char *so_sha256, int64_t exclude_sweep_id,
                     store_reuse_set **out, char **err)
{
    *out = NULL;
    char what[160];
    snprintf(what, sizeof what, "cannot look for stored points of \"%s\" to reuse", plugin);
    if (storei_batch_commit(s, err) != 0)
        return -1;
    store_reuse_set *set = calloc(1, sizeof *set);
    if (!set)
        return util_fail(err, "out of memory");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, candidates_sql, -1, &st, NULL) != SQLITE_OK) {
        store_reuse_set_free(set);
        return storei_fail_sql(s, err, "%s", what);
    }
    storei_bind_text(st, 1, plugin);
    storei_bind_text(st, 2, so_sha256);
    sqlite3_bind_int64(st, 3, exclude_sweep_id);
    size_t capacity = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (add_entry(set, &capacity, st) != 0) {
            sqlite3_finalize(st);
            store_reuse_set_free(set);
            return util_fail(err, "out of memory");
        }
    if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_finalize(st);
        store_reuse_set_free(set);
        return -1;
    }
    sqlite3_finalize(st);
    *out = set;
    return 0;
}

const store_reuse_entry *store_reuse_lookup(const store_reuse_set *set, const char *identity,
                                            uint64_t seed)
{
    if (!set || !set->count)
        return NULL;
    size_t slot = *find_slot(set, identity, seed);
    return slot ? &set->entries[slot - 1] : NULL;
}

void store_reuse_set_free(store_reuse_set *set)
{
    if (!set)
        return;
    free(set->slots);
    free(set->entries);
    free(set);
}

/* INSERT ... SELECT of one point's rows: every column the plugin declares,
 * taken as stored (NaN stays the text 'NaN'). */
static int prepare_copy(store *s, storei_plugin_entry *e, const runner_plugin *plugin, char **err)
{
    uint32_t total = plugin->param_count + plugin->column_count;
    strbuf sql = { 0 }, columns = { 0 };
    for (uint32_t i = 0; i < total; i++) {
        strbuf_str(&columns, ", ");
        storei_append_ident(&columns, storei_column_name(plugin, i));
    }
    strbuf_str(&sql, "INSERT INTO ");
    storei_append_ident(&sql, e->name);
    strbuf_str(&sql, " (\"sweep_id\", \"section_id\", \"point_id\"");
    strbuf_str(&sql, columns.data ? columns.data : "");
    strbuf_str(&sql, ") SELECT ?1, ?2, ?3");
    strbuf_str(&sql, columns.data ? columns.data : "");
    strbuf_str(&sql, " FROM ");
    storei_append_ident(&sql, e->name);
    strbuf_str(&sql, " WHERE \"sweep_id\" = ?4 AND \"section_id\" = ?5 AND \"point_id\" = ?6"
                     " ORDER BY \"row_id\"");
    int rc = 0;
    if (sql.oom || columns.oom)
        rc = util_fail(err, "%s: out of memory", s->path);
    else if (sqlite3_prepare_v3(s->db, sql.data, -1, SQLITE_PREPARE_PERSISTENT, &e->copy, NULL) !=
             SQLITE_OK)
        rc = storei_fail_sql(s, err, "cannot prepare the copy of reused rows of \"%s\"", e->name);
    free(sql.data);
    free(columns.data);
    return rc;
}

int storei_copy_rows(store *s, storei_plugin_entry *e, const store_point *point, int64_t point_id,
                     size_t *copied, char **err)
{
    *copied = 0;
    if (!e->copy && prepare_copy(s, e, e->plugin, err) != 0)
        return -1;
    sqlite3_stmt *st = e->copy;
    sqlite3_bind_int64(st, 1, point->sweep_id);
    sqlite3_bind_int64(st, 2, point->section_id);
    sqlite3_bind_int64(st, 3, point_id);
    sqlite3_bind_int64(st, 4, point->reused_sweep_id);
    sqlite3_bind_int64(st, 5, point->reused_section_id);
    sqlite3_bind_int64(st, 6, point->reused_from);
    int rc = sqlite3_step(st) == SQLITE_DONE
                 ? 0
                 : storei_fail_sql(s, err,
                                   "cannot copy the rows of point %" PRId64 " into point %" PRId64
                                   " of section %" PRId64,
                                   point->reused_from, point->ordinal, point->section_id);
    if (rc == 0)
        *copied = (size_t)sqlite3_changes64(s->db);
    sqlite3_reset(st);
    return rc;
}

int storei_copy_artifacts(store *s, const store_point *point, int64_t point_id, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO artifact (sweep_id, point_id, name, sha256, bytes)"
                           " SELECT ?1, ?2, name, sha256, bytes FROM artifact WHERE point_id = ?3",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot copy the artifacts of point %" PRId64,
                               point->reused_from);
    sqlite3_bind_int64(st, 1, point->sweep_id);
    sqlite3_bind_int64(st, 2, point_id);
    sqlite3_bind_int64(st, 3, point->reused_from);
    int rc = sqlite3_step(st) == SQLITE_DONE
                 ? 0
                 : storei_fail_sql(s, err,
                                   "cannot copy the artifacts of point %" PRId64
                                   " into point %" PRId64 " of section %" PRId64,
                                   point->reused_from, point->ordinal, point->section_id);
    sqlite3_finalize(st);
    return rc;
}
