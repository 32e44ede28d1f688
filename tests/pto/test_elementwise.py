"""Elementwise tile-tile and tile-scalar ops, compares and selects against the oracle."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import SpecGapError, TilesimError
from tilesim.pto import Tile

from . import oracle as o
from .helpers import nan_blind, FACTS, TARGETS, make_tile, per_block, rand_bits, sentinel, seed

BIN = {"tadd": "add", "tsub": "sub", "tmul": "mul", "tdiv": "div", "tmax": "max", "tmin": "min"}
UN = {"texp": "exp", "tlog": "log", "tsqrt": "sqrt", "trsqrt": "rsqrt", "trecip": "recip", "tabs": "abs",
      "tneg": "neg", "trelu": "relu"}
SCAL = {"tadds": "add", "tsubs": "sub", "tmuls": "mul", "tdivs": "div", "tmaxs": "max", "tmins": "min"}


def _sigs(op, t):
    return [s[0] for s in sorted(pto.get_target(t).dtypes[op])]


def _data(rng, dt, shape, kind):
    if kind in ("div", "recip") and dt in o.INTS:
        return rand_bits(rng, dt, shape, special=0.0, ties=1.0) | 1
    lo, hi = (-10, 10) if kind == "exp" else (-100, 100)
    return rand_bits(rng, dt, shape, special=0.1, lo=lo, hi=hi)


@pytest.mark.parametrize("op,target,dt", [(op, t, d) for op in BIN for t in TARGETS for d in _sigs(op, t)], ids=str)
def test_binary_matches_oracle(op, target, dt):
    rng = np.random.default_rng(seed(op, target, dt))
    shape = (3, per_block(dt) + 5)
    a, b = _data(rng, dt, shape, BIN[op]), _data(rng, dt, shape, BIN[op])
    dst = make_tile(np.zeros(shape, a.dtype), dt)
    before = sentinel(dst)
    getattr(pto, op)(dst, make_tile(a, dt), make_tile(b, dt), target=target)
    f = FACTS[target]
    want = [[o.binary(BIN[op], int(x), int(y), dt, f["ftz"], f["nan"]) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    assert nan_blind(dst.bits[: shape[0], : shape[1]].tolist(), dt, target) == nan_blind(want, dt, target)
    after = dst.bits.copy()
    after[: shape[0], : shape[1]] = before[: shape[0], : shape[1]]
    assert (after == before).all()


@pytest.mark.parametrize("op,target,dt", [(op, t, d) for op in UN for t in TARGETS for d in _sigs(op, t)], ids=str)
def test_unary_matches_oracle(op, target, dt):
    rng = np.random.default_rng(seed(op, target, dt))
    shape = (3, per_block(dt) + 5)
    a = _data(rng, dt, shape, UN[op])
    dst = make_tile(np.zeros(shape, a.dtype), dt)
    getattr(pto, op)(dst, make_tile(a, dt), target=target)
    f = FACTS[target]
    want = [[o.unary(UN[op], int(x), dt, f["ftz"], f["nan"], x86=target == "cpu") for x in row] for row in a]
    assert nan_blind(dst.bits[: shape[0], : shape[1]].tolist(), dt, target) == nan_blind(want, dt, target)


@pytest.mark.parametrize("op,target,dt", [(op, t, d) for op in SCAL for t in TARGETS for d in _sigs(op, t)], ids=str)
def test_scalar_ops_match_oracle(op, target, dt):
    rng = np.random.default_rng(seed(op, target, dt))
    shape = (2, per_block(dt) + 3)
    a = _data(rng, dt, shape, SCAL[op])
    s = _data(rng, dt, (1,), SCAL[op])[0]
    num = s.view(pto.get_dtype(dt).np)  # a numpy scalar of the tile's dtype is taken bit for bit
    dst = make_tile(np.zeros(shape, a.dtype), dt)
    f = FACTS[target]
    getattr(pto, op)(dst, make_tile(a, dt), num, target=target)
    want = [[o.binary(SCAL[op], int(x), int(s), dt, f["ftz"], f["nan"]) for x in row] for row in a]
    assert dst.bits[: shape[0], : shape[1]].tolist() == want
    if op == "tdivs":  # the scalar-first overload: scalar / src
        pto.tdivs(dst, num, make_tile(a, dt), target=target)
        want = [[o.binary("div", int(s), int(x), dt, f["ftz"], f["nan"]) for x in row] for row in a]
        assert dst.bits[: shape[0], : shape[1]].tolist() == want


def test_every_f16_exp_and_log_matches_the_decimal_oracle():
    """f16 inputs against 60-digit decimal arithmetic (CPU: no flushing): log correctly rounded, exp as the
    CPU simulator's expf rounded to f16 (PTO92); NaN payloads apart."""
    x = np.arange(65536, dtype=np.uint16).reshape(256, 256)
    src, dst = make_tile(x, "f16"), Tile("vec", "f16", 256, 256)
    for op, kind in (("texp", "exp"), ("tlog", "log")):
        getattr(pto, op)(dst, src, target="cpu")
        got = dst.bits.ravel()
        sample = range(0, 65536, 7)  # every 7th code keeps the oracle under a second
        assert (nan_blind([[int(got[i]) for i in sample]], "f16", "cpu")
                == nan_blind([[o.unary(kind, i, "f16", x86=True) for i in sample]], "f16", "cpu"))


