"""The process in which ``cfront.parse`` runs libclang (``python -m stencilc.importer._child``).

Expects on stdin the pickle of ``(path, data, cflags)``: the C file's name, its bytes, Clang's flags.
Writes on stdout the pickle of ``("ok", cfront.Unit)`` or ``("error", message)`` (libclang cannot
parse, or the file nests deeper than the builder's recursion) and exits 0.  The parse runs on a
thread with a large stack, and libclang on that thread (``LIBCLANG_NOTHREADS``: by default it parses
on a thread of its own with an 8 MiB stack, which a sum of 15,000 terms overflows).  A crash ends
this process only: the parent reports it.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading

STACK_BYTES = 256 << 20  # virtual: only the pages a deep parse touches are used (a sum of 400,000 terms)
RECURSION_LIMIT = 400_000


def main() -> int:
    os.environ["LIBCLANG_NOTHREADS"] = "1"  # read by libclang at each parse
    path, data, cflags = pickle.load(sys.stdin.buffer)
    from stencilc.importer import cfront

    out: list[bytes] = []

    def body() -> None:
        try:
            answer = ("ok", cfront.parse_here(path, data, cflags))
        except cfront.FrontError as e:
            answer = ("error", str(e))
        except RecursionError:
            answer = ("error", f"'{path}' nests too deeply for the importer (an expression of more than about "
                               "100,000 levels, or a sum of as many terms): split it")
        try:
            out.append(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
        except RecursionError:
            out.append(pickle.dumps(("error", f"'{path}' nests too deeply for the importer: split its longest "
                                              "expression"), protocol=pickle.HIGHEST_PROTOCOL))

    threading.stack_size(STACK_BYTES)
    sys.setrecursionlimit(RECURSION_LIMIT)
    t = threading.Thread(target=body, name="stencilc-import-parse")
    t.start()
    t.join()
    if not out:
        return 70  # the thread raised something else: its traceback is on stderr, the parent reports a bug
    sys.stdout.buffer.write(out[0])
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
