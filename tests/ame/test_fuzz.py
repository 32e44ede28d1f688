"""AME surfaces a fuzz reached (issue 20): numpy integer operands, 64-bit literals, stores into inputs."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tilesim.ame import Core
from tilesim.ame.asm import assemble
from tilesim.ame.runner import run_program
from tilesim.errors import ParseError, TilesimError

_NP_INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, int]


def _cast(t, v):
    """``v`` as type ``t`` where it fits, else the plain int (numpy refuses a negative uint64)."""
    try:
        return t(v) if np.iinfo(t).min <= v <= np.iinfo(t).max else v
    except ValueError:
        return v


def test_mmacc_t_takes_a_uint64_imm():
    core = Core()
    core.csrw("mxcfg", 0x10)
    core.mmacc_t(9, 8, 1, np.uint64(3))                     # was OverflowError: Python integer -8 out of bounds
    with pytest.raises(TilesimError) as e:
        core.mmacc_t(9, 8, 1, np.uint64(8))
    assert e.value.rule == "ame.imm.reserved"
    core.mmacc_t(np.uint64(9), np.uint8(8), np.int64(1), np.uint64(1))


@given(st.sampled_from(_NP_INTS), st.lists(st.integers(-2 ** 63, 2 ** 64 - 1), min_size=4, max_size=4),
       st.booleans())
def test_fuzz_mmacc_operands_of_any_integer_type(t, values, transposed):
    core = Core()
    core.csrw("mxcfg", 0x10)
    args = [_cast(t, v) for v in values]
    before = core.tiles.copy()
    try:
        (core.mmacc_t if transposed else core.mmacc)(*args)
    except TilesimError:
        assert (core.tiles == before).all()                  # a trap leaves state unchanged


@pytest.mark.parametrize("value", ["18446744073709551633", "18446744073709551616", "-9223372036854775809",
                                   "0x1_0000_0000_0000_0000"])
@pytest.mark.parametrize("form", ["li x5, {}", "csrw mxcfg, {}"])
def test_a_literal_past_64_bits_is_refused(form, value):
    with pytest.raises(ParseError) as e:
        assemble(form.format(value) + "\n")
    assert e.value.rule == "ame.asm.range" and e.value.column == form.index("{") + 1


@given(st.integers(-2 ** 70, 2 ** 70))
def test_fuzz_li_keeps_every_value_it_takes(v):
    try:
        prog = assemble(f"li x5, {v}\ncsrr x6, mxstatus\n")
    except ParseError as e:
        assert e.rule == "ame.asm.range" and not -2 ** 63 <= v < 2 ** 64
    else:
        assert -2 ** 63 <= v < 2 ** 64 and prog.instructions[0].args == (5, v)
        assert run_program(prog, {}).x[5] == v % 2 ** 64     # RV64: the register holds the low 64 bits


STORE_INTO_INPUT = """csrw mxcfg, Ft=int8
csrw mxtile, K=4 | M=2
mld tr0, x[0:2, 0:4]
mst tr0, x[2:4, 0:4], int8
mld tr1, x[0:4, 0:4]
mst tr1, y[0:4, 0:4], int8
"""


def test_a_store_into_an_input_keeps_the_rows_it_did_not_touch():
    x = np.arange(16).reshape(4, 4)
    out = run_program(assemble(STORE_INTO_INPUT), {"x": x}).outputs
    want = np.concatenate([x[:2], x[:2]])                     # rows 2..3 replaced by rows 0..1, the rest kept
    assert (out["x"] == want).all() and (out["y"] == want).all()
    assert (x == np.arange(16).reshape(4, 4)).all()           # the caller's array is not written


def test_a_store_into_an_input_that_is_not_2d_is_refused():
    prog = assemble("csrw mxcfg, Ft=int8\ncsrw mxtile, K=4 | M=2\nmst tr0, x[0:2, 0:4], int8\n")
    with pytest.raises(TilesimError, match="'x' is a 1-D input; mst writes blocks of a 2-D array"):
        run_program(prog, {"x": np.arange(4)})


@pytest.mark.parametrize("mnk", [(4294967312, 1, 1), (1, 1, 4294967312), (1, 4294967312, 1), (16385, 16385, 1)])
def test_a_gemm_past_the_size_limit_is_refused_before_drawing_inputs(mnk):
    from tilesim.ame.gemm import MAX_GEMM_ELEMENTS, plan_gemm
    from tilesim.ame.study import compare
    for call in (lambda: plan_gemm(*mnk), lambda: compare(*mnk, ["bf16"])):
        with pytest.raises(TilesimError) as e:
            call()
        assert e.value.rule == "ame.gemm.size" and f"{MAX_GEMM_ELEMENTS:,}" in str(e.value)


def test_the_largest_llm_weight_is_within_the_limit():
    from tilesim.ame.gemm import plan_gemm
    assert (plan_gemm(16, 8192, 28672).n, plan_gemm(16, 8192, 28672).k) == (8192, 28672)   # Llama-3-70B down_proj
