/* comm model: bytes one round of gradient exchange moves, for a parameter
 * server and for ring all-reduce (science.md section 2). Pure integer
 * arithmetic, no plugin ABI, so the unit test checks it directly. */
#ifndef COMM_MODEL_H
#define COMM_MODEL_H

#include <stdint.h>

typedef enum comm_scheme {
    COMM_SCHEME_PS,   /* one parameter server */
    COMM_SCHEME_RING  /* ring all-reduce */
} comm_scheme;

/* One scheme's traffic in one round. The parameter server's count is both
 * directions of the server's link (k W in, k W out); the ring's is what each
 * worker sends (it receives as much), so per direction the ratio is about
 * k / 2, not k: busiest_link_bytes gives that figure. The exact byte count is
 * bytes_per_round + rounding_bytes: bytes_per_round is exact whenever the
 * formula gives an integer (always for the parameter server; for the ring
 * when workers divides 2 W) and otherwise the exact value rounded to the
 * nearest integer, halves rounded up, so rounding_bytes lies in [-0.5, 0.5). */
typedef struct comm_round {
    int64_t bytes_per_round;         /* at the server (ps) or each worker (ring) */
    double rounding_bytes;           /* exact minus bytes_per_round */
    int64_t cluster_bytes_per_round; /* sent by all nodes together: always an integer */
    int64_t busiest_link_bytes;      /* one direction of the busiest link: k W (ps,
                                        the server's), bytes_per_round (ring) */
    double bytes_exact;              /* the exact value as the nearest double */
    double copies_per_round;         /* bytes_exact / W: 2 k (ps), 2 (k - 1) / k (ring) */
} comm_round;

/* Stores W = model_params * bytes_per_param in *copy_bytes. Returns 0, or
 * -1 if W does not fit in int64 (then *copy_bytes is unchanged). Arguments
 * must be >= 1. */
int comm_copy_bytes(int64_t model_params, int64_t bytes_per_param, int64_t *copy_bytes);

/* Fills *out with one round of `scheme` for `workers` (k >= 1) workers and a
 * copy of copy_bytes (W >= 0) bytes: parameter server 2 W k counted at the
 * server, ring 2 (k - 1) W / k counted at each worker. Returns 0, or -1 if a
 * byte count does not fit in int64 (then *out is unspecified). */
int comm_round_bytes(comm_scheme scheme, int64_t copy_bytes, int64_t workers, comm_round *out);

/* "ps" / "ring", and where the scheme's bytes are counted: "server" /
 * "worker". Static strings. */
const char *comm_scheme_name(comm_scheme scheme);
const char *comm_counted_at(comm_scheme scheme);

#endif
