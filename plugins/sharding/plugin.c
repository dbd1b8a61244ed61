/* sharding plugin: how many keys move when node N joins N nodes (and when
 * node N-1 leaves them) under mod-N placement and under one of seven
 * schemes (the v-point ring by default), how even the load is, and what a
 * lookup costs. ABI glue around model.c. */
#include <runner/plugin.h>

#include <inttypes.h>
#include <math.h>

#include "model.h"

enum {
    PARAM_KEYS,
    PARAM_NODES,
    PARAM_VNODES,
    PARAM_HASH,
    PARAM_SEED,
    PARAM_SCHEME,
    PARAM_TABLE_SIZE,
    PARAM_EPSILON,
    PARAM_MEASURE_LOOKUP,
    PARAM_COUNT
};

static const char *const hash_choices[] = { "xxh64", "md5", NULL };
static const char *const scheme_choices[] = { "mod",    "ring",   "jump",    "rendezvous",
                                              "maglev", "ketama", "bounded", NULL };

static const runner_param sharding_params[] = {
    [PARAM_KEYS] = RUNNER_PARAM_INTEGER(
        "keys", "keys", "keys placed, named \"key:0\" .. \"key:<keys-1>\"", 20000, 1, 1e8),
    [PARAM_NODES] = RUNNER_PARAM_INTEGER(
        "nodes", "nodes", "N, nodes before the step; the cluster grows to N+1 and shrinks to N-1",
        8, 1, 100000),
    [PARAM_VNODES] = RUNNER_PARAM_INTEGER(
        "vnodes", "points/node", "ring points per node, at hash(\"node:<n>#<v>\") (ring, bounded)",
        120, 1, 10000),
    [PARAM_HASH] = RUNNER_PARAM_TEXT(
        "hash", "64-bit key hash: xxh64 (seeded) or md5 (first 8 bytes, little-endian)", "xxh64",
        hash_choices),
    [PARAM_SEED] = RUNNER_PARAM_INTEGER(
        "seed", "", "hash seed (xxh64) or namespace prefix \"<seed>:\" (md5): another key set", 0,
        0, 9007199254740992.0),
    [PARAM_SCHEME] = RUNNER_PARAM_TEXT(
        "scheme",
        "placement under test: mod, ring (v points/node), jump, rendezvous, maglev, "
        "ketama (libketama, md5), bounded (ring with loads capped)",
        "ring", scheme_choices),
    [PARAM_TABLE_SIZE] = RUNNER_PARAM_INTEGER(
        "table_size", "entries", "maglev: lookup table size M, a prime (the paper's 65537)", 65537,
        2, (double)SHARD_MAGLEV_MAX_SIZE),
    [PARAM_EPSILON] = RUNNER_PARAM_REAL(
        "epsilon", "", "bounded: capacity ceil((1+epsilon)*keys/N) keys per node", 0.25, 0, 1e6),
    [PARAM_MEASURE_LOOKUP] = RUNNER_PARAM_BOOLEAN(
        "measure_lookup",
        "time N-node lookups into lookup_ns (wall clock: the one non-reproducible column)", 0),
};
_Static_assert(RUNNER_COUNT(sharding_params) == PARAM_COUNT, "one entry per PARAM_*");

enum {
    COL_HASH_NAME,
    COL_MOVED_MOD,
    COL_MOVED_MOD_EXPECTED,
    COL_MOVED_RING,
    COL_MOVED_IDEAL,
    COL_NEW_NODE_ARC,
    COL_MOVED_MOD_KEYS,
    COL_MOVED_RING_KEYS,
    COL_LOAD_MEAN,
    COL_LOAD_MAX,
    COL_LOAD_MIN,
    COL_LOAD_RATIO,
    COL_LOAD_CV,
    COL_LOAD_CV_EXPECTED,
    COL_SHARE_CV,
    COL_LOAD_MAX_MOD,
    COL_LOAD_MIN_MOD,
    COL_LOAD_RATIO_MOD,
    COL_LOAD_CV_MOD,
    COL_RING_POINTS,
    COL_MOVED_GROW,
    COL_MOVED_GROW_KEYS,
    COL_MOVED_GROW_EXCESS,
    COL_MOVED_SHRINK,
    COL_MOVED_SHRINK_KEYS,
    COL_MOVED_SHRINK_EXCESS,
    COL_MOVED_SHRINK_IDEAL,
    COL_LOAD_MAX_OVER_MEAN,
    COL_CAPACITY,
    COL_PROBES_PER_LOOKUP,
    COL_TABLE_BYTES,
    COL_LOOKUP_NS,
    COL_COUNT
};

