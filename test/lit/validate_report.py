"""Validate run reports (--report FILE) against docs/report.schema.json: the lit tests' check.

Usage: ``%python %S/../validate_report.py REPORT.json...`` in a RUN line.  Prints every error
(JSON path and message) of every report that does not validate and exits 1; exits 0 when all
do.  jsonschema (the ``test`` extra) is required: without it the check fails, it never passes
silently.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "report.schema.json"


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: validate_report.py REPORT.json...\n")
        return 2
    try:
        import jsonschema
    except ImportError:
        sys.stderr.write("validate_report.py: jsonschema is not installed (pip install -e '.[test]')\n")
        return 2
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    status = 0
    for name in argv:
        try:
            report = json.loads(Path(name).read_text())
        except (OSError, ValueError) as e:
            sys.stderr.write(f"{name}: cannot read the report: {e}\n")
            status = 1
            continue
        errors = sorted(validator.iter_errors(report), key=lambda e: [str(p) for p in e.absolute_path])
        for e in errors:
            absent = e.validator == "not" and e.validator_value == {}  # the schema's $defs/absent
            msg = "not in a report of this kind (see the schema's conditions)" if absent else e.message
            sys.stderr.write(f"{name}: {e.json_path}: {msg}\n")
        if errors:
            status = 1
        else:
            print(f"{name}: valid")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
