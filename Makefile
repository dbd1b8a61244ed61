# Thin driver around CMake (Neovim style): `make demo` and `make test` work on
# a fresh Debian 12 clone. Every package runner, its plugins and its tests
# need is listed here and nowhere else.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

DEB_PACKAGES := cmake make gcc pkg-config git \
	libsqlite3-dev sqlite3 liblua5.4-dev libcurl4-openssl-dev libssl-dev \
	libjansson-dev libopenblas-dev libxxhash-dev python3 gnuplot-nox chromium

.PHONY: all deps configure build demo test install clean

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

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
