/* plot_load: the rows of a stored section a plot draws, and no more, for
 * `runner plot` and `runner report`: two passes of a store cursor over the
 * plotted columns keep what plot_reduce would keep (the drawn lines; above
 * PLOT_MAX_POINTS, each line's lowest and highest y per x-column), so a
 * million rows are never held (memory: the distinct by values and at most
 * PLOT_MAX_POINTS rows, plus a set of x per drawn line while no x has
 * repeated in it). The picture drawn from them is the one plot_render
 * draws from every row. */
#ifndef RUNNER_PLOT_LOAD_H
#define RUNNER_PLOT_LOAD_H

#include <stdint.h>

#include "base/table.h"
#include "plot.h"
#include "store/store.h"

/* *out: a new table (the caller's, table_free) with the columns x, y and by
 * of spec (section_columns_head) holding the kept rows, line by line in
 * drawing order; pre: what plot_render is to say about every row (set
 * spec->preload to it when drawing *out). cols: the section's columns
 * (store_section_columns). Returns 0, or -1 with *err. */
int plot_load_section(store *s, int64_t section_id, const char *plugin, const table *cols,
                      const plot_spec *spec, table **out, plot_preload *pre, char **err);

#endif
