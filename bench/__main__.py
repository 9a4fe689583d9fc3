"""`python -m bench`: the benchmark runner (bench/runner.py)."""

from bench.runner import main

raise SystemExit(main())
