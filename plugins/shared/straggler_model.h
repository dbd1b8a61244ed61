/* straggler model (docs/science.md section 3 and its "Beyond"): a round of k
 * workers waits for the slowest, each delayed independently by a uniform,
 * exponential, log-normal or Pareto law; optionally with b backup workers
 * (wait for the fastest k of k + b) or bounded staleness (SSP). Exact order
 * statistics where a closed form exists, Monte Carlo always. Pure functions,
 * no host: the plugin, the tests, the bench and plugins/speedup share them
 * through runner_models (plugins/shared/CMakeLists.txt). */
#ifndef STRAGGLER_MODEL_H
#define STRAGGLER_MODEL_H

#include <stdint.h>

#include <runner/plugin.h> /* runner_rng only */

/* --- The original uniform model; plugins/speedup uses these. --- */

/* E[max of k Uniform(0, J)] = J k / (k + 1). */
double straggler_max_delay_exact(double jitter, int64_t workers);

/* Standard deviation of that maximum: J sqrt(k / ((k + 1)^2 (k + 2))). */
double straggler_max_delay_sd(double jitter, int64_t workers);

/* Sum over `trials` rounds of the largest of `workers` Uniform[0, 1) draws
 * (53-bit, as runner_rng_uniform), taken from rng in order. The caller
 * scales by J and divides by the number of rounds. */
double straggler_sum_max_unit(runner_rng *rng, int64_t workers, int64_t trials);

/* Returns non-zero when the caller wants a long estimate abandoned. */
typedef int (*straggler_stop_fn)(void *context);

/* Monte Carlo estimate of E[max of k Uniform(0, J)] over `trials` rounds.
 * Calls stop(context) about every 2^20 draws (at least once per round, so a
 * round of more than 2^20 workers is never interrupted mid-way); stop may be
 * NULL. Returns 0 and sets *mean, or -1 if stop asked to stop (*mean unset). */
int straggler_max_delay_mc(runner_rng *rng, double jitter, int64_t workers, int64_t trials,
                           straggler_stop_fn stop, void *context, double *mean);

/* One output row of the original (uniform, synchronous) model. */
typedef struct straggler_row {
    double compute_s;          /* base / k */
    double max_delay_s;        /* Monte Carlo E[max] */
    double max_delay_exact_s;  /* J k / (k + 1) */
    double max_delay_stderr_s; /* exact sd / sqrt(trials) */
    double round_s;            /* compute_s + max_delay_s */
    double round_exact_s;      /* compute_s + max_delay_exact_s */
    double wait_share;         /* max_delay_s / round_s; NaN if round_s is 0 */
    double wait_share_exact;   /* likewise with the exact values */
    int64_t samples;           /* k * trials delays drawn */
} straggler_row;

/* Fills every field from the parameters and a Monte Carlo E[max]. */
void straggler_row_fill(straggler_row *row, double base, double jitter, int64_t workers,
                        int64_t trials, double max_delay_mc);

/* --- Delay laws. --- */

typedef enum straggler_law {
    STRAGGLER_UNIFORM,     /* Uniform(0, scale): scale = jitter J */
    STRAGGLER_EXPONENTIAL, /* mean scale */
    STRAGGLER_LOGNORMAL,   /* mean scale, ln d has sd shape = sigma */
    STRAGGLER_PARETO,      /* P(d > x) = (scale / x)^shape for x >= scale = x_m */
    STRAGGLER_LAW_COUNT
} straggler_law;

/* One worker's delay in one round: d = scale * U, where U is the law's unit
 * variable (Uniform(0, 1); Exp(1); LogNormal(-sigma^2/2, sigma), mean 1;
 * Pareto(x_m = 1, alpha)). */
typedef struct straggler_delay {
    straggler_law law;
    double scale; /* s: J, the mean, the mean, x_m */
    double shape; /* log-normal sigma, Pareto alpha; unused otherwise */
} straggler_delay;

