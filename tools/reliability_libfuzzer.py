"""The reliability campaign's libFuzzer part (tools/reliability.py --parts libfuzzer): runtime/fuzz/fuzz_npy.c
and fuzz_args.c built with clang-15's libFuzzer under ASan + UBSan against the runtime's sources, run from
seed corpora (and the corpus earlier campaigns left in build/reliability/libfuzzer).

Expects: clang-15 (``make setup`` installs it), the runtime's sources, numpy.  Guarantees: ``part_libfuzzer``
returns the campaign's part record (tried, failed, rows, notes, command); a crash, a sanitizer report or a
non-zero exit of a harness counts as a failure, its artifact kept under build/reliability/libfuzzer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build" / "reliability"

FUZZ_CC = "clang-15"
FUZZ_FLAGS = ["-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined",
              "-fno-omit-frame-pointer"]
FUZZ_PROGRAMS = ("jacobi1d", "fdtd2d", "wave3d")  # fuzz_args.c's descriptors: 1d, 2d, 3d


def _compile(src: Path, obj: Path, flags: list[str]) -> Path:
    subprocess.run([FUZZ_CC, *flags, "-c", str(src), "-o", str(obj)], check=True, capture_output=True, text=True)
    return obj


def _fuzzers() -> dict[str, Path]:
    """runtime/fuzz/fuzz_npy.c and fuzz_args.c, built with clang's libFuzzer and ASan + UBSan against the
    runtime's sources (fuzz_args.c also against three generated programs' descriptors).  The runtime's
    objects are compiled once for both harnesses, on every core (`-fsanitize=fuzzer-no-link`: instrumented
    for coverage, the harness's link brings libFuzzer's main)."""
    from concurrent.futures import ThreadPoolExecutor

    out = BUILD / "libfuzzer"
    gen, objs = out / "gen", out / "obj"
    objs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO / "compiler"))
    for name in FUZZ_PROGRAMS:
        subprocess.run([sys.executable, "-m", "stencilc", str(REPO / "examples" / f"{name}.stn"), "--emit=c", "-o",
                        str(gen / name)], check=True, env=env)
    src_dir = REPO / "runtime" / "src"
    inc = ["-I", str(REPO / "runtime" / "include"), "-I", str(src_dir)]
    flags = [f.replace("fuzzer,", "fuzzer-no-link,") for f in FUZZ_FLAGS] + inc
    jobs = [(p, objs / (str(p.relative_to(src_dir)).replace("/", "__") + ".o"), flags) for p in sorted(src_dir.rglob("*.c"))]
    jobs += [(gen / n / f"{n}{part}.c", objs / f"gen__{n}{part}.o", [*flags, "-I", str(gen / n)])
             for n in FUZZ_PROGRAMS for part in ("", "_api")]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        built = list(pool.map(lambda j: _compile(*j), jobs))
    runtime = [str(o) for o in built if not o.name.startswith("gen__")]
    progs = [str(o) for o in built if o.name.startswith("gen__")]
    libs = ["-laio", "-lhwloc", "-lpmem", "-lm", "-lpthread"]
    exes = {}
    for harness, extra in (("npy", []), ("args", progs)):
        exe = out / f"fuzz_{harness}"
        subprocess.run([FUZZ_CC, *FUZZ_FLAGS, *inc, str(REPO / "runtime" / "fuzz" / f"fuzz_{harness}.c"), *extra, *runtime,
                        "-o", str(exe), *libs], check=True, capture_output=True, text=True)
        exes[harness] = exe
    return exes


def _fuzz_seeds(exe_help: list[Path]) -> dict[str, tuple[Path, Path]]:
    """Seed corpora and dictionaries: .npy files of every kind the runtime reads (f8 and f4 grids of 1 to 3
    axes, int64 and int32 points, a Fortran-order array, format versions 2.0 and 3.0, an empty array), and
    command lines of each program; the options of every program's --help as the arguments' dictionary."""
    out = BUILD / "libfuzzer" / "seeds"
    npy, args = out / "npy", out / "args"
    npy.mkdir(parents=True, exist_ok=True)
    args.mkdir(parents=True, exist_ok=True)
    arrays = {"grid3": np.zeros((4, 3, 2)), "grid2": np.ones((5, 3), "<f4"), "grid1": np.arange(7.0),
              "points": np.array([[1, 2], [3, 1]], "<i8"), "points32": np.array([[1], [5]], "<i4"),
              "fortran": np.asfortranarray(np.zeros((3, 4))), "empty": np.zeros((0,)), "big": np.zeros((300,))}
    for name, a in arrays.items():
        np.save(npy / f"{name}.npy", a)
    for version in ((2, 0), (3, 0)):
        with open(npy / f"v{version[0]}.npy", "wb") as f:
            np.lib.format.write_array(f, np.zeros((2, 3)), version=version)
    lines = {0: [["--size", "100", "--steps", "5", "--block", "600,3", "--mem", "12M"],
                 ["--size", "30", "--mode", "incore", "--time-tiles", "3", "--out", "A=a.npy"]],
             1: [["--size", "64,64", "--steps", "10", "--mode", "ooc", "--block", "5,3", "--init", "fict=f.npy"],
                 ["--size", "20,18", "--param", "c=0.5", "--schedule", "alg1", "--tuner", "naive", "--resume"],
                 ["--size", "64,64", "--steps", "2", "--block", "5,99999999", "--param", "c=1e-310", "--ranks", "2,1"]],
             2: [["--size", "8,8,8", "--init", "u=x.npy", "--init", "u.prev=p.npy", "--block", "8,4,2", "--strip",
                  "file"], ["--size", "16,14,12", "--iblock", "4,4", "--threads", "2", "--report", "r.json"],
                 ["--size", "16,14,12", "--steps", "3", "--block", "16,4,9223372036854775807", "--time-tiles",
                  "8,8,18446744073709551616", "--mem", "16E", "--plan_only", "--report", "/dev/null"]]}
    for k, ls in lines.items():
        for i, line in enumerate(ls):
            (args / f"p{k}_{i}").write_bytes(bytes([k]) + b"\0".join(a.encode() for a in line))
    words = set()
    for exe in exe_help:
        p = subprocess.run([str(exe), "--help"], capture_output=True, text=True)
        words |= {w for w in p.stdout.replace(",", " ").replace("=", " ").split() if w.startswith("--")}
    words |= {"ooc", "incore", "mmap", "ref", "alg1", "alg2", "dram", "file", "auto", "off", "1G", "64,64,64", "u.prev",
              "99999999", "9223372036854775807", "18446744073709551616", "1e-310", "1e-400", "/dev/null"}
    d = out / "args.dict"
    d.write_text("".join(f"{json.dumps(w)}\n" for w in sorted(words)))
    return {"npy": (npy, out / "none.dict"), "args": (args, d)}


def _fuzz(harness: str, exe: Path, seeds: tuple[Path, Path], seconds: int) -> dict:
    """One harness for `seconds` from its seeds and the corpus earlier campaigns left: its row of the part."""
    import re

    corpus = BUILD / "libfuzzer" / f"corpus-{harness}"  # kept between campaigns: the fuzzer goes on from it
    crashes = BUILD / "libfuzzer" / f"crashes-{harness}"
    corpus.mkdir(parents=True, exist_ok=True)
    crashes.mkdir(parents=True, exist_ok=True)
    seed_dir, dic = seeds
    cmd = [str(exe), f"-max_total_time={seconds}", "-print_final_stats=1", "-timeout=10", "-rss_limit_mb=2048",
           f"-artifact_prefix={crashes}/", *([f"-dict={dic}"] if dic.exists() else []), str(corpus), str(seed_dir)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 300, cwd=BUILD / "libfuzzer")
    (BUILD / "libfuzzer" / f"fuzz_{harness}.log").write_text(p.stderr[-200_000:])
    stat = dict(re.findall(r"stat::(\w+):\s+(\d+)", p.stderr))
    cov = re.findall(r"cov: (\d+) ft: (\d+)", p.stderr)
    return {"harness": harness, "execs": int(stat.get("number_of_executed_units", 0)),
            "per_second": int(stat.get("average_exec_per_sec", 0)),
            "cov": int(cov[-1][0]) if cov else 0, "features": int(cov[-1][1]) if cov else 0,
            "corpus": len(list(corpus.iterdir())), "seconds": seconds, "exit": p.returncode,
            "artifacts": sorted(x.name for x in crashes.iterdir())}


def part_libfuzzer(profile: str) -> dict:
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    if not shutil.which(FUZZ_CC):
        return {"part": "libfuzzer", "tried": 0, "failed": 1, "notes": [f"{FUZZ_CC} is missing: make setup installs it"]}
    seconds = 300 if profile == "full" else 10
    exes = _fuzzers()
    helps = []
    env = dict(os.environ, PYTHONPATH=str(REPO / "compiler"))
    for name in FUZZ_PROGRAMS:
        exe = BUILD / "libfuzzer" / name
        subprocess.run([sys.executable, "-m", "stencilc", str(REPO / "examples" / f"{name}.stn"), "-o", str(exe)],
                       check=True, env=env)
        helps.append(exe)
    seeds = _fuzz_seeds(helps)
    with ThreadPoolExecutor(max_workers=len(exes)) as pool:  # the harnesses side by side, each its own seconds
        rows = list(pool.map(lambda h: _fuzz(h, exes[h], seeds[h], seconds), exes))
    notes = [f"fuzz_{r['harness']}: exit {r['exit']}, artifacts {r['artifacts']}; the log: "
             f"build/reliability/libfuzzer/fuzz_{r['harness']}.log" for r in rows if r["exit"] != 0 or r["artifacts"]]
    return {"part": "libfuzzer", "tried": sum(r["execs"] for r in rows), "failed": len(notes), "rows": rows,
            "notes": notes,
            "command": f"python tools/reliability.py --parts libfuzzer --profile {profile} (the two harnesses side "
                       f"by side, {seconds} s each: build/reliability/libfuzzer/fuzz_npy -max_total_time={seconds} "
                       "CORPUS SEEDS)"}
