/* store_merge_write.c: the merged sweep's points and rows (runner merge,
 * docs/slurm.md). Each section is read from every shard at once, one
 * read-only connection per shard, and the shards' points are merged by
 * ordinal (a heap), so point blocks and result rows are written in point
 * order with consecutive ids, as one process writes them. A shard that
 * stored its points in point order (any shard not resumed after failed
 * points) is read sequentially: its blocks walked in C, its rows in one
 * scan by row id. Otherwise its points are sorted in SQL and each point's
 * rows found through the index. */
#include "store_merge_int.h"

#include "base/bug.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_BLOCK_POINTS 1000 /* points per point_block, as a batch writes them */
#define MERGE_COMMIT_BLOCKS 1   /* a commit per block, as a batch: 20 cost 25% more CPU */
#define ELEMENT_FIELDS 10       /* an element's fields, reused_from aside */
#define MERGE_DIFF_KEYS 32      /* block bases differing in more keys: patches rebuilt */
#define DIFF_UNKNOWN SIZE_MAX
/* Bytes of shards' pages the merge holds at once, all shards together
 * (mapped or cached): each shard's connection gets its share, so 5,000
 * shards hold no more than 4 do. */
#define MERGE_PAGE_BUDGET (64 << 20)
#define MERGE_MMAP_MAX (1 << 30) /* of one shard: address space, not memory */
#define MERGE_MMAP_MIN (1 << 20) /* a smaller share is read into the cache instead */
#define MERGE_CACHE_MIN_KIB 64   /* a shard's page cache at least (16 pages of 4 KiB) */

/* --- a point block's element, read in C (cheaper than SQLite's JSON) ---- */

/* The end of the JSON value at p (a string, number, literal, object or
 * array), or NULL when it is not one. */
static const char *json_skip(const char *p)
{
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : NULL;
    }
    if (*p == '{' || *p == '[') {
        int depth = 0;
        do {
            if (*p == '"') {
                if (!(p = json_skip(p)))
                    return NULL;
                continue;
            }
            depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
            p++;
        } while (*p && depth > 0);
        return depth == 0 ? p : NULL;
    }
    const char *start = p;
    while (*p && *p != ',' && *p != ']' && *p != '}')
        p++;
    return p > start ? p : NULL;
}

/* An element [id, ordinal, params, identity, seed, status, error,
 * started_at_ms, duration_ns, row_count] and, for a point --reuse copied,
 * reused_from: where field i starts (field[i]) and ends (end[i]).
 * *element_end is just past the closing bracket. Returns the number of
 * fields (10 or 11), -1 when malformed. */
static int element_fields(const char *element, const char *field[ELEMENT_FIELDS + 1],
                          const char *end[ELEMENT_FIELDS + 1], const char **element_end)
{
    const char *p = element;
    if (*p++ != '[')
        return -1;
    for (int i = 0; i <= ELEMENT_FIELDS; i++) {
        field[i] = p;
        if (!(p = json_skip(p)) || (*p != ',' && *p != ']'))
            return -1;
        end[i] = p;
        if (*p++ == ']') {
            *element_end = p;
            return i + 1 >= ELEMENT_FIELDS ? i + 1 : -1;
        }
    }
    return -1;
}

/* Appends base with patch's values put in (json_patch of two flat objects
 * with the same keys, patch holding some of them). -1 when malformed. */
static int params_patched(strbuf *out, const char *base, const char *patch, size_t patch_len)
{
    if (*base != '{')
        return -1;
    strbuf_add(out, "{", 1);
    const char *p = base + 1, *end = patch + patch_len - 1;
    for (int first = 1; *p && *p != '}'; first = 0) {
        const char *key_end = json_skip(p);
        if (!key_end || *key_end != ':')
            return -1;
        const char *value = key_end + 1, *base_end = json_skip(value), *value_end = base_end;
        if (!base_end)
            return -1;
        size_t key_len = (size_t)(key_end - p);
        /* The patch's value for this key, if it has one. */
        for (const char *q = patch + 1; q < end;) {
            const char *qk_end = json_skip(q), *qv_end = qk_end ? json_skip(qk_end + 1) : NULL;
            if (!qv_end)
                return -1;
            if ((size_t)(qk_end - q) == key_len && memcmp(q, p, key_len) == 0) {
                value = qk_end + 1;
                value_end = qv_end;
                break;
            }
            q = qv_end + (*qv_end == ',');
        }
        if (!first)
            strbuf_add(out, ",", 1);
        strbuf_add(out, p, key_len + 1); /* "key": */
        strbuf_add(out, value, (size_t)(value_end - value));
        p = base_end + (*base_end == ',');
    }
    strbuf_add(out, "}", 1);
    return 0;
}

/* 1 when the flat object patch (patch_len bytes) has the member key (key_len
 * bytes, quotes included). */