def test_f32_exp_near_rounding_boundaries():
    # inputs whose exp lies close to an f32 halfway point take the exact (decimal) path
    rng = np.random.default_rng(11)
    x = rng.uniform(-80, 80, 4000).astype(np.float32)
    dst, src = Tile("vec", "f32", 1, 4000), make_tile(x.view(np.uint32)[None, :], "f32")
    pto.texp(dst, src, target="cpu")
    assert [int(v) for v in dst.bits[0, :300]] == [o.unary("exp", int(v), "f32") for v in x.view(np.uint32)[:300]]


def test_hand_checks():
    a = Tile.from_array(np.array([[1.0, -0.0, np.inf, 3.0]], np.float32))
    b = Tile.from_array(np.array([[2.0, 0.0, np.inf, 0.0]], np.float32))
    d = Tile("vec", "f32", 1, 8, valid=(1, 4))
    pto.tsub(d, a, b)
    assert d.bits[0, 1] == 0x80000000 and np.isnan(d.values[0, 2])  # -0 - 0 = -0; inf - inf = NaN
    assert d.bits[0, 2] == 0x7FC00000  # canonical NaN
    pto.tdiv(d, a, b)
    assert d.values[0, 0] == 0.5 and d.values[0, 3] == np.inf
    pto.tmax(d, a, b, target="cpu")
    assert d.bits[0, 1] == 0x80000000  # TMAX(-0, +0) = -0 (a < b ? b : a)
    i = Tile.from_array(np.array([[7, -7, -2**31]], np.int32))
    j = Tile.from_array(np.array([[2, 2, -1]], np.int32))
    di = Tile("vec", "i32", 1, 8, valid=(1, 3))
    assert pto.tdiv(di, i, j, target="a5").values[0, :3].tolist() == [3, -3, -2**31]  # truncation, wrap
    with pytest.raises(SpecGapError) as e:
        pto.tdiv(di, i, Tile.from_array(np.array([[1, 0, 1]], np.int32)), target="a5")
    assert e.value.rule == "pto.op.div_zero"
    h = Tile.from_array(np.array([[0.1, 1e-7]], np.float16))
    dh = Tile("vec", "f16", 1, 16, valid=(1, 2))
    pto.tadds(dh, h, 0.1)  # both round to f16 0.0999755859375 (0x2E66); the sum doubles it exactly
    assert float(dh.values[0, 0]) == 0.199951171875
    pto.tmuls(dh, h, 1.0, target="a5")
    assert dh.values[0, 1] == 0  # a5 flushes the f16 subnormal 1e-7
    pto.tmuls(dh, h, 1.0, target="cpu")
    assert dh.values[0, 1] == np.float16(1e-7)


@pytest.mark.parametrize("target,dt", [(t, s[0]) for t in TARGETS for s in sorted(pto.get_target(t).dtypes["tsels"])],
                         ids=str)
