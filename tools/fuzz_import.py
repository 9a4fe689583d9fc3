#!/usr/bin/env python3
"""A fuzzer for ``stencilc import`` (issue 28): random and mutated C kernels through the importer.

Seeds: the C files of examples/import/ and test/lit/import/ (our macro layer, Inputs/pbstyle.h, on
the include path), and random kernels written here: 1d, 2d and 3d nests over fixed arrays, array
parameters (restrict or not), pointers to rows, flat pointers and PolyBench-style macro arrays;
bounds through function-like macros; pointer rotations or sub-steps; in-place reads; const
coefficients and math calls.  Each input is a seed or a random kernel with zero to three mutations
over its tokens: deletions, duplications, swaps, extreme numbers, names replaced by keywords,
sums of thousands of terms (up to 20,000: a depth that crashed libclang's parse), deep
parentheses, function-like macros wrapped around names, bytes that are not UTF-8, NUL bytes,
truncations, stray pragmas and lines spliced from another seed.

Each input runs through ``stencilc import FILE [--function F] -o OUT.stn --rewrite OUT.c -- FLAGS``
(``cli.main``, in a worker process forked for the campaign; libclang runs in the importer's own
child).  An input fails the campaign unless it ends with exit 0 and a non-empty .stn and rewrite,
or exit 1 with an error located at FILE:LINE:COL (or FILE: for what has no line, such as a crash of
the parse).  An exit 70 (internal error), a dead worker (a signal: the exit 139 of a command line),
an unlocated error or a run longer than --timeout (a hang) are failures.

    python tools/fuzz_import.py --inputs 500 --seed 1 --json build/fuzz-import.json

prints a summary and exits 1 if anything failed; failing inputs are saved in --save-dir.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import random
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "compiler"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_tokens import shared_mutation  # noqa: E402

INPUTS = REPO / "test" / "lit" / "import" / "Inputs"
TOKEN = re.compile(rb"//[^\n]*|/\*.*?\*/|\s+|[A-Za-z_][A-Za-z_0-9]*|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?[fFuUlL]*|.",
                   re.S)
NUMBERS = [b"0", b"-1", b"1e400", b"9" * 60, b"2147483648", b"0.5", b"1e308", b"3", b"0x1F", b"1.f", b".5", b"00007",
           b"18446744073709551616"]
NAMES = [b"restrict", b"int", b"float", b"long", b"sizeof", b"t", b"x", b"y", b"n", b"N", b"sum", b"state", b"grid",
         b"in", b"prev", b"__func__", b"_Bool", b"main", b"exp", b"sqrtf", b"fabs", b"printf", b"a", b"b", b"tmp",
         b"floor", b"fminf", b"fmod", b"atan2", b"copysign"]
INSERTS = [b"(", b")", b"[", b"]", b"{", b"}", b",", b";", b"+", b"-", b"*", b"/", b"=", b"#", b"\\", b"\n",
           b"\n#pragma stencilc\n", b"\xe9", b"\xff\xfe", b"\x00", b"\xc3\x28", b"/*", b"*/", b"//", b"\"", b"'",
           b"?", b":", b"<", b">", b"<=", b"==", b"!=", b"&&", b"||", b"!", b" i > 1 ? "]


# ---------------------------------------------------------------- random kernels

def random_kernel(rng: random.Random) -> tuple[bytes, list[str], str | None]:
    """A C file with a stencil time loop, the flags it needs, and the function to name (None: a pragma)."""
    dims = rng.choice([1, 2, 3])
    iv = ["i", "j", "k"][:dims]
    style = rng.choice(["vla", "fixed", "pb", "flat"] if dims > 1 else ["vla", "fixed", "pb"])
    restrict = rng.random() < 0.85
    r = "restrict " if restrict else ""
    ext = "ID(n)" if rng.random() < 0.4 else "n"
    offs = [[rng.randint(-2, 2) if rng.random() < 0.6 else 0 for _ in range(dims)] for _ in range(rng.randint(1, 7))]
    lo = [max([0] + [-o[d] for o in offs]) for d in range(dims)]
    hi = [max([0] + [o[d] for o in offs]) for d in range(dims)]
    if rng.random() < 0.1:  # bounds that are not the halo
        lo[0] += 1

    def ref(arr: str, o: list[int]) -> str:
        idx = [f"{v} + {c}" if c > 0 else f"{v} - {-c}" if c < 0 else v for v, c in zip(iv, o)]
        if style == "flat":
            flat = idx[0]
            for s in idx[1:]:
                flat = f"({flat}) * n + {s}"
            return f"{arr}[{flat}]"
        return arr + "".join(f"[{s}]" for s in idx)

    coef = lambda: rng.choice(["0.25", "w", "SCALAR_VAL(0.1)", "2.0", "1e-3", "c2"])  # noqa: E731
    terms = [f"{coef()} * {ref('a', o)}" for o in offs]
    if rng.random() < 0.2:
        terms.append(f"sqrt(fabs({ref('a', offs[0])}))")
    if rng.random() < 0.2:  # a conditional: comparisons of values and of the loop indices, && || !, libm calls
        cond = rng.choice([f"{ref('a', offs[0])} > 0.0", f"{iv[-1]} < 3 || !({ref('a', offs[-1])} <= w)",
                           f"{iv[0]} == 2 && {ref('a', offs[0])} != 0.0", f"{ref('a', offs[0])}"])
        terms.append(f"({cond} ? {coef()} * {ref('a', offs[-1])} : fmin(floor({ref('a', offs[0])}), "
                     f"fmod({iv[0]} * 0.5, 2.0)))")
    in_place = rng.random() < 0.25
    rhs = " + ".join(terms)
    body_target = "a" if in_place else "b"
    if in_place:
        rhs = f"{ref('a', [0] * dims)} + 0.5 * ({' + '.join(t.replace('a[', 'b[') for t in terms)})"
    zero = [0] * dims
    loops = ""
    for d, v in enumerate(iv):
        loops += " " * (8 + 4 * d) + f"for ({v} = {lo[d]}; {v} < {ext} - {hi[d]}; {v}++)\n"
    nest = loops + " " * (8 + 4 * dims) + f"{ref(body_target, zero)} = {rhs};\n"
    if style == "flat":
        decl = f"double *{r}a, double *{r}b"
        rot = "        double *tmp = a;\n        a = b;\n        b = tmp;\n"
    elif style == "vla":
        rows = "".join("[n]" for _ in range(dims - 1))
        decl = f"double (*{r}a){rows}, double (*{r}b){rows}"
        rot = f"        double (*tmp){rows} = a;\n        a = b;\n        b = tmp;\n"
    elif style == "fixed":
        rest = "".join("[NN]" for _ in range(dims - 1))
        decl = f"double a[{r}NN]{rest}, double b[{r}NN]{rest}"
        rot = ""
    else:
        macro = f"POLYBENCH_{dims}D"
        decl = f"DATA_TYPE {macro}(a, {', '.join(['NN'] * dims)}, {', '.join(['n'] * dims)}), " \
               f"DATA_TYPE {macro}(b, {', '.join(['NN'] * dims)}, {', '.join(['n'] * dims)})"
        rot = ""
    if in_place or not rot:
        rot = ""
    second = ""
    if not in_place and not rot:  # sub-steps: a from the new b
        second = nest.replace(f"{ref('b', zero)} = ", "@@").replace("a[", "b[").replace("@@", f"{ref('a', zero)} = ")
    pragma = rng.random() < 0.3
    mark = "#pragma stencilc\n" if pragma else ""
    tloop = rng.choice(["for (t = 0; t < T; t++)", "for (t = 1; t <= ID(T); t++)", "for (t = 0; t < TT; t++)"])
    src = (f"#include <math.h>\n#include \"pbstyle.h\"\n#define NN 24\n#define TT 5\n#define ID(x) x\n"
           f"static const double w = 0.2, c2 = 0.09;\n"
           f"void kern(int n, int T, {decl}) {{\n    int t, {', '.join(iv)};\n"
           f"    {tloop} {{\n{mark}{nest}{mark if second else ''}{second}{rot}    }}\n}}\n")
    flags = ["-I", str(INPUTS)] + (["-DPB_RESTRICT"] if restrict else [])
    return src.encode(), flags, None if pragma else "kern"


def _seeds() -> list[tuple[bytes, list[str], str | None]]:
    out = []
    for f in sorted((REPO / "examples" / "import").glob("*.c")) + sorted((REPO / "test" / "lit" / "import").glob("*.c")):
        text = f.read_bytes()
        fn = None
        m = re.search(rb"--function (\w+)", text)
        if m:
            fn = m.group(1).decode()
        out.append((text, ["-I", str(INPUTS), "-DPB_RESTRICT"], fn))
    return out


def huge_sum(rng: random.Random, toks: list[bytes]) -> list[bytes]:
    """A sum of up to 20,000 terms after one of the assignments' '=' (15,000 crashed libclang's parse)."""
    eqs = [k for k, t in enumerate(toks) if t == b"="]
    if eqs:
        n = rng.choice([500, 3000, 15000, 20000])
        term = rng.choice([b"1.0", b"0.5 * a[i][j]", b"w", b"(1.0)", b"a[i]"])
        toks.insert(rng.choice(eqs) + 1, b" (" + b" + ".join([term] * n) + b") + ")
    return toks


def mutate(rng: random.Random, text: bytes, seeds: list[bytes], huge: bool = False) -> bytes:
    """Zero to three mutations of text (a huge sum first when `huge`)."""
    toks = TOKEN.findall(text)
    if huge:
        toks = huge_sum(rng, toks)
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        if not toks:
            toks = [b"int x;"]
        i = rng.randrange(len(toks))
        op = rng.randrange(12)
        if shared_mutation(rng, toks, i, op, NUMBERS, NAMES, INSERTS):
            pass
        elif op == 6:
            toks = huge_sum(rng, toks)
        elif op == 7:  # deep parentheses
            names = [k for k, t in enumerate(toks) if t in (b"n", b"w", b"a", b"b", b"T")]
            if names:
                k, d = rng.choice(names), rng.choice([10, 200, 300, 5000])
                toks[k] = b"(" * d + toks[k] + b")" * d
        elif op == 8:  # a function-like macro around a name
            names = [k for k, t in enumerate(toks) if t in (b"n", b"T", b"w", b"N", b"tsteps", b"nx", b"ny")]
            if names:
                toks[rng.choice(names)] = b"FZ(" + toks[rng.choice(names)] + b")"
                toks.insert(0, rng.choice([b"#define FZ(x) x\n", b"#define FZ(x) (x)\n", b"#define FZ(x) ((x) + 0)\n",
                                           b"#define FZ(x)\n", b"#define FZ(x) FZ2(x, x)\n#define FZ2(a, b) a\n"]))
        elif op == 9:
            toks = toks[:i]
        elif op == 10:
            lines = (rng.choice(seeds).splitlines() or [b""])
            toks.insert(i, b"\n" + rng.choice(lines) + b"\n")
        else:
            toks.insert(i, rng.choice([b"\n/* caf\xe9 */\n", b"\"\xff\"", b"\n#pragma stencilc\n", b"\n#include <nothere.h>\n",
                                       b"\n#define n 0\n", b"\x00"]))
    return b"".join(toks)


# ---------------------------------------------------------------- the worker

LOCATED = re.compile(r"^(?P<file>[^\n:]+?)(?::\d+:\d+)?: error: ", re.M)


def _import(path: str, flags: list[str], fn: str | None, out: str) -> tuple[str, str]:
    """('ok', '') | ('error', stderr) | ('internal', stderr): one import through the command line's main."""
    from stencilc import cli

    argv = ["import", path, "-o", out + ".stn", "--rewrite", out + "_rw.c"] + (["--function", fn] if fn else [])
    argv += ["--", *flags]
    err, old = io.StringIO(), sys.stderr
    sys.stderr = err
    try:
        rc = cli.main(argv)
    finally:
        sys.stderr = old
    text = err.getvalue()
    if rc == 0:
        ok = Path(out + ".stn").is_file() and Path(out + ".stn").stat().st_size and Path(out + "_rw.c").is_file()
        return ("ok", "") if ok else ("internal", "exit 0 without the .stn and the rewrite")
    if rc == 1:
        m = LOCATED.search(text)
        if m and m.group("file") == path and "internal error" not in text:
            return ("error", text)
        return ("unlocated", text)
    return ("internal", f"exit {rc}:\n{text}")