static int patch_has_key(const char *patch, size_t patch_len, const char *key, size_t key_len)
{
    const char *end = patch + patch_len - 1;
    for (const char *q = patch + 1; q < end;) {
        const char *k_end = json_skip(q), *v_end = k_end ? json_skip(k_end + 1) : NULL;
        if (!v_end)
            return 0;
        if ((size_t)(k_end - q) == key_len && memcmp(q, key, key_len) == 0)
            return 1;
        q = v_end + (*v_end == ',');
    }
    return 0;
}

/* --- reading one shard's section ------------------------------------------- */

/* One shard's side of the merge: its own read-only connection (no ATTACH
 * limit), the current section's points in point order, and their rows. */
typedef struct shard_cursor {
    sqlite3 *db;
    storei_bound bound;   /* a shard is a file runner may not have written */
    int in_order;         /* its blocks follow point order: walked in C */
    sqlite3_stmt *points; /* in order: each block's params_base, points;
                                  * else each point's ordinal, params_base, element */
    const char *base;     /* the current point's block's params_base */
    const char *next;     /* in order: the ',' or ']' after the current element */
    const char *field[ELEMENT_FIELDS + 1], *end[ELEMENT_FIELDS + 1];
    int fields;           /* 11 with reused_from */
    int64_t ordinal;      /* of the current point; in the heap while it has one */
    sqlite3_stmt *scan;   /* in order: point_id and result columns, by row id */
    int scan_row;         /* scan holds a row not yet copied */
    sqlite3_stmt *seek;   /* one point's result columns, in row order */
    sqlite3_stmt *insert; /* result columns into OUT's table */
    sqlite3_stmt *runs;   /* one point's runs (command_run), when the shard has any */
    int runs_state;       /* 0: not looked yet, 1: the shard has runs, -1: none */
    /* The keys whose values differ between the merged block's base and
     * diff_base (this shard's block base), for merged block diff_block. */
    int64_t diff_block;
    char *diff_base;
    size_t diff_count; /* DIFF_UNKNOWN: not comparable, rebuild patches */
    const char *diff_key[MERGE_DIFF_KEYS];
    size_t diff_len[MERGE_DIFF_KEYS];
} shard_cursor;

static int cursor_malformed(sqlite3 *db, char **err)
{
    return util_fail(err, "%s: a malformed point block in a shard",
                     sqlite3_db_filename(db, "main"));
}

/* Steps cursor c to its next point: 1, 0 at the section's end, -1. */
static int cursor_advance(shard_cursor *c, char **err)
{
    const char *element, *element_end;
    int rc = SQLITE_DONE;
    if (c->in_order) {
        /* next is the block's '[' or the ',' before an element. */
        while (!c->next || (*c->next != ',' && *c->next != '[')) {
            c->next = NULL; /* the block's text goes with the step */
            if ((rc = sqlite3_step(c->points)) != SQLITE_ROW)
                goto end;
            c->base = (const char *)sqlite3_column_text(c->points, 0);
            c->next = (const char *)sqlite3_column_text(c->points, 1);
            if (!c->base || !c->next)
                return cursor_malformed(c->db, err);
        }
        element = c->next + 1;
    } else {
        if ((rc = sqlite3_step(c->points)) != SQLITE_ROW)
            goto end;
        c->base = (const char *)sqlite3_column_text(c->points, 1);
        element = (const char *)sqlite3_column_text(c->points, 2);
    }
    if (!c->base || !element ||
        (c->fields = element_fields(element, c->field, c->end, &element_end)) < 0)
        return cursor_malformed(c->db, err);
    c->next = element_end;
    int64_t ordinal = strtoll(c->field[1], NULL, 10);
    if (c->in_order && ordinal <= c->ordinal)
        return util_fail(err,
                         "%s: its point blocks do not hold its points in the order its keys "
                         "(point_once) say: the file is damaged; run that shard again",
                         sqlite3_db_filename(c->db, "main"));
    c->ordinal = ordinal;
    return 1;
end:
    if (rc == SQLITE_DONE)
        return 0;
    return util_fail(err, "%s: cannot read its points: %s", sqlite3_db_filename(c->db, "main"),
                     storei_bound_errmsg(&c->bound));
}

/* *in_order: 1 when the section's points, taken by point id, come in
 * ordinal order: its keys (point_once), read by ordinal, name ever larger
 * ids. A writer numbers points as it appends them to its blocks, so the
 * blocks by first point id hold them in id order and can be walked as they
 * are. The keys are a tenth of the blocks' bytes: reading the blocks ahead
 * was 7% of a merge's samples, the keys about 5%. cursor_advance checks
 * each ordinal as it reads it, should a damaged shard's keys and blocks
 * disagree. */
