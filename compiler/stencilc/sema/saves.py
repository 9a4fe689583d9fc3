"""Sema's ``save FIELD every K [from A] [to B] [stride S];``: the snapshots a run with ``--save-to`` takes
when its command line has no ``--save`` (docs/language.md, "Snapshots").

Expects: pass 1 done (the fields declared).  Guarantees: each sound statement names a state field, once
per field, with each key at most once among ``every`` (required, >= 1), ``from`` and ``to`` (>= 0, to not
before from) and ``stride`` (>= 1); the sound ones are in ``saves`` in source order.  Every other case is
an error located at the name, the key or the value at fault.
"""

from __future__ import annotations

from .. import ast
from .base import CheckerBase

SAVE_KEYS = ("every", "from", "to", "stride")


class SaveChecks(CheckerBase):
    def _save(self, d: ast.SaveDecl) -> None:
        states = ", ".join(n for n, f in self.fields.items() if f.kind == "state") or "none"
        f = self.fields.get(d.field)
        ok = True
        if f is None or f.kind != "state":
            kind = self.decl_of.get(d.field, (None,))[0]
            what = ("an input field, which does not change in time" if f is not None else
                    f"a {kind}, not a field" if kind else "not declared")
            self.rep.error(f"save names a state field; '{d.field}' is {what} (the state fields: {states})", d.loc)
            ok = False
        elif any(s.field == d.field for s in self.saves):
            self.rep.error(f"'{d.field}' is already saved (one save per field)", d.loc)
            ok = False
        seen: dict[str, int] = {}
        for (key, value), kloc, vloc in zip(d.keys, d.key_locs, d.value_locs):
            if key not in SAVE_KEYS:
                self.rep.error(f"unknown key '{key}' in save (the keys are every, from, to, stride)", kloc)
                ok = False
            elif key in seen:
                self.rep.error(f"'{key}' is given twice in save {d.field}", kloc)
                ok = False
            elif key in ("every", "stride") and value < 1:
                self.rep.error(f"'{key}' must be at least 1; got {value}", vloc)
                ok = False
            seen.setdefault(key, value)
        if "every" not in seen:
            self.rep.error(f"save {d.field} needs 'every K', the steps between two snapshots (e.g. 'save {d.field} "
                           f"every 10;')", d.loc)
            ok = False
        if "to" in seen and seen["to"] < seen.get("from", 0):
            at = d.value_locs[[k for k, _ in d.keys].index("to")]
            self.rep.error(f"'to {seen['to']}' is before 'from {seen.get('from', 0)}': nothing would be saved", at)
            ok = False
        if ok:
            self.saves.append(d)
