/* run: a sweep from start to end: its lifecycle (sweep row, resume, signals,
 * summary), the point loop, shards, verify. */
#ifndef RUNNER_RUN_FACE_H
#define RUNNER_RUN_FACE_H

#include "lifecycle.h"
#include "machine_facts.h"
#include "shard.h"
#include "sweep.h"
#include "sweep_options.h"
#include "verify.h"

#endif
