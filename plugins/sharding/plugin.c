/* sharding plugin: how many keys move when node N joins N nodes, under mod-N
 * placement and on a consistent-hash ring with virtual nodes, and how even
 * the ring's load is. ABI glue only; the model is in model.c. */
#include <runner/plugin.h>

#include <inttypes.h>

#include "model.h"

enum {
    P_KEYS,
    P_NODES,
    P_VNODES,
    P_HASH,
    P_SEED
};

static const char *const hash_choices[] = { "xxh64", "md5", NULL };

static const runner_param params[] = {
    [P_KEYS] = RUNNER_PARAM_INTEGER("keys", "keys",
        "keys placed, named \"key:0\" .. \"key:<keys-1>\"", 20000, 1, 1e8),
    [P_NODES] = RUNNER_PARAM_INTEGER("nodes", "nodes",
        "N, nodes before the step; the cluster grows to N+1", 8, 1, 100000),
    [P_VNODES] = RUNNER_PARAM_INTEGER("vnodes", "points/node",
        "ring points per node, at hash(\"node:<n>#<v>\")", 120, 1, 10000),
    [P_HASH] = RUNNER_PARAM_TEXT("hash",
        "64-bit key hash: xxh64 (seeded) or md5 (first 8 bytes, little-endian)",
        "xxh64", hash_choices),
    [P_SEED] = RUNNER_PARAM_INTEGER("seed", "",
        "hash seed (xxh64) or namespace prefix \"<seed>:\" (md5): another key set",
        0, 0, 9007199254740992.0),
};

enum {
    C_HASH_NAME,
    C_MOVED_MOD,
    C_MOVED_MOD_EXPECTED,
    C_MOVED_RING,
    C_MOVED_IDEAL,
    C_NEW_NODE_ARC,
    C_MOVED_MOD_KEYS,
    C_MOVED_RING_KEYS,
    C_LOAD_MEAN,
    C_LOAD_MAX,
    C_LOAD_MIN,
    C_LOAD_RATIO,
    C_LOAD_CV,
    C_LOAD_CV_EXPECTED,
    C_SHARE_CV,
    C_LOAD_MAX_MOD,
    C_LOAD_MIN_MOD,
    C_LOAD_RATIO_MOD,
    C_LOAD_CV_MOD,
    C_RING_POINTS
};

static const runner_column columns[] = {
    [C_HASH_NAME] = RUNNER_COLUMN("hash_name", RUNNER_TEXT, "",
        "hash function that placed keys and ring points"),
    [C_MOVED_MOD] = RUNNER_COLUMN("moved_mod", RUNNER_REAL, "fraction",
        "share of keys whose node changes from hash mod N to hash mod N+1"),
    [C_MOVED_MOD_EXPECTED] = RUNNER_COLUMN("moved_mod_expected", RUNNER_REAL, "fraction",
        "N/(N+1): what mod placement moves with an ideal hash"),
    [C_MOVED_RING] = RUNNER_COLUMN("moved_ring", RUNNER_REAL, "fraction",
        "share of keys whose ring owner changes when node N's points are added"),
    [C_MOVED_IDEAL] = RUNNER_COLUMN("moved_ideal", RUNNER_REAL, "fraction",
        "1/(N+1): the least any placement can move and stay balanced"),
    [C_NEW_NODE_ARC] = RUNNER_COLUMN("new_node_arc", RUNNER_REAL, "fraction",
        "share of the hash circle node N owns on the grown ring; moved_ring estimates it"),
    [C_MOVED_MOD_KEYS] = RUNNER_COLUMN("moved_mod_keys", RUNNER_INTEGER, "keys",
        "keys moved under mod placement"),
    [C_MOVED_RING_KEYS] = RUNNER_COLUMN("moved_ring_keys", RUNNER_INTEGER, "keys",
        "keys moved on the ring (all of them to node N)"),
    [C_LOAD_MEAN] = RUNNER_COLUMN("load_mean", RUNNER_REAL, "keys",
        "keys/N: mean keys per node"),
    [C_LOAD_MAX] = RUNNER_COLUMN("load_max", RUNNER_INTEGER, "keys",
        "keys on the busiest node of the N-node ring"),
    [C_LOAD_MIN] = RUNNER_COLUMN("load_min", RUNNER_INTEGER, "keys",
        "keys on the idlest node of the N-node ring"),
    [C_LOAD_RATIO] = RUNNER_COLUMN("load_ratio", RUNNER_REAL, "",
        "load_max/load_min on the ring; +inf when a node has no key"),
    [C_LOAD_CV] = RUNNER_COLUMN("load_cv", RUNNER_REAL, "fraction",
        "coefficient of variation (sd/mean) of keys per node on the N-node ring"),
    [C_LOAD_CV_EXPECTED] = RUNNER_COLUMN("load_cv_expected", RUNNER_REAL, "fraction",
        "load_cv expected for an ideal hash: share ~ Beta(v,(N-1)v) plus key noise"),
    [C_SHARE_CV] = RUNNER_COLUMN("share_cv", RUNNER_REAL, "fraction",
        "coefficient of variation of the nodes' shares of the circle (no key noise)"),
    [C_LOAD_MAX_MOD] = RUNNER_COLUMN("load_max_mod", RUNNER_INTEGER, "keys",
        "keys on the busiest node under mod-N placement"),
    [C_LOAD_MIN_MOD] = RUNNER_COLUMN("load_min_mod", RUNNER_INTEGER, "keys",
        "keys on the idlest node under mod-N placement"),
    [C_LOAD_RATIO_MOD] = RUNNER_COLUMN("load_ratio_mod", RUNNER_REAL, "",
        "load_max_mod/load_min_mod; +inf when a node has no key"),
    [C_LOAD_CV_MOD] = RUNNER_COLUMN("load_cv_mod", RUNNER_REAL, "fraction",
        "coefficient of variation of keys per node under mod-N placement"),
    [C_RING_POINTS] = RUNNER_COLUMN("ring_points", RUNNER_INTEGER, "points",
        "points on the grown ring, (N+1)*vnodes"),
};

