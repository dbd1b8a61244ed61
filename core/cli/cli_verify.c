/* cli_verify: `runner verify SWEEP [--sample N] [--seed S]`: finds the
 * sweep's plugins, checks each file against the SHA-256 the sweep recorded,
 * and has verify.c run the points again; prints what differs and the
 * verdict. Opens the database read-only: nothing is written. */
#include "base/exit_status.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "plugin/plugin.h"
#include "run/run.h"

/* The distinct plugins of the sweep's sections, in order (malloc'd names). */
static int sweep_plugins(store *s, const int64_t *ids, size_t count, char ***names,
                         size_t *name_count, char **err)
{
    *names = calloc(count + 1, sizeof **names);
    *name_count = 0;
    if (!*names)
        return util_fail(err, "out of memory");
    for (size_t i = 0; i < count; i++) {
        table *columns = NULL;
        char *plugin = NULL;
        if (store_section_columns(s, ids[i], &columns, &plugin, err) != 0)
            return -1;
        table_free(columns);
        int seen = 0;
        for (size_t k = 0; k < *name_count && !seen; k++)
            seen = strcmp((*names)[k], plugin) == 0;
        if (seen)
            free(plugin);
        else
            (*names)[(*name_count)++] = plugin;
    }
    return 0;
}

/* The loaded plugin for a stored one; says so when its file is not the one
 * the sweep used (*mismatch). NULL, printed, when it cannot be found. */
static const loaded_plugin *find_plugin(store *s, plugin_registry *reg, int64_t sweep_id,
                                        const char *name, int *mismatch, char **err)
{
    char *find_err = NULL, *version = NULL, *sha256 = NULL;
    const loaded_plugin *lp = plugin_registry_get(reg, name, &find_err);
    if (!lp) {
        /* Where the sweep found it: the directory to give --plugin-dir. */
        char *so_path = NULL, *path_err = NULL;
        store_sweep_plugin_path(s, sweep_id, name, &so_path, &path_err);
        const char *slash = so_path ? strrchr(so_path, '/') : NULL;
        if (slash)
            cli_error("verify: sweep %lld used plugin \"%s\": %s; the sweep loaded it from %s: add "
                      "--plugin-dir %.*s",
                      (long long)sweep_id, name, find_err ? find_err : "not found", so_path,
                      slash == so_path ? 1 : (int)(slash - so_path), so_path);
        else
            cli_error("verify: sweep %lld used plugin \"%s\": %s", (long long)sweep_id, name,
                      find_err ? find_err : "not found");
        free(so_path);
        free(path_err);
        free(find_err);
        return NULL;
    }
    if (store_sweep_plugin_file(s, sweep_id, name, &version, &sha256, err) != 0)
        return NULL;
    if (!sha256 || strcmp(sha256, lp->sha256) != 0) {
        printf("%s: %s is not the file sweep %lld used: sha256 %s now, %s then\n", name, lp->path,
               (long long)sweep_id, lp->sha256, sha256 ? sha256 : "not recorded");
        *mismatch = 1;
    }
    if (version && strcmp(version, lp->desc->version) != 0)
        printf("%s: version %s now, %s then\n", name, lp->desc->version, version);
    free(version);
    free(sha256);
    return lp;
}

/* verify re-runs plugins, whose run() is a pure function of a point's
 * parameters and seed. A command's points are a program's output: the
 * declaration that ran it (argv, output parsing, repeats, files) lives in
 * the script, and its timings vary by design, so nothing stored says what a
 * re-run should be compared with. Refused, saying what to do instead. */
static int refuse_command(int64_t sweep_id, const char *name, const char *program)
{
    char shown[200], shown_program[600];
    cli_error("verify: sweep %lld ran command \"%s\" (%s), not a plugin; verify re-runs "
              "plugins only (a command's declaration lives in its script, and its output is not "
              "a function of the stored parameters): run the script again and compare the two "
              "sweeps with 'runner diff'",
              (long long)sweep_id, util_printable(name, shown, sizeof shown),
              util_printable(program, shown_program, sizeof shown_program));
    return EXIT_USAGE;
}

/* Runs every plugin's points again; returns the exit status. */
static int verify_sweep(store *s, plugin_registry *reg, const options_parsed *a, int64_t sweep_id,
                        char **names, size_t name_count, char **err)
{
    store_sweep_record record = { 0 };
    store_sweep_digest digest = { 0 };
    if (store_find_sweep(s, sweep_id, NULL, &record, err) != 0 ||
        store_sweep_digest_read(s, sweep_id, &digest, err) != 0) {
        store_sweep_record_clear(&record);
        return -1;
    }
    uint64_t total = (uint64_t)(digest.points_ok + digest.points_failed);
    const option_value *v = a->values;
    verify_sample sample;
    verify_sample_init(&sample, total,
                       v[OPTION_SAMPLE].given && v[OPTION_SAMPLE].integer < total
                           ? v[OPTION_SAMPLE].integer
                           : UINT64_MAX,
                       v[OPTION_SAMPLE_SEED].integer);
    verify_report report = { .out = stdout };
    int mismatch = 0, rc = 0;
    for (size_t i = 0; i < name_count && rc == 0; i++) {
        const loaded_plugin *lp = find_plugin(s, reg, sweep_id, names[i], &mismatch, err);
        rc = !lp ? (*err ? -1 : EXIT_USAGE)
                 : verify_plugin(s, sweep_id, record.seed, lp, &sample, &report, err);
    }
    if (rc == 0) {
        if (report.not_rerun)
            printf("%llu crashed or timed-out points were not run again\n",
                   (unsigned long long)report.not_rerun);
        if (report.differing)
            printf("sweep %lld not reproduced: %llu of %llu points run again differ "
                   "(columns: %s)\n",
                   (long long)sweep_id, (unsigned long long)report.differing,
                   (unsigned long long)report.checked,
                   report.columns ? report.columns : "none; see above");
        else
            printf("sweep %lld %s: %llu of %llu points run again, every row identical%s\n",
                   (long long)sweep_id, mismatch ? "not verified" : "reproduced",
                   (unsigned long long)report.checked, (unsigned long long)total,
                   mismatch ? ", but not by the plugin file it used" : "");
        rc = report.differing || mismatch ? EXIT_DIFFERENT : EXIT_OK;
    }
    verify_report_clear(&report);
    store_sweep_record_clear(&record);
    store_sweep_digest_clear(&digest);
    return rc;
}

int cli_verify(const options_parsed *a)
{
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0, name_count = 0;
    char **names = NULL, *err = NULL;
    plugin_registry *reg = NULL;
    int status = cli_open_sweep(a, &s, &sweep_id, &ids, &count);
    if (status != EXIT_OK)
        return status;
    if (sweep_plugins(s, ids, count, &names, &name_count, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    for (size_t i = 0; i < name_count; i++) {
        char *program = NULL;
        if (store_sweep_command_program(s, sweep_id, names[i], &program, &err) != 0) {
            status = cli_fail(err);
            goto done;
        }
        if (program) {
            status = refuse_command(sweep_id, names[i], program);
            free(program);
            goto done;
        }
    }
    if (plugin_registry_open(a->values[OPTION_PLUGIN_DIR].list, &reg, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    int rc = verify_sweep(s, reg, a, sweep_id, names, name_count, &err);
    status = rc < 0 ? cli_fail(err) : rc;
done:
    for (size_t i = 0; names && i < name_count; i++)
        free(names[i]);
    free(names);
    plugin_registry_free(reg);
    free(ids);
    store_close(s);
    return status;
}
