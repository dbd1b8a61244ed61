/* fuzz_param: libFuzzer harness for parameter validation. The input is a
 * list of settings for a fixed plugin descriptor, each a parameter and one
 * or more values of any type (reals as raw bits: NaN, infinities, -0,
 * subnormals; text as raw bytes: invalid UTF-8). Each value goes through
 * param_check() as a script's would; settings that pass build a grid, and
 * every point of the grid gets its canonical JSON and identity. Besides
 * sanitizer reports, a finding is a broken promise of param.h or grid.h:
 * a value accepted that is not of the declared type, out of range or not a
 * choice; a rejection without a message; an accepted point whose canonical
 * JSON cannot be written or does not read back. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/grid.h"
#include "plugin/param.h"
#include "plugin/plugin_loader.h"

#define SETTINGS_MAX 12
#define VALUES_MAX 8
#define TEXT_MAX 40
#define GRID_MAX_POINTS 4096
#define POINTS_CHECKED_MAX 64

static const char *const modes[] = { "ring", "tree", "parameter_server", "", NULL };

/* One parameter of each kind the ABI allows: bounded and unbounded numbers,
 * a boolean, text with and without choices. */
static const runner_param params[] = {
    RUNNER_PARAM_INTEGER("workers", "workers", "bounded integer", 8, 1, 1e6),
    RUNNER_PARAM_INTEGER("offset", "", "unbounded integer", 0, -HUGE_VAL, HUGE_VAL),
    RUNNER_PARAM_INTEGER("big", "bytes", "integer up to 2^62", 4096, 0, 4611686018427387904.0),
    RUNNER_PARAM_REAL("jitter", "s", "bounded real", 0.5, 0, 1e9),
    RUNNER_PARAM_REAL("scale", "", "unbounded real", 1, -HUGE_VAL, HUGE_VAL),
    RUNNER_PARAM_BOOLEAN("verbose", "a boolean", 0),
    RUNNER_PARAM_TEXT("mode", "text with choices", "ring", modes),
    RUNNER_PARAM_TEXT("label", "free text", "none", NULL),
};
static const runner_column columns[] = {
    RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "never computed"),
};

static int never_run(const runner_host *host, runner_point *point)
{
    (void)host;
    (void)point;
    return RUNNER_ERROR;
}

static const runner_plugin plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "fuzzed",
    .version = "1.0.0",
    .summary = "the descriptor fuzz_param validates against",
    .params = params,
    .param_count = RUNNER_COUNT(params),
    .columns = columns,
    .column_count = RUNNER_COUNT(columns),
    .run = never_run,
};

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_param: %s:%d: expected %s\n", __FILE__, __LINE__, #cond);        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A cursor over the input; reads past the end give zeros. */
typedef struct reader {
    const uint8_t *data;
    size_t size, at;
} reader;

