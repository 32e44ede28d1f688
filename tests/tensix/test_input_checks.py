"""Issue 9 for the Tensix: every input checked against what the program or API declares, and fuzzing
of the entry points (decoder, text parser, ``.tt`` programs, ``execute``, ``unpack``) where the only
exception allowed is a ``TilesimError``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim.errors import DtypeError, GeometryError, ParseError, TilesimError
from tilesim.tensix import INSTRUCTIONS, Machine, decode, parse
from tilesim.tensix.cli import parse_program, run_program
from tilesim.tensix.llk_names import NAMES

PROGRAM = ".array a 16x16 fill=1\n.unpack srca a BF16\n"


@pytest.mark.parametrize("shape", [(16, 15), (8, 8), (32, 16), (256,)])
def test_input_must_have_the_declared_shape(shape):
    with pytest.raises(GeometryError) as e:
        run_program(parse_program(PROGRAM, "p.tt"), {"a": np.zeros(shape)}, source="p.tt")
    assert e.value.rule == "tt.prog.input_shape" and e.value.operand == "a"
    assert "16x16" in str(e.value) and str(shape) in str(e.value) and "p.tt:1" in str(e.value)


def test_unknown_input_name_and_non_numeric_input():
    with pytest.raises(ParseError) as e:
        run_program(parse_program(PROGRAM, "p.tt"), {"b": np.zeros((16, 16))}, source="p.tt")
    assert e.value.rule == "tt.prog.input_name" and "reads: a" in str(e.value)
    with pytest.raises(DtypeError) as e:
        run_program(parse_program(PROGRAM, "p.tt"), {"a": np.full((16, 16), "x")}, source="p.tt")
    assert e.value.rule == "tt.prog.input_dtype"


def test_missing_array_names_the_file():
    with pytest.raises(ParseError) as e:
        run_program(parse_program(".unpack srca zz BF16\n", "q.tt"), {}, source="q.tt")
    assert str(e.value).startswith("q.tt:1:14") and "--input zz=" in str(e.value)


def test_array_directive_counts_its_numbers():
    with pytest.raises(ParseError) as e:
        parse_program(".array a 16x16 = 1 2 3\n", "q.tt")
    assert "takes 256 numbers, 3 given" in str(e.value)


@pytest.mark.parametrize("values", [np.zeros((16, 15)), np.zeros(32), np.zeros((2, 2, 16)), np.zeros((0, 16))])
def test_unpack_takes_rows_of_16_only(values):
    m = Machine()
    before = m.srca.copy()
    with pytest.raises(GeometryError) as e:
        m.unpack("srca", values, "BF16")
    assert e.value.rule == "tt.unpack.shape" and (m.srca == before).all()


def test_unpack_takes_real_numbers_only():
    for values in (np.full(16, "a"), np.full(16, 1 + 1j), np.array([None] * 16)):
        with pytest.raises(DtypeError):
            Machine().unpack("srcb", values, "BF16")


# -- fuzzing ------------------------------------------------------------------------------------

@given(st.integers(0, 2**32 - 1))
def test_fuzz_decode_and_execute_words(word):
    m = Machine()
    try:
        insn = decode(word)
    except TilesimError:
        return
    assert decode(insn.word()) == insn
    try:
        m.execute(insn)
    except TilesimError:
        pass


_PIECES = [r.mnemonic for r in INSTRUCTIONS] + list(NAMES)[:40] + [
    "TT_", "TTI_", "TT_OP_", "TT_OP", "(", ")", ",", " ", "<<", ">>", "+", "-", "*", "|", "&", "~", "0x1F", "0b101",
    "017", "1u", "true", "0", "1", "7", "4095", "1<<99", "::", "ckernel::", "/*", "*/", "//", ";", "\n", "x", "9" * 30]


@given(st.lists(st.sampled_from(_PIECES), max_size=14) | st.text(max_size=40))
def test_fuzz_instruction_text(pieces):
    text = pieces if isinstance(pieces, str) else "".join(pieces)
    try:
        parse(text)
    except TilesimError:
        pass


_LINES = st.sampled_from([
    ".config ALU_FORMAT_SPEC_REG0_SrcA = BF16", ".config ALU_FORMAT_SPEC_REG1_SrcB = {v}",
    ".config ALU_ACC_CTRL_Fp32_enabled = {v}", ".config ADDR_MOD_AB_SEC0_SrcAIncr = {v}", ".config NOPE = 1",
    ".array a 16x16 fill={v}", ".array b {v}x16 fill=1", ".array c = 1 2 {v}", ".unpack srca a BF16",
    ".unpack srcb b BF16 row={v}", ".unpack dst a FP32 face={v}", ".unpack srca a {v}", ".pack o BF16 rows={v}",
    ".pack t FP32 tile=1", ".argmax i rows={v}", ".thread {v}", ".bogus", "TTI_ZEROACC(p_zeroacc::CLR_ALL, 0, 0)",
    "TT_ELWADD(3, 0, 0, 0, {v})", "TT_ELWMUL(3, 0, 0, 0, 0)", "TT_MVMUL(3, 0, 0, {v})", "TTI_GMPOOL(3, 1, 0, 0, 0)",
    "TTI_SETRWC(0, 0, 0, 0, 0, {v})", "TT_MOVB2A(0, 0, 2, {v})", "TTI_INCRWC({v}, 8, 0, 0)", "0x{v}",
    "TT_SETDVALID({v})", "TT_CLEARDVALID({v}, 0)"])
_VALUES = st.sampled_from(["0", "1", "2", "3", "16", "63", "64", "-1", "1.5", "BF16", "x", "", "1e9", "nan"])


@settings(max_examples=max(20, settings().max_examples // 3))
@given(st.lists(st.tuples(_LINES, _VALUES), min_size=1, max_size=10), st.sampled_from(["hardware", "doc"]))
def test_fuzz_tt_programs(lines, model):
    text = "\n".join(line.format(v=v) for line, v in lines)
    try:
        run_program(parse_program(text, "f.tt"), {}, model, "f.tt")
    except TilesimError:
        pass


@settings(max_examples=max(20, settings().max_examples // 3))
@given(st.sampled_from(["srca", "srcb", "dst", "SrcA", "x"]),
       st.sampled_from([(16,), (4, 16), (64, 16), (65, 16), (3,), (2, 16, 16)]),
       st.sampled_from(["BF16", "FP16", "FP32", "TF32", "INT8", "INT32", "BFP8", "nope"]),
       st.sampled_from([0.0, 1.5, -3.0, 1e30, np.inf, np.nan, 300.0]), st.integers(-2, 70))
def test_fuzz_unpack(target, shape, fmt, value, row):
    m = Machine()
    try:
        m.unpack(target, np.full(shape, value), fmt, row=row)
    except TilesimError:
        pass
