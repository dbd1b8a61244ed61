/* store_query.h: read-only queries for the dashboard (serve) and the HTML
 * report, so that no SQL text lives outside the store: the store's second
 * face (core/layers.txt), included by the readers that need it (serve,
 * render's report, history, provenance); implemented in store_query.c,
 * store_page.c (with store_count.c) and store_plot.c.
 *
 * "As stored": the tables these functions return hold each cell as SQLite
 * holds it, INTEGER, REAL, TEXT or NULL, whatever the column's declared type
 * (a NaN output stored as the text 'NaN' stays text, a boolean is 0 or 1),
 * so a caller shows exactly what the file holds. Every table is new and the
 * caller frees it with table_free. Errors as everywhere in the store: 0, or
 * -1 with *err malloc'd. */
#ifndef RUNNER_STORE_QUERY_H
#define RUNNER_STORE_QUERY_H

/* --- a server's reading connection (store_query.c) ----------------------- */

typedef struct store_read_limits {
    int busy_timeout_ms;   /* how long a read waits for a writer's checkpoint */
    int cache_kib;         /* the connection's page cache */
    double deadline_s;     /* monotonic time (util_monotonic): statements
                              * still running after it are interrupted */
    int (*stopping)(void); /* nonzero: interrupt at once (may be NULL) */
} store_read_limits;
/* Bounds a store opened with store_open_read for one request of a server
 * (limits is copied) and makes its connection query-only. */
int store_read_limit(store *s, const store_read_limits *limits, char **err);
/* A read transaction on a reading store: every query between hold and
 * release sees the file as it was at the first (a comparison's two passes
 * agree while a sweep writes). hold: 0, or -1 with *err; release ends it
 * (nothing was written; accepts a store that holds none). */
int store_read_hold(store *s, char **err);
void store_read_release(store *s);

/* --- sweeps (store_query.c) ---------------------------------------------- */

/* What the sweeps page may be sorted by (then by id, the same way). */
typedef enum store_sweep_sort {
    STORE_SWEEP_BY_ID,
    STORE_SWEEP_BY_STARTED,
    STORE_SWEEP_BY_SCRIPT,
    STORE_SWEEP_BY_STATUS, /* as readers show it (STORE_SWEEP_STATUS_SQL) */
    STORE_SWEEP_BY_NAME,
    STORE_SWEEP_BY_DURATION, /* to the end, or to now while running */
} store_sweep_sort;

/* One page (limit rows from offset) of the sweeps matching f (the one
 * filter of store_manage.c; NULL: all), as stored: id, script, status,
 * started_at, ended_at, duration_s, name, note, tags (a JSON array of the
 * sorted tags, as text), points_ok, points_failed, points_planned. *total:
 * how many sweeps match f. The page's ids are chosen first, so only its
 * rows get their counts and tags. */
int store_sweep_page(store *s, const store_sweep_filter *f, store_sweep_sort sort, int descending,
                     int64_t limit, int64_t offset, table **rows, int64_t *total, char **err);
/* The sweep's row with every column the catalog has (a newer schema's
 * too), as stored; no row when there is no such sweep. */
int store_sweep_row(store *s, int64_t sweep_id, table **out, char **err);
/* The plugins the sweep recorded, in the order recorded: plugin,
 * plugin_version, so_path, so_sha256. */
int store_sweep_plugin_list(store *s, int64_t sweep_id, table **out, char **err);
/* The sweep's tags, sorted: one column, tag. */
int store_sweep_tag_list(store *s, int64_t sweep_id, table **out, char **err);
/* The sweep's sections in order (ordinal, then id), as stored: id,
 * ordinal, plugin, title, script_line, point_count, points_done,
 * points_failed, points_ok (the last three from its point blocks). */
int store_sweep_section_list(store *s, int64_t sweep_id, table **out, char **err);
/* How far the sweep is: one row (none when there is no such sweep):
 * status (as readers show it), started_at, ended_at, elapsed_s (to its end,
 * or to now while running), points_planned (of the sections begun),
 * sections, points_done, points_failed. */
int store_sweep_progress(store *s, int64_t sweep_id, table **out, char **err);

/* --- a section (store_query.c) ------------------------------------------- */

/* The section's points that did not succeed, by ordinal, at most max:
 * ordinal, status, params_json, error ('' when none). expected, how many
 * there are (from the section's counts), picks the plan: a few are found
 * through the index of failures, many by reading each block once. */
int store_failed_points(store *s, int64_t section_id, int64_t expected, size_t max, table **out,
                        char **err);
/* What the plugin's columns mean: name, doc ('' when none). */
int store_column_docs(store *s, const char *plugin, table **out, char **err);
/* The section's columns as store_section_columns has them (no rows), but
 * only those its result table already has (a plugin_column row can come a
 * moment before its ALTER TABLE while a sweep widens the table); *plugin
 * (malloc'd, the caller frees) and *sweep_id. When there is no such
 * section, returns 0 with *out NULL. */