static uint8_t take_byte(reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

static uint64_t take_u64(reader *r)
{
    uint64_t x = 0;
    for (int i = 0; i < 8; i++)
        x = x << 8 | take_byte(r);
    return x;
}

/* One value of the type the input picks; text is malloc'd by value_text. */
static value take_value(reader *r, char text[TEXT_MAX + 1])
{
    uint8_t kind = take_byte(r);
    switch (kind % 5) {
    case 0: {
        uint64_t bits = take_u64(r);
        return value_integer((int64_t)bits);
    }
    case 1: {
        uint64_t bits = take_u64(r);
        double x;
        memcpy(&x, &bits, sizeof x);
        return value_real(x);
    }
    case 2: return value_boolean(take_byte(r) & 1);
    case 3: {
        /* Small integers near the bounds: ranges are checked at their edges. */
        int64_t small = (int8_t)take_byte(r);
        return (kind & 0x80) ? value_real((double)small + 0.5 * (kind & 1)) : value_integer(small);
    }
    default: {
        size_t len = take_byte(r) % (TEXT_MAX + 1);
        size_t i = 0;
        for (; i < len && r->at < r->size; i++)
            text[i] = (char)take_byte(r);
        text[i] = '\0';
        return value_text(text);
    }
    }
}

/* The promises param_check() makes about a value it accepted. */
static void check_accepted(const runner_param *spec, const value *v)
{
    EXPECT(v->type == spec->type);
    switch (spec->type) {
    case RUNNER_INTEGER:
        EXPECT((double)v->as.integer >= spec->min && (double)v->as.integer <= spec->max);
        break;
    case RUNNER_REAL:
        EXPECT(isfinite(v->as.real));
        EXPECT(v->as.real >= spec->min && v->as.real <= spec->max);
        break;
    case RUNNER_BOOLEAN: EXPECT(v->as.boolean == 0 || v->as.boolean == 1); break;
    case RUNNER_TEXT:
        if (spec->choices) {
            int found = 0;
            for (const char *const *c = spec->choices; *c; c++)
                found |= strcmp(*c, v->as.text) == 0;
            EXPECT(found);
        }
        break;
    }
}

/* Every point's canonical JSON is written, reads back as an object with one
 * key per parameter in declaration order, and yields an identity. */
static void check_points(const grid *g, uint64_t count)
{
    value point[RUNNER_COUNT(params)];
    uint64_t step = count > POINTS_CHECKED_MAX ? count / POINTS_CHECKED_MAX : 1;
    for (uint64_t index = 0; index < count; index += step) {
        grid_point(g, index, point);
        for (uint32_t p = 0; p < plugin.param_count; p++)
            check_accepted(&params[p], &point[p]);
        char *canonical = param_canonical_json(&plugin, point);
        if (!canonical) {
            fprintf(stderr, "fuzz_param: point %llu was accepted but has no canonical JSON\n",
                    (unsigned long long)index);
            abort();
        }
        json_error_t error;
        json_t *back = json_loads(canonical, 0, &error);
        EXPECT(back && json_is_object(back));
        EXPECT(json_object_size(back) == plugin.param_count);
        const char *key;
        json_t *member;
        uint32_t p = 0;
        json_object_foreach(back, key, member)
        {
            EXPECT(strcmp(key, params[p].name) == 0);
            p++;
        }
        json_decref(back);
        char identity[65];
        uint64_t seed = 0;
        EXPECT(param_point_identity(&plugin, canonical, 42, identity, &seed) == 0);
        EXPECT(strlen(identity) == 64);
        free(canonical);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The descriptor must be one the loader would accept. */
    char msg[256];
    if (plugin_validate(&plugin, msg, sizeof msg) != 0) {
        fprintf(stderr, "fuzz_param: the fixed descriptor is invalid: %s\n", msg);
        abort();
    }
    char range[80];
    for (uint32_t p = 0; p < plugin.param_count; p++)
        param_describe_range(&params[p], range, sizeof range);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = { data, size, 0 };
    grid *g = grid_new(&plugin);
    EXPECT(g);
    char text[TEXT_MAX + 1];
    for (int setting = 0; setting < SETTINGS_MAX && r.at < r.size; setting++) {
        uint8_t head = take_byte(&r);
        uint32_t param = head % plugin.param_count;
        int zip_group = (head >> 4) & 3;
        size_t count = 1 + take_byte(&r) % VALUES_MAX;
        value *values = calloc(count, sizeof *values);
        EXPECT(values);
        size_t accepted = 0;
        for (size_t i = 0; i < count; i++) {
            value v = take_value(&r, text);
            /* A text value may be any bytes: as a parameter name it must get
             * a suggestion or none, never a crash. */
            if (v.type == RUNNER_TEXT) {
                param_find(&plugin, v.as.text);
                param_suggest(&plugin, v.as.text);
            }
            char msg[400];
            msg[0] = '\0';
            if (param_check(&params[param], &v, msg, sizeof msg) == 0) {
                check_accepted(&params[param], &v);
                values[accepted++] = v;
            } else {
                /* "name: reason". (The reason quotes rejected text as it
                 * is, newlines included.) */
                size_t name_len = strlen(params[param].name);
                EXPECT(strncmp(msg, params[param].name, name_len) == 0 && msg[name_len] == ':');
                value_clear(&v);
            }
        }
        /* The accepted values form the axis, as if the script had listed
         * only those. */
        if (accepted == 0) {
            free(values);
            continue;
        }
        count = accepted;
        EXPECT(grid_set(g, param, values, count, zip_group) == 0);
    }
    uint64_t count = 0;
    char msg[400];
    if (grid_finish(g, GRID_MAX_POINTS, &count, msg, sizeof msg) == 0) {
        EXPECT(count >= 1 && count <= GRID_MAX_POINTS);
        EXPECT(grid_point_count(g) == count);
        check_points(g, count);
    } else {
        EXPECT(msg[0] != '\0');
    }
    grid_free(g);
    return 0;
}
