/* straggler model: exact order statistics of the delay laws and tight Monte
 * Carlo samplers for them (target: >= 100 M draws/s per core for the uniform
 * law, see bench/bench_straggler.c), synchronous with backups or SSP. */
#include "straggler_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Draws per stop check: about a millisecond of sampling. */
#define STRAGGLER_CHECK_DRAWS ((int64_t)1 << 20)

double straggler_max_delay_exact(double jitter, int64_t workers)
{
    double k = (double)workers;
    return jitter * k / (k + 1.0);
}

double straggler_max_delay_sd(double jitter, int64_t workers)
{
    double k = (double)workers;
    return jitter * sqrt(k / ((k + 1.0) * (k + 1.0) * (k + 2.0)));
}

double straggler_sum_max_unit(runner_rng *rng, int64_t workers, int64_t trials)
{
    /* A local copy keeps the generator state in registers. */
    runner_rng local = *rng;
    double sum = 0.0;
    for (int64_t t = 0; t < trials; t++) {
        /* x -> (x >> 11) * 2^-53 is monotone, so the largest uniform is the
         * conversion of the largest raw draw: compare integers (a branchless
         * cmov), convert once per round. Bit-identical to taking the max of
         * runner_rng_uniform() values. */
        uint64_t largest = 0;
        for (int64_t i = 0; i < workers; i++) {
            uint64_t draw = runner_rng_next(&local);
            largest = draw > largest ? draw : largest;
        }
        sum += (double)(largest >> 11) * 0x1.0p-53;
    }
    *rng = local;
    return sum;
}

int straggler_max_delay_mc(runner_rng *rng, double jitter, int64_t workers, int64_t trials,
                           straggler_stop_fn stop, void *context, double *mean)
{
    int64_t chunk = STRAGGLER_CHECK_DRAWS / workers;
    if (chunk < 1)
        chunk = 1;
    /* Per-chunk partial sums keep rounding error small for 1e10 rounds. */
    double sum = 0.0;
    for (int64_t done = 0; done < trials; done += chunk) {
        if (stop && stop(context))
            return -1;
        int64_t rounds = trials - done < chunk ? trials - done : chunk;
        sum += straggler_sum_max_unit(rng, workers, rounds);
    }
    /* Scale by J once: the sampler works on the unit interval. */
    *mean = jitter * (sum / (double)trials);
    return 0;
}

static double share_of(double part, double whole)
{
    /* 0 / 0 (base = J = 0) has no meaningful share: say so with NaN. */
    return whole > 0.0 ? part / whole : NAN;
}

void straggler_row_fill(straggler_row *row, double base, double jitter, int64_t workers,
                        int64_t trials, double max_delay_mc)
{
    row->compute_s = base / (double)workers;
    row->max_delay_s = max_delay_mc;
    row->max_delay_exact_s = straggler_max_delay_exact(jitter, workers);
    row->max_delay_stderr_s = straggler_max_delay_sd(jitter, workers) / sqrt((double)trials);
    row->round_s = row->compute_s + row->max_delay_s;
    row->round_exact_s = row->compute_s + row->max_delay_exact_s;
    row->wait_share = share_of(row->max_delay_s, row->round_s);
    row->wait_share_exact = share_of(row->max_delay_exact_s, row->round_exact_s);
    row->samples = workers * trials;
}

/* --- Delay laws --- */

static const char *const law_names[STRAGGLER_LAW_COUNT] = {
    [STRAGGLER_UNIFORM] = "uniform",
    [STRAGGLER_EXPONENTIAL] = "exponential",
    [STRAGGLER_LOGNORMAL] = "lognormal",
    [STRAGGLER_PARETO] = "pareto",
};

const char *straggler_law_name(straggler_law law)
{
    return (unsigned)law < STRAGGLER_LAW_COUNT ? law_names[law] : NULL;
}

int straggler_law_parse(const char *name)
{
    for (int law = 0; name && law < STRAGGLER_LAW_COUNT; law++)
        if (strcmp(name, law_names[law]) == 0)
            return law;
    return -1;
}

/* A law with its per-draw constants computed once. */
typedef struct sampler {
    straggler_law law;
    double neg_inv_alpha; /* Pareto: -1 / alpha */
    double sigma;         /* log-normal */
    double log_shift;     /* log-normal: -sigma^2 / 2, so that E[U] = 1 */
} sampler;

