/* section_columns: some columns of a stored section, every row, read
 * through a store cursor: a plot needs x, y and by, not the twenty other
 * columns of a million rows. */
#ifndef RUNNER_SECTION_COLUMNS_H
#define RUNNER_SECTION_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "base/table.h"
#include "store/store.h"

/* A new table titled like cols (store_section_columns' table of the
 * section) with the columns named in names[0 .. count) (NULL entries and
 * repeats skipped; each must be a column of cols), holding every row of the
 * section in stored order. plugin is the section's result table. *out is
 * the caller's (table_free). Returns 0, or -1 with *err. */
int section_columns_load(store *s, int64_t section_id, const char *plugin, const table *cols,
                         const char *const *names, size_t count, table **out, char **err);

#endif
