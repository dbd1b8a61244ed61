/* The sharding model (docs/science.md section 4 and its "Beyond"): key
 * hashing, seven placement schemes (mod-N, the v-point ring, jump, rendezvous,
 * Maglev, libketama's ring, bounded loads) and the statistics of what moves
 * when node N joins N nodes or node N-1 leaves them. Pure C, no plugin ABI,
 * so the unit tests and the benchmark link it directly. */
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
    char prefix[24]; /* md5 namespace, "" for seed 0 */
    size_t prefix_len;
    void *md;     /* EVP_MD * (md5 only) */
    void *md_ctx; /* EVP_MD_CTX * (md5 only) */
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
/* The whole 16-byte MD5 digest of the md5 namespace prefix and len bytes at
 * data. Only for an md5 hasher (ketama needs all four 32-bit words). */
void shard_md5_digest(shard_hasher *hasher, const char *data, size_t len, unsigned char digest[16]);

/* Writes "key:<index>" into buf (at least SHARD_NAME_MAX bytes), NUL-
 * terminated, and returns its length. No snprintf: this is the hot loop. */
size_t shard_key_name(char *buf, uint64_t index);
/* Writes "node:<node>#<point>" likewise. */
size_t shard_point_name(char *buf, uint64_t node, uint64_t point);
/* Writes "node:<node>", a node's own name (rendezvous, Maglev, ketama). */
size_t shard_node_name(char *buf, uint64_t node);
/* Hash of key "key:<index>". */
uint64_t shard_key_hash(shard_hasher *hasher, uint64_t index);

/* Called now and then in long loops; non-zero stops the work. May be NULL. */
typedef int (*shard_stop_fn)(void *arg);

/* ---- placement ---------------------------------------------------------- */

/* mod-N placement: hash mod nodes (nodes >= 1). */
static inline uint32_t shard_mod_node(uint64_t hash, uint32_t nodes)
{
    return (uint32_t)(hash % nodes);
}

