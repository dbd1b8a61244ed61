/* speedup model (science.md section 5): Amdahl-style speedup of a synchronous
 * round whose serial part is the straggler wait W(k) of section 3. Pure
 * functions; the waits come from the straggler model (exact or Monte Carlo). */
#ifndef SPEEDUP_MODEL_H
#define SPEEDUP_MODEL_H

#include <stdint.h>

#include "../straggler/model.h"

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

/* One output row of the speedup plugin. */
typedef struct speedup_row {
    double wait_s;          /* W(k) */
    double round_s;         /* T_k = base/k + W(k) */
    double speedup;         /* T1 / T_k; NaN if T_k is 0 */
    double efficiency;      /* speedup / k */
    double ceiling;         /* speedup_ceiling(base, J) */
    double ceiling_amdahl;  /* speedup_ceiling_amdahl(base, J) */
    double karp_flatt;      /* speedup_karp_flatt(speedup, k) */
    double t1_s;            /* T1 = base + W(1) */
    double compute_s;       /* base / k */
    double gustafson;       /* speedup_gustafson(k, W(k) / T_k) */
} speedup_row;

/* Fills every field from the parameters and the waits W(1) and W(k)
 * (exact: straggler_max_delay_exact; or Monte Carlo estimates). */
void speedup_row_fill(speedup_row *row, double base, double jitter, int64_t workers,
                      double wait_1_s, double wait_k_s);

#endif
