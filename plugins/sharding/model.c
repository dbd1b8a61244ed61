/* The sharding model: hashing, the seven placement schemes and the
 * statistics of one N -> N+1 and one N -> N-1 step. See model.h for the
 * contracts and docs/plugins/sharding.md for the science. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, for the measured lookup_ns */

#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <xxhash.h>

/* ---- hashing ------------------------------------------------------------ */

static const char *const hash_names[] = { "xxh64", "md5" };

int shard_hash_parse(const char *name, shard_hash_kind *kind)
{
    for (size_t i = 0; i < sizeof(hash_names) / sizeof(hash_names[0]); i++) {
        if (strcmp(name, hash_names[i]) == 0) {
            *kind = (shard_hash_kind)i;
            return 0;
        }
    }
    return -1;
}

const char *shard_hash_name(shard_hash_kind kind)
{
    return kind == SHARD_HASH_MD5 ? "md5" : "xxh64";
}

/* Writes value in decimal at buf, returns the number of digits. */
static size_t format_u64(char *buf, uint64_t value)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    for (size_t i = 0; i < n; i++)
        buf[i] = digits[n - 1 - i];
    return n;
}

int shard_hasher_init(shard_hasher *hasher, shard_hash_kind kind, uint64_t seed)
{
    memset(hasher, 0, sizeof(*hasher));
    hasher->kind = kind;
    hasher->seed = seed;
    if (kind != SHARD_HASH_MD5)
        return 0;
    if (seed) {
        hasher->prefix_len = format_u64(hasher->prefix, seed);
        hasher->prefix[hasher->prefix_len++] = ':';
        hasher->prefix[hasher->prefix_len] = '\0';
    }
    /* Fetched once and reused: the implicit fetch in EVP_md5() costs more
     * than hashing a short key. */
    hasher->md = EVP_MD_fetch(NULL, "MD5", NULL);
    hasher->md_ctx = EVP_MD_CTX_new();
    if (!hasher->md || !hasher->md_ctx) {
        shard_hasher_cleanup(hasher);
        return -1;
    }
    return 0;
}

void shard_hasher_cleanup(shard_hasher *hasher)
{
    EVP_MD_CTX_free(hasher->md_ctx);
    EVP_MD_free(hasher->md);
    hasher->md_ctx = NULL;
    hasher->md = NULL;
}

