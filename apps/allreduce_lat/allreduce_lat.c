/* allreduce_lat: the time of MPI_Allreduce against the message size, in the
 * manner of the OSU allreduce latency test (written for runner): for one
 * size, --repeats timed samples, each the mean of --iterations allreduces
 * (MPI_SUM of doubles) after --warmup untimed ones; a sample's time is the
 * slowest rank's. Rank 0 prints one JSON line per sample, so a command
 * experiment stores the samples as rows (docs/science.md, "Calibrating
 * alpha and beta"). The algorithm is Open MPI's choice unless the run sets
 * coll_tuned_allreduce_algorithm (the line says which it read).
 *
 *   mpirun -np 2 --mca coll_tuned_use_dynamic_rules 1 \
 *          --mca coll_tuned_allreduce_algorithm 4 allreduce_lat --bytes 65536 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mpirun -np K allreduce_lat --bytes N [--repeats R] [--iterations I] [--warmup W]\n"
    "  --bytes N       message size per rank, a multiple of 8 (doubles), at least 8\n"
    "  --repeats R     timed samples, one JSON line each (default 10)\n"
    "  --iterations I  allreduces averaged in one sample (default 100)\n"
    "  --warmup W      untimed allreduces first (default 10)\n";

/* The number in text, within [min, max]; -1 with a message when not. */
static int parse_long(const char *name, const char *text, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || v < min || v > max) {
        fprintf(stderr, "allreduce_lat: bad value for %s: %s\n%s", name, text ? text : "(none)",
                usage);
        return -1;
    }
    *out = v;
    return 0;
}

/* The allreduce algorithm forced through Open MPI's tuned component, by name. */
static const char *algorithm_name(void)
{
    static const char *const names[] = { "default",        "basic_linear",
                                         "nonoverlapping", "recursive_doubling",
                                         "ring",           "segmented_ring",
                                         "rabenseifner" };
    const char *dynamic = getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
    const char *id = getenv("OMPI_MCA_coll_tuned_allreduce_algorithm");
    if (!dynamic || strcmp(dynamic, "1") != 0 || !id)
        return "default";
    long n = strtol(id, NULL, 10);
    return n >= 0 && n < 7 ? names[n] : "unknown";
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    long bytes = -1, repeats = 10, iterations = 100, warmup = 10;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i += 2) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--bytes") == 0)
            bad = parse_long("--bytes", value, 8, 1L << 30, &bytes);
        else if (strcmp(argv[i], "--repeats") == 0)
            bad = parse_long("--repeats", value, 1, 1000000, &repeats);
        else if (strcmp(argv[i], "--iterations") == 0)
            bad = parse_long("--iterations", value, 1, 100000000, &iterations);
        else if (strcmp(argv[i], "--warmup") == 0)
            bad = parse_long("--warmup", value, 0, 100000000, &warmup);
        else {
            if (rank == 0)
                fprintf(stderr, "allreduce_lat: unknown option %s\n%s", argv[i], usage);
            bad = 1;
        }
    }
    if (!bad && bytes < 0) {
        if (rank == 0)
            fprintf(stderr, "allreduce_lat: --bytes N is required\n%s", usage);
        bad = 1;
    } else if (!bad && bytes % 8) {
        if (rank == 0)
            fprintf(stderr, "allreduce_lat: --bytes %ld: not a multiple of 8 (doubles)\n%s", bytes,
                    usage);
        bad = 1;
    }
    if (bad) {
        MPI_Finalize();
        return 2;
    }
    size_t count = (size_t)bytes / 8;
    double *send = malloc(count * sizeof *send), *recv = malloc(count * sizeof *recv);
    if (!send || !recv) {
        fprintf(stderr, "allreduce_lat: out of memory for %ld bytes (rank %d)\n", bytes, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < count; i++)
        send[i] = (double)(rank + 1) + (double)i * 1e-9;
    for (long i = 0; i < warmup; i++)
        MPI_Allreduce(send, recv, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const char *algorithm = algorithm_name();
    for (long r = 0; r < repeats; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (long i = 0; i < iterations; i++)
            MPI_Allreduce(send, recv, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double mine = (MPI_Wtime() - start) / (double)iterations, slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("{\"ranks\": %d, \"bytes\": %ld, \"algorithm\": \"%s\", \"repeat\": %ld, "
                   "\"iterations\": %ld, \"time_s\": %.9g, \"check\": %.17g}\n",
                   ranks, bytes, algorithm, r + 1, iterations, slowest, recv[0]);
    }
    fflush(stdout);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
