/* store_count.c: the total a page of a section's rows shows ("rows 1-25 of
 * 1000000"), counted once per section and filter and kept in the server
 * while the section's rows stay the same: counting 10^6 rows took longer
 * than the page itself. The cache is checked against the section's
 * fingerprint, read from its point_block rows at each request (an index
 * lookup): a sweep writes a section's rows in the same transaction as its
 * point_block row, so a live sweep's count still grows page after page. */
#include "store_int.h"

#include <pthread.h>

#include <stdlib.h>
#include <string.h>

/* Totals remembered at most; beyond, the least recently used goes. Each
 * holds one key of at most a URL's length (serve_http.c caps it). */
#define SERVE_COUNT_SLOTS 64

/* What changes whenever a section's rows do: its blocks' count, points,
 * ok points, newest block id and highest point id. */
typedef struct count_fingerprint {
    int64_t value[5];
} count_fingerprint;

typedef struct count_slot {
    char *key; /* malloc'd; NULL: free */
    count_fingerprint fingerprint;
    int64_t total;
    uint64_t used; /* the cache's clock at the last hit */
} count_slot;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static count_slot cache[SERVE_COUNT_SLOTS];
static uint64_t cache_clock;

int storei_section_fingerprint(store *s, int64_t section_id, int64_t out[5], char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT count(*), coalesce(sum(point_count), 0), coalesce(sum(ok_count),"
                           " 0), coalesce(max(id), 0), coalesce(max(last_point_id), 0)"
                           " FROM point_block WHERE section_id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot count the rows");
    sqlite3_bind_int64(st, 1, section_id);
    int rc = sqlite3_step(st);
    for (int i = 0; rc == SQLITE_ROW && i < 5; i++)
        out[i] = sqlite3_column_int64(st, i);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return storei_fail_sql(s, err, "cannot count the rows");
    return 0;
}

/* The slot holding key with this fingerprint, or NULL; under cache_lock. */
static count_slot *find_slot(const char *key, const count_fingerprint *fingerprint)
{
    for (size_t i = 0; i < SERVE_COUNT_SLOTS; i++)
        if (cache[i].key && strcmp(cache[i].key, key) == 0)
            return memcmp(&cache[i].fingerprint, fingerprint, sizeof *fingerprint) == 0 ? &cache[i]
                                                                                        : NULL;
    return NULL;
}

/* Remembers total for key, replacing key's old entry or the least recently
 * used one. A key that cannot be copied is simply not remembered. */
static void remember(const char *key, const count_fingerprint *fingerprint, int64_t total)
{
    char *copy = util_strdup(key);
    if (!copy)
        return;
    pthread_mutex_lock(&cache_lock);
    count_slot *slot = &cache[0];
    for (size_t i = 0; i < SERVE_COUNT_SLOTS; i++) {
        if (cache[i].key && strcmp(cache[i].key, key) == 0) {
            slot = &cache[i];
            break;
        }
        if (!cache[i].key || cache[i].used < slot->used)
            slot = &cache[i];
    }
    free(slot->key);
    slot->key = copy;
    slot->fingerprint = *fingerprint;
    slot->total = total;
    slot->used = ++cache_clock;
    pthread_mutex_unlock(&cache_lock);
}

int storei_count_rows(store *s, int64_t section_id, const char *key, sqlite3_stmt *count,
                      int64_t *total, char **err)
{
    count_fingerprint fingerprint;
    if (storei_section_fingerprint(s, section_id, fingerprint.value, err) != 0)
        return -1;
    pthread_mutex_lock(&cache_lock);
    count_slot *slot = find_slot(key, &fingerprint);
    if (slot) {
        *total = slot->total;
        slot->used = ++cache_clock;
    }
    pthread_mutex_unlock(&cache_lock);
    if (slot)
        return 0;
    if (sqlite3_step(count) != SQLITE_ROW)
        return storei_fail_sql(s, err, "cannot count the rows");
    *total = sqlite3_column_int64(count, 0);
    remember(key, &fingerprint, *total);
    return 0;
}
