#!/usr/bin/env python3
"""A grammar-aware fuzzer for the .stn compiler (issue 16, part 5), run in-process.

Seeds: every examples/*.stn, every .stn of test/lit (valid and invalid), and random valid programs
(test_ooc.random_stencil).  Each input is a seed with one to three mutations over its tokens:
deletions, duplications, swaps, numbers replaced by extreme ones (400 digits, 1e400, 2^31),
names replaced by keywords, C keywords, libc names, long, unicode or shell-laden ones, deep
parentheses and unary minuses, huge sums and tables, stray characters, truncations, lines
spliced from another seed; and declared names renamed, every use with them, to names C or the
generated code reserve (``rename_declared``: every C11 keyword, ``__func__``, ``__y``, ``_X``,
``main``, libc's names and macros, C++ keywords, the runtime's ``stn_`` names, and the names the
generated C makes of the stencil's and the fields' names), for every kind of declaration: the
stencil, params, fields, series, points, records, tables, lets and sum indices.

Each input runs through the compiler's passes (parse, check, lower, generate) in a worker
process, in a thread with the CLI's stack and recursion limit; the parent kills a worker that
takes longer than --timeout seconds (a hang).  An input may be accepted (C generated) or refused
with a CompileError; it fails the campaign if it raises anything else (a traceback), hangs, or
is refused with a diagnostic that has no FILE:LINE:COL.  --compile N sends the C of N accepted
inputs through the C compiler (-c, the default flags): each must compile.

    python tools/fuzz_stn.py --inputs 100000 --seed 1 --compile 300 --json build/fuzz.json

prints a summary and exits 1 if anything failed; failing inputs are saved in --save-dir.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "compiler"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_tokens import shared_mutation  # noqa: E402

# (the grammar's operators of two characters are one token each, as its lexer reads them)
TOKEN = re.compile(r"//[^\n]*|\s+|[A-Za-z_][A-Za-z_0-9]*|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
                   r"|\.\.|<=|>=|==|!=|&&|\|\||\+=|.", re.S)
NUMBERS = ["0", "-1", "1e400", "1e-400", "9" * 400, "2147483648", "0.5", "1e308", "65", "100000", "3", "-0",
           "0x10", "1.", ".5", "1e", "00007"]
NAMES = ["sum", "in", "table", "let", "t", "x", "y", "z", "nx", "prev", "state", "int", "typeof", "asm", "__int128",
         "main", "NAN", "M_PI", "int64_t", "_X", "__x", "errno", "linux", "a" * 300, "\u00fc", "\u53d8\u91cf",
         "a;rm", "u", "v", "w", "exp", "sin", "min", "boundary", "periodic", "neumann", "along", "points", "inject",
         "floor", "fmod", "atan2", "fmax", "hypot", "ny"]
# names C, its library, C++, the runtime or the generated code reserve (issue 28: 'let __y' was an internal error)
RESERVED = ("auto break case char const continue default do double else enum extern float for goto if inline int long "
            "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile "
            "while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert "
            "_Thread_local __func__ __x __y _X _x __ main printf errno stdin stdout stderr EOF NULL I M_PI EINVAL "
            "INT64_MAX exit malloc memcpy j0 y1 class new bool true linux unix asm typeof stn stn_error stn_sim_open "
            "stn_rt math string omp clean kernels c src dst row rc p v box whole balance_tiles_ bx0_ snx_ sxo_ "
            "params_ default_tiles_ omp_get_max_threads").split()
DECLARES = {"stencil", "param", "state", "input", "series", "points", "record", "table", "let"}
INSERTS = ["(", ")", "[", "]", "{", "}", ",", ";", "'", "+", "-", "*", "/", "^", "=", ".", "..", "u", "1", "sum",
           "\u00a0", "\x00", "\t", "@", "$", "`", "\"", "\\", "\u202e", "\n", "//", "1e9999", "+=",
           "<", ">", "<=", ">=", "==", "!=", "&&", "||", "!", "?", ":", "&", "|"]


def _seeds() -> list[str]:
    files = sorted((REPO / "examples").glob("*.stn")) + sorted((REPO / "test" / "lit").rglob("*.stn"))
    seeds = [f.read_text(errors="replace") for f in files]
    sys.path.insert(0, str(REPO / "test" / "python"))
    try:
        from test_ooc import random_stencil

        rng = random.Random(7)
        seeds += [random_stencil(rng, f"rnd{i}")[0] for i in range(60)]
    except Exception:  # noqa: BLE001 - the campaign runs without the test tree too
        pass
    return seeds


def mutate(rng: random.Random, text: str, seeds: list[str]) -> str:
    toks = TOKEN.findall(text)
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not toks:
            toks = ["stencil", " ", "s", " ", "{", "}"]
        i = rng.randrange(len(toks))
        op = rng.randrange(14)
        if op == 13:
            toks = rename_declared(rng, toks)
        elif shared_mutation(rng, toks, i, op, NUMBERS, NAMES, INSERTS):
            pass
        elif op == 6:
            names = [k for k, t in enumerate(toks) if t in ("u", "v", "a", "b", "ex", "hz", "A", "B", "p")]
            if names:
                k, d = rng.choice(names), rng.choice([10, 300, 3000, 20000])
                toks[k] = rng.choice(["(" * d + toks[k] + ")" * d, "-" * d + toks[k], "+ ".join([toks[k]] * d)])
        elif op == 7:
            toks.insert(i, rng.choice([" sum(i in -1000..1000) u[i,0] ", " sum(i in 0..200000) 1 ", " u^64 ",
                                       " u^65 ", " sum(i in 1..3, j in 1..3, k in 1..3) u ", " u[1000000,0] ",
                                       " (u > 0 ? u : -u) ", " x < nx / 2 && !(y >= 1) || u == 0 ? 1 : 0 ",
                                       " u > 0 ? 1 : u < 0 ? -1 : 0 ", " u^x ", " floor(u, 1) ", " a < b < c ",
                                       " (u != 0) + 1 ", " fmod(x, 2) == 0 ? u[1,0] : u[-1,0] "]))
        elif op == 8:
            n = rng.choice([3, 50, 400])
            rows = ",".join("{" + ",".join("1" for _ in range(n)) + "}" for _ in range(n))
            toks.insert(i, f"\n  table big[{n}][{n}] = {{{rows}}};\n")
        elif op == 9:
            toks.insert(i, chr(rng.choice([0, 7, 0x7f, 0xa0, 0x200b, 0x1f600, rng.randrange(32, 0x3000)])))
        elif op == 10:
            toks = toks[:i]
        elif op == 11:
            lines = rng.choice(seeds).splitlines() or [""]
            toks.insert(i, "\n" + rng.choice(lines) + "\n")
        else:
            toks.insert(i, rng.choice(["\n  state w levels 2;\n", "\n  boundary periodic;\n", "\n  series s;\n",
                                       "\n  points p;\n  inject u at p += 1;\n", "\n  input c along y;\n",
                                       "\n  let g = u[1,0] - u;\n", "\n  grid 1d f32;\n",
                                       "\n  let m = x > 0 && y < ny - 1 ? 1 : 0;\n"]))
    return "".join(toks)


def declared_names(toks: list[str]) -> list[str]:
    """The names ``toks`` declares: after a declaring keyword, and sum indices (``sum(i in``, ``, j in``)."""
    words = [t for t in toks if not t.isspace() and not t.startswith("//")]
    out = []
    for k in range(len(words) - 1):
        name = words[k + 1]
        if (words[k] in DECLARES or (words[k] in ("(", ",") and k + 2 < len(words) and words[k + 2] == "in")) and (
                name[:1].isalpha() or name[:1] == "_"):
            out.append(name)
    return list(dict.fromkeys(out))


def generated_names(toks: list[str]) -> list[str]:
    """Names the generated C makes of the stencil's and the declared names (``s_view``, ``S_FIELD_U``,
    ``u_next``...), which a declared name could take."""
    decl = declared_names(toks)
    if not decl:
        return []
    stencil, names = decl[0], decl[1:]
    out = [f"{stencil}_{w}" for w in ("view", "box", "min", "max", "params", "step", "sim", "config")]
    out += [f"{stencil.upper()}_{w}" for w in ("NSRC", "NDST", "H", "NDIM")]
    for n in names[:4]:
        out += [f"{n}_next", f"{n}_prev", f"{n}_y0", f"{n}_row", n.upper(), f"{stencil.upper()}_FIELD_{n.upper()}",
                f"{stencil.upper()}_SRC_{n.upper()}"]
    return out


def rename_declared(rng: random.Random, toks: list[str]) -> list[str]:
    """One to three declared names renamed, with every use, to names C or the generated code reserve."""
    decl = declared_names(toks)
    pool = RESERVED + generated_names(toks)
    for old in rng.sample(decl, min(len(decl), rng.choice([1, 1, 2, 3]))):
        new = rng.choice(pool)
        toks = [new if t == old else t for t in toks]
    return toks


# ---------------------------------------------------------------- the worker


def _compile(text: str):
    """('ok', files) | ('error', rendered, located) | ('crash', traceback)."""
    from stencilc import frontend, lower, sema
    from stencilc.codegen import generate
    from stencilc.diagnostics import CompileError, SourceFile

    source = SourceFile("fuzz.stn", text)
    try:
        try:
            program = lower.lower(sema.check(frontend.parse(source), source))
            return ("ok", generate(program))
        except RecursionError:
            raise frontend.too_deep(source) from None
    except CompileError as e:
        located = all(d.loc.line >= 1 and d.loc.col >= 1 and d.source is not None for d in e.diagnostics)
        return ("error", e.render(), located)
    except Exception:  # noqa: BLE001 - what the campaign looks for
        return ("crash", traceback.format_exc())


def _worker(conn) -> None:
    from stencilc.cli import RECURSION_LIMIT, STACK_BYTES

    threading.stack_size(STACK_BYTES)
    sys.setrecursionlimit(RECURSION_LIMIT)
    while True:
        text = conn.recv()
        if text is None:
            return
        out: list = []
        t = threading.Thread(target=lambda out=out, text=text: out.append(_compile(text)), daemon=True)
        t.start()
        t.join()
        conn.send(out[0] if out else ("crash", "the compile thread died"))


class Worker:
    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()

    def run(self, text: str, timeout: float):
        self.conn.send(text)
        if self.conn.poll(timeout):
            return self.conn.recv()
        self.proc.kill()
        self.proc.join()
        self.start()
        return ("hang", f"no answer in {timeout} s")

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)


def _cc_ok(files: dict[str, str], cc: list[str], cflags: list[str]) -> str | None:
    """None when every generated .c compiles; else the compiler's complaint."""
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            Path(d, name).write_text(text)
        for name in files:
            if name.endswith(".c"):
                r = subprocess.run([*cc, *cflags, "-I", str(REPO / "runtime" / "include"), "-I", d, "-c",
                                    str(Path(d, name)), "-o", os.devnull], capture_output=True, text=True)
                if r.returncode:
                    return f"{name}:\n{r.stderr[-3000:]}"
    return None


