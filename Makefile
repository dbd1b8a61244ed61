# Thin driver around CMake (Neovim style): `make demo` and `make test` work on
# a fresh Debian 12 clone (as root, or with the packages installed). Every
# Debian package runner, its plugins, its tests and its benchmarks need is
# listed here and nowhere else, in three lists, and each target asks only for
# the lists it uses:
#
#   make            checks RUNTIME_PACKAGES and builds runner, its plugins and
#                   apps into build/, quietly (V=1 shows the compiler). Never
#                   installs anything and never needs root: when a package is
#                   missing it prints the one apt-get line to run, and stops.
#   make demo       installs the missing RUNTIME_PACKAGES (as root; otherwise
#                   prints the line), builds, runs the walk-through.
#   make test       also installs TEST_PACKAGES, builds with -Werror and runs
#                   ctest with RUNNER_TEST_REQUIRE_TOOLS=1: a test that would
#                   skip for a missing tool fails instead.
#   make test-loaded
#                   the suite again beside two CPU-bound loops (CI's second
#                   stage): a test resting on timing fails here.
#   make test-sanitize, test-valgrind, fuzz-smoke
#                   the checked builds CI runs after `make test` (below); the
#                   same packages as `make test`, -Werror.
#   make bench      installs RUNTIME_PACKAGES and BENCH_PACKAGES, runs bench/.
#   make deps       installs the missing RUNTIME_PACKAGES (as root) and stops.
#   make install    cmake --install build (to /usr/local; see README.md).
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Checked builds live beside the normal one (see cmake/Sanitize.cmake).
ASAN_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60

# What runner and its plugins build, link and run with: the compiler and
# CMake, the libraries, the sqlite3 shell users query results with, gnuplot
# for `runner plot`/`report`, git for the provenance of a sweep's script.
RUNTIME_PACKAGES := cmake make gcc libc6-dev pkg-config git sqlite3 gnuplot-nox \
	libsqlite3-dev liblua5.4-dev libcurl4-openssl-dev libssl-dev \
	libjansson-dev libopenblas-dev libxxhash-dev
# runner serve: the HTTP server library and the chart script its plots use.
RUNTIME_PACKAGES += libmicrohttpd-dev libjs-dygraphs
# Statistics and fits on stored rows (core/analysis/): GNU GSL.
RUNTIME_PACKAGES += libgsl-dev
# What the tests drive (python3 for the webhook server and checks, Chromium
# renders reports, procps for ps, Open MPI for distributed sweeps: optional
# when building, required by the tests) and the checked builds (valgrind,
# clang with its sanitizer runtime and libFuzzer, llvm's symbolizer), SciPy
# as an independent Sobol sequence for test_designs, a one-node Slurm with
# munge for test_slurm.sh, iproute2 (ip netns) and util-linux (nsenter,
# unshare) for the namespaces of test_multinode's three-node Slurm, curl
# to ask runner serve for every endpoint (test_serve), clang-format for
# the formatting check (lint_format), pandas for the Python module's
# DataFrames (test_python; docs/python.md). Node.js runs the dashboard's
# browser driver (playwright-core, pinned in tests/browser/package-lock.json,
# installed by npm; it drives Debian's chromium and downloads no browser).
# npm is the one that comes with the machine's Node.js (NodeSource's nodejs
# package holds it, and Debian's npm package cannot be installed beside it).
TEST_PACKAGES := python3 procps chromium openmpi-bin libopenmpi-dev curl \
	valgrind clang libclang-rt-14-dev llvm python3-scipy slurm-wlm munge clang-format \
	iproute2 util-linux python3-pandas nodejs
# The references `make bench` measures beside runner (bench/peers.py;
# hyperfine and GNU parallel for bench/bench_exec_overhead.py) and
# /usr/bin/time for its memory figures.
BENCH_PACKAGES := python3 python3-numpy python3-optuna python3-uhashring time hyperfine parallel

