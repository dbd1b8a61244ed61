/* The sharding model (docs/science.md section 4): key hashing, mod-N
 * placement, a consistent-hash ring with virtual nodes, and the statistics
 * of what moves when node N joins N nodes. Pure C, no plugin ABI, so the
 * unit tests and the benchmark link it directly. */
#ifndef SHARDING_MODEL_H
#define SHARDING_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* ---- hashing ------------------------------------------------------------ */

typedef enum shard_hash_kind {
    SHARD_HASH_XXH64 = 0, /* XXH64(string, seed) */
    SHARD_HASH_MD5 = 1    /* first 8 digest bytes, little-endian */
} shard_hash_kind;

/* Longest string the model hashes: "<seed>:" + "node:<n>#<v>" with 20-digit
 * numbers, plus NUL. */
#define SHARD_NAME_MAX 80

/* A hash function bound to a seed. xxh64 uses the seed as XXH64's seed; md5
 * has none, so a non-zero seed is a namespace prefix "<seed>:" on every
 * hashed string (seed 0 hashes the bare strings, so `printf key:0 | md5sum`
 * checks it). Not shareable between threads: the md5 context is reused. */
typedef struct shard_hasher {
    shard_hash_kind kind;
    uint64_t seed;
    char prefix[24];   /* md5 namespace, "" for seed 0 */
    size_t prefix_len;
    void *md;          /* EVP_MD * (md5 only) */
    void *md_ctx;      /* EVP_MD_CTX * (md5 only) */
} shard_hasher;

/* Parses "xxh64" or "md5". Returns 0, or -1 for any other name. */
int shard_hash_parse(const char *name, shard_hash_kind *kind);
/* The canonical name of a hash ("xxh64", "md5"); static storage. */
const char *shard_hash_name(shard_hash_kind kind);

/* Prepares a hasher. Returns 0, or -1 if libcrypto could not provide MD5
 * (out of memory or no provider); then nothing needs freeing. Every
 * successful init is paired with shard_hasher_cleanup(). */
int shard_hasher_init(shard_hasher *hasher, shard_hash_kind kind, uint64_t seed);
/* Releases what init acquired; safe on a zeroed or already-cleaned hasher. */
void shard_hasher_cleanup(shard_hasher *hasher);
/* The 64-bit hash of len bytes at data (before any md5 namespace prefix). */
uint64_t shard_hash_bytes(shard_hasher *hasher, const char *data, size_t len);

/* Writes "key:<index>" into buf (at least SHARD_NAME_MAX bytes), NUL-
 * terminated, and returns its length. No snprintf: this is the hot loop. */
size_t shard_key_name(char *buf, uint64_t index);
/* Writes "node:<node>#<point>" likewise. */
size_t shard_point_name(char *buf, uint64_t node, uint64_t point);
/* Hash of key "key:<index>". */
uint64_t shard_key_hash(shard_hasher *hasher, uint64_t index);

/* ---- placement ---------------------------------------------------------- */

/* mod-N placement: hash mod nodes (nodes >= 1). */
static inline uint32_t shard_mod_node(uint64_t hash, uint32_t nodes)
{
    return (uint32_t)(hash % nodes);
}

typedef struct shard_ring_point {
    uint64_t hash;   /* position on the circle */
    uint32_t node;   /* owner on the full ring */
    uint32_t node_without_last; /* owner once the highest-numbered node's
                                   points are removed (the ring one node
                                   smaller); UINT32_MAX on a 1-node ring */
} shard_ring_point;

/* A consistent-hash ring: points sorted by (hash, node). A key belongs to
 * the first point with hash >= key hash, wrapping to the first point. A
 * bucket index on the hash's top bits narrows the binary search to about
 * one point, so a lookup is two cache misses instead of lg(points). */
typedef struct shard_ring {
    shard_ring_point *points;
    size_t count;
    uint32_t nodes;        /* owners are 0 .. nodes-1 */
    uint32_t vnodes;       /* points per node */
    unsigned bucket_bits;  /* 1 .. 26 */
    uint32_t *buckets;     /* 2^bucket_bits + 1 first-point indices */
} shard_ring;