def campaign(inputs: int, seed: int, compile_n: int = 0, timeout: float = 30.0, save_dir: Path | None = None,
             progress: bool = False) -> dict:
    from stencilc.codegen import DEFAULT_CFLAGS

    rng = random.Random(seed)
    seeds = _seeds()
    worker = Worker()
    stats = {"inputs": 0, "accepted": 0, "refused": 0, "tracebacks": 0, "hangs": 0, "unlocated": 0,
             "compiled": 0, "compile_failures": 0, "seeds": len(seeds), "seed": seed, "seconds": 0.0,
             "slowest_seconds": 0.0, "failures": []}
    cc = shlex.split(os.environ.get("CC", "cc"))
    cflags = [f for f in shlex.split(DEFAULT_CFLAGS) if f != "-march=native"] + ["-O0"]
    to_compile = set(rng.sample(range(inputs), min(compile_n, inputs))) if compile_n else set()
    t0 = time.monotonic()
    try:
        for k in range(inputs):
            text = mutate(rng, rng.choice(seeds), seeds)
            t1 = time.monotonic()
            res = worker.run(text, timeout)
            stats["slowest_seconds"] = max(stats["slowest_seconds"], time.monotonic() - t1)
            stats["inputs"] += 1
            bad = None
            if res[0] == "ok":
                stats["accepted"] += 1
                if k in to_compile or (compile_n and stats["compiled"] < compile_n and k > inputs // 2):
                    stats["compiled"] += 1
                    why = _cc_ok(res[1], cc, cflags)
                    if why:
                        stats["compile_failures"] += 1
                        bad = ("compile", why)
            elif res[0] == "error":
                stats["refused"] += 1
                if not res[2]:
                    stats["unlocated"] += 1
                    bad = ("unlocated", res[1])
            elif res[0] == "hang":
                stats["hangs"] += 1
                bad = ("hang", res[1])
            else:
                stats["tracebacks"] += 1
                bad = ("traceback", res[1])
            if bad:
                entry = {"kind": bad[0], "input": k, "detail": bad[1][-2000:]}
                if save_dir is not None:
                    save_dir.mkdir(parents=True, exist_ok=True)
                    (save_dir / f"{bad[0]}-{k}.stn").write_text(text)
                    entry["file"] = str(save_dir / f"{bad[0]}-{k}.stn")
                stats["failures"].append(entry)
            if progress and (k + 1) % 1000 == 0:
                print(f"  {k + 1} inputs, {len(stats['failures'])} failures, "
                      f"{time.monotonic() - t0:.0f} s", flush=True)
    finally:
        worker.close()
    stats["seconds"] = round(time.monotonic() - t0, 1)
    stats["slowest_seconds"] = round(stats["slowest_seconds"], 2)
    return stats


def _one(args) -> dict:
    return campaign(*args)


def parallel(inputs: int, seed: int, compile_n: int, timeout: float, save_dir: Path | None, jobs: int) -> dict:
    """``jobs`` campaigns of seeds seed, seed+1, ... sharing the inputs; their statistics summed."""
    share = [inputs // jobs + (k < inputs % jobs) for k in range(jobs)]
    cshare = [compile_n // jobs + (k < compile_n % jobs) for k in range(jobs)]
    from concurrent.futures import ProcessPoolExecutor  # (its workers may start processes of their own)

    with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn")) as pool:
        parts = list(pool.map(_one, [(share[k], seed + k, cshare[k], timeout, save_dir) for k in range(jobs)]))
    out = dict(parts[0])
    for p in parts[1:]:
        for k, v in p.items():
            if k in ("seeds", "seed"):
                continue
            out[k] = max(out[k], v) if k in ("seconds", "slowest_seconds") else out[k] + v
    out["jobs"] = jobs
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="campaigns in parallel (seeds seed, seed+1, ...)")
    ap.add_argument("--compile", type=int, default=0, help="accepted inputs whose C goes through the C compiler")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds an input may take (more: a hang)")
    ap.add_argument("--json", type=Path, help="write the statistics here")
    ap.add_argument("--save-dir", type=Path, default=REPO / "build" / "fuzz", help="failing inputs go here")
    a = ap.parse_args()
    stats = (campaign(a.inputs, a.seed, a.compile, a.timeout, a.save_dir, progress=True) if a.jobs <= 1
             else parallel(a.inputs, a.seed, a.compile, a.timeout, a.save_dir, a.jobs))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(stats, indent=2))
    print(json.dumps({k: v for k, v in stats.items() if k != "failures"}))
    for f in stats["failures"][:20]:
        print(f"{f['kind']} (input {f['input']}): {f.get('file', '')}\n{f['detail'][:800]}\n")
    return 1 if stats["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
