"""The reduce family against the scalar oracle and numpy, for every op x supported dtype x target."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError, UnsupportedError
from tilesim.pto import Tile
from tilesim.pto.targets import CPU_CAST_FIRST, CPU_CAST_FIRST_BF16

from . import oracle as o
from .helpers import nan_blind, FACTS, TARGETS, col_dst, lines, make_tile, per_block, rand_bits, row_dst, sentinel, seed

CAST_FIRST = CPU_CAST_FIRST | CPU_CAST_FIRST_BF16  # the cpu-only pairs (PTO67)
ROW = ("trowsum", "trowmax", "trowmin", "trowprod")
COL = ("tcolsum", "tcolmax", "tcolmin", "tcolprod")


def _sigs(key: str, target: str):
    return sorted(pto.get_target(target).dtypes[key])


def _row_expect(op, bits, src, dst, target):
    f = FACTS[target]
    out = []
    for line in lines(bits, 1):
        if op == "trowsum" and target == "cpu" and src == dst == "f32":
            out.append(o.vector_rowsum(line))
        elif op == "trowsum":
            out.append(o.seq_sum(line, src, dst, f["ftz"], acc_f32=True))
        elif op == "trowprod":
            out.append(o.seq_prod(line, src, dst, f["ftz"]))
        else:
            out.append(o.widen(o.scan_extreme(line, src, op[4:], f["nan"])[1], src, dst))
    return out


def _col_expect(op, bits, src, dst, target, is_binary=False):
    f = FACTS[target]
    out = []
    for line in lines(bits, 0):
        if op == "tcolsum":
            out.append(o.pairwise_sum(line, dst, f["ftz"]) if is_binary and src in o.FLOATS
                       else o.seq_sum(line, src, dst, f["ftz"], acc_f32=False))
        elif op == "tcolprod":
            out.append(o.seq_prod(line, src, dst, f["ftz"]))
        else:
            out.append(o.widen(o.scan_extreme(line, src, op[4:], f["nan"])[1], src, dst))
    return out


ROW_CASES = [(op, t, s) for op in ROW for t in TARGETS for s in _sigs(op, t) if s not in CAST_FIRST]
COL_CASES = [(op, t, s) for op in COL for t in TARGETS for s in _sigs(op, t) if s not in CAST_FIRST]


@pytest.mark.parametrize("op,target,sig", ROW_CASES, ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_row_reduce_matches_oracle(op, target, sig):
    src_dt, dst_dt = sig
    rng = np.random.default_rng(seed(op, target, sig))
    vr, vc = 5, 2 * per_block(src_dt) + 3
    bits = rand_bits(rng, src_dt, (vr, vc), special=0.05 if op != "trowprod" else 0.02)
    src = make_tile(bits, src_dt)
    dst = row_dst(dst_dt, vr, dn=seed(op) % 2 == 0)
    before = sentinel(dst)
    getattr(pto, op)(dst, src, Tile("vec", src_dt, vr, src.cols), target=target)
    want = _row_expect(op, bits, src_dt, dst_dt, target)
    assert nan_blind([dst.bits[:vr, 0]], dst_dt, target) == nan_blind([want], dst_dt, target)
    after = dst.bits.copy()
    after[:vr, 0] = before[:vr, 0]
    assert (after == before).all(), "only column 0 of the valid rows may change"


def _cast_first(line, src, dst):
    """``static_cast<dst>`` of each element (the CPU simulator's ND row max/min/prod, PTO67), undefined flags."""
    if src in o.FLOATS and dst in o.FLOATS:
        return zip(*(o.cpu_tcvt(b, src, dst, "NONE", False) for b in line))
    if src in o.FLOATS:  # u8 through the 32-bit cvttss2si; undefined outside dst's range either way
        return zip(*((o.x86_cast(float(o.dec(b, src)), "i32")[0] % 256, o.x86_cast(float(o.dec(b, src)), dst)[1])
                     if dst == "u8" else o.x86_cast(float(o.dec(b, src)), dst) for b in line))
    if dst in o.INTS:
        return [o.int_bits(o.dec(b, src), dst) for b in line], [False] * len(line)
    return [o.round_bits(Fraction(o.dec(b, src)), dst) if o.dec(b, src) else 0 for b in line], [False] * len(line)


@pytest.mark.parametrize("op", ("trowmax", "trowmin", "trowprod"))
@pytest.mark.parametrize("sig", sorted(CPU_CAST_FIRST), ids="-".join)
def test_row_reduce_cast_first_on_cpu(op, sig):
    """Pairs that are not exact widenings: cpu casts each element to dst first, marks undefined casts; the NPU
    targets refuse them."""
    src_dt, dst_dt = sig
    rng = np.random.default_rng(seed(op, sig))
    vr, vc = 4, per_block(src_dt) + 3
    bits = rand_bits(rng, src_dt, (vr, vc), special=0.05 if op != "trowprod" else 0.02)
    dst = row_dst(dst_dt, vr, dn=False)
    getattr(pto, op)(dst, make_tile(bits, src_dt), target="cpu")
    want, bad = [], []
    for line in lines(bits, 1):
        cast, ub = _cast_first(line, src_dt, dst_dt)
        want.append(o.seq_prod(list(cast), dst_dt, dst_dt, False) if op == "trowprod"
                    else o.scan_extreme(list(cast), dst_dt, op[4:], FACTS["cpu"]["nan"])[1])
        bad.append(any(ub))
    assert nan_blind([dst.bits[:vr, 0]], dst_dt, "cpu") == nan_blind([want], dst_dt, "cpu")
    assert list(dst.undefined[:vr, 0]) == bad
    for target in ("a2a3", "a5"):
        assert _err(getattr(pto, op), row_dst(dst_dt, vr, dn=False), make_tile(bits, src_dt), target=target
                    ).rule == "pto.op.dtype"


def _common_value(bits, t, other):
    """A value of ``t`` as C++ compares it with an ``other``: as f32 where either is a float (clang evaluates f16
    in f32), else in the common integer type (int for narrow types; unsigned wins at equal or greater width)."""
    v = o.dec(bits, t)
    if t in o.FLOATS or other in o.FLOATS:
        return float(v) if t in o.FLOATS else o.dec(o.round_bits(Fraction(v), "f32"), "f32") if v else 0.0
    (nt, st), (no, so) = o.INTS[t], o.INTS[other]
    nt, st, no, so = max(nt, 32), st or nt < 32, max(no, 32), so or no < 32
    if st == so:
        unsigned = not st
    else:
        unsigned = (nt if not st else no) >= (no if not st else nt)  # the unsigned one at least as wide
    return v % (1 << max(nt, no)) if unsigned else v


@pytest.mark.parametrize("op", ("tcolmin", "tcolprod"))
@pytest.mark.parametrize("sig", sorted(CPU_CAST_FIRST), ids="-".join)
def test_col_reduce_cast_first_on_cpu(op, sig):
    """TCOLMIN compares ``src[i] < min`` in the common type and keeps ``static_cast<D>``; TCOLPROD multiplies the
    casts; the lanes of undefined casts the loop ran are marked; a2a3/a5 refuse the pairs."""
    src_dt, dst_dt = sig
    rng = np.random.default_rng(seed(op, sig, 2))
    vr, vc = 6, per_block(src_dt) + 3
    bits = rand_bits(rng, src_dt, (vr, vc), special=0.05 if op != "tcolprod" else 0.02)
    dst = col_dst(dst_dt, vc)
    getattr(pto, op)(dst, make_tile(bits, src_dt), target="cpu")
    want, bad = [], []
    for line in lines(bits, 0):
        cast, ub = (list(x) for x in _cast_first(line, src_dt, dst_dt))
        if op == "tcolprod":
            want.append(o.seq_prod(cast, dst_dt, dst_dt, False))
            bad.append(any(ub))
            continue
        k, hit = 0, ub[0]
        for i in range(1, len(line)):
            if _common_value(line[i], src_dt, dst_dt) < _common_value(cast[k], dst_dt, src_dt):
                k, hit = i, hit or ub[i]
        want.append(cast[k])
        bad.append(hit)
    assert nan_blind([dst.bits[0, :vc]], dst_dt, "cpu") == nan_blind([want], dst_dt, "cpu")
    assert list(dst.undefined[0, :vc]) == bad
    for target in ("a2a3", "a5"):
        assert _err(getattr(pto, op), col_dst(dst_dt, vc), make_tile(bits, src_dt), target=target
                    ).rule == "pto.op.dtype"


def test_tcolmin_f16_bf16_refused_on_cpu():
    """g++ rejects TCOLMIN's mixed compare of f16 and bf16; the other four unchecked reduces take the pair."""
    for s, d in (("f16", "bf16"), ("bf16", "f16")):
        assert _err(pto.tcolmin, col_dst(d, 8), make_tile(np.zeros((2, 8), np.uint16), s), target="cpu"
                    ).rule == "pto.op.dtype"
        pto.tcolprod(col_dst(d, 8), make_tile(np.zeros((2, 8), np.uint16), s), target="cpu")


@pytest.mark.parametrize("op,target,sig", COL_CASES, ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_col_reduce_matches_oracle(op, target, sig):
    src_dt, dst_dt = sig
    rng = np.random.default_rng(seed(op, target, sig, 1))
    vr, vc = 7, per_block(src_dt) + 3
    bits = rand_bits(rng, src_dt, (vr, vc), special=0.05 if op != "tcolprod" else 0.02)
    src = make_tile(bits, src_dt, rows=vr + 2)
    dst = col_dst(dst_dt, vc, rows=2)
    before = sentinel(dst)
    getattr(pto, op)(dst, src, target=target)
    want = _col_expect(op, bits, src_dt, dst_dt, target)
    assert nan_blind([dst.bits[0, :vc]], dst_dt, target) == nan_blind([want], dst_dt, target)
    after = dst.bits.copy()
    after[0, :vc] = before[0, :vc]
    assert (after == before).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_tcolsum_binary_tree(target, dt):
    if ("f16" == dt) and (dt, dt) not in pto.get_target(target).dtypes["tcolsum"]:
        pytest.skip("not supported")
    rng = np.random.default_rng(7)
    bits = rand_bits(rng, dt, (9, 20), special=0.0, lo=-1e3, hi=1e3)
    src, dst = make_tile(bits, dt), col_dst(dt, 20)
    pto.tcolsum(dst, src, is_binary=True, target=target)
    pairwise = target != "cpu"  # the CPU simulator ignores isBinary (PTO86)
    assert [int(v) for v in dst.bits[0, :20]] == _col_expect("tcolsum", bits, dt, dt, target, is_binary=pairwise)


# ------------------------------------------------- odd shapes, numpy goldens
ODD = [(1, 255), (77, 81), (161, 161), (16, 255), (3, 1)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("shape", ODD, ids=str)
def test_trowmax_odd_shapes_against_numpy(target, dt, shape):
    """The upstream golden: np.max over the valid prefix (no NaN in the data)."""
    rng = np.random.default_rng(19)
    x = rng.uniform(-16, 16, shape).astype(np.float32 if dt == "f32" else np.float16)
    src = make_tile(x.view(np.uint32 if dt == "f32" else np.uint16), dt)
    dst = row_dst(dt, shape[0], dn=True)
    pto.trowmax(dst, src, target=target)
    assert (dst.values[: shape[0], 0] == x.max(axis=1)).all()
    pto.trowmin(dst, src, target=target)
    assert (dst.values[: shape[0], 0] == x.min(axis=1)).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt,idx", [("f32", "u32"), ("f16", "i32"), ("f32", "i32")])
@pytest.mark.parametrize("shape", ODD, ids=str)
def test_tcolargmax_odd_shapes_against_numpy(target, dt, idx, shape):
    """First-occurrence argmax over the valid prefix; integer-valued data so ties are frequent."""
    rng = np.random.default_rng(23)
    x = np.trunc(rng.uniform(-100, 100, shape)).astype(np.float32 if dt == "f32" else np.float16)
    src = make_tile(x.view(np.uint32 if dt == "f32" else np.uint16), dt)
    dst = col_dst(idx, shape[1])
    pto.tcolargmax(dst, src, target=target)
    assert (dst.values[0, : shape[1]] == np.argmax(x, axis=0)).all()
    pto.tcolargmin(dst, src, target=target)
    assert (dst.values[0, : shape[1]] == np.argmin(x, axis=0)).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(77, 81), (161, 161), (1, 255)], ids=str)
def test_sums_odd_shapes_against_oracle(target, shape):
    rng = np.random.default_rng(3)
    bits = rand_bits(rng, "f32", shape, special=0.0, ties=0.5)
    src = make_tile(bits, "f32")
    dst = row_dst("f32", shape[0], dn=False)
    pto.trowsum(dst, src, target=target)
    assert [int(v) for v in dst.bits[: shape[0], 0]] == _row_expect("trowsum", bits, "f32", "f32", target)
    cdst = col_dst("f32", shape[1])
    pto.tcolsum(cdst, src, target=target)
    assert [int(v) for v in cdst.bits[0, : shape[1]]] == _col_expect("tcolsum", bits, "f32", "f32", target)


# ---------------------------------------------------------------- arg ops
def _arg_expect(op, bits, src_dt, target, mode_val):
    f = FACTS[target]
    col = op.startswith("tcol")
    out = []
    for line in lines(bits, 0 if col else 1):
        idx, val = o.scan_extreme(line, src_dt, op[-3:], f["nan"],
                                  float_view=col and f["colarg_float_view"], a2a3_colarg=col and f["a2a3_scan"])
        if col and f["f16_index"] and o.BITS[src_dt] == 16 and not mode_val:
            idx = o.rmm_f16_int(idx)
        out.append((idx, val))
    return out


ARG_CASES = [(op, t, s, mode) for op in ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin") for t in TARGETS
             for mode in ("idx", "val") for s in _sigs(("tcolarg" if op.startswith("tcol") else "trowarg")
                                                         + ("_val" if mode == "val" else ""), t)]


@pytest.mark.parametrize("op,target,sig,mode", ARG_CASES, ids=lambda v: v if isinstance(v, str) else "-".join(v))
def test_arg_ops_match_oracle(op, target, sig, mode):
    src_dt, idx_dt = sig
    rng = np.random.default_rng(seed(op, target, sig, mode))
    col = op.startswith("tcol")
    shape = (9, per_block(src_dt) + 5) if col else (6, 2 * per_block(src_dt) + 1)
    bits = rand_bits(rng, src_dt, shape, special=0.1)
    src = make_tile(bits, src_dt)
    n = shape[1] if col else shape[0]
    if col:
        dst_idx, dst_val = col_dst(idx_dt, n), (col_dst(src_dt, n) if mode == "val" else None)
    else:
        dst_idx, dst_val = row_dst(idx_dt, n, dn=True), (row_dst(src_dt, n, dn=False) if mode == "val" else None)
    fn = getattr(pto, op)
    res = fn(dst_idx, src, make_tile(bits[:1], src_dt), dst_val=dst_val, target=target)
    want = _arg_expect(op, bits, src_dt, target, mode == "val")
    got_idx = dst_idx.values[0, :n] if col else dst_idx.values[:n, 0]
    assert [int(v) for v in got_idx] == [w[0] for w in want]
    if mode == "val":
        assert res == (dst_val, dst_idx)
        got_val = dst_val.bits[0, :n] if col else dst_val.bits[:n, 0]
        assert [int(v) for v in got_val] == [w[1] for w in want]


# --------------------------------------------------- hand-derived spot checks
F32 = np.float32
NAN = np.nan


def _col_idx(values, target, dtype=np.float32, idx="i32", val=False):
    x = np.array(values, dtype)[:, None]
    src = Tile.from_array(x)
    di = col_dst(idx, 1)
    dv = Tile.from_array(np.zeros((1, 1), dtype)) if val else None
    pto.tcolargmax(di, src, dst_val=dv, target=target)
    return (int(di.values[0, 0]), dv.values[0, 0]) if val else int(di.values[0, 0])


@pytest.mark.parametrize("values,cpu,a2a3", [
    ([1, 5, 5, NAN], 1, 3),          # spec §6: [1,5,5,NaN] -> 1 on CPU
    ([NAN, 2, 7, 7], 0, 3),          # NaN at index 0 wins and sticks on CPU/A5; A2A3 drifts to the last row
    ([3, NAN, 1, 2], 0, 3),
    ([NAN], 0, 0),
    ([NAN, NAN, NAN], 0, 2),
    ([-np.inf, -np.inf, -5], 2, 2),
    ([np.inf, 1, np.inf], 0, 0),
])
def test_tcolargmax_nan_spot_checks(values, cpu, a2a3):
    assert _col_idx(values, "cpu") == cpu
    assert _col_idx(values, "a5") == cpu
    assert _col_idx(values, "a2a3") == a2a3


def test_signed_zero_ties_keep_the_first():
    idx, val = _col_idx([-0.0, 0.0, 0.0, -0.0], "cpu", val=True)
    assert idx == 0 and math.copysign(1, val) < 0  # spec §6: (-0,0,0,-0) -> index 0, value -0
    src = Tile.from_array(np.array([[-0.0, 0.0]], F32))
    dst = Tile("vec", "f32", 1, 8, valid=(1, 1))
    assert math.copysign(1, pto.trowmax(dst, src, target="cpu").values[0, 0]) < 0
    spec = pto.get_target("a5").with_(nan_mode="spec")
    assert math.copysign(1, pto.trowmax(dst, src, target=spec).values[0, 0]) > 0  # pto-spec: max(-0,+0)=+0
    assert math.copysign(1, pto.trowmin(dst, src, target=spec).values[0, 0]) < 0


def test_trowmax_nan_rules():
    src = Tile.from_array(np.array([[NAN, 1, 2], [1, NAN, 2], [NAN, NAN, NAN]], F32))
    dst = Tile("vec", "f32", 3, 8, valid=(3, 1))
    got = lambda t: dst.values[:3, 0].copy() if pto.trowmax(dst, src, target=t) else None
    cpu = got("cpu")
    assert np.isnan(cpu[0]) and cpu[1] == 2 and np.isnan(cpu[2])  # §9.1: NaN only when column 0 is NaN
    a2 = got("a2a3")
    assert np.isnan(a2).all()
    sp = got(pto.get_target("cpu").with_(nan_mode="spec"))
    assert sp[0] == 2 and sp[1] == 2 and np.isnan(sp[2])
    assert dst.bits[2, 0] == 0x7FC00000  # two NaNs give the canonical NaN under maxNum


def test_sum_spot_checks():
    src = Tile.from_array(np.array([[-0.0, -0.0, -0.0]], F32))
    dst = Tile("vec", "f32", 1, 8, valid=(1, 1))
    assert dst.bits[0, 0] == 0 and pto.trowsum(dst, src, target="cpu").bits[0, 0] == 0  # +0 (§9.2)
    # f16 row sum accumulates in f32 then rounds once: 2048 + 1 + 1 = 2050 exactly
    h = Tile.from_array(np.array([[2048, 1, 1]], np.float16))
    d16 = Tile("vec", "f16", 1, 16, valid=(1, 1))
    assert pto.trowsum(d16, h, target="cpu").values[0, 0] == 2050
    # column sums round in f16 every step: 2048 + 1 -> 2048 (tie to even), + 1 -> 2048
    hc = Tile.from_array(np.array([[2048], [1], [1]], np.float16))
    dc = Tile("vec", "f16", 1, 16, valid=(1, 1))
    assert pto.tcolsum(dc, hc, target="cpu").values[0, 0] == 2048
    # i16 wraps modulo 2**16
    i = Tile.from_array(np.array([[30000, 30000]], np.int16))
    di = Tile("vec", "i16", 1, 16, valid=(1, 1))
    assert pto.trowsum(di, i, target="cpu").values[0, 0] == 60000 - 65536
    # CPU i16 -> i32 sums exactly
    di32 = Tile("vec", "i32", 1, 8, valid=(1, 1))
    assert pto.trowsum(di32, i, target="cpu").values[0, 0] == 60000


def test_denormals_flush_on_npus_only():
    tiny = np.float32(2.0 ** -140)
    src = Tile.from_array(np.array([[tiny, tiny]], F32))
    dst = Tile("vec", "f32", 1, 8, valid=(1, 1))
    assert pto.trowsum(dst, src, target="cpu").values[0, 0] == 2 * tiny
    assert pto.trowsum(dst, src, target="a5").values[0, 0] == 0


# ------------------------------------------------------------ A2A3 quirks
def test_a2a3_unsigned_compared_as_float_bits():
    # 0x7C00 is +Inf as f16 and 0x7C01 a NaN; 0x8000 is -0: natively 0x8000 is the largest
    u = np.array([1, 0x8000, 0x7BFF, 2], np.uint16)
    assert _col_idx(u, "cpu", np.uint16) == 1
    assert _col_idx(u, "a5", np.uint16) == 1
    assert _col_idx(u, "a2a3", np.uint16) == 2
    u32 = np.array([5, 0x80000000, 0x7F800000, 7], np.uint32)
    assert _col_idx(u32, "a2a3", np.uint32) == 2
    assert _col_idx(u32, "cpu", np.uint32) == 1


@pytest.mark.parametrize("row,a2a3", [(2047, 2047), (2048, 2048), (2049, 2050), (2051, 2052), (3000, 3000),
                                      (4097, 4096), (4098, 4100)])
def test_a2a3_f16_index_only_path_rounds_through_f16(row, a2a3):
    x = np.zeros((row + 2, 1), np.float16)
    x[row] = 1
    assert _col_idx(x[:, 0], "a2a3", np.float16) == a2a3
    assert _col_idx(x[:, 0], "cpu", np.float16) == row   # exact past 2048 on the CPU reference (§9.7)
    assert _col_idx(x[:, 0], "a2a3", np.float16, idx="i16", val=True)[0] == row  # value+index stays int16


def test_a2a3_int16_row_counter():
    src = Tile("vec", "f16", 32768, 16, valid=(32768, 1))
    dst = Tile("vec", "i32", 1, 8, valid=(1, 1))
    with pytest.raises(UnsupportedError) as e:
        pto.tcolargmax(dst, src, target="a2a3")
    assert e.value.rule == "pto.a2a3.row_counter"
    pto.tcolargmax(dst, src, target="a5")


def test_tmp_is_never_written_and_never_size_checked():
    src = Tile.from_array(np.arange(64, dtype=F32).reshape(2, 32))
    tmp = Tile("vec", "f32", 1, 8)
    before = sentinel(tmp)
    for t in TARGETS:
        pto.tcolargmax(col_dst("u32", 32), src, tmp, target=t)
        pto.trowmax(row_dst("f32", 2, True), src, tmp, target=t)
    assert (tmp.bits == before).all()


def test_a2a3_tmp_dtype_must_match_for_colarg():
    src = Tile.from_array(np.ones((2, 8), F32))
    with pytest.raises(DtypeError) as e:
        pto.tcolargmax(col_dst("u32", 8), src, Tile("vec", "f16", 1, 16), target="a2a3")
    assert e.value.rule == "pto.op.tmp_dtype" and e.value.operand == "tmp"
    pto.tcolargmax(col_dst("u32", 8), src, Tile("vec", "f16", 1, 16), target="a5")


# ------------------------------------------------------------ runtime checks
def _err(fn, *args, **kw):
    with pytest.raises(TilesimError) as e:
        fn(*args, **kw)
    return e.value


def test_row_reduce_errors():
    src = Tile("vec", "f32", 4, 8)
    assert _err(pto.trowmax, Tile("vec", "f32", 3, 8, valid=(3, 1)), src).rule == "pto.op.rows_match"
    e = _err(pto.trowmax, Tile("vec", "f32", 4, 8, valid=(4, 1)), Tile("vec", "f32", 4, 8, valid=(0, 8)))
    assert (e.rule, e.instruction, e.operand) == ("pto.op.valid_nonzero", "TROWMAX", "src")
    assert _err(pto.trowsum, Tile("vec", "f32", 4, 8, valid=(4, 1)), Tile("vec", "f32", 8, 4,
                                                                         blayout="col_major")).rule == "pto.op.layout"
    assert _err(pto.trowsum, Tile("vec", "f32", 8, 2, blayout="col_major", valid=(4, 1)), src).rule == "pto.op.layout"
    assert _err(pto.trowsum, Tile("vec", "f16", 4, 16, valid=(4, 1)), src).rule == "pto.op.dtype"
    assert _err(pto.trowsum, Tile("mat", "f32", 4, 8, valid=(4, 1)), src).rule == "pto.op.loc"
    assert _err(pto.trowsum, Tile("vec", "f32", 4, 8, valid=(4, 1)), np.zeros((4, 8))).rule == "pto.op.operand"
    assert _err(pto.trowmax, Tile("vec", "u8", 4, 32, valid=(4, 1)), Tile("vec", "u8", 4, 32),
                target="a2a3").rule == "pto.op.dtype"


def test_col_reduce_errors_and_silent_zero_sizes():
    src = Tile("vec", "f32", 4, 8)
    assert _err(pto.tcolmax, Tile("vec", "f32", 1, 8, valid=(1, 7)), src).rule == "pto.op.cols_match"
    empty = Tile("vec", "f32", 4, 8, valid=(0, 8))
    dst = Tile("vec", "f32", 1, 8)
    before = sentinel(dst)
    for op in COL:
        getattr(pto, op)(dst, empty)  # zero sizes return silently (§8.3)
    assert (dst.bits == before).all()
    assert _err(pto.tcolsum, Tile("vec", "i8", 1, 32), Tile("vec", "i8", 2, 32), target="cpu").rule == "pto.op.dtype"


def test_arg_errors():
    src = Tile("vec", "f32", 4, 8)
    e = _err(pto.tcolargmax, Tile("vec", "u32", 2, 8), src)
    assert (e.rule, e.operand) == ("pto.op.dst_rows", "dst_idx")
    assert _err(pto.tcolargmax, Tile("vec", "u32", 1, 8, valid=(1, 7)), src).rule == "pto.op.cols_match"
    assert _err(pto.tcolargmax, Tile("vec", "f32", 1, 8), src).rule == "pto.op.dtype"
    assert _err(pto.tcolargmax, Tile("vec", "u32", 1, 8), src, dst_val=Tile("vec", "f16", 1, 16, valid=(1, 8))
                ).rule == "pto.op.same_dtype"
    assert _err(pto.tcolargmax, Tile("vec", "u32", 1, 8), src, dst_val=Tile("vec", "f32", 2, 8)
                ).rule == "pto.op.dst_rows"
    assert _err(pto.tcolargmax, Tile("vec", "u32", 1, 8), Tile("vec", "f32", 16, 16, slayout="row_major")
                ).rule == "pto.op.layout"
    assert _err(pto.tcolargmax, Tile("vec", "i16", 1, 16), Tile("vec", "f16", 4, 16), dst_val=Tile("vec", "f16", 1, 16),
                target="cpu").rule == "pto.op.dtype"  # CPU: i32/u32 indices in both modes
    assert _err(pto.trowargmax, Tile("vec", "i32", 4, 8, valid=(4, 2)), src).rule == "pto.op.layout"
    assert _err(pto.trowargmax, Tile("vec", "i32", 8, 1, valid=(3, 1), blayout="col_major"), src
                ).rule == "pto.op.rows_match"
    assert _err(pto.tcolargmax, Tile("vec", "u32", 1, 8, valid=(1, 0)), Tile("vec", "f32", 4, 8, valid=(4, 0))
                ).rule == "pto.op.valid_nonzero"


def test_a_trapping_op_changes_nothing():
    src = Tile.from_array(np.arange(16, dtype=F32).reshape(2, 8))
    di = Tile("vec", "u32", 1, 8)
    dv = Tile("vec", "f32", 2, 8)  # two rows: the value+index check fails after the index was computable
    bi, bv = sentinel(di), sentinel(dv)
    with pytest.raises(GeometryError):
        pto.tcolargmax(di, src, dst_val=dv)
    assert (di.bits == bi).all() and (dv.bits == bv).all()


# ------------------------------------------------------ hypothesis property
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=40),
       st.sampled_from(TARGETS))
