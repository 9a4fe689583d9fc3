"""Unit tests of code generation's typed layout (``stencilc.codegen.layout``) and its rendering.

Expects: the source tree (``compiler/`` importable; no C compiler, no runtime build).  Guarantees:
pins what ``build_layout`` decides for the examples -- slot numbering, C names, row pointers and
their shifts, axes and halos, field descriptors, param literals -- checks that the layout is
deeply immutable and hashable, that every dataclass rejects a bad value with ``InternalError``,
that DSL names C reserves get a renamed C name, and that rendering is deterministic.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import jinja2
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "compiler"))

from stencilc import codegen, frontend, ir, lower, sema  # noqa: E402
from stencilc.codegen import KernelLayout, Tuned, build_layout, generate, render  # noqa: E402
from stencilc.codegen import layout as L  # noqa: E402
from stencilc.diagnostics import InternalError, SourceFile  # noqa: E402

EXAMPLES = sorted(p.stem for p in (REPO_ROOT / "examples").glob("*.stn"))

# ---------------------------------------------------------------- helpers


def program_of(text: str, name: str = "t.stn") -> ir.Program:
    source = SourceFile(name, text)
    return lower.lower(sema.check(frontend.parse(source), source))


def example(name: str) -> ir.Program:
    path = REPO_ROOT / "examples" / f"{name}.stn"
    return program_of(path.read_text(), f"examples/{name}.stn")


@pytest.fixture(scope="module")
def layouts() -> dict[str, KernelLayout]:
    return {name: build_layout(example(name)) for name in EXAMPLES}


def tuned(ndim: int, machine: str = "crest4") -> Tuned:
    return Tuned(machine=machine, machine_file="examples/machines/crest4.json",
                 size=(64, 32, 16 if ndim == 3 else 1), steps=8, block=(32, 8 if ndim == 3 else 0, 4),
                 iblock=(4, 2 if ndim == 3 else 1), strip="none", schedule="ref", tuner="blk", mem_budget=1 << 30,
                 mem_plan=1 << 20, predicted_read=100, predicted_written=200)


# ---------------------------------------------------------------- concrete values


def test_heat3d(layouts):
    k = layouts["heat3d"]
    assert (k.name, k.NAME, k.ndim, k.dtype, k.real, k.elem_size, k.npy_descr) == (
        "heat3d", "HEAT3D", 3, "f64", "double", 8, "<f8")
    assert k.source == "examples/heat3d.stn" and k.source_c == "examples/heat3d.stn"
    assert [(a.name, a.NAME, a.lo, a.hi) for a in k.axes] == [("x", "X", 1, 1), ("y", "Y", 1, 1), ("z", "Z", 1, 1)]
    assert k.header_axes == k.axes
    assert [(s.slot, s.NAME, s.arg, s.field, s.level) for s in k.src_slots] == [(0, "U", "u", "u", 0)]
    assert [(s.slot, s.NAME, s.arg, s.field) for s in k.dst_slots] == [(0, "U_NEXT", "u_next", "u")]
    assert [(r.name, r.array, r.dy, r.dz, r.shift) for r in k.rows] == [
        ("u_y0_zm1", "u", 0, -1, " - sz"),
        ("u_ym1_z0", "u", -1, 0, " - sy"),
        ("u_y0_z0", "u", 0, 0, ""),
        ("u_yp1_z0", "u", 1, 0, " + sy"),
        ("u_y0_zp1", "u", 0, 1, " + sz"),
    ]
    assert k.out_rows == (L.OutRow("u_next_row", "u_next", "u"),)
    (a,) = k.assigns
    assert a.row == "u_next_row"
    assert a.expr == ("u_y0_z0[x] + alpha * (u_y0_z0[x - 1] + u_y0_z0[x + 1] + u_ym1_z0[x] + u_yp1_z0[x] "
                      "+ u_y0_zm1[x] + u_y0_zp1[x] - 6.0 * u_y0_z0[x])")
    assert k.lets == ()
    assert k.params == (L.Param("alpha", "alpha", 0.1, "0.1", "0.1"),)
    assert k.params[0].value_repr == "0.1"
    assert k.fields == (L.FieldDesc("u", "U", "state", 1, "dirichlet", True, False, 0, -1, 0, (), (0, 1, 2)),)
    assert [(i.field, i.NAME, i.level) for i in k.inits] == [("u", "U", 0)]
    assert k.inits[0].what.startswith("init u = exp(")
    assert k.facts == L.PointFacts(points=7, flops=9, bytes_per_point=16, kr=1, kw=1)
    assert k.rows_per_tile_row == 6
    assert (k.has_dirichlet, k.has_neumann) == (True, False)
    assert k.ir_lines and all(ln.startswith(("let ", "update ")) for ln in k.ir_lines)
    from stencilc.codegen.hdf5 import hdf5_flags

    assert k.libs == ("-laio", "-lhwloc", "-lpmem", "-lm", *hdf5_flags()[1]) and "-fopenmp" in k.cflags
    assert all(f in k.cflags.split() for f in hdf5_flags()[0])  # the Makefile compiles io/hdf5.c with HDF5
    assert k.tuned is None and k.tile_bytes == 256 * 1024


def test_wave3d_two_levels(layouts):
    k = layouts["wave3d"]
    assert [(s.slot, s.NAME, s.arg, s.level, s.what) for s in k.src_slots] == [
        (0, "U", "u", 0, "u (current level)"),
        (1, "U_PREV", "u_prev", 1, "u.prev (previous level)"),
    ]
    assert [(s.slot, s.NAME, s.arg, s.what) for s in k.dst_slots] == [(0, "U_NEXT", "u_next", "u' (new level)")]
    assert k.fields == (L.FieldDesc("u", "U", "state", 2, "dirichlet", True, True, 0, 1, 0, (), (0, 1, 2)),)
    assert [(i.level, i.what.split(" = ")[0]) for i in k.inits] == [(0, "init u"), (1, "init u.prev")]
    prev_rows = [r for r in k.rows if r.level == 1]
    assert [(r.name, r.array, r.shift) for r in prev_rows] == [("u_prev_y0_z0", "u_prev", "")]
    assert "u_prev_y0_z0[x]" in k.assigns[0].expr


def test_varheat_input(layouts):
    k = layouts["varheat"]
    # c is a name the templates use for a local: the C name is c_, the DSL name stays c
    assert [(s.slot, s.NAME, s.arg, s.field, s.what) for s in k.src_slots] == [
        (0, "C", "c_", "c", "c (input)"), (1, "U", "u", "u", "u (current level)")]
    assert [s.NAME for s in k.dst_slots] == ["U_NEXT"]
    assert k.fields[0] == L.FieldDesc("c", "C", "input", 1, None, True, False, 0, -1, -1, (), (0, 1, 2))
    assert k.fields[0].read_across_mask == 0b1111
    assert k.fields[1] == L.FieldDesc("u", "U", "state", 1, "dirichlet", True, False, 1, -1, 0, (), (0, 1, 2))
    assert [x.cname for x in k.lets] == ["fxm", "fxp", "fym", "fyp", "fzm", "fzp"]
    assert k.lets[0].expr == "sqrt(c__y0_z0[x] * c__y0_z0[x - 1]) * (u_y0_z0[x - 1] - u_y0_z0[x])"
    assert {r.array for r in k.rows} == {"c_", "u"} and len(k.rows) == 10
    assert k.rows_per_tile_row == 11


def test_filter2d_2d_sum_table(layouts):
    k = layouts["filter2d"]
    assert k.ndim == 2
    assert [(a.name, a.lo, a.hi) for a in k.axes] == [("x", 2, 2), ("y", 2, 2), ("z", 0, 0)]
    assert [a.name for a in k.header_axes] == ["x", "y"]
    assert [(r.name, r.shift) for r in k.rows] == [
        ("u_ym2", " - 2 * sy"), ("u_ym1", " - sy"), ("u_y0", ""), ("u_yp1", " + sy"), ("u_yp2", " + 2 * sy")]
    assert all(r.dz == 0 for r in k.rows)
    (blur,) = k.lets
    assert blur.cname == "blur" and blur.expr.count("u_y") == 25  # the sum is unrolled, the table folded
    assert k.facts.points == 25
    assert k.assigns[0].expr == "filter2d_min(1.0, filter2d_max(0.0, u_y0[x] + amount * (u_y0[x] - blur)))"


def test_neumann_and_f32(layouts):
    g = layouts["grayscott2d"]
    assert (g.has_neumann, g.has_dirichlet) == (True, False)
    assert [f.boundary for f in g.fields] == ["neumann", "neumann"]
    assert [s.arg for s in g.src_slots + g.dst_slots] == ["u", "v_", "u_next", "v__next"]  # v is a template local
    a = layouts["advect2d"]
    assert (a.has_neumann, a.has_dirichlet) == (True, True)
    assert [(x.name, x.lo, x.hi) for x in a.axes] == [("x", 2, 0), ("y", 1, 0), ("z", 0, 0)]
    f = layouts["heat3d_f32"]
    assert (f.dtype, f.real, f.elem_size, f.npy_descr) == ("f32", "float", 4, "<f4")
    assert f.params == (L.Param("alpha", "alpha", 0.1, "0.1f", "0.1"),)
    assert "6.0f" in f.assigns[0].expr


def test_every_example_builds_and_matches_generate(layouts):
    for name, k in layouts.items():
        files = render(k)
        assert list(files) == [f"{name}.h", f"{name}.c", f"{name}_api.h", f"{name}_api.c", f"{name}_api.f90", f"{name}_main.c",
                           "Makefile"]
        assert files == generate(example(name))


# ---------------------------------------------------------------- C names


KEYWORD_NAMES = """
stencil kw {
  grid 2d f32;
  param int = 0.25;
  param sy = 2;
  state double;
  let row = double[1,0] + double[-1,0];
  double' = double + int * (row + double[0,1] + double[0,-1] - 4*double) * sy;
  boundary neumann;
  init double = x / nx;
}
"""


def test_c_keywords_and_template_locals_are_renamed():
    k = build_layout(program_of(KEYWORD_NAMES))
    assert [(p.name, p.cname) for p in k.params] == [("int", "int_"), ("sy", "sy_")]
    assert [(x.name, x.cname) for x in k.lets] == [("row", "row_")]
    assert [(s.NAME, s.arg) for s in k.src_slots + k.dst_slots] == [("DOUBLE", "double_"), ("DOUBLE_NEXT", "double__next")]
    assert [r.name for r in k.rows] == ["double__ym1", "double__y0", "double__yp1"]
    assert k.fields[0].name == "double"  # the runtime still knows the field by its DSL name
    assert k.assigns[0].expr.startswith("double__y0[x] + int_ * (row_ + ")
    files = render(k)
    assert "float int_; /* default 0.25 */" in files["kw.h"]
    assert '{"int", 0.25},' in files["kw_api.c"] and '{"double", STN_FIELD_STATE' in files["kw_api.c"]


def test_generated_names_avoid_each_other():
    # params named like the names the generator makes for slots, rows and output rows
    k = build_layout(program_of("""