# What a target's recipe checks: `make` only checks the runtime packages;
# demo, deps, test, the checked builds and bench install what they need.
# Target-specific, so the build a target depends on checks the same list.
PACKAGES = $(RUNTIME_PACKAGES)
INSTALL_MISSING = no
# -Werror only where runner's own code is checked; a user's `make` keeps
# whatever the build directory was configured with (OFF on a fresh one).
WERROR_FLAG =
CHECKED = test test-loaded test-sanitize test-valgrind fuzz-build fuzz-smoke
$(CHECKED): PACKAGES = $(RUNTIME_PACKAGES) $(TEST_PACKAGES)
$(CHECKED): WERROR_FLAG = -DRUNNER_WERROR=ON
bench: PACKAGES = $(RUNTIME_PACKAGES) $(BENCH_PACKAGES)
demo deps $(CHECKED) bench: INSTALL_MISSING = yes

.PHONY: all deps configure build build-checks demo test install clean \
	test-sanitize test-valgrind fuzz-build fuzz-smoke test-loaded

all: build

# check_packages: checks $(PACKAGES) with dpkg. When some are missing it installs
# them if $(INSTALL_MISSING) is yes and this is root; otherwise it prints the
# command to run and fails. Without dpkg (not Debian) it says so and lets
# CMake find what it needs.
define check_packages
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "runner: no dpkg-query, so package names are not checked (see the lists in the Makefile)"; \
	  exit 0; \
	fi; \
	missing=""; \
	for p in $(sort $(PACKAGES)); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$(INSTALL_MISSING)" = yes ] && [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo "; \
	  echo "runner: 'make$(if $(MAKECMDGOALS), $(MAKECMDGOALS))' needs Debian packages that are not installed. Run:"; \
	  echo "  $${sudo}apt-get install -y$$missing"; \
	  exit 1; \
	fi
endef

deps:
	$(check_packages)

# Quiet unless V=1: configure and compile output goes to DIR/build.log, and
# only a failure shows its end. cmake_build DIR [TARGET]
define cmake_build
	@if [ "$(V)" = 1 ]; then \
	  cmake --build $(1) -j $(JOBS) $(if $(2),--target $(2)); \
	else \
	  printf 'building %s%s ... ' "$(1)" "$(if $(2), ($(2)))"; \
	  if cmake --build $(1) -j $(JOBS) $(if $(2),--target $(2)) >$(1)/build.log 2>&1; then \
	    echo done; \
	  else \
	    echo FAILED; tail -n 40 $(1)/build.log; \
	    echo "runner: the build failed; its whole log is $(1)/build.log (make V=1 shows it as it runs)"; \
	    exit 1; \
	  fi; \
	fi
endef
# cmake_configure DIR FLAGS...
define cmake_configure
	@mkdir -p $(1)
	@if [ "$(V)" = 1 ]; then \
	  cmake -S . -B $(1) $(2); \
	elif ! cmake -S . -B $(1) $(2) >$(1)/configure.log 2>&1; then \
	  cat $(1)/configure.log; exit 1; \
	fi
endef

configure:
	$(check_packages)
	$(call cmake_configure,$(BUILD_DIR),-DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(WERROR_FLAG) $(CMAKE_FLAGS))

# runner, its plugins and apps: what `make demo` and a user need.
build: configure
	$(call cmake_build,$(BUILD_DIR))

# The same and what the tests and benchmarks build (the `checks` target:
# test programs, fixture plugins, bench programs).
build-checks: build
	$(call cmake_build,$(BUILD_DIR),checks)

demo: build
	$(BUILD_DIR)/runner sweep scripts/seed.lua

# RUNNER_TEST_REQUIRE_TOOLS: every tool a test needs was installed above, so
# a test that would skip for lack of one fails (tests/e2e/lib.sh skip_without).
REQUIRE_TOOLS = RUNNER_TEST_REQUIRE_TOOLS=1

