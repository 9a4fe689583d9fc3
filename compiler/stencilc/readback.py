"""Reading back the snapshot file of ``--save-to`` (docs/snapshots.md, docs/embedding.md):
``stencilc.snapshots(path)``.

Expects the path of an HDF5 file that a run of a stencilc program wrote and completed (its root attribute
``complete`` = 1; a run that failed leaves none under the name it was given). Guarantees lazy access: the
file is opened read-only, each saved field is an h5py dataset of its snapshots (time first, then the grid's
axes as in a ``.npy``: z, y, x), and nothing of a snapshot is read until it is indexed; the file stays open
until ``close`` (or the end of a ``with`` block). h5py is needed (``pip install h5py``); without it, and for
a file that is missing, not HDF5, not a stencilc run's or not complete, ``stencilc.Error`` says which.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from .embed import Error


class Saved:
    """One saved field of the file: ``data``, its h5py dataset (snapshot i is ``data[i]``, read when indexed);
    ``steps``, the steps saved (an int64 array, ``steps[i]`` the step of ``data[i]``); ``every``, ``start``,
    ``to`` and ``stride``, its ``--save`` spec (the file's attributes ``every``, ``from``, ``to``,
    ``stride``). ``at(k)`` reads the snapshot of step k; iterating yields ``(step, array)``, one snapshot
    read at a time."""

    def __init__(self, name: str, data: Any, steps: np.ndarray):
        self.name, self.data, self.steps = name, data, steps
        self.every, self.start, self.to, self.stride = (int(data.attrs[k]) for k in ("every", "from", "to", "stride"))

    def __len__(self) -> int:
        return len(self.steps)

    def __repr__(self) -> str:
        return (f"<stencilc.Saved {self.name}: {len(self)} snapshots of shape {self.data.shape[1:]}, "
                f"steps {self.start}..{self.to} every {self.every}, stride {self.stride}>")

    def at(self, step: int) -> np.ndarray:
        """The snapshot of step ``step`` as a new array; ``stencilc.Error`` when that step is not saved."""
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise Error(f"{self.name}: step {step!r}: an integer expected")
        hits = np.flatnonzero(self.steps == step)
        if not len(hits):
            raise Error(f"{self.name}: step {step} is not saved (saved: every {self.every} from {self.start} to "
                        f"{self.to}; the file holds {len(self)} snapshots)")
        return self.data[int(hits[0])]

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        for i, k in enumerate(self.steps):
            yield int(k), self.data[i]


class Snapshots:
    """The snapshot file, open read-only: ``fields`` (name -> ``Saved``; ``snaps["u"]`` is one),
    ``records`` (name -> the h5py dataset of a record's samples, row t step t's), ``attrs`` (the run's
    root attributes: ``stencil``, ``size`` x first, ``steps``, ``param_NAME``, ...), ``file`` (the h5py
    file). A context manager; ``close`` closes the file (the datasets can no longer be read)."""

    def __init__(self, path: str | os.PathLike):
        try:
            import h5py
        except ImportError:
            raise Error("stencilc.snapshots needs h5py, which is not installed (pip install h5py)") from None
        name = os.fspath(path)
        if not os.path.exists(name):
            raise Error(f"{name}: no such file (a run that fails leaves no snapshot file)")
        try:
            self.file = h5py.File(name, "r")
        except OSError as e:
            raise Error(f"{name}: not an HDF5 file h5py can open ({e})") from None
        try:
            self._index(name)
        except BaseException:
            self.file.close()
            raise

    def _index(self, name: str) -> None:
        a = self.file.attrs
        if "stencil" not in a or "run" not in a:
            raise Error(f"{name}: not a stencilc snapshot file (no attribute 'stencil' or 'run' on its root)")
        if int(a.get("complete", 0)) != 1:
            raise Error(f"{name}: the run that wrote it did not complete it (no attribute complete = 1)")
        self.attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in a.items()}
        self.fields: dict[str, Saved] = {}
        self.records: dict[str, Any] = {}
        for key, ds in self.file.items():
            if ds.attrs.get("CLASS") == b"DIMENSION_SCALE":
                continue
            if "level" in ds.attrs:
                self.fields[key] = Saved(key, ds, np.asarray(self.file[f"{key}_step"][:], dtype=np.int64))
            else:
                self.records[key] = ds

    def __getitem__(self, field: str) -> Saved:
        if field not in self.fields:
            raise Error(f"'{field}' is not saved in {self.file.filename}; its saved fields are: "
                        f"{', '.join(sorted(self.fields)) or '(none)'}")
        return self.fields[field]

    def __contains__(self, field: str) -> bool:
        return field in self.fields

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> Snapshots:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def snapshots(path: str | os.PathLike) -> Snapshots:
    """The snapshot file at ``path`` (``--save-to``, or ``save_to`` of ``Program.open``), opened read-only
    and lazily: see ``Snapshots``."""
    return Snapshots(path)
