# stencilc -- the front door.  `make help` lists the targets.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
BUILD := build
# pytest workers (pytest-xdist, a test file per worker at a time): CI machines have 2 cores; 0 runs one process
PYTEST_JOBS ?= 2
# The tests' programs sleep at OpenMP barriers instead of spinning: two workers' programs share the cores,
# and a spinning thread takes the core its team-mate waits for (test_levels3 + test_faces in 2 workers:
# 42.3 s spinning, the default, against 28.6 s passive, alternated on the 2-core VM)
TEST_OMP_WAIT ?= passive
export PATH := $(CURDIR)/$(BIN):$(PATH)

.DEFAULT_GOAL := help
.PHONY: help setup demo test test-lit test-py test-c test-asan reliability lint format size grammar bench bench-full bench-ab bench-target clean

help: ## this list
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  make %-14s %s\n", $$1, $$2}'

setup: ## install Debian and Python packages, create .venv (idempotent)
	@tools/setup.sh

# The demo is what stencilc is for: a grid 8 times its DRAM budget, streamed through it in several
# sweeps (each reads back what the last one wrote), with the bytes the IO model predicts.
DEMO_SIZE := 256,256,256
DEMO_STEPS := 30
DEMO_MEM := 16M

demo: setup ## compile examples/heat3d.stn and run it out of core: a 128 MiB grid in a 16 MiB DRAM budget
	@mkdir -p $(BUILD)/demo
	$(BIN)/stencilc examples/heat3d.stn -o $(BUILD)/demo/heat3d
	@echo "demo: heat3d on a $(DEMO_SIZE) f64 grid (128 MiB) with a DRAM budget of $(DEMO_MEM) (--mem, 1/8 of" \
		"the grid): out of core, its scratch files in $(BUILD)/demo"
	$(BUILD)/demo/heat3d --size $(DEMO_SIZE) --steps $(DEMO_STEPS) --mem $(DEMO_MEM) --dir $(BUILD)/demo \
		--out u=$(BUILD)/demo/u.npy --report $(BUILD)/demo/report.json
	@$(BIN)/python tools/summarize_report.py $(BUILD)/demo/report.json

test: setup lint test-c test-lit test-py ## run every test (what CI runs)

test-lit: ## lit + FileCheck: every --emit stage and every diagnostic
	$(BIN)/lit -sv test/lit

test-py: ## pytest: numerics against NumPy references, the runtime end to end (PYTEST_JOBS workers, 0: one process)
	OMP_WAIT_POLICY=$(TEST_OMP_WAIT) $(BIN)/python -m pytest -q test/python --durations=25 -n $(PYTEST_JOBS) --dist loadfile

test-c: ## the C runtime's own tests, through CTest
	cmake -S . -B $(BUILD)/cmake -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD)/cmake
	ctest --test-dir $(BUILD)/cmake --output-on-failure

# Sanitizers: the runtime and every program the tests build (STENCILC_CFLAGS reaches the cached runtime
# library too, kept apart in STENCILC_CACHE_DIR); the tests that run the engines.  (test_embed and
# test_import link C hosts of their own with plain flags, so they stay out.)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_TESTS := test_ooc test_periodic test_points test_grid1d test_time test_time_tiles test_substeps \
	test_examples test_hostile test_tune test_runtime_layers test_reference test_report_schema

test-asan: setup ## the C runtime's tests and the engines' tests under ASan + UBSan (about 15 minutes)
	cmake -S . -B $(BUILD)/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="$(SAN)" \
		-DCMAKE_EXE_LINKER_FLAGS="$(SAN)" >/dev/null
	cmake --build $(BUILD)/asan
	ASAN_OPTIONS=detect_leaks=1 ctest --test-dir $(BUILD)/asan --output-on-failure
	STENCILC_CFLAGS="$(SAN)" STENCILC_CACHE_DIR=$(CURDIR)/$(BUILD)/asan/stencilc-cache \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(BIN)/python -m pytest -q $(ASAN_TESTS:%=test/python/%.py)

reliability: setup ## the fault campaign (root, about 45 minutes): writes docs/reliability.md
	$(BIN)/python tools/reliability.py --profile full --report docs/reliability.md

# every C file of the runtime: its headers, its sources in src/'s folders, its tests, tools and fuzzers
RUNTIME_C = $(shell find runtime/include runtime/src runtime/tests runtime/tools runtime/fuzz -name '*.[ch]' | sort)

lint: ## ruff on the Python, clang-format check on the runtime
	$(BIN)/ruff check compiler test bench tools examples
	clang-format-15 --dry-run --Werror $(RUNTIME_C)

format: ## apply ruff's and clang-format's fixes
	$(BIN)/ruff check --fix compiler test bench tools examples
	clang-format-15 -i $(RUNTIME_C)

size: ## the size gate's offenders: files over 800 lines, functions over 100 (test_size_gate.py holds the ratchet)
	$(BIN)/python tools/size_gate.py

grammar: ## regenerate the ANTLR parser from grammar/Stencil.g4 (needs java)
	tools/gen-parser.sh

bench: setup ## the quick benchmark profile (~22 min, root): report and plots in build/bench/quick
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m bench --profile quick

bench-full: setup ## the full profile (about two hours, root): writes docs/benchmarks.md and docs/bench/*.png
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m bench --profile full --out docs/bench --report docs/benchmarks.md

bench-ab: setup ## this tree against another, side by side (root; BEFORE=path/to/tree, PAIRS=3): python -m bench.ab
	$(BIN)/python -m bench.ab --before $(BEFORE) --after . --pairs $(or $(PAIRS),3)

bench-target: setup ## issue 30's targets (root, ~25 min): long run and box27, out of core (new machine / probed) vs in-core
	$(BIN)/python -m bench.target --pairs $(or $(PAIRS),3)

clean: ## remove build outputs (keeps .venv)
	rm -rf $(BUILD)