static const runner_column sharding_columns[] = {
    [COL_HASH_NAME] =
        RUNNER_COLUMN("hash_name", RUNNER_TEXT, "",
                      "hash function that placed keys and points (md5 whenever scheme is ketama)"),
    [COL_MOVED_MOD] = RUNNER_COLUMN(
        "moved_mod", RUNNER_REAL, "fraction",
        "share of keys whose node changes from hash mod N to hash mod N+1 (the baseline)"),
    [COL_MOVED_MOD_EXPECTED] =
        RUNNER_COLUMN("moved_mod_expected", RUNNER_REAL, "fraction",
                      "N/(N+1): what mod placement moves with an ideal hash"),
    [COL_MOVED_RING] = RUNNER_COLUMN(
        "moved_ring", RUNNER_REAL, "fraction",
        "share of keys whose owner under scheme changes on N -> N+1 (the ring's by default; "
        "= moved_grow)"),
    [COL_MOVED_IDEAL] =
        RUNNER_COLUMN("moved_ideal", RUNNER_REAL, "fraction",
                      "1/(N+1): the least any placement can move and stay balanced"),
    [COL_NEW_NODE_ARC] = RUNNER_COLUMN(
        "new_node_arc", RUNNER_REAL, "fraction",
        "share of the circle (ring, ketama, bounded's ring) or table (maglev) node N owns "
        "on N+1 nodes; NULL for mod, jump, rendezvous"),
    [COL_MOVED_MOD_KEYS] =
        RUNNER_COLUMN("moved_mod_keys", RUNNER_INTEGER, "keys", "keys moved under mod placement"),
    [COL_MOVED_RING_KEYS] =
        RUNNER_COLUMN("moved_ring_keys", RUNNER_INTEGER, "keys",
                      "keys moved under scheme on N -> N+1 (= moved_grow_keys)"),
    [COL_LOAD_MEAN] = RUNNER_COLUMN("load_mean", RUNNER_REAL, "keys", "keys/N: mean keys per node"),
    [COL_LOAD_MAX] = RUNNER_COLUMN("load_max", RUNNER_INTEGER, "keys",
                                   "keys on the busiest of N nodes under scheme"),
    [COL_LOAD_MIN] = RUNNER_COLUMN("load_min", RUNNER_INTEGER, "keys",
                                   "keys on the idlest of N nodes under scheme"),
    [COL_LOAD_RATIO] = RUNNER_COLUMN("load_ratio", RUNNER_REAL, "",
                                     "load_max/load_min under scheme; +inf when a node has no key"),
    [COL_LOAD_CV] = RUNNER_COLUMN(
        "load_cv", RUNNER_REAL, "fraction",
        "coefficient of variation (sd/mean) of keys per node on N nodes under scheme"),
    [COL_LOAD_CV_EXPECTED] = RUNNER_COLUMN(
        "load_cv_expected", RUNNER_REAL, "fraction",
        "load_cv expected for an ideal hash (ring, ketama: share ~ Beta(v,(N-1)v); others: "
        "fixed shares plus key noise); NULL for bounded"),
    [COL_SHARE_CV] = RUNNER_COLUMN(
        "share_cv", RUNNER_REAL, "fraction",
        "coefficient of variation of the nodes' shares of the circle or table (no key "
        "noise); NULL for mod, jump, rendezvous"),
    [COL_LOAD_MAX_MOD] = RUNNER_COLUMN("load_max_mod", RUNNER_INTEGER, "keys",
                                       "keys on the busiest node under mod-N placement"),
    [COL_LOAD_MIN_MOD] = RUNNER_COLUMN("load_min_mod", RUNNER_INTEGER, "keys",
                                       "keys on the idlest node under mod-N placement"),
    [COL_LOAD_RATIO_MOD] = RUNNER_COLUMN("load_ratio_mod", RUNNER_REAL, "",
                                         "load_max_mod/load_min_mod; +inf when a node has no key"),
    [COL_LOAD_CV_MOD] =
        RUNNER_COLUMN("load_cv_mod", RUNNER_REAL, "fraction",
                      "coefficient of variation of keys per node under mod-N placement"),
    [COL_RING_POINTS] =
        RUNNER_COLUMN("ring_points", RUNNER_INTEGER, "points",
                      "points on the N+1 ring, (N+1)*vnodes (ring, bounded) or libketama's count "
                      "(ketama); NULL for the others"),
    [COL_MOVED_GROW] = RUNNER_COLUMN(
        "moved_grow", RUNNER_REAL, "fraction",
        "share of keys whose owner under scheme changes when node N joins (N -> N+1)"),
    [COL_MOVED_GROW_KEYS] = RUNNER_COLUMN("moved_grow_keys", RUNNER_INTEGER, "keys",
                                          "keys moved under scheme on N -> N+1"),
    [COL_MOVED_GROW_EXCESS] = RUNNER_COLUMN(
        "moved_grow_excess", RUNNER_REAL, "fraction",
        "share of keys moved on N -> N+1 to a node other than the new one (0: minimal)"),
    [COL_MOVED_SHRINK] = RUNNER_COLUMN(
        "moved_shrink", RUNNER_REAL, "fraction",
        "share of keys whose owner changes when node N-1 leaves (N -> N-1); NULL when N = 1"),
    [COL_MOVED_SHRINK_KEYS] = RUNNER_COLUMN("moved_shrink_keys", RUNNER_INTEGER, "keys",
                                            "keys moved under scheme on N -> N-1; NULL when N = 1"),
    [COL_MOVED_SHRINK_EXCESS] = RUNNER_COLUMN(
        "moved_shrink_excess", RUNNER_REAL, "fraction",
        "share of keys moved on N -> N-1 that were not on the leaving node (0: minimal)"),
    [COL_MOVED_SHRINK_IDEAL] =
        RUNNER_COLUMN("moved_shrink_ideal", RUNNER_REAL, "fraction",
                      "1/N: the leaving node's share when balanced; NULL when N = 1"),
    [COL_LOAD_MAX_OVER_MEAN] =
        RUNNER_COLUMN("load_max_over_mean", RUNNER_REAL, "",
                      "load_max/load_mean: the busiest node against a perfect split"),
    [COL_CAPACITY] =
        RUNNER_COLUMN("capacity", RUNNER_INTEGER, "keys",
                      "bounded: the cap ceil((1+epsilon)*keys/N) on N nodes; NULL for the others"),
    [COL_PROBES_PER_LOOKUP] = RUNNER_COLUMN(
        "probes_per_lookup", RUNNER_REAL, "probes",
        "mean candidates examined per N-node lookup: ring points, table entries, node "
        "scores or jumps (deterministic)"),
    [COL_TABLE_BYTES] =
        RUNNER_COLUMN("table_bytes", RUNNER_INTEGER, "bytes",
                      "bytes of the N-node lookup structure as this implementation lays it out"),
    [COL_LOOKUP_NS] = RUNNER_COLUMN(
        "lookup_ns", RUNNER_REAL, "ns",
        "MEASURED wall-clock ns per N-node lookup of a hashed key (not reproducible); "
        "NULL unless measure_lookup"),
};
_Static_assert(RUNNER_COUNT(sharding_columns) == COL_COUNT, "one entry per COL_*");