static int section_in_order(shard_cursor *c, int64_t section_id, int *in_order, char **err)
{
    sqlite3_stmt *keys = NULL;
    *in_order = 1;
    int rc = sqlite3_prepare_v2(c->db,
                                "SELECT point_id FROM point_once WHERE section_id = ?1"
                                " ORDER BY ordinal",
                                -1, &keys, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(keys, 1, section_id);
        for (int64_t last = INT64_MIN; (rc = sqlite3_step(keys)) == SQLITE_ROW;) {
            int64_t id = sqlite3_column_int64(keys, 0);
            if (id < last) {
                *in_order = 0;
                rc = SQLITE_DONE;
                break;
            }
            last = id;
        }
    }
    sqlite3_finalize(keys);
    if (rc != SQLITE_DONE)
        return util_fail(err, "%s: cannot read its points: %s", sqlite3_db_filename(c->db, "main"),
                         storei_bound_errmsg(&c->bound));
    return 0;
}

/* --- writing ------------------------------------------------------------------ */

/* What writing the merged points keeps between them. */
typedef struct merge_writer {
    merge *m;
    int64_t sweep_id, section_id;
    const char *plugin; /* the current section's */
    shard_cursor *cursors;
    size_t *heap; /* cursors with a current point, by ordinal */
    size_t heap_len;
    int64_t next_id;      /* the next point's id */
    strbuf points;        /* the open block's elements */
    strbuf params;        /* a point's parameters, when its patch is rebuilt */
    char *base;           /* the open block's params_base */
    int64_t block_serial; /* counts the blocks begun, for the cursors' diff keys */
    int64_t block_first, block_count, block_ok, blocks_uncommitted;
    int64_t ordinals[MERGE_BLOCK_POINTS]; /* the open block's, for its keys */
    int64_t rows;                         /* rows written */
    store_reuse_set *reuse;               /* OUT's points by identity, for reused_from */
    int reuse_read;                       /* reuse was read for this section */
} merge_writer;

/* Writes one block of the merged points, its keys before it, and its index
 * rows. */
static int write_block(store *s, int64_t sweep_id, int64_t section_id, int64_t first, int64_t count,
                       int64_t ok, const int64_t *ordinals, strbuf *points, const char *base,
                       char **err)
{
    strbuf_add(points, "]", 1);
    if (points->oom)
        return util_fail(err, "%s: cannot store points: out of memory", s->path);
    if (storei_block_keys(s, section_id, first, ordinals, count, err) != 0)
        return -1;
    sqlite3_stmt *st = storei_stmt(s, STMT_INSERT_BLOCK, "cannot store points", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, section_id);
    sqlite3_bind_int64(st, 3, first);
    sqlite3_bind_int64(st, 4, first + count - 1);
    sqlite3_bind_int64(st, 5, count);
    sqlite3_bind_int64(st, 6, ok);
    storei_bind_block(st, 7, points->data, points->len);
    sqlite3_bind_text(st, 8, base, -1, SQLITE_STATIC);
    if (storei_step_done(s, st, "cannot store points", err) != 0)
        return -1;
    int rc = storei_index_block(s, sqlite3_last_insert_rowid(s->db), first, first + count - 1,
                                ok == count, points->data, points->len, err);
    strbuf_reset(points);
    return rc;
}

static int flush_block(merge_writer *w, char **err)
{
    if (!w->block_count)
        return 0;
    int rc = write_block(w->m->s, w->sweep_id, w->section_id, w->block_first, w->block_count,
                         w->block_ok, w->ordinals, &w->points, w->base, err);
    w->block_count = w->block_ok = 0;
    if (rc == 0 && ++w->blocks_uncommitted >= MERGE_COMMIT_BLOCKS) {
        w->blocks_uncommitted = 0;
        /* A statement of OUT's still open here would keep this connection's
         * read snapshot past the commit: every checkpoint then fails
         * (SQLITE_LOCKED) and the WAL grows to the size of the output. */
        RUNNER_BUG_IF(storei_statement_open(w->m->s), "a merge commits with a statement open");
        rc = storei_exec(w->m->s, "COMMIT; BEGIN IMMEDIATE", "cannot commit merged points", err);
    }
    return rc;
}

static int cursor_less(const merge_writer *w, size_t a, size_t b)
{
    return w->cursors[w->heap[a]].ordinal < w->cursors[w->heap[b]].ordinal;
}

static void heap_down(merge_writer *w, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < w->heap_len && cursor_less(w, l, least))
            least = l;
        if (r < w->heap_len && cursor_less(w, r, least))
            least = r;
        if (least == i)
            return;
        size_t t = w->heap[i];
        w->heap[i] = w->heap[least];
        w->heap[least] = t;
        i = least;
    }
}

/* Inserts the row st holds (result columns from column first on) into OUT
 * as a row of the bound point. */
static int insert_row(merge_writer *w, shard_cursor *c, sqlite3_stmt *st, int first, int64_t id,
                      char **err)
{
    int columns = sqlite3_column_count(st);
    for (int i = first; i < columns; i++)
        sqlite3_bind_value(c->insert, 4 + i - first, sqlite3_column_value(st, i));
    int rc = sqlite3_step(c->insert);
    sqlite3_reset(c->insert);
    if (rc != SQLITE_DONE)
        return storei_fail_sql(w->m->s, err, "cannot store the rows of point %" PRId64, id);
    w->rows++;
    w->m->rows_of[c - w->cursors]++;
    return 0;
}

