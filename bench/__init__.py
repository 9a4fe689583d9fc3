"""stencilc's benchmark runner: `python -m bench --profile quick|full` (see bench/runner.py)."""
