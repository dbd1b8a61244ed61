/* speedup model (docs/science.md section 5): Amdahl-style speedup of a synchronous
 * round whose serial part is the straggler wait W(k) of section 3, and the
 * combined round of its "Beyond": compute, plus a ring all-reduce of the
 * gradient timed by the comm model's alpha-beta line (section 2), plus the
 * wait. Pure functions; the waits come from the straggler model (exact or
 * Monte Carlo), the communication from the comm model
 * (plugins/shared/comm_model.c), both linked from runner_models. */
#ifndef SPEEDUP_MODEL_H
#define SPEEDUP_MODEL_H

#include <stdint.h>

#include "comm_model.h"
#include "straggler_model.h"

/* Which round: the walk-through's (compute + wait) or the combined one
 * (compute + ring all-reduce + wait). */
typedef enum speedup_model {
    SPEEDUP_MODEL_WALKTHROUGH,
    SPEEDUP_MODEL_COMBINED
} speedup_model;

/* Strong scaling: a fixed job, each of k workers computes base / k. Weak
 * scaling: each worker keeps base (a fixed per-worker batch, as Horovod's
 * and Goyal et al.'s published efficiencies are measured), and the speedup
 * is the throughput ratio k T1 / T_k, so the efficiency is T1 / T_k. */
typedef enum speedup_scaling {
    SPEEDUP_SCALING_STRONG,
    SPEEDUP_SCALING_WEAK
} speedup_scaling;

/* Everything a row depends on besides the waits. */
typedef struct speedup_setup {
    speedup_model model;
    speedup_scaling scaling;
    double base;       /* s, one worker's whole round of compute */
    double jitter;     /* s, J */
    int64_t workers;   /* k >= 1 */
    double copy_bytes; /* gradient all-reduced per round (combined only) */
    comm_net net;      /* alpha, bandwidth, reduction (combined only) */
} speedup_setup;

/* Exact limit of T1 / T_k as k -> infinity with exact waits:
 * (base + J/2) / J. +inf when J = 0 (nothing bounds the speedup). */
double speedup_ceiling(double base, double jitter);

/* The walk-through's Amdahl approximation of that limit, base / J (it drops
 * the one-worker wait J/2 from T1). +inf when J = 0. */
double speedup_ceiling_amdahl(double base, double jitter);

/* Karp-Flatt experimentally determined serial fraction
 * e = (1/S - 1/k) / (1 - 1/k). NaN at one worker, where it is undefined. */
double speedup_karp_flatt(double speedup, int64_t workers);

/* Gustafson's scaled speedup k - (k - 1) s, with s the serial fraction of
 * the k-worker round (here the wait: s = W(k) / T_k). */
double speedup_gustafson(int64_t workers, double serial_fraction);

/* Ring all-reduce time of copy_bytes on k workers over *net (comm model):
 * 2 (k-1) alpha + 2 n (k-1)/k beta + n (k-1)/k gamma; 0 at one worker. */
double speedup_comm_s(const comm_net *net, double copy_bytes, int64_t workers);

/* Exact limit of the speedup as k -> infinity with exact waits, for any
 * setup (its workers field is ignored). Walk-through, strong: as
 * speedup_ceiling(). Weak scaling without latency: +inf. Combined, strong:
 * 0 if alpha > 0 (the ring's 2 (k-1) alpha grows without bound), else
 * T1 / (n (2 beta + gamma) + J). Combined, weak: T1 / (2 alpha), or +inf
 * if alpha = 0. T1 = base + J/2. */
double speedup_ceiling_of(const speedup_setup *setup);

/* One output row of the speedup plugin. */
typedef struct speedup_row {
    double wait_s;         /* W(k) */
    double round_s;        /* T_k = compute_s + comm_s + W(k) */
    double speedup;        /* T1 / T_k (strong), k T1 / T_k (weak); NaN if T_k is 0 */
    double efficiency;     /* speedup / k */
    double ceiling;        /* speedup_ceiling_of(setup) */
    double ceiling_amdahl; /* base / J for the walk-through's strong scaling, else NaN */
    double karp_flatt;     /* speedup_karp_flatt(speedup, k) */
    double t1_s;           /* T1 = base + comm(1) + W(1); comm(1) = 0 */
    double compute_s;      /* base / k (strong) or base (weak) */
    double gustafson;      /* speedup_gustafson(k, (W(k) + comm_s) / T_k) */
    double comm_s;         /* ring all-reduce of the gradient (combined), else 0 */
    double comm_share;     /* comm_s / T_k; NaN if T_k is 0 */
} speedup_row;

/* Fills every field from the setup and the waits W(1) and W(k) (exact:
 * straggler_max_delay_exact; or Monte Carlo estimates). */
void speedup_row_fill_setup(speedup_row *row, const speedup_setup *setup, double wait_1_s,
                            double wait_k_s);

/* speedup_row_fill_setup() for the walk-through's model, strong scaling. */
void speedup_row_fill(speedup_row *row, double base, double jitter, int64_t workers,
                      double wait_1_s, double wait_k_s);

#endif
