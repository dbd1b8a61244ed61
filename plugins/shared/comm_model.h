/* comm model: bytes and alpha-beta time of one round of gradient exchange,
 * for a parameter server and five all-reduce algorithms (docs/science.md
 * section 2 and its "Beyond"). Pure arithmetic, no plugin ABI, so the unit
 * test checks it directly; in runner_models, since the speedup plugin uses
 * it too (plugins/shared/CMakeLists.txt). */
#ifndef COMM_MODEL_H
#define COMM_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum comm_scheme {
    COMM_SCHEME_PS,                 /* parameter server (s shards) */
    COMM_SCHEME_RING,               /* ring all-reduce */
    COMM_SCHEME_RECURSIVE_DOUBLING, /* recursive doubling */
    COMM_SCHEME_HALVING_DOUBLING,   /* Rabenseifner: recursive halving reduce-scatter,
                                       recursive doubling all-gather */
    COMM_SCHEME_BINARY_TREE,        /* binomial-tree reduce, then broadcast */
    COMM_SCHEME_DOUBLE_BINARY_TREE, /* NCCL's two complementary pipelined trees */
    COMM_SCHEME_COUNT
} comm_scheme;

/* One scheme's traffic in one round. bytes_per_round is what the scheme's
 * bandwidth term charges at its busiest node (so bandwidth_term_s =
 * bytes_per_round / bandwidth): for the parameter server both directions of
 * the server's link (k W in, then k W out), for the ring what each worker
 * sends (it receives as much at the same time). busiest_link_bytes gives one
 * direction of the busiest link for every scheme. The exact byte count is
 * bytes_per_round + rounding_bytes: bytes_per_round is exact whenever the
 * formula gives an integer and otherwise the exact value rounded to the
 * nearest integer, halves rounded up, so rounding_bytes lies in [-0.5, 0.5). */
typedef struct comm_round {
    int64_t bytes_per_round;         /* at counted_at */
    double rounding_bytes;           /* exact minus bytes_per_round */
    int64_t cluster_bytes_per_round; /* sent by all nodes together */
    int64_t busiest_link_bytes;      /* one direction of the busiest link, nearest integer */
    double bytes_exact;              /* the exact value as the nearest double */
    double copies_per_round;         /* bytes_exact / W */
    const char *counted_at;          /* "server", "worker" or "root"; static */
} comm_round;

/* The network of the alpha-beta model (Hockney; Thakur, Rabenseifner & Gropp
 * 2005): a message of n bytes costs latency_s + n / bandwidth_bytes_per_s,
 * reducing n bytes costs n / reduce_bytes_per_s. Every link is full duplex
 * and alike; a node sends one message at a time. */
typedef struct comm_net {
    double latency_s;             /* alpha, >= 0 */
    double bandwidth_bytes_per_s; /* 1 / beta, > 0 */
    double reduce_bytes_per_s;    /* 1 / gamma, > 0 */
    int64_t servers;              /* parameter-server shards s >= 1 (ps only) */
} comm_net;

/* One scheme's round time as a line in the message size n (bytes):
 *     time(n) = latency_term_s + n (bandwidth_s_per_byte + reduce_s_per_byte),
 * latency_term_s = latency_steps * alpha. Every scheme here is such a line,
 * which is what makes crossovers a division. */
typedef struct comm_line {
    int64_t latency_steps;       /* messages on the critical path */
    double latency_term_s;       /* latency_steps * alpha */
    double bandwidth_s_per_byte; /* beta times the bytes charged per byte of n */
    double reduce_s_per_byte;    /* gamma times the bytes reduced per byte of n */
} comm_line;

/* One scheme's round time for a message of n bytes. */
typedef struct comm_time {
    int64_t latency_steps;
    double latency_term_s;    /* latency_steps * alpha */
    double bandwidth_term_s;  /* n * bandwidth_s_per_byte */
    double reduction_term_s;  /* n * reduce_s_per_byte */
    double time_s;            /* the sum of the three terms */
    double algbw_bytes_per_s; /* n / time_s; +inf when time_s is 0 */
    double busbw_bytes_per_s; /* algbw * 2 (p - 1) / p; 0 at one worker */
} comm_time;

/* Stores W = model_params * bytes_per_param in *copy_bytes. Returns 0, or
 * -1 if W does not fit in int64 (then *copy_bytes is unchanged). Arguments
 * must be >= 1. */
int comm_copy_bytes(int64_t model_params, int64_t bytes_per_param, int64_t *copy_bytes);

/* Fills *out with one round of `scheme` for `workers` (k >= 1) workers, a
 * copy of copy_bytes (W >= 0) bytes and `servers` (s >= 1) parameter-server
 * shards (ignored by the other schemes). Returns 0, or -1 if a byte count
 * does not fit in int64 (then *out is unspecified). */
int comm_round_bytes_sharded(comm_scheme scheme, int64_t copy_bytes, int64_t workers,
                             int64_t servers, comm_round *out);

/* comm_round_bytes_sharded() with one server: the walk-through's figures,
 * parameter server 2 W k counted at the server, ring 2 (k - 1) W / k counted
 * at each worker. */
int comm_round_bytes(comm_scheme scheme, int64_t copy_bytes, int64_t workers, comm_round *out);

/* ceil(lg p) and floor(lg p) for p >= 1: the rounds of a recursive-doubling
 * or binomial-tree exchange, and the height of a binary tree of p nodes. */
int64_t comm_ceil_log2(int64_t p);
int64_t comm_floor_log2(int64_t p);

/* The time line of `scheme` on `workers` (p >= 1) ranks over *net. */
void comm_time_line(comm_scheme scheme, int64_t workers, const comm_net *net, comm_line *out);

/* The line evaluated at n = message_bytes (>= 0), with the bandwidths. */
void comm_round_time(comm_scheme scheme, double message_bytes, int64_t workers, const comm_net *net,
                     comm_time *out);

/* nccl-tests' all-reduce bus-bandwidth factor 2 (p - 1) / p (0 at p = 1). */
double comm_busbw_factor(int64_t workers);

/* The message size n > 0 at which lines a and b take equal time, or NaN when
 * they never do at a positive size (parallel, identical, or crossing at
 * n <= 0: then one of them is at least as fast at every size). */
double comm_crossover_bytes(const comm_line *a, const comm_line *b);

/* The sizes [*from, *to] over which lines[which] is the fastest of the
 * `count` lines (n >= 0; *to may be +inf). Where lines are identical the
 * earlier one counts as the faster. Both NaN when it is never the fastest
 * over an interval of positive length. */
void comm_fastest_range(const comm_line *lines, size_t count, size_t which, double *from,
                        double *to);

/* "ps", "ring", "recursive_doubling", "halving_doubling", "binary_tree",
 * "double_binary_tree". Static strings. */
const char *comm_scheme_name(comm_scheme scheme);

/* Where the scheme's bytes_per_round is counted with one server: "server"
 * (ps), "root" (binary_tree) or "worker". Static strings. comm_round's
 * counted_at is the figure for the point (a sharded ps with more servers
 * than workers is bounded by the workers' links instead). */
const char *comm_counted_at(comm_scheme scheme);

#endif
