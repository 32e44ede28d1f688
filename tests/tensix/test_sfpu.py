"""SFPU instructions: table rows against tt-llk's macros, lane predication, Dst access, error rules,
and that a refused instruction leaves the machine as it was. Bit-exact agreement with ttsim over
thousands of cases is test_ttsim_sfpu_golden.py; the FMA is test_sfpu_fma.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim.errors import SpecGapError, TilesimError, UnsupportedError
from tilesim.tensix import Machine, parse
from tilesim.tensix.isa import BY_MNEMONIC, SFPU_ROWS

# tt-llk tt_llk_wormhole_b0/common/inc/ckernel_ops.h: TT_OP_<name> opcode and argument shifts, in order.
TT_LLK = {
    "SFPLOAD": (0x70, (20, 16, 14, 0)), "SFPLOADI": (0x71, (20, 16, 0)), "SFPSTORE": (0x72, (20, 16, 14, 0)),
    "SFPLUT": (0x73, (20, 16, 0)), "SFPMULI": (0x74, (8, 4, 0)), "SFPADDI": (0x75, (8, 4, 0)),
    "SFPMAD": (0x84, (16, 12, 8, 4, 0)), "SFPADD": (0x85, (16, 12, 8, 4, 0)), "SFPMUL": (0x86, (16, 12, 8, 4, 0)),
    "SFP_STOCH_RND": (0x8E, (21, 16, 12, 8, 4, 0)), "SFPCAST": (0x90, (8, 4, 0)), "SFPCONFIG": (0x91, (8, 4, 0)),
    "SFPSWAP": (0x92, (12, 8, 4, 0)), "SFPLOADMACRO": (0x93, (20, 16, 14, 0)), "SFPSHFT2": (0x94, (12, 8, 4, 0)),
    "SFPLUTFP32": (0x95, (4, 0)), "SFPNOP": (0x8F, ()),
    **{n: (op, (12, 8, 4, 0)) for n, op in (
        ("SFPDIVP2", 0x76), ("SFPEXEXP", 0x77), ("SFPEXMAN", 0x78), ("SFPIADD", 0x79), ("SFPSHFT", 0x7A),
        ("SFPSETCC", 0x7B), ("SFPMOV", 0x7C), ("SFPABS", 0x7D), ("SFPAND", 0x7E), ("SFPOR", 0x7F), ("SFPNOT", 0x80),
        ("SFPLZ", 0x81), ("SFPSETEXP", 0x82), ("SFPSETMAN", 0x83), ("SFPPUSHC", 0x87), ("SFPPOPC", 0x88),
        ("SFPSETSGN", 0x89), ("SFPENCC", 0x8A), ("SFPCOMPC", 0x8B), ("SFPTRANSP", 0x8C), ("SFPXOR", 0x8D))},
}


def test_every_wormhole_sfpu_opcode_is_a_row_with_tt_llk_argument_positions():
    assert {r.mnemonic for r in SFPU_ROWS} == set(TT_LLK)
    assert sorted(r.opcode for r in SFPU_ROWS) == list(range(0x70, 0x96))
    for name, (op, shifts) in TT_LLK.items():
        row = BY_MNEMONIC[name]
        assert row.opcode == op and tuple(a.lo for a in row.args) == shifts, name


def test_only_sfploadmacro_is_refused_and_it_says_why():
    assert [r.mnemonic for r in SFPU_ROWS if r.status != "implemented"] == ["SFPLOADMACRO"]
    with pytest.raises(UnsupportedError, match="ttsim"):
        Machine().execute("TTI_SFPLOADMACRO(0, 0, 0, 0)")


def lanes(m: Machine, reg: int) -> np.ndarray:
    return m.sfpu.lregs[reg].copy()


def test_if_else_endif_with_the_condition_stack():
    """v = lane index; if v < 10: v = 1.0 else: v = -1.0 (SFPSETCC / SFPCOMPC within SFPPUSHC..SFPPOPC)."""
    m = Machine()
    m.sfpu.lregs[0] = np.arange(32) - 10                  # int32: negative on lanes 0..9
    m.run("""TTI_SFPPUSHC(0, 0, 0, 0)
             TTI_SFPSETCC(0, 0, 0, 0)          // flags: v < 0
             TTI_SFPLOADI(1, 0, 0x3f80)        // 1.0 where set
             TTI_SFPCOMPC(0, 0, 0, 0)
             TTI_SFPLOADI(1, 0, 0xbf80)        // -1.0 elsewhere
             TTI_SFPPOPC(0, 0, 0, 0)""")
    assert (lanes(m, 1)[:10] == 0x3F800000).all() and (lanes(m, 1)[10:] == 0xBF800000).all()
    assert m.sfpu.flags.all() and m.sfpu.stack == []


def test_stack_overflow_and_underflow_are_undefined():
    m = Machine()
    m.run(["TTI_SFPPUSHC(0, 0, 0, 0)"] * 8)
    with pytest.raises(SpecGapError) as e:
        m.execute("TTI_SFPPUSHC(0, 0, 0, 0)")
    assert e.value.rule == "tt.sfpu.stack" and len(m.sfpu.stack) == 8
    with pytest.raises(SpecGapError):
        Machine().execute("TTI_SFPPOPC(0, 0, 0, 0)")


def test_sfpload_lane_layout_and_sfpstore_round_trip():
    """Lane 8r + c reads Dst row (addr & ~3) + r, column 2c (+1 when addr bit 1 is set); BF16 mode."""
    m = Machine()
    m.dst[:4] = np.arange(64).reshape(4, 16)
    m.execute("TTI_SFPLOAD(0, 6, 0, 2)")                     # raw 16-bit, odd columns
    want = np.arange(64).reshape(4, 16)[:, 1::2].ravel()
    assert np.array_equal(lanes(m, 0), want)
    m.execute("TTI_SFPSTORE(0, 6, 0, 4)")                    # rows 4..7, even columns
    assert np.array_equal(m.dst[4:8, 0::2].ravel(), want) and (m.dst[4:8, 1::2] == 0).all()


def test_fp32_store_flushes_denormals_but_mode_4_keeps_them():
    m = Machine()
    m.sfpu.lregs[0] = 0x00000123
    m.execute("TTI_SFPSTORE(0, 3, 0, 0)")
    m.execute("TTI_SFPLOAD(1, 4, 0, 0)")
    m.execute("TTI_SFPSTORE(0, 4, 0, 8)")
    m.execute("TTI_SFPLOAD(2, 4, 0, 8)")
    assert (lanes(m, 1) == 0).all() and (lanes(m, 2) == 0x123).all()


def test_disabled_lanes_keep_their_values():
    m = Machine()
    m.sfpu.flags[:] = np.arange(32) % 2 == 0
    m.execute("TTI_SFPLOADI(0, 2, 7)")
    v = lanes(m, 0)
    assert (v[0::2] == 7).all() and (v[1::2] == 0).all()


@pytest.mark.parametrize("text, rule", [
    ("TTI_SFPMAD(0, 1, 2, 3, 1)", "tt.sfpu.ub"),           # reserved instr_mod1 bit
    ("TTI_SFPADD(0, 1, 2, 3, 0)", "tt.sfpu.ub"),           # neither factor is LReg10
    ("TTI_SFPMUL(0, 1, 2, 3, 0)", "tt.sfpu.ub"),           # addend is not LReg9
    ("TTI_SFPNOT(1, 2, 3, 0)", "tt.sfpu.reserved"),        # imm12 bits ttsim gives no field
    ("TTI_SFPLOADI(0, 3, 0)", "tt.sfpu.ub"),               # instr_mod0 3
    ("TTI_SFPLOAD(0, 1, 0, 0)", "tt.sfpu.unmodelled"),     # instr_mod0 1 (FP16 direct) not modelled
    ("TTI_SFPLOAD(0, 2, 0, 1)", "tt.sfpu.unmodelled"),     # odd Dst address
    ("TTI_SFPSHFT2(0, 1, 2, 4)", "tt.sfpu.unmodelled"),    # the Wormhole-broken mode 4
    ("TT_SFP_STOCH_RND(1, 0, 0, 1, 2, 1)", "tt.sfpu.unmodelled"),   # stochastic rounding
    ("TTI_SFPCONFIG(0, 9, 1)", "tt.sfpu.ub"),              # config_dest 9
])
def test_refusals_name_their_rule_and_leave_the_state(text, rule):
    m = Machine()
    m.sfpu.lregs[:8] = np.arange(256).reshape(8, 32)
    before = (m.sfpu.lregs.copy(), m.sfpu.flags.copy(), m.dst.copy(), m.rwc[0].as_dict())
    with pytest.raises(TilesimError) as e:
        m.execute(text)
    assert e.value.rule == rule and e.value.instruction == parse(text).mnemonic
    assert np.array_equal(m.sfpu.lregs, before[0]) and np.array_equal(m.sfpu.flags, before[1])
    assert np.array_equal(m.dst, before[2]) and m.rwc[0].as_dict() == before[3]


def test_template_capture_through_lreg_dest_12_to_15():
    m = Machine()
    m.execute("TTI_SFPMAD(0, 1, 2, 13, 0)")
    assert m.sfpu.templates[1] == parse("TTI_SFPMAD(0, 1, 2, 13, 0)").word()
    assert (m.sfpu.lregs[13] == 0xBF2CC4C7).all()


def test_jit_and_numpy_paths_agree_on_a_multiply_add_program():
    rng = np.random.default_rng(3)
    data = rng.standard_normal((4, 32)).astype(np.float32).view(np.uint32)
    out = []
    for jit in (True, False):
        m = Machine(jit=jit)
        m.sfpu.lregs[:4] = data
        m.sfpu.flags[:] = rng.random(32) < 0.7 if jit else out[0][1]
        m.run(["TTI_SFPMAD(0, 1, 2, 3, 0)", "TTI_SFPMULI(0x3fc0, 3, 0)", "TTI_SFPADDI(0x4000, 3, 0)",
               "TTI_SFPADD(10, 3, 0, 4, 0)", "TTI_SFPMUL(3, 4, 9, 5, 0)"])
        out.append((m.sfpu.lregs.copy(), m.sfpu.flags.copy()))
    assert np.array_equal(out[0][0], out[1][0])


def test_copy_is_deep():
    m = Machine()
    c = m.copy()
    c.execute("TTI_SFPLOADI(0, 2, 5)")
    assert (m.sfpu.lregs[0] == 0).all() and (c.sfpu.lregs[0] == 5).all()


def test_doc_rounding_model_runs_the_pages_multiply_add():
    from tilesim.tensix.sfpu.fma import fma, fma_doc
    rng = np.random.default_rng(8)
    data = rng.standard_normal((3, 32)).astype(np.float32).view(np.uint32)
    got = {}
    for model in ("hardware", "doc"):
        m = Machine(model)
        m.sfpu.lregs[:3] = data
        m.execute("TTI_SFPMAD(0, 1, 2, 3, 0)")
        got[model] = m.sfpu.lregs[3].copy()
    assert np.array_equal(got["hardware"], fma(*data)) and np.array_equal(got["doc"], fma_doc(*data))


# -- independent properties (numpy and the format core as oracles) ---------------------------------

def _all16_through_sfpload(mod0: int, srcb_fmt: int = 5) -> np.ndarray:
    """Every 16-bit Dst datum loaded by SFPLOAD (32 at a time, rows 0..3 even columns)."""
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG1_SrcB=srcb_fmt)
    codes = np.arange(1 << 16, dtype=np.uint32).reshape(-1, 4, 8)
    out = np.empty(codes.shape, np.uint32)
    word = parse(f"TTI_SFPLOAD(0, {mod0}, 0, 0)").word()
    for i, block in enumerate(codes):
        m.dst[0:4, 0::2] = block
        m.execute(word)
        out[i] = m.sfpu.lregs[0].reshape(4, 8)
    return out.reshape(-1)


def test_sfpload_bf16_exhaustively():
    from tilesim.tensix.layouts import dst16_from_bf16
    got = _all16_through_sfpload(2)
    # the Dst datum of IEEE BF16 b is dst16_from_bf16(b); SFPLOAD gives b << 16
    ieee = np.empty(1 << 16, np.uint32)
    ieee[dst16_from_bf16(np.arange(1 << 16)).astype(np.int64)] = np.arange(1 << 16, dtype=np.uint32) << 16
    assert np.array_equal(got, ieee)


def test_sfpload_fp16_exhaustively():
    """Mode 0 with SrcB FP16: the FP16 value, exactly, for every exponent but 0 (the mantissa lands in an
    FP32 denormal, which arithmetic reads as zero) and 31 (an ordinary finite value, no Inf or NaN)."""
    from tilesim import formats
    from tilesim.tensix.layouts import dst16_to_fp16
    bits = _all16_through_sfpload(0, srcb_fmt=1)
    got = bits.view(np.float32).astype(np.float64)
    fp16 = dst16_to_fp16(np.arange(1 << 16)).astype(np.uint32)
    e = (fp16 >> 10) & 31
    normal = (e > 0) & (e < 31)
    assert np.array_equal(got[normal], formats.decode(fp16[normal], "fp16"))
    z = fp16[e == 0]
    assert np.array_equal(bits[e == 0], (z >> 15 << 31) | ((z & 0x3FF) << 13))
    big = formats.decode(fp16[e == 31] & 0xFBFF, "fp16") * 2.0               # exponent 31 = 30, doubled
    assert np.array_equal(got[e == 31], big)


def _run_on(data: dict[int, np.ndarray], text: str) -> np.ndarray:
    m = Machine()
    for r, v in data.items():
        m.sfpu.lregs[r] = v
    m.execute(text)
    return m.sfpu.lregs


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=64, max_size=64))
def test_sfpiadd_is_wrapping_int32_addition(xs):
    c, d = np.array(xs[:32], np.uint32), np.array(xs[32:], np.uint32)
    out = _run_on({1: c, 2: d}, "TTI_SFPIADD(0, 1, 2, 4)")     # mod1 4: no flags
    assert np.array_equal(out[2], (c.astype(np.int64) + d) & 0xFFFFFFFF)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(width=32, allow_nan=False), min_size=64, max_size=64))
def test_sfpswap_mode_1_orders_as_floats_with_negative_zero_first(xs):
    c, d = np.array(xs[:32], np.float32), np.array(xs[32:], np.float32)
    out = _run_on({1: c.view(np.uint32), 2: d.view(np.uint32)}, "TTI_SFPSWAP(0, 1, 2, 1)")
    lo, hi = out[2].view(np.float32), out[1].view(np.float32)
    key = lambda v: (v.astype(np.float64), ~np.signbit(v))          # noqa: E731  -0 before +0
    assert all(key(lo[i:i + 1]) <= key(hi[i:i + 1]) for i in range(32))
    assert sorted(map(float, np.concatenate([lo, hi]))) == sorted(map(float, np.concatenate([c, d])))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(-(2**31) + 1, 2**31 - 1), min_size=32, max_size=32))
def test_sfpcast_is_round_to_nearest_even(xs):
    v = np.array(xs, np.int64)
    sm = (np.where(v < 0, 1 << 31, 0) | np.abs(v)).astype(np.uint32)      # sign-magnitude
    out = _run_on({1: sm}, "TTI_SFPCAST(1, 2, 0)")
    assert np.array_equal(out[2].view(np.float32), v.astype(np.float32))  # numpy's int -> float32 is RNE


def test_sfptransp_twice_is_the_identity_and_moves_rows_between_registers():
    data = np.random.default_rng(2).integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(np.uint32)
    m = Machine()
    m.sfpu.lregs[:8] = data
    m.execute("TTI_SFPTRANSP(0, 0, 0, 0)")
    g = data.reshape(8, 4, 8)
    assert np.array_equal(m.sfpu.grid[:4], g[:4].transpose(1, 0, 2))
    assert np.array_equal(m.sfpu.grid[4:8], g[4:8].transpose(1, 0, 2))
    m.execute("TTI_SFPTRANSP(0, 0, 0, 0)")
    assert np.array_equal(m.sfpu.lregs[:8], data)


def test_sfpstore_then_sfpload_keeps_every_32_bit_pattern():
    data = np.random.default_rng(3).integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    m = Machine()
    m.sfpu.lregs[0] = data
    m.run(["TTI_SFPSTORE(0, 4, 0, 6)", "TTI_SFPLOAD(1, 4, 0, 6)", "TTI_SFPSTORE(0, 12, 0, 16)",
           "TTI_SFPLOAD(2, 12, 0, 16)", "TTI_SFPSTORE(0, 7, 0, 20)"])
    assert np.array_equal(m.sfpu.lregs[1], data) and np.array_equal(m.sfpu.lregs[2] & 0xFFFFFFFF,
                                                                     np.where(data == 0x80000000, 0, data))
