/* machine: this machine's facts from /proc and /sys (or the test tree of
 * RUNNER_MACHINE_ROOT), and what in them makes timings noisy. */
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "util.h"

/* Set by core/CMakeLists.txt for this file: how runner was compiled. */
#ifndef RUNNER_BUILD_COMPILER
#define RUNNER_BUILD_COMPILER "cc " __VERSION__
#endif
#ifndef RUNNER_BUILD_FLAGS
#define RUNNER_BUILD_FLAGS "unknown"
#endif

/* The tree /proc and /sys are read from: "" (the real ones) unless a test
 * names another. */
static const char *machine_root(void)
{
    const char *root = getenv(MACHINE_ROOT_ENV);
    return root && *root ? root : "";
}

/* The first line of root/path, without its newline, into buf; 0, or -1
 * when it cannot be read (buf is then ""). */
static int read_line(const char *path, char *buf, size_t size)
{
    char full[4096];
    buf[0] = '\0';
    snprintf(full, sizeof full, "%s/%s", machine_root(), path);
    FILE *f = fopen(full, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok ? 0 : -1;
}

/* The value of the first "key<blanks>: value" line of root/path (cpuinfo,
 * meminfo), into buf; 0, or -1 when there is none. */
static int read_keyed(const char *path, const char *key, char *buf, size_t size)
{
    char full[4096], line[1024];
    buf[0] = '\0';
    snprintf(full, sizeof full, "%s/%s", machine_root(), path);
    FILE *f = fopen(full, "r");
    if (!f)
        return -1;
    size_t key_len = strlen(key);
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, key_len) != 0 || !strchr(" \t:", line[key_len]))
            continue;
        const char *colon = strchr(line + key_len, ':');
        if (!colon)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        snprintf(buf, size, "%s", colon);
        buf[strcspn(buf, "\n")] = '\0';
        found = 0;
    }
    fclose(f);
    return found;
}

int machine_set(machine_facts *m, const char *name, const char *value)
{
    char *copy = util_strdup(value ? value : "unknown");
    if (!copy)
        return -1;
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->fields[i].name, name) == 0) {
            free(m->fields[i].value);
            m->fields[i].value = copy;
            return 0;
        }
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        machine_field *grown = realloc(m->fields, cap * sizeof *grown);
        if (!grown) {
            free(copy);
            return -1;
        }
        m->fields = grown;
        m->cap = cap;
    }
    char *name_copy = util_strdup(name);
    if (!name_copy) {
        free(copy);
        return -1;
    }
    m->fields[m->count++] = (machine_field){ name_copy, copy };
    return 0;
}

const char *machine_get(const machine_facts *m, const char *name)
{
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->fields[i].name, name) == 0)
            return m->fields[i].value;
    return NULL;
}

void machine_facts_clear(machine_facts *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++) {
        free(m->fields[i].name);
        free(m->fields[i].value);
    }
    free(m->fields);
    *m = (machine_facts){ 0 };
}

/* Calls visit for each CPU of a kernel CPU list ("0-3,6,8-9"); returns how
 * many, or -1 when the list is malformed. */
static long cpu_list_each(const char *list, void (*visit)(void *ctx, long cpu), void *ctx)
{
    long count = 0;
    const char *p = list;
    while (*p) {
        char *end = NULL;
        long first = strtol(p, &end, 10), last = first;
        if (end == p || first < 0)
            return -1;
        p = end;
        if (*p == '-') {
            last = strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first)
                return -1;
            p = end;
        }
        for (long cpu = first; cpu <= last && cpu - first < 65536; cpu++, count++)
            if (visit)
                visit(ctx, cpu);
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return count;
}

/* The distinct governors of the CPUs visited, joined by ",". */
typedef struct governors {
    char text[256];
    int unreadable;
} governors;

static void add_governor(void *ctx, long cpu)
{
    governors *g = ctx;
    char path[128], name[64];
    snprintf(path, sizeof path, "sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", cpu);
    if (read_line(path, name, sizeof name) != 0 || !*name) {
        g->unreadable = 1;
        return;
    }
    /* listed once: "performance" for 64 CPUs is one word */
    const char *at = g->text;
    size_t len = strlen(name);
    while ((at = strstr(at, name)) != NULL) {
        if ((at == g->text || at[-1] == ',') && (at[len] == ',' || at[len] == '\0'))
            return;
        at += len;
    }
    size_t used = strlen(g->text);
    snprintf(g->text + used, sizeof g->text - used, "%s%s", used ? "," : "", name);
}

