"""The ``stencilc`` command line.

Parses arguments, calls the driver, and turns failures into exit statuses:
0 success, 1 the user's input is wrong (diagnostics on stderr), 2 bad command line,
70 internal error (a bug in stencilc: the message asks for a report).
"""

from __future__ import annotations

import argparse
import sys
import traceback

from . import __version__, driver
from .diagnostics import CompileError, InternalError

EMITS = ("ast", "ir", "c", "exe")


def _compile_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stencilc",
        description="Compile a .stn stencil into a C program that runs in-core or out-of-core.",
        epilog="Offline tuning: stencilc tune FILE.stn --machine M.json --size ... --steps ...",
    )
    p.add_argument("file", help="the .stn source file")
    p.add_argument("-o", "--output", help="program (exe), directory (c), or file (ast, ir); default: stdout "
                   "for ast/ir/c, the file's stem for exe")
    p.add_argument("--emit", choices=EMITS, default="exe", help="the stage to produce (default: exe)")
    p.add_argument("--cc", default=None, help="C compiler (default: $CC or cc)")
    p.add_argument("--cflags", default=None, help="extra C compiler flags (default: $STENCILC_CFLAGS)")
    p.add_argument("--version", action="version", version=f"stencilc {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--runtime-dir"]:
        from .resources import runtime_dir

        print(runtime_dir())
        return 0
    try:
        if argv[:1] == ["tune"]:
            sys.stderr.write(
                "stencilc: error: 'stencilc tune' (offline Blk-Tune for a described machine) is not in this "
                "build yet; a generated program picks its out-of-core blocks itself, and --block sets them\n")
            return 2
        args = _compile_parser().parse_args(argv)
        return driver.run(args.file, emit=args.emit, output=args.output, cc=args.cc, cflags=args.cflags)
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
    except Exception:  # noqa: BLE001 - any other exception is a bug, reported as such
        sys.stderr.write("stencilc: internal error:\n" + traceback.format_exc())
        sys.stderr.write("This is a bug in stencilc; please report it with the .stn file.\n")
        return 70