static void sampler_init(sampler *s, const straggler_delay *delay)
{
    s->law = delay->law;
    s->neg_inv_alpha = delay->law == STRAGGLER_PARETO ? -1.0 / delay->shape : 0.0;
    s->sigma = delay->law == STRAGGLER_LOGNORMAL ? delay->shape : 0.0;
    s->log_shift = -0.5 * s->sigma * s->sigma;
}

static inline double sampler_unit(const sampler *s, uint64_t draw)
{
    uint64_t bits = draw >> 11;
    if (s->law == STRAGGLER_UNIFORM)
        return (double)bits * 0x1.0p-53;
    /* v = 1 - u, exact: the tail probability, in [2^-53, 1]. Every law below
     * decreases in v, so the delay grows with the draw. */
    double v = (double)(((uint64_t)1 << 53) - bits) * 0x1.0p-53;
    switch (s->law) {
    case STRAGGLER_EXPONENTIAL: return 0.0 - log(v); /* +0, not -0, at v = 1 */
    case STRAGGLER_PARETO: return pow(v, s->neg_inv_alpha);
    case STRAGGLER_LOGNORMAL:
        /* sigma = 0 is a constant delay; this also avoids 0 * inf at v = 1. */
        return s->sigma == 0.0 ? 1.0 : exp(s->log_shift - s->sigma * straggler_normal_quantile(v));
    default: return NAN;
    }
}

double straggler_delay_unit(const straggler_delay *delay, uint64_t draw)
{
    sampler s;
    sampler_init(&s, delay);
    return sampler_unit(&s, draw);
}

double straggler_delay_mean(const straggler_delay *delay)
{
    if (delay->scale == 0.0)
        return 0.0;
    switch (delay->law) {
    case STRAGGLER_UNIFORM: return 0.5 * delay->scale;
    case STRAGGLER_EXPONENTIAL:
    case STRAGGLER_LOGNORMAL: return delay->scale;
    case STRAGGLER_PARETO:
        return delay->shape > 1.0 ? delay->scale * delay->shape / (delay->shape - 1.0) : HUGE_VAL;
    default: return NAN;
    }
}

/* --- Special functions --- */

#define HARMONIC_EXACT_TERMS 4096
#define EULER_GAMMA 0.57721566490153286060651209

/* sum_(i = lo+1)^hi i^-power, power 1 or 2, largest i (smallest term) first. */
static double power_sum(int64_t lo, int64_t hi, int power)
{
    double sum = 0.0;
    for (int64_t i = hi; i > lo; i--) {
        double x = (double)i;
        sum += power == 1 ? 1.0 / x : 1.0 / (x * x);
    }
    return sum;
}

/* H_n: exact sum, or ln n + gamma + 1/(2n) - 1/(12n^2) + 1/(120n^4) - 1/(252n^6). */
static double harmonic(int64_t n)
{
    if (n <= HARMONIC_EXACT_TERMS)
        return power_sum(0, n, 1);
    double inv = 1.0 / (double)n, inv2 = inv * inv;
    return log((double)n) + EULER_GAMMA + 0.5 * inv -
           inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 / 252));
}

/* sum_(i > n) 1/i^2 = psi'(n + 1): for n >= 4096 the series
 * 1/n - 1/(2n^2) + 1/(6n^3) - 1/(30n^5) + 1/(42n^7); below, that at 4096 plus
 * the exact terms up to 4096. */
static double harmonic2_tail(int64_t n)
{
    if (n < HARMONIC_EXACT_TERMS)
        return harmonic2_tail(HARMONIC_EXACT_TERMS) + power_sum(n, HARMONIC_EXACT_TERMS, 2);
    double inv = 1.0 / (double)n, inv2 = inv * inv;
    return inv * (1.0 - inv * 0.5 + inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 / 42)));
}

double straggler_harmonic_span(int64_t lo, int64_t hi)
{
    if (hi - lo <= HARMONIC_EXACT_TERMS)
        return power_sum(lo, hi, 1);
    return harmonic(hi) - harmonic(lo);
}

double straggler_harmonic2_span(int64_t lo, int64_t hi)
{
    if (hi - lo <= HARMONIC_EXACT_TERMS)
        return power_sum(lo, hi, 2);
    return harmonic2_tail(lo) - harmonic2_tail(hi);
}

double straggler_harmonic(int64_t n) { return straggler_harmonic_span(0, n); }

/* The Stirling series of ln G(y) beyond (y - 1/2) ln y - y + ln(2 pi)/2;
 * the next term, -691/(360360 y^11), is below 1e-17 for y >= 20. */