/* Builds the ring of nodes 0 .. nodes-1 with vnodes points each, point v of
 * node n at hash("node:<n>#<v>"). Returns NULL when out of memory. The
 * caller frees it with shard_ring_free(). nodes >= 1, vnodes >= 1, and
 * nodes * vnodes <= SHARD_RING_MAX_POINTS. */
shard_ring *shard_ring_new(shard_hasher *hasher, uint32_t nodes, uint32_t vnodes);
/* Frees a ring; accepts NULL. */
void shard_ring_free(shard_ring *ring);

/* Points a ring may hold: 2^25, about 0.7 GB with its index. */
#define SHARD_RING_MAX_POINTS ((uint64_t)1 << 25)

/* Index of the first point with hash >= key_hash, wrapping to 0. */
static inline size_t shard_ring_find(const shard_ring *ring, uint64_t key_hash)
{
    uint64_t bucket = key_hash >> (64 - ring->bucket_bits);
    size_t lo = ring->buckets[bucket], hi = ring->buckets[bucket + 1];
    /* Everything before lo is in a lower bucket (smaller), everything from
     * hi on in a higher one (larger): binary search only [lo, hi). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ring->points[mid].hash < key_hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == ring->count ? 0 : lo;
}

/* The node owning key_hash on the full ring. */
static inline uint32_t shard_ring_node(const shard_ring *ring, uint64_t key_hash)
{
    return ring->points[shard_ring_find(ring, key_hash)].node;
}

/* The node owning key_hash once the highest-numbered node is removed. */
static inline uint32_t shard_ring_node_without_last(const shard_ring *ring, uint64_t key_hash)
{
    return ring->points[shard_ring_find(ring, key_hash)].node_without_last;
}

/* ---- the experiment ----------------------------------------------------- */

typedef struct shard_config {
    uint64_t keys;    /* keys "key:0" .. "key:<keys-1>" */
    uint32_t nodes;   /* N; the cluster grows to N+1 */
    uint32_t vnodes;  /* ring points per node */
} shard_config;

typedef struct shard_result {
    uint64_t moved_mod_keys;   /* node(h mod N) != node(h mod N+1) */
    uint64_t moved_ring_keys;  /* owner on the N ring != owner on the N+1 ring */
    double new_node_arc;       /* share of the circle node N owns on N+1 */
    uint64_t ring_points;      /* (N+1) * vnodes */

    /* Key counts per node on the N-node ring. */
    uint64_t load_max, load_min;
    double load_mean, load_cv;
    double share_cv;           /* cv of the nodes' circle shares (no key noise) */
    /* The same under mod-N placement. */
    uint64_t load_max_mod, load_min_mod;
    double load_cv_mod;
} shard_result;

/* Called every few thousand keys; non-zero stops the run. May be NULL. */
typedef int (*shard_stop_fn)(void *arg);

/* Runs one experiment: places every key under mod N and mod N+1, and on one
 * ring of N+1 nodes, whose node_without_last is the N-node ring (the same
 * points minus node N's), so one lookup gives both owners. Returns 0; -1 when out of memory (ring or counters);
 * 1 when stop() asked to stop. result is complete only on 0. */
int shard_run(shard_hasher *hasher, const shard_config *config,
              shard_stop_fn stop, void *stop_arg, shard_result *result);

/* max / min, +inf when min is 0 (some node holds no key). */
double shard_load_ratio(uint64_t load_max, uint64_t load_min);

/* Expected coefficient of variation of per-node key counts on a ring with
 * vnodes points per node, keys keys and nodes nodes, with an ideal hash:
 * the node's share p ~ Beta(v, (N-1)v) plus binomial key noise. */
double shard_load_cv_expected(uint64_t keys, uint32_t nodes, uint32_t vnodes);

#endif
