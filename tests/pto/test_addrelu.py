"""TADDDEQRELU (PTO143) and TADDRELUCONV (PTO144) against element-by-element oracles written from the simulator's
loop and the pages, and their refusals."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, SpecGapError
from tilesim.pto import Tile

from .helpers import rand_bits, seed


def _deq_oracle(a: int, b: int, scale: float, cpu: bool) -> int | None:
    """f16 bits of one element; None where the NPUs refuse. cpu: wrap, (float), one f32 product, half, ReLU;
    NPUs: ((x * 2^-17) * s) * 2^17 with f32 subnormals flushed, max(0, .), then f16."""
    x = np.float32((a + b + 2 ** 31) % 2 ** 32 - 2 ** 31)
    s = np.float32(scale)
    with np.errstate(all="ignore"):
        if cpu:
            h = np.float16(np.float32(float(x) * float(s)))
            return 0 if not h > 0 else int(np.array(h).view(np.uint16))
        p = np.float32(float(np.float32(float(x) * 2.0 ** -17)) * float(s))
        if p != 0 and abs(p) < 2.0 ** -126:
            p = np.float32(0.0)
        q = np.float32(float(p) * 2.0 ** 17)
    q = q if q > 0 else np.float32(0.0)
    if np.isnan(q) or float(q) >= 65520.0:
        return None
    h = np.float16(q)
    return 0 if abs(float(h)) < 2.0 ** -14 else int(np.array(h).view(np.uint16))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("scale", [0.5, 1e-5, 2.0 ** -140, -0.25, 3.0, 70000.0])
def test_tadddeqrelu_matches_the_oracle(target, scale):
    rng = np.random.default_rng(seed("tadddeqrelu", target, scale))
    a, b = (Tile("vec", "i32", 6, 24, valid=(6, 21)) for _ in range(2))
    a.bits[...] = rand_bits(rng, "i32", a.bits.shape)
    b.bits[...] = np.where(rng.random(b.bits.shape) < 0.5, rng.integers(-999, 999, b.bits.shape),
                           rand_bits(rng, "i32", b.bits.shape).view(np.int32)).astype(np.int32).view(np.uint32)
    if target != "cpu":                       # keep the NPU cases in f16's range (past it is refused)
        lim = max(1, min(2 ** 30, int(30000 / abs(scale))))
        for t in (a, b):
            t.bits[...] = rng.integers(-lim, lim, t.bits.shape).astype(np.int32).view(np.uint32)
    dst = Tile("vec", "f16", 6, 32, valid=(6, 21))
    dst.bits[...] = 0x7E01
    want = dst.bits.copy()
    for r in range(6):
        for c in range(21):
            want[r, c] = _deq_oracle(int(a.values[r, c]), int(b.values[r, c]), scale, target == "cpu")
    pto.tadddeqrelu(dst, a, b, scale, Tile("vec", "i32", 6, 24), target=target)
    assert (dst.bits == want).all()


def test_tadddeqrelu_cpu_marks_wrapped_sums_and_npus_refuse():
    a = Tile.from_array(np.array([[2 ** 31 - 1, 5, -7]], np.int32))
    b = Tile.from_array(np.array([[1, 5, 3]], np.int32))
    dst = Tile("vec", "f16", 1, 16, valid=(1, 3))
    pto.tadddeqrelu(dst, a, b, 1.0, target="cpu")
    assert dst.undefined[0, :3].tolist() == [True, False, False] and dst.valid_values.tolist() == [[0.0, 10.0, 0.0]]
    for scale, rule in ((float("nan"), "pto.tadddeqrelu.scale"), (1e6, "pto.tadddeqrelu.range")):
        before = dst.bits.copy()
        with pytest.raises(SpecGapError, match=rule):
            pto.tadddeqrelu(dst, a, b, scale, target="a5")
        assert (dst.bits == before).all()
    pto.tadddeqrelu(dst, a, b, float("nan"), target="cpu")                    # NaN products: ReLU gives +0
    assert (dst.valid_bits == 0).all()
    with pytest.raises(GeometryError, match="pto.tadddeqrelu.tmp"):
        pto.tadddeqrelu(dst, a, b, 1.0, Tile("vec", "i16", 1, 16), target="a2a3")
    with pytest.raises(DtypeError, match="pto.op.dtype"):
        pto.tadddeqrelu(Tile("vec", "f32", 1, 8, valid=(1, 3)), a, b, 1.0, target="cpu")
    with pytest.raises(GeometryError, match="pto.op.valid_match"):
        pto.tadddeqrelu(Tile("vec", "f16", 1, 16, valid=(1, 2)), a, b, 1.0, target="cpu")


def _conv_oracle(a: float, b: float, sd: str, dd: str, sub: bool = False) -> int:
    b = -b if sub else b
    if sd == "i16":
        s = (a + b + 2 ** 15) % 2 ** 16 - 2 ** 15
        return min(max(s, 0), 127)
    s = float(np.float32(a + b)) if sd == "f32" else float(np.float16(a + b))
    s = s if s > 0 else 0.0                          # -0 gives +0
    if dd == "i8":
        return int(min(np.rint(s), 127))
    return int(np.array(np.float16(min(s, 65504.0))).view(np.uint16))


@pytest.mark.parametrize("op", ["taddreluconv", "tsubreluconv"])
@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("sd,dd", [("f32", "f16"), ("f16", "i8"), ("i16", "i8")])
def test_taddreluconv_matches_the_page(op, target, sd, dd):
    rng = np.random.default_rng(seed("taddreluconv", sd, dd))
    a, b = (Tile("vec", sd, 4, 32, valid=(4, 30)) for _ in range(2))
    if sd == "i16":
        a.bits[...] = rand_bits(rng, sd, a.bits.shape)
        b.bits[...] = rand_bits(rng, sd, b.bits.shape)
    else:
        for t in (a, b):
            big = [1e5, 7e4] if op == "taddreluconv" else [6e4, 5e4]    # inf - inf would be NaN (refused)
            t.fill(rng.choice([0.5, 1.5, 2.5, -3.0, 126.6, 127.5, -0.0, 0.25, *big], (4, 32)).astype(np.float64))
    dst = Tile("vec", dd, 4, 64 // pto.get_dtype(dd).size, valid=(4, 30))
    getattr(pto, op)(dst, a, b, target=target)
    for r in range(4):
        for c in range(30):
            got = int(dst.bits[r, c]) if dd == "f16" else int(dst.values[r, c])
            want = _conv_oracle(a.values[r, c].item(), b.values[r, c].item(), sd, dd, op == "tsubreluconv")
            assert got == want, (r, c)


def test_taddreluconv_refusals():
    a = Tile.from_array(np.array([[np.nan, 1.0]], np.float32))
    with pytest.raises(SpecGapError, match="pto.taddreluconv.nan"):
        pto.taddreluconv(Tile("vec", "f16", 1, 16, valid=(1, 2)), a, a.copy(), target="cpu")
    with pytest.raises(DtypeError, match="pto.op.dtype"):
        pto.taddreluconv(Tile("vec", "i8", 1, 32, valid=(1, 2)), a, a.copy(), target="a2a3")


def test_pto_dps_forms():
    """The pages' DPS forms: ``ins(%src0, %src1, %deqScale, %tmp) outs(%dst)`` and ``ins(%src0, %src1)``."""
    import io
    b = lambda dt, c: (f"!pto.tile_buf<loc=vec, dtype={dt}, rows=1, cols={c}, v_row=1, v_col={c}, "  # noqa: E731
                       "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    i, h, f = b("i32", 8), b("f16", 16), b("f32", 8)
    text = f"""module {{
  func.func @k() {{
    %a = pto.alloc_tile : {i}
    %t = pto.alloc_tile : {i}
    %d = pto.alloc_tile : {h}
    %x = pto.alloc_tile : {f}
    %e = pto.alloc_tile : {h}
    %c7 = arith.constant 7 : i32
    %s = arith.constant 0.5 : f32
    %m = arith.constant -0.25 : f32
    pto.texpands ins(%c7 : i32) outs(%a : {i})
    pto.texpands ins(%m : f32) outs(%x : {f})
    pto.tadddeqrelu ins(%a, %a, %s, %t : {i}, {i}, f32, {i}) outs(%d : {h})
    pto.taddreluconv ins(%x, %x : {f}, {f}) outs(%e : {h})
    pto.tprint ins(%d : {h})
    pto.tprint ins(%e : {h})
    return
  }}
}}
"""
    for target in ("cpu", "a5"):
        out = io.StringIO()
        pto.run_text(text.replace("cols=16, v_row=1, v_col=16", "cols=16, v_row=1, v_col=8"), {}, target,
                     stdout=out)
        want = "[[7. 7. 7. 7. 7. 7. 7. 7.]]\ntprint vec f16 1x16 valid 1x8 ND @0x80:\n[[0. 0. 0. 0. 0. 0. 0. 0.]]"
        assert want in out.getvalue()
