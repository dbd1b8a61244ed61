/* runner plugin ABI: the only header a plugin includes.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * runner_plugin_entry(), returning a static description of itself. It never
 * links against runner: everything it needs from the host (parameters, rows,
 * errors, logging, random numbers, cancellation) arrives through the
 * runner_host table passed to run(). Both structs carry abi_version and
 * struct_size and only ever grow at the end, so a plugin built against an
 * older header keeps loading. See docs/plugin-abi.md. */
#ifndef RUNNER_PLUGIN_H
#define RUNNER_PLUGIN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only when an existing field changes meaning. Appending fields to the
 * end of runner_host or runner_plugin does not bump it. */
#define RUNNER_PLUGIN_ABI 1

#define RUNNER_OK 0
#define RUNNER_ERROR (-1)

#if defined(__GNUC__)
#define RUNNER_EXPORT __attribute__((visibility("default")))
#define RUNNER_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RUNNER_EXPORT
#define RUNNER_PRINTF(fmt, args)
#endif

typedef enum runner_type {
    RUNNER_INTEGER = 1, /* int64_t */
    RUNNER_REAL = 2,    /* double; NaN and +-inf are allowed in outputs */
    RUNNER_TEXT = 3,    /* NUL-terminated UTF-8 */
    RUNNER_BOOLEAN = 4  /* int, 0 or 1 */
} runner_type;

typedef enum runner_log_level {
    RUNNER_LOG_DEBUG = 0,
    RUNNER_LOG_INFO = 1,
    RUNNER_LOG_WARNING = 2
} runner_log_level;

/* One input parameter. runner validates every value against type, range and
 * choices before run() is called, so run() never sees an invalid value. */
typedef struct runner_param {
    const char *name;            /* lower_snake_case, unique in the plugin */
    runner_type type;
    const char *unit;            /* "s", "bytes", ...; "" when dimensionless */
    const char *doc;             /* one line */
    double default_number;       /* default for INTEGER, REAL, BOOLEAN */
    const char *default_text;    /* default for TEXT */
    double min, max;             /* inclusive bounds for INTEGER and REAL;
                                    use -HUGE_VAL / HUGE_VAL for none */
    const char *const *choices;  /* TEXT: NULL-terminated allowed values,
                                    or NULL for any text */
} runner_param;

/* One output column of the plugin's result table. */
typedef struct runner_column {
    const char *name;            /* lower_snake_case, not a parameter name */
    runner_type type;
    const char *unit;            /* "" when dimensionless */
    const char *doc;             /* one line */
} runner_column;

/* Declaration helpers; designated initialisers work just as well. */
#define RUNNER_PARAM_INTEGER(name_, unit_, doc_, def_, min_, max_) \
    { (name_), RUNNER_INTEGER, (unit_), (doc_), (def_), NULL, (min_), (max_), NULL }
#define RUNNER_PARAM_REAL(name_, unit_, doc_, def_, min_, max_) \
    { (name_), RUNNER_REAL, (unit_), (doc_), (def_), NULL, (min_), (max_), NULL }
#define RUNNER_PARAM_BOOLEAN(name_, doc_, def_) \
    { (name_), RUNNER_BOOLEAN, "", (doc_), (def_), NULL, 0, 1, NULL }
#define RUNNER_PARAM_TEXT(name_, doc_, def_, choices_) \
    { (name_), RUNNER_TEXT, "", (doc_), 0, (def_), 0, 0, (choices_) }
#define RUNNER_COLUMN(name_, type_, unit_, doc_) \
    { (name_), (type_), (unit_), (doc_) }

/* Opaque: one point (one parameter combination) being run. Owned by the
 * host; valid only during the run() call it is passed to, and only on the
 * thread that call runs on (see runner_host). */
typedef struct runner_point runner_point;