def test_trowmax_and_argmax_hypothesis(values, target):
    x = np.array(values, F32)[None, :]
    bits = x.view(np.uint32)
    src = make_tile(bits, "f32")
    vdst, idst = row_dst("f32", 1, False), row_dst("i32", 1, True)
    pto.trowargmax(idst, src, dst_val=vdst, target=target)
    idx, val = o.scan_extreme(lines(bits, 1)[0], "f32", "max", FACTS[target]["nan"])
    assert int(idst.values[0, 0]) == idx and int(vdst.bits[0, 0]) == val
    pto.trowmax(vdst, src, target=target)
    assert int(vdst.bits[0, 0]) == val
    cdst = col_dst("f32", 1)
    pto.tcolmin(cdst, make_tile(bits.T.copy(), "f32"), target=target)
    assert int(cdst.bits[0, 0]) == o.scan_extreme(lines(bits, 1)[0], "f32", "min", FACTS[target]["nan"])[1]


@pytest.mark.parametrize("target", [*TARGETS, "spec"])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "i16"])
def test_nan_free_max_min_fast_path(target, dt):
    """Lines without NaN take numpy's max/min; lines whose extreme is a zero are resolved by position."""
    prof = pto.get_target("a5").with_(nan_mode="spec") if target == "spec" else pto.get_target(target)
    facts = dict(FACTS["a5"], nan="spec") if target == "spec" else FACTS[target]
    rows = [[-0.0, 0.0, -1.0], [0.0, -0.0, -0.0], [-5.0, -0.0, 0.0], [2.0 ** -133, 2.0 ** -140, 1.0],
            [-3.0, -3.0, -3.0]]
    if dt == "i16":
        rows = [[0, -1, 5], [7, 7, -7], [-32768, 32767, 0]]
    np_dt = pto.get_dtype(dt).np
    bits = np.array(rows, np.float64).astype(np.float32).astype(np_dt).view(pto.get_dtype(dt).lane)
    src = make_tile(bits, dt)
    for op, kind in (("trowmax", "max"), ("trowmin", "min")):
        if (dt, dt) not in prof.dtypes[op]:
            continue
        dst = row_dst(dt, len(rows), dn=False)
        getattr(pto, op)(dst, src, target=prof)
        want = [o.scan_extreme(line, dt, kind, facts["nan"])[1] for line in lines(bits, 1)]
        assert [int(v) for v in dst.bits[: len(rows), 0]] == want
    for op, kind in (("tcolmax", "max"), ("tcolmin", "min")):
        if (dt, dt) not in prof.dtypes[op]:
            continue
        dst = col_dst(dt, 3)
        getattr(pto, op)(dst, src, target=prof)
        want = [o.scan_extreme(line, dt, kind, facts["nan"])[1] for line in lines(bits, 0)]
        assert [int(v) for v in dst.bits[0, :3]] == want
