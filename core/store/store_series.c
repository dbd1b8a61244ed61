/* store_series.c: the writer of what happens during points (the series
 * and point_system tables). Points add values from the threads that run
 * them while the sweep's own writer holds its batch; so the series have
 * their own connection and their own thread, which commits what was added
 * in one transaction every SERIES_FLUSH_S (a reader such as runner serve
 * sees a running point's values within that), or sooner when the queue
 * is half full. The queue is bounded: a point adding faster than the disk
 * takes waits for room, so memory never grows with the number of values. */
#include "store_int.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SERIES_QUEUE_MAX 8192 /* entries per buffer; two buffers */
#define SERIES_FLUSH_S 0.25
#define SERIES_BUSY_MS 30000

typedef struct series_entry {
    int system; /* 1: a point_system row */
    int64_t sweep_id, section_id, ordinal;
    double step, value, t_s;    /* series */
    store_point_system summary; /* system */
    char name[STORE_SERIES_NAME_MAX + 1];
} series_entry;

struct store_series {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *insert_value, *insert_system;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t work, room;
    series_entry *queue, *spare; /* queue: filled by points; spare: being written */
    size_t count;
    int writing; /* the thread holds spare */
    int closing;
    char *error;   /* the first failed write, owned */
    uint64_t lost; /* values a failed write lost */
};

static int bind_real_or_null(sqlite3_stmt *st, int index, double x)
{
    return isfinite(x) ? sqlite3_bind_double(st, index, x) : sqlite3_bind_null(st, index);
}

