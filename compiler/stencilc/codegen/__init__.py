"""Code generation: IR -> C sources, in two phases.

1. ``build_layout`` (``build.py``): the validated IR -> a ``KernelLayout`` (``layout.py``, its
   parts in ``parts.py``), a tree of frozen, self-checking dataclasses holding every name, slot,
   row pointer, C expression and number the C needs -- all the decisions are made there, and
   can be tested without printing anything;
2. ``render``: the layout -> text, through the Jinja2 templates under ``templates/``, which
   only print: they read the layout's fields and properties as their top-level names (``name``,
   ``src_slots``, ``header_axes``, ...), with StrictUndefined (a missing name is an internal
   error, never an empty string).

Expects: a validated ``ir.Program`` (and, for a tuned variant, a ``Tuned``).  Guarantees: five
C files, a Fortran module and a build file, named after the stencil --

* ``NAME.h``       the public kernel API (standalone: no stencilc runtime needed);
* ``NAME.c``       the kernels: the point update over a box (OpenMP over z/y tiles, a
                   vectorisable x loop, row pointers named after the DSL's fields and
                   offsets), boundaries, init expressions, and a whole-grid step;
* ``NAME_api.h``   the simulation a host program drives (open, write, advance, read, close);
* ``NAME_api.c``   the descriptor for the runtime (stn_rt.h) and that API over ``stn_sim_*``;
* ``NAME_api.f90`` a Fortran module over that API (iso_c_binding);
* ``NAME_main.c``  ``main``: the runtime's command line over the descriptor;
* ``Makefile``     builds the program against the runtime sources.

The same program and ``Tuned`` always give the same text.  Expressions come from
``cexpr.CPrinter``.
"""

from __future__ import annotations

import dataclasses
import functools

import jinja2

from .. import ir
from ..diagnostics import InternalError
from ..resources import templates_dir
from .build import BASE_LIBS, DEFAULT_CFLAGS, LIBS, build_layout
from .layout import KernelLayout, Tuned

__all__ = ["BASE_LIBS", "DEFAULT_CFLAGS", "LIBS", "KernelLayout", "Tuned", "build_layout", "generate", "render"]

# file name (after the stencil's name) -> template
_FILES = (("{}.h", "kernel.h.j2"), ("{}.c", "kernel.c.j2"), ("{}_api.h", "api.h.j2"), ("{}_api.c", "api.c.j2"),
          ("{}_api.f90", "api.f90.j2"), ("{}_main.c", "main.c.j2"), ("Makefile", "Makefile.j2"))


@functools.cache
def _env() -> jinja2.Environment:
    """The one template environment of this process: jinja2 compiles each template once and keeps it
    (a new environment per call recompiled all seven templates for every program)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def _names(layout: KernelLayout) -> dict[str, object]:
    """The templates' top-level names: the layout's fields and properties."""
    names = [f.name for f in dataclasses.fields(layout)]
    names += [n for n, v in vars(type(layout)).items() if isinstance(v, property)]
    return {n: getattr(layout, n) for n in names}


def _render_files(layout: KernelLayout, files) -> dict[str, str]:
    """``files`` ((name pattern, template) pairs) rendered with ``layout``'s names: file name -> text.
    The C and CUDA targets both render through here (one environment, one set of names)."""
    env = _env()
    names = _names(layout)
    try:
        return {file.format(layout.name): env.get_template(template).render(names) for file, template in files}
    except jinja2.UndefinedError as e:
        raise InternalError(f"template variable missing: {e}") from e


def render(layout: KernelLayout) -> dict[str, str]:
    """The files of ``layout``: file name -> text (the header, the kernels, main, the Makefile)."""
    return _render_files(layout, _FILES)


def generate(program: ir.Program, tuned: Tuned | None = None) -> dict[str, str]:
    """The C sources and Makefile of ``program``, with ``tuned`` built in as its defaults."""
    return render(build_layout(program, tuned))
