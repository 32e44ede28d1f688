"""ConvTile layouts and the ConvTile forms of TLOAD, TSTORE, TEXTRACT and TTRANS (PTO172-PTO174), against
oracles written here element by element from each layout's index formula (scalar loops over Python ints), and
every rule. The CPU simulator's own values are checked by tests/pto/golden/*.conv.npz."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, SpecGapError, TilesimError
from tilesim.pto import ConvTile, Tile

from .helpers import seed


def _filled(dt: str, shape, layout: str, rng, loc: str = "mat") -> ConvTile:
    t = ConvTile(dt, shape, layout, loc=loc)
    t.bits[...] = rng.integers(0, 1 << (8 * t.dtype.size), size=shape, dtype=np.uint64).astype(t.bits.dtype)
    return t


def _pattern(t: ConvTile) -> np.ndarray:
    """A destination's lanes before the op (odd codes), returned to check what the op must leave alone."""
    t.bits[...] = (np.arange(t.bits.size, dtype=np.uint64).reshape(t.shape) * 2 + 1).astype(t.bits.dtype)
    return t.bits.copy()


def _ceil(a: int, b: int) -> int:
    return (a + b - 1) // b


# --------------------------------------------------------------------------- TTRANS oracles
def _oracle_ttrans(src: ConvTile, dst_before: np.ndarray, dst_layout: str, dst_shape) -> np.ndarray:
    """Each source element written to its place by the layout's definition (pto-isa docs/isa/TTRANS.md; the
    st tests' gen_data.py reshapes), one at a time; the rest of dst as it was."""
    want, s = dst_before.copy(), src.bits
    c0 = 64 if src.dtype.name in ("f4e2m1", "f4e1m2") else 32 // src.dtype.size
    pair = (src.layout, dst_layout)
    for idx in itertools.product(*(range(n) for n in src.shape)):
        v = s[idx]
        if pair == ("NCHW", "NC1HWC0"):
            n, c, h, w = idx
            want[n, c // c0, h, w, c % c0] = v
        elif pair == ("GNCHW", "GNC1HWC0"):
            g, n, c, h, w = idx
            want[g, n, c // c0, h, w, c % c0] = v
        elif pair == ("NC1HWC0", "NCHW"):
            n, c1, h, w, k = idx
            want[n, c1 * c0 + k, h, w] = v
        elif pair == ("NC1HWC0", "FRACTAL_Z"):
            n, c1, h, w, k = idx
            _, H, W = src.shape[1:4]
            n0 = dst_shape[2]
            want[(c1 * H + h) * W + w, n // n0, n % n0, k] = v
        elif pair == ("GNC1HWC0", "FRACTAL_Z"):
            g, n, c1, h, w, k = idx
            C1, H, W = src.shape[2:5]
            n0 = dst_shape[2]
            want[((g * C1 + c1) * H + h) * W + w, n // n0, n % n0, k] = v
        else:                                       # NCDHW -> FRACTAL_Z_3D: blocks (d, c1, h, w)
            n, c, d, h, w = idx
            C, _, H, W = src.shape[1:]
            n0, k0 = dst_shape[2], dst_shape[3]
            want[((d * _ceil(C, k0) + c // k0) * H + h) * W + w, n // n0, n % n0, c % k0] = v
    return want


#: (dtype, src layout, src shape, dst layout, dst shape): every pair, C and N padding, several C0s
TRANS = [("f32", "NCHW", (2, 11, 2, 3), "NC1HWC0", (2, 2, 2, 3, 8)),
         ("i8", "NCHW", (1, 40, 3, 1), "NC1HWC0", (1, 2, 3, 1, 32)),
         ("f4e2m1", "NCHW", (1, 70, 1, 2), "NC1HWC0", (1, 2, 1, 2, 64)),
         ("u16", "NC1HWC0", (2, 2, 1, 3, 16), "NCHW", (2, 32, 1, 3)),
         ("f16", "NC1HWC0", (19, 1, 2, 2, 16), "FRACTAL_Z", (4, 2, 16, 16)),
         ("i32", "NC1HWC0", (3, 2, 1, 2, 8), "FRACTAL_Z", (4, 1, 4, 8)),        # N1*N0 >= N, N0 = 4 (cpu)
         ("bf16", "GNCHW", (2, 2, 17, 1, 2), "GNC1HWC0", (2, 2, 2, 1, 2, 16)),
         ("f32", "GNC1HWC0", (2, 17, 1, 2, 2, 8), "FRACTAL_Z", (8, 2, 16, 8)),
         ("u8", "NCDHW", (18, 33, 2, 1, 2), "FRACTAL_Z_3D", (8, 2, 16, 32))]


@pytest.mark.parametrize("dt,sl,ss,dl,ds", TRANS)
def test_ttrans_against_the_layout_formulas(dt, sl, ss, dl, ds):
    rng = np.random.default_rng(seed("ttrans_conv", dt, sl, dl))
    src = _filled(dt, ss, sl, rng, "vec")
    if dt.startswith("f4"):
        src.bits[...] &= 0xF
    dst = ConvTile(dt, ds, dl, loc="vec")
    before = _pattern(dst)
    got = pto.ttrans(dst, src, target="cpu")
    assert got is dst
    assert np.array_equal(dst.bits, _oracle_ttrans(src, before, dl, ds))


@given(st.integers(1, 20), st.integers(1, 40), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from(["f32", "f16", "i8"]))
def test_ttrans_nchw_round_trip(n, c, h, w, dt):
    """NCHW -> NC1HWC0 -> NCHW gives the source back in its first C channels, any N, C, H, W."""
    rng = np.random.default_rng(seed("nchw", n, c, h, w, dt))
    src = _filled(dt, (n, c, h, w), "NCHW", rng, "vec")
    c0 = src.c0
    mid = pto.ttrans(ConvTile(dt, (n, _ceil(c, c0), h, w, c0), "NC1HWC0", loc="vec"), src, target="cpu")
    back = pto.ttrans(ConvTile(dt, (n, _ceil(c, c0) * c0, h, w), "NCHW", loc="vec"), mid, target="cpu")
    assert np.array_equal(back.bits[:, :c], src.bits)
    assert not back.bits[:, c:].any()                     # the padding channels: dst's zeros, never written


# --------------------------------------------------------------------------- TLOAD / TSTORE oracles
def _walk_oracle(t: ConvTile, g: tuple[int, ...]) -> list[tuple[int, int]]:
    """(tile storage offset, global flat offset) of the CPU simulator's walk (include/pto/cpu/TLoad.hpp,
    tile_offsets.hpp), transcribed with flat offsets and C-order strides, one (r, c) at a time."""
    s, c0 = t.shape, t.c0
    strides = [int(np.prod(g[k + 1:])) for k in range(len(g))]
    pairs = []
    if t.layout == "NC1HWC0":
        rows, cols = s[0] * s[2] * s[3], s[1] * c0
    elif t.layout == "NDC1HWC0":
        rows, cols = s[0] * s[3] * s[4], s[1] * s[2] * c0
    elif len(s) == 4:
        rows, cols = s[0] * s[1] * s[3], s[2]
    else:
        rows, cols = s[0] * s[1] * s[2] * s[4], s[3]
    for r in range(rows):
        for c in range(cols):
            if t.layout == "NC1HWC0":
                ti = (((r // (s[2] * s[3]) * s[1] + c // c0) * s[2] + r // s[3] % s[2]) * s[3] + r % s[3]) * c0 + c % c0
                gi = (r // (g[2] * g[3]), c // g[4], r // g[3] % g[2], r % g[3], c % g[4])
            elif t.layout == "NDC1HWC0":
                i = (r // (s[3] * s[4]), c // (s[2] * c0), c // c0 % s[2], r // s[4] % s[3], r % s[4])
                ti = ((((i[0] * s[1] + i[1]) * s[2] + i[2]) * s[3] + i[3]) * s[4] + i[4]) * c0 + c % c0
                gi = (r // (g[3] * g[4]), c // (g[2] * c0), c // c0 % g[2], r // g[4] % g[3], r % g[4], c % c0)
            else:
                if len(s) == 4:
                    ti = ((r // (s[1] * s[3]) * s[1] + r // s[3] % s[1]) * s[2] + c) * s[3] + r % s[3]
                else:
                    ti = (((r // (s[1] * s[2] * s[4]) * s[1] + r // (s[2] * s[4]) % s[1]) * s[2]
                           + r // s[4] % s[2]) * s[3] + c) * s[4] + r % s[4]
                gi = (r // (g[1] * g[2] * g[4]), r // (g[2] * g[4]) % g[1], r // g[4] % g[2], c, r % g[4])
            pairs.append((ti, sum(i * k for i, k in zip(gi, strides))))
    return pairs


LOADS = [("f16", "NC1HWC0", (2, 2, 3, 4, 16), (2, 2, 3, 4, 16)),
         ("i8", "NDC1HWC0", (2, 2, 1, 2, 3, 32), (2, 2, 1, 2, 3, 32)),
         ("u16", "FRACTAL_Z", (6, 1, 16, 16), (2, 1, 3, 16, 16)),
         ("i32", "FRACTAL_Z", (2, 1, 3, 5, 8), (2, 1, 3, 5, 8)),
         ("f32", "NC1HWC0", (1, 2, 3, 4, 8), (2, 3, 3, 5, 8)),             # a global of another shape
         ("f16", "FRACTAL_Z", (2, 2, 1, 3, 16), (3, 2, 1, 7, 16))]


@pytest.mark.parametrize("dt,layout,shape,g", LOADS)
def test_tload_and_tstore_follow_the_walk(dt, layout, shape, g):
    rng = np.random.default_rng(seed("tload_conv", dt, layout, shape))
    t = ConvTile(dt, shape, layout)
    gm = rng.integers(0, 1 << (8 * t.dtype.size), size=g, dtype=np.uint64).astype(t.bits.dtype)
    pto.tload(t, gm.view(t.dtype.np), target="cpu")
    flat_t, flat_g = t.bits.ravel(), gm.ravel()
    pairs = _walk_oracle(t, g)
    assert [int(flat_t[a]) for a, _ in pairs] == [int(flat_g[b]) for _, b in pairs]
    if layout in ("NC1HWC0", "NDC1HWC0"):
        out = np.zeros_like(gm)
        pto.tstore(out.view(t.dtype.np), t, target="cpu")
        want = np.zeros_like(flat_g)
        for a, b in pairs:
            want[b] = flat_t[a]
        assert np.array_equal(out.ravel(), want)


def test_tload_same_shape_is_the_identity():
    rng = np.random.default_rng(seed("identity"))
    for dt, layout, shape in (("bf16", "NC1HWC0", (1, 2, 2, 2, 16)), ("u32", "FRACTAL_Z", (1, 2, 2, 16, 8))):
        gm = rng.integers(0, 1 << 16, size=shape).astype(pto.get_dtype(dt).lane)
        assert np.array_equal(pto.tload(ConvTile(dt, shape, layout), gm.view(pto.get_dtype(dt).np),
                                        target="cpu").bits, gm)


@given(st.sampled_from(["NC1HWC0", "NDC1HWC0"]), st.lists(st.integers(1, 3), min_size=5, max_size=5),
       st.sampled_from(["f32", "f16", "u8"]))
def test_tload_tstore_round_trip(layout, dims, dt):
    """A global of the tile's own shape loads element for element and stores back unchanged."""
    c0 = 32 // pto.get_dtype(dt).size
    shape = (*dims[: 4 if layout == "NC1HWC0" else 5], c0)
    rng = np.random.default_rng(seed("round_trip", layout, dims, dt))
    lane = pto.get_dtype(dt).lane
    gm = rng.integers(0, 1 << (8 * lane.itemsize), size=shape, dtype=np.uint64).astype(lane)
    t = pto.tload(ConvTile(dt, shape, layout), gm.view(pto.get_dtype(dt).np), target="cpu")
    assert np.array_equal(t.bits, gm)
    out = pto.tstore(np.zeros_like(gm).view(pto.get_dtype(dt).np), t, target="cpu")
    assert np.array_equal(out.view(lane), gm)


# --------------------------------------------------------------------------- TEXTRACT oracle
@pytest.mark.parametrize("dt,layout,shape,rc,valid,ir,ic", [
    ("f16", "FRACTAL_Z", (6, 3, 16, 16), (48, 32), (40, 30), 16, 16),
    ("f32", "FRACTAL_Z", (2, 2, 3, 32, 8), (16, 32), (16, 17), 16, 0),
    ("i8", "FRACTAL_Z_3D", (4, 2, 16, 32), (64, 16), (64, 16), 32, 16)])
def test_textract_copies_the_weight_matrix_window(dt, layout, shape, rc, valid, ir, ic):
    """dst (K x N, Zn) holds the filter's K x N matrix (K = C1HW*C0 + c0, N = n) from (ir, ic), whole fractals
    (C0 x 16) of it; lanes past them keep their values."""
    rng = np.random.default_rng(seed("textract_conv", dt, shape))
    src = _filled(dt, shape, layout, rng)
    c0 = src.c0
    n = shape[1] * shape[2] if len(shape) == 4 else shape[3]
    weights = src.bits.reshape(-1, n, c0)
    dst = Tile("right", dt, *rc, valid=valid, slayout="col_major")
    dst.bits[...] = 7
    pto.textract(dst, src, ir, ic, target="cpu")
    k, m = _ceil(valid[0], c0) * c0, _ceil(valid[1], 16) * 16
    want = np.full(rc, 7, dst.bits.dtype)
    for r in range(k):
        for c in range(m):
            want[r, c] = weights[(ir + r) // c0, ic + c, (ir + r) % c0]
    assert np.array_equal(dst.bits, want)


# --------------------------------------------------------------------------- layouts and rules
def test_convtile_layouts_and_shape_rule():
    assert ConvTile("f16", (12, 1, 16, 16), "FRACTAL_Z").dims == {"C1HW": 12, "N1": 1, "N0": 16, "C0": 16}
    assert ConvTile("f16", (2, 2, 3, 16, 16), "FRACTAL_Z").dims["N"] == 16
    assert ConvTile("f4e2m1", (1, 1, 1, 1, 64)).c0 == 64 and ConvTile("f32", (1, 1, 1, 1, 8)).c0 == 8
    with pytest.raises(GeometryError) as e:
        ConvTile("f16", (2, 2, 3), "FRACTAL_Z")
    assert e.value.rule == "pto.convtile.shape"
    with pytest.raises(GeometryError) as e:
        ConvTile("f16", (2, 2, 3, 4), "NHWC")
    assert e.value.rule == "pto.convtile.layout"


def test_npu_ttrans_follows_the_page():
    src = ConvTile("f32", (1, 8, 2, 4), "NCHW", loc="vec")
    src.values[...] = np.arange(64).reshape(src.shape)
    for target in ("a2a3", "a5"):
        dst = pto.ttrans(ConvTile("f32", (1, 1, 2, 4, 8), "NC1HWC0", loc="vec"), src, target=target)
        assert np.array_equal(dst.values[0, 0], np.moveaxis(src.values[0], 0, -1))


def _rule(fn, cls=TilesimError) -> str:
    with pytest.raises(cls) as e:
        fn()
    return e.value.rule


F32 = np.zeros((1, 1, 2, 2, 8), np.float32)


@pytest.mark.parametrize("make,rule,cls", [
    (lambda: pto.tload(ConvTile("f32", (1, 1, 2, 2, 8)), F32, target="a5"), "pto.convtile.target", SpecGapError),
    (lambda: pto.tstore(F32.copy(), ConvTile("f32", (1, 1, 2, 2, 8)), target="a2a3"), "pto.convtile.target",
     SpecGapError),
    (lambda: pto.textract(Tile("right", "f32", 8, 16, slayout="col_major"),
                          ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), target="a5"), "pto.convtile.target",
     SpecGapError),
    (lambda: pto.tload(ConvTile("f32", (1, 1, 2, 2, 8), loc="vec"), F32, target="cpu"), "pto.op.loc", GeometryError),
    (lambda: pto.tload(ConvTile("f32", (1, 1, 2, 2, 4)), F32[..., :4], target="cpu"), "pto.convtile.c0",
     GeometryError),
    (lambda: pto.tload(ConvTile("f32", (1, 1, 2, 2, 8)), F32.astype(np.float16), target="cpu"), "pto.mem.elem_size",
     DtypeError),
    (lambda: pto.tload(ConvTile("f32", (1, 1, 2, 2, 8)), F32[0], target="cpu"), "pto.convtile.global",
     GeometryError),
    (lambda: pto.tload(ConvTile("f32", (2, 1, 2, 2, 8)), F32, target="cpu"), "pto.mem.window", GeometryError),
    (lambda: pto.tload(ConvTile("f8e4m3", (1, 1, 2, 2, 32)), np.zeros((1, 1, 2, 2, 32), np.uint8), target="cpu"),
     "pto.op.dtype", DtypeError),
    (lambda: pto.tload(ConvTile("f32", (1, 2, 2, 8), "NCHW"), F32, target="cpu"), "pto.convtile.layout",
     GeometryError),
    (lambda: pto.tload(ConvTile("f32", (4, 1, 16, 8), "FRACTAL_Z"), np.zeros((1, 2, 2, 8, 8), np.float32),
                       target="cpu"), "pto.convtile.global", GeometryError),
    (lambda: pto.tstore(np.zeros((1, 1, 2, 16, 8), np.float32), ConvTile("f32", (1, 1, 2, 16, 8), "FRACTAL_Z"),
                        target="cpu"), "pto.convtile.layout", GeometryError),
    (lambda: pto.tload(ConvTile("f32", (1, 1, 2, 2, 8)), F32, offset=(0, 1), target="cpu"), "pto.op.operand",
     TilesimError),
    (lambda: pto.tstore(F32.copy(), ConvTile("f32", (1, 1, 2, 2, 8)), atomic="add", target="cpu"),
     "pto.tstore.atomic", TilesimError),
    (lambda: pto.textract(Tile("right", "f32", 8, 16, slayout="col_major"),
                          ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), 4, 0, target="cpu"),
     "pto.textract.conv_align", TilesimError),
    (lambda: pto.textract(Tile("right", "f32", 8, 16, slayout="col_major"),
                          ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), 8, 0, target="cpu"), "pto.op.window",
     GeometryError),
    (lambda: pto.textract(Tile("right", "f32", 8, 16, slayout="col_major"),
                          ConvTile("f32", (1, 1, 8, 8), "FRACTAL_Z"), target="cpu"), "pto.convtile.shape",
     GeometryError),
    (lambda: pto.textract(Tile("right", "f32", 8, 16), ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), target="cpu"),
     "pto.op.layout", GeometryError),
    (lambda: pto.textract(Tile("right", "f32", 16, 16, slayout="col_major", fractal=1024),
                          ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), target="cpu"), "pto.op.layout", GeometryError),
    (lambda: pto.textract(Tile("right", "f32", 8, 16, slayout="col_major"), ConvTile("f32", (1, 1, 2, 2, 8)),
                          target="cpu"), "pto.convtile.layout", GeometryError),
    (lambda: pto.textract(Tile("right", "f16", 16, 16, slayout="col_major"),
                          ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), target="cpu"), "pto.mem.elem_size",
     DtypeError),
    (lambda: pto.ttrans(ConvTile("f32", (4, 1, 16, 8), "FRACTAL_Z"), ConvTile("f32", (1, 8, 2, 2), "NCHW"),
                        target="cpu"), "pto.ttrans.conv_layouts", GeometryError),
    (lambda: pto.ttrans(ConvTile("f32", (1, 2, 2, 2, 8)), ConvTile("f32", (1, 8, 2, 2), "NCHW"), target="cpu"),
     "pto.ttrans.conv_shape", GeometryError),
    (lambda: pto.ttrans(ConvTile("i32", (1, 1, 2, 2, 8)), ConvTile("f32", (1, 8, 2, 2), "NCHW"), target="cpu"),
     "pto.op.same_dtype", DtypeError),
    (lambda: pto.ttrans(Tile("vec", "f32", 8, 8), ConvTile("f32", (1, 8, 2, 2), "NCHW"), target="cpu"),
     "pto.op.operand", TilesimError),
    (lambda: pto.ttrans(ConvTile("f32", (1, 1, 2, 4, 8), "NC1HWC0"), ConvTile("f32", (1, 8, 2, 4), "NCHW"),
                        target="a5"), "pto.op.loc", GeometryError),
    (lambda: pto.ttrans(ConvTile("f32", (1, 1, 2, 2, 8), "NC1HWC0", loc="vec"),
                        ConvTile("f32", (1, 8, 2, 2), "NCHW", loc="vec"), target="a5"), "pto.convtile.shape",
     GeometryError),
    (lambda: pto.ttrans(ConvTile("f8e8m0", (1, 1, 1, 1, 32), "NC1HWC0", loc="vec"),
                        ConvTile("f8e8m0", (1, 32, 1, 1), "NCHW", loc="vec"), target="a2a3"), "pto.op.dtype",
     DtypeError),
    (lambda: pto.ttrans(ConvTile("f32", (1, 1, 4, 8), "FRACTAL_Z", loc="vec"),
                        ConvTile("f32", (3, 1, 1, 1, 8), "NC1HWC0", loc="vec"), target="a5"), "pto.convtile.shape",
     GeometryError),
    (lambda: pto.timg2col(Tile("left", "f32", 16, 16, blayout="col_major", slayout="row_major"),
                          ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), target="cpu"), "pto.convtile.layout",
     GeometryError),
])
def test_rules(make, rule, cls):
    assert _rule(make, cls) == rule


def test_a_refused_op_changes_nothing():
    """A trap leaves dst as it was (the checks run before any lane is written)."""
    dst = ConvTile("f32", (1, 1, 2, 2, 8), loc="vec")
    before = _pattern(dst)
    with pytest.raises(GeometryError):
        pto.ttrans(dst, ConvTile("f32", (1, 9, 2, 2), "NCHW", loc="vec"), target="cpu")
    t = Tile("right", "f32", 8, 16, slayout="col_major")
    t.bits[...] = 3
    with pytest.raises(GeometryError):
        pto.textract(t, ConvTile("f32", (1, 1, 16, 8), "FRACTAL_Z"), 8, 0, target="cpu")
    assert np.array_equal(dst.bits, before) and (t.bits == 3).all()
