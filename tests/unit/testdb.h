/* testdb.h: the temporary databases of the unit tests, in RUNNER_TEST_TMP
 * (ctest sets it to build/tests/tmp; /tmp otherwise). Header-only like
 * check.h, so a test program stays one file; include it after check.h. */
#ifndef RUNNER_TESTDB_H
#define RUNNER_TESTDB_H

#include <stdio.h>
#include <stdlib.h>

#include "store/store.h"

/* The folder the tests' files go to. */
static inline const char *testdb_dir(void)
{
    const char *tmp = getenv("RUNNER_TEST_TMP");
    return tmp && *tmp ? tmp : "/tmp";
}

/* "DIR/name", in one of four static buffers used in turn, so a test can
 * hold a few paths at once. The file is left as it is. */
static inline const char *testdb_path(const char *name)
{
    static char paths[4][600];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, sizeof paths[0], "%s/%s", testdb_dir(), name);
    return path;
}

/* Removes the database at path and its -wal, -shm and -journal, if any. */
static inline void testdb_remove(const char *path)
{
    static const char *const sides[] = { "-wal", "-shm", "-journal" };
    char side[700];
    remove(path);
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        snprintf(side, sizeof side, "%s%s", path, sides[i]);
        remove(side);
    }
}

/* testdb_path(name) with no database left there (testdb_remove). */
static inline const char *testdb_fresh_path(const char *name)
{
    const char *path = testdb_path(name);
    testdb_remove(path);
    return path;
}

/* A store on a new database at path (whatever was there is removed), with
 * plugin's tables prepared unless plugin is NULL. NULL after a failed check
 * that says why on stderr. The caller closes it (store_close). */
static inline store *testdb_open(const char *path, const runner_plugin *plugin)
{
    store *s = NULL;
    char *err = NULL;
    testdb_remove(path);
    if (store_open(path, &s, &err) != 0 || (plugin && store_prepare_plugin(s, plugin, &err) != 0)) {
        fprintf(stderr, "%s: cannot set up a test database: %s\n", path,
                err ? err : "(no message)");
        free(err);
        store_close(s);
        check_failures++;
        return NULL;
    }
    return s;
}

#endif
