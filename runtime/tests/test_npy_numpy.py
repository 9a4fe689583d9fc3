"""The runtime's .npy files against numpy itself (exit 0 pass, 1 fail, 77 skip).

1. Files the runtime writes load with numpy.load (also memory-mapped), with the data at
   offset 4096 and the right dtype and shape.
2. Files numpy writes (format versions 1.0, 2.0 and 3.0, odd shapes) load in the runtime.
3. A Fortran-order or wrongly typed numpy file is refused with a helpful message.
"""

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from numpy.lib import format as npformat
except ImportError:
    print("numpy is not installed: skipping")
    sys.exit(77)

TOOL = sys.argv[1]
SHAPES = [(1, 1, 1), (3, 5, 7), (2, 1, 9), (13, 11), (1, 17), (64, 3, 5), (5,)]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def pattern(shape, dtype):
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    return (i * 0.5 - 7.25 + (i % 7) * 0.125).astype(dtype).reshape(shape)


def tool(cmd, path, descr, shape):
    return subprocess.run([TOOL, cmd, path, descr, *map(str, shape)], capture_output=True, text=True)


def runtime_writes(tmp):
    for shape in SHAPES:
        for descr in ("<f8", "<f4"):
            path = os.path.join(tmp, "rt.npy")
            r = tool("write", path, descr, shape)
            if r.returncode != 0:
                fail(f"npy_tool write {shape} {descr}: {r.returncode} {r.stderr}")
                continue
            a = np.load(path)
            if a.dtype != np.dtype(descr) or a.shape != shape or not np.array_equal(a, pattern(shape, descr)):
                fail(f"numpy reads {a.dtype} {a.shape} from the runtime's {descr} {shape}")
            m = np.load(path, mmap_mode="r")
            if not np.array_equal(m, a):
                fail(f"mmap load differs for {shape}")
            del m
            with open(path, "rb") as f:
                version = npformat.read_magic(f)
                hshape, fortran, dtype = npformat.read_array_header_1_0(f)
                if version != (1, 0) or f.tell() != 4096 or hshape != shape or fortran or dtype != np.dtype(descr):
                    fail(f"header of {shape}: version {version}, data at {f.tell()}, {hshape} {fortran} {dtype}")
            if os.path.getsize(path) != 4096 + a.nbytes:
                fail(f"size of {path}")


def numpy_writes(tmp):
    for shape in SHAPES:
        for descr in ("<f8", "<f4"):
            a = pattern(shape, descr)
            for version in (None, (1, 0), (2, 0), (3, 0)):
                path = os.path.join(tmp, "np.npy")
                if version is None:
                    np.save(path, a)
                else:
                    with open(path, "wb") as f:
                        npformat.write_array(f, a, version=version)
                r = tool("read", path, descr, shape)
                if r.returncode != 0:
                    fail(f"runtime reads numpy's {descr} {shape} version {version}: {r.returncode} {r.stderr}")


def refusals(tmp):
    path = os.path.join(tmp, "bad.npy")
    np.save(path, np.asfortranarray(pattern((3, 4, 5), "<f8")))
    r = tool("read", path, "<f8", (3, 4, 5))
    if r.returncode != 3 or "Fortran order" not in r.stderr:
        fail(f"Fortran order accepted or unclear: {r.returncode} {r.stderr}")
    np.save(path, pattern((3, 4, 5), "<f4"))
    r = tool("read", path, "<f8", (3, 4, 5))
    if r.returncode != 3 or "a.astype('<f8')" not in r.stderr:
        fail(f"float32 for float64 accepted or unclear: {r.returncode} {r.stderr}")
    np.save(path, pattern((3, 4, 5), "<f8"))
    r = tool("read", path, "<f8", (5, 4, 3))
    if r.returncode != 3 or "has shape (3, 4, 5)" not in r.stderr:
        fail(f"wrong shape accepted or unclear: {r.returncode} {r.stderr}")


with tempfile.TemporaryDirectory() as tmp:
    runtime_writes(tmp)
    numpy_writes(tmp)
    refusals(tmp)
    leftovers = [n for n in os.listdir(tmp) if ".partial-" in n]
    if leftovers:
        fail(f"temporary files left: {leftovers}")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
