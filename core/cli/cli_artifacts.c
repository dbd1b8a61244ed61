/* cli_artifacts: `runner artifacts SWEEP [--point ID] [--extract DIR]`:
 * the files a command sweep kept (docs/command-experiments.md), listed or
 * written out as DIR/<point id>/<name>. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/exit_status.h"
#include "base/outfile.h"
#include "base/quote.h"
#include "base/table.h"
#include "base/util.h"
#include "cli.h"
#include "render/render.h"

/* One artifact's bytes as the new file name in the directory dirfd. */
static int write_one(int dirfd, const char *name, const char *shown, const void *data, size_t size,
                     char **err)
{
    outfile *f = outfile_begin(dirfd, name, shown, 0666, err);
    if (!f)
        return -1;
    if (size && fwrite(data, 1, size, outfile_stream(f)) != size) {
        util_fail(err, "%s: cannot write: %s", shown, strerror(errno));
        outfile_discard(f);
        return -1;
    }
    return outfile_commit(f, err);
}

/* Writes each listed artifact under dir as DIR/<point id>/<name>, never
 * through a link planted at either name (outfile.h). Returns 0, or -1 with
 * *err. */
static int extract(store *s, const table *t, const char *dir, char **err)
{
    int dirfd = outfile_open_dir(dir, 1, err);
    if (dirfd < 0)
        return -1;
    int rc = 0;
    for (size_t r = 0; r < t->row_count && rc == 0; r++) {
        long long point = (long long)table_cell(t, r, 0)->as.integer;
        const char *name = table_cell(t, r, 1)->as.text;
        const char *sha = table_cell(t, r, 3)->as.text;
        if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
            char *shown = quote_terminal(name);
            rc = util_fail(err,
                           "artifact name '%s' of point %lld is not a plain file name; "
                           "not extracted",
                           shown ? shown : "?", point);
            free(shown);
            break;
        }
        char point_name[32];
        snprintf(point_name, sizeof point_name, "%lld", point);
        char *point_dir = util_format("%s/%s", dir, point_name);
        char *path = util_format("%s/%s/%s", dir, point_name, name);
        void *data = NULL;
        size_t size = 0;
        int point_fd = -1;
        rc = -1;
        if (!point_dir || !path)
            util_fail(err, "out of memory");
        else if ((point_fd = outfile_open_subdir(dirfd, point_name, point_dir, err)) >= 0 &&
                 store_artifact_content(s, sha, &data, &size, err) == 0)
            rc = write_one(point_fd, name, path, data, size, err);
        if (point_fd >= 0)
            close(point_fd);
        free(data);
        free(point_dir);
        free(path);
    }
    close(dirfd);
    return rc;
}

int cli_artifacts(const options_parsed *a)
{
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0;
    int status = cli_open_sweep(a, &s, &sweep_id, &ids, &count);
    if (status != EXIT_OK)
        return status;
    free(ids);
    const option_value *point = &a->values[OPTION_ARTIFACT_POINT];
    const char *dir = a->values[OPTION_ARTIFACT_EXTRACT].text;
    table *t = NULL;
    char *err = NULL;
    if (store_artifact_list(s, sweep_id, point->given ? (int64_t)point->integer : 0, &t, &err) !=
        0) {
        status = cli_fail(err);
    } else if (t->row_count == 0) {
        status = cli_fail(
            point->given
                ? util_format("sweep %lld has no artifacts for point %llu", (long long)sweep_id,
                              (unsigned long long)point->integer)
                : util_format("sweep %lld has no artifacts (only command experiments keep them)",
                              (long long)sweep_id));
    } else if (dir) {
        if (extract(s, t, dir, &err) != 0)
            status = cli_fail(err);
        else
            cli_error("%zu artifacts of sweep %lld written to %s", t->row_count,
                      (long long)sweep_id, dir);
    } else {
        output_format format = OUTPUT_TABLE;
        output_parse_format(a->values[OPTION_FORMAT].text, &format);
        if (output_table(stdout, t, format) != 0)
            status = cli_fail(util_format("cannot print the artifacts: out of memory or "
                                          "output closed"));
    }
    table_free(t);
    store_close(s);
    return status;
}
