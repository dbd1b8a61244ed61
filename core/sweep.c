/* sweep: the point loop. Each point: parameters from the grid, canonical
 * form and seed, plugin run through the host, then one atomic store. */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "param.h"
#include "progress.h"
#include "util.h"

static int record_plugin(sweep_run *run, const loaded_plugin *lp, char **err)
{
    for (size_t i = 0; i < run->recorded_count; i++)
        if (strcmp(run->recorded_plugins[i], lp->desc->name) == 0)
            return 0;
    if (store_prepare_plugin(run->store, lp->desc, err) != 0)
        return -1;
    if (store_sweep_plugin(run->store, run->sweep_id, lp->desc->name, lp->desc->version,
                           lp->path, lp->sha256, err) != 0)
        return -1;
    char **names = realloc(run->recorded_plugins, (run->recorded_count + 1) * sizeof *names);
    if (!names)
        return util_fail(err, "out of memory");
    run->recorded_plugins = names;
    names[run->recorded_count++] = util_strdup(lp->desc->name);
    return 0;
}

static table *new_result_table(const runner_plugin *plugin, const char *title)
{
    table *t = table_new(title ? title : plugin->name);
    if (!t)
        return NULL;
    for (uint32_t i = 0; i < plugin->param_count; i++)
        if (table_add_column(t, plugin->params[i].name, plugin->params[i].unit,
                             plugin->params[i].type, 1) != 0)
            goto fail;
    for (uint32_t i = 0; i < plugin->column_count; i++)
        if (table_add_column(t, plugin->columns[i].name, plugin->columns[i].unit,
                             plugin->columns[i].type, 0) != 0)
            goto fail;
    return t;
fail:
    table_free(t);
    return NULL;
}

/* Appends a point's rows (parameters repeated on each) to the table. */
static int append_rows(table *t, const runner_plugin *plugin, const value *params,
                       const runner_point *point)
{
    size_t width = plugin->param_count + plugin->column_count;
    value *row = calloc(width, sizeof *row);
    if (!row)
        return -1;
    for (size_t r = 0; r < point->row_count; r++) {
        for (uint32_t i = 0; i < plugin->param_count; i++)
            if (value_copy(&row[i], &params[i]) != 0)
                goto fail;
        for (uint32_t i = 0; i < plugin->column_count; i++)
            if (value_copy(&row[plugin->param_count + i],
                           &point->rows[r * plugin->column_count + i]) != 0)
                goto fail;
        if (table_append_row(t, row) != 0)
            goto fail;
    }
    free(row);
    return 0;
fail:
    for (size_t i = 0; i < width; i++)
        value_clear(&row[i]);
    free(row);
    return -1;
}

int sweep_run_section(sweep_run *run, const loaded_plugin *lp, const grid *g,
                      const char *title, int script_line, table **rows, char **err)
{
    const runner_plugin *plugin = lp->desc;
    uint64_t count = grid_point_count(g);
    int64_t section_id = 0;
    value *params = calloc(plugin->param_count ? plugin->param_count : 1, sizeof *params);
    table *result = rows ? new_result_table(plugin, title) : NULL;
    runner_point point;
    int point_ready = 0, rc = -1;
    progress bar;
    progress_begin(&bar, plugin->name, count, run->quiet);

    if (!params || (rows && !result) || host_point_init(&point, plugin, run->stop) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    point_ready = 1;
    if (record_plugin(run, lp, err) != 0)
        goto done;
    run->section_count++;
    if (store_section_begin(run->store, run->sweep_id, run->section_count, plugin->name, title,
                            script_line, (int64_t)count, &section_id, err) != 0)
        goto done;

    for (uint64_t index = 0; index < count; index++) {
        if (run->stop && *run->stop) {
            run->interrupted = 1;
            break;
        }
        grid_point(g, index, params);
        char *canonical = param_canonical_json(plugin, params);
        char identity[65];
        uint64_t seed = 0;
        if (!canonical || param_point_identity(plugin, canonical, run->seed, identity, &seed) != 0) {
            free(canonical);
            util_fail(err, "out of memory");
            goto done;
        }
        host_point_reset(&point, params, seed);
        double started = util_now(), clock0 = util_monotonic();
        int failed = host_run_point(&point) != 0;
        if (failed && run->stop && *run->stop) {
            /* Cut short by Ctrl-C: not a result. Leave it unstored so a
             * resumed sweep runs it again. */
            free(canonical);
            run->interrupted = 1;
            break;
        }
        store_point record = {
            .sweep_id = run->sweep_id,
            .section_id = section_id,
            .ordinal = (int64_t)index,
            .params_json = canonical,
            .identity = identity,
            .seed = seed,
            .status = failed ? "failed" : "ok",
            .error = failed ? point.error : NULL,
            .started_at = started,
            .duration_s = util_monotonic() - clock0,
            .params = params,
            .row_count = point.row_count,
            .rows = point.rows,
        };
        if (failed) {
            run->points_failed++;
            progress_clear(&bar);
            fprintf(stderr, "runner: %s point %llu %s failed: %s\n", plugin->name,
                    (unsigned long long)index, canonical, point.error);
        } else {
            run->points_ok++;
        }
        int stored = store_write_point(run->store, plugin, &record, err);
        free(canonical);
        if (stored != 0)
            goto done;
        if (result && !failed && append_rows(result, plugin, params, &point) != 0) {
            util_fail(err, "out of memory keeping the rows of section '%s'",
                      title ? title : plugin->name);
            goto done;
        }
        progress_update(&bar, index + 1);
    }
    if (store_flush(run->store, err) != 0)
        goto done;
    rc = 0;
done:
    progress_end(&bar);
    if (point_ready)
        host_point_free(&point);
    free(params);
    if (rc == 0 && rows)
        *rows = result;
    else
        table_free(result);
    return rc;
}

void sweep_run_free(sweep_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->recorded_count; i++)
        free(run->recorded_plugins[i]);
    free(run->recorded_plugins);
    run->recorded_plugins = NULL;
    run->recorded_count = 0;
}