void shard_md5_digest(shard_hasher *hasher, const char *data, size_t len, unsigned char digest[16])
{
    unsigned char full[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    EVP_MD_CTX *ctx = hasher->md_ctx;
    /* With a fetched MD5 and a live context these cannot fail; a zero
     * digest would show up as every key on one node, not as a crash. */
    memset(full, 0, 16);
    if (ctx && EVP_DigestInit_ex2(ctx, hasher->md, NULL)) {
        if (hasher->prefix_len)
            EVP_DigestUpdate(ctx, hasher->prefix, hasher->prefix_len);
        EVP_DigestUpdate(ctx, data, len);
        EVP_DigestFinal_ex(ctx, full, &digest_len);
    }
    memcpy(digest, full, 16);
}

static uint64_t md5_hash(shard_hasher *hasher, const char *data, size_t len)
{
    unsigned char digest[16];
    shard_md5_digest(hasher, data, len, digest);
    uint64_t hash = 0;
    for (int i = 7; i >= 0; i--)
        hash = (hash << 8) | digest[i];
    return hash;
}

uint64_t shard_hash_bytes(shard_hasher *hasher, const char *data, size_t len)
{
    if (hasher->kind == SHARD_HASH_MD5)
        return md5_hash(hasher, data, len);
    return XXH64(data, len, hasher->seed);
}

size_t shard_key_name(char *buf, uint64_t index)
{
    memcpy(buf, "key:", 4);
    size_t len = 4 + format_u64(buf + 4, index);
    buf[len] = '\0';
    return len;
}

size_t shard_point_name(char *buf, uint64_t node, uint64_t point)
{
    memcpy(buf, "node:", 5);
    size_t len = 5 + format_u64(buf + 5, node);
    buf[len++] = '#';
    len += format_u64(buf + len, point);
    buf[len] = '\0';
    return len;
}

size_t shard_node_name(char *buf, uint64_t node)
{
    memcpy(buf, "node:", 5);
    size_t len = 5 + format_u64(buf + 5, node);
    buf[len] = '\0';
    return len;
}

uint64_t shard_key_hash(shard_hasher *hasher, uint64_t index)
{
    char name[SHARD_NAME_MAX];
    size_t len = shard_key_name(name, index);
    return shard_hash_bytes(hasher, name, len);
}

/* ---- the ring ----------------------------------------------------------- */

/* Ties (equal hashes) are broken by node, so the order, and every lookup, is
 * the same on every platform and qsort implementation. */
static int point_compare(const void *a, const void *b)
{
    const shard_ring_point *pa = a, *pb = b;
    if (pa->hash != pb->hash)
        return pa->hash < pb->hash ? -1 : 1;
    return (pa->node > pb->node) - (pa->node < pb->node);
}

/* For every point, the owner on the ring without node nodes-1: the first
 * point at or after it (wrapping) that belongs to another node. */
static void fill_without_last(shard_ring *ring)
{
    uint32_t last = ring->nodes - 1;
    if (ring->nodes == 1) {
        for (size_t i = 0; i < ring->count; i++)
            ring->points[i].node_without_last = UINT32_MAX;
        return;
    }
    /* Walking backwards, the owner for the tail wraps to the first non-last
     * point from the front. */
    uint32_t next = UINT32_MAX;
    for (size_t i = 0; i < ring->count && next == UINT32_MAX; i++)
        if (ring->points[i].node != last)
            next = ring->points[i].node;
    for (size_t i = ring->count; i-- > 0;) {
        if (ring->points[i].node != last)
            next = ring->points[i].node;
        ring->points[i].node_without_last = next;
    }
}

void shard_ring_owners(const shard_ring *ring, uint32_t live, uint32_t *owners)
{
    /* The same backwards walk as fill_without_last, for any prefix of nodes. */
    uint32_t next = UINT32_MAX;
    for (size_t i = 0; i < ring->count && next == UINT32_MAX; i++)
        if (ring->points[i].node < live)
            next = ring->points[i].node;
    for (size_t i = ring->count; i-- > 0;) {
        if (ring->points[i].node < live)
            next = ring->points[i].node;
        owners[i] = next;
    }
}

static unsigned bucket_bits_for(size_t count)
{
    unsigned bits = 1;
    while (bits < 26 && ((size_t)1 << bits) < count)
        bits++;
    return bits;
}

/* Bytes shard_ring_new() allocates for a ring of count points. */
static uint64_t ring_bytes(size_t count)
{
    return (uint64_t)count * sizeof(shard_ring_point) +
           ((UINT64_C(1) << bucket_bits_for(count)) + 1) * sizeof(uint32_t);
}

/* A ring of count points whose hash and node the caller fills in before
 * ring_finish(). NULL when out of memory. */
static shard_ring *ring_alloc(size_t count, uint32_t nodes, uint32_t vnodes)
{
    shard_ring *ring = calloc(1, sizeof(*ring));
    if (!ring)
        return NULL;
    ring->nodes = nodes;
    ring->vnodes = vnodes;
    ring->count = count;
    ring->bucket_bits = bucket_bits_for(count);
    ring->points = malloc(count * sizeof(*ring->points));
    ring->buckets = malloc((((size_t)1 << ring->bucket_bits) + 1) * sizeof(*ring->buckets));
    if (!ring->points || !ring->buckets) {
        shard_ring_free(ring);
        return NULL;
    }
    return ring;
}

/* Sorts the points, fills node_without_last and the bucket index. */
static void ring_finish(shard_ring *ring)
{
    size_t bucket_count = (size_t)1 << ring->bucket_bits;
    qsort(ring->points, ring->count, sizeof(*ring->points), point_compare);
    fill_without_last(ring);

    unsigned shift = 64 - ring->bucket_bits;
    size_t pos = 0;
    for (size_t b = 0; b < bucket_count; b++) {
        while (pos < ring->count && (ring->points[pos].hash >> shift) < b)
            pos++;
        ring->buckets[b] = (uint32_t)pos;
    }
    ring->buckets[bucket_count] = (uint32_t)ring->count;
}

shard_ring *shard_ring_new(shard_hasher *hasher, uint32_t nodes, uint32_t vnodes)
{
    if (nodes == 0 || vnodes == 0 || (uint64_t)nodes * vnodes > SHARD_RING_MAX_POINTS)
        return NULL;
    shard_ring *ring = ring_alloc((size_t)nodes * vnodes, nodes, vnodes);
    if (!ring)
        return NULL;
    char name[SHARD_NAME_MAX];
    size_t i = 0;
    for (uint32_t n = 0; n < nodes; n++) {
        for (uint32_t v = 0; v < vnodes; v++, i++) {
            size_t len = shard_point_name(name, n, v);
            ring->points[i].hash = shard_hash_bytes(hasher, name, len);
            ring->points[i].node = n;
        }
    }
    ring_finish(ring);
    return ring;
}

void shard_ring_free(shard_ring *ring)
{
    if (!ring)
        return;
    free(ring->points);
    free(ring->buckets);
    free(ring);
}

/* shard_ring_find(), adding the binary search's comparisons to *probes. */
static inline size_t ring_find_counted(const shard_ring *ring, uint64_t key_hash, uint64_t *probes)
{
    uint64_t bucket = key_hash >> (64 - ring->bucket_bits);
    size_t lo = ring->buckets[bucket], hi = ring->buckets[bucket + 1];
    uint64_t compared = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        compared++;
        if (ring->points[mid].hash < key_hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    *probes += compared;
    return lo == ring->count ? 0 : lo;
}

/* ---- jump ---------------------------------------------------------------- */

/* Jump buckets of one key for lo < mid < hi buckets in one walk (lo may be 0:
 * then out[0] is UINT32_MAX). The chain of jumps does not depend on the
 * bucket count; the bucket for n buckets is the last jump below n, and the
 * paper's loop for n buckets takes one step per jump below n. */
static void jump_buckets(uint64_t key, uint32_t lo, uint32_t mid, uint32_t hi, uint32_t out[3],
                         uint64_t *steps_mid)
{
    int64_t bucket = -1, next = 0;
    out[0] = UINT32_MAX;
    out[1] = out[2] = 0;
    while (next < (int64_t)hi) {
        bucket = next;
        if (bucket < (int64_t)lo)
            out[0] = (uint32_t)bucket;
        if (bucket < (int64_t)mid) {
            out[1] = (uint32_t)bucket;
            (*steps_mid)++;
        }
        out[2] = (uint32_t)bucket;
        key = key * UINT64_C(2862933555777941757) + 1;
        next = (int64_t)((double)(bucket + 1) *
                         ((double)(INT64_C(1) << 31) / (double)((key >> 33) + 1)));
    }
}

/* ---- rendezvous ---------------------------------------------------------- */

void shard_rendezvous_hashes(shard_hasher *hasher, uint32_t nodes, uint64_t *node_hashes)
{
    char name[SHARD_NAME_MAX];
    for (uint32_t n = 0; n < nodes; n++)
        node_hashes[n] = shard_hash_bytes(hasher, name, shard_node_name(name, n));
}

uint32_t shard_rendezvous_node(const uint64_t *node_hashes, uint32_t nodes, uint64_t key_hash)
{
    uint64_t best = shard_rendezvous_score(key_hash, node_hashes[0]);
    uint32_t owner = 0;
    for (uint32_t n = 1; n < nodes; n++) {
        uint64_t score = shard_rendezvous_score(key_hash, node_hashes[n]);
        if (score > best) {
            best = score;
            owner = n;
        }
    }
    return owner;
}

/* ---- Maglev -------------------------------------------------------------- */

int shard_is_prime(uint64_t n)
{
    if (n < 2)
        return 0;
    for (uint64_t d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

int shard_maglev_build(shard_maglev *table, shard_hasher *hasher, uint32_t nodes, uint32_t size,
                       shard_stop_fn stop, void *stop_arg)
{
    memset(table, 0, sizeof(*table));
    if (nodes == 0 || !shard_is_prime(size))
        return -1;
    uint32_t *entry = malloc((size_t)size * sizeof(*entry));
    uint32_t *position = malloc((size_t)nodes * sizeof(*position));
    uint32_t *skip = malloc((size_t)nodes * sizeof(*skip));
    int rc = -1;
    if (!entry || !position || !skip)
        goto done;

    char name[SHARD_NAME_MAX];
    for (uint32_t n = 0; n < nodes; n++) {
        size_t len = shard_node_name(name, n);
        position[n] = (uint32_t)(shard_hash_bytes(hasher, name, len) % size);
        memcpy(name + len, "#skip", 6);
        skip[n] = (uint32_t)(shard_hash_bytes(hasher, name, len + 5) % (size - 1) + 1);
    }
    memset(entry, 0xff, (size_t)size * sizeof(*entry)); /* UINT32_MAX: free */

    /* position[n] is permutation[n][next[n]] of the paper's pseudocode:
     * offset + next * skip (mod M), advanced by adding skip. */
    uint64_t filled = 0;
    for (;;) {
        for (uint32_t n = 0; n < nodes; n++) {
            uint32_t c = position[n];
            while (entry[c] != UINT32_MAX) {
                c += skip[n];
                if (c >= size)
                    c -= size;
            }
            entry[c] = n;
            c += skip[n];
            position[n] = c >= size ? c - size : c;
            if (++filled == size) {
                rc = 0;
                goto done;
            }
            if ((filled & 0xffff) == 0 && stop && stop(stop_arg)) {
                rc = 1;
                goto done;
            }
        }
    }
done:
    free(position);
    free(skip);
    if (rc == 0) {
        table->entry = entry;
        table->size = size;
        table->nodes = nodes;
    } else {
        free(entry);
    }
    return rc;
}

void shard_maglev_cleanup(shard_maglev *table)
{
    free(table->entry);
    table->entry = NULL;
}

/* ---- ketama -------------------------------------------------------------- */

uint32_t shard_ketama_digests(uint64_t weight, uint64_t total, uint32_t servers)
{
    /* libketama's own arithmetic: a float share, a double product, and
     * floorf() of that product rounded back to float. */
    float pct = (float)weight / (float)total;
    return (uint32_t)floorf((float)((double)pct * 40.0 * (double)(float)servers));
}

shard_ring *shard_ketama_new(shard_hasher *md5, const shard_ketama_server *servers, uint32_t count)
{
    if (count == 0 || md5->kind != SHARD_HASH_MD5)
        return NULL;
    uint64_t total = 0, points = 0;
    for (uint32_t s = 0; s < count; s++)
        total += servers[s].weight;
    uint32_t common = UINT32_MAX; /* digests per server, if all alike */
    for (uint32_t s = 0; s < count; s++) {
        uint32_t digests = shard_ketama_digests(servers[s].weight, total, count);
        points += 4 * (uint64_t)digests;
        common = (s == 0 || digests == common) ? digests : 0;
    }
    if (points == 0 || points > SHARD_RING_MAX_POINTS)
        return NULL;
    shard_ring *ring = ring_alloc((size_t)points, count, 4 * common);
    if (!ring)
        return NULL;

    size_t i = 0;
    for (uint32_t s = 0; s < count; s++) {
        uint32_t digests = shard_ketama_digests(servers[s].weight, total, count);
        for (uint32_t k = 0; k < digests; k++) {
            char name[SHARD_NAME_MAX + 32];
            int len = snprintf(name, sizeof(name), "%s-%u", servers[s].name, (unsigned)k);
            if (len < 0 || (size_t)len >= sizeof(name))
                len = (int)sizeof(name) - 1;
            unsigned char d[16];
            shard_md5_digest(md5, name, (size_t)len, d);
            for (int h = 0; h < 4; h++, i++) {
                uint32_t p = (uint32_t)d[4 * h] | (uint32_t)d[4 * h + 1] << 8 |
                             (uint32_t)d[4 * h + 2] << 16 | (uint32_t)d[4 * h + 3] << 24;
                ring->points[i].hash = (uint64_t)p << 32;
                ring->points[i].node = s;
            }
        }
    }
    ring_finish(ring);
    return ring;
}

uint32_t shard_ketama_hash(shard_hasher *md5, const char *key, size_t len)
{
    return (uint32_t)md5_hash(md5, key, len);
}

/* ---- bounded loads ------------------------------------------------------- */

uint64_t shard_bounded_capacity(uint64_t keys, uint32_t nodes, double epsilon)
{
    uint64_t least = keys / nodes + (keys % nodes != 0);
    double cap = ceil((1.0 + epsilon) * (double)keys / (double)nodes);
    if (!(cap > (double)least)) /* also NaN */
        return least;
    if (cap >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)cap;
}

int shard_bounded_init(shard_bounded *bounded, const shard_ring *ring, uint32_t live,
                       uint64_t capacity)
{
    bounded->ring = ring;
    bounded->live = live;
    bounded->capacity = capacity;
    bounded->load = calloc(live ? live : 1, sizeof(*bounded->load));
    return bounded->load ? 0 : -1;
}

void shard_bounded_cleanup(shard_bounded *bounded)
{
    free(bounded->load);
    bounded->load = NULL;
}

uint32_t shard_bounded_place(shard_bounded *bounded, uint64_t key_hash, uint64_t *probes)
{
    const shard_ring *ring = bounded->ring;
    size_t i = ring_find_counted(ring, key_hash, probes);
    for (size_t walked = 0; walked < ring->count; walked++) {
        uint32_t node = ring->points[i].node;
        if (node < bounded->live) {
            (*probes)++;
            if (bounded->load[node] < bounded->capacity) {
                bounded->load[node]++;
                return node;
            }
        }
        if (++i == ring->count)
            i = 0;
    }
    return UINT32_MAX;
}

/* ---- statistics --------------------------------------------------------- */

double shard_load_ratio(uint64_t load_max, uint64_t load_min)
{
    return load_min == 0 ? HUGE_VAL : (double)load_max / (double)load_min;
}

double shard_load_cv_expected(uint64_t keys, uint32_t nodes, uint32_t vnodes)
{
    double n = nodes, k = (double)keys;
    double p = 1.0 / n;
    double var_p = p * (1.0 - p) / (n * vnodes + 1.0); /* Beta(v, (N-1)v) */
    double mean_p_q = p - (var_p + p * p);             /* E[p(1-p)] */
    /* Var(count) = K E[p(1-p)] + K^2 Var(p), relative to the mean K/N. */
    return sqrt(n * n * var_p + n * n * mean_p_q / k);
}

double shard_load_cv_fixed_shares(uint64_t keys, uint32_t nodes, const double *shares)
{
    double n = nodes, k = (double)keys, sum = 0.0;
    for (uint32_t i = 0; i < nodes; i++) {
        double p = shares ? shares[i] : 1.0 / n;
        sum += p * (1.0 - p) / k + (p - 1.0 / n) * (p - 1.0 / n);
    }
    return sqrt(n * sum);
}

/* Population coefficient of variation of n values summing to total. */
static double cv_of_counts(const uint64_t *counts, uint32_t n, uint64_t total)
{
    double mean = (double)total / n, sum_sq = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double d = (double)counts[i] - mean;
        sum_sq += d * d;
    }
    return sqrt(sum_sq / n) / mean;
}

static void min_max(const uint64_t *counts, uint32_t n, uint64_t *min, uint64_t *max)
{
    *min = *max = counts[0];
    for (uint32_t i = 1; i < n; i++) {
        if (counts[i] < *min)
            *min = counts[i];
        if (counts[i] > *max)
            *max = counts[i];
    }
}

#define TWO_TO_64 18446744073709551616.0

/* Arc lengths, as fractions of the circle: each point owns the arc from the
 * previous point (exclusive) to itself. new_node_arc sums node N's arcs on
 * the full ring; shares[] gets each old node's share on the ring without
 * node N. */
static double ring_arcs(const shard_ring *ring, double *shares)
{
    uint32_t last = ring->nodes - 1;
    const shard_ring_point *pts = ring->points;
    double new_arc = 0.0;
    for (size_t i = 0; i < ring->count; i++) {
        if (pts[i].node != last)
            continue;
        uint64_t prev = pts[i == 0 ? ring->count - 1 : i - 1].hash;
        new_arc += (double)(pts[i].hash - prev) / TWO_TO_64; /* wraps mod 2^64 */
    }

    for (uint32_t n = 0; n < last; n++)
        shares[n] = 0.0;
    size_t prev = ring->count;
    for (size_t i = ring->count; i-- > 0;) /* last point of an old node */
        if (pts[i].node != last) {
            prev = i;
            break;
        }
    size_t old_points = 0;
    for (size_t i = 0; i < ring->count; i++) {
        if (pts[i].node == last)
            continue;
        shares[pts[i].node] += (double)(pts[i].hash - pts[prev].hash) / TWO_TO_64;
        prev = i;
        old_points++;
    }
    if (old_points == 1) /* one point owns the whole circle, not 0 of it */
        shares[pts[prev].node] = 1.0;
    return new_arc;
}

/* Every node's share of the circle on a whole ring (ketama's continua). */
static void ring_shares(const shard_ring *ring, double *shares)
{
    const shard_ring_point *pts = ring->points;
    for (uint32_t n = 0; n < ring->nodes; n++)
        shares[n] = 0.0;
    if (ring->count == 1) {
        shares[pts[0].node] = 1.0;
        return;
    }
    for (size_t i = 0; i < ring->count; i++) {
        uint64_t prev = pts[i == 0 ? ring->count - 1 : i - 1].hash;
        shares[pts[i].node] += (double)(pts[i].hash - prev) / TWO_TO_64;
    }
}

static double cv_of_shares(const double *shares, uint32_t n)
{
    double mean = 1.0 / n, sum_sq = 0.0;
    for (uint32_t i = 0; i < n; i++)
        sum_sq += (shares[i] - mean) * (shares[i] - mean);
    return sqrt(sum_sq / n) / mean;
}

/* ---- the experiment ----------------------------------------------------- */

static const char *const scheme_names[] = {
    [SHARD_SCHEME_RING] = "ring",       [SHARD_SCHEME_MOD] = "mod",
    [SHARD_SCHEME_JUMP] = "jump",       [SHARD_SCHEME_RENDEZVOUS] = "rendezvous",
    [SHARD_SCHEME_MAGLEV] = "maglev",   [SHARD_SCHEME_KETAMA] = "ketama",
    [SHARD_SCHEME_BOUNDED] = "bounded",
};

int shard_scheme_parse(const char *name, shard_scheme *scheme)
{
    for (size_t i = 0; i < sizeof(scheme_names) / sizeof(scheme_names[0]); i++) {
        if (strcmp(name, scheme_names[i]) == 0) {
            *scheme = (shard_scheme)i;
            return 0;
        }
    }
    return -1;
}

const char *shard_scheme_name(shard_scheme scheme)
{
    if ((size_t)scheme >= sizeof(scheme_names) / sizeof(scheme_names[0]))
        return "?";
    return scheme_names[scheme];
}

/* Index of the three cluster sizes in the arrays below. */
enum {
    SHRUNK = 0,
    BASE = 1,
    GROWN = 2
};

/* What one scheme needs to place a key on N-1, N and N+1 nodes. Only the
 * fields of config->scheme are set; the rest stay zero. */
typedef struct scheme_state {
    shard_scheme scheme;
    uint32_t size[3];         /* N-1, N, N+1 */
    shard_ring *ring;         /* ring, bounded: N+1 nodes x vnodes */
    uint32_t *shrunk_owner;   /* ring: owner on the N-1 ring, per point */
    shard_ring *continuum[3]; /* ketama; [SHRUNK] NULL when N = 1 */
    uint64_t *node_hashes;    /* rendezvous: N+1 */
    shard_maglev table[3];    /* maglev; [SHRUNK] empty when N = 1 */
    shard_bounded bounded[3]; /* bounded; [SHRUNK] unused when N = 1 */
    char *server_names;       /* ketama: N+1 names of 24 bytes */
} scheme_state;

static void state_free(scheme_state *st)
{
    shard_ring_free(st->ring);
    free(st->shrunk_owner);
    free(st->node_hashes);
    free(st->server_names);
    for (int k = 0; k < 3; k++) {
        shard_ring_free(st->continuum[k]);
        shard_maglev_cleanup(&st->table[k]);
        shard_bounded_cleanup(&st->bounded[k]);
    }
}

/* Builds what config->scheme needs. Returns shard_run()'s codes. */
static int state_build(scheme_state *st, shard_hasher *hasher, const shard_config *config,
                       shard_stop_fn stop, void *stop_arg)
{
    uint32_t nodes = config->nodes;
    memset(st, 0, sizeof(*st));
    st->scheme = config->scheme;
    st->size[SHRUNK] = nodes - 1;
    st->size[BASE] = nodes;
    st->size[GROWN] = nodes + 1;
    int first = nodes >= 2 ? SHRUNK : BASE;
    /* Building can take seconds (2^25 ring points, a 2^25-entry table,
     * millions of ketama digests): ask before, and between the parts. */
    if (stop && stop(stop_arg))
        return 1;

    switch (config->scheme) {
    case SHARD_SCHEME_MOD:
    case SHARD_SCHEME_JUMP: return 0;
    case SHARD_SCHEME_RING:
    case SHARD_SCHEME_BOUNDED:
        if ((uint64_t)(nodes + 1) * config->vnodes > SHARD_RING_MAX_POINTS || config->vnodes == 0)
            return -2;
        st->ring = shard_ring_new(hasher, nodes + 1, config->vnodes);
        if (!st->ring)
            return -1;
        if (config->scheme == SHARD_SCHEME_RING) {
            if (nodes >= 2) {
                st->shrunk_owner = malloc(st->ring->count * sizeof(*st->shrunk_owner));
                if (!st->shrunk_owner)
                    return -1;
                shard_ring_owners(st->ring, nodes - 1, st->shrunk_owner);
            }
            return 0;
        }
        for (int k = first; k < 3; k++) {
            uint64_t cap = shard_bounded_capacity(config->keys, st->size[k], config->epsilon);
            if (shard_bounded_init(&st->bounded[k], st->ring, st->size[k], cap) != 0)
                return -1;
        }
        return 0;
    case SHARD_SCHEME_RENDEZVOUS:
        st->node_hashes = malloc(((size_t)nodes + 1) * sizeof(*st->node_hashes));
        if (!st->node_hashes)
            return -1;
        shard_rendezvous_hashes(hasher, nodes + 1, st->node_hashes);
        return 0;
    case SHARD_SCHEME_MAGLEV:
        if (!shard_is_prime(config->table_size))
            return -2;
        for (int k = first; k < 3; k++) {
            int rc = shard_maglev_build(&st->table[k], hasher, st->size[k], config->table_size,
                                        stop, stop_arg);
            if (rc != 0)
                return rc;
        }
        return 0;
    case SHARD_SCHEME_KETAMA: {
        if (hasher->kind != SHARD_HASH_MD5 || 480 * ((uint64_t)nodes + 1) > SHARD_RING_MAX_POINTS)
            return -2;
        st->server_names = malloc(((size_t)nodes + 1) * 24);
        shard_ketama_server *servers = malloc(((size_t)nodes + 1) * sizeof(*servers));
        int rc = -1;
        if (!st->server_names || !servers)
            goto ketama_done;
        for (uint32_t n = 0; n <= nodes; n++) {
            shard_node_name(st->server_names + (size_t)n * 24, n);
            servers[n].name = st->server_names + (size_t)n * 24;
            servers[n].weight = 1;
        }
        for (int k = first; k < 3; k++) {
            if (k > first && stop && stop(stop_arg)) {
                rc = 1;
                goto ketama_done;
            }
            st->continuum[k] = shard_ketama_new(hasher, servers, st->size[k]);
            if (!st->continuum[k])
                goto ketama_done;
        }
        rc = 0;
    ketama_done:
        free(servers);
        return rc;
    }
    }
    return -2;
}

/* Places one key on N-1 (owner[SHRUNK], UINT32_MAX when N = 1), N and N+1
 * nodes; adds the N-node lookup's probes to *probes. */
static inline void state_place(scheme_state *st, uint64_t hash, uint32_t owner[3], uint64_t *probes)
{
    uint64_t ignored = 0;
    owner[SHRUNK] = UINT32_MAX;
    switch (st->scheme) {
    case SHARD_SCHEME_RING: {
        size_t i = ring_find_counted(st->ring, hash, probes);
        *probes += 1;
        owner[GROWN] = st->ring->points[i].node;
        owner[BASE] = st->ring->points[i].node_without_last;
        if (st->shrunk_owner)
            owner[SHRUNK] = st->shrunk_owner[i];
        return;
    }
    case SHARD_SCHEME_MOD:
        for (int k = st->size[SHRUNK] ? SHRUNK : BASE; k < 3; k++)
            owner[k] = shard_mod_node(hash, st->size[k]);
        *probes += 1;
        return;
    case SHARD_SCHEME_JUMP:
        jump_buckets(hash, st->size[SHRUNK], st->size[BASE], st->size[GROWN], owner, probes);
        return;
    case SHARD_SCHEME_RENDEZVOUS: {
        /* One pass over nodes 0 .. N gives the argmax of every prefix. */
        uint64_t best = shard_rendezvous_score(hash, st->node_hashes[0]);
        uint32_t top = 0, nodes = st->size[BASE];
        if (nodes == 2)
            owner[SHRUNK] = 0;
        for (uint32_t n = 1; n <= nodes; n++) {
            uint64_t score = shard_rendezvous_score(hash, st->node_hashes[n]);
            if (score > best) {
                best = score;
                top = n;
            }
            if (n + 2 == nodes)
                owner[SHRUNK] = top;
            if (n + 1 == nodes)
                owner[BASE] = top;
        }
        if (nodes == 1)
            owner[BASE] = 0;
        owner[GROWN] = top;
        *probes += nodes;
        return;
    }
    case SHARD_SCHEME_MAGLEV:
        for (int k = st->table[SHRUNK].entry ? SHRUNK : BASE; k < 3; k++)
            owner[k] = shard_maglev_node(&st->table[k], hash);
        *probes += 1;
        return;
    case SHARD_SCHEME_KETAMA: {
        uint64_t point = (hash & UINT64_C(0xffffffff)) << 32;
        for (int k = st->continuum[SHRUNK] ? SHRUNK : BASE; k < 3; k++) {
            const shard_ring *ring = st->continuum[k];
            size_t i = ring_find_counted(ring, point, k == BASE ? probes : &ignored);
            owner[k] = ring->points[i].node;
        }
        *probes += 1;
        return;
    }
    case SHARD_SCHEME_BOUNDED:
        for (int k = st->bounded[SHRUNK].load ? SHRUNK : BASE; k < 3; k++)
            owner[k] = shard_bounded_place(&st->bounded[k], hash, k == BASE ? probes : &ignored);
        return;
    }
}

/* One N-node lookup, for timing: the work of state_place() for one size. */
static inline uint32_t state_lookup(scheme_state *st, shard_bounded *fresh, uint64_t hash)
{
    uint64_t ignored = 0;
    switch (st->scheme) {
    case SHARD_SCHEME_RING: return shard_ring_node_without_last(st->ring, hash);
    case SHARD_SCHEME_MOD: return shard_mod_node(hash, st->size[BASE]);
    case SHARD_SCHEME_JUMP: return shard_jump_bucket(hash, st->size[BASE]);
    case SHARD_SCHEME_RENDEZVOUS:
        return shard_rendezvous_node(st->node_hashes, st->size[BASE], hash);
    case SHARD_SCHEME_MAGLEV: return shard_maglev_node(&st->table[BASE], hash);
    case SHARD_SCHEME_KETAMA: return shard_ketama_find(st->continuum[BASE], (uint32_t)hash)->node;
    case SHARD_SCHEME_BOUNDED: return shard_bounded_place(fresh, hash, &ignored);
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock ns per N-node lookup of already hashed keys: passes over the
 * first min(keys, 65536) key hashes until 20 ms have gone by. bounded starts
 * every pass on empty nodes with the capacity for the sample. NaN when out
 * of memory. Not reproducible: the machine's, not the model's. */
static double measure_lookup_ns(scheme_state *st, shard_hasher *hasher, const shard_config *config)
{
    size_t count = config->keys < 65536 ? (size_t)config->keys : 65536;
    uint64_t *hashes = malloc(count * sizeof(*hashes));
    shard_bounded fresh = { 0 };
    double ns = NAN;
    if (!hashes)
        return ns;
    for (size_t i = 0; i < count; i++)
        hashes[i] = shard_key_hash(hasher, i);
    if (st->scheme == SHARD_SCHEME_BOUNDED &&
        shard_bounded_init(&fresh, st->ring, st->size[BASE],
                           shard_bounded_capacity(count, st->size[BASE], config->epsilon)) != 0)
        goto done;

    volatile uint32_t sink = 0;
    uint64_t lookups = 0;
    uint32_t acc = 0;
    double start = now_s(), elapsed = 0.0;
    do {
        if (fresh.load)
            memset(fresh.load, 0, st->size[BASE] * sizeof(*fresh.load));
        for (size_t i = 0; i < count; i++)
            acc += state_lookup(st, &fresh, hashes[i]);
        lookups += count;
        elapsed = now_s() - start;
    } while (elapsed < 0.02);
    sink = acc;
    (void)sink;
    ns = elapsed * 1e9 / (double)lookups;
done:
    shard_bounded_cleanup(&fresh);
    free(hashes);
    return ns;
}

/* Bytes of the lookup structure serving N nodes. */
static uint64_t table_bytes(const scheme_state *st, const shard_config *config)
{
    uint64_t nodes = config->nodes;
    switch (config->scheme) {
    case SHARD_SCHEME_RING: return ring_bytes((size_t)(nodes * config->vnodes));
    case SHARD_SCHEME_BOUNDED:
        return ring_bytes((size_t)(nodes * config->vnodes)) + nodes * sizeof(uint64_t);
    case SHARD_SCHEME_RENDEZVOUS: return nodes * sizeof(uint64_t);
    case SHARD_SCHEME_MAGLEV: return (uint64_t)config->table_size * sizeof(uint32_t);
    case SHARD_SCHEME_KETAMA: return ring_bytes(st->continuum[BASE]->count);
    case SHARD_SCHEME_MOD:
    case SHARD_SCHEME_JUMP: break;
    }
    return 0;
}

/* The lookup-space figures: new_node_arc, share_cv and load_cv_expected. */
static int space_figures(const scheme_state *st, const shard_config *config, shard_result *r)
{
    uint32_t nodes = config->nodes;
    double *shares = calloc((size_t)nodes + 1, sizeof(*shares));
    if (!shares)
        return -1;
    r->new_node_arc = r->share_cv = r->load_cv_expected = NAN;
    switch (config->scheme) {
    case SHARD_SCHEME_RING:
    case SHARD_SCHEME_BOUNDED:
        r->new_node_arc = ring_arcs(st->ring, shares);
        r->share_cv = cv_of_shares(shares, nodes);
        if (config->scheme == SHARD_SCHEME_RING)
            r->load_cv_expected = shard_load_cv_expected(config->keys, nodes, config->vnodes);
        r->ring_points = st->ring->count;
        break;
    case SHARD_SCHEME_KETAMA:
        ring_shares(st->continuum[GROWN], shares);
        r->new_node_arc = shares[nodes];
        ring_shares(st->continuum[BASE], shares);
        r->share_cv = cv_of_shares(shares, nodes);
        r->load_cv_expected = shard_load_cv_expected(
            config->keys, nodes, (uint32_t)(st->continuum[BASE]->count / nodes));
        r->ring_points = st->continuum[GROWN]->count;
        break;
    case SHARD_SCHEME_MAGLEV: {
        const shard_maglev *grown = &st->table[GROWN], *base = &st->table[BASE];
        uint64_t new_entries = 0;
        for (uint32_t e = 0; e < grown->size; e++)
            new_entries += grown->entry[e] == nodes;
        r->new_node_arc = (double)new_entries / grown->size;
        for (uint32_t e = 0; e < base->size; e++)
            shares[base->entry[e]] += 1.0;
        for (uint32_t n = 0; n < nodes; n++)
            shares[n] /= base->size;
        r->share_cv = cv_of_shares(shares, nodes);
        r->load_cv_expected = shard_load_cv_fixed_shares(config->keys, nodes, shares);
        break;
    }
    case SHARD_SCHEME_MOD:
    case SHARD_SCHEME_JUMP:
    case SHARD_SCHEME_RENDEZVOUS:
        r->load_cv_expected = shard_load_cv_fixed_shares(config->keys, nodes, NULL);
        break;
    }
    free(shares);
    return 0;
}

/* Between two stop checks: at most 65536 keys or about this many probes. */
#define STOP_PROBES (UINT64_C(1) << 22)

int shard_run(shard_hasher *hasher, const shard_config *config, shard_stop_fn stop, void *stop_arg,
              shard_result *result)
{
    uint32_t nodes = config->nodes, grown = config->nodes + 1;
    scheme_state state;
    int rc = state_build(&state, hasher, config, stop, stop_arg);
    uint64_t *load = calloc(nodes, sizeof(*load));
    uint64_t *load_mod = calloc(nodes, sizeof(*load_mod));
    if (rc != 0)
        goto done;
    rc = -1;
    if (!load || !load_mod)
        goto done;

    memset(result, 0, sizeof(*result));
    uint64_t moved_mod = 0, moved_grow = 0, grow_excess = 0, moved_shrink = 0, shrink_excess = 0,
             probes = 0, probes_at_check = 0;
    for (uint64_t i = 0; i < config->keys; i++) {
        if (((i & 0xffff) == 0 || probes - probes_at_check >= STOP_PROBES) && stop) {
            probes_at_check = probes;
            if (stop(stop_arg)) {
                rc = 1;
                goto done;
            }
        }
        uint64_t hash = shard_key_hash(hasher, i);
        uint32_t before = shard_mod_node(hash, nodes);
        moved_mod += before != shard_mod_node(hash, grown);
        load_mod[before]++;

        uint32_t owner[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX };
        state_place(&state, hash, owner, &probes);
        if (owner[BASE] >= nodes || owner[GROWN] >= grown)
            goto done; /* bounded on full nodes: cannot happen, see capacity */
        load[owner[BASE]]++;
        if (owner[BASE] != owner[GROWN]) {
            moved_grow++;
            grow_excess += owner[GROWN] != nodes;
        }
        if (owner[BASE] != owner[SHRUNK]) {
            moved_shrink++;
            shrink_excess += owner[BASE] != nodes - 1;
        }
    }

    result->moved_mod_keys = moved_mod;
    result->moved_grow_keys = moved_grow;
    result->moved_grow_excess_keys = grow_excess;
    result->has_shrink = nodes >= 2;
    if (result->has_shrink) {
        result->moved_shrink_keys = moved_shrink;
        result->moved_shrink_excess_keys = shrink_excess;
    }
    min_max(load, nodes, &result->load_min, &result->load_max);
    min_max(load_mod, nodes, &result->load_min_mod, &result->load_max_mod);
    result->load_mean = (double)config->keys / nodes;
    result->load_cv = cv_of_counts(load, nodes, config->keys);
    result->load_cv_mod = cv_of_counts(load_mod, nodes, config->keys);
    if (config->scheme == SHARD_SCHEME_BOUNDED)
        result->capacity = state.bounded[BASE].capacity;
    result->probes = probes;
    result->table_bytes = table_bytes(&state, config);
    result->lookup_ns = config->measure_lookup ? measure_lookup_ns(&state, hasher, config) : NAN;
    if (space_figures(&state, config, result) != 0)
        goto done;
    rc = 0;
done:
    state_free(&state);
    free(load_mod);
    free(load);
    return rc;
}
