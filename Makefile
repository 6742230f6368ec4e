# croqc on a Debian 12 machine, from a fresh clone:
#
#   make demo    install what is missing, build, show croqc on the examples
#   make test    install what is missing, build, run every test suite
#
# and, for working on croqc:
#
#   make build   configure (CMake + Ninja, clang) into build/ and build
#   make deps    install the Debian packages that are missing (apt-get)
#   make clean   remove build/
#   make fuzz    fuzz the front end, then the back end, for FUZZ_SECONDS (60) each, in
#                build-sanitize/, the build `make sanitize` uses (utils/run-fuzzer)
#   make sanitize  build croqc with ASan and UBSan in build-sanitize/, run the unit and lit
#                suites over it and generate the CPU suite's programs with it (utils/run-sanitized)
#
# Variables: BUILD_DIR (default build), BUILD_TYPE (Release), JOBS (nproc),
# TARGETS (what `make build` builds; default everything).
#
# Test suites: each suite is a target `test-NAME` that writes JUnit XML to
# $(RESULTS)/NAME.xml and exits non-zero on failure. To add one, write its
# target and append NAME to TEST_SUITES; `make test` runs them all and closes
# with one line, `test: N passed, M failed, K skipped` (utils/test-summary.py).
# Suites: unit (Catch2), lit (file tests), cpu (every example program built
# with --target=cpu and run, no GPU needed), cmake (the CMake package from a
# fresh install: find_package, croqc_add_kernels, depfile rebuilds), fuzz
# (both libFuzzer targets, one test case each).

SHELL := /bin/bash
.DEFAULT_GOAL := help

BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

CROQC := $(BUILD_DIR)/tools/croqc/croqc
LIT := python3 /usr/lib/llvm-14/build/utils/lit/lit.py
RESULTS := $(BUILD_DIR)/test-results
TEST_SUITES := unit lit cpu cmake fuzz
FUZZ_SECONDS ?= 60
# `make test` runs each fuzzer for at most FUZZ_RUNS_<target> inputs from
# libFuzzer seed FUZZ_SEED, starting from the seed inputs alone: the inputs
# are then the same on every machine, so what CI finds, the same command
# finds here (a slower machine stops at FUZZ_SECONDS, earlier in the same
# sequence). Its corpora are build-sanitize/fuzz-corpus-test/, emptied each
# run; `make fuzz` draws a new seed each run and keeps its corpora in
# build-sanitize/fuzz-corpus/.
FUZZ_SEED ?= 1
FUZZ_RUNS_fuzz_frontend ?= 20000
FUZZ_RUNS_fuzz_backend ?= 5000

# g++ (with libgomp) is the host compiler of `croqc --target=cpu`.
DEBIAN_PACKAGES := cmake ninja-build clang llvm-dev llvm-14-tools libfmt-dev libcli11-dev catch2 \
                   libclang-rt-14-dev zlib1g-dev libncurses-dev python3 g++

DEMO_FILE := examples/hello/identity.co
DEMO_ERRORS := examples/errors/diagnostics_tour.co
# Compiled and run at the end of the demo: on the GPU when there is one,
# otherwise on the CPU (--target=cpu).
DEMO_RUN := examples/hello/identity.co examples/sm86/hgemm_multiwarp_f32acc.co

FUZZ_TARGETS := fuzz_frontend fuzz_backend

.PHONY: help deps build test demo clean fuzz sanitize $(addprefix test-,$(TEST_SUITES))

help:
	@echo "make demo    install what is missing, build, show croqc on the examples"
	@echo "make test    install what is missing, build, run every test suite"
	@echo "make build   configure and build into $(BUILD_DIR)/"
	@echo "make deps    install the missing Debian packages"
	@echo "make clean   remove $(BUILD_DIR)/"
	@echo "make fuzz    fuzz the front end and the back end for FUZZ_SECONDS (default 60) each"
	@echo "make sanitize  unit and lit suites and the CPU suite's code over an ASan+UBSan croqc in build-sanitize/"

# apt-get runs only if a package is missing, `apt-get update` only then too,
# and sudo only when not root.
deps:
	@missing=""; \
	for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q '^install ok installed$$' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: every Debian package is installed"; exit 0; fi; \
	echo "deps: installing$$missing"; \
	sudo=""; if [ "$$(id -u)" != 0 ]; then sudo=sudo; fi; \
	$$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing

build:
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++; \
	fi
	cmake --build $(BUILD_DIR) -j $(JOBS) $(if $(TARGETS),--target $(TARGETS))

test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory build
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@for suite in $(TEST_SUITES); do \
	  echo "== test-$$suite"; \
	  $(MAKE) --no-print-directory test-$$suite || echo "== test-$$suite failed"; \
	done; \
	python3 utils/test-summary.py $(RESULTS) $(TEST_SUITES)

# Unit tests (Catch2), one ctest test per runner.
test-unit:
	cd $(BUILD_DIR) && ctest --output-on-failure --output-junit $(abspath $(RESULTS))/unit.xml

# File tests (lit + FileCheck) under test/lit; GPU tests are UNSUPPORTED without a GPU.
test-lit:
	$(LIT) -sv --param build_dir=$(BUILD_DIR) --xunit-xml-output=$(RESULTS)/lit.xml test/lit