static int read_cpus(machine_facts *m)
{
    char online[256], model[256], count_text[32];
    if (read_keyed("proc/cpuinfo", "model name", model, sizeof model) != 0 &&
        read_keyed("proc/cpuinfo", "Model", model, sizeof model) != 0 &&
        read_keyed("proc/cpuinfo", "cpu model", model, sizeof model) != 0)
        snprintf(model, sizeof model, "unknown");
    governors g = { .text = "" };
    long count = read_line("sys/devices/system/cpu/online", online, sizeof online) == 0
                     ? cpu_list_each(online, add_governor, &g)
                     : -1;
    if (count > 0)
        snprintf(count_text, sizeof count_text, "%ld", count);
    else
        snprintf(count_text, sizeof count_text, "unknown");
    /* no cpufreq directory at all: a virtual machine, or no driver */
    const char *governor = g.text[0] ? g.text : count > 0 ? "none" : "unknown";
    return machine_set(m, "cpu_model", model) || machine_set(m, "cpus_online", count_text) ||
           machine_set(m, "governor", governor);
}

/* Turbo from intel_pstate's no_turbo, else the cpufreq boost switch. */
static const char *read_turbo(void)
{
    char flag[16];
    if (read_line("sys/devices/system/cpu/intel_pstate/no_turbo", flag, sizeof flag) == 0)
        return strcmp(flag, "1") == 0 ? "off" : strcmp(flag, "0") == 0 ? "on" : "unknown";
    if (read_line("sys/devices/system/cpu/cpufreq/boost", flag, sizeof flag) == 0)
        return strcmp(flag, "0") == 0 ? "off" : strcmp(flag, "1") == 0 ? "on" : "unknown";
    return "unknown";
}

static const char *read_aslr(void)
{
    char level[16];
    if (read_line("proc/sys/kernel/randomize_va_space", level, sizeof level) != 0)
        return "unknown";
    return strcmp(level, "0") == 0   ? "off (0)"
           : strcmp(level, "1") == 0 ? "partial (1)"
           : strcmp(level, "2") == 0 ? "full (2)"
                                     : "unknown";
}

static int read_system(machine_facts *m)
{
    char type[64], release[128], kernel[200], memory[64];
    struct utsname names;
    if (read_line("proc/sys/kernel/ostype", type, sizeof type) != 0)
        snprintf(type, sizeof type, "unknown");
    if (read_line("proc/sys/kernel/osrelease", release, sizeof release) != 0)
        snprintf(release, sizeof release, "unknown");
    snprintf(kernel, sizeof kernel, "%s %s", type, release);
    /* "16314896 kB": the number, in KiB as the kernel counts them */
    if (read_keyed("proc/meminfo", "MemTotal", memory, sizeof memory) == 0)
        memory[strspn(memory, "0123456789")] = '\0';
    if (!memory[0])
        snprintf(memory, sizeof memory, "unknown");
    const char *libc = "unknown";
#if defined(__GLIBC__)
    char glibc[64];
    snprintf(glibc, sizeof glibc, "glibc %s", gnu_get_libc_version());
    libc = glibc;
#endif
    return machine_set(m, "turbo", read_turbo()) || machine_set(m, "kernel", kernel) ||
           machine_set(m, "arch", uname(&names) == 0 ? names.machine : "unknown") ||
           machine_set(m, "libc", libc) || machine_set(m, "compiler", RUNNER_BUILD_COMPILER) ||
           machine_set(m, "build_flags", RUNNER_BUILD_FLAGS) ||
           machine_set(m, "memory_kib", memory) || machine_set(m, "aslr", read_aslr());
}

int machine_read(machine_facts *out)
{
    if (read_cpus(out) != 0 || read_system(out) != 0) {
        machine_facts_clear(out);
        return -1;
    }
    return 0;
}

void machine_load_average(char *buf, size_t size)
{
    char line[128];
    double one = 0, five = 0, fifteen = 0;
    if (read_line("proc/loadavg", line, sizeof line) != 0 ||
        sscanf(line, "%lf %lf %lf", &one, &five, &fifteen) != 3) {
        snprintf(buf, size, "unknown");
        return;
    }
    snprintf(buf, size, "%.2f %.2f %.2f", one, five, fifteen);
}

