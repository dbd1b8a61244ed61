/* The sharding model: hashing, mod-N placement, the consistent-hash ring and
 * the statistics of one N -> N+1 step. See model.h for the contracts and
 * docs/plugins/sharding.md for the science. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static uint64_t md5_hash(shard_hasher *hasher, const char *data, size_t len)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_len = 0;
    EVP_MD_CTX *ctx = hasher->md_ctx;
    /* With a fetched MD5 and a live context these cannot fail; a zero
     * digest would show up as every key on one node, not as a crash. */
    memset(digest, 0, 8);
    if (EVP_DigestInit_ex2(ctx, hasher->md, NULL)) {
        if (hasher->prefix_len)
            EVP_DigestUpdate(ctx, hasher->prefix, hasher->prefix_len);
        EVP_DigestUpdate(ctx, data, len);
        EVP_DigestFinal_ex(ctx, digest, &digest_len);
    }
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

static unsigned bucket_bits_for(size_t count)
{
    unsigned bits = 1;
    while (bits < 26 && ((size_t)1 << bits) < count)
        bits++;
    return bits;
}

shard_ring *shard_ring_new(shard_hasher *hasher, uint32_t nodes, uint32_t vnodes)
{
    if (nodes == 0 || vnodes == 0 || (uint64_t)nodes * vnodes > SHARD_RING_MAX_POINTS)
        return NULL;
    shard_ring *ring = calloc(1, sizeof(*ring));
    if (!ring)
        return NULL;
    ring->nodes = nodes;
    ring->vnodes = vnodes;
    ring->count = (size_t)nodes * vnodes;
    ring->bucket_bits = bucket_bits_for(ring->count);
    size_t bucket_count = (size_t)1 << ring->bucket_bits;
    ring->points = malloc(ring->count * sizeof(*ring->points));
    ring->buckets = malloc((bucket_count + 1) * sizeof(*ring->buckets));
    if (!ring->points || !ring->buckets) {
        shard_ring_free(ring);
        return NULL;
    }

    char name[SHARD_NAME_MAX];
    size_t i = 0;
    for (uint32_t n = 0; n < nodes; n++) {
        for (uint32_t v = 0; v < vnodes; v++, i++) {
            size_t len = shard_point_name(name, n, v);
            ring->points[i].hash = shard_hash_bytes(hasher, name, len);
            ring->points[i].node = n;
        }
    }
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
    double mean_p_q = p - (var_p + p * p);               /* E[p(1-p)] */
    /* Var(count) = K E[p(1-p)] + K^2 Var(p), relative to the mean K/N. */
    return sqrt(n * n * var_p + n * n * mean_p_q / k);
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

static double cv_of_shares(const double *shares, uint32_t n)
{
    double mean = 1.0 / n, sum_sq = 0.0;
    for (uint32_t i = 0; i < n; i++)
        sum_sq += (shares[i] - mean) * (shares[i] - mean);
    return sqrt(sum_sq / n) / mean;
}

int shard_run(shard_hasher *hasher, const shard_config *config,
              shard_stop_fn stop, void *stop_arg, shard_result *result)
{
    uint32_t nodes = config->nodes, grown = config->nodes + 1;
    int rc = -1;
    uint64_t *load_ring = calloc(nodes, sizeof(*load_ring));
    uint64_t *load_mod = calloc(nodes, sizeof(*load_mod));
    double *shares = calloc(nodes, sizeof(*shares));
    shard_ring *ring = shard_ring_new(hasher, grown, config->vnodes);
    if (!load_ring || !load_mod || !shares || !ring)
        goto done;

    memset(result, 0, sizeof(*result));
    result->ring_points = ring->count;
    uint64_t moved_mod = 0, moved_ring = 0;
    for (uint64_t i = 0; i < config->keys; i++) {
        if ((i & 0xffff) == 0 && stop && stop(stop_arg)) {
            rc = 1;
            goto done;
        }
        uint64_t hash = shard_key_hash(hasher, i);
        uint32_t before = shard_mod_node(hash, nodes);
        moved_mod += before != shard_mod_node(hash, grown);
        load_mod[before]++;

        const shard_ring_point *owner = &ring->points[shard_ring_find(ring, hash)];
        /* On the grown ring a key either keeps its owner or goes to node N:
         * node_without_last is where it was before node N joined. */
        moved_ring += owner->node == nodes;
        load_ring[owner->node_without_last]++;
    }

    result->moved_mod_keys = moved_mod;
    result->moved_ring_keys = moved_ring;
    min_max(load_ring, nodes, &result->load_min, &result->load_max);
    min_max(load_mod, nodes, &result->load_min_mod, &result->load_max_mod);
    result->load_mean = (double)config->keys / nodes;
    result->load_cv = cv_of_counts(load_ring, nodes, config->keys);
    result->load_cv_mod = cv_of_counts(load_mod, nodes, config->keys);
    result->new_node_arc = ring_arcs(ring, shares);
    result->share_cv = cv_of_shares(shares, nodes);
    rc = 0;
done:
    shard_ring_free(ring);
    free(shares);
    free(load_mod);
    free(load_ring);
    return rc;
}