/* The host's function table. Every pointer is non-NULL. Values returned by
 * param_text() are owned by the host and valid until run() returns.
 *
 * Threads: param_*, set_*, emit_row, fail, random_* and allreduce_sum may be
 * called only from the thread running run(), before it returns. From any
 * other thread (one the plugin started, or after run() returned) the call is
 * refused without touching the point (RUNNER_ERROR, 0 or "") and the point
 * fails. should_stop, seed, rank, size and log may be called from any thread
 * while run() runs. Never call exit(): runner then marks the sweep failed
 * and exits 4; see docs/plugin-abi.md, "Threads" and "Exiting the process". */
typedef struct runner_host {
    uint32_t abi_version;  /* RUNNER_PLUGIN_ABI of the running host */
    uint32_t struct_size;  /* sizeof(runner_host) in the running host */

    /* Parameters, by index into runner_plugin.params. */
    int64_t (*param_integer)(runner_point *point, size_t param_index);
    double (*param_real)(runner_point *point, size_t param_index);
    const char *(*param_text)(runner_point *point, size_t param_index);
    int (*param_boolean)(runner_point *point, size_t param_index);

    /* Rows: set columns (by index into runner_plugin.columns) of the current
     * row, then emit_row(). Unset columns are stored as NULL. Text is copied.
     * Each returns RUNNER_OK, or RUNNER_ERROR on a wrong index or type (the
     * point then fails with a message naming the column). */
    int (*set_integer)(runner_point *point, size_t column_index, int64_t value);
    int (*set_real)(runner_point *point, size_t column_index, double value);
    int (*set_text)(runner_point *point, size_t column_index, const char *value);
    int (*set_boolean)(runner_point *point, size_t column_index, int value);
    int (*emit_row)(runner_point *point);

    /* Fails the point with a message (printf-style); returns RUNNER_ERROR so
     * run() can `return host->fail(point, "...")`. Rows already emitted by a
     * failed point are discarded. */
    int (*fail)(runner_point *point, const char *fmt, ...) RUNNER_PRINTF(2, 3);
    /* Diagnostics on stderr, prefixed with the plugin's name. */
    void (*log)(runner_point *point, runner_log_level level, const char *fmt, ...)
        RUNNER_PRINTF(3, 4);

    /* The point's seed: derived from the sweep seed and the point's canonical
     * parameters, never from execution order. Same inputs, same seed. */
    uint64_t (*seed)(runner_point *point);
    /* The point's own stream (xoshiro256** seeded from seed()). */
    uint64_t (*random_u64)(runner_point *point);
    double (*random_uniform)(runner_point *point); /* [0, 1), 53 bits */

    /* Non-zero once the user asked runner to stop (Ctrl-C): long loops
     * should check it now and then and return early. */
    int (*should_stop)(runner_point *point);

    /* --- Appended after the first release of ABI 1: present only when
     * offsetof(runner_host, rank) < host->struct_size. --- */

    /* The ranks running this point together, as MPI numbers them: rank() is
     * 0 .. size() - 1. A point runs on several ranks only when the plugin is
     * RUNNER_PLUGIN_COLLECTIVE and runner was launched by mpirun or srun
     * with more than one rank; otherwise rank() is 0 and size() is 1. */
    int (*rank)(runner_point *point);
    int (*size)(runner_point *point);
    /* Sums values[0 .. count - 1] element-wise over the point's ranks, in
     * place: on return every rank holds the sums (MPI_Allreduce, MPI_SUM).
     * On one rank it leaves values as they are. Every rank of the point must
     * make the same calls with the same count, in the same order, or the
     * ranks wait for each other forever. Returns RUNNER_OK, or RUNNER_ERROR
     * after failing the point (a communication error). */
    int (*allreduce_sum)(runner_point *point, double *values, size_t count);

    /* --- Appended later in ABI 1 (series during a point): present only
     * when RUNNER_HOST_HAS(host, series). --- */

    /* Records one value of a series while the point runs: a training
     * loop's loss per step, a solver's residual per iteration. name is 1 to
     * 63 bytes of letters, digits, '_', '.' and '-' (names beginning "sys."
     * or "gpu." are runner's own samples); step is the plugin's own count;
     * value may be any double (NaN and +-inf are stored as NULL). runner
     * stores it with the seconds since the point began, while the point
     * runs (runner serve draws it live). Returns RUNNER_OK, or RUNNER_ERROR
     * when the value was not kept: a bad name, the cap of 100000 values a
     * point (both counted and said once when the point ends), or a sweep
     * that keeps no series (--isolate, an MPI worker rank). The point does
     * not fail. Only from the thread running run(). */
    int (*series)(runner_point *point, const char *name, double step, double value);
} runner_host;

