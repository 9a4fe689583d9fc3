# stencilc -- the front door.  `make help` lists the targets.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
BUILD := build
export PATH := $(CURDIR)/$(BIN):$(PATH)

.DEFAULT_GOAL := help
.PHONY: help setup demo test test-lit test-py test-c lint format grammar bench-incore bench-ooc bench-tuners clean

help: ## this list
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  make %-14s %s\n", $$1, $$2}'

setup: ## install Debian and Python packages, create .venv (idempotent)
	@tools/setup.sh

demo: setup ## compile examples/heat3d.stn and run it (the main job)
	@mkdir -p $(BUILD)/demo
	$(BIN)/stencilc examples/heat3d.stn -o $(BUILD)/demo/heat3d
	$(BUILD)/demo/heat3d --size 256,256,256 --steps 50 --dir $(BUILD)/demo \
		--out u=$(BUILD)/demo/u.npy --report $(BUILD)/demo/report.json
	@$(BIN)/python tools/summarize_report.py $(BUILD)/demo/report.json

test: setup lint test-c test-lit test-py ## run every test (what CI runs)

test-lit: ## lit + FileCheck: every --emit stage and every diagnostic
	$(BIN)/lit -sv test/lit

test-py: ## pytest: numerics against NumPy references, the runtime end to end
	$(BIN)/python -m pytest -q test/python

test-c: ## the C runtime's own tests, through CTest
	cmake -S . -B $(BUILD)/cmake -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD)/cmake
	ctest --test-dir $(BUILD)/cmake --output-on-failure

lint: ## ruff on the Python, clang-format check on the runtime
	$(BIN)/ruff check compiler test bench tools examples
	clang-format-15 --dry-run --Werror runtime/include/*.h runtime/src/*.[ch] runtime/tests/*.c

format: ## apply ruff's and clang-format's fixes
	$(BIN)/ruff check --fix compiler test bench tools examples
	clang-format-15 -i runtime/include/*.h runtime/src/*.[ch] runtime/tests/*.c

grammar: ## regenerate the ANTLR parser from grammar/Stencil.g4 (needs java)
	tools/gen-parser.sh

bench-incore: setup ## heat3d 512^3 in-core: stencilc vs a hand-written OpenMP loop
	$(BIN)/python bench/incore_vs_handwritten.py

bench-ooc: setup ## heat3d under a memory cgroup at 8x and 16x: ooc vs incore vs mmap (root, ~25 min)
	$(BIN)/python bench/ooc_vs_incore.py

bench-tuners: setup ## heat3d at 8x the budget under a cgroup: Blk-Tune vs Naive-Tune vs manual blocks (root, ~10 min)
	$(BIN)/python bench/tuners.py

clean: ## remove build outputs (keeps .venv)
	rm -rf $(BUILD)