static double stirling_tail(double y)
{
    double inv = 1.0 / y, inv2 = inv * inv;
    return inv * (1.0 / 12 -
                  inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 * (1.0 / 1680 - inv2 / 1188))));
}

double straggler_log_gamma_ratio(double x, double c)
{
    /* G(x + 1) = x G(x): D(x) = D(x + 1) + ln((x - c) / x). */
    double correction = 0.0;
    while (x - c < 20.0) {
        correction += log1p(-c / x);
        x += 1.0;
    }
    double z = x - c;
    /* (x - 1/2) ln x - (z - 1/2) ln z, without subtracting two large logs. */
    return correction + c * log(x) - (z - 0.5) * log1p(-c / x) - c + stirling_tail(x) -
           stirling_tail(z);
}

double straggler_normal_quantile(double p)
{
    /* Wichura (1988), Algorithm AS 241 (PPND16): three rational
     * approximations, for the centre and for the near and far tails. */
    static const double a[8] = { 3.3871328727963666080e0,  1.3314166789178437745e+2,
                                 1.9715909503065514427e+3, 1.3731693765509461125e+4,
                                 4.5921953931549871457e+4, 6.7265770927008700853e+4,
                                 3.3430575583588128105e+4, 2.5090809287301226727e+3 };
    static const double b[8] = { 1.0,
                                 4.2313330701600911252e+1,
                                 6.8718700749205790830e+2,
                                 5.3941960214247511077e+3,
                                 2.1213794301586595867e+4,
                                 3.9307895800092710610e+4,
                                 2.8729085735721942674e+4,
                                 5.2264952788528545610e+3 };
    static const double c[8] = { 1.42343711074968357734e0,  4.63033784615654529590e0,
                                 5.76949722146069140550e0,  3.64784832476320460504e0,
                                 1.27045825245236838258e0,  2.41780725177450611770e-1,
                                 2.27238449892691845833e-2, 7.74545014278341407640e-4 };
    static const double d[8] = { 1.0,
                                 2.05319162663775882187e0,
                                 1.67638483018380384940e0,
                                 6.89767334985100004550e-1,
                                 1.48103976427480074590e-1,
                                 1.51986665636164571966e-2,
                                 5.47593808499534494600e-4,
                                 1.05075007164441684324e-9 };
    static const double e[8] = { 6.65790464350110377720e0,  5.46378491116411436990e0,
                                 1.78482653991729133580e0,  2.96560571828504891230e-1,
                                 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                 2.71155556874348757815e-5, 2.01033439929228813265e-7 };
    static const double f[8] = { 1.0,
                                 5.99832206555887937690e-1,
                                 1.36929880922735805310e-1,
                                 1.48753612908506148525e-2,
                                 7.86869131145613259100e-4,
                                 1.84631831751005468180e-5,
                                 1.42151175831644588870e-7,
                                 2.04426310338993978564e-15 };
    const double *num, *den;

    if (isnan(p))
        return p;
    if (p <= 0.0)
        return -HUGE_VAL;
    if (p >= 1.0)
        return HUGE_VAL;
    double q = p - 0.5, r;
    if (fabs(q) <= 0.425) {
        r = 0.180625 - q * q;
        num = a;
        den = b;
    } else {
        r = sqrt(-log(q < 0.0 ? p : 1.0 - p));
        if (r <= 5.0) {
            r -= 1.6;
            num = c;
            den = d;
        } else {
            r -= 5.0;
            num = e;
            den = f;
        }
    }
    double top = num[7], bottom = den[7];
    for (int i = 6; i >= 0; i--) {
        top = top * r + num[i];
        bottom = bottom * r + den[i];
    }
    if (num == a)
        return q * top / bottom;
    return q < 0.0 ? -top / bottom : top / bottom;
}

/* --- Exact order statistics --- */

/* ln E[(d_(rank:n) / x_m)^power] for Pareto(x_m, alpha): with a = n - rank + 1,
 * G(n+1) G(a - power/alpha) / (G(a) G(n+1 - power/alpha)). Finite only when
 * alpha a > power; the caller checks. */
static double pareto_log_moment(double alpha, int64_t rank, int64_t n, double power)
{
    double c = power / alpha;
    double a = (double)(n - rank + 1);
    return straggler_log_gamma_ratio((double)n + 1.0, c) - straggler_log_gamma_ratio(a, c);
}

