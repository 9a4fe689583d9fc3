"""The fenced code blocks of a Markdown file, with the test directives written above them.

Shared by the tests that run the docs' examples as written (test_readme.py, and the like for other
pages), so that a page cannot drift from the program.  A directive is an HTML comment, invisible on
the rendered page, on the line right above a block's opening fence (blank lines may come between):

    <!-- docs-test: run; sub "256,256,256" "64,64,64" -->
    ```sh
    ./heat3d --size 256,256,256 ...
    ```

Its text after ``docs-test:`` is a ``;``-separated list of clauses, each a key and its arguments,
split as a shell splits words (so arguments may be quoted).  What a key means is the test's business;
``sub "OLD" "NEW"`` is common to all: ``Block.substituted()`` replaces every OLD by NEW, in order, and
refuses an OLD the block does not hold (a substitution that matches nothing is drift as well).

Expects: UTF-8 Markdown with fences of three or more backticks at the start of a line.  Guarantees:
``blocks(path)`` gives every fenced block in file order, its text exactly as between the fences.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

_FENCE = re.compile(r"^(`{3,})(.*)$")
_DIRECTIVE = re.compile(r"^<!--\s*docs-test:(.*?)-->\s*$")


@dataclass(frozen=True)
class Block:
    info: str  # the opening fence's info string ("sh", "text", "c", "")
    text: str  # the lines between the fences, each ending in a newline
    line: int  # the opening fence's line, from 1
    section: str  # the title of the '## ' section it is in ("" before the first)
    clauses: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the directive's (key, arguments); () without one

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.clauses)

    def args(self, key: str) -> list[tuple[str, ...]]:
        """The arguments of every clause with this key, in order."""
        return [a for k, a in self.clauses if k == key]

    def substituted(self) -> str:
        """The text with every ``sub OLD NEW`` applied in order; ValueError for an OLD it lacks."""
        text = self.text
        for args in self.args("sub"):
            if len(args) != 2:
                raise ValueError(f"line {self.line}: 'sub' takes OLD and NEW, not {args}")
            if args[0] not in text:
                raise ValueError(f"line {self.line}: the block has no {args[0]!r} to substitute")
            text = text.replace(args[0], args[1])
        return text


def parse_clauses(directive: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``'run; sub "a" "b"'`` -> ``(("run", ()), ("sub", ("a", "b")))``."""
    out = []
    for clause in directive.split(";"):
        words = shlex.split(clause)
        if words:
            out.append((words[0], tuple(words[1:])))
    return tuple(out)


def blocks(path: str | Path) -> list[Block]:
    """Every fenced block of the Markdown file, in order, with the directive above it if any."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    section, directive, i = "", None, 0
    while i < len(lines):
        line = lines[i]
        m = _FENCE.match(line)
        if m:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith(m.group(1))
                        and not lines[j].strip("`").strip()), None)
            if end is None:
                raise ValueError(f"{path}:{i + 1}: a fence that is never closed")
            out.append(Block(m.group(2).strip(), "".join(s + "\n" for s in lines[i + 1:end]), i + 1, section,
                             parse_clauses(directive) if directive is not None else ()))
            directive, i = None, end + 1
            continue
        d = _DIRECTIVE.match(line)
        if d:
            directive = d.group(1)
        elif line.strip():
            directive = None
            if line.startswith("## "):
                section = line[3:].strip()
        i += 1
    return out