# A hung test fails after TEST_TIMEOUT seconds with its output so far, and
# the rest of the suite still runs (ctest's own default is 25 minutes, so one
# hang would eat a CI run); the slowest test takes about a minute.
TEST_TIMEOUT = 300
test: build-checks browser-driver
	cd $(BUILD_DIR) && $(REQUIRE_TOOLS) RUNNER_TEST_TIMEOUT_S=$(TEST_TIMEOUT) \
	  ctest --output-on-failure --timeout $(TEST_TIMEOUT) -j $(JOBS)

# The whole suite once more while two CPU-bound processes compete for the
# cores (CI's stage after `make test`): users run the suite on busy
# machines, so a test that rests on timing fails here, not on theirs. The
# load is two shell loops, each bounded by LOAD_LIMIT_S and killed when
# ctest ends however it ends. Runs on the build `make test` made.
LOAD_LIMIT_S = 3600
test-loaded: build-checks browser-driver
	@set -u; pids=""; \
	for i in 1 2; do timeout $(LOAD_LIMIT_S) sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	trap 'kill $$pids 2>/dev/null' EXIT INT TERM; \
	echo "test-loaded: two CPU-bound loops running (pids$$pids)"; \
	cd $(BUILD_DIR) && $(REQUIRE_TOOLS) RUNNER_TEST_TIMEOUT_S=$(TEST_TIMEOUT) \
	  ctest --output-on-failure --timeout $(TEST_TIMEOUT) -j $(JOBS)

# The browser tests' driver from the npm registry, at the versions the lock
# file pins (npm ci), into BUILD_DIR/browser; again only when the lock changes.
BROWSER_DIR = $(BUILD_DIR)/browser
.PHONY: browser-driver
browser-driver: $(BROWSER_DIR)/node_modules/.package-lock.json
$(BROWSER_DIR)/node_modules/.package-lock.json: tests/browser/package.json tests/browser/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "runner: the browser tests need npm (it comes with Node.js; on Debian without NodeSource: apt-get install npm)"; exit 1; }
	mkdir -p $(BROWSER_DIR)
	cp tests/browser/package.json tests/browser/package-lock.json $(BROWSER_DIR)/
	cd $(BROWSER_DIR) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error

# Not part of `make test`: throughput ratios against references measured in
# the same run, printed with PASS/MISS (docs/performance.md). Takes minutes;
# BENCH_QUICK=1 (or BENCH_FLAGS=--quick) for a smoke run; BENCH_FLAGS="--only floor"
# for issue 30's lines alone (each cost beside its floor).
.PHONY: bench
bench: build-checks
	bench/run_all.sh --build-dir $(BUILD_DIR) $(BENCH_FLAGS)

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(FUZZ_BUILD_DIR)

# --- Checked builds (CI runs all three after `make test`) ---

# Every leak fails (LeakSanitizer at exit) and every UB report aborts.
# RUNNER_NO_DLCLOSE asks the loader to keep plugins mapped, so a leak in a
# plugin is reported with the plugin's frames, not "<unknown module>".
# cmake/lsan.supp holds the third-party leaks (Open MPI) and nothing else.
# Two tests need other options, so they run on their own: the isolate test
# crashes a point with SIGSEGV on purpose and checks the signal the runner
# reports, so ASan must let it through (handle_segv=0); the tests that run
# Open MPI (mpi, mpi_command, mpi_writer, mpi_failures, measured_speedup, calibrate_allreduce, slurm,
# reuse under mpirun, and the multi-node test) need the slow unwinder to attribute Open MPI's
# leaks (see cmake/lsan.supp).
CHECKED_ASAN_OPTIONS = detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1
SANITIZER_ENV = ASAN_OPTIONS=$(CHECKED_ASAN_OPTIONS) UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/cmake/lsan.supp:print_suppressions=0 \
	OMPI_MCA_mca_base_component_disable_dlclose=1 RUNNER_NO_DLCLOSE=1