double straggler_order_stat_exact(const straggler_delay *delay, int64_t rank, int64_t n)
{
    double scale = delay->scale;
    if (scale == 0.0)
        return 0.0;
    switch (delay->law) {
    case STRAGGLER_UNIFORM:
        /* J times Beta(rank, n - rank + 1). Same expression as
         * straggler_max_delay_exact() at rank = n, so the same bits. */
        return scale * (double)rank / ((double)n + 1.0);
    case STRAGGLER_EXPONENTIAL:
        /* Renyi: spacings of exponential order statistics are independent,
         * the j-th from the top Exp with mean scale / j. */
        return scale * straggler_harmonic_span(n - rank, n);
    case STRAGGLER_PARETO:
        if (delay->shape * (double)(n - rank + 1) <= 1.0)
            return HUGE_VAL;
        return scale * exp(pareto_log_moment(delay->shape, rank, n, 1.0));
    case STRAGGLER_LOGNORMAL: return delay->shape == 0.0 ? scale : NAN;
    default: return NAN;
    }
}

double straggler_order_stat_sd(const straggler_delay *delay, int64_t rank, int64_t n)
{
    double scale = delay->scale;
    if (scale == 0.0)
        return 0.0;
    switch (delay->law) {
    case STRAGGLER_UNIFORM: {
        double k = (double)rank, a = (double)(n - rank + 1), m = (double)n;
        return scale * sqrt(k * a / ((m + 1.0) * (m + 1.0) * (m + 2.0)));
    }
    case STRAGGLER_EXPONENTIAL: return scale * sqrt(straggler_harmonic2_span(n - rank, n));
    case STRAGGLER_PARETO: {
        if (delay->shape * (double)(n - rank + 1) <= 2.0)
            return HUGE_VAL;
        double first = pareto_log_moment(delay->shape, rank, n, 1.0);
        double second = pareto_log_moment(delay->shape, rank, n, 2.0);
        /* var = m1^2 (m2 / m1^2 - 1), the difference taken in logs. */
        double ratio = expm1(second - 2.0 * first);
        return scale * exp(first) * sqrt(ratio > 0.0 ? ratio : 0.0);
    }
    case STRAGGLER_LOGNORMAL: return delay->shape == 0.0 ? 0.0 : NAN;
    default: return NAN;
    }
}

/* --- Monte Carlo --- */

/* Running sums of one estimated quantity: the plain sum gives the mean (as
 * straggler_max_delay_mc() forms it), the sums shifted by the first value
 * give the variance without cancellation. Per chunk, as chunk_sums. */
typedef struct tally {
    double sum, shifted_sum, shifted_squares;
    double shift;
    int started;
} tally;

typedef struct chunk_sums {
    double sum, shifted_sum, shifted_squares;
} chunk_sums;

static inline void chunk_add(chunk_sums *c, tally *t, double x)
{
    if (!t->started) {
        t->shift = x;
        t->started = 1;
    }
    double dx = x - t->shift;
    c->sum += x;
    c->shifted_sum += dx;
    c->shifted_squares += dx * dx;
}

static void tally_add(tally *t, const chunk_sums *c)
{
    t->sum += c->sum;
    t->shifted_sum += c->shifted_sum;
    t->shifted_squares += c->shifted_squares;
}

static straggler_estimate tally_estimate(const tally *t, double scale, int64_t trials)
{
    double n = (double)trials;
    straggler_estimate out;
    out.mean = scale * (t->sum / n);
    if (trials < 2) {
        out.sd = NAN;
    } else {
        double variance = (t->shifted_squares - t->shifted_sum * t->shifted_sum / n) / (n - 1.0);
        out.sd = scale * sqrt(variance > 0.0 ? variance : 0.0);
    }
    return out;
}

static int64_t chunk_rounds(int64_t draws_per_round)
{
    int64_t chunk = STRAGGLER_CHECK_DRAWS / draws_per_round;
    return chunk < 1 ? 1 : chunk;
}

/* Min-heap of `size` raw draws: replaces the root (the smallest) by value. */
static void heap_replace_min(uint64_t *heap, int64_t size, uint64_t value)
{
    int64_t i = 0;
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= size)
            break;
        if (child + 1 < size && heap[child + 1] < heap[child])
            child++;
        if (heap[child] >= value)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = value;
}

/* One synchronous round: k worker draws then b backup draws. *largest is the
 * largest of the k, *kth the (b + 1)-th largest of all k + b, i.e. the k-th
 * smallest. The raw draws are compared: see straggler_sum_max_unit(). */
