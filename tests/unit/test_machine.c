/* test_machine: the machine's facts read from a fixture tree posing as
 * /proc and /sys (RUNNER_MACHINE_ROOT), and the judgement of what makes
 * timings noisy there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/machine.h"
#include "check.h"

static char root[512];

/* Writes text into root/path, making its directories. */
static void put(const char *path, const char *text)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", root, path);
    for (char *slash = strchr(full + strlen(root) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        CHECK(mkdir(full, 0755) == 0 || errno == EEXIST);
        *slash = '/';
    }
    FILE *f = fopen(full, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void remove_file(const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", root, path);
    unlink(full);
}

/* A two-core Intel machine on powersave with turbo on. */
static void make_tree(void)
{
    put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n"
                        "model name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n\n"
                        "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n");
    put("proc/meminfo", "MemTotal:       16314896 kB\nMemFree:         1000000 kB\n");
    put("proc/loadavg", "1.50 0.75 0.25 2/345 6789\n");
    put("proc/sys/kernel/ostype", "Linux\n");
    put("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    put("proc/sys/kernel/randomize_va_space", "2\n");
    put("sys/devices/system/cpu/online", "0-1\n");
    put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
    put("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    put("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
}

static void test_read(void)
{
    machine_facts m = { 0 };
    CHECK_INT_EQ(machine_read(&m), 0);
    CHECK_STR_EQ(machine_get(&m, "cpu_model"), "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz");
    CHECK_STR_EQ(machine_get(&m, "cpus_online"), "2");
    CHECK_STR_EQ(machine_get(&m, "governor"), "powersave");
    CHECK_STR_EQ(machine_get(&m, "turbo"), "on");
    CHECK_STR_EQ(machine_get(&m, "kernel"), "Linux 6.1.0-18-amd64");
    CHECK_STR_EQ(machine_get(&m, "memory_kib"), "16314896");
    CHECK_STR_EQ(machine_get(&m, "aslr"), "full (2)");
    CHECK(strncmp(machine_get(&m, "libc"), "glibc ", 6) == 0);
    CHECK(machine_get(&m, "compiler") && *machine_get(&m, "compiler"));
    CHECK(machine_get(&m, "build_flags") && *machine_get(&m, "build_flags"));
    CHECK(machine_get(&m, "load_start") == NULL); /* the caller's, with the libraries */
    /* the order a sweep records and shows */
    CHECK_STR_EQ(m.fields[0].name, "cpu_model");
    CHECK_STR_EQ(m.fields[2].name, "governor");
    char load[64];
    machine_load_average(load, sizeof load);
    CHECK_STR_EQ(load, "1.50 0.75 0.25");

    /* set replaces in place */
    size_t count = m.count;
    CHECK_INT_EQ(machine_set(&m, "governor", "performance"), 0);
    CHECK_INT_EQ((int)m.count, (int)count);
    CHECK_STR_EQ(m.fields[2].value, "performance");
    machine_facts_clear(&m);
    CHECK_INT_EQ((int)m.count, 0);
}

static void test_mixed_and_missing(void)
{
    /* CPUs 0, 2-3 online, one on another governor; boost instead of
     * intel_pstate; no ASLR file, no loadavg */
    put("sys/devices/system/cpu/online", "0,2-3\n");
    put("sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "performance\n");
    put("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "powersave\n");
    remove_file("sys/devices/system/cpu/intel_pstate/no_turbo");
    put("sys/devices/system/cpu/cpufreq/boost", "0\n");
    remove_file("proc/sys/kernel/randomize_va_space");
    remove_file("proc/loadavg");
    machine_facts m = { 0 };
    CHECK_INT_EQ(machine_read(&m), 0);
    CHECK_STR_EQ(machine_get(&m, "cpus_online"), "3");
    CHECK_STR_EQ(machine_get(&m, "governor"), "powersave,performance");
    CHECK_STR_EQ(machine_get(&m, "turbo"), "off");
    CHECK_STR_EQ(machine_get(&m, "aslr"), "unknown");
    char load[64];
    machine_load_average(load, sizeof load);
    CHECK_STR_EQ(load, "unknown");
    machine_facts_clear(&m);

    /* no cpufreq at all (a virtual machine) */
    for (int cpu = 0; cpu < 4; cpu++) {
        char path[128];
        snprintf(path, sizeof path, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
        remove_file(path);
    }
    remove_file("sys/devices/system/cpu/cpufreq/boost");
    CHECK_INT_EQ(machine_read(&m), 0);
    CHECK_STR_EQ(machine_get(&m, "governor"), "none");
    CHECK_STR_EQ(machine_get(&m, "turbo"), "unknown");
    machine_facts_clear(&m);
}

static void test_judge(void)
{
    machine_facts m = { 0 };
    machine_set(&m, "cpus_online", "2");
    machine_set(&m, "governor", "powersave");
    machine_set(&m, "turbo", "on");
    machine_set(&m, "aslr", "full (2)");
    machine_set(&m, "load_start", "0.30 0.10 0.05");
    machine_finding *f = NULL;
    size_t n = 0;
    CHECK_INT_EQ(machine_judge(&m, 4, &f, &n), 0);
    CHECK_INT_EQ((int)n, 5);
    CHECK_INT_EQ((int)machine_noisy_count(f, n), 4);
    if (n == 5) {
        CHECK_STR_EQ(f[0].label, "governor powersave");
        CHECK_STR_EQ(f[0].advice, "sudo cpupower frequency-set -g performance");
        CHECK_STR_EQ(f[1].label, "turbo on");
        CHECK_STR_EQ(f[2].label, "load 0.30 on 2 cores");
        CHECK_STR_EQ(f[3].label, "--jobs 4 on 2 cores");
        CHECK_STR_EQ(f[3].advice, "--jobs 2 or fewer (a command's jobs = 1 runs its points alone)");
        CHECK_STR_EQ(f[4].label, "ASLR full (2)");
        CHECK_INT_EQ(f[4].noisy, 0);
    }
    machine_findings_free(f, n);

    /* a quiet, tuned machine: load exactly a tenth of the cores is fit */
    machine_set(&m, "governor", "performance");
    machine_set(&m, "turbo", "off");
    machine_set(&m, "aslr", "off (0)");
    machine_set(&m, "load_start", "0.20 0.10 0.05");
    CHECK_INT_EQ(machine_judge(&m, 2, &f, &n), 0);
    CHECK_INT_EQ((int)n, 0);
    machine_findings_free(f, n);
    machine_facts_clear(&m);

    CHECK_INT_EQ(machine_field_is_setting("governor"), 1);
    CHECK_INT_EQ(machine_field_is_setting("load_start"), 0);
    CHECK_INT_EQ(machine_field_is_setting("load_end"), 0);
}

int main(void)
{
    const char *tmp = getenv("RUNNER_TEST_TMP");
    snprintf(root, sizeof root, "%s/machine_%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    CHECK(mkdir(root, 0755) == 0 || errno == EEXIST);
    setenv(MACHINE_ROOT_ENV, root, 1);
    make_tree();
    test_read();
    test_mixed_and_missing();
    test_judge();
    return check_done("test_machine");
}
