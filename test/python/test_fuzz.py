"""The .stn fuzzer's CI profile (issue 16, part 5; the campaign is `make reliability`): about a
thousand mutated programs through the compiler in-process, a fixed seed so that a failure
reproduces.  None may raise anything but a located CompileError or hang, and the C of a sample
of those accepted must compile."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import fuzz_stn  # noqa: E402


def test_the_fuzzers_ci_profile_finds_nothing(tmp_path):
    stats = fuzz_stn.campaign(inputs=1200, seed=20261125, compile_n=15, timeout=60.0, save_dir=tmp_path)
    assert stats["inputs"] == 1200 and stats["accepted"] > 40 and stats["refused"] > 800, stats
    assert stats["compiled"] >= 15
    assert not stats["failures"], "\n\n".join(f"{f['kind']}: {f.get('file')}\n{f['detail']}"
                                             for f in stats["failures"][:5])


def test_the_fuzzer_tells_a_traceback_from_a_refusal():
    """The fuzzer's classification, on inputs whose outcome is known (a campaign that could not
    see a failure would prove nothing)."""
    ok = fuzz_stn._compile("stencil s {\n  grid 2d f64;\n  state u;\n  u' = u[1,0];\n}\n")
    assert ok[0] == "ok" and "s.c" in ok[1]
    bad = fuzz_stn._compile("stencil s {\n  grid 2d f64;\n  state u;\n  u' = v;\n}\n")
    assert bad[0] == "error" and bad[2] and "fuzz.stn:4:8: error" in bad[1], bad
    assert fuzz_stn._compile(None)[0] == "crash"  # (not a text: the passes raise a TypeError)
    w = fuzz_stn.Worker()
    try:
        assert w.run("stencil s {\n  grid 2d f64;\n  state u;\n  u' = u;\n}\n", 60)[0] == "ok"
    finally:
        w.close()


def test_declared_names_renamed_to_reserved_ones_compile_or_are_refused_at_a_line(tmp_path):
    """Issue 28: a let named '__y' stopped the generator with an internal error, which the mutations
    that replace one name token never reached (an undeclared name is refused first).  Every declared
    name of every example, renamed with its uses to a name C or the generated code reserve, must give
    C that compiles or a located refusal."""
    import random

    rng = random.Random(28)
    seeds = [p.read_text() for p in sorted((REPO / "examples").glob("*.stn"))]
    counts = {"ok": 0, "error": 0}
    compiled = 0
    for k in range(100):
        text = "".join(fuzz_stn.rename_declared(rng, fuzz_stn.TOKEN.findall(seeds[k % len(seeds)])))
        res = fuzz_stn._compile(text)
        assert res[0] in counts, f"{res[0]}:\n{text}\n{res[1]}"
        counts[res[0]] += 1
        if res[0] == "error":
            assert res[2], f"unlocated:\n{res[1]}"
        elif compiled < 6 and k % 5 == 0:
            compiled += 1
            why = fuzz_stn._cc_ok(res[1], ["cc"], ["-std=gnu11", "-fopenmp", "-O0"])
            assert why is None, f"{text}\n{why}"
    assert counts["ok"] > 50 and compiled == 6, counts


def test_every_operator_of_the_grammar_is_one_token_and_an_insertion():
    """Every punctuation token of grammar/Stencil.g4 (its lexer's literal names: '..', '&&', '?', '+=' ...)
    is one token of the fuzzer's tokenizer (a swap or a deletion moves the whole operator, as the lexer
    sees it) and one of its insertions, so that mutations make and break the constructs it belongs to
    (issue 34: the conditionals' tokens were missing)."""
    from stencilc.frontend.generated.StencilLexer import StencilLexer

    ops = [lit[1:-1].replace("\\'", "'") for lit in StencilLexer.literalNames[1:] if lit and not lit[1].isalpha()]
    assert {"&&", "||", "<=", "?", ":", "!", "+="} <= set(ops), ops
    for op in ops:
        assert fuzz_stn.TOKEN.findall(f"u{op}v") == ["u", op, "v"], op
        assert op in fuzz_stn.INSERTS, op
