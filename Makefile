# Thin driver around CMake (Neovim style): `make demo` and `make test` work on
# a fresh Debian 12 clone. Every package runner, its plugins and its tests
# need is listed here and nowhere else.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Checked builds live beside the normal one (see cmake/Sanitize.cmake).
ASAN_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60

DEB_PACKAGES := cmake make gcc pkg-config git \
	libsqlite3-dev sqlite3 liblua5.4-dev libcurl4-openssl-dev libssl-dev \
	libjansson-dev libopenblas-dev libxxhash-dev python3 gnuplot-nox chromium \
	valgrind clang libclang-rt-14-dev llvm \
	python3-optuna python3-numpy python3-uhashring time \
	openmpi-bin libopenmpi-dev

.PHONY: all deps configure build demo test install clean \
	test-sanitize test-valgrind fuzz-build fuzz-smoke

all: build

# Installs what is missing when root; otherwise prints the command and stops.
deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "runner needs Debian packages that are not installed. Run:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BUILD_DIR)/runner sweep scripts/seed.lua

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Not part of `make test`: throughput ratios against references measured in
# the same run, printed with PASS/MISS (docs/performance.md). Takes minutes;
# BENCH_FLAGS=--quick for a smoke run.
.PHONY: bench
bench: build
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
# reports, so ASan must let it through (handle_segv=0); the MPI test needs
# the slow unwinder to attribute Open MPI's leaks (see cmake/lsan.supp).
CHECKED_ASAN_OPTIONS = detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1
SANITIZER_ENV = ASAN_OPTIONS=$(CHECKED_ASAN_OPTIONS) UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/cmake/lsan.supp:print_suppressions=0 \
	OMPI_MCA_mca_base_component_disable_dlclose=1 RUNNER_NO_DLCLOSE=1
# A test hung under the sanitizers fails after this long (ctest's own default
# is 25 minutes); the slowest takes about a minute.
SANITIZE_CTEST = ctest --output-on-failure --timeout 300

test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DRUNNER_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) $(SANITIZE_CTEST) -j $(JOBS) -E '^e2e_test_(isolate|mpi)$$'
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) ASAN_OPTIONS=$(CHECKED_ASAN_OPTIONS):handle_segv=0 \
	  $(SANITIZE_CTEST) -R '^e2e_test_isolate$$'
	cd $(ASAN_BUILD_DIR) && $(SANITIZER_ENV) ASAN_OPTIONS=$(CHECKED_ASAN_OPTIONS):fast_unwind_on_malloc=0 \
	  $(SANITIZE_CTEST) -R '^e2e_test_mpi$$'

# Memcheck of the normal build: the walk-through sweep, and a sweep whose
# points fail (testkit fixture, two threads), which must still exit 1 (some
# points failed) with the failures stored. Memcheck's own exit status for an
# error is 99, so it cannot be taken for the runner's 1.
VALGRIND = valgrind --quiet --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes
FAILING_SWEEP = tests/fuzz/corpus/fuzz_script/testkit_failing_points.lua

test-valgrind: build
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
fuzz-build: deps
	cmake -S . -B $(FUZZ_BUILD_DIR) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DRUNNER_FUZZ=ON $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS)

fuzz-smoke: fuzz-build
	$(SANITIZER_ENV) sh tests/fuzz/smoke.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)