def test_tsel_tsels_texpands_every_dtype(target, dt):
    rng = np.random.default_rng(seed("sel", target, dt))
    shape = (3, 21)
    a, b = rand_bits(rng, dt, shape), rand_bits(rng, dt, shape)
    mask = Tile("vec", "u8", 3, 32, valid=(3, 3))
    mask.bits[:3, :3] = rng.integers(0, 256, (3, 3), dtype=np.uint8)
    bit = lambda i, j: (int(mask.bits[i, j // 8]) >> (j % 8)) & 1
    s = a[0, 0]
    num = s.view(pto.get_dtype(dt).np)
    d = make_tile(np.zeros(shape, a.dtype), dt)
    pto.tsels(d, mask, make_tile(a, dt), num, target=target)
    assert d.bits[:3, :21].tolist() == [[int(a[i, j]) if bit(i, j) else int(s) for j in range(21)] for i in range(3)]
    if (dt,) in pto.get_target(target).dtypes["tsel"]:
        if target == "cpu":  # one bit stream over the mask's valid elements (PTO94)
            bit = lambda i, j: (int(mask.bits[(i * 21 + j) // 8 // 3, (i * 21 + j) // 8 % 3]) >> ((i * 21 + j) % 8)) & 1
        pto.tsel(d, mask, make_tile(a, dt), make_tile(b, dt), target=target)
        assert d.bits[:3, :21].tolist() == [[int(a[i, j]) if bit(i, j) else int(b[i, j]) for j in range(21)]
                                            for i in range(3)]
    if (dt,) in pto.get_target(target).dtypes["texpands"]:
        pto.texpands(d, num, target=target)
        assert (d.bits[:3, :21] == s).all()


def test_texpands_and_scalar_conversion():
    d = Tile("vec", "f32", 2, 8, valid=(2, 3))
    before = sentinel(d)
    pto.texpands(d, 0.1)
    assert (d.values[:2, :3] == np.float32(0.1)).all()
    assert (d.bits[:, 3:] == before[:, 3:]).all()
    with pytest.raises(TilesimError) as e:
        pto.texpands(Tile("vec", "i8", 1, 32), 300)
    assert e.value.rule == "pto.value.range"
    with pytest.raises(TilesimError):
        pto.texpands(Tile("vec", "i32", 1, 8), 2.5)
    with pytest.raises(TilesimError) as e:
        pto.tadds(d, d, np.ones(3))
    assert e.value.rule == "pto.op.operand"


# ------------------------------------------------------------------ compares
CMP = ("eq", "ne", "lt", "le", "gt", "ge")
_PRED = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
         "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


def _expect_mask(a, b, dt, mode, width, target):
    if target == "a2a3" and dt == "i32":
        mode = "eq"  # A2A3 compares int32 with EQ whatever the mode (docs/isa/TCMP.md)
    rows = []
    for ra, rb in zip(a, b):
        words = [0] * (-(-len(ra) // width))
        for j, (x, y) in enumerate(zip(ra, rb)):
            if _PRED[mode](o.dec(int(x), dt), o.dec(int(y), dt)):
                words[j // width] |= 1 << (j % width)
        rows.append(words)
    return rows


@pytest.mark.parametrize("target,src_dt,mask_dt", [(t, *s) for t in TARGETS for s in sorted(pto.get_target(t).dtypes["tcmp"])],
                         ids=str)
def test_tcmp_and_tsel(target, src_dt, mask_dt):
    prof = pto.get_target(target)
    for mode in CMP:
        rng = np.random.default_rng(seed(target, mode, src_dt))
        shape = (3, 37)
        a, b = rand_bits(rng, src_dt, shape, ties=0.6), rand_bits(rng, src_dt, shape, ties=0.6)
        width = o.BITS[mask_dt]
        mask = Tile("vec", mask_dt, 3, max(32 // (width // 8), -(-37 // width)), valid=(3, -(-37 // width)))
        pto.tcmp(mask, make_tile(a, src_dt), make_tile(b, src_dt), mode, target=target)
        want = _expect_mask(a, b, src_dt, mode, width, target)
        assert mask.bits[:3, : len(want[0])].tolist() == want
        if (src_dt,) in prof.dtypes["tsel"] and target != "cpu":  # cpu's TSEL reads a stream (PTO94)
            d = make_tile(np.zeros(shape, a.dtype), src_dt)
            pto.tsel(d, mask, make_tile(a, src_dt), make_tile(b, src_dt), target=target)
            bits = [[(want[i][j // width] >> (j % width)) & 1 for j in range(37)] for i in range(3)]
            assert d.bits[:3, :37].tolist() == [[int(a[i, j]) if bits[i][j] else int(b[i, j]) for j in range(37)]
                                              for i in range(3)]


@pytest.mark.parametrize("target", TARGETS)
def test_tcmps_and_tsels(target):
    dt = "f32"
    mask_dt = "u8" if target == "a2a3" else "u32"
    x = Tile.from_array(np.array([[1.0, 2.0, np.nan, 4.0, 2.0]], np.float32))
    m = Tile("vec", mask_dt, 1, 32 // (o.BITS[mask_dt] // 8), valid=(1, 1))
    pto.tcmps(m, x, 2.0, "ge", target=target)
    assert int(m.bits[0, 0]) == 0b11010  # NaN compares false
    d = Tile("vec", dt, 1, 8, valid=(1, 5))
    pto.tsels(d, m, x, -1.0, target=target)
    assert d.values[0, :5].tolist() == [-1.0, 2.0, -1.0, 4.0, 2.0]
    if target == "a2a3":
        i = Tile.from_array(np.array([[1, 5]], np.int32))
        pto.tcmps(m, i, 3, "lt", target=target)
        assert int(m.bits[0, 0]) == 0  # int32 compares EQ on A2A3


def _err(fn, *a, **k):
    with pytest.raises(TilesimError) as e:
        fn(*a, **k)
    return e.value


def test_elementwise_errors():
    a = Tile("vec", "f32", 2, 8)
    assert _err(pto.tadd, a, a, Tile("vec", "f32", 2, 8, valid=(2, 7))).rule == "pto.op.valid_match"
    assert _err(pto.tadd, a, a, Tile("vec", "f16", 2, 16)).rule == "pto.op.same_dtype"
    assert _err(pto.tadd, a, a, Tile("vec", "f32", 8, 8, blayout="col_major")).rule == "pto.op.layout"
    assert _err(pto.tadd, Tile("vec", "u8", 1, 32), Tile("vec", "u8", 1, 32), Tile("vec", "u8", 1, 32),
                target="a2a3").rule == "pto.op.dtype"
    assert _err(pto.tadd, a, a, Tile("mat", "f32", 2, 8)).rule == "pto.op.loc"
    assert _err(pto.texp, Tile("vec", "i32", 2, 8), Tile("vec", "i32", 2, 8)).rule == "pto.op.dtype"
    m = Tile("vec", "u32", 2, 8, valid=(2, 1))
    assert _err(pto.tcmp, m, a, a, "lq").rule == "pto.op.cmp_mode"
    assert _err(pto.tcmp, Tile("vec", "u8", 2, 32, valid=(2, 1)), Tile("vec", "f32", 2, 16),
                Tile("vec", "f32", 2, 16), target="a2a3").rule == "pto.op.mask_cols"
    assert _err(pto.tcmp, m, a, a, target="a2a3").rule == "pto.op.dtype"  # A2A3 masks are u8
    assert _err(pto.tsel, a, Tile("vec", "f32", 2, 8), a, a).rule == "pto.op.mask_dtype"
    assert _err(pto.tsel, a, Tile("vec", "u8", 1, 32), a, a).rule == "pto.op.mask_cols"


def test_cpu_compare_select_any_layout():
    """cpu reads TCMP/TSEL data tiles by logical element in every layout (PTO46): a DN or boxed copy of the
    operands gives the row-major answer; the NPU targets still refuse a DN data tile."""
    rng = np.random.default_rng(seed())
    a, b = rand_bits(rng, "f32", (16, 32), special=0.2), rand_bits(rng, "f32", (16, 32), special=0.2)
    mask = rand_bits(rng, "u8", (16, 32))

    def run(bl, sl):
        src0, src1 = (Tile("vec", "f32", 16, 32, valid=(13, 7), blayout=bl, slayout=sl) for _ in "ab")
        src0.bits[...], src1.bits[...] = a, b
        m = Tile("vec", "u32", 16, 8, valid=(13, 1))
        pto.tcmp(m, src0, src1, "lt", target="cpu")
        sel = Tile("vec", "f32", 16, 32, valid=(13, 7), blayout=bl, slayout=sl)
        mk = Tile("vec", "u8", 16, 32)
        mk.bits[...] = mask
        pto.tsel(sel, mk, src0, src1, target="cpu")
        return m.bits.copy(), sel.bits[:13, :7].copy()

    want = run("row_major", "none_box")
    for bl, sl in (("col_major", "none_box"), ("col_major", "row_major"), ("row_major", "col_major")):
        got = run(bl, sl)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))
    dn = Tile("vec", "f32", 16, 32, blayout="col_major")
    assert _err(pto.tcmp, Tile("vec", "u8", 16, 32), dn, dn, target="a2a3").rule == "pto.op.layout"


@pytest.mark.parametrize("blayout", ["row_major", "col_major"])
def test_f16_tneg_quiets_snan_in_the_scalar_tail_on_cpu(blayout):
    """cpu f16 TNEG: the vector body (16 lanes a step along the inner index) flips the sign bit of a signaling
    NaN; the scalar tail negates in f32 and quiets it (PTO73; golden vectors tneg.npz)."""
    rows, cols, valid = (16, 64, (3, 45)) if blayout == "row_major" else (64, 16, (45, 3))
    src = Tile("vec", "f16", rows, cols, valid=valid, blayout=blayout)
    src.bits[...] = 0x7C01
    dst = Tile("vec", "f16", rows, cols, valid=valid, blayout=blayout)
    out = pto.tneg(dst, src, target="cpu").bits[: valid[0], : valid[1]]
    inner = np.arange(valid[1])[None, :] if blayout == "row_major" else np.arange(valid[0])[:, None]
    want = np.where(np.broadcast_to(inner >= 32, valid), 0xFE01, 0xFC01)
    assert (out == want).all()
    if blayout == "row_major":  # a sign flip everywhere on the NPU targets
        assert (pto.tneg(dst, src, target="a5").bits[: valid[0], : valid[1]] == 0xFC01).all()
