/* grid: mixed-radix enumeration of crossed and zipped parameter axes. */
#include "grid.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

typedef struct grid_axis {
    value *values; /* owned */
    char **json;   /* per value: its canonical member, "name":value (grid_finish) */
    size_t count;
    int zip_group; /* 0: crossed on its own */
} grid_axis;

typedef struct grid_dimension {
    size_t length;
    uint32_t *params; /* parameters advancing together in this dimension */
    size_t param_count;
} grid_dimension;

struct grid {
    const runner_plugin *plugin;
    value *fixed;      /* param_count values: defaults or single values */
    char **fixed_json; /* their canonical members, "name":value (grid_finish) */
    int fragments_ok;  /* every fragment was made */
    grid_axis *axes;   /* per parameter; count 0 when fixed */
    grid_dimension *dims;
    size_t dim_count;
    uint64_t point_count;
};

grid *grid_new(const runner_plugin *plugin)
{
    grid *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->plugin = plugin;
    size_t n = plugin->param_count ? plugin->param_count : 1;
    g->fixed = calloc(n, sizeof *g->fixed);
    g->axes = calloc(n, sizeof *g->axes);
    if (!g->fixed || !g->axes) {
        grid_free(g);
        return NULL;
    }
    for (uint32_t i = 0; i < plugin->param_count; i++) {
        const runner_param *p = &plugin->params[i];
        switch (p->type) {
        case RUNNER_INTEGER: g->fixed[i] = value_integer((int64_t)p->default_number); break;
        case RUNNER_REAL: g->fixed[i] = value_real(p->default_number); break;
        case RUNNER_BOOLEAN: g->fixed[i] = value_boolean(p->default_number != 0); break;
        case RUNNER_TEXT: g->fixed[i] = value_text(p->default_text); break;
        }
    }
    g->point_count = 1;
    return g;
}

static void free_axis(grid_axis *a)
{
    for (size_t i = 0; i < a->count; i++) {
        value_clear(&a->values[i]);
        if (a->json)
            free(a->json[i]);
    }
    free(a->json);
    free(a->values);
    memset(a, 0, sizeof *a);
}

void grid_free(grid *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; g->plugin && i < g->plugin->param_count; i++) {
        if (g->fixed)
            value_clear(&g->fixed[i]);
        if (g->axes)
            free_axis(&g->axes[i]);
    }
    for (size_t d = 0; d < g->dim_count; d++)
        free(g->dims[d].params);
    for (uint32_t i = 0; g->fixed_json && i < g->plugin->param_count; i++)
        free(g->fixed_json[i]);
    free(g->fixed_json);
    free(g->dims);
    free(g->fixed);
    free(g->axes);
    free(g);
}

/* "name":value as param_canonical_json writes the member. */
static char *member_json(const char *name, const value *v)
{
    json_t *j = value_to_json(v);
    json_t *key = json_string(name);
    char *text = NULL, *member = NULL;
    if (j && key)
        text = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17));
    char *key_text = text ? json_dumps(key, JSON_ENCODE_ANY) : NULL;
    if (key_text)
        member = util_format("%s:%s", key_text, text);
    free(key_text);
    free(text);
    json_decref(key);
    json_decref(j);
    return member;
}

static int make_fragments(grid *g)
{
    uint32_t n = g->plugin->param_count;
    g->fixed_json = calloc(n ? n : 1, sizeof *g->fixed_json);
    if (!g->fixed_json)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = g->plugin->params[i].name;
        if (!(g->fixed_json[i] = member_json(name, &g->fixed[i])))
            return -1;
        grid_axis *a = &g->axes[i];
        if (a->count == 0 || a->json)
            continue;
        if (!(a->json = calloc(a->count, sizeof *a->json)))
            return -1;
        for (size_t k = 0; k < a->count; k++)
            if (!(a->json[k] = member_json(name, &a->values[k])))
                return -1;
    }
    return 0;
}

/* The JSON object of point `index`: every parameter (canonical), or only
 * the swept ones, in declaration order. See grid_point_canonical. */
