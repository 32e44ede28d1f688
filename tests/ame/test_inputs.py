"""Inputs that do not fit a format are never stored silently (issue 9): write_tile, mld, literals, and a
mutation fuzz of the assembler and runner over the examples."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.ame import Core, assemble, run_program
from tilesim.ame.demo import EXAMPLES, examples_dir
from tilesim.errors import FormatError, ParseError, TilesimError

EX = examples_dir()


def test_write_tile_refuses_values_the_format_does_not_hold():
    core = Core()
    before = core.tiles.copy()
    with pytest.raises(FormatError) as e:
        core.write_tile(0, np.full((2, 2), 300), "int8")  # once stored 44
    assert e.value.rule == "formats.fit.range" and "quantize=True" in str(e.value) and "-128..127" in str(e.value)
    with pytest.raises(FormatError) as e:
        core.write_tile(0, np.full((2, 2), 0.5), "int8")
    assert e.value.rule == "formats.fit.inexact" and "0.0 and 1.0" in str(e.value)
    with pytest.raises(FormatError, match="formats.fit.inexact"):
        core.write_matrix(0, [[0.1]], "bf16")
    with pytest.raises(FormatError, match="formats.fit.invalid"):
        core.write_tile(0, [[np.nan]], "int8", quantize=True)  # NaN has no int8 code, asked or not
    assert np.array_equal(core.tiles, before)  # nothing was stored


def test_write_tile_rounds_and_clamps_when_asked():
    core = Core()
    core.write_tile(0, np.full((2, 2), 300), "int8", quantize=True)
    core.write_tile(1, [[0.5, 1.5, -300]], "int8", rounding="rne", saturate=True)
    core.write_tile(2, [[0.1, 1e6]], "bf16", quantize=True)
    assert core.read_tile(0, "int8", (2, 2)).tolist() == [[127, 127], [127, 127]]
    assert core.read_tile(1, "int8", (1, 3)).tolist() == [[0, 2, -128]]
    want = np.array([0.1, 1e6], ml_dtypes.bfloat16).astype(np.float64)  # oracle: ml_dtypes
    assert core.read_tile(2, "bf16", (1, 2)).tolist() == [want.tolist()]
    with pytest.raises(FormatError, match="rule formats.flag"):
        core.write_tile(3, [[1]], "int8", quantize="yes")


_LOAD = """csrw mxcfg, Ft={ft} | SAT={sat} | RND={rnd}
mld tr0, a[0:1, 0:3]
mst tr0, y[0:1, 0:3], {ft}
"""


def _load(a, ft="int8", sat=0, rnd="rne", **kw):
    prog = assemble(_LOAD.format(ft=ft, sat=sat, rnd=rnd), source="load.s")
    return run_program(prog, {"a": np.array([a])}, **kw).outputs["y"][0].tolist()


def test_mld_stores_only_what_the_program_asked_for():
    with pytest.raises(FormatError) as e:
        _load([1, 300, 2])
    assert e.value.rule == "formats.fit.range" and (e.value.source, e.value.line) == ("load.s", 2)
    assert "SAT=1" in str(e.value) and "--quantize" in str(e.value)
    assert _load([1, 300, 2], sat=1) == [1, 127, 2]
    with pytest.raises(FormatError, match="formats.fit.inexact"):
        _load([0.5, 1, 2])  # a non-integer into an integer format
    assert _load([0.5, 1.5, 2], quantize=True) == [0, 2, 2]
    assert _load([0.5, 1.5, 300], rnd="rup", quantize=True) == [1, 2, 127]
    # a float format rounds with RND: the program's own conversion (ml_dtypes as the oracle)
    assert _load([0.1, -3.3, 7.77], ft="bf16") == np.array([0.1, -3.3, 7.77], ml_dtypes.bfloat16).tolist()
    with pytest.raises(FormatError, match="formats.fit.range"):
        _load([1.0, 1000.0, 2.0], ft="fp8_e4m3")  # E4M3 has no Inf: beyond 448 is an error unless SAT=1
    assert _load([1.0, 1000.0, 2.0], ft="fp8_e4m3", sat=1) == [1.0, 448.0, 2.0]


def test_with_sat_already_set_the_error_names_quantize_not_sat():
    with pytest.raises(FormatError) as e:  # issue 20: once said "set SAT=1" to a program that had set it
        _load([0.0012, 1, 2], sat=1)
    assert e.value.rule == "formats.fit.inexact" and "--quantize" in str(e.value)
    assert "set SAT=1" not in str(e.value)
    with pytest.raises(FormatError, match="set SAT=1 in mxcfg to clamp, or run with quantize=True"):
        _load([0.0012, 1, 2], sat=0)


@pytest.mark.parametrize("text, col", [("li x1, 02", 8), ("csrw mxcfg, SAT=02", 17), ("li x1, -007", 8),
                                       ("li x1, 1__0", 8), ("mld tr0, a[00:1, 0:1]", 12), ("csrw 0x7c_, x1", 6)])
def test_integer_literals(text, col):
    with pytest.raises(ParseError) as e:
        assemble(text)
    assert e.value.rule == "ame.asm.literal" and e.value.column == col


def test_integer_literal_forms():
    prog = assemble("li x1, 0\nli x2, 1_000\nli x3, 0x7_C0\nli x4, -0b101\nli x5, -0")
    assert [i.args[1] for i in prog] == [0, 1000, 0x7C0, -5, 0]


# ----------------------------------------------- mutation fuzz of the assembler and runner (the examples)
_TEXTS = [(EX / ex.program).read_text() for ex in EXAMPLES]
_INPUTS = [{k: np.load(EX / f) for k, f in ex.inputs.items()} for ex in EXAMPLES]
_PIECES = list("0123456789_xXbB-,:|=[]#;. \n\t") + ["0x", "02", "tr", "tr31", "tr32", "x1", "Ft", "SAT", "K", "M",
                                                   "mld", "mst", "MMACC.T", "csrw", "int8", "bf16", "99999999999999"]


@st.composite
def _mutant(draw):
    i = draw(st.integers(0, len(_TEXTS) - 1))
    text = _TEXTS[i]
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 3))
        text = text[:at] + draw(st.sampled_from(_PIECES) | st.text(max_size=2)) + text[at + cut:]
    return i, text


@settings(max_examples=settings().max_examples)
@given(_mutant(), st.booleans())
def test_fuzz_mutated_examples_raise_only_tilesim_errors(mutant, quantize):
    i, text = mutant
    try:
        run_program(assemble(text, source="mutant.s"), _INPUTS[i], quantize=quantize)
    except TilesimError as e:
        assert e.line is not None  # every error of a program points at its line


# ------------------------------------------------------- fuzz of the Core API: only TilesimErrors, state kept
_IDX = st.one_of(st.integers(-2, 33), st.sampled_from([True, 1.5, "3", None]))
_FT = st.sampled_from(["int8", "int4", "bf16", "fp8_e4m3", "fp16", "int16", "int32", "fp32", "e8m0", 0x11, 0x7F,
                       "nope", None])
_VALS = st.one_of(
    st.lists(st.lists(st.floats(-1e3, 1e3) | st.integers(-300, 300), min_size=1, max_size=5), min_size=1,
             max_size=3).map(lambda rows: [r[:min(map(len, rows))] for r in rows]),
    st.sampled_from([np.zeros((2, 2, 2)), np.zeros((17, 2)), np.array([["a"]]), np.full((2, 2), np.nan), 3.0, [[]],
                     np.zeros((16, 64))]))
_SHAPE = st.one_of(st.none(), st.tuples(st.integers(-1, 17), st.integers(-1, 70)), st.sampled_from([(1,), "2x2"]))
_CALL = st.one_of(
    st.tuples(st.just("write_tile"), _IDX, _VALS, _FT, st.booleans()),
    st.tuples(st.just("write_matrix"), _IDX, _VALS, _FT, st.booleans()),
    st.tuples(st.just("read_tile"), _IDX, _FT, _SHAPE),
    st.tuples(st.just("read_matrix"), _IDX, _FT, _SHAPE),
    st.tuples(st.just("csrw"), st.sampled_from(["mxcfg", "mxtile", "mxstatus", 0x7C0, 0x123, "x", None]),
              st.integers(-1, 2**33) | st.sampled_from([1.5, "1", None])),
    st.tuples(st.sampled_from(["mmacc_t", "mmacc"]), _IDX, _IDX, _IDX, st.integers(-1, 5)),
)


@settings(max_examples=settings().max_examples)
@given(st.lists(_CALL, min_size=1, max_size=6))
def test_fuzz_core_api_raises_only_tilesim_errors_and_keeps_state(calls):
    core = Core()
    for name, *args in calls:
        before = (core.tiles.copy(), {k: core.csrr(k) for k in ("mxcfg", "mxtile")})
        kwargs = {"quantize": args.pop()} if name.startswith("write") else {}
        try:
            getattr(core, name)(*args, **kwargs)
        except TilesimError as e:
            if name != "mmacc_t" or e.rule != "ame.badgeom":  # a badgeom trap sets its status bit only
                assert np.array_equal(core.tiles, before[0]), (name, args)
                assert {k: core.csrr(k) for k in ("mxcfg", "mxtile")} == before[1]


@pytest.mark.parametrize("inputs", [[1, 2], {"a": ["x"]}, {"a": [[1], [2, 3]]}, {1: np.zeros((2, 2))}])
def test_run_program_checks_its_inputs(inputs):
    with pytest.raises(TilesimError) as e:
        run_program(assemble("li x1, 1"), inputs)
    assert e.value.rule == "ame.run.input"