/* Reals that do not apply to a scheme come back from the model as NaN and
 * are stored as NULL. */
static int set_real_or_null(const runner_host *host, runner_point *point, size_t column,
                            double value)
{
    return isnan(value) ? RUNNER_OK : host->set_real(point, column, value);
}

/* Sets the row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int sharding_emit(const runner_host *host, runner_point *point, shard_hash_kind kind,
                         const shard_config *config, const shard_result *r)
{
    double keys = (double)config->keys, nodes = config->nodes;
    int rc = RUNNER_OK;
    rc |= host->set_text(point, COL_HASH_NAME, shard_hash_name(kind));
    rc |= host->set_real(point, COL_MOVED_MOD, (double)r->moved_mod_keys / keys);
    rc |= host->set_real(point, COL_MOVED_MOD_EXPECTED, nodes / (nodes + 1));
    rc |= host->set_real(point, COL_MOVED_RING, (double)r->moved_grow_keys / keys);
    rc |= host->set_real(point, COL_MOVED_IDEAL, 1.0 / (nodes + 1));
    rc |= set_real_or_null(host, point, COL_NEW_NODE_ARC, r->new_node_arc);
    rc |= host->set_integer(point, COL_MOVED_MOD_KEYS, (int64_t)r->moved_mod_keys);
    rc |= host->set_integer(point, COL_MOVED_RING_KEYS, (int64_t)r->moved_grow_keys);
    rc |= host->set_real(point, COL_LOAD_MEAN, r->load_mean);
    rc |= host->set_integer(point, COL_LOAD_MAX, (int64_t)r->load_max);
    rc |= host->set_integer(point, COL_LOAD_MIN, (int64_t)r->load_min);
    rc |= host->set_real(point, COL_LOAD_RATIO, shard_load_ratio(r->load_max, r->load_min));
    rc |= host->set_real(point, COL_LOAD_CV, r->load_cv);
    rc |= set_real_or_null(host, point, COL_LOAD_CV_EXPECTED, r->load_cv_expected);
    rc |= set_real_or_null(host, point, COL_SHARE_CV, r->share_cv);
    rc |= host->set_integer(point, COL_LOAD_MAX_MOD, (int64_t)r->load_max_mod);
    rc |= host->set_integer(point, COL_LOAD_MIN_MOD, (int64_t)r->load_min_mod);
    rc |= host->set_real(point, COL_LOAD_RATIO_MOD,
                         shard_load_ratio(r->load_max_mod, r->load_min_mod));
    rc |= host->set_real(point, COL_LOAD_CV_MOD, r->load_cv_mod);
    if (r->ring_points)
        rc |= host->set_integer(point, COL_RING_POINTS, (int64_t)r->ring_points);

    rc |= host->set_real(point, COL_MOVED_GROW, (double)r->moved_grow_keys / keys);
    rc |= host->set_integer(point, COL_MOVED_GROW_KEYS, (int64_t)r->moved_grow_keys);
    rc |= host->set_real(point, COL_MOVED_GROW_EXCESS, (double)r->moved_grow_excess_keys / keys);
    if (r->has_shrink) {
        rc |= host->set_real(point, COL_MOVED_SHRINK, (double)r->moved_shrink_keys / keys);
        rc |= host->set_integer(point, COL_MOVED_SHRINK_KEYS, (int64_t)r->moved_shrink_keys);
        rc |= host->set_real(point, COL_MOVED_SHRINK_EXCESS,
                             (double)r->moved_shrink_excess_keys / keys);
        rc |= host->set_real(point, COL_MOVED_SHRINK_IDEAL, 1.0 / nodes);
    }
    rc |= host->set_real(point, COL_LOAD_MAX_OVER_MEAN, (double)r->load_max / r->load_mean);
    if (config->scheme == SHARD_SCHEME_BOUNDED)
        rc |= host->set_integer(point, COL_CAPACITY, (int64_t)r->capacity);
    rc |= host->set_real(point, COL_PROBES_PER_LOOKUP, (double)r->probes / keys);
    rc |= host->set_integer(point, COL_TABLE_BYTES, (int64_t)r->table_bytes);
    rc |= set_real_or_null(host, point, COL_LOOKUP_NS, r->lookup_ns);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

/* Checks what the declared ranges cannot: returns RUNNER_OK, or fails the
 * point with what to change. */
