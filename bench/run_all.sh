#!/bin/sh
# Runs every benchmark in one go and prints figures and ratios with PASS/MISS
# against the targets (docs/performance.md). `make bench` builds first, then
# runs this. Arguments go to run_all.py: [--build-dir DIR] [--quick]
# [--json FILE] [--keep] [--only rows|exec|floor]; BENCH_QUICK=1 adds --quick
# (small sizes, one run each: a check that every line runs, not figures).
# Debian's python3 on purpose: the peers (numpy,
# optuna, uhashring) are Debian packages, not a virtualenv's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# Kernels are compared per core: one BLAS/OpenMP thread for every process.
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS OMP_NUM_THREADS
quick=
[ "${BENCH_QUICK:-0}" = 1 ] && quick=--quick
exec "${PYTHON:-/usr/bin/python3}" "$here/run_all.py" $quick "$@"