static int write_entry(store_series *ss, const series_entry *e)
{
    sqlite3_stmt *st = e->system ? ss->insert_system : ss->insert_value;
    sqlite3_bind_int64(st, 1, e->sweep_id);
    sqlite3_bind_int64(st, 2, e->section_id);
    sqlite3_bind_int64(st, 3, e->ordinal);
    if (e->system) {
        const store_point_system *p = &e->summary;
        sqlite3_bind_double(st, 4, p->wall_s);
        sqlite3_bind_double(st, 5, p->cpu_s);
        bind_real_or_null(st, 6, p->wall_s > 0 ? p->cpu_s / p->wall_s : NAN);
        bind_real_or_null(st, 7, p->samples > 0 ? p->cpu_cores_peak : NAN);
        if (p->rss_peak_bytes >= 0)
            sqlite3_bind_int64(st, 8, p->rss_peak_bytes);
        else
            sqlite3_bind_null(st, 8);
        if (p->read_bytes >= 0) {
            sqlite3_bind_int64(st, 9, p->read_bytes);
            sqlite3_bind_int64(st, 10, p->written_bytes);
        } else {
            sqlite3_bind_null(st, 9);
            sqlite3_bind_null(st, 10);
        }
        sqlite3_bind_int64(st, 11, p->samples);
    } else {
        sqlite3_bind_text(st, 4, e->name, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 5, e->step);
        bind_real_or_null(st, 6, e->value);
        sqlite3_bind_double(st, 7, e->t_s);
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Writes n entries in one transaction; keeps the first error. */
static void write_batch(store_series *ss, const series_entry *entries, size_t n)
{
    int ok = sqlite3_exec(ss->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
    for (size_t i = 0; ok && i < n; i++)
        ok = write_entry(ss, &entries[i]) == 0;
    if (ok)
        ok = sqlite3_exec(ss->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    if (ok)
        return;
    char *why = util_format("%s: cannot store series: %s", ss->path, sqlite3_errmsg(ss->db));
    sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
    pthread_mutex_lock(&ss->lock);
    ss->lost += n;
    if (!ss->error)
        ss->error = why;
    else
        free(why);
    pthread_mutex_unlock(&ss->lock);
}

static void *flusher(void *arg)
{
    store_series *ss = arg;
    pthread_mutex_lock(&ss->lock);
    for (;;) {
        if (ss->count == 0 && ss->closing)
            break;
        if (ss->count < SERIES_QUEUE_MAX / 2 && !ss->closing) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += (long)(SERIES_FLUSH_S * 1e9);
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&ss->work, &ss->lock, &until);
        }
        if (ss->count == 0)
            continue;
        series_entry *full = ss->queue;
        size_t n = ss->count;
        ss->queue = ss->spare;
        ss->spare = full;
        ss->count = 0;
        ss->writing = 1;
        pthread_cond_broadcast(&ss->room);
        pthread_mutex_unlock(&ss->lock);
        write_batch(ss, full, n);
        pthread_mutex_lock(&ss->lock);
        ss->writing = 0;
    }
    pthread_mutex_unlock(&ss->lock);
    return NULL;
}

int store_series_open(const char *path, store_series **out, char **err)
{
    *out = NULL;
    store_series *ss = calloc(1, sizeof *ss);
    if (!ss)
        return util_fail(err, "out of memory");
    pthread_mutex_init(&ss->lock, NULL);
    pthread_cond_init(&ss->work, NULL);
    pthread_cond_init(&ss->room, NULL);
    ss->path = util_strdup(path);
    ss->queue = malloc(SERIES_QUEUE_MAX * sizeof *ss->queue);
    ss->spare = malloc(SERIES_QUEUE_MAX * sizeof *ss->spare);
    if (!ss->path || !ss->queue || !ss->spare) {
        store_series_close(ss, NULL);
        return util_fail(err, "out of memory");
    }
    if (sqlite3_open_v2(path, &ss->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_busy_timeout(ss->db, SERIES_BUSY_MS) != SQLITE_OK ||
        sqlite3_prepare_v2(ss->db,
                           "INSERT INTO series (sweep_id, section_id, ordinal, name, step, value,"
                           " t_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &ss->insert_value, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(ss->db,
                           "INSERT OR REPLACE INTO point_system (sweep_id, section_id, ordinal,"
                           " wall_s, cpu_s, cpu_cores_mean, cpu_cores_peak, rss_peak_bytes,"
                           " read_bytes, written_bytes, samples)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                           -1, &ss->insert_system, NULL) != SQLITE_OK) {
        util_fail(err, "%s: cannot open the series writer: %s", path,
                  ss->db ? sqlite3_errmsg(ss->db) : "out of memory");
        store_series_close(ss, NULL);
        return -1;
    }
    *out = ss;
    return 0;
}

/* Takes room in the queue (waiting for it) and starts the thread on first
 * use. Returns the entry to fill, under the lock, or NULL (no thread). */
static series_entry *take_slot(store_series *ss)
{
    pthread_mutex_lock(&ss->lock);
    if (!ss->started) {
        if (pthread_create(&ss->thread, NULL, flusher, ss) != 0) {
            pthread_mutex_unlock(&ss->lock);
            return NULL;
        }
        ss->started = 1;
    }
    while (ss->count == SERIES_QUEUE_MAX) {
        pthread_cond_signal(&ss->work);
        pthread_cond_wait(&ss->room, &ss->lock);
    }
    return &ss->queue[ss->count];
}

static void put_slot(store_series *ss)
{
    if (++ss->count >= SERIES_QUEUE_MAX / 2)
        pthread_cond_signal(&ss->work);
    pthread_mutex_unlock(&ss->lock);
}

int store_series_add(store_series *ss, const store_series_key *key, const char *name, double step,
                     double value, double t_s)
{
    size_t len = strlen(name);
    if (!ss || len == 0 || len > STORE_SERIES_NAME_MAX)
        return -1;
    series_entry *e = take_slot(ss);
    if (!e)
        return -1;
    e->system = 0;
    e->sweep_id = key->sweep_id;
    e->section_id = key->section_id;
    e->ordinal = key->ordinal;
    memcpy(e->name, name, len + 1);
    e->step = step;
    e->value = value;
    e->t_s = t_s;
    put_slot(ss);
    return 0;
}

int store_series_system(store_series *ss, const store_series_key *key,
                        const store_point_system *summary)
{
    if (!ss)
        return -1;
    series_entry *e = take_slot(ss);
    if (!e)
        return -1;
    e->system = 1;
    e->sweep_id = key->sweep_id;
    e->section_id = key->section_id;
    e->ordinal = key->ordinal;
    e->name[0] = '\0';
    e->summary = *summary;
    put_slot(ss);
    return 0;
}

int store_series_close(store_series *ss, char **err)
{
    if (!ss)
        return 0;
    if (ss->started) {
        pthread_mutex_lock(&ss->lock);
        ss->closing = 1;
        pthread_cond_signal(&ss->work);
        pthread_mutex_unlock(&ss->lock);
        pthread_join(ss->thread, NULL);
    }
    int rc = 0;
    if (ss->error) {
        rc = -1;
        if (err)
            *err = util_format("%s (%llu values lost)", ss->error, (unsigned long long)ss->lost);
    }
    sqlite3_finalize(ss->insert_value);
    sqlite3_finalize(ss->insert_system);
    sqlite3_close(ss->db);
    pthread_mutex_destroy(&ss->lock);
    pthread_cond_destroy(&ss->work);
    pthread_cond_destroy(&ss->room);
    free(ss->queue);
    free(ss->spare);
    free(ss->path);
    free(ss->error);
    free(ss);
    return rc;
}

/* --- reading ------------------------------------------------------------ */

/* 1 when the file has the series tables (version 18 on), 0 when it is
 * older (a reader opens it as it is), -1 on error. */
static int has_series(store *s, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                           " AND name = 'series'",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the catalog");
    int found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    return found;
}

static int query(store *s, const char *sql, int64_t sweep_id, const char *name, table **out,
                 char **err)
{
    *out = NULL;
    int found = has_series(s, err);
    if (found < 0)
        return -1;
    sqlite3_stmt *st = NULL;
    /* An older file: the same columns, no rows. */
    const char *text = found ? sql : "SELECT NULL WHERE 0";
    if (sqlite3_prepare_v2(s->db, text, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the series of sweep %lld", (long long)sweep_id);
    if (found) {
        sqlite3_bind_int64(st, 1, sweep_id);
        if (name)
            sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    }
    int rc = storei_query_table(s, st, "cannot read the series", out, err);
    sqlite3_finalize(st);
    return rc;
}

int store_series_names(store *s, int64_t sweep_id, table **out, char **err)
{
    return query(s,
                 "SELECT name, count(*) AS n_values, count(DISTINCT section_id || ':' || ordinal)"
                 " AS n_points FROM series WHERE sweep_id = ?1 GROUP BY name ORDER BY name",
                 sweep_id, NULL, out, err);
}

int store_series_values(store *s, int64_t sweep_id, const char *name, table **out, char **err)
{
    return query(s,
                 "SELECT section_id, ordinal, step, value, t_s FROM series"
                 " WHERE sweep_id = ?1 AND name = ?2 ORDER BY section_id, ordinal, step, t_s"
                 " LIMIT " STORE_SERIES_READ_MAX_TEXT,
                 sweep_id, name, out, err);
}
