/* test_store_catalog: the names the catalog takes come from one list
 * (store_catalog.c). The whole catalog is built the way a new file gets it
 * (schema.sql, then every step schema.sql cannot hold, such as the sweeps
 * list's indexes) into :memory:, and every object SQLite then holds must be
 * a reserved name, so a plugin can never be named like one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/store.h"

static void test_every_catalog_object_is_reserved(void)
{
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(store_open(":memory:", &s, &err), 0);
    if (!s) {
        fprintf(stderr, "  %s\n", err ? err : "?");
        free(err);
        return;
    }
    char **names = NULL;
    size_t count = 0;
    CHECK_INT_EQ(store_catalog_objects(s, &names, &count, &err), 0);
    int has_list = 0, has_by_name = 0;
    for (size_t i = 0; i < count; i++) {
        if (!store_reserved_name(names[i])) {
            fprintf(stderr, "  the catalog's \"%s\" is not reserved (store_catalog.c)\n", names[i]);
            check_failures++;
        }
        has_list |= strcmp(names[i], "sweep_list") == 0;
        has_by_name |= strcmp(names[i], "sweep_by_name") == 0;
    }
    /* The indexes a new file gets from a migration step, not schema.sql. */
    CHECK(has_list);
    CHECK(has_by_name);
    CHECK(count >= 30);
    store_free_strings(names, count);
    store_close(s);
}

static void test_reserved_names(void)
{
    const char *reserved[] = { "sweep_list",       "SWEEP_BY_NAME",    "point_index_timeout",
                               "sweep_high_water", "point_by_section", "sqlite_anything",
                               "row_id",           "point_id" };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!store_reserved_name(reserved[i])) {
            fprintf(stderr, "  %s should be reserved\n", reserved[i]);
            check_failures++;
        }
    const char *free_names[] = { "sweep_lists", "testkit", "list", "by_name" };
    for (size_t i = 0; i < sizeof free_names / sizeof free_names[0]; i++)
        if (store_reserved_name(free_names[i])) {
            fprintf(stderr, "  %s should not be reserved\n", free_names[i]);
            check_failures++;
        }
}

int main(void)
{
    test_every_catalog_object_is_reserved();
    test_reserved_names();
    return check_done("test_store_catalog");
}