static inline void draw_round(runner_rng *rng, int64_t workers, int64_t backups, uint64_t *heap,
                              uint64_t *largest, uint64_t *kth)
{
    uint64_t top = 0;
    if (backups == 0) {
        for (int64_t i = 0; i < workers; i++) {
            uint64_t draw = runner_rng_next(rng);
            top = draw > top ? draw : top;
        }
        *largest = *kth = top;
        return;
    }
    /* Zeros are no larger than any draw, and there are at least b + 1 draws. */
    memset(heap, 0, (size_t)(backups + 1) * sizeof *heap);
    for (int64_t i = 0; i < workers; i++) {
        uint64_t draw = runner_rng_next(rng);
        top = draw > top ? draw : top;
        if (draw > heap[0])
            heap_replace_min(heap, backups + 1, draw);
    }
    for (int64_t i = 0; i < backups; i++) {
        uint64_t draw = runner_rng_next(rng);
        if (draw > heap[0])
            heap_replace_min(heap, backups + 1, draw);
    }
    *largest = top;
    *kth = heap[0];
}

int straggler_sync_mc(runner_rng *rng, const straggler_delay *delay, int64_t workers,
                      int64_t backups, int64_t trials, straggler_stop_fn stop, void *context,
                      straggler_mc *out)
{
    uint64_t small_heap[64];
    uint64_t *heap = small_heap;
    if (backups + 1 > (int64_t)(sizeof small_heap / sizeof small_heap[0])) {
        heap = malloc((size_t)(backups + 1) * sizeof *heap);
        if (!heap)
            return STRAGGLER_NO_MEMORY;
    }
    sampler s;
    sampler_init(&s, delay);
    tally slowest = { 0 }, kth = { 0 };
    int64_t chunk = chunk_rounds(workers + backups);
    int status = 0;
    for (int64_t done = 0; done < trials; done += chunk) {
        if (stop && stop(context)) {
            status = STRAGGLER_STOPPED;
            break;
        }
        int64_t rounds = trials - done < chunk ? trials - done : chunk;
        /* A local copy keeps the generator state in registers. */
        runner_rng local = *rng;
        chunk_sums slowest_sums = { 0 }, kth_sums = { 0 };
        for (int64_t t = 0; t < rounds; t++) {
            uint64_t largest, kth_draw;
            draw_round(&local, workers, backups, heap, &largest, &kth_draw);
            chunk_add(&slowest_sums, &slowest, sampler_unit(&s, largest));
            if (backups > 0)
                chunk_add(&kth_sums, &kth, sampler_unit(&s, kth_draw));
        }
        *rng = local;
        tally_add(&slowest, &slowest_sums);
        tally_add(&kth, &kth_sums);
    }
    if (heap != small_heap)
        free(heap);
    if (status != 0)
        return status;
    /* Scale once: the sampler works on the unit variable. */
    out->max_delay = tally_estimate(&slowest, delay->scale, trials);
    out->order_stat = backups > 0 ? tally_estimate(&kth, delay->scale, trials) : out->max_delay;
    out->round_s = NAN;
    out->mean_staleness = 0.0;
    out->max_staleness = 0;
    return 0;
}

/* How many of the rounds r-1, r-2, ..., r-s some worker has not finished at
 * `start`, given that round r-1 has not (complete[] is non-decreasing in the
 * round, so they are a run r-1 .. r-lag: binary search for its end). */
