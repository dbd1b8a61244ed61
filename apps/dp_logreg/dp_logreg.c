/* dp_logreg: a small real data-parallel program, the walk-through's speedup
 * model run for real (docs/science.md, "The speedup, measured"). k MPI ranks
 * each compute the logistic-regression gradient on their shard, sleep an
 * injected delay drawn from U(0, J), and add their gradients with
 * MPI_Allreduce, for R rounds; rank 0 prints JSON lines on stdout.
 *
 *   mpirun -np 4 --oversubscribe dp_logreg --base 0.4 --jitter 0.2 --rounds 5 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shard.h"

#define DP_LEARNING_RATE 0.5
/* The calibration runs passes over the whole dataset for at least this much
 * CPU time: long enough for the thread clock's resolution not to matter. */
#define DP_CALIBRATE_CPU_S 0.05
/* How long a rank waiting for the others sleeps between two MPI_Test calls.
 * Waiting ranks sleep instead of spinning, so that on a machine with fewer
 * cores than ranks they leave the cores to the ranks still computing. */
#define DP_POLL_NS 50000L

typedef struct {
    double base_s;   /* CPU seconds of one round's arithmetic on one rank */
    double jitter_s; /* J: each rank sleeps U(0, J) per round */
    long rounds;
    unsigned long long seed;
    long samples;  /* N, the whole dataset */
    long features; /* D, with the bias column */
    long passes;   /* -1: calibrate from base_s */
    int per_round; /* 1: a line per round; 0: one summary line */
} dp_options;

typedef struct {
    double round_s;       /* the round, compute to the end of the allreduce (slowest rank) */
    double compute_s;     /* the slowest rank's arithmetic, wall clock */
    double compute_cpu_s; /* the most CPU time a rank's arithmetic took */
    double delay_s;       /* the largest injected delay */
    double grad_norm;     /* |mean gradient| after the allreduce */
} dp_round_figures;

static const char dp_usage[] =
    "usage: mpirun -np K dp_logreg [--base S] [--jitter J] [--rounds R] [--seed N]\n"
    "                  [--samples N] [--features D] [--passes P] [--output summary|rounds]\n"
    "  --base S      CPU seconds one rank alone needs for a round's gradient (default 1);\n"
    "                calibrated as a repeat count of passes over the data\n"
    "  --jitter J    each rank sleeps U(0, J) seconds per round (default 0)\n"
    "  --rounds R    rounds (default 5)\n"
    "  --seed N      seeds the data and every rank's delays (default 1)\n"
    "  --samples N   samples in the whole dataset, split over the ranks (default 8000)\n"
    "  --features D  features per sample, bias included (default 16)\n"
    "  --passes P    passes per round instead of calibrating from --base\n"
    "  --output      summary: one JSON line at the end (default); rounds: one per round\n";

static int dp_number(const char *text, double min, double max, double *value)
{
    char *end;
    errno = 0;
    *value = strtod(text, &end);
    return errno == 0 && end != text && *end == '\0' && *value >= min && *value <= max ? 0 : -1;
}

/* Returns 0, 1 for --help, or -1 with a message in `err` (static text or
 * the option's name: a fixed buffer the caller passes). */
static int dp_parse(int argc, char **argv, dp_options *opt, char *err, size_t err_size)
{
    static const struct option longs[] = {
        { "base", required_argument, NULL, 'b' },    { "jitter", required_argument, NULL, 'j' },
        { "rounds", required_argument, NULL, 'r' },  { "seed", required_argument, NULL, 's' },
        { "samples", required_argument, NULL, 'n' }, { "features", required_argument, NULL, 'd' },
        { "passes", required_argument, NULL, 'p' },  { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
    };
    *opt = (dp_options){ 1.0, 0.0, 5, 1, 8000, 16, -1, 0 };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        double v = 0.0;
        int bad = 0;
        switch (c) {
        case 'b': bad = dp_number(optarg, 0, 1e6, &opt->base_s); break;
        case 'j': bad = dp_number(optarg, 0, 1e6, &opt->jitter_s); break;
        case 'r':
            bad = dp_number(optarg, 1, 1e9, &v);
            opt->rounds = (long)v;
            break;
        case 's':
            bad = dp_number(optarg, 0, 1.8e19, &v);
            opt->seed = (unsigned long long)v;
            break;
        case 'n':
            bad = dp_number(optarg, 1, 1e9, &v);
            opt->samples = (long)v;
            break;
        case 'd':
            bad = dp_number(optarg, 2, 4096, &v);
            opt->features = (long)v;
            break;
        case 'p':
            bad = dp_number(optarg, 0, 1e12, &v);
            opt->passes = (long)v;
            break;
        case 'o':
            bad = strcmp(optarg, "summary") != 0 && strcmp(optarg, "rounds") != 0;
            opt->per_round = strcmp(optarg, "rounds") == 0;
            break;
        case 'h': return 1;
        default:
            snprintf(err, err_size, "unknown option or missing value: %s", argv[optind - 1]);
            return -1;
        }
        if (bad) {
            snprintf(err, err_size, "bad value for %s: %s", argv[optind - 2], optarg);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, err_size, "unexpected argument: %s", argv[optind]);
        return -1;
    }
    return 0;
}

