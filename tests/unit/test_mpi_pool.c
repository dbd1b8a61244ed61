/* test_mpi_pool: without a launcher, runner never touches MPI: rank 0 of 1,
 * the broadcast and the allreduce leave their data alone. A launcher's
 * environment without a way to reach MPI is refused with what to do. (The
 * MPI paths themselves run under mpirun in tests/e2e/test_mpi.sh.) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/mpi_pool.h"

static const char *const launcher_env[] = {
    "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMI_FD", "PMIX_RANK",
    "SLURM_STEP_NUM_TASKS", NULL,
};

static void clear_launcher_env(void)
{
    for (const char *const *name = launcher_env; *name; name++)
        unsetenv(*name);
}

static void test_not_launched(void)
{
    clear_launcher_env();
    char *err = NULL;
    CHECK_INT_EQ(mpi_pool_start(NULL, &err), 0);
    CHECK(err == NULL);
    CHECK_INT_EQ(mpi_pool_rank(), 0);
    CHECK_INT_EQ(mpi_pool_size(), 1);
    double values[2] = { 0.5, -1.0 };
    CHECK_INT_EQ(mpi_pool_allreduce_sum(values, 2, &err), 0);
    CHECK(values[0] == 0.5 && values[1] == -1.0);
    char text[] = "point", *data = text;
    size_t len = sizeof text;
    CHECK_INT_EQ(mpi_pool_broadcast(&data, &len, &err), 0);
    CHECK(data == text && len == sizeof text);
    mpi_pool_finish(0); /* nothing started: nothing to end */

    /* One task of srun, or mpirun -np 1: still no MPI. */
    setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    CHECK_INT_EQ(mpi_pool_start(NULL, &err), 0);
    CHECK_INT_EQ(mpi_pool_size(), 1);
    clear_launcher_env();
}

static void test_srun_without_mpi_plugin(void)
{
    clear_launcher_env();
    setenv("SLURM_STEP_NUM_TASKS", "4", 1);
    char *err = NULL;
    CHECK_INT_EQ(mpi_pool_start(NULL, &err), -1);
    if (mpi_pool_compiled())
        CHECK_STR_EQ(err, "srun started 4 tasks without an MPI plugin, so each would run the "
                          "whole script alone; use srun --mpi=pmix (docs/mpi.md)");
    else
        CHECK_STR_EQ(err, "launched on 4 ranks by mpirun or srun, but this runner was built "
                          "without MPI, so every rank would run the whole script; install "
                          "libopenmpi-dev and rebuild (docs/mpi.md)");
    CHECK_INT_EQ(mpi_pool_size(), 1);
    free(err);
    clear_launcher_env();
}

int main(void)
{
    test_not_launched();
    test_srun_without_mpi_plugin();
    return check_done("test_mpi_pool");
}