/* The law's name as the plugin's `law` parameter spells it ("uniform",
 * "exponential", "lognormal", "pareto"); NULL for an unknown law. */
const char *straggler_law_name(straggler_law law);

/* The law called `name`; -1 if there is none. */
int straggler_law_parse(const char *name);

/* The unit variable U of one raw 64-bit draw, by inversion of the law's
 * distribution function, non-decreasing in the draw (so the order
 * statistics of the delays are those of the draws). Uniform: u = (draw >>
 * 11) 2^-53, bit-identical to runner_rng_uniform(). Other laws use the exact
 * upper tail v = 1 - u in [2^-53, 1]: Exp -ln v; Pareto v^(-1/alpha);
 * log-normal exp(-sigma Phi^-1(v) - sigma^2/2), which is 0 at v = 1. */
double straggler_delay_unit(const straggler_delay *delay, uint64_t draw);

/* Mean of one delay: J/2, the mean, the mean, alpha x_m / (alpha - 1) (+inf
 * for alpha <= 1). */
double straggler_delay_mean(const straggler_delay *delay);

/* E[d_(rank:n)], the rank-th smallest of n independent delays (rank = n is
 * the slowest of n; with b backups the round waits for rank k of n = k + b):
 *   uniform      J rank / (n + 1)
 *   exponential  mean (H_n - H_(n-rank))
 *   Pareto       x_m G(n+1) G(n-rank+1 - 1/alpha) / (G(n-rank+1) G(n+1 - 1/alpha)),
 *                +inf unless alpha (n - rank + 1) > 1
 *   log-normal   NaN: no closed form (except sigma = 0: the mean)
 * A zero scale means no delay at all: 0 for every law. 1 <= rank <= n. */
double straggler_order_stat_exact(const straggler_delay *delay, int64_t rank, int64_t n);

/* Standard deviation of d_(rank:n), on the same terms:
 *   uniform      J sqrt(rank (n - rank + 1) / ((n + 1)^2 (n + 2)))
 *   exponential  mean sqrt(sum_(i = n-rank+1)^n 1 / i^2)
 *   Pareto       from the second moment; +inf unless alpha (n - rank + 1) > 2
 *   log-normal   NaN (0 when sigma = 0) */
double straggler_order_stat_sd(const straggler_delay *delay, int64_t rank, int64_t n);

/* sum_(i = lo+1)^hi 1/i, and sum 1/i^2, for 0 <= lo <= hi: summed exactly
 * (smallest terms first) up to 4096 terms, else from the asymptotic series of
 * H_n (absolute error about 1e-15). straggler_harmonic(n) = H_n. */
double straggler_harmonic_span(int64_t lo, int64_t hi);
double straggler_harmonic2_span(int64_t lo, int64_t hi);
double straggler_harmonic(int64_t n);

/* ln G(x) - ln G(x - c) for x - c > 0 and c >= 0 (G = Gamma), without
 * lgamma() (whose signgam makes it non-reentrant) and without the
 * cancellation of two large lgamma values: recurrence up to x - c >= 20,
 * then the difference of Stirling series. Relative error about 1e-14. */
double straggler_log_gamma_ratio(double x, double c);

/* Phi^-1(p), the standard normal quantile (Wichura 1988, AS 241, relative
 * error about 1e-16); -inf at p <= 0, +inf at p >= 1, NaN for NaN. */
double straggler_normal_quantile(double p);

/* --- Monte Carlo. --- */

/* Return codes of the Monte Carlo functions, besides 0. */
#define STRAGGLER_STOPPED (-1)   /* stop(context) asked to stop */
#define STRAGGLER_NO_MEMORY (-2) /* could not allocate the per-worker state */

/* One estimated quantity: the mean of `trials` per-round values and their
 * sample standard deviation (n - 1 denominator; NaN for one round). */
typedef struct straggler_estimate {
    double mean;
    double sd;
} straggler_estimate;

