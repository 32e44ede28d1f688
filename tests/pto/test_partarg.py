"""TPARTARGMAX/TPARTARGMIN against a per-element oracle (values decoded by ml_dtypes, Python comparisons; PTO128)."""

from __future__ import annotations

import io

import ml_dtypes
import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError
from tilesim.pto import Tile

from .helpers import TARGETS, rand_bits, seed

_NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32, "i8": np.int8}
_CMP = {"tpartargmax": lambda a, b: a > b, "tpartargmin": lambda a, b: a < b}


def _tiles(rng, vdt, idt, valids):
    """(dst_val, dst_idx, src0_val, src1_val, src0_idx, src1_idx) with random contents."""
    out = []
    for dt, v in zip((vdt, idt, vdt, vdt, idt, idt), valids):
        t = Tile("vec", dt, 8, 32, valid=v)
        t.bits[...] = rand_bits(rng, dt, t.bits.shape)
        out.append(t)
    return out


def _oracle(name, t, R, C):
    """(value codes, index codes) of dst's valid region, element by element."""
    _, _, v0, v1, i0, i1 = t
    val = np.zeros((R, C), v0.bits.dtype)
    idx = np.zeros((R, C), i0.bits.dtype)
    for r in range(R):
        for c in range(C):
            in0 = r < v0.valid_rows and c < v0.valid_cols
            in1 = r < v1.valid_rows and c < v1.valid_cols
            if in0 and in1:
                a = float(v0.bits[r:r + 1, c].view(_NP[v0.dtype.name])[0])
                b = float(v1.bits[r:r + 1, c].view(_NP[v0.dtype.name])[0])
                pick0 = _CMP[name](a, b)
            elif not (in0 or in1):
                continue
            else:
                pick0 = in0
            val[r, c] = (v0 if pick0 else v1).bits[r, c]
            idx[r, c] = (i0 if pick0 else i1).bits[r, c]
    return val, idx


@pytest.mark.parametrize("name", sorted(_CMP))
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vdt,idt", [("f32", "i32"), ("f16", "u16"), ("bf16", "i32"), ("i32", "i32"), ("i8", "u8")])
@pytest.mark.parametrize("v0,v1", [((7, 29), (7, 29)), ((7, 29), (3, 30)), ((5, 29), (7, 11)), ((7, 11), (7, 29))])
def test_part_arg(name, target, vdt, idt, v0, v1):
    """Value and index from the same source: src0 only where it strictly wins (NaN and ties pick src1)."""
    if (vdt, idt) not in pto.get_target(target).dtypes[name]:
        pytest.skip("pair not on this target")
    rng = np.random.default_rng(seed("partarg", name, target, vdt, v0, v1))
    dv = (max(v0[0], v1[0]), max(v0[1], v1[1]))
    t = _tiles(rng, vdt, idt, (dv, dv, v0, v1, v0, v1))
    before = [x.bits.copy() for x in t[:2]]
    nested = dv in (v0, v1)
    if target != "cpu" and not nested:
        with pytest.raises(GeometryError, match="pto.tpartarg.valid"):
            getattr(pto, name)(*t, target=target)
        assert all((x.bits == b).all() for x, b in zip(t[:2], before))
        return
    getattr(pto, name)(*t, target=target)
    want_v, want_i = _oracle(name, t, *dv)
    R, C = dv
    assert (t[0].bits[:R, :C] == want_v).all() and (t[1].bits[:R, :C] == want_i).all()
    outside = np.ones(t[0].bits.shape, bool)
    outside[:R, :C] = False
    assert (t[0].bits[outside] == before[0][outside]).all() and (t[1].bits[outside] == before[1][outside]).all()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_part_arg_checks(target):
    """The NPU pages' rules: index valid shapes follow their values', dst not empty, the pair table."""
    rng = np.random.default_rng(seed("partarg-checks", target))
    t = _tiles(rng, "f32", "i32", ((4, 32), (4, 16), (4, 32), (4, 32), (4, 32), (4, 32)))
    with pytest.raises(GeometryError, match="pto.op.valid_match"):
        pto.tpartargmax(*t, target=target)
    t = _tiles(rng, "f32", "i32", ((0, 32),) * 6)
    with pytest.raises(GeometryError, match="pto.op.valid_nonzero"):
        pto.tpartargmin(*t, target=target)
    t = _tiles(rng, "i32", "i32", ((4, 32),) * 6)
    with pytest.raises(DtypeError, match="pto.op.dtype"):
        pto.tpartargmin(*t, target=target)


def test_part_arg_cpu_empty_and_mixed_index():
    """cpu: an empty dst writes nothing; the index tiles of one op share a dtype everywhere."""
    rng = np.random.default_rng(seed("partarg-cpu"))
    t = _tiles(rng, "f32", "i32", ((0, 32), (0, 32), (4, 32), (4, 32), (4, 32), (4, 32)))
    before = [x.bits.copy() for x in t[:2]]
    pto.tpartargmax(*t, target="cpu")
    assert all((x.bits == b).all() for x, b in zip(t[:2], before))
    t[4] = Tile("vec", "u32", 8, 32, valid=(4, 32))
    with pytest.raises(DtypeError, match="pto.op.same_dtype"):
        pto.tpartargmax(*t, target="cpu")


def _buf(dt: str) -> str:
    return (f"!pto.tile_buf<loc=vec, dtype={dt}, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, "
            "slayout=none_box, fractal=512, pad=0>")


def test_part_arg_pto_text():
    """The DPS form: outs(dstVal, dstIdx) ins(src0Val, src1Val, src0Idx, src1Idx)."""
    f, i = _buf("f32"), _buf("i32")
    fill = [("a", f, "%c2", "f32"), ("b", f, "%c5", "f32"), ("ia", i, "%c10", "i32"), ("ib", i, "%c20", "i32")]
    lines = [f"%{n} = pto.alloc_tile : {t}" for n, t in [("a", f), ("b", f), ("v", f), ("ia", i), ("ib", i), ("x", i)]]
    lines += ["%c2 = arith.constant 2.0 : f32", "%c5 = arith.constant 5.0 : f32", "%c10 = arith.constant 10 : i32",
              "%c20 = arith.constant 20 : i32"]
    lines += [f"pto.texpands ins({c} : {d}) outs(%{n} : {t})" for n, t, c, d in fill]
    lines += [f"pto.tpartargmin ins(%a, %b, %ia, %ib : {f}, {f}, {i}, {i}) outs(%v, %x : {f}, {i})",
              f"pto.tprint ins(%x : {i})", f"pto.tprint ins(%v : {f})", "return"]
    text = "module {\n  func.func @k() {\n" + "\n".join("    " + x for x in lines) + "\n  }\n}\n"
    for target in TARGETS:
        out = io.StringIO()
        pto.run_text(text, {}, target, stdout=out)
        got = out.getvalue()
        assert got.count("10") == 8 and "20" not in got and got.count("2") >= 8 and "5" not in got, got