typedef struct shard_ring_point {
    uint64_t hash;              /* position on the circle */
    uint32_t node;              /* owner on the full ring */
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
    uint32_t nodes;       /* owners are 0 .. nodes-1 */
    uint32_t vnodes;      /* points per node; 0 when it varies (ketama) */
    unsigned bucket_bits; /* 1 .. 26 */
    uint32_t *buckets;    /* 2^bucket_bits + 1 first-point indices */
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

/* For every point i, writes to owners[i] the owner of that point's arc on
 * the ring restricted to nodes 0 .. live-1: the node of the first point at
 * or after i (wrapping) whose node is below live. UINT32_MAX everywhere when
 * live is 0. owners has ring->count entries, allocated by the caller. */
void shard_ring_owners(const shard_ring *ring, uint32_t live, uint32_t *owners);

/* ---- jump consistent hash (Lamping & Veach 2014) ------------------------ */

/* The paper's JumpConsistentHash: the bucket in [0, buckets) of a 64-bit
 * key, by its linear congruential chain of jumps. buckets >= 1. */
static inline uint32_t shard_jump_bucket(uint64_t key, uint32_t buckets)
{
    int64_t bucket = -1, next = 0;
    while (next < (int64_t)buckets) {
        bucket = next;
        key = key * UINT64_C(2862933555777941757) + 1;
        next = (int64_t)((double)(bucket + 1) *
                         ((double)(INT64_C(1) << 31) / (double)((key >> 33) + 1)));
    }
    return (uint32_t)bucket;
}

/* ---- rendezvous / highest random weight (Thaler & Ravishankar 1998) ----- */

/* A key's weight on a node: MurmurHash3's 64-bit finalizer (fmix64) of
 * key_hash XOR node_hash, a bijective mixer, so every node ranks the keys
 * in an independent-looking order. */
static inline uint64_t shard_rendezvous_score(uint64_t key_hash, uint64_t node_hash)
{
    uint64_t x = key_hash ^ node_hash;
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

/* Fills node_hashes[n] = hash("node:<n>") for n < nodes. */
void shard_rendezvous_hashes(shard_hasher *hasher, uint32_t nodes, uint64_t *node_hashes);
/* The node among 0 .. nodes-1 with the highest score; a tie goes to the
 * lower-numbered node. nodes >= 1. */
uint32_t shard_rendezvous_node(const uint64_t *node_hashes, uint32_t nodes, uint64_t key_hash);

/* ---- Maglev hashing (Eisenbud et al. 2016, section 3.4) ----------------- */

/* A lookup table of `size` entries (M, prime), each naming a node. */
typedef struct shard_maglev {
    uint32_t *entry; /* size entries, owned */
    uint32_t size;
    uint32_t nodes;
} shard_maglev;

/* Largest table a sweep may ask for (4 bytes an entry, three tables). */
#define SHARD_MAGLEV_MAX_SIZE ((uint64_t)1 << 25)

/* 1 when n is prime (trial division; n < 2^32). */
int shard_is_prime(uint64_t n);

/* Populates Maglev's table for nodes 0 .. nodes-1: node n prefers entries
 * offset, offset+skip, offset+2 skip, ... (mod M) with offset =
 * hash("node:<n>") mod M and skip = hash("node:<n>#skip") mod (M-1) + 1;
 * the nodes take turns, in order, claiming their next preferred entry that
 * is still free, until all M entries are claimed. M prime makes every
 * preference list a permutation, and the turns give node n exactly
 * floor(M/N) + (n < M mod N) entries. Returns 0; -1 when out of memory or
 * when size is not a prime or nodes is 0 (nothing to free then); 1 when
 * stop() asked to stop (stop may be NULL). On 0 free with
 * shard_maglev_cleanup(). */
int shard_maglev_build(shard_maglev *table, shard_hasher *hasher, uint32_t nodes, uint32_t size,
                       shard_stop_fn stop, void *stop_arg);
/* Frees the entries; safe on a zeroed or cleaned table. */
void shard_maglev_cleanup(shard_maglev *table);

static inline uint32_t shard_maglev_node(const shard_maglev *table, uint64_t key_hash)
{
    return table->entry[key_hash % table->size];
}

/* ---- libketama's continuum (Last.fm, 2007) ------------------------------ */

typedef struct shard_ketama_server {
    const char *name; /* "host:port"; its points hash "<name>-<k>" */
    uint64_t weight;  /* libketama's "memory" column, >= 1 */
} shard_ketama_server;

/* Digests per server as libketama computes them, in float:
 * floorf(weight/total * 40 * servers); each digest gives 4 points. */
uint32_t shard_ketama_digests(uint64_t weight, uint64_t total, uint32_t servers);

/* libketama's continuum for the servers (md5 hasher only): for k below
 * shard_ketama_digests(), MD5("<name>-<k>") gives the four points
 * digest[4h+3..4h] read little-endian, h = 0..3, owned by the server's
 * index. Each 32-bit point p is stored as hash p << 32 so shard_ring_find()
 * applies unchanged; equal points are ordered by server index. Returns NULL
 * when out of memory, for no points, or over SHARD_RING_MAX_POINTS. */
shard_ring *shard_ketama_new(shard_hasher *md5, const shard_ketama_server *servers, uint32_t count);

/* libketama's key hash: the first 4 bytes of MD5(key), little-endian (the
 * low half of shard_hash_bytes() of an md5 hasher). */
uint32_t shard_ketama_hash(shard_hasher *md5, const char *key, size_t len);

/* The continuum point a 32-bit key point maps to: the first point >= it,
 * wrapping to the first point (libketama's ketama_get_server). */
static inline const shard_ring_point *shard_ketama_find(const shard_ring *ring, uint32_t key_point)
{
    return &ring->points[shard_ring_find(ring, (uint64_t)key_point << 32)];
}

/* ---- consistent hashing with bounded loads (Mirrokni et al. 2018) ------- */

/* ceil((1+epsilon) keys / nodes), computed in double and never below
 * ceil(keys / nodes), so nodes * capacity >= keys always. */
uint64_t shard_bounded_capacity(uint64_t keys, uint32_t nodes, double epsilon);

/* Keys placed one at a time on a ring restricted to nodes 0 .. live-1, each
 * to the first point at or after its hash whose node holds fewer than
 * capacity keys ("forwarding" past full nodes). */
typedef struct shard_bounded {
    const shard_ring *ring; /* borrowed */
    uint32_t live;          /* nodes 0 .. live-1; other nodes' points are skipped */
    uint64_t capacity;
    uint64_t *load; /* live counters, owned */
} shard_bounded;

/* Returns 0, or -1 when out of memory (nothing to free). live >= 1 and
 * live <= ring->nodes. Pair with shard_bounded_cleanup(). */
int shard_bounded_init(shard_bounded *bounded, const shard_ring *ring, uint32_t live,
                       uint64_t capacity);
void shard_bounded_cleanup(shard_bounded *bounded);
/* Places one key and counts it on its node, which it returns; UINT32_MAX
 * when every live node is full (never, while at most live * capacity keys
 * are placed). Adds to *probes the ring points compared or examined: the
 * binary search's comparisons plus every live point walked, the owner's
 * included. */
uint32_t shard_bounded_place(shard_bounded *bounded, uint64_t key_hash, uint64_t *probes);

/* ---- the experiment ----------------------------------------------------- */

typedef enum shard_scheme {
    SHARD_SCHEME_RING = 0, /* the v-point ring above: the default */
    SHARD_SCHEME_MOD,
    SHARD_SCHEME_JUMP,
    SHARD_SCHEME_RENDEZVOUS,
    SHARD_SCHEME_MAGLEV,
    SHARD_SCHEME_KETAMA,
    SHARD_SCHEME_BOUNDED
} shard_scheme;

/* Parses "mod", "ring", "jump", "rendezvous", "maglev", "ketama",
 * "bounded". Returns 0, or -1 for any other name. */
int shard_scheme_parse(const char *name, shard_scheme *scheme);
/* The scheme's name as parsed; static storage. */
const char *shard_scheme_name(shard_scheme scheme);

typedef struct shard_config {
    uint64_t keys;       /* keys "key:0" .. "key:<keys-1>" */
    uint32_t nodes;      /* N; the cluster grows to N+1 and shrinks to N-1 */
    uint32_t vnodes;     /* ring points per node (ring, bounded) */
    shard_scheme scheme; /* 0 = SHARD_SCHEME_RING */
    uint32_t table_size; /* maglev: M, a prime */
    double epsilon;      /* bounded: capacity ceil((1+epsilon) keys/N) */
    int measure_lookup;  /* non-zero: time N-node lookups into lookup_ns */
} shard_config;

typedef struct shard_result {
    uint64_t moved_mod_keys; /* node(h mod N) != node(h mod N+1) */
    /* The scheme under test from here on (the ring's figures for "ring"). */
    uint64_t moved_grow_keys;          /* owner on N nodes != owner on N+1 */
    uint64_t moved_grow_excess_keys;   /* ... and not moved to node N */
    int has_shrink;                    /* N >= 2: the two below are set */
    uint64_t moved_shrink_keys;        /* owner on N != owner on N-1 */
    uint64_t moved_shrink_excess_keys; /* ... though not on node N-1 */
    double new_node_arc;               /* share of the lookup space (circle or table)
                                  node N owns on N+1 nodes; NaN without one */
    uint64_t ring_points;              /* ring, bounded: (N+1) * vnodes; ketama: the
                                  points of its N+1 continuum; else 0 */

    /* Key counts per node on N nodes. */
    uint64_t load_max, load_min;
    double load_mean, load_cv;
    double load_cv_expected; /* for an ideal hash; NaN for bounded */
    double share_cv;         /* cv of the nodes' lookup-space shares; NaN without one */
    uint64_t capacity;       /* bounded: the cap on N nodes; else 0 */
    uint64_t probes;         /* probes of all N-node lookups (see docs) */
    uint64_t table_bytes;    /* bytes of the N-node lookup structure */
    double lookup_ns;        /* measured ns per N-node lookup; NaN unless measured */
    /* The same under mod-N placement. */
    uint64_t load_max_mod, load_min_mod;
    double load_cv_mod;
} shard_result;

/* Runs one experiment: hashes every key once, places it under mod N and
 * mod N+1 and under config->scheme on N-1 (when N >= 2), N and N+1 nodes,
 * and counts the moves, the N-node loads and the N-node lookup probes.
 * Node sets are always 0 .. n-1: growing adds node N, shrinking removes
 * node N-1. Scheme ketama needs an md5 hasher (libketama's hash). Returns
 * 0; -1 when out of memory; -2 for a config it cannot run (maglev without a
 * prime table_size, ketama without md5, a ring over SHARD_RING_MAX_POINTS);
 * 1 when stop() asked to stop. result is complete only on 0. */
int shard_run(shard_hasher *hasher, const shard_config *config, shard_stop_fn stop, void *stop_arg,
              shard_result *result);

/* max / min, +inf when min is 0 (some node holds no key). */
double shard_load_ratio(uint64_t load_max, uint64_t load_min);

/* Expected coefficient of variation of per-node key counts on a ring with
 * vnodes points per node, keys keys and nodes nodes, with an ideal hash:
 * the node's share p ~ Beta(v, (N-1)v) plus binomial key noise. */
double shard_load_cv_expected(uint64_t keys, uint32_t nodes, uint32_t vnodes);

/* The same when node n's share p_n of the lookup space is fixed (a Maglev
 * table; NULL shares: all 1/N, as for mod-N, jump and rendezvous): the
 * root of E[cv^2] = N sum_n (p_n(1-p_n)/keys + (p_n - 1/N)^2). */
double shard_load_cv_fixed_shares(uint64_t keys, uint32_t nodes, const double *shares);

#endif
