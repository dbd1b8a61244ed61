/* param: checks a value against a plugin's parameter declaration, fills
 * defaults, suggests names, and writes the canonical form of a point's
 * parameters (the basis of its identity and random seed). */
#ifndef RUNNER_PARAM_H
#define RUNNER_PARAM_H

#include <stddef.h>
#include <stdint.h>
#include "base/value.h"
#include "runner/plugin.h"

/* Index of the parameter called name, or -1. */
long param_find(const runner_plugin *plugin, const char *name);
/* The closest parameter name within a small edit distance, or NULL. */
const char *param_suggest(const runner_plugin *plugin, const char *name);
/* Converts *v in place to the declared type where that is lossless (8.0 to
 * integer 8; 1 to real 1.0) and checks range, finiteness and choices. On
 * failure writes a one-line reason into msg ("workers: expected an integer,
 * got 8.5") and returns -1. */
int param_check(const runner_param *spec, value *v, char *msg, size_t msg_size);
/* The declared default as a value (text copied; caller clears). */
value param_default(const runner_param *spec);
/* Canonical JSON of a full parameter vector, keys in declaration order,
 * reals with 17 significant digits. malloc'd; NULL on no memory. */
char *param_canonical_json(const runner_plugin *plugin, const value *params);
/* Identity (hex SHA-256 of plugin name, version, canonical params, sweep
 * seed) and the point's 64-bit random seed (which leaves out the version, so
 * a bug-fix release replays the same random streams). */
int param_point_identity(const runner_plugin *plugin, const char *canonical_json,
                         uint64_t sweep_seed, char identity_hex[65], uint64_t *point_seed);
/* Human-readable "[0, 1e+09]" style range into buf. */
void param_describe_range(const runner_param *spec, char *buf, size_t size);

#endif