typedef struct stop_context {
    const runner_host *host;
    runner_point *point;
} stop_context;

static int should_stop(void *arg)
{
    stop_context *ctx = arg;
    return ctx->host->should_stop(ctx->point);
}

static int emit(const runner_host *host, runner_point *point, shard_hash_kind kind,
                const shard_config *config, const shard_result *r)
{
    double keys = (double)config->keys, nodes = config->nodes;
    int rc = 0;
    rc |= host->set_text(point, C_HASH_NAME, shard_hash_name(kind));
    rc |= host->set_real(point, C_MOVED_MOD, (double)r->moved_mod_keys / keys);
    rc |= host->set_real(point, C_MOVED_MOD_EXPECTED, nodes / (nodes + 1));
    rc |= host->set_real(point, C_MOVED_RING, (double)r->moved_ring_keys / keys);
    rc |= host->set_real(point, C_MOVED_IDEAL, 1.0 / (nodes + 1));
    rc |= host->set_real(point, C_NEW_NODE_ARC, r->new_node_arc);
    rc |= host->set_integer(point, C_MOVED_MOD_KEYS, (int64_t)r->moved_mod_keys);
    rc |= host->set_integer(point, C_MOVED_RING_KEYS, (int64_t)r->moved_ring_keys);
    rc |= host->set_real(point, C_LOAD_MEAN, r->load_mean);
    rc |= host->set_integer(point, C_LOAD_MAX, (int64_t)r->load_max);
    rc |= host->set_integer(point, C_LOAD_MIN, (int64_t)r->load_min);
    rc |= host->set_real(point, C_LOAD_RATIO, shard_load_ratio(r->load_max, r->load_min));
    rc |= host->set_real(point, C_LOAD_CV, r->load_cv);
    rc |= host->set_real(point, C_LOAD_CV_EXPECTED,
                         shard_load_cv_expected(config->keys, config->nodes, config->vnodes));
    rc |= host->set_real(point, C_SHARE_CV, r->share_cv);
    rc |= host->set_integer(point, C_LOAD_MAX_MOD, (int64_t)r->load_max_mod);
    rc |= host->set_integer(point, C_LOAD_MIN_MOD, (int64_t)r->load_min_mod);
    rc |= host->set_real(point, C_LOAD_RATIO_MOD,
                         shard_load_ratio(r->load_max_mod, r->load_min_mod));
    rc |= host->set_real(point, C_LOAD_CV_MOD, r->load_cv_mod);
    rc |= host->set_integer(point, C_RING_POINTS, (int64_t)r->ring_points);
    if (rc)
        return RUNNER_ERROR; /* the host has failed the point, naming the column */
    return host->emit_row(point);
}

static int run(const runner_host *host, runner_point *point)
{
    shard_config config = {
        .keys = (uint64_t)host->param_integer(point, P_KEYS),
        .nodes = (uint32_t)host->param_integer(point, P_NODES),
        .vnodes = (uint32_t)host->param_integer(point, P_VNODES),
    };
    uint64_t seed = (uint64_t)host->param_integer(point, P_SEED);
    const char *hash = host->param_text(point, P_HASH);
    shard_hash_kind kind;
    if (shard_hash_parse(hash, &kind) != 0)
        return host->fail(point, "unknown hash \"%s\": use \"xxh64\" or \"md5\"", hash);

    uint64_t points = ((uint64_t)config.nodes + 1) * config.vnodes;
    if (points > SHARD_RING_MAX_POINTS)
        return host->fail(point,
            "ring of (nodes+1)*vnodes = %" PRIu64 " points exceeds the limit of %" PRIu64
            " (about 0.7 GB): lower nodes or vnodes", points, SHARD_RING_MAX_POINTS);

    shard_hasher hasher;
    if (shard_hasher_init(&hasher, kind, seed) != 0)
        return host->fail(point, "OpenSSL libcrypto could not provide MD5 (out of memory or "
                          "no default provider): check the OpenSSL configuration or use "
                          "hash = \"xxh64\"");

    shard_result result;
    stop_context stop = { host, point };
    int rc = shard_run(&hasher, &config, should_stop, &stop, &result);
    shard_hasher_cleanup(&hasher);
    if (rc < 0)
        return host->fail(point, "out of memory for a ring of %" PRIu64 " points (%" PRIu64
                          " MiB) and per-node counters: lower nodes or vnodes",
                          points, points * sizeof(shard_ring_point) >> 20);
    if (rc > 0)
        return host->fail(point, "stopped on request before all %" PRIu64 " keys were placed",
                          config.keys);
    return emit(host, point, kind, &config, &result);
}

static const runner_plugin descriptor = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "sharding",
    .version = "1.0.0",
    .summary = "keys moved when node N joins: mod-N vs a consistent-hash ring, and ring balance",
    .params = params,
    .param_count = RUNNER_COUNT(params),
    .columns = columns,
    .column_count = RUNNER_COUNT(columns),
    .run = run,
};

RUNNER_PLUGIN_DEFINE(descriptor)