static long point_json(const grid *g, uint64_t index, int swept_only, char *buf, size_t size)
{
    if (!g->fragments_ok)
        return -1;
    uint32_t n = g->plugin->param_count;
    const char *stack_fragments[64];
    const char **fragment = n <= 64 ? stack_fragments : malloc(n * sizeof *fragment);
    if (!fragment)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        fragment[i] = swept_only ? NULL : g->fixed_json[i];
    for (size_t d = g->dim_count; d-- > 0;) {
        const grid_dimension *dim = &g->dims[d];
        size_t position = (size_t)(index % dim->length);
        index /= dim->length;
        for (size_t k = 0; k < dim->param_count; k++)
            fragment[dim->params[k]] = g->axes[dim->params[k]].json[position];
    }
    size_t len = 0;
    int first = 1;
#define PUT(text, n_)                                                                              \
    do {                                                                                           \
        size_t n__ = (n_);                                                                         \
        if (len + n__ < size)                                                                      \
            memcpy(buf + len, (text), n__);                                                        \
        len += n__;                                                                                \
    } while (0)
    PUT("{", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (!fragment[i])
            continue;
        if (!first)
            PUT(",", 1);
        first = 0;
        PUT(fragment[i], strlen(fragment[i]));
    }
    PUT("}", 1);
#undef PUT
    if (size)
        buf[len < size ? len : size - 1] = '\0';
    if (fragment != stack_fragments)
        free(fragment);
    return (long)len;
}

long grid_point_canonical(const grid *g, uint64_t index, char *buf, size_t size)
{
    return point_json(g, index, 0, buf, size);
}

long grid_point_swept(const grid *g, uint64_t index, char *buf, size_t size)
{
    return point_json(g, index, 1, buf, size);
}

int grid_set(grid *g, uint32_t param_index, value *values, size_t count, int zip_group)
{
    free_axis(&g->axes[param_index]);
    if (count == 1 && zip_group == 0) {
        value_clear(&g->fixed[param_index]);
        g->fixed[param_index] = values[0];
        free(values);
        return 0;
    }
    g->axes[param_index].values = values;
    g->axes[param_index].count = count;
    g->axes[param_index].zip_group = zip_group;
    return 0;
}

int grid_finish(grid *g, uint64_t max_points, uint64_t *point_count, char *msg, size_t msg_size)
{
    uint32_t n = g->plugin->param_count;
    for (size_t d = 0; d < g->dim_count; d++)
        free(g->dims[d].params);
    free(g->dims);
    g->dims = calloc(n ? n : 1, sizeof *g->dims);
    g->dim_count = 0;
    if (!g->dims) {
        snprintf(msg, msg_size, "out of memory");
        return -1;
    }
    /* One dimension per crossed axis or per zip group, in declaration order
     * of the group's first parameter. */
    for (uint32_t i = 0; i < n; i++) {
        grid_axis *a = &g->axes[i];
        if (a->count == 0)
            continue;
        grid_dimension *dim = NULL;
        if (a->zip_group)
            for (size_t d = 0; d < g->dim_count && !dim; d++)
                if (g->axes[g->dims[d].params[0]].zip_group == a->zip_group)
                    dim = &g->dims[d];
        if (dim) {
            if (dim->length != a->count) {
                snprintf(msg, msg_size,
                         "zipped parameters '%s' (%zu values) and '%s' (%zu "
                         "values) must have the same length",
                         g->plugin->params[dim->params[0]].name, dim->length,
                         g->plugin->params[i].name, a->count);
                return -1;
            }
        } else {
            dim = &g->dims[g->dim_count++];
            dim->length = a->count;
            dim->params = calloc(n, sizeof *dim->params);
            if (!dim->params) {
                snprintf(msg, msg_size, "out of memory");
                return -1;
            }
        }
        dim->params[dim->param_count++] = i;
    }
    uint64_t total = 1;
    for (size_t d = 0; d < g->dim_count; d++) {
        uint64_t len = g->dims[d].length;
        if (len == 0 || total > UINT64_MAX / len) {
            total = UINT64_MAX;
            break;
        }
        total *= len;
    }
    if (max_points && total > max_points) {
        if (total == UINT64_MAX)
            snprintf(msg, msg_size, "the grid has more than 2^64 points (limit --max-points %llu)",
                     (unsigned long long)max_points);
        else
            snprintf(msg, msg_size, "the grid has %llu points, more than --max-points %llu",
                     (unsigned long long)total, (unsigned long long)max_points);
        return -1;
    }
    g->point_count = total;
    *point_count = total;
    /* Parameter names are identifiers, so only values need JSON encoding. */
    g->fragments_ok = make_fragments(g) == 0;
    return 0;
}

uint64_t grid_point_count(const grid *g) { return g->point_count; }

void grid_point(const grid *g, uint64_t index, value *out)
{
    memcpy(out, g->fixed, g->plugin->param_count * sizeof *out);
    /* The last dimension varies fastest. */
    for (size_t d = g->dim_count; d-- > 0;) {
        const grid_dimension *dim = &g->dims[d];
        size_t position = (size_t)(index % dim->length);
        index /= dim->length;
        for (size_t k = 0; k < dim->param_count; k++) {
            uint32_t p = dim->params[k];
            out[p] = g->axes[p].values[position];
        }
    }
}