def _worker(conn) -> None:
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(_import(*job))


class Worker:
    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        child.close()  # (the worker's end: its death is then an EOF here)

    def run(self, job, timeout: float):
        self.conn.send(job)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()
            except EOFError:
                self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
            self.start()
            return ("hang", f"no answer in {timeout} s")
        self.proc.join()
        code = self.proc.exitcode
        self.start()
        return ("crash", f"the importer died (exit {code}; a signal is negative)")

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)


def campaign(inputs: int, seed: int, timeout: float = 120.0, save_dir: Path | None = None,
             progress: bool = False, huge_every: int = 10) -> dict:
    """`inputs` inputs (every `huge_every`-th with a huge sum) through the importer: the statistics, and the
    failures (saved in save_dir)."""
    rng = random.Random(seed)
    seeds = _seeds()
    worker = Worker()
    stats = {"inputs": 0, "accepted": 0, "refused": 0, "internal": 0, "crashes": 0, "hangs": 0, "unlocated": 0,
             "huge": 0, "seeds": len(seeds), "seed": seed, "seconds": 0.0, "slowest_seconds": 0.0, "failures": []}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for k in range(inputs):
                if rng.random() < 0.5:
                    text, flags, fn = random_kernel(rng)
                else:
                    text, flags, fn = rng.choice(seeds)
                text = mutate(rng, text, [s[0] for s in seeds], huge=huge_every > 0 and k % huge_every == 0)
                stats["huge"] += len(text) > 50_000
                path = str(Path(tmp, f"in{k}.c"))
                Path(path).write_bytes(text)
                t1 = time.monotonic()
                res = worker.run((path, flags, fn, str(Path(tmp, f"out{k}"))), timeout)
                stats["slowest_seconds"] = max(stats["slowest_seconds"], time.monotonic() - t1)
                stats["inputs"] += 1
                kind = {"ok": "accepted", "error": "refused", "internal": "internal", "crash": "crashes",
                        "hang": "hangs", "unlocated": "unlocated"}[res[0]]
                stats[kind] += 1
                if res[0] not in ("ok", "error"):
                    entry = {"kind": res[0], "input": k, "function": fn, "flags": flags, "detail": res[1][-2000:]}
                    if save_dir is not None:
                        save_dir.mkdir(parents=True, exist_ok=True)
                        (save_dir / f"{res[0]}-{k}.c").write_bytes(text)
                        entry["file"] = str(save_dir / f"{res[0]}-{k}.c")
                    stats["failures"].append(entry)
                Path(path).unlink()
                if progress and (k + 1) % 100 == 0:
                    print(f"  {k + 1} inputs, {len(stats['failures'])} failures, {time.monotonic() - t0:.0f} s",
                          flush=True)
        finally:
            worker.close()
    stats["seconds"] = round(time.monotonic() - t0, 1)
    stats["slowest_seconds"] = round(stats["slowest_seconds"], 2)
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds an input may take (more: a hang)")
    ap.add_argument("--json", type=Path, help="write the statistics here")
    ap.add_argument("--save-dir", type=Path, default=REPO / "build" / "fuzz-import",
                    help="failing inputs go here")
    a = ap.parse_args()
    stats = campaign(a.inputs, a.seed, a.timeout, a.save_dir, progress=True)
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(stats, indent=2))
    print(json.dumps({k: v for k, v in stats.items() if k != "failures"}))
    for f in stats["failures"][:20]:
        print(f"{f['kind']} (input {f['input']}, --function {f['function']}): {f.get('file', '')}\n"
              f"{f['detail'][:800]}\n")
    return 1 if stats["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