/* Copies the rows of the shard's point old_id as point id: from the scan
 * while it is at them, else through the index. */
static int copy_rows(merge_writer *w, shard_cursor *c, int64_t old_id, int64_t id, char **err)
{
    sqlite3_bind_int64(c->insert, 1, w->sweep_id);
    sqlite3_bind_int64(c->insert, 2, w->section_id);
    sqlite3_bind_int64(c->insert, 3, id);
    int64_t copied = 0;
    int rc = SQLITE_ROW;
    while (c->scan_row && sqlite3_column_int64(c->scan, 0) == old_id) {
        if (insert_row(w, c, c->scan, 1, id, err) != 0)
            return -1;
        copied++;
        if ((rc = sqlite3_step(c->scan)) != SQLITE_ROW)
            c->scan_row = 0;
    }
    if (!copied) {
        sqlite3_bind_int64(c->seek, 3, old_id);
        while ((rc = sqlite3_step(c->seek)) == SQLITE_ROW)
            if (insert_row(w, c, c->seek, 0, id, err) != 0) {
                sqlite3_reset(c->seek);
                return -1;
            }
        sqlite3_reset(c->seek);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return util_fail(err, "cannot read a point's rows: %s", storei_bound_errmsg(&c->bound));
    return 0;
}

/* Copies the runs of the shard's point old_id (command_run) as point id's:
 * a command's points with repeats. A shard from before runs were stored,
 * or without any, costs one query. */
static int copy_runs(merge_writer *w, shard_cursor *c, int64_t old_id, int64_t id, char **err)
{
    store *s = w->m->s;
    int64_t shard_sweep = w->m->sweep_of[c - w->cursors];
    if (c->runs_state == 0) {
        c->runs_state = -1;
        sqlite3_stmt *any = NULL;
        if (sqlite3_prepare_v2(c->db,
                               "SELECT EXISTS (SELECT 1 FROM command_run WHERE sweep_id = ?1)", -1,
                               &any, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(any, 1, shard_sweep);
            if (sqlite3_step(any) == SQLITE_ROW && sqlite3_column_int(any, 0))
                c->runs_state = 1;
        } /* else a file without command_run: no runs */
        sqlite3_finalize(any);
        if (c->runs_state == 1 &&
            sqlite3_prepare_v2(c->db,
                               "SELECT warmup, wall_s, user_s, sys_s, max_rss_kib,"
                               " voluntary_switches, involuntary_switches, exit_status,"
                               " run_values, run FROM command_run"
                               " WHERE sweep_id = ?1 AND point_id = ?2 ORDER BY run",
                               -1, &c->runs, NULL) != SQLITE_OK)
            return util_fail(err, "cannot read a point's runs: %s", storei_bound_errmsg(&c->bound));
    }
    if (c->runs_state < 0)
        return 0;
    sqlite3_stmt *ins = storei_stmt(s, STMT_INSERT_RUN, "cannot store merged runs", err);
    if (!ins)
        return -1;
    sqlite3_bind_int64(c->runs, 1, shard_sweep);
    sqlite3_bind_int64(c->runs, 2, old_id);
    int rc;
    while ((rc = sqlite3_step(c->runs)) == SQLITE_ROW) {
        sqlite3_bind_int64(ins, 1, w->sweep_id);
        sqlite3_bind_int64(ins, 2, id);
        sqlite3_bind_value(ins, 3, sqlite3_column_value(c->runs, 9));
        for (int i = 0; i < 9; i++)
            sqlite3_bind_value(ins, 4 + i, sqlite3_column_value(c->runs, i));
        int done = sqlite3_step(ins);
        sqlite3_reset(ins);
        sqlite3_clear_bindings(ins);
        if (done != SQLITE_DONE) {
            sqlite3_reset(c->runs);
            return storei_fail_sql(s, err, "cannot store the runs of merged point %" PRId64, id);
        }
    }
    sqlite3_reset(c->runs);
    if (rc != SQLITE_DONE)
        return util_fail(err, "cannot read a point's runs: %s", storei_bound_errmsg(&c->bound));
    return 0;
}

/* The keys whose values differ between objects a and b (same keys in the
 * same order): c->diff_count of them, DIFF_UNKNOWN when not comparable. */
static void diff_keys(shard_cursor *c, const char *a, const char *b)
{
    c->diff_count = DIFF_UNKNOWN;
    if (*a++ != '{' || *b++ != '{')
        return;
    size_t n = 0;
    while (*a != '}') {
        const char *ak = json_skip(a), *bk = json_skip(b);
        if (!ak || !bk || *ak != ':' || ak - a != bk - b || memcmp(a, b, (size_t)(ak - a)) != 0)
            return;
        const char *av = json_skip(ak + 1), *bv = json_skip(bk + 1);
        if (!av || !bv || *av != *bv)
            return;
        if (av - ak != bv - bk || memcmp(ak, bk, (size_t)(av - ak)) != 0) {
            if (n == MERGE_DIFF_KEYS)
                return;
            c->diff_key[n] = a;
            c->diff_len[n++] = (size_t)(ak - a);
        }
        a = av + (*av == ',');
        b = bv + (*bv == ',');
    }
    if (*b == '}')
        c->diff_count = n;
}

/* Appends the current point's parameters as a patch of the open block's
 * base: the shard's own patch when it names every key in which the two
 * bases differ (a grid's patches hold every swept parameter), else rebuilt. */
static int append_params(merge_writer *w, shard_cursor *c, char **err)
{
    const char *patch = c->field[2];
    size_t patch_len = (size_t)(c->end[2] - patch);
    if (c->diff_block != w->block_serial || !c->diff_base || strcmp(c->diff_base, c->base) != 0) {
        free(c->diff_base);
        if (!(c->diff_base = util_strdup(c->base)))
            return util_fail(err, "out of memory");
        c->diff_block = w->block_serial;
        diff_keys(c, w->base, c->base);
    }
    size_t i = 0;
    while (i < c->diff_count && c->diff_count != DIFF_UNKNOWN &&
           patch_has_key(patch, patch_len, c->diff_key[i], c->diff_len[i]))
        i++;
    if (i == c->diff_count) {
        strbuf_add(&w->points, patch, patch_len);
        return 0;
    }
    strbuf_reset(&w->params);
    if (params_patched(&w->params, c->base, patch, patch_len) != 0)
        return cursor_malformed(c->db, err);
    if (w->params.oom)
        return util_fail(err, "out of memory");
    if (storei_params_diff(&w->points, w->base, w->params.data) != 0)
        strbuf_str(&w->points, w->params.data);
    return 0;
}

/* The 11th field, reused_from, names a point of the shard's own file: in
 * OUT it becomes the point OUT holds with the same identity and seed
 * computed by the same .so (as --reuse would pick it there), or nothing. */
static int append_reused(merge_writer *w, shard_cursor *c, char **err)
{
    store *s = w->m->s;
    if (!w->reuse_read) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(s->db, "SELECT so_sha256 FROM temp.merge_plugin WHERE plugin = ?1",
                               -1, &st, NULL) != SQLITE_OK)
            return storei_fail_sql(s, err, "cannot read the merged plugins");
        storei_bind_text(st, 1, w->plugin);
        const char *sha =
            sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        int rc = sha ? store_reuse_find(s, w->plugin, sha, w->sweep_id, &w->reuse, err) : 0;
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
        w->reuse_read = 1;
    }
    const char *identity = c->field[3] + 1;
    if (c->end[3] - c->field[3] != 66)
        return 0;
    int64_t signed_seed = strtoll(c->field[4], NULL, 10);
    uint64_t seed;
    memcpy(&seed, &signed_seed, sizeof seed); /* stored as signed 64-bit */
    const store_reuse_entry *e = store_reuse_lookup(w->reuse, identity, seed);
    if (e)
        strbuf_printf(&w->points, ",%" PRId64, e->point_id);
    else if (w->m->partial)
        strbuf_str(&w->points, ",0"); /* reused: the final merge looks its source up in OUT */
    return 0;
}

