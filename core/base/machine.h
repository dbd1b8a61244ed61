/* machine: the facts about this machine that decide whether its timings
 * mean anything (CPU, frequency governor, turbo, kernel, C library, build,
 * memory, ASLR, load), read from /proc and /sys, and the judgement of what
 * would make them noisy, as `pyperf system show` makes it. Each sweep
 * stores the facts (sweep_machine, docs/schema.md); `runner machine`
 * prints them with the judgement (docs/cli.md). */
#ifndef RUNNER_MACHINE_H
#define RUNNER_MACHINE_H

#include <stddef.h>

/* Test only: a directory holding proc/ and sys/ trees read instead of /proc
 * and /sys, so a test can pose as another machine (a changed governor).
 * Never set it to measure: the facts would be the fixture's. */
#define MACHINE_ROOT_ENV "RUNNER_MACHINE_ROOT"

/* One fact: name (cpu_model, governor, ...) and its value as text. */
typedef struct machine_field {
    char *name, *value;
} machine_field;

/* The facts in the order they were set; names are unique. Owns its text. */
typedef struct machine_facts {
    machine_field *fields;
    size_t count, cap;
} machine_facts;

/* Reads the facts of this machine (or of MACHINE_ROOT_ENV's tree) into
 * *out, which must be zeroed or cleared: cpu_model, cpus_online, governor,
 * turbo, kernel, arch, libc, compiler, build_flags, memory_kib, aslr.
 * What cannot be read is "unknown" (a file missing) or "none"
 * (no cpufreq driver: a virtual machine). The library versions are added
 * by the folders that own those libraries (machine_set). Returns 0, or -1
 * when out of memory. */
int machine_read(machine_facts *out);
/* Sets name to value (both copied), replacing an earlier value. 0 or -1. */
int machine_set(machine_facts *m, const char *name, const char *value);
/* The value of name, or NULL. Borrowed from m. */
const char *machine_get(const machine_facts *m, const char *name);
void machine_facts_clear(machine_facts *m); /* accepts NULL; leaves it empty */

/* The load averages over 1, 5 and 15 minutes as /proc/loadavg has them
 * ("0.52 0.58 0.59"), into buf; "unknown" when it cannot be read. */
void machine_load_average(char *buf, size_t size);

/* 1 when two sweeps whose values of this field differ ran on different
 * machines or settings; 0 for what changes from minute to minute on the
 * same machine (load_start, load_end). */
int machine_field_is_setting(const char *name);

/* One thing that makes timings noisy here, and what to do about it. */
typedef struct machine_finding {
    char *label;   /* a few words for a one-line warning: "governor powersave" */
    char *problem; /* "governor is powersave, not performance" */
    char *advice;  /* "sudo cpupower frequency-set -g performance" */
    int noisy;     /* 1: the machine is not fit to measure on; 0: a note */
} machine_finding;

/* Judges facts m for a sweep of jobs points at once (0: not known): a
 * governor that is not performance, turbo on, a 1-minute load above a
 * tenth of the cores online, more jobs than cores (noisy), and ASLR (a
 * note: repeats average over layouts, and turning it off is a security
 * trade). *out (malloc'd array, machine_findings_free) holds *count
 * findings, noisy ones first. Returns 0, or -1 when out of memory. */
int machine_judge(const machine_facts *m, int jobs, machine_finding **out, size_t *count);
void machine_findings_free(machine_finding *f, size_t count); /* accepts NULL */
/* How many of the findings are noisy. */
size_t machine_noisy_count(const machine_finding *f, size_t count);

#endif