static int check_config(const runner_host *host, runner_point *point, const shard_config *config)
{
    uint64_t nodes = config->nodes;
    switch (config->scheme) {
    case SHARD_SCHEME_RING:
    case SHARD_SCHEME_BOUNDED: {
        uint64_t points = (nodes + 1) * config->vnodes;
        if (points > SHARD_RING_MAX_POINTS)
            return host->fail(point,
                              "ring of (nodes+1)*vnodes = %" PRIu64
                              " points exceeds the limit of %" PRIu64
                              " (about 0.7 GB): lower nodes or vnodes",
                              points, SHARD_RING_MAX_POINTS);
        break;
    }
    case SHARD_SCHEME_MAGLEV:
        if (!shard_is_prime(config->table_size))
            return host->fail(
                point,
                "table_size %" PRIu32 " is not prime: Maglev's preference lists (offset + "
                "j*skip mod M) are permutations only for a prime M; try 65537 or 655373",
                config->table_size);
        break;
    case SHARD_SCHEME_KETAMA:
        if (480 * (nodes + 1) > SHARD_RING_MAX_POINTS)
            return host->fail(
                point,
                "ketama's three continua (160 points per server on nodes-1, nodes and nodes+1 "
                "servers) need %" PRIu64 " points, over the limit of %" PRIu64
                ": lower nodes to at most %" PRIu64,
                480 * (nodes + 1), SHARD_RING_MAX_POINTS, SHARD_RING_MAX_POINTS / 480 - 1);
        break;
    case SHARD_SCHEME_MOD:
    case SHARD_SCHEME_JUMP:
    case SHARD_SCHEME_RENDEZVOUS: break;
    }
    return RUNNER_OK;
}