/* Copies the current point of cursor c (its rows, then its element of the
 * open block) under the next id. */
static int write_point(merge_writer *w, shard_cursor *c, char **err)
{
    const char *const *field = c->field;
    int64_t old_id = strtoll(field[0], NULL, 10);
    int64_t id = w->next_id++, row_count = strtoll(field[9], NULL, 10);
    if (row_count > 0 && copy_rows(w, c, old_id, id, err) != 0)
        return -1;
    if (copy_runs(w, c, old_id, id, err) != 0)
        return -1;
    if (!w->block_count) {
        free(w->base);
        if (!(w->base = util_strdup(c->base)))
            return util_fail(err, "out of memory");
        w->block_first = id;
        w->block_serial++;
        strbuf_add(&w->points, "[", 1);
    } else {
        strbuf_add(&w->points, ",", 1);
    }
    /* [id, ordinal, params as a patch of the block's base, the rest as the
     * shard stored it, reused_from mapped]. */
    char digits[24], *d = digits + sizeof digits;
    for (uint64_t v = (uint64_t)id; d == digits + sizeof digits || v; v /= 10)
        *--d = (char)('0' + v % 10); /* ids are positive; printf cost 5% here */
    strbuf_add(&w->points, "[", 1);
    strbuf_add(&w->points, d, (size_t)(digits + sizeof digits - d));
    strbuf_add(&w->points, ",", 1);
    strbuf_add(&w->points, field[1], (size_t)(c->end[1] - field[1])); /* the ordinal */
    strbuf_add(&w->points, ",", 1);
    if (append_params(w, c, err) != 0)
        return -1;
    strbuf_add(&w->points, ",", 1);
    strbuf_add(&w->points, field[3], (size_t)(c->end[9] - field[3]));
    if (c->fields > ELEMENT_FIELDS && append_reused(w, c, err) != 0)
        return -1;
    strbuf_add(&w->points, "]", 1);
    if (w->points.oom)
        return util_fail(err, "out of memory");
    w->ordinals[w->block_count++] = c->ordinal;
    w->block_ok += strncmp(field[5], "\"ok\",", 5) == 0;
    return w->block_count >= MERGE_BLOCK_POINTS ? flush_block(w, err) : 0;
}