/* What one Monte Carlo run estimates, from one stream of draws. */
typedef struct straggler_mc {
    straggler_estimate max_delay;  /* slowest of the k workers (no backups) */
    straggler_estimate order_stat; /* k-th fastest of k + b (= max_delay if b = 0) */
    double round_s;                /* SSP only: time until all k workers finish
                                      `trials` rounds, / trials; NaN otherwise */
    double mean_staleness;         /* SSP: rounds, mean over worker-rounds; else 0 */
    int64_t max_staleness;         /* SSP: largest observed (<= s); else 0 */
} straggler_mc;

/* Synchronous rounds: each round draws k + b raw values from rng (the k
 * workers, then the b backups) and records the delay of the slowest of the
 * first k and the k-th smallest of all k + b. With the uniform law and b = 0
 * max_delay.mean is bit-identical to straggler_max_delay_mc() on the same
 * rng. Stop checks as straggler_max_delay_mc(). Returns 0 and fills *out
 * (round_s NaN), or STRAGGLER_STOPPED / STRAGGLER_NO_MEMORY (*out unset). */
int straggler_sync_mc(runner_rng *rng, const straggler_delay *delay, int64_t workers,
                      int64_t backups, int64_t trials, straggler_stop_fn stop, void *context,
                      straggler_mc *out);

/* Stale synchronous parallel (SSP, Ho et al. 2013) with bound s: worker i
 * finishes its round r at F_i(r) = S_i(r) + compute_s + d_ir, where it may
 * start only when it is at most s rounds ahead of the slowest worker:
 * S_i(r) = max(F_i(r-1), G(r-1-s)), G(q) = max_j F_j(q) (G(q <= 0) = 0). Its
 * staleness at that start is the number of rounds q in [r-s, r-1] that some
 * worker has not finished yet (G(q) > S_i(r)): in [0, s]. s = 0 is the
 * synchronous round. Draws k values per round, in the same order as
 * straggler_sync_mc() with b = 0, so max_delay (the synchronous
 * counterfactual on the same delays) is bit-identical to its. Allocates k
 * doubles and s + 1 doubles. Returns as straggler_sync_mc(). */
int straggler_ssp_mc(runner_rng *rng, const straggler_delay *delay, double compute_s,
                     int64_t workers, int64_t staleness, int64_t trials, straggler_stop_fn stop,
                     void *context, straggler_mc *out);

/* --- One output row of the plugin. --- */

typedef struct straggler_result {
    double compute_s;                 /* base / k */
    double max_delay_s;               /* Monte Carlo E[slowest of k] */
    double max_delay_exact_s;         /* exact E[slowest of k]; NaN, +inf */
    double max_delay_stderr_s;        /* exact sd / sqrt(trials); NaN, +inf */
    double round_s;                   /* compute_s + wait_s; SSP: makespan / trials */
    double round_exact_s;             /* compute_s + order_stat_exact_s; NaN under SSP */
    double wait_share;                /* wait_s / round_s */
    double wait_share_exact;          /* order_stat_exact_s / round_exact_s */
    int64_t samples;                  /* (k + b) * trials delays drawn */
    double delay_mean_s;              /* mean of one delay */
    double max_delay_sample_stderr_s; /* sample sd / sqrt(trials) */
    double order_stat_s;              /* Monte Carlo E[k-th fastest of k + b] */
    double order_stat_exact_s;
    double order_stat_stderr_s;        /* exact sd / sqrt(trials) */
    double order_stat_sample_stderr_s; /* sample sd / sqrt(trials) */
    double wait_s;                     /* order_stat_s; SSP: round_s - compute_s */
    double mean_staleness_rounds;      /* SSP; 0 when synchronous */
} straggler_result;

/* Fills every field from the parameters and a Monte Carlo run (staleness 0:
 * straggler_sync_mc(); otherwise straggler_ssp_mc() with backups 0). */
void straggler_result_fill(straggler_result *row, const straggler_delay *delay, double base,
                           int64_t workers, int64_t backups, int64_t staleness, int64_t trials,
                           const straggler_mc *mc);

#endif
