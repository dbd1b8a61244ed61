/* fuzz_script: libFuzzer harness for script loading. Each input is a sweep
 * script run by the real script_run(), sandbox, plugins and store included,
 * against a fresh database in a temporary directory. Leading lines
 * "--set NAME=VALUE" (Lua comments, so the script stays valid) become --set
 * overrides, as on the command line. A finding is any sanitizer report, a
 * leak, or an exit status cli.h does not document.
 *
 * Run it from a scratch directory (make fuzz-smoke does): plot() writes its
 * files below the current directory, as it does for a real script. */
#define _XOPEN_SOURCE 700 /* nftw, with mkdtemp, strndup, timer_create */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/exit_status.h"
#include "script/script.h"

/* Per input: at most this many points in a section, this much Lua heap and
 * script time, and this much wall time in all (then the input is stopped as
 * Ctrl-C would stop it, which exercises the interrupt path too). */
#define FUZZ_MAX_POINTS 64
#define FUZZ_SCRIPT_MEMORY_BYTES ((size_t)32 << 20)
#define FUZZ_SCRIPT_TIMEOUT_S 0.5
#define FUZZ_WALL_BUDGET_MS 1500
#define FUZZ_OVERRIDES_MAX 8

static char work_dir[4096];
static char db_path[4200];
/* The harness is not the build tree's runner, so it names the built plugins
 * (core/base/install_layout.c would look beside the harness). */
static const char *plugin_dirs[] = { FUZZ_FIXTURE_PLUGIN_DIR, RUNNER_BUILD_PLUGIN_DIR, NULL };
static volatile sig_atomic_t stop_requested;
static timer_t budget_timer;
/* Where libFuzzer keeps artifacts (-artifact_prefix), and the input now
 * running: the watchdog hook saves it there. */
static const char *artifact_prefix = "";
static const uint8_t *current_input;
static size_t current_input_size;

/* runner's watchdog ends the process when a script is stuck where no hook
 * runs (a __gc finalizer loop, one long string.find): documented behaviour,
 * not a finding, but libFuzzer cannot go on in this process. Keep the input
 * as "stuck-*" and leave with FUZZ_STUCK_STATUS, which smoke.sh tells apart
 * from a crash and answers by fuzzing on in a new process. */
#define FUZZ_STUCK_STATUS 86
static void on_watchdog_exit(int status)
{
    (void)status;
    char path[4096];
    snprintf(path, sizeof path, "%sstuck-%ld", artifact_prefix, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t done = 0;
        while (done < current_input_size) {
            ssize_t n = write(fd, current_input + done, current_input_size - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        close(fd);
    }
    _exit(FUZZ_STUCK_STATUS);
}

static void on_budget(int signo)
{
    (void)signo;
    stop_requested = 1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_work_dir(void) { nftw(work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void remove_database(void)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    char path[4300];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(path, sizeof path, "%s%s", db_path, suffixes[i]);
        unlink(path);
    }
}

/* The runner dlopens and dlcloses every plugin once per input. libFuzzer
 * keeps pointers to the coverage counters of each instrumented module, so
 * an unloaded plugin would leave them dangling: pin every plugin in memory
 * (RTLD_NODELETE) before the first input. Later dlopen calls of the same
 * file get this copy, and dlclose leaves it mapped. */
static void pin_plugins(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *entry;
    while ((entry = readdir(d))) {
        size_t len = strlen(entry->d_name);
        if (len < 4 || strcmp(entry->d_name + len - 3, ".so") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        if (!dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))
            fprintf(stderr, "fuzz_script: %s\n", dlerror());
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const char prefix_flag[] = "-artifact_prefix=";
    for (int i = 1; i < *argc; i++)
        if (strncmp((*argv)[i], prefix_flag, sizeof prefix_flag - 1) == 0)
            artifact_prefix = (*argv)[i] + sizeof prefix_flag - 1;
    /* The database lives in $TMPDIR, else in memory-backed /dev/shm when
     * there is one. (A crash skips the atexit clean-up: smoke.sh points
     * TMPDIR at a directory it removes.) */
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(work_dir, sizeof work_dir, "%s/runner-fuzz.XXXXXX", base);
    if (!mkdtemp(work_dir)) {
        perror("fuzz_script: mkdtemp");
        exit(1);
    }
    atexit(remove_work_dir);
    snprintf(db_path, sizeof db_path, "%s/fuzz.db", work_dir);
    pin_plugins(RUNNER_BUILD_PLUGIN_DIR);
    pin_plugins(FUZZ_FIXTURE_PLUGIN_DIR);
    /* Tables and printf() go nowhere; libFuzzer reports on stderr. */
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0) {
        perror("fuzz_script: /dev/null");
        exit(1);
    }
    close(null_fd);
    /* The wall-time budget: a real-time signal libFuzzer does not use, with
     * SA_RESTART so only the runner's own stop checks see it. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_budget;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGRTMIN + 1;
    if (sigaction(SIGRTMIN + 1, &sa, NULL) != 0 ||
        timer_create(CLOCK_MONOTONIC, &ev, &budget_timer) != 0) {
        perror("fuzz_script: timer");
        exit(1);
    }
    return 0;
}

/* Copies the leading "--set NAME=VALUE" lines of text into overrides
 * (malloc'd; the caller frees them). They stay in the script as comments.
 * Returns how many. */
static size_t take_overrides(const char *text, char **overrides)
{
    static const char prefix[] = "--set ";
    size_t count = 0;
    const char *line = text;
    while (count < FUZZ_OVERRIDES_MAX && strncmp(line, prefix, sizeof prefix - 1) == 0) {
        const char *end = strchr(line, '\n');
        if (!end)
            break;
        line += sizeof prefix - 1;
        overrides[count] = strndup(line, (size_t)(end - line));
        if (!overrides[count])
            abort();
        count++;
        line = end + 1;
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* script_run() takes NUL-terminated text: an embedded NUL ends it. */
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *overrides[FUZZ_OVERRIDES_MAX];
    size_t override_count = take_overrides(text, overrides);

    script_config config = {
        .script_path = "fuzz.lua",
        .plugin_dirs = plugin_dirs,
        .overrides = (const char *const *)overrides,
        .override_count = override_count,
        .max_points = FUZZ_MAX_POINTS,
        .memory_limit_bytes = FUZZ_SCRIPT_MEMORY_BYTES,
        .time_limit_s = FUZZ_SCRIPT_TIMEOUT_S,
        .on_watchdog_exit = on_watchdog_exit,
        .script_text = text,
        .sweep = {
            .db_path = db_path,
            .seed = 1,
            .quiet = 1,
            .command_line = "runner sweep fuzz.lua",
            .stop = &stop_requested,
            .jobs = 1,
        },
    };
    stop_requested = 0;
    current_input = data;
    current_input_size = size;
    struct itimerspec budget = {
        .it_value = { FUZZ_WALL_BUDGET_MS / 1000, (FUZZ_WALL_BUDGET_MS % 1000) * 1000000L },
    };
    timer_settime(budget_timer, 0, &budget, NULL);
    int status = script_run(&config);
    struct itimerspec off = { { 0, 0 }, { 0, 0 } };
    timer_settime(budget_timer, 0, &off, NULL);
    fflush(stdout);
    remove_database();
    for (size_t i = 0; i < override_count; i++)
        free(overrides[i]);
    free(text);
    if (status != EXIT_OK && status != EXIT_POINTS_FAILED && status != EXIT_USAGE &&
        status != EXIT_INTERRUPTED) {
        fprintf(stderr, "fuzz_script: script_run returned %d, not a documented exit status\n",
                status);
        abort();
    }
    return 0;
}
