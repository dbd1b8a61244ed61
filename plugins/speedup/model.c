/* speedup model: T1 = base + W(1), T_k = base/k + comm(k) + W(k),
 * S = T1 / T_k (or k T1 / T_k under weak scaling), and the derived
 * diagnostics (ceilings, Karp-Flatt, Gustafson). comm(k) is 0 in the
 * walk-through's model and a ring all-reduce in the combined one. */
#include "model.h"

#include <math.h>

double speedup_ceiling(double base, double jitter)
{
    /* T_k -> W(inf) = J, T1 = base + W(1) = base + J/2. */
    return jitter > 0.0 ? (base + 0.5 * jitter) / jitter : HUGE_VAL;
}

double speedup_ceiling_amdahl(double base, double jitter)
{
    return jitter > 0.0 ? base / jitter : HUGE_VAL;
}

double speedup_karp_flatt(double speedup, int64_t workers)
{
    if (workers == 1)
        return NAN; /* 0 / 0: one worker says nothing about the serial part */
    double inverse_k = 1.0 / (double)workers;
    return (1.0 / speedup - inverse_k) / (1.0 - inverse_k);
}

double speedup_gustafson(int64_t workers, double serial_fraction)
{
    double k = (double)workers;
    return k - (k - 1.0) * serial_fraction;
}

double speedup_comm_s(const comm_net *net, double copy_bytes, int64_t workers)
{
    comm_time time;
    comm_round_time(COMM_SCHEME_RING, copy_bytes, workers, net, &time);
    return time.time_s;
}

double speedup_ceiling_of(const speedup_setup *setup)
{
    double t1 = setup->base + 0.5 * setup->jitter;
    double alpha = setup->net.latency_s;
    if (setup->model == SPEEDUP_MODEL_WALKTHROUGH)
        return setup->scaling == SPEEDUP_SCALING_STRONG
                   ? speedup_ceiling(setup->base, setup->jitter)
                   : HUGE_VAL;
    if (setup->scaling == SPEEDUP_SCALING_WEAK)
        /* k T1 / (base + 2 (k-1) alpha + ...) -> T1 / (2 alpha). */
        return alpha > 0.0 ? t1 / (2.0 * alpha) : HUGE_VAL;
    if (alpha > 0.0)
        return 0.0;
    /* No latency: T_k -> n (2 beta + gamma) + J. */
    double limit_round = setup->copy_bytes * (2.0 / setup->net.bandwidth_bytes_per_s +
                                              1.0 / setup->net.reduce_bytes_per_s) +
                         setup->jitter;
    return limit_round > 0.0 ? t1 / limit_round : HUGE_VAL;
}

void speedup_row_fill_setup(speedup_row *row, const speedup_setup *setup, double wait_1_s,
                            double wait_k_s)
{
    double k = (double)setup->workers;
    int combined = setup->model == SPEEDUP_MODEL_COMBINED;
    int strong = setup->scaling == SPEEDUP_SCALING_STRONG;
    double comm_1 = combined ? speedup_comm_s(&setup->net, setup->copy_bytes, 1) : 0.0;
    row->wait_s = wait_k_s;
    row->compute_s = strong ? setup->base / k : setup->base;
    row->comm_s = combined ? speedup_comm_s(&setup->net, setup->copy_bytes, setup->workers) : 0.0;
    row->round_s = row->compute_s + row->comm_s + wait_k_s;
    row->t1_s = setup->base + comm_1 + wait_1_s;
    /* base = J = 0 without communication: no round at all, so no speedup
     * either (0 / 0). */
    if (row->round_s > 0.0)
        row->speedup = strong ? row->t1_s / row->round_s : k * row->t1_s / row->round_s;
    else
        row->speedup = NAN;
    row->efficiency = row->speedup / k;
    row->ceiling = speedup_ceiling_of(setup);
    row->ceiling_amdahl =
        !combined && strong ? speedup_ceiling_amdahl(setup->base, setup->jitter) : NAN;
    row->karp_flatt = speedup_karp_flatt(row->speedup, setup->workers);
    /* The serial part of the k-worker round: waiting and communicating. */
    double serial_fraction = row->round_s > 0.0 ? (wait_k_s + row->comm_s) / row->round_s : NAN;
    row->gustafson = speedup_gustafson(setup->workers, serial_fraction);
    row->comm_share = row->round_s > 0.0 ? row->comm_s / row->round_s : NAN;
}

void speedup_row_fill(speedup_row *row, double base, double jitter, int64_t workers,
                      double wait_1_s, double wait_k_s)
{
    speedup_setup setup = {
        .model = SPEEDUP_MODEL_WALKTHROUGH,
        .scaling = SPEEDUP_SCALING_STRONG,
        .base = base,
        .jitter = jitter,
        .workers = workers,
        .copy_bytes = 0.0,
        .net = { 0.0, 1.0, 1.0, 1 },
    };
    speedup_row_fill_setup(row, &setup, wait_1_s, wait_k_s);
}