/* Rough MiB of the structures shard_run() allocates, for the out-of-memory
 * message. */
static uint64_t memory_mib(const shard_config *config)
{
    uint64_t nodes = config->nodes, bytes = 2 * nodes * sizeof(uint64_t);
    switch (config->scheme) {
    case SHARD_SCHEME_RING:
    case SHARD_SCHEME_BOUNDED:
        bytes += (nodes + 1) * config->vnodes * (sizeof(shard_ring_point) + 8);
        break;
    case SHARD_SCHEME_MAGLEV: bytes += 3 * (uint64_t)config->table_size * sizeof(uint32_t); break;
    case SHARD_SCHEME_KETAMA: bytes += 480 * (nodes + 1) * (sizeof(shard_ring_point) + 4); break;
    case SHARD_SCHEME_RENDEZVOUS: bytes += (nodes + 1) * sizeof(uint64_t); break;
    case SHARD_SCHEME_MOD:
    case SHARD_SCHEME_JUMP: break;
    }
    return bytes >> 20;
}

static int sharding_run(const runner_host *host, runner_point *point)
{
    shard_config config = {
        .keys = (uint64_t)host->param_integer(point, PARAM_KEYS),
        .nodes = (uint32_t)host->param_integer(point, PARAM_NODES),
        .vnodes = (uint32_t)host->param_integer(point, PARAM_VNODES),
        .table_size = (uint32_t)host->param_integer(point, PARAM_TABLE_SIZE),
        .epsilon = host->param_real(point, PARAM_EPSILON),
        .measure_lookup = host->param_boolean(point, PARAM_MEASURE_LOOKUP),
    };
    uint64_t seed = (uint64_t)host->param_integer(point, PARAM_SEED);
    const char *hash = host->param_text(point, PARAM_HASH);
    const char *scheme = host->param_text(point, PARAM_SCHEME);
    shard_hash_kind kind;
    if (shard_hash_parse(hash, &kind) != 0)
        return host->fail(point, "unknown hash \"%s\": use \"xxh64\" or \"md5\"", hash);
    if (shard_scheme_parse(scheme, &config.scheme) != 0)
        return host->fail(point, "unknown scheme \"%s\"", scheme);
    if (check_config(host, point, &config) != RUNNER_OK)
        return RUNNER_ERROR;
    if (config.scheme == SHARD_SCHEME_KETAMA)
        kind = SHARD_HASH_MD5; /* libketama's ring is defined on MD5 */

    shard_hasher hasher;
    if (shard_hasher_init(&hasher, kind, seed) != 0)
        return host->fail(point, "OpenSSL libcrypto could not provide MD5 (out of memory or "
                                 "no default provider): check the OpenSSL configuration or use "
                                 "hash = \"xxh64\" and a scheme other than ketama");

    shard_result result;
    runner_stop_context stop = { host, point };
    int rc = shard_run(&hasher, &config, runner_stop_requested, &stop, &result);
    shard_hasher_cleanup(&hasher);
    if (rc == -1 && (config.scheme == SHARD_SCHEME_RING || config.scheme == SHARD_SCHEME_BOUNDED)) {
        uint64_t points = ((uint64_t)config.nodes + 1) * config.vnodes;
        return host->fail(point,
                          "out of memory for a ring of %" PRIu64 " points (%" PRIu64
                          " MiB) and per-node counters: lower nodes or vnodes",
                          points, points * sizeof(shard_ring_point) >> 20);
    }
    if (rc == -1)
        return host->fail(point,
                          "out of memory for the %s structures (about %" PRIu64
                          " MiB) and per-node counters: lower nodes or table_size",
                          scheme, memory_mib(&config));
    if (rc < 0)
        return host->fail(point, "scheme %s cannot run this point (model rejected it)", scheme);
    if (rc > 0)
        return host->fail(point, "stopped on request before all %" PRIu64 " keys were placed",
                          config.keys);
    return sharding_emit(host, point, kind, &config, &result);
}

static const runner_plugin sharding_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "sharding",
    .version = "1.1.0",
    .summary = "keys moved when node N joins or N-1 leaves: mod-N vs ring, jump, rendezvous, "
               "maglev, ketama, bounded loads; balance and lookup cost",
    .params = sharding_params,
    .param_count = RUNNER_COUNT(sharding_params),
    .columns = sharding_columns,
    .column_count = RUNNER_COUNT(sharding_columns),
    .run = sharding_run,
};

RUNNER_PLUGIN_DEFINE(sharding_plugin)
