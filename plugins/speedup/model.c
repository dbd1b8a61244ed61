/* speedup model: T1 = base + W(1), T_k = base/k + W(k), S = T1 / T_k, and
 * the derived diagnostics (ceilings, Karp-Flatt, Gustafson). */
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

void speedup_row_fill(speedup_row *row, double base, double jitter, int64_t workers,
                      double wait_1_s, double wait_k_s)
{
    double k = (double)workers;
    row->wait_s = wait_k_s;
    row->compute_s = base / k;
    row->round_s = row->compute_s + wait_k_s;
    row->t1_s = base + wait_1_s;
    /* base = J = 0: no round at all, so no speedup either (0 / 0). */
    row->speedup = row->round_s > 0.0 ? row->t1_s / row->round_s : NAN;
    row->efficiency = row->speedup / k;
    row->ceiling = speedup_ceiling(base, jitter);
    row->ceiling_amdahl = speedup_ceiling_amdahl(base, jitter);
    row->karp_flatt = speedup_karp_flatt(row->speedup, workers);
    double serial_fraction = row->round_s > 0.0 ? wait_k_s / row->round_s : NAN;
    row->gustafson = speedup_gustafson(workers, serial_fraction);
}
