/* sensitivity: variance-based (Sobol) sensitivity of one output to a
 * sweep's parameters. A Saltelli design (sensitivity_design) lays out
 * blocks of points whose outputs give each parameter's first-order index
 * (Saltelli 2010) and total index (Jansen 1999), with bootstrap intervals
 * (docs/analysis.md, "Which parameter drives the output"). Numbers here;
 * sensitivity_data.c reads a stored section. */
#ifndef RUNNER_ANALYSIS_SENSITIVITY_H
#define RUNNER_ANALYSIS_SENSITIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The most parameters a design varies (a block is d + 2 points). */
#define SENSITIVITY_MAX_PARAMS 64

/* The unit-cube points of a Saltelli design of n_base blocks over d
 * parameters: n_base * (d + 2) rows of d coordinates in [0, 1), row-major,
 * block by block: A_j, B_j, then A_j with coordinate i taken from B_j for
 * i = 1..d. A and B are independent uniform draws of GSL's MT19937 seeded
 * with seed. Returns 0 with *points (malloc'd, the caller frees) or -1 with
 * *err (malloc'd): d out of 1..SENSITIVITY_MAX_PARAMS, n_base 0 or too
 * large, out of memory. */
int sensitivity_design(size_t n_base, size_t d, uint64_t seed, double **points, char **err);

typedef struct sensitivity_options {
    size_t bootstrap;  /* resamples of the blocks; 0: 1000 */
    uint64_t seed;     /* of the resampling */
    double confidence; /* 0: 0.95 */
} sensitivity_options;

/* One parameter's indices with their percentile-bootstrap intervals. */
typedef struct sensitivity_index {
    double first, first_low, first_high; /* S_i: share of Var(y) from x_i alone */
    double total, total_low, total_high; /* S_Ti: share with all its interactions */
} sensitivity_index;

typedef struct sensitivity_result {
    size_t n_base, d, bootstrap;
    double confidence;
    double mean, variance;      /* of y over the A and B points */
    sensitivity_index *indices; /* d entries, malloc'd (sensitivity_result_clear) */
} sensitivity_result;

/* --- reading a section (sensitivity_data.c) ------------------------------ */

/* A stored Saltelli section: the parameters that vary (in name order, the
 * order design.saltelli gives its coordinates), y per point in design
 * order, and the blocks whose y was not finite (left out). Owned. */
typedef struct sensitivity_data {
    size_t d, n_base; /* usable blocks */
    char **names;     /* d parameter names */
    char **units;     /* their units ("" when none) */
    char *y_unit;
    double *y;       /* n_base * (d + 2) */
    size_t excluded; /* blocks with NaN, inf or NULL y */
    size_t rows;     /* rows read */
} sensitivity_data;

/* --- answering for a section (sensitivity_data.c) ------------------------ */

/* What `runner sensitivity` and Lua's sensitivity{} compute and store. */
typedef struct sensitivity_answer {
    sensitivity_data data;
    sensitivity_result result;
    int64_t id; /* the stored sensitivity row */
    int kept;   /* 1: the stored indices answered it (store_sensitivity_write) */
} sensitivity_answer;

/* Loads the section, estimates the indices and stores them (one
 * transaction; again is a STORE_ANSWER_*: the stored answer to the same
 * question is kept when its result is the same). Returns 0 with *out
 * (sensitivity_answer_clear), or -1 with *err one line; nothing is stored
 * then. */
int sensitivity_answer_section(store *s, int64_t sweep_id, int64_t section_id, const char *y_column,
                               const sensitivity_options *options, int again,
                               sensitivity_answer *out, char **err);
void sensitivity_answer_clear(sensitivity_answer *a); /* accepts NULL */

#endif
