/* exec_progress: RUNNER_SERIES lines taken out of stdout wherever the
 * reads split them, the rest kept byte for byte, malformed lines counted;
 * and RUNNER_HOST_HAS against a host table shorter than this header's (an
 * older runner). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec_progress.h"

static const char input[] = "a=1\n"
                            "RUNNER_SERIES {\"step\": 1, \"x\": 2}\n"
                            "RUNNER_SERIESnot a progress line\n"
                            "RUNNER_SERIE\n"
                            "\n"
                            "b=2\n"
                            "RUNNER_SERIES bad\n"
                            "RUNNER_SERIES {\"step\": 2, \"y\": \"text\"}\n"
                            "RUNNER_SERIES {\"step\": 3, \"y\": 1}";
static const char kept[] = "a=1\n"
                           "RUNNER_SERIESnot a progress line\n"
                           "RUNNER_SERIE\n"
                           "\n"
                           "b=2\n";

/* Feeds input in two reads split at k, then the end of file. */
static void split_at(size_t k)
{
    runner_point point;
    memset(&point, 0, sizeof point); /* no series writer: values go nowhere */
    exec_progress pr;
    exec_progress_begin(&pr, &point);
    size_t n = strlen(input);
    char *out = malloc(n + 2 * EXEC_PROGRESS_PREFIX_LEN + 1);
    size_t w = exec_progress_filter(&pr, input, k, out);
    w += exec_progress_filter(&pr, input + k, n - k, out + w);
    w += exec_progress_finish(&pr, out + w);
    out[w] = '\0';
    CHECK_STR_EQ(out, kept);
    CHECK_INT_EQ((int)point.series_bad, 2);
    CHECK_STR_EQ(point.series_bad_first,
                 "stdout line 7: RUNNER_SERIES needs a JSON object with a numeric \"step\"");
    free(out);
}

static void test_every_split(void)
{
    for (size_t k = 0; k <= strlen(input); k++)
        split_at(k);
}

static void test_long_line(void)
{
    runner_point point;
    memset(&point, 0, sizeof point);
    exec_progress pr;
    exec_progress_begin(&pr, &point);
    size_t n = EXEC_PROGRESS_PREFIX_LEN + EXEC_PROGRESS_LINE_MAX + 10;
    char *line = malloc(n + 8), *out = malloc(n + 64);
    memcpy(line, EXEC_PROGRESS_PREFIX, EXEC_PROGRESS_PREFIX_LEN);
    memset(line + EXEC_PROGRESS_PREFIX_LEN, 'x', n - EXEC_PROGRESS_PREFIX_LEN);
    memcpy(line + n, "\nok=1\n", 6);
    size_t w = exec_progress_filter(&pr, line, n + 6, out);
    w += exec_progress_finish(&pr, out + w);
    out[w] = '\0';
    CHECK_STR_EQ(out, "ok=1\n");
    CHECK_STR_EQ(point.series_bad_first,
                 "stdout line 1: RUNNER_SERIES line longer than 4096 bytes");
    free(line);
    free(out);
}

static void test_host_has(void)
{
    runner_host older = { .abi_version = RUNNER_PLUGIN_ABI,
                          .struct_size = (uint32_t)offsetof(runner_host, series) };
    CHECK(RUNNER_HOST_HAS(&older, allreduce_sum));
    CHECK(!RUNNER_HOST_HAS(&older, series));
    const runner_host *now = host_table();
    CHECK(RUNNER_HOST_HAS(now, series));
    CHECK(now->series != NULL);
}

int main(void)
{
    test_every_split();
    test_long_line();
    test_host_has();
    return check_done("test_exec_progress");
}