# Every example program built with `croqc --target=cpu` and run on the CPU
# (test/cpu/run.sh): same self-checks as on the GPU, one test case each.
test-cpu:
	CROQC=$(CROQC) test/cpu/run.sh -j $(JOBS) --build-dir=$(BUILD_DIR)/cpu-tests --junit=$(RESULTS)/cpu.xml

# The CMake package (test/cmake/run.sh): `cmake --install` into a temporary
# prefix, then a consumer project with find_package(croqc) and
# croqc_add_kernels is configured, built and run on the CPU target, and
# rebuilt after an edit to a header that one of its `.co` files includes;
# then the same project with croqc's tree added by add_subdirectory.
# CMAKE_TEST_ARGS=--subdir-compiler adds the add_subdirectory build that
# compiles croqc itself (minutes).
test-cmake:
	test/cmake/run.sh --build-dir=$(BUILD_DIR) --junit=$(RESULTS)/cmake.xml $(CMAKE_TEST_ARGS)

# libFuzzer, each target of FUZZ_TARGETS for FUZZ_SECONDS (60), in the
# ASan+UBSan build that `make sanitize` uses too (build-sanitize/), for
# FUZZ_RUNS_<target> inputs from seed FUZZ_SEED (above), then a replay of test/fuzz/regressions/:
# fuzz_frontend (preprocess to sema), fuzz_backend (through lowering and
# codegen, with compile checks of the generated code).
test-fuzz:
	@status=0; cases=''; \
	declare -A runs=([fuzz_frontend]=$(FUZZ_RUNS_fuzz_frontend) [fuzz_backend]=$(FUZZ_RUNS_fuzz_backend)); \
	for target in $(FUZZ_TARGETS); do \
	  one=0; FUZZ_TARGETS=$$target BUILD_DIR=build-sanitize FUZZ_CORPUS_DIR=build-sanitize/fuzz-corpus-test FUZZ_FRESH=1 FUZZ_ARGS="-seed=$(FUZZ_SEED) -runs=$${runs[$$target]:--1} $(FUZZ_ARGS)" utils/run-fuzzer $(FUZZ_SECONDS) || one=$$?; \
	  if [ $$one -eq 0 ]; then failure=''; else failure='<failure message="utils/run-fuzzer failed"/>'; status=1; fi; \
	  cases="$$cases<testcase classname=\"fuzz\" name=\"$$target $(FUZZ_SECONDS)s\">$$failure</testcase>"; \
	done; \
	printf '<testsuite name="fuzz">%s</testsuite>\n' "$$cases" > $(RESULTS)/fuzz.xml; \
	exit $$status

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory build TARGETS=croqc
	@set -e; \
	croqc=$(CROQC); \
	bold=""; plain=""; if [ -t 1 ]; then bold=$$'\033[1m'; plain=$$'\033[0m'; fi; \
	step() { printf '\n%s== %s%s\n' "$$bold" "$$*" "$$plain"; }; \
	step "croqc --version"; \
	$$croqc --version; \
	step "croqc --list-passes          (the pipeline, in order)"; \
	$$croqc --list-passes; \
	step "croqc $(DEMO_FILE) --emit=tokens | head -n 12"; \
	$$croqc $(DEMO_FILE) --emit=tokens | head -n 12; \
	step "croqc $(DEMO_FILE) --emit=ast"; \
	$$croqc $(DEMO_FILE) --emit=ast; \
	step "croqc $(DEMO_FILE) --emit=sema   (symbols, types, symbolic shapes, kernels)"; \
	$$croqc $(DEMO_FILE) --emit=sema; \
	step "croqc $(DEMO_ERRORS) --emit=ast   (wrong on purpose: exit 1, every error reported)"; \
	status=0; $$croqc $(DEMO_ERRORS) --emit=ast || status=$$?; \
	[ $$status -eq 1 ] || { echo "demo: expected exit status 1, got $$status"; exit 1; }; \
	step "croqc $(DEMO_ERRORS) --emit=ast --diagnostics-format=json --error-limit=1"; \
	$$croqc $(DEMO_ERRORS) --emit=ast --diagnostics-format=json --error-limit=1 || true; \
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then \
	  where="on the GPU"; target=""; \
	else \
	  where="on the CPU (no GPU here, so through --target=cpu)"; target="--target=cpu"; \
	fi; \
	mkdir -p $(BUILD_DIR)/demo; \
	for file in $(DEMO_RUN); do \
	  exe=$(BUILD_DIR)/demo/$$(basename $$file .co); \
	  step "croqc $$file $$target -o $$exe && $$exe   ($$where)"; \
	  $$croqc $$file $$target -o $$exe; \
	  $$exe; \
	done; \
	echo; \
	echo "demo: done. croqc printed the stages of its front end (tokens, AST, sema) and every"; \
	echo "error of a wrong file, then compiled the programs above and ran them $$where."

# libFuzzer with ASan and UBSan over the front end, then the back end; keeps
# every crashing input in test/fuzz/regressions/ and replays them all.
fuzz:
	JOBS=$(JOBS) FUZZ_TARGETS="$(FUZZ_TARGETS)" utils/run-fuzzer $(FUZZ_SECONDS)

# croqc and the unit tests built with ASan and UBSan (-fno-sanitize-recover:
# the first report stops the process) in build-sanitize/, then the unit, lit
# and CPU suites over it (utils/run-sanitized says how reports are caught;
# CI runs it after `make test`).
sanitize:
	@$(MAKE) --no-print-directory deps
	JOBS=$(JOBS) utils/run-sanitized

clean:
	rm -rf $(BUILD_DIR)