stencil s {
  grid 3d f64;
  param u_next = 1;
  param u_y0_z0 = 2;
  param u_next_row = 3;
  state u;
  u' = u * u_next + u_y0_z0 * u_next_row;
}
"""))
    assert [p.cname for p in k.params] == ["u_next", "u_y0_z0", "u_next_row"]
    assert k.dst_slots[0].arg == "u_next_"
    assert [r.name for r in k.rows] == ["u_y0_z0_"]
    assert k.out_rows[0].name == "u_next__row"


# ---------------------------------------------------------------- immutability


def test_layout_is_frozen_and_hashable(layouts):
    k = layouts["wave3d"]
    for obj, attr in ((k, "name"), (k, "src_slots"), (k.src_slots[0], "slot"), (k.rows[0], "name"),
                      (k.axes[0], "lo"), (k.fields[0], "boundary"), (k.params[0], "cname"), (k.facts, "points")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, getattr(obj, attr))
    assert isinstance(k.rows, tuple) and isinstance(k.ir_lines, tuple) and isinstance(k.libs, tuple)
    assert hash(k) == hash(build_layout(example("wave3d")))
    t = build_layout(example("wave3d"), tuned(3))
    assert hash(t) == hash(dataclasses.replace(t)) and t != k
    assert len({hash(x) for x in layouts.values()}) == len(layouts)


# ---------------------------------------------------------------- validation


def bad(match: str, make) -> None:
    with pytest.raises(InternalError, match=match):
        make()


def test_slot_validation(layouts):
    k = layouts["wave3d"]
    u, up = k.src_slots
    bad("not a non-negative integer", lambda: dataclasses.replace(u, slot=-1))
    bad("not a C identifier", lambda: dataclasses.replace(u, arg="9u"))
    bad("not a C identifier", lambda: dataclasses.replace(u, arg="u-x"))
    bad("reserved by C", lambda: dataclasses.replace(u, arg="double"))
    bad("reserved by C or by the templates", lambda: dataclasses.replace(u, arg="row"))
    bad("upper-case C macro", lambda: dataclasses.replace(u, NAME="u"))
    bad("side", lambda: dataclasses.replace(u, side="out"))
    bad("level", lambda: dataclasses.replace(k.dst_slots[0], level=1))
    # duplicate, gapped, unsorted slots
    bad("src slots .* not 0..1", lambda: dataclasses.replace(k, src_slots=(u, dataclasses.replace(up, slot=0))))
    bad("src slots .* not 0..1", lambda: dataclasses.replace(k, src_slots=(u, dataclasses.replace(up, slot=2))))
    bad("src slots .* not 0..1", lambda: dataclasses.replace(k, src_slots=(up, u)))
    bad("wrong side", lambda: dataclasses.replace(k, dst_slots=(dataclasses.replace(k.dst_slots[0], side="src"),)))
    # slots that are not the fields' (a missing one, a wrong field)
    bad("src slots do not match", lambda: dataclasses.replace(k, src_slots=(u,)))
    bad("dst slots do not match", lambda: dataclasses.replace(k, dst_slots=()))
    bad("repeat", lambda: dataclasses.replace(k, src_slots=(u, dataclasses.replace(up, NAME="U"))))


def test_layout_scalar_validation(layouts):
    k = layouts["heat3d"]
    bad("do not match dtype f64", lambda: dataclasses.replace(k, elem_size=4))
    bad("do not match dtype f64", lambda: dataclasses.replace(k, real="float"))
    bad("do not match dtype f64", lambda: dataclasses.replace(k, npy_descr="<f4"))
    bad("do not match dtype f32", lambda: dataclasses.replace(k, dtype="f32"))
    bad("dtype 'f16'", lambda: dataclasses.replace(k, dtype="f16"))
    bad("ndim 4", lambda: dataclasses.replace(k, ndim=4))
    bad("not a C identifier", lambda: dataclasses.replace(k, name="heat-3d"))
    bad("tuple of Axis", lambda: dataclasses.replace(k, axes=list(k.axes)))
    bad("tuple of RowPointer", lambda: dataclasses.replace(k, rows=list(k.rows)))
    bad("tuple of str", lambda: dataclasses.replace(k, libs=" ".join(k.libs)))
    bad("axes", lambda: dataclasses.replace(k, axes=k.axes[:2]))
    bad("tile_bytes", lambda: dataclasses.replace(k, tile_bytes=0))
    bad("PointFacts", lambda: dataclasses.replace(k, facts=example("heat3d").derive_facts()))
    bad("tuned must be", lambda: dataclasses.replace(k, tuned={"block": (1, 1, 1)}))
    f = layouts["filter2d"]
    bad("no z halo in 2d", lambda: dataclasses.replace(f, axes=(*f.axes[:2], L.Axis("z", 1, 1))))
    bad("z blocking", lambda: dataclasses.replace(f, tuned=tuned(3)))
    bad("row pointer .* src slot of this grid",
        lambda: dataclasses.replace(f, rows=(*f.rows, L.RowPointer("u_y0_z1", "u", "u", 0, 0, 1))))


def test_part_validation():
    bad("slot -1", lambda: L.Slot("src", -1, "U", "u", "u (current level)", "u", 0))
    bad("description would end", lambda: L.Slot("src", 0, "U", "u", "u */", "u", 0))
    bad("halo lo -1", lambda: L.Axis("x", -1, 0))
    bad("not one of x, y, z", lambda: L.Axis("w", 0, 0))
    bad("reserved", lambda: L.RowPointer("sy", "u", "u", 0, 0, 0))
    bad("reserved", lambda: L.OutRow("u_next_row", "next", "u"))
    bad("empty expression", lambda: L.Assign("u", "u_row", ""))
    bad("reserved", lambda: L.Let("x", "int", "1.0"))
    bad("level 2", lambda: L.Init("u", "U", 2, "1.0", "init u = 1.0"))
    bad("end its C comment", lambda: L.Init("u", "U", 0, "1.0", "init u = 1 */ 2"))
    bad("boundary 'dirichlet' for a field of kind input", lambda: L.FieldDesc("c", "C", "input", 1, "dirichlet", False, False,
                                                                    0, -1, -1))
    bad("boundary None for a field of kind state", lambda: L.FieldDesc("u", "U", "state", 1, None, False, False, 0, -1, 0))
    bad("prev slot", lambda: L.FieldDesc("u", "U", "state", 1, "neumann", False, False, 0, 1, 0))
    bad("dst slot", lambda: L.FieldDesc("c", "C", "input", 1, None, False, False, 0, -1, 0))
    bad("not the field's name in upper case", lambda: L.FieldDesc("u", "V", "state", 1, "neumann", True, False, 0, -1, 0))
    bad("booleans", lambda: L.FieldDesc("u", "U", "state", 1, "neumann", 1, False, 0, -1, 0))
    bad(r"axes read across \(3,\)", lambda: L.FieldDesc("u", "U", "state", 1, "neumann", True, False, 0, -1, 0, (), (3,)))
    bad("do not spell", lambda: L.Param("g", "g", 0.5, "0.25", "0.5"))
    bad("reserved", lambda: L.Param("int", "int", 0.5, "0.5", "0.5"))
    bad("not a non-negative integer", lambda: L.PointFacts(1, -1, 8, 1, 1))


def test_cross_references(layouts):
    k = layouts["varheat"]
    bad("C names .* repeat", lambda: dataclasses.replace(k, lets=(L.Let("alpha", "alpha", "1.0"), *k.lets[1:])))
    bad("is not the DSL name", lambda: L.Let("fxm", "alpha", "1.0"))
    bad("src slot of this grid", lambda: dataclasses.replace(k, rows=(L.RowPointer("c_y9", "u_next", "u", 0, 0, 0),)))
    bad("two row pointers", lambda: dataclasses.replace(k, rows=(*k.rows, dataclasses.replace(k.rows[0], name="q"))))
    bad("output rows", lambda: dataclasses.replace(k, out_rows=()))
    bad("assignments", lambda: dataclasses.replace(k, assigns=(L.Assign("u", "u_other", "1.0"),)))
    bad("init of u level 1", lambda: dataclasses.replace(k, inits=(*k.inits, L.Init("u", "U", 1, "1.0", "init"))))
    bad("inits do not match", lambda: dataclasses.replace(k, inits=k.inits[:1]))
    bad("field names .* repeat", lambda: dataclasses.replace(k, fields=(k.fields[0], k.fields[0])))


def test_enum_names_that_would_repeat_get_an_underscore():
    """Fields whose names differ only in case, or whose slot would repeat another's (u_prev beside the
    previous level of u), get distinct enum constants (an internal error before issue 28)."""
    k = build_layout(program_of("stencil s {\n grid 2d f64;\n state u;\n input U;\n u' = u + U;\n}\n"))
    assert [f.NAME for f in k.fields] == ["U", "U_"]
    k = build_layout(program_of("stencil s {\n grid 2d f64;\n state u_prev;\n state u levels 2;\n"
                                "u_prev' = u_prev; u' = u + u.prev + u_prev;\n}\n"))
    assert [f.NAME for f in k.fields] == ["U_PREV", "U_"]
    assert [s.NAME for s in k.src_slots] == ["U_PREV", "U_", "U__PREV"]
    assert [s.NAME for s in k.dst_slots] == ["U_PREV_NEXT", "U__NEXT"]


# ---------------------------------------------------------------- rendering


def test_rendering_is_deterministic():
    for name in ("heat3d", "jacobi2d", "wave3d"):
        a, b = build_layout(example(name)), build_layout(example(name))
        assert a == b and a is not b
        assert render(a) == render(b) == generate(example(name))


def test_2d_header_names_only_existing_axes(layouts):
    files = render(layouts["jacobi2d"])
    assert "JACOBI2D_HALO_Y_HI 1" in files["jacobi2d.h"] and "HALO_Z" not in files["jacobi2d.h"]
    assert "const double nz = (double)v->nz;" in files["jacobi2d.c"]  # the kernels' views stay 3d
    assert ".halo_lo = {1, 1, 0}," in files["jacobi2d_api.c"]


def test_tuned_layout_renders_its_defaults():
    t = tuned(3, machine='lab "B" \\ 2')
    k = build_layout(example("heat3d"), t)
    assert k.tuned is t and t.machine_c == 'lab \\"B\\" \\\\ 2'
    files = render(k)
    assert "#define HEAT3D_TUNED_BZ 8" in files["heat3d.h"]
    assert '.machine = "lab \\"B\\" \\\\ 2",' in files["heat3d_api.c"]
    assert ".tuned = &tuned_," in files["heat3d_api.c"]
    two = render(build_layout(example("jacobi2d"), tuned(2)))
    assert "JACOBI2D_TUNED_BY 32" in two["jacobi2d.h"] and "TUNED_BZ" not in two["jacobi2d.h"]


def test_templates_are_strict(layouts):
    assert codegen._env().undefined is jinja2.StrictUndefined
    with pytest.raises(jinja2.UndefinedError):
        codegen._env().from_string("{{ name }} {{ src_arrays }}").render(codegen._names(layouts["heat3d"]))


# ---------------------------------------------------------------- sub-steps


def test_sub_steps_lay_out_scratch_and_the_rows_that_read_it():
    k = build_layout(example("fdtd2d"))
    assert [st.fields for st in k.stages] == [("ey", "ex"), ("hz",)]
    first, second = k.stages
    assert [(sc.field, sc.name, sc.index, sc.lo, sc.hi) for sc in first.scratch] == [
        ("ey", "ey_new", 0, (0, 0, 0), (0, 1, 0)), ("ex", "ex_new", 1, (0, 0, 0), (1, 0, 0))]
    assert first.tile is None and second.region is None and second.scratch == ()
    assert [(r.name, r.dy) for r in second.tile.new_rows] == [("ex_new_y0", 0), ("ey_new_y0", 0), ("ey_new_yp1", 1)]
    assert second.tile.assigns[0].expr == ("hlast * hz_y0[x] + (1.0 - hlast) * (hz_y0[x] - 0.7 * "
                                           "(ex_new_y0[x + 1] - ex_new_y0[x] + ey_new_yp1[x] - ey_new_y0[x]))")
    # the masks are inputs along one axis: 1d arrays indexed by their coordinate
    assert [x.expr for x in second.tile.lets] == ["fdtd2d_max(hlastx[x], hlasty[y])"]
    assert [(a.name, a.cname, a.axis, a.index) for a in k.alongs] == [
        ("src", "src_", "y", 0), ("ex0", "ex0", "x", 1), ("hlastx", "hlastx", "x", 2), ("hlasty", "hlasty", "y", 3)]
    assert [f.name for f in k.fields] == ["ex", "ey", "hz"]  # not grid fields: the runtime never sees them
    # fict[t]: a value of the step, after the params (there are none) and t (not read)
    assert [(v.name, v.cname, v.slot, v.series, v.k) for v in k.step_values] == [("fict[t]", "fict_t0", 1, "fict", 0)]
    assert k.series == ("fict",)
    assert k.nscratch == 2 and k.scratch_reach == (1, 0)
    assert [(a.lo, a.hi, a.reach_lo, a.reach_hi) for a in k.axes] == [(1, 1, 1, 1), (1, 1, 1, 1), (0, 0, 0, 0)]
    assert build_layout(example("heat3d")).stages == ()


def test_sub_step_layouts_check_themselves():
    k = build_layout(example("polyjacobi2d"))
    assert k.axes[0].reach_lo == 2 and k.axes[0].lo == 1
    bad("reach", lambda: L.Axis("x", 2, 1, 1, 1))
    row = k.stages[1].tile.new_rows[0]
    bad("below the cells computed", lambda: dataclasses.replace(row, dy=-3))
    bad("one stage", lambda: dataclasses.replace(k, stages=k.stages[:1]))
    bad("not declared", lambda: dataclasses.replace(k, rows=()))
    st = k.stages[0]
    bad("region loop", lambda: dataclasses.replace(st, region=None))
    bad("past its stage's region", lambda: dataclasses.replace(st, lo=(0, 0, 0)))


def test_step_values_check_themselves():
    k = build_layout(example("fdtd2d"))
    v = k.step_values[0]
    bad("slot 0 is t", lambda: dataclasses.replace(v, slot=0))
    bad("series terms, in slot order", lambda: dataclasses.replace(k, step_values=(dataclasses.replace(v, slot=2),)))
    bad("series terms, in slot order", lambda: dataclasses.replace(k, series=()))


def test_a_file_name_cannot_end_the_header_comment(tmp_path):
    """The .stn file's name goes into the generated files' header comments: '*/' and a newline in it
    must not close the comment (what follows would compile as C) nor break a Makefile line.  The
    program builds, and the comment shows the name made safe."""
    import subprocess

    from conftest import stencilc_command

    d = tmp_path / "a*"
    d.mkdir()
    src = d / "int injected = 1;\nx.stn"  # the path holds '*/' (a folder's name ends with '*') and a newline
    src.write_text((Path(__file__).resolve().parents[2] / "examples" / "heat3d.stn").read_text())
    cmd, env = stencilc_command()
    p = subprocess.run([*cmd, str(src), "--emit=c", "-o", str(tmp_path / "c")], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stderr
    c = (tmp_path / "c" / "heat3d.c").read_text()
    assert "injected" not in c.split("*/", 1)[1], "the file name closed the header comment"
    assert "a*\\/int injected = 1;?x.stn" in c.split("*/", 1)[0]
    p = subprocess.run([*cmd, str(src), "-o", str(tmp_path / "prog")], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr


C_NAMES = ["typeof", "asm", "__int128", "__func__", "__LINE__", "linux", "unix", "NAN", "INFINITY", "M_PI",
           "int64_t", "_Foo", "stdin", "size_t"]


def test_names_that_c_reserves_or_predefines_still_build(tmp_path):
    """GNU keywords, predefined macros (linux is 1), libm's constants, libc's types and the identifiers C
    reserves (__x, _X) are fine names in a .stn file: as params and as fields, the generated C builds with
    -Wall -Werror (7 of 300 random programs and 40 of 258 such names failed before)."""
    import subprocess

    from conftest import stencilc_command

    params = "\n".join(f"  param {n} = 0.01;" for n in C_NAMES)
    as_params = f"stencil s {{\n  grid 2d f64;\n{params}\n  state u;\n  u' = u + ({' + '.join(C_NAMES)}) * (u[1,0] - u);\n}}\n"
    states = "\n".join(f"  state {n};" for n in C_NAMES)
    updates = "\n".join(f"  {n}' = {n} + 0.01 * ({n}[1,0] - {n});" for n in C_NAMES)
    as_fields = f"stencil t {{\n  grid 2d f64;\n{states}\n{updates}\n}}\n"
    cmd, env = stencilc_command()
    for name, text in (("s", as_params), ("t", as_fields)):
        (tmp_path / f"{name}.stn").write_text(text)
        p = subprocess.run([*cmd, str(tmp_path / f"{name}.stn"), "--emit=c", "-o", str(tmp_path / name)],
                           capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
    from stencilc.resources import runtime_dir

    c = sorted(str(f) for d in ("s", "t") for f in (tmp_path / d).glob("*.c"))
    for f in c:
        p = subprocess.run(["cc", "-std=gnu11", "-fopenmp", "-Wall", "-Werror", "-c", "-I", str(runtime_dir() / "include"),
                            "-I", str(Path(f).parent), f, "-o", f + ".o"], capture_output=True, text=True, cwd=tmp_path)
        assert p.returncode == 0, p.stderr


def test_source_text_literals_give_the_text_back_byte_for_byte(tmp_path):
    """The .stn text the descriptor carries (c_text_literals): a C compiler turns the literals back into the
    same bytes, whatever the text holds (quotes, backslashes, trigraph-like ??=, tabs, CRLF, UTF-8, control
    bytes, no final newline)."""
    import shutil
    import subprocess

    from stencilc.codegen.parts import c_text_literals

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    text = 'stencil a { // "q" \\ ??= ??/\n\tparam x = 1;\r\n// é ∂ \x01\x7f end'
    src = tmp_path / "t.c"
    src.write_text('#include <stdio.h>\nint main(void) {\n    fputs(' + "\n        ".join(c_text_literals(text))
                   + ', stdout);\n    return 0;\n}\n')
    subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror", "-o", str(tmp_path / "t"), str(src)], check=True)
    out = subprocess.run([str(tmp_path / "t")], capture_output=True, check=True).stdout
    assert out == text.encode("utf-8")
    assert c_text_literals("") == ('""',)
