# locksim: two commands on a fresh Debian 12 machine.
#   make demo   installs what is missing, builds, runs the bundled scenarios,
#               ends by writing the comparison report and printing its path
#   make test   installs what is missing (Chromium too, for the report's
#               end-to-end test), builds, runs every test (ctest)
#   make bench  the benchmarks of issue 9 and their goals (timed by hand, not by CI)
#   make fuzz   the libFuzzer targets (tests/fuzz/), FUZZ_SECONDS (or FUZZ_RUNS inputs) each
BUILD ?= build
JOBS ?= 2
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=

.PHONY: all deps deps-browser deps-node configure build demo test test-long test-asan fuzz bench bench-build \
  screenshot install package clean

all: build

deps:
	@bash .ci/install-deps

# Headless Chromium and a font for the report's end-to-end test (label browser).
deps-browser:
	@bash .ci/install-deps --browser

# The Node lock libraries (ioredis, redlock, redis-semaphore), pinned, into
# the build folder: npm ci, never a global install.
deps-node:
	@bash .ci/install-node $(BUILD)/node

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS) -- --no-print-directory

demo: build
	@echo
	@echo "== the scenario library (F1-F17 and the workloads): every expectation, on the virtual Redis"
	@$(BUILD)/locksim run scenarios/
	@echo
	@echo "== one of them in detail: seed 000's 2:15 -> 2:21 story with a plain DEL release"
	@$(BUILD)/locksim run scenarios/f02-del-frees-other.json --algorithm set-nx-px-del \
	  --json $(BUILD)/f02-set-nx-px-del.json; test $$? -eq 1
	@echo "(result JSON: $(BUILD)/f02-set-nx-px-del.json)"
	@echo
	@echo "== and what it costs: a read-modify-write counter under the same kind of pause"
	@$(BUILD)/locksim run scenarios/w01-counter-lost-update.json --algorithm set-nx-px; test $$? -eq 1
	@$(BUILD)/locksim run scenarios/w01-counter-lost-update.json --algorithm fenced; test $$? -eq 1
	@echo
	@echo "== every variant against every scenario, and what search finds beyond the stories:"
	@echo "== the two matrices, and the report for a design review"
	@$(BUILD)/locksim compare --algorithms all --scenarios scenarios/ --search 200 --out $(BUILD)/report; test $$? -eq 1

# Every test but the long sweeps (ctest label "long"), which `make test-long`
# runs; that includes every bundled scenario on real servers (real-parity).
# The build is `make build`'s, made in steps by tests/ctest_side_by_side.sh,
# and each group of tests starts as soon as what it runs is built, while the
# rest compiles: the locksim binary, then the real-parity runs (one per
# scenario expectation, waiting on the wall clock most of the time)
# REAL_JOBS at a time and the tests that need only that binary (label cli)
# one at a time; real_tests, then its tests (label real) TEST_JOBS at a
# time; the rest, then the other tests, TEST_JOBS at a time.
CTEST_EXCLUDE ?= long
REAL_JOBS ?= 5
TEST_JOBS ?= 2
test: deps-browser deps-node configure
	@bash tests/ctest_side_by_side.sh $(BUILD) $(JOBS) $(TEST_JOBS) $(REAL_JOBS) '$(CTEST_EXCLUDE)'

# The long runs (label long): the differential test with 1 000 000 commands.
test-long: build
	@cd $(BUILD) && ctest --output-on-failure -L long

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer (the
# code at -O1 with line tables only: see LOCKSIM_SANITIZE in CMakeLists.txt), but
# the real-parity runs and the docs' commands (a minute of searching, which
# the unit tests cover under the sanitizers anyway): their real timings are
# not made for a sanitized build
# (the proxy, the servers and the hygiene tests still run under it). And
# not the browser test: what it adds to the compare CLI tests, which write
# report.html under the sanitizers, is Chromium's rendering, and it was the
# lane's slowest test (138 s of 452).
test-asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan BUILD_TYPE=RelWithDebInfo TEST_JOBS=$(JOBS) \
	  CMAKE_FLAGS=-DLOCKSIM_SANITIZE=ON CTEST_EXCLUDE='long|real-parity|docs|browser'

# Fuzzing (tests/fuzz/, docs/fuzzing.md): the targets built with Debian's
# clang as libFuzzer fuzzers under ASan + UBSan in build-fuzz, then each run
# for FUZZ_SECONDS (FUZZ_PARALLEL at a time) from its seed corpus; new inputs
# go to build-fuzz/corpus/, crashes to build-fuzz/artifacts/ (exit 1).
# CI runs each for a bounded time; every other build replays the corpus as
# the ctest fuzz_corpus.* (make test, make test-asan).
FUZZ_SECONDS ?= 60
# FUZZ_RUNS=N instead: N inputs a target from libFuzzer seed 1, as much work
# on a slow machine as on a fast one (CI).
FUZZ_RUNS ?=
FUZZ_PARALLEL ?= 1
FUZZ_TARGETS ?= scenario resp_request vredis_commands results_json adapter_reply
fuzz:
	@bash .ci/install-deps --fuzz
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -DLOCKSIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build-fuzz -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS)) -- --no-print-directory
	@bash tests/fuzz/run_fuzzers.sh build-fuzz $(if $(FUZZ_RUNS),runs:$(FUZZ_RUNS),$(FUZZ_SECONDS)) $(FUZZ_PARALLEL) $(FUZZ_TARGETS)

# Benchmarks (bench/): micro-benchmarks, then the driver that measures the
# peer (its own redis-server under redis-benchmark) in the same run, prints
# the table of goals and writes bench/results/<date>.json. Not part of
# `make test`; CI only builds it (bench-build) and runs each micro-benchmark
# for about a millisecond, so that it does not rot between runs by hand.
bench: deps-node bench-build
	@$(BUILD)/bench/locksim_bench

bench-build: build
	@cmake --build $(BUILD) -j$(JOBS) --target locksim_micro locksim_bench -- --no-print-directory

# docs/report.png, the README's picture of report.html, drawn by headless
# Chromium from `locksim compare` over the bundled scenarios.
screenshot: deps-browser build
	@bash tests/reports/report_browser_test.sh $(BUILD)/locksim . docs/report.png

# Installs locksim under PREFIX (default /usr/local): bin/locksim, its clock
# shim in lib/locksim, the adapters, bundled scenarios and schemas in
# share/locksim.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# A Debian package of the same, in $(BUILD): locksim_<version>_amd64.deb.
package: build
	@cd $(BUILD) && cpack -G DEB

clean:
	rm -rf build build-asan
