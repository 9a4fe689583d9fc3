"""The ``stencilc`` command line.

Parses arguments, calls the driver, and turns failures into exit statuses:
0 success, 1 the user's input is wrong (diagnostics on stderr), 2 bad command line,
70 internal error (a bug in stencilc: the message asks for a report).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from . import __version__, driver, probe, tune
from .diagnostics import CompileError, InternalError

EMITS = ("ast", "ir", "c", "lib", "exe")
TARGETS = ("c", "cuda")


def _compile_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stencilc",
        description="Compile a .stn stencil into a C program that runs in-core or out-of-core.",
        epilog="Offline tuning: stencilc tune FILE.stn --machine M.json --size ... --steps ...; "
               "measuring the flash device: stencilc probe --dir DIR; the runtime's sources: stencilc --runtime-dir; "
               "the CMake package: stencilc --cmake-dir; lifting a stencil out of C: stencilc import FILE.c",
    )
    p.add_argument("file", help="the .stn source file")
    p.add_argument("-o", "--output", help="program (exe), directory (c, lib), or file (ast, ir); default: stdout "
                   "for ast/ir/c, NAME-lib for lib, the file's stem for exe")
    p.add_argument("--emit", choices=EMITS, default=None, help="the stage to produce (default: exe; c with "
                   "--target cuda)")
    p.add_argument("--target", choices=TARGETS, default="c", help="the kernels' language: c (the default), or "
                   "cuda: CUDA C kernels, printed (--emit=c) or compiled by nvcc into libNAME_cuda.a (--emit=lib)")
    p.add_argument("--cc", default=None, help="C compiler (default: $CC or cc)")
    p.add_argument("--cflags", default=None, help="extra C compiler flags (default: $STENCILC_CFLAGS)")
    p.add_argument("--mpi", action="store_true", help="build with MPI (the mpicc wrapper, or --cc): run it with "
                   "mpirun -np P; the ranks split the grid out of core (docs/design/018)")
    p.add_argument("--version", action="version", version=f"stencilc {__version__}")
    return p


def _tune_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stencilc tune",
        description="Offline Blk-Tune: choose the out-of-core blocking for a described machine. The generated "
                    "program's own runtime plans it (--plan-only --machine), so offline and online tuning agree.",
    )
    p.add_argument("file", help="the .stn source file")
    p.add_argument("--machine", required=True, help="machine description (JSON; see docs/machines.md)")
    p.add_argument("--size", required=True, help="the whole grid, x first, e.g. 2048,2048,2048")
    p.add_argument("--steps", required=True, help="time steps")
    p.add_argument("--mem", help="DRAM budget (default: the machine's dram less its reserve)")
    p.add_argument("--tuner", choices=("blk", "naive", "brute"), help="default blk (Blk-Tune)")
    p.add_argument("--schedule", choices=("ref", "alg1", "alg2"), help="out-of-core schedule (default ref)")
    p.add_argument("--report", help="write the plan's JSON report here")
    p.add_argument("--emit-variant", action="store_true",
                   help="write the program's C sources and header with these parameters built in as defaults, "
                        "and build it, into -o DIR")
    p.add_argument("-o", "--output", help="the directory for --emit-variant")
    p.add_argument("--cc", default=None, help="C compiler (default: $CC or cc)")
    p.add_argument("--cflags", default=None, help="extra C compiler flags (default: $STENCILC_CFLAGS)")
    return p


def _probe_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stencilc probe",
        description="Measure the read and write bandwidth of the flash device holding DIR (requests of 64K to 4M "
                    "at queue depths 1, 8 and 32, O_DIRECT through the runtime's IO queue), reads and writes at "
                    "once (also into new space), and how much of the kernels' speed is left while the device "
                    "is busy; write a machine file for this machine with the figures (docs/machines.md).",
    )
    p.add_argument("--dir", required=True, help="a directory on the device (a test file is created there and removed)")
    p.add_argument("--tier", choices=["aio", "pmem"], help="aio (the default): the device through libaio and "
                   "O_DIRECT; pmem: the copies of --tier pmem to and from a file mapped with libpmem "
                   "(devices/MAJOR-MINOR.pmem.json)")
    p.add_argument("--size", help="the test file's size, at least 16M (default 1G)")
    p.add_argument("--seconds", help="seconds per measured point; 36 points (default 0.3)")
    p.add_argument("-o", "--output", help="the machine file to write (default: the cache, devices/MAJOR-MINOR.json, "
                                          "where runs look for it)")
    p.add_argument("--quiet", action="store_true", help="print only the path written")
    p.add_argument("--cc", default=None, help="C compiler (default: $CC or cc)")
    p.add_argument("--cflags", default=None, help="extra C compiler flags (default: $STENCILC_CFLAGS)")
    return p


def _import_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stencilc import",
        description="Lift the stencil of a C time loop into a .stn file: the loop nests marked '#pragma stencilc' "
                    "(or every perfect 1d/2d/3d stencil nest of --function), parsed with Clang (docs/import.md).",
        epilog="Everything after '--' is passed to Clang (-I, -D, ...).",
    )
    p.add_argument("file", help="the C source file")
    p.add_argument("--function", help="the function holding the time loop (default: look for '#pragma stencilc')")
    p.add_argument("-o", "--output", help="the .stn file to write (default: stdout); its stem names the stencil")
    p.add_argument("--rewrite", metavar="OUT.c", help="also write a copy of the C file whose time loop calls the "
                   "stencil's C API (NAME_api.h of --emit=lib) instead")
    return p


# The passes recurse over expressions: a flat sum of thousands of terms is a tree that deep.  They run in a
# thread with a stack and a recursion limit for that; deeper still is a clean error, never a traceback.
STACK_BYTES = 512 << 20
RECURSION_LIMIT = 200_000


def main(argv: list[str] | None = None) -> int:
    import threading

    result: list[int] = []
    old_stack, old_limit = threading.stack_size(), sys.getrecursionlimit()
    try:
        threading.stack_size(STACK_BYTES)
        sys.setrecursionlimit(RECURSION_LIMIT)
        def body() -> None:
            try:
                result.append(_main(argv))
            except SystemExit as e:  # argparse's --help, --version and usage errors end the run from here
                code = e.code
                result.append(code if isinstance(code, int) else 0 if code is None else 1)
                if code is not None and not isinstance(code, int):
                    sys.stderr.write(f"{code}\n")

        t = threading.Thread(target=body, name="stencilc", daemon=True)
        t.start()
        while t.is_alive():  # (joined in slices, so that Ctrl-C reaches this thread and ends the run)
            t.join(0.25)
    except KeyboardInterrupt:
        return 130
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    return result[0] if result else 70


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--runtime-dir"]:
        from .resources import runtime_dir

        print(runtime_dir())
        return 0
    if argv[:1] == ["--cmake-dir"]:  # find_package(stencilc) with -Dstencilc_DIR=$(stencilc --cmake-dir)
        from .resources import cmake_dir

        print(cmake_dir())
        return 0
    try:
        if argv[:1] == ["tune"]:
            a = _tune_parser().parse_args(argv[1:])
            try:
                return tune.run(a.file, a.machine, a.size, a.steps, mem=a.mem, tuner=a.tuner, schedule=a.schedule,
                                report=a.report, emit_variant=a.emit_variant, output=a.output, cc=a.cc,
                                cflags=a.cflags)
            except tune.TuneError as e:
                sys.stderr.write(f"stencilc tune: error: {e}\n")
                return e.status
        if argv[:1] == ["import"]:
            from . import importer

            rest, cflags = (argv[1:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv[1:], [])
            a = _import_parser().parse_args(rest)
            return importer.run(a.file, function=a.function, output=a.output, cflags=cflags, rewrite=a.rewrite)
        if argv[:1] == ["probe"]:
            a = _probe_parser().parse_args(argv[1:])
            return probe.run(a.dir, size=a.size, seconds=a.seconds, output=a.output, quiet=a.quiet, cc=a.cc,
                             cflags=a.cflags, tier=a.tier)
        args = _compile_parser().parse_args(argv)
        emit = args.emit or ("c" if args.target == "cuda" else "exe")
        return driver.run(args.file, emit=emit, output=args.output, cc=args.cc, cflags=args.cflags,
                          mpi=args.mpi, target=args.target)
    except CompileError as e:
        sys.stderr.write(e.render() + "\n")
        return 1
    except driver.ToolchainError as e:
        sys.stderr.write(f"stencilc: error: {e}\n")
        return 1
    except InternalError as e:
        sys.stderr.write(f"stencilc: internal error: {e}\nThis is a bug in stencilc; please report it with the .stn file.\n")
        return 70
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of --emit's stdout closed it (| head): stop quietly, as a SIGPIPE would
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (no second error at exit's flush)
        except OSError:
            pass
        return 141
    except RecursionError:
        sys.stderr.write("stencilc: error: the program nests too deeply for the compiler (an expression of more "
                         "than about 10000 levels, or a sum of as many terms): split it with lets\n")
        return 1
    except Exception:  # noqa: BLE001 - any other exception is a bug, reported as such
        sys.stderr.write("stencilc: internal error:\n" + traceback.format_exc())
        sys.stderr.write("This is a bug in stencilc; please report it with the .stn file.\n")
        return 70