static int64_t lag_at(const double *complete, int64_t ring, int64_t round, int64_t staleness,
                      double start)
{
    int64_t lo = 1, hi = staleness;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (complete[(round - mid + ring) % ring] > start)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int straggler_ssp_mc(runner_rng *rng, const straggler_delay *delay, double compute_s,
                     int64_t workers, int64_t staleness, int64_t trials, straggler_stop_fn stop,
                     void *context, straggler_mc *out)
{
    /* finish[i] = F_i(last round); complete[q mod (s + 1)] = G(q) for
     * q in [r-1-s, r-1], G(q <= 0) = 0. All times are relative to `offset`,
     * moved forward every chunk so that they stay small and precise. */
    int64_t ring = staleness + 1;
    double *finish = calloc((size_t)workers, sizeof *finish);
    double *complete = calloc((size_t)ring, sizeof *complete);
    if (!finish || !complete) {
        free(finish);
        free(complete);
        return STRAGGLER_NO_MEMORY;
    }
    sampler s;
    sampler_init(&s, delay);
    double scale = delay->scale;
    tally slowest = { 0 };
    double offset = 0.0, staleness_sum = 0.0;
    int64_t max_staleness = 0, round = 0;
    int64_t chunk = chunk_rounds(workers);
    int status = 0;
    for (int64_t done = 0; done < trials; done += chunk) {
        if (stop && stop(context)) {
            status = STRAGGLER_STOPPED;
            break;
        }
        int64_t rounds = trials - done < chunk ? trials - done : chunk;
        runner_rng local = *rng;
        chunk_sums slowest_sums = { 0 };
        int64_t chunk_staleness = 0;
        for (int64_t t = 0; t < rounds; t++) {
            round++;
            double gate = complete[round % ring];         /* G(r-1-s) */
            double newest = complete[(round - 1) % ring]; /* G(r-1) */
            double last = -HUGE_VAL;
            uint64_t largest = 0;
            for (int64_t i = 0; i < workers; i++) {
                uint64_t draw = runner_rng_next(&local);
                largest = draw > largest ? draw : largest;
                double start = finish[i] > gate ? finish[i] : gate;
                if (newest > start) {
                    int64_t lag = lag_at(complete, ring, round, staleness, start);
                    chunk_staleness += lag;
                    max_staleness = lag > max_staleness ? lag : max_staleness;
                }
                double end = start + compute_s + scale * sampler_unit(&s, draw);
                finish[i] = end;
                last = end > last ? end : last;
            }
            complete[round % ring] = last;
            chunk_add(&slowest_sums, &slowest, sampler_unit(&s, largest));
        }
        *rng = local;
        tally_add(&slowest, &slowest_sums);
        staleness_sum += (double)chunk_staleness;
        double base = complete[round % ring];
        for (int64_t i = 0; i < workers; i++)
            finish[i] -= base;
        for (int64_t q = 0; q < ring; q++)
            complete[q] -= base;
        offset += base;
    }
    free(finish);
    free(complete);
    if (status != 0)
        return status;
    out->max_delay = tally_estimate(&slowest, scale, trials);
    out->order_stat = out->max_delay;
    out->round_s = offset / (double)trials;
    out->mean_staleness = staleness_sum / ((double)workers * (double)trials);
    out->max_staleness = max_staleness;
    return 0;
}

/* --- The plugin's row --- */

/* part / whole for the wait shares: NaN for 0 / 0 (nothing to wait for, no
 * round) or NaN inputs, 1 when the wait is infinite (Pareto, alpha <= 1). */
static double wait_fraction(double part, double whole)
{
    if (isinf(part) && isinf(whole))
        return 1.0;
    return whole > 0.0 ? part / whole : NAN;
}

void straggler_result_fill(straggler_result *row, const straggler_delay *delay, double base,
                           int64_t workers, int64_t backups, int64_t staleness, int64_t trials,
                           const straggler_mc *mc)
{
    int64_t all = workers + backups;
    double root_trials = sqrt((double)trials);
    row->compute_s = base / (double)workers;
    row->delay_mean_s = straggler_delay_mean(delay);

    row->max_delay_s = mc->max_delay.mean;
    row->max_delay_exact_s = straggler_order_stat_exact(delay, workers, workers);
    row->max_delay_stderr_s = straggler_order_stat_sd(delay, workers, workers) / root_trials;
    row->max_delay_sample_stderr_s = mc->max_delay.sd / root_trials;

    row->order_stat_s = mc->order_stat.mean;
    row->order_stat_exact_s = straggler_order_stat_exact(delay, workers, all);
    row->order_stat_stderr_s = straggler_order_stat_sd(delay, workers, all) / root_trials;
    row->order_stat_sample_stderr_s = mc->order_stat.sd / root_trials;

    if (staleness > 0) {
        row->round_s = mc->round_s;
        row->wait_s = row->round_s - row->compute_s;
        row->round_exact_s = NAN; /* no closed form for SSP */
        row->mean_staleness_rounds = mc->mean_staleness;
    } else {
        row->wait_s = row->order_stat_s;
        row->round_s = row->compute_s + row->wait_s;
        row->round_exact_s = row->compute_s + row->order_stat_exact_s;
        row->mean_staleness_rounds = 0.0;
    }
    row->wait_share = wait_fraction(row->wait_s, row->round_s);
    row->wait_share_exact = wait_fraction(row->order_stat_exact_s, row->round_exact_s);
    row->samples = all * trials;
}
