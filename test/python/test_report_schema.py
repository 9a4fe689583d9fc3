"""docs/report.schema.json: the schema of the run report (--report FILE, runtime/src/report/report.c).

* The schema is a valid draft 2020-12 schema, and every property in it says what it is.
* A report of every kind validates: in-core, mmap, out-of-core with whole planes, y-blocked with
  the z-strip in a file, 2d, --plan-only and --plan-only --machine; each case also checks that
  the run really was of that kind (the keys that tell them apart).
* The schema can fail: an extra key, a missing key, a negative byte count, a wrong mode, and the
  mode-dependent keys out of place are each rejected, and so is a bad report on disk, by
  load_report and by the safety net that looks for reports left in tmp_path.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPORT_SCHEMA, load_report, report_errors, run_reports_under

REPO = Path(__file__).resolve().parents[2]
CREST4 = REPO / "examples" / "machines" / "crest4.json"


def test_the_schema_is_a_valid_2020_12_schema():
    schema = json.loads(REPORT_SCHEMA.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_property_has_a_description():
    schema = json.loads(REPORT_SCHEMA.read_text())
    missing = []

    def walk(node: dict, where: str) -> None:
        for key, sub in node.get("properties", {}).items():
            if not sub.get("description"):
                missing.append(f"{where}.{key}")
            walk(sub, f"{where}.{key}")

    walk(schema, "$")
    for name, sub in schema["$defs"].items():
        walk(sub, f"$defs.{name}")
    assert not missing, f"properties without a description: {missing}"


# ------------------------------------------------------------------ every kind of report validates


def _incore(r, tmp):
    assert r["mode"] == "incore" and r["schedule"] is None and r["tuner"] is None
    assert "strip" not in r and "dio" not in r and "paging_bytes_read" not in r
    assert r["out_files"] == {"u": str(tmp / "u.npy")}


def _incore_warned(r, tmp):
    assert r["mode"] == "incore" and any("--tuner only affects" in w for w in r["warnings"]), r["warnings"]


def _ooc_planes(r, tmp):
    assert r["mode"] == "ooc" and r["tuner"] == "manual" and r["strip"] == "none"
    assert r["params"]["by"] == 20 and "tune" not in r and r["dio"]["align"] >= 1
    assert "peak_pss_bytes" in r and r["bytes_read"] == r["predicted_bytes_read"]


def _ooc_strip_file(r, tmp):
    assert r["mode"] == "ooc" and r["strip"] == "file" and r["params"]["by"] == 16 < r["size"][1]


def _ooc_tuned(r, tmp):
    assert r["mode"] == "ooc" and r["tuner"] == "blk" and r["tune"]["plans_weighed"] >= 1
    assert r["mem_budget_source"] == "--mem"


def _ooc_2d(r, tmp):
    assert r["size"] == [50, 40] and r["params"]["bz"] is None and r["params"]["iz"] is None
    assert r["halo"] == {"lo": [1, 1], "hi": [1, 1], "reach_lo": [1, 1], "reach_hi": [1, 1]} and r["strip"] == "none"


def _mmap(r, tmp):
    assert r["mode"] == "mmap" and "paging_bytes_read" in r and "paging_bytes_written" in r


def _plan_only(r, tmp):
    assert r["mode"] == "ooc" and r["tuner"] == "blk" and "tune" in r and "peak_pss_bytes" not in r
    assert r["bytes_read"] == r["bytes_written"] == 0 and r["hardware"]["machine"] == "this machine"


def _plan_only_machine(r, tmp):
    hw = r["hardware"]
    assert hw["machine"] == "crest4" and "description" in hw and hw["threads"]["value"] == 16
    assert "mem_available_bytes" not in hw and hw["device_block_bytes"]["value"] == 4096


CASES = {
    "incore": ("heat3d", ["--mode", "incore", "--size", "24,20,16", "--steps", "3", "--out", "u={tmp}/u.npy"],
               _incore),
    "incore-warned": ("heat3d", ["--mode", "incore", "--size", "12,10,8", "--steps", "1", "--tuner", "blk"],
                      _incore_warned),
    "ooc-whole-planes": ("heat3d", ["--size", "24,20,16", "--steps", "3", "--block", "20,4,2", "--dir", "{tmp}"],
                         _ooc_planes),
    "ooc-y-blocked-strip-file": ("heat3d", ["--size", "64,64,48", "--steps", "4", "--block", "16,8,2", "--strip",
                                            "file", "--dir", "{tmp}"], _ooc_strip_file),
    "ooc-tuned": ("heat3d", ["--size", "64,64,48", "--steps", "4", "--mem", "3M", "--dir", "{tmp}"], _ooc_tuned),
    "ooc-2d": ("jacobi2d", ["--size", "50,40", "--steps", "3", "--block", "10,2", "--dir", "{tmp}"], _ooc_2d),
    "mmap": ("heat3d", ["--mode", "mmap", "--size", "24,20,16", "--steps", "3", "--dir", "{tmp}"], _mmap),
    "plan-only": ("heat3d", ["--size", "64,64,64", "--steps", "4", "--plan-only", "--dir", "{tmp}"], _plan_only),
    "plan-only-machine": ("heat3d", ["--size", "2048,2048,2048", "--steps", "500", "--plan-only", "--machine",
                                     str(CREST4)], _plan_only_machine),
}


@pytest.mark.parametrize("case", list(CASES))
def test_report_validates(case, compile_example, run_program, tmp_path):
    name, args, check = CASES[case]
    args = [a.format(tmp=tmp_path) for a in args] + ["--quiet", "--report", str(tmp_path / "r.json")]
    rc, out, err = run_program(compile_example(name), args)
    assert rc == 0, f"{name} {' '.join(args)}\n{out}{err}"
    check(load_report(tmp_path / "r.json"), tmp_path)


# ------------------------------------------------------------------ and the schema can fail


@pytest.fixture(scope="module")
def reports(compile_example, run_program, tmp_path_factory) -> dict[str, dict]:
    """One valid report of each mode, and one of --plan-only --machine."""
    tmp = tmp_path_factory.mktemp("report-schema")
    out = {}
    for key, args in (("incore", ["--mode", "incore"]), ("mmap", ["--mode", "mmap"]),
                      ("ooc", ["--block", "20,4,2"]), ("machine", ["--plan-only", "--machine", str(CREST4)])):
        path = tmp / f"{key}.json"
        rc, o, e = run_program(compile_example("heat3d"), ["--size", "24,20,16", "--steps", "2", "--dir", str(tmp),
                                                           "--quiet", "--report", str(path), *args])
        assert rc == 0, o + e
        out[key] = load_report(path)
    return out


def _set(path: str, value):
    """A mutation that sets the key at `path` (dots between keys) to `value`."""

    def mutate(r: dict) -> None:
        *parents, last = path.split(".")
        for k in parents:
            r = r[k]
        r[last] = value

    return mutate


def _del(path: str):
    def mutate(r: dict) -> None:
        *parents, last = path.split(".")
        for k in parents:
            r = r[k]
        del r[last]

    return mutate


# (the report mutated, the mutation, the JSON path of an error it must cause[, words of its message])
BROKEN = {
    "extra-top-level-key": ("incore", _set("surprise", 1), "$", "'surprise' was unexpected"),
    "missing-required-key": ("incore", _del("bytes_read"), "$", "'bytes_read' is a required property"),
    "negative-byte-count": ("incore", _set("bytes_read", -1), "$.bytes_read"),
    "fractional-byte-count": ("ooc", _set("mem_plan_bytes", 1.5), "$.mem_plan_bytes"),
    "wrong-mode": ("incore", _set("mode", "tpu"), "$.mode"),
    "gpu-mode-without-its-copies": ("incore", _set("mode", "gpu"), "$", "'gpu' is a required property"),
    "wrong-schedule": ("ooc", _set("schedule", "alg3"), "$.schedule"),
    "wrong-tuner": ("ooc", _set("tuner", "magic"), "$.tuner"),
    "wrong-strip": ("ooc", _set("strip", "disk"), "$.strip"),
    "zero-block": ("ooc", _set("params.by", 0), "$.params.by"),
    "extra-params-key": ("ooc", _set("params.bx", 4), "$.params", "'bx' was unexpected"),
    "negative-seconds": ("incore", _set("seconds.compute", -0.5), "$.seconds.compute"),
    "extra-phase": ("incore", _set("seconds.sleep", 0.0), "$.seconds", "'sleep' was unexpected"),
    "missing-phase": ("incore", _del("seconds.wait"), "$.seconds", "'wait' is a required property"),
    "figure-without-source": ("incore", _del("hardware.cores.source"), "$.hardware.cores"),
    "figure-as-a-number": ("incore", _set("hardware.l2_bytes", 524288), "$.hardware.l2_bytes"),
    "extra-hardware-key": ("incore", _set("hardware.gpus", {"value": 1, "source": "x"}), "$.hardware",
                           "'gpus' was unexpected"),
    "warning-not-a-string": ("incore", _set("warnings", [1]), "$.warnings[0]"),
    "size-of-one": ("incore", _set("size", [24]), "$.size"),
    "size-of-zero-cells": ("incore", _set("size", [24, 0, 16]), "$.size[1]"),
    "halo-of-2d-in-3d": ("incore", _set("halo.lo", [1, 1]), "$.halo.lo"),
    "out-file-not-a-string": ("incore", _set("out_files", {"u": 3}), "$.out_files.u"),
    "out-file-bad-name": ("incore", _set("out_files", {"u=v": "x.npy"}), "$.out_files"),
    "incore-with-a-schedule": ("incore", _set("schedule", "ref"), "$.schedule"),
    "incore-with-blocks": ("incore", _set("params.by", 4), "$.params.by"),
    "incore-with-a-strip": ("incore", _set("strip", "none"), "$.strip"),
    "incore-with-paging": ("incore", _set("paging_bytes_read", 0), "$.paging_bytes_read"),
    "mmap-without-paging": ("mmap", _del("paging_bytes_written"), "$", "'paging_bytes_written' is a required"),
    "ooc-without-dio": ("ooc", _del("dio"), "$", "'dio' is a required property"),
    "ooc-without-a-tuner": ("ooc", _set("tuner", None), "$.tuner"),
    "tuned-without-tune": ("machine", _del("tune"), "$", "'tune' is a required property"),
    "manual-with-tune": ("ooc", _set("tune", {"predicted_bytes": 0, "plans_weighed": 1, "seconds": 0.0}), "$.tune"),
    "machine-with-a-discovered-figure": ("machine", _set("hardware.mem_available_bytes",
                                                        {"value": 1, "source": "x"}), "$.hardware.mem_available_bytes"),
    "discovered-named-otherwise": ("incore", _set("hardware.machine", "crest4"), "$.hardware.machine"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_report_is_rejected(case, reports):
    which, mutate, where, *words = BROKEN[case]
    r = copy.deepcopy(reports[which])
    assert not report_errors(r)
    mutate(r)
    errors = report_errors(r)
    assert errors, f"{case}: the schema accepted it"
    assert any(e.startswith(where + ": ") and all(w in e for w in words) for e in errors), \
        f"{case}: no error at {where} {words}: {errors}"


def test_load_report_and_the_safety_net_reject_a_bad_report_on_disk(reports, tmp_path_factory):
    # not tmp_path: the safety net would (rightly) fail this test for the bad report left there
    d = tmp_path_factory.mktemp("bad-report")
    bad = copy.deepcopy(reports["ooc"])
    bad["bytes_written"] = -8
    (d / "sub").mkdir()
    (d / "sub" / "r.json").write_text(json.dumps(bad))
    (d / "ok.json").write_text(json.dumps(reports["incore"]))
    (d / "other.json").write_text(json.dumps({"mode": "not a run report"}))
    (d / "broken.json").write_text("{")
    with pytest.raises(pytest.fail.Exception, match=r"\$\.bytes_written: -8 is less than the minimum of 0"):
        load_report(d / "sub" / "r.json")
    with pytest.raises(pytest.fail.Exception, match="is not JSON"):
        load_report(d / "broken.json")
    found = {p.relative_to(d).as_posix(): report_errors(r) for p, r in run_reports_under(d)}
    assert set(found) == {"sub/r.json", "ok.json"}
    assert found["ok.json"] == [] and found["sub/r.json"]
