/* grid: the points of one sweep section. Each parameter is fixed (its
 * default or one value) or an axis of values; axes are crossed (cartesian
 * product) unless they belong to one zip group, whose axes advance together.
 * Dimensions are ordered by parameter declaration order, so the first
 * declared parameter varies slowest, whatever order the script used. */
#ifndef RUNNER_GRID_H
#define RUNNER_GRID_H

#include <stddef.h>
#include <stdint.h>
#include "base/value.h"
#include "runner/plugin.h"

typedef struct grid grid;

/* A grid with every parameter at its default. NULL on no memory. */
grid *grid_new(const runner_plugin *plugin);
void grid_free(grid *g); /* accepts NULL */
/* Sets parameter param_index to count already-validated values, taking
 * ownership of them (and of the array, which must be malloc'd). count == 1
 * fixes the parameter. zip_group > 0 pairs the axis with others of the same
 * group. Returns 0 or -1 (no memory). */
int grid_set(grid *g, uint32_t param_index, value *values, size_t count, int zip_group);
/* Forms the dimensions and counts the points. Fails with a message when zipped
 * axes differ in length, or the count exceeds max_points (0: no limit). */
int grid_finish(grid *g, uint64_t max_points, uint64_t *point_count, char *msg, size_t msg_size);
uint64_t grid_point_count(const grid *g);
/* The canonical JSON of point `index` (what param_canonical_json gives for
 * its values), built from fragments formatted once per axis value: a point
 * costs a few memcpy, not a JSON encoder. Writes at most size bytes with a
 * NUL; returns the length (>= size means it did not fit), or -1 when the
 * fragments could not be made (out of memory, a value JSON cannot hold). */
long grid_point_canonical(const grid *g, uint64_t index, char *buf, size_t size);
/* Like grid_point_canonical, with only the swept parameters (those of an
 * axis); the others are the same for every point of the grid. */
long grid_point_swept(const grid *g, uint64_t index, char *buf, size_t size);
/* Writes point `index`'s param_count values into out. The values borrow text
 * from the grid: do not clear them; they live as long as the grid. */
void grid_point(const grid *g, uint64_t index, value *out);

#endif