int store_section_result_columns(store *s, int64_t section_id, table **out, char **plugin,
                                 int64_t *sweep_id, char **err);

/* --- a page of a section's rows (store_page.c) ---------------------------- */

/* How a row filter compares its column with the value. */
typedef enum store_row_op {
    STORE_ROW_EQ,
    STORE_ROW_NE,
    STORE_ROW_LT,
    STORE_ROW_LE,
    STORE_ROW_GT,
    STORE_ROW_GE,
    STORE_ROW_CONTAINS, /* the value is part of the cell's text */
} store_row_op;

typedef struct store_row_query {
    int64_t section_id, sweep_id; /* store_section_result_columns's */
    const char *plugin;           /* its result table (borrowed) */
    const table *columns;         /* its columns (borrowed) */
    long sort_column;             /* index in columns; -1: by key, (point_id, row_id) */
    int descending;
    long filter_column; /* -1: every row */
    store_row_op op;
    const char *filter_value;   /* on an integer or real column, a number
                                   * ("inf", "-inf" and "NaN" too; see
                                   * store_row_filter_check), compared as
                                   * one; elsewhere a number when it reads
                                   * as one (2 = 2.0), else text */
    const store_row_key *after; /* keyset paging, by key only: the rows after
                                   * this one (before it, descending); offset unused */
    int64_t limit, offset;
} store_row_query;

/* 0 when q's filter can be applied, else -1 with *err, a line for the
 * client: a value that is not a number on an integer or real column.
 * There, numbers (and inf, -inf, stored as reals) compare as numbers;
 * NaN, stored as the text 'NaN', matches eq NaN, every ne but ne NaN, and
 * no order (lt, le, gt, ge), as in IEEE 754; NULL matches nothing. */
int store_row_filter_check(const store_row_query *q, char **err);

/* One page of the rows q selects (q's filter as store_row_filter_check
 * says, which it calls): point_id, q's columns, row_id, as
 * stored. *total: how many rows the filter matches, counted in the same
 * read transaction as the page, and kept in the process per (section,
 * filter) until the section's point blocks change (a live sweep's total
 * still grows). */
int store_row_page(store *s, const store_row_query *q, table **rows, int64_t *total, char **err);

/* --- the sort cache: a big section's column sorted once (store_sort_cache.c)
 * A sorted or filtered page of a section of at least min_rows rows, whose
 * sweep is not running, read through a copy of (row_id, the column) in key
 * order, indexed both ways, kept in the database file cache_path (runner's
 * own, FILE.runner-cache next to the user's; made on first use, the user's
 * file only read). A copy is made on the first sort or filter on its
 * column and used while the section's point blocks are unchanged (the
 * fingerprint store_row_page's totals use); a stale one is made again, a
 * damaged file deleted. The rows, their order and the total are
 * store_row_page's. Returns 1 with *rows and *total set; 0 when the cache
 * does not answer (a small or running section, a sort and a filter on two
 * columns, after=, another server making the copy, an error reading the
 * user's file): the caller calls store_row_page; -1 with *err when the
 * cache file cannot be made or written (an unwritable directory): the
 * caller calls store_row_page and need not try again. */
int store_row_page_cached(store *s, const store_row_query *q, const char *cache_path,
                          int64_t min_rows, table **rows, int64_t *total, char **err);

/* --- two columns of a section for a chart (store_plot.c) ----------------- */

typedef struct store_plot_query {
    int64_t section_id, sweep_id;
    const char *plugin;     /* the result table (borrowed) */
    const char *x, *y, *by; /* column names (borrowed); by NULL: one line */
    size_t max_lines;       /* lines at most: evenly spaced through the
                                  * sorted by values, first and last kept */
    size_t max_groups;      /* distinct by values read to choose them from */
    int64_t max_points;     /* above this many points, each line keeps the
                                  * lowest and highest y of each x-column */
    size_t x_columns;       /* how many x-columns then */
} store_plot_query;

typedef struct store_plot_point {
    size_t line; /* index into labels */
    size_t order;
    double x, y;
} store_plot_point;

/* The rows where x and y are both numbers, cut down as q says. */
typedef struct store_plot_data {
    char *labels[64];         /* each line's by value as text (owned); "" for one line */
    size_t line_count;        /* lines drawn, at most q->max_lines (and 64) */
    size_t lines_total;       /* distinct by values read */
    int64_t points_total;     /* rows with numeric x and y */
    int reduced;              /* cut to min/max per x-column */
    store_plot_point *points; /* finite points of the drawn lines */
    size_t count;
} store_plot_data;

int store_plot_read(store *s, const store_plot_query *q, store_plot_data *out, char **err);
void store_plot_data_clear(store_plot_data *d); /* accepts NULL */

#endif