int machine_field_is_setting(const char *name)
{
    return strcmp(name, "load_start") != 0 && strcmp(name, "load_end") != 0;
}

/* --- the judgement ---------------------------------------------------------- */

typedef struct findings {
    machine_finding *list;
    size_t count;
    int failed;
} findings;

static void add_finding(findings *f, int noisy, char *label, char *problem, char *advice)
{
    machine_finding *grown = f->failed ? NULL : realloc(f->list, (f->count + 1) * sizeof *f->list);
    if (!grown || !label || !problem || !advice) {
        free(label);
        free(problem);
        free(advice);
        f->failed = 1;
        return;
    }
    f->list = grown;
    f->list[f->count++] = (machine_finding){ label, problem, advice, noisy };
}

int machine_judge(const machine_facts *m, int jobs, machine_finding **out, size_t *count)
{
    findings f = { 0 };
    const char *governor = machine_get(m, "governor");
    if (governor && strcmp(governor, "performance") != 0 && strcmp(governor, "none") != 0 &&
        strcmp(governor, "unknown") != 0)
        add_finding(&f, 1, util_format("governor %s", governor),
                    util_format("the CPU frequency governor is %s, not performance: the "
                                "clock follows the load",
                                governor),
                    util_strdup("sudo cpupower frequency-set -g performance"));
    const char *turbo = machine_get(m, "turbo");
    if (turbo && strcmp(turbo, "on") == 0)
        add_finding(&f, 1, util_strdup("turbo on"),
                    util_strdup("turbo boost is on: the clock depends on heat and on what "
                                "else runs"),
                    util_strdup("echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/"
                                "no_turbo (or 0 into cpufreq/boost)"));
    const char *cpus_text = machine_get(m, "cpus_online"), *load = machine_get(m, "load_start");
    long cpus = cpus_text ? strtol(cpus_text, NULL, 10) : 0;
    double load_1min = 0;
    if (cpus > 0 && load && sscanf(load, "%lf", &load_1min) == 1 && load_1min > cpus / 10.0)
        add_finding(&f, 1, util_format("load %.2f on %ld cores", load_1min, cpus),
                    util_format("the load average, %.2f, is above a tenth of the %ld "
                                "cores online: other programs share the CPUs",
                                load_1min, cpus),
                    util_strdup("measure when the machine is quiet ('uptime' shows the "
                                "load, 'top' who makes it)"));
    if (cpus > 0 && jobs > cpus)
        add_finding(&f, 1, util_format("--jobs %d on %ld cores", jobs, cpus),
                    util_format("--jobs %d runs more points at once than the %ld cores "
                                "online",
                                jobs, cpus),
                    util_format("--jobs %ld or fewer (a command's jobs = 1 runs its points "
                                "alone)",
                                cpus));
    if (governor && strcmp(governor, "none") == 0)
        add_finding(&f, 0, util_strdup("no cpufreq"),
                    util_strdup("no CPU frequency driver shows here (a virtual machine?): "
                                "the host decides the clock and turbo"),
                    util_strdup("compare sweeps from this same machine only; for steady "
                                "clocks, measure on bare metal"));
    const char *aslr = machine_get(m, "aslr");
    if (aslr && strncmp(aslr, "off", 3) != 0 && strcmp(aslr, "unknown") != 0)
        add_finding(&f, 0, util_format("ASLR %s", aslr),
                    util_format("ASLR is %s: each run gets another memory layout", aslr),
                    util_strdup("fine for repeats, which average over layouts; one fixed "
                                "layout: setarch -R PROGRAM"));
    if (f.failed) {
        machine_findings_free(f.list, f.count);
        return -1;
    }
    /* noisy ones first: ASLR, the one note, is judged last */
    *out = f.list;
    *count = f.count;
    return 0;
}

void machine_findings_free(machine_finding *f, size_t count)
{
    for (size_t i = 0; f && i < count; i++) {
        free(f[i].label);
        free(f[i].problem);
        free(f[i].advice);
    }
    free(f);
}

size_t machine_noisy_count(const machine_finding *f, size_t count)
{
    size_t noisy = 0;
    for (size_t i = 0; i < count; i++)
        noisy += f[i].noisy != 0;
    return noisy;
}