# Under the sanitizers too a hung test fails, after twice as long: the
# slowest takes about 110 s there (test_corpus).
SANITIZE_TIMEOUT = 600
SANITIZE_CTEST = $(REQUIRE_TOOLS) RUNNER_TEST_TIMEOUT_S=$(SANITIZE_TIMEOUT) \
	ctest --output-on-failure --timeout $(SANITIZE_TIMEOUT)

test-sanitize:
	$(check_packages)
	$(call cmake_configure,$(ASAN_BUILD_DIR),-DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DRUNNER_SANITIZE=ON \
	  $(WERROR_FLAG) $(CMAKE_FLAGS))
	$(call cmake_build,$(ASAN_BUILD_DIR))
	$(call cmake_build,$(ASAN_BUILD_DIR),checks)
	$(MAKE) --no-print-directory browser-driver BUILD_DIR=$(ASAN_BUILD_DIR)
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) $(SANITIZE_CTEST) -j $(JOBS) \
	  -E '^(e2e_test_(isolate|mpi|mpi_command|mpi_writer|mpi_failures|measured_speedup|calibrate_allreduce|slurm|reuse)|test_multinode)$$'
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) ASAN_OPTIONS=$(CHECKED_ASAN_OPTIONS):handle_segv=0 \
	  $(SANITIZE_CTEST) -R '^e2e_test_isolate$$'
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) ASAN_OPTIONS=$(CHECKED_ASAN_OPTIONS):fast_unwind_on_malloc=0 \
	  $(SANITIZE_CTEST) -R '^(e2e_test_(mpi|mpi_command|mpi_writer|mpi_failures|measured_speedup|calibrate_allreduce|slurm|reuse)|test_multinode)$$'

# Memcheck of the normal build: the walk-through sweep, and a sweep whose
# points fail (testkit fixture, two threads), which must still exit 1 (some
# points failed) with the failures stored. Memcheck's own exit status for an
# error is 99, so it cannot be taken for the runner's 1.
VALGRIND = valgrind --quiet --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes
FAILING_SWEEP = tests/fuzz/corpus/fuzz_script/testkit_failing_points.lua

test-valgrind: build-checks
	@set -u; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	echo "memcheck: runner sweep scripts/seed.lua"; \
	$(VALGRIND) $(BUILD_DIR)/runner sweep scripts/seed.lua --db "$$tmp/seed.db" --quiet \
	  >"$$tmp/seed.out" || { echo "memcheck: seed.lua failed (status $$?)"; exit 1; }; \
	echo "memcheck: runner sweep $(FAILING_SWEEP)"; \
	status=0; RUNNER_PLUGIN_PATH=$(BUILD_DIR)/fixtures/good $(VALGRIND) $(BUILD_DIR)/runner sweep \
	  $(FAILING_SWEEP) --db "$$tmp/failing.db" --jobs 2 --quiet >"$$tmp/failing.out" 2>"$$tmp/failing.err" \
	  || status=$$?; \
	failed=$$(sqlite3 "$$tmp/failing.db" "SELECT count(*) FROM point WHERE status = 'failed'"); \
	if [ "$$status" != 1 ] || [ "$$failed" != 12 ]; then \
	  cat "$$tmp/failing.err"; \
	  echo "memcheck: expected exit status 1 and 12 failed points, got status $$status and $$failed"; \
	  exit 1; \
	fi; \
	echo "memcheck: 2 sweeps, no errors"

# libFuzzer harnesses (tests/fuzz): the whole tree built by clang with
# -fsanitize=fuzzer-no-link,address,undefined; then each harness fuzzes its
# corpus for FUZZ_SECONDS, both at once.
fuzz-build:
	$(check_packages)
	$(call cmake_configure,$(FUZZ_BUILD_DIR),-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DRUNNER_FUZZ=ON $(WERROR_FLAG) $(CMAKE_FLAGS))
	$(call cmake_build,$(FUZZ_BUILD_DIR))
	$(call cmake_build,$(FUZZ_BUILD_DIR),checks)

fuzz-smoke: fuzz-build
	$(SANITIZER_ENV) sh tests/fuzz/smoke.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)
