"""Sema's lets, updates and inits, in source order, and what the step as a whole needs.

Expects: pass 1 done; each let, update and init given in source order (``checker`` walks
the declarations), so that ``updated`` lists the updates before the one being checked and
``defined_lets`` the lets before the current statement.
Guarantees: each state field gets at most one update and one init per level (a second one,
an update of an input or of another kind of name, an init of ``.prev`` of a one-level field:
an error); a let records in ``let_new_reads`` the new values (``ex'``) it reads, directly or
through earlier lets; a primed read in an update (directly or through a let) names a field
updated earlier in the source, never the field being updated.  ``_completeness`` (after every
statement) checks what spans the whole step: there is a state field, each has an update,
injections into fields read primed and wrapped fields read primed (``points``, ``boundaries``).
``_primed_reader``, ``_reads_new`` and ``_fields_read`` answer which update reads what,
through lets.
"""

from __future__ import annotations

from .. import ast
from ..diagnostics import Loc
from .base import CheckerBase
from .model import FieldInfo


class StepChecks(CheckerBase):
    def _let_definition(self, d: ast.LetDecl) -> None:
        """A let's value, checked where it is defined (in source order)."""
        if self.lets.get(d.name) is d:
            self.defining_let = d.name
            self.let_new_reads[d.name] = {}
            self._value(d.value, "let", "a let's value")
            self.defining_let = None
            self.defined_lets.add(d.name)

    def _update(self, d: ast.UpdateDecl) -> None:
        f = self.fields.get(d.name)
        if f is None:
            kind = self.decl_of.get(d.name, (None,))[0]
            if kind:
                self.rep.error(f"only state fields are updated; '{d.name}' is a {kind}", d.loc)
            else:
                self.rep.error(f"update of unknown field '{d.name}'{self._suggest(d.name, 'field')}", d.loc)
            return
        if f.kind == "input":
            self.rep.error(f"'{d.name}' is an input field and cannot be updated (declare it 'state {d.name};')", d.loc,
                           [("declared as an input here", f.decl.loc)])
            return
        if f.update is not None:
            self.rep.error(f"state field '{d.name}' is updated twice", d.loc, [("first update is here", f.update.loc)])
            return
        f.update = d
        self.updating = d.name
        self._value(d.value, "update", "an update's value")
        self.updating = None
        self.updated.append(d.name)

    def _init(self, d: ast.InitDecl) -> None:
        f = self.fields.get(d.name)
        if f is None:
            kind = self.decl_of.get(d.name, (None,))[0]
            if kind:
                self.rep.error(f"init gives a field its initial values; '{d.name}' is a {kind}", d.loc)
            else:
                self.rep.error(f"init of unknown field '{d.name}'{self._suggest(d.name, 'field')}", d.loc)
            return
        if d.prev:
            suffix = ".prev" * d.prev
            if f.levels <= d.prev:
                self.rep.error(f"'{d.name}' has {'one time level' if f.levels == 1 else 'two time levels'}, so it "
                               f"has no '{suffix}' to initialise", d.loc,
                               [(f"declare it 'state {d.name} levels {d.prev + 1};' to keep "
                                 f"{'a previous level' if d.prev == 1 else 'the level before .prev'}", f.decl.loc)])
                return
            first = f.init_prev if d.prev == 1 else f.init_prev2
            if first is not None:
                self.rep.error(f"'{d.name}{suffix}' is initialised twice", d.loc, [("first init is here", first.loc)])
                return
            if d.prev == 1:
                f.init_prev = d
            else:
                f.init_prev2 = d
        else:
            if f.init is not None:
                self.rep.error(f"'{d.name}' is initialised twice", d.loc, [("first init is here", f.init.loc)])
                return
            f.init = d
        self.init_along = f
        self._value(d.value, "init", "an init's value")
        self.init_along = None

    def _new_read(self, e: ast.Ref, f: FieldInfo, ctx: str) -> bool:
        """``ex'``: the new value of a state field whose update comes earlier in the step."""
        n = f.name
        if f.kind != "state":
            self.rep.error(f"'{n}' is an input field: it has no new value ('{n}'' reads state fields updated "
                           "earlier in the step)", e.loc, [("declared as an input here", f.decl.loc)])
            return False
        if ctx == "let":
            self.let_new_reads[self.defining_let].setdefault(n, e.loc)
            return True
        if ctx == "update":
            return self._new_read_in_update(n, e.loc, None)
        if ctx == "inject":
            self.rep.error(f"an inject reads the levels before the step, at its point ('{n}'); a new value "
                           f"('{n}'') is not available to it", e.loc)
            return False
        return True  # record: every update is done; init: _field_access reports that inits read no field

    def _new_read_in_update(self, n: str, loc: Loc, via: str | None) -> bool:
        """Is ``n'`` known when the current update runs?  Updates run in source order."""
        through = f" (through let '{via}')" if via else ""
        if n == self.updating:
            self.rep.error(f"the update of '{n}' reads its own new value '{n}''{through}; it computes that value, "
                           f"so it reads the old one, '{n}'", loc)
            return False
        if n not in self.updated:
            later = [d for d in self.tree.decls if isinstance(d, ast.UpdateDecl) and d.name == n]
            notes = [(f"'{n}' is updated here, after the update of '{self.updating}'", later[0].loc)] if later else []
            self.rep.error(f"'{n}'' is read{through} before '{n}' is updated: updates run in source order, so "
                           f"the update of '{self.updating}' must come after the update of '{n}' to read its "
                           "new value", loc, notes)
            return False
        return True

    def _primed_reader(self, name: str) -> ast.UpdateDecl | None:
        """The first update (in source order) that reads ``name'``, directly or through lets."""
        return next((u for u in self.tree.decls if isinstance(u, ast.UpdateDecl) and u.name != name
                     and self._reads_new(u.value, name)), None)

    def _reads_new(self, e, name: str, seen: set | None = None) -> bool:
        """Whether ``e`` reads ``name'``, directly or through lets."""
        seen = set() if seen is None else seen
        if isinstance(e, ast.Ref) and e.new and e.id == name:
            return True
        if isinstance(e, (ast.Ref, ast.Name)) and e.id in self.lets and e.id not in seen:
            seen.add(e.id)
            return self._reads_new(self.lets[e.id].value, name, seen)
        return any(self._reads_new(c, name, seen) for c in ast.children(e))

    def _fields_read(self, e, seen: set | None = None) -> list[str]:
        """The fields ``e`` reads (any level, directly or through lets), in order of first read."""
        seen = set() if seen is None else seen
        out: list[str] = []

        def walk(e) -> None:
            if isinstance(e, (ast.Ref, ast.Name)):
                if e.id in self.lets and e.id not in seen:
                    seen.add(e.id)
                    walk(self.lets[e.id].value)
                elif e.id in self.fields and e.id not in out:
                    out.append(e.id)
            for c in ast.children(e):
                walk(c)

        walk(e)
        return out

    def _completeness(self) -> None:
        self._injected_and_read_primed()
        for f in self.fields.values():
            self._wraps_read_primed(f)
            self._mixed_read_primed(f)
        states = [f for f in self.fields.values() if f.kind == "state"]
        if not states:
            self.rep.error(f"stencil '{self.tree.name}' has no state field, so there is nothing to advance "
                           "(declare one with 'state NAME;')", self.tree.loc)
        for f in states:
            if f.update is None:
                self.rep.error(f"state field '{f.name}' has no update (add \"{f.name}' = ...;\")", f.decl.loc)