static void dp_sleep_s(double seconds)
{
    struct timespec t = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t) == EINTR) {
    }
}

/* Completes a non-blocking collective without spinning (DP_POLL_NS). */
static void dp_wait(MPI_Request *request)
{
    int done = 0;
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    while (!done) {
        struct timespec t = { 0, DP_POLL_NS };
        nanosleep(&t, NULL);
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
    }
}

/* Passes per round: rank 0 times passes over the whole dataset (what one
 * rank alone would do) in CPU time while the others sleep-wait, and shares
 * the count. Sets *pass_s to one whole-dataset pass's CPU seconds. */
static long dp_calibrate(const dp_options *opt, int rank, const double *w, double *pass_s)
{
    double figures[2] = { 0.0, 0.0 }; /* passes, pass_s */
    if (rank == 0) {
        shard whole;
        if (shard_make(&whole, opt->seed, 0, opt->samples, opt->features) != 0) {
            fprintf(stderr, "dp_logreg: out of memory for %ld samples\n", opt->samples);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        figures[1] = shard_pass_cpu_s(&whole, w, DP_CALIBRATE_CPU_S);
        shard_free(&whole);
        figures[0] = opt->passes >= 0 ? (double)opt->passes : round(opt->base_s / figures[1]);
    }
    MPI_Request request;
    MPI_Ibcast(figures, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, &request);
    dp_wait(&request);
    *pass_s = figures[1];
    return (long)figures[0];
}

/* One round on this rank: gradient, injected delay, a sleep-waiting barrier
 * (the wait for the slowest rank), then the real MPI_Allreduce of the
 * gradient sums, and the weight update every rank makes alike. */
static dp_round_figures dp_round(const dp_options *opt, const shard *mine, int rank, long round,
                                 long passes, double *w, double *grad, double *total)
{
    dp_round_figures f = { 0 };
    long d = opt->features;
    double start = shard_wall_s(), cpu_start = shard_cpu_s();
    memset(grad, 0, (size_t)d * sizeof *grad);
    shard_gradient(mine, w, passes, grad);
    double computed = shard_wall_s();
    f.compute_cpu_s = shard_cpu_s() - cpu_start;
    f.delay_s = opt->jitter_s *
                shard_uniform(opt->seed ^ UINT64_C(0x5eed), (uint64_t)rank, (uint64_t)round);
    dp_sleep_s(f.delay_s);
    MPI_Request request;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    dp_wait(&request);
    MPI_Allreduce(grad, total, (int)d, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    f.round_s = shard_wall_s() - start;
    f.compute_s = computed - start;
    double norm = 0.0;
    for (long j = 0; j < d; j++) {
        double g = total[j] / (double)opt->samples;
        w[j] -= DP_LEARNING_RATE * g;
        norm += g * g;
    }
    f.grad_norm = sqrt(norm);
    double mine_max[4] = { f.round_s, f.compute_s, f.delay_s, f.compute_cpu_s }, all_max[4];
    MPI_Allreduce(mine_max, all_max, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    f.round_s = all_max[0];
    f.compute_s = all_max[1];
    f.delay_s = all_max[2];
    f.compute_cpu_s = all_max[3];
    return f;
}

static void dp_print_round(int workers, long round, dp_round_figures f)
{
    printf("{\"round\": %ld, \"ranks\": %d, \"round_s\": %.9g, \"compute_s\": %.9g, "
           "\"compute_cpu_s\": %.9g, \"wait_s\": %.9g, \"delay_s\": %.9g, "
           "\"grad_norm\": %.9g}\n",
           round, workers, f.round_s, f.compute_s, f.compute_cpu_s, f.round_s - f.compute_s,
           f.delay_s, f.grad_norm);
}

/* The summary: means over the rounds, beside what the model predicts for
 * them (base/k + J k/(k+1)), so one line can be read on its own. */
static void dp_print_summary(const dp_options *opt, int workers, long passes, double pass_s,
                             double calibrate_s, const double *round_s, const dp_round_figures *sum,
                             double last_norm)
{
    double n = (double)opt->rounds, mean = sum->round_s / n, sq = 0.0;
    double lo = round_s[0], hi = round_s[0];
    for (long r = 0; r < opt->rounds; r++) {
        sq += (round_s[r] - mean) * (round_s[r] - mean);
        lo = fmin(lo, round_s[r]);
        hi = fmax(hi, round_s[r]);
    }
    double k = (double)workers;
    printf("{\"ranks\": %d, \"rounds_done\": %ld, \"base_s\": %.9g, \"jitter_s\": %.9g, "
           "\"passes\": %ld, \"pass_s\": %.9g, \"calibrate_s\": %.9g, "
           "\"round_s\": %.9g, \"round_sd_s\": %.9g, \"round_min_s\": %.9g, "
           "\"round_max_s\": %.9g, \"compute_s\": %.9g, \"compute_cpu_s\": %.9g, "
           "\"wait_s\": %.9g, \"delay_s\": %.9g, \"model_round_s\": %.9g, "
           "\"grad_norm\": %.9g}\n",
           workers, opt->rounds, opt->base_s, opt->jitter_s, passes, pass_s, calibrate_s, mean,
           opt->rounds > 1 ? sqrt(sq / (n - 1.0)) : 0.0, lo, hi, sum->compute_s / n,
           sum->compute_cpu_s / n, (sum->round_s - sum->compute_s) / n, sum->delay_s / n,
           (double)passes * pass_s / k + opt->jitter_s * k / (k + 1.0), last_norm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, workers;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &workers);
    dp_options opt;
    char err[256];
    int parsed = dp_parse(argc, argv, &opt, err, sizeof err);
    if (parsed != 0) {
        if (rank == 0 && parsed > 0)
            fputs(dp_usage, stdout);
        else if (rank == 0)
            fprintf(stderr, "dp_logreg: %s\n%s", err, dp_usage);
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }
    double *w = calloc((size_t)opt.features, sizeof *w);
    double *grad = calloc((size_t)opt.features, sizeof *grad);
    double *total = calloc((size_t)opt.features, sizeof *total);
    double *round_s = calloc((size_t)opt.rounds, sizeof *round_s);
    /* Contiguous shards, sizes differing by at most one sample. */
    long first = opt.samples * rank / workers, last = opt.samples * (rank + 1) / workers;
    shard mine = { 0 };
    if (!w || !grad || !total || !round_s ||
        shard_make(&mine, opt.seed, first, last - first, opt.features) != 0) {
        fprintf(stderr, "dp_logreg: out of memory (rank %d)\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double started = shard_wall_s(), pass_s;
    long passes = dp_calibrate(&opt, rank, w, &pass_s);
    double calibrate_s = shard_wall_s() - started;
    /* One untimed allreduce: connections are set up on first use. */
    MPI_Allreduce(grad, total, (int)opt.features, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    dp_round_figures sum = { 0 }, f = { 0 };
    for (long r = 0; r < opt.rounds; r++) {
        f = dp_round(&opt, &mine, rank, r, passes, w, grad, total);
        round_s[r] = f.round_s;
        sum.round_s += f.round_s;
        sum.compute_s += f.compute_s;
        sum.delay_s += f.delay_s;
        sum.compute_cpu_s += f.compute_cpu_s;
        if (rank == 0 && opt.per_round) {
            dp_print_round(workers, r, f);
            fflush(stdout);
        }
    }
    if (rank == 0 && !opt.per_round)
        dp_print_summary(&opt, workers, passes, pass_s, calibrate_s, round_s, &sum, f.grad_norm);
    shard_free(&mine);
    free(w);
    free(grad);
    free(total);
    free(round_s);
    MPI_Finalize();
    return 0;
}