/* The shard's result columns of plugin (its table's, but the fixed ones) as
 * a list for SQL; empty when the shard has no such table. */
static int result_columns(sqlite3 *db, const char *plugin, strbuf *list)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM pragma_table_info(?1) WHERE name NOT IN"
                           " ('row_id', 'sweep_id', 'section_id', 'point_id') ORDER BY cid",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    storei_bind_text(st, 1, plugin);
    while (sqlite3_step(st) == SQLITE_ROW) {
        strbuf_str(list, ", ");
        storei_append_ident(list, (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return list->oom ? -1 : 0;
}

/* A shard section's points: its blocks in id order, or (out of order)
 * every point sorted by ordinal. */
static const char blocks_sql[] =
    "SELECT params_base, points FROM point_block WHERE section_id = ?1 AND point_count > 0"
    " ORDER BY first_point_id";
static const char points_sorted_sql[] =
    "SELECT json_extract(p.value, '$[1]'), b.params_base, p.value"
    " FROM point_block AS b, json_each(b.points) AS p WHERE b.section_id = ?1 ORDER BY 1";

/* The statements reading a shard section's rows (cols: its result columns,
 * ", a, b"): by point, and in order also all of them by row id between the
 * section's first and last, so the scan reads no other section's. */
static int prepare_rows(shard_cursor *c, const char *plugin, const char *cols, int64_t sweep_id,
                        int64_t section_id)
{
    strbuf sql = { 0 };
    strbuf_printf(&sql, "SELECT %s FROM ", *cols ? cols + 2 : "NULL");
    storei_append_ident(&sql, plugin);
    strbuf_str(&sql, " WHERE sweep_id = ?1 AND section_id = ?2 AND point_id = ?3 ORDER BY row_id");
    int rc = sql.oom || sqlite3_prepare_v2(c->db, sql.data, -1, &c->seek, NULL) != SQLITE_OK;
    if (!rc) {
        sqlite3_bind_int64(c->seek, 1, sweep_id);
        sqlite3_bind_int64(c->seek, 2, section_id);
    }
    sqlite3_stmt *bounds = NULL;
    if (!rc && c->in_order) {
        strbuf_reset(&sql);
        strbuf_str(&sql, "SELECT min(row_id), max(row_id) FROM ");
        storei_append_ident(&sql, plugin);
        strbuf_str(&sql, " WHERE sweep_id = ?1 AND section_id = ?2");
        rc = sql.oom || sqlite3_prepare_v2(c->db, sql.data, -1, &bounds, NULL) != SQLITE_OK;
        if (!rc) {
            sqlite3_bind_int64(bounds, 1, sweep_id);
            sqlite3_bind_int64(bounds, 2, section_id);
            rc = sqlite3_step(bounds) != SQLITE_ROW;
        }
    }
    if (!rc && bounds && sqlite3_column_type(bounds, 0) != SQLITE_NULL) {
        /* The unary + keeps SQLite from the index: a scan in row id order. */
        strbuf_reset(&sql);
        strbuf_printf(&sql, "SELECT point_id%s FROM ", cols);
        storei_append_ident(&sql, plugin);
        strbuf_str(&sql, " WHERE +sweep_id = ?1 AND +section_id = ?2 AND row_id BETWEEN ?3"
                         " AND ?4 ORDER BY row_id");
        rc = sql.oom || sqlite3_prepare_v2(c->db, sql.data, -1, &c->scan, NULL) != SQLITE_OK;
        if (!rc) {
            sqlite3_bind_int64(c->scan, 1, sweep_id);
            sqlite3_bind_int64(c->scan, 2, section_id);
            sqlite3_bind_int64(c->scan, 3, sqlite3_column_int64(bounds, 0));
            sqlite3_bind_int64(c->scan, 4, sqlite3_column_int64(bounds, 1));
            int step = sqlite3_step(c->scan);
            c->scan_row = step == SQLITE_ROW;
            rc = step != SQLITE_ROW && step != SQLITE_DONE;
        }
    }
    sqlite3_finalize(bounds);
    free(sql.data);
    return rc ? -1 : 0;
}

/* OUT's INSERT of plugin's rows: the fixed columns and as many result
 * columns as the shard's (cols). */
static int prepare_insert(merge_writer *w, shard_cursor *c, const char *plugin, const char *cols,
                          char **err)
{
    strbuf insert = { 0 };
    strbuf_str(&insert, "INSERT INTO main.");
    storei_append_ident(&insert, plugin);
    strbuf_printf(&insert, " (\"sweep_id\", \"section_id\", \"point_id\"%s) VALUES (?1, ?2, ?3",
                  cols);
    for (int i = 0; i < sqlite3_column_count(c->seek); i++)
        strbuf_printf(&insert, ", ?%d", i + 4);
    strbuf_str(&insert, ")");
    int rc = 0;
    if (insert.oom || sqlite3_prepare_v3(w->m->s->db, insert.data, -1, SQLITE_PREPARE_PERSISTENT,
                                         &c->insert, NULL) != SQLITE_OK)
        rc = storei_fail_sql(w->m->s, err, "cannot store the rows of \"%s\"", plugin);
    free(insert.data);
    return rc;
}

/* Prepares cursor k for section `ordinal` (its points in point order, its
 * rows, their INSERT into OUT) and steps to its first point. */
static int cursor_open_section(merge_writer *w, size_t k, int64_t ordinal, const char *plugin,
                               char **err)
{
    shard_cursor *c = &w->cursors[k];
    const char *path = w->m->paths[k];
    int64_t sweep_id = w->m->sweep_of[k], section_id = -1;
    strbuf cols = { 0 };
    sqlite3_stmt *section = NULL;
    int rc = -1;
    c->next = NULL;
    c->diff_block = -1;
    if (sqlite3_prepare_v2(c->db, "SELECT id FROM section WHERE sweep_id = ?1 AND ordinal = ?2", -1,
                           &section, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(section, 1, sweep_id);
        sqlite3_bind_int64(section, 2, ordinal);
        if (sqlite3_step(section) == SQLITE_ROW)
            section_id = sqlite3_column_int64(section, 0);
    }
    sqlite3_finalize(section);
    if (result_columns(c->db, plugin, &cols) != 0 ||
        sqlite3_prepare_v2(c->db, blocks_sql, -1, &c->points, NULL) != SQLITE_OK) {
        util_fail(err, "%s: cannot read its points: %s", path, storei_bound_errmsg(&c->bound));
        goto done;
    }
    sqlite3_bind_int64(c->points, 1, section_id);
    if (section_in_order(c, section_id, &c->in_order, err) != 0)
        goto done;
    c->ordinal = INT64_MIN;
    if (!c->in_order) {
        sqlite3_finalize(c->points);
        c->points = NULL;
        if (sqlite3_prepare_v2(c->db, points_sorted_sql, -1, &c->points, NULL) != SQLITE_OK) {
            util_fail(err, "%s: cannot read its points: %s", path, storei_bound_errmsg(&c->bound));
            goto done;
        }
        sqlite3_bind_int64(c->points, 1, section_id);
    }
    if (prepare_rows(c, plugin, cols.len ? cols.data : "", sweep_id, section_id) != 0) {
        util_fail(err, "%s: cannot read the rows of \"%s\": %s", path, plugin,
                  storei_bound_errmsg(&c->bound));
        goto done;
    }
    if (prepare_insert(w, c, plugin, cols.len ? cols.data : "", err) != 0)
        goto done;
    int step = cursor_advance(c, err);
    if (step > 0)
        w->heap[w->heap_len++] = k;
    rc = step < 0 ? -1 : 0;
done:
    strbuf_free(&cols);
    return rc;
}

static void cursor_close_section(shard_cursor *c)
{
    sqlite3_finalize(c->points);
    sqlite3_finalize(c->scan);
    sqlite3_finalize(c->seek);
    sqlite3_finalize(c->insert);
    c->points = c->scan = c->seek = c->insert = NULL;
    c->scan_row = 0;
}

/* One section: the shards' points merged by ordinal, written in turn. */
static int write_section(merge_writer *w, int64_t ordinal, char **err)
{
    int rc = 0;
    w->heap_len = 0;
    w->reuse_read = 0;
    for (size_t k = 0; k < w->m->count && rc == 0; k++)
        rc = cursor_open_section(w, k, ordinal, w->plugin, err);
    for (size_t i = w->heap_len / 2; rc == 0 && i-- > 0;)
        heap_down(w, i);
    while (rc == 0 && w->heap_len > 0) {
        shard_cursor *c = &w->cursors[w->heap[0]];
        rc = write_point(w, c, err);
        int more = rc == 0 ? cursor_advance(c, err) : -1;
        if (more < 0)
            rc = -1;
        else if (!more)
            w->heap[0] = w->heap[--w->heap_len];
        heap_down(w, 0);
    }
    if (rc == 0)
        rc = flush_block(w, err);
    for (size_t k = 0; k < w->m->count; k++)
        cursor_close_section(&w->cursors[k]);
    store_reuse_set_free(w->reuse);
    w->reuse = NULL;
    return rc;
}

/* Why the shard at path did not open, naming the descriptor limit when
 * that was the cause. */
static void open_failed(const char *path, sqlite3 *db, char **err)
{
    struct rlimit limit;
    if (db && sqlite3_system_errno(db) == EMFILE && getrlimit(RLIMIT_NOFILE, &limit) == 0)
        util_fail(err,
                  "%s: cannot open it: this process may open only %llu files at once "
                  "(ulimit -n; the hard limit is %llu): raise it, or merge fewer shards at a "
                  "time (runner merge --partial, runner slurm --merge-fanout)",
                  path, (unsigned long long)limit.rlim_cur, (unsigned long long)limit.rlim_max);
    else
        util_fail(err, "%s: cannot open it: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
}

/* A shard's connection holds at most its share of MERGE_PAGE_BUDGET: its
 * file mapped up to the share (pages read by mapping, no copy) or, when the
 * share is small, a page cache of that size; and no lookaside buffer (120
 * KB a connection, the bulk of what 5,000 open shards cost). */
static void limit_shard_memory(sqlite3 *db, size_t shards)
{
    sqlite3_db_config(db, SQLITE_DBCONFIG_LOOKASIDE, NULL, 0, 0);
    int64_t share = MERGE_PAGE_BUDGET / (int64_t)(shards ? shards : 1);
    int64_t mmap_bytes = share > MERGE_MMAP_MAX ? MERGE_MMAP_MAX : share;
    int64_t cache_kib = share / 1024 > MERGE_CACHE_MIN_KIB ? share / 1024 : MERGE_CACHE_MIN_KIB;
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA mmap_size = %lld; PRAGMA cache_size = -%lld",
             (long long)(mmap_bytes >= MERGE_MMAP_MIN ? mmap_bytes : 0),
             (long long)(mmap_bytes >= MERGE_MMAP_MIN ? MERGE_CACHE_MIN_KIB : cache_kib));
    sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int store_merge_write_points(merge *m, int64_t sweep_id, int64_t *rows, char **err)
{
    store *s = m->s;
    merge_writer w = { .m = m, .sweep_id = sweep_id };
    w.cursors = calloc(m->count, sizeof *w.cursors);
    w.heap = calloc(m->count, sizeof *w.heap);
    int rc = -1;
    sqlite3_stmt *sections = NULL, *next_id = NULL;
    if (!w.cursors || !w.heap) {
        util_fail(err, "out of memory");
        goto done;
    }
    /* One thread reads each shard, start to end: no mutexes, and pages
     * mapped rather than read a syscall each. */
    for (size_t k = 0; k < m->count; k++) {
        const char *uri = m->uri_of[k];
        if (sqlite3_open_v2(uri ? uri : m->paths[k], &w.cursors[k].db,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
                                (uri ? SQLITE_OPEN_URI : 0),
                            NULL) != SQLITE_OK) {
            open_failed(m->paths[k], w.cursors[k].db, err);
            goto done;
        }
        storei_bound_install(w.cursors[k].db, &w.cursors[k].bound, s->bound.timeout_s);
        limit_shard_memory(w.cursors[k].db, m->count);
    }
    storei_checkpoint_late(s);
    /* After the points OUT holds: a merge redone after one cut short (its
     * points deleted) numbers them as the first one did. */
    if (storei_exec(s, "BEGIN IMMEDIATE", "cannot begin storing merged points", err) != 0)
        goto done;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT coalesce(max(last_point_id), 0) + 1 FROM"
                           " main.point_block",
                           -1, &next_id, NULL) != SQLITE_OK ||
        sqlite3_step(next_id) != SQLITE_ROW) {
        storei_fail_sql(s, err, "cannot number the merged points");
        goto done;
    }
    w.next_id = sqlite3_column_int64(next_id, 0);
    sqlite3_reset(next_id); /* none open across the commits (flush_block) */
    if (sqlite3_prepare_v2(s->db,
                           "SELECT ordinal, plugin, new_id FROM temp.merge_section"
                           " WHERE ordinal > ?1 ORDER BY ordinal LIMIT 1",
                           -1, &sections, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "cannot read the sections");
        goto done;
    }
    rc = 0;
    for (int64_t ordinal = INT64_MIN; rc == 0;) {
        sqlite3_bind_int64(sections, 1, ordinal);
        if (sqlite3_step(sections) != SQLITE_ROW)
            break;
        ordinal = sqlite3_column_int64(sections, 0);
        w.section_id = sqlite3_column_int64(sections, 2);
        char *plugin = util_strdup((const char *)sqlite3_column_text(sections, 1));
        sqlite3_reset(sections);
        if (!plugin) {
            rc = util_fail(err, "out of memory");
            break;
        }
        w.plugin = plugin;
        rc = write_section(&w, ordinal, err);
        free(plugin);
    }
    if (rc == 0)
        rc = storei_exec(s, "COMMIT", "cannot commit merged points", err);
    *rows = w.rows;
done:
    if (rc != 0)
        storei_rollback(s);
    sqlite3_finalize(sections);
    sqlite3_finalize(next_id);
    for (size_t k = 0; w.cursors && k < m->count; k++) {
        sqlite3_finalize(w.cursors[k].runs);
        sqlite3_close(w.cursors[k].db);
        free(w.cursors[k].diff_base);
    }
    free(w.cursors);
    free(w.heap);
    strbuf_free(&w.points);
    strbuf_free(&w.params);
    free(w.base);
    return rc;
}