/* 1 when the running host's table has field: a runner built before the
 * field was appended hands a shorter table (struct_size says how long). */
#define RUNNER_HOST_HAS(host, field) \
    (offsetof(runner_host, field) + sizeof((host)->field) <= (host)->struct_size)

/* runner_plugin.flags. runner refuses a plugin that sets a bit it does not
 * know, since each bit is a requirement on the host. */
#define RUNNER_PLUGIN_COLLECTIVE 0x1u /* every rank runs every point together and
                                         may call allreduce_sum; runner stores
                                         rank 0's rows */
#define RUNNER_PLUGIN_KNOWN_FLAGS RUNNER_PLUGIN_COLLECTIVE

/* The plugin's description; static storage, never freed. */
typedef struct runner_plugin {
    uint32_t abi_version;  /* RUNNER_PLUGIN_ABI the plugin was built for */
    uint32_t struct_size;  /* sizeof(runner_plugin) the plugin was built with */
    const char *name;      /* lower_snake_case; also its SQL table name */
    const char *version;   /* the plugin's own version, e.g. "1.0.0" */
    const char *summary;   /* one line */
    const runner_param *params;
    uint32_t param_count;
    const runner_column *columns;
    uint32_t column_count;
    /* Computes one point and emits zero or more rows. May be called
     * concurrently from several threads for different points: keep no
     * mutable global state. Threads it starts must not use the point
     * (runner_host says which calls they may make). Returns RUNNER_OK or
     * RUNNER_ERROR. */
    int (*run)(const runner_host *host, runner_point *point);

    /* --- Appended after the first release of ABI 1. A plugin built with the
     * shorter struct (struct_size ending at run) still loads, and runner
     * reads the fields it lacks as 0. --- */
    uint32_t flags;        /* RUNNER_PLUGIN_* bits; 0 for none */
} runner_plugin;

/* The size of runner_plugin in the first release of ABI 1: the smallest
 * struct_size runner accepts. */
#define RUNNER_PLUGIN_ABI1_SIZE (offsetof(runner_plugin, run) + sizeof(void (*)(void)))

#define RUNNER_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))

/* The one exported symbol. */
#define RUNNER_PLUGIN_ENTRY_SYMBOL "runner_plugin_entry"
typedef const runner_plugin *(*runner_plugin_entry_fn)(void);
#define RUNNER_PLUGIN_DEFINE(descriptor) \
    RUNNER_EXPORT const runner_plugin *runner_plugin_entry(void); \
    RUNNER_EXPORT const runner_plugin *runner_plugin_entry(void) { return &(descriptor); }

/* --- The named generator: xoshiro256** 1.0 (Blackman & Vigna, 2018),
 * seeded through splitmix64. Inline so tight Monte Carlo loops need no call
 * through the host; runner_host.random_* use the same generator. --- */
typedef struct runner_rng {
    uint64_t s[4];
} runner_rng;

static inline uint64_t runner_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline void runner_rng_seed(runner_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        rng->s[i] = runner_splitmix64(&seed);
}

static inline uint64_t runner_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t runner_rng_next(runner_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = runner_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = runner_rng_rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double runner_rng_uniform(runner_rng *rng)
{
    return (double)(runner_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* --- For a kernel that polls a plain callback, int stop(void *context),
 * rather than the host: pass runner_stop_requested with a
 * runner_stop_context { host, point } that outlives the call. --- */
typedef struct runner_stop_context {
    const runner_host *host;
    runner_point *point;
} runner_stop_context;

static inline int runner_stop_requested(void *context)
{
    const runner_stop_context *stop = (const runner_stop_context *)context;
    return stop->host->should_stop(stop->point);
}

#ifdef __cplusplus
}
#endif
#endif /* RUNNER_PLUGIN_H */
