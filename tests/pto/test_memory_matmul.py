"""TLOAD/TSTORE between numpy arrays and tiles, and TMATMUL against exact sums."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, TilesimError
from tilesim.pto import Tile

from . import oracle as o
from .helpers import TARGETS, rand_bits, seed, sentinel


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", sorted(pto.dtypes.ALL))  # fp8: tests/pto/test_fp8.py
def test_tload_tstore_round_trip(target, dt):
    rng = np.random.default_rng(seed(target, dt))
    d = pto.get_dtype(dt)
    gm = rand_bits(rng, dt, (10, 70)).view(d.np)
    per = 32 // d.size
    t = Tile("vec", dt, 4, -(-40 // per) * per, valid=(3, 37))
    before = sentinel(t)
    pto.tload(t, gm, offset=(2, 5), target=target)
    assert (t.bits[:3, :37] == gm[2:5, 5:42].view(d.lane)).all()   # bits copied
    if target == "cpu":  # the simulator pads the rest of the tile first (PTO98)
        before[...] = 0
    assert (t.bits[3:] == before[3:]).all() and (t.bits[:, 37:] == before[:, 37:]).all()
    out = np.zeros((5, 40), d.np)
    pto.tstore(out, t, offset=(1, 2), target=target)
    assert (out[1:4, 2:39].view(d.lane) == gm[2:5, 5:42].view(d.lane)).all()
    assert (out[0] == 0).all() and (out[:, :2].view(d.lane) == 0).all()


def test_elements_are_bits_not_values():
    raw = np.array([[0x7E01, 0x3C00]], np.uint16)  # a NaN payload and 1.0 as f16 bit patterns
    t = pto.tload(Tile("vec", "f16", 1, 16, valid=(1, 2)), raw)
    assert t.bits[0, :2].tolist() == [0x7E01, 0x3C00]
    with pytest.raises(DtypeError) as e:
        pto.tload(Tile("vec", "f16", 1, 16), np.zeros((1, 16), np.float32))
    assert e.value.rule == "pto.mem.elem_size"


def test_tstore_atomic_and_acc_conversion():
    t = Tile.from_array(np.array([[1.5, -2.0, np.nan]], np.float32))
    gm = np.array([[1.0, 5.0, 3.0]], np.float32)
    pto.tstore(gm, t, atomic="add")
    assert gm[0, :2].tolist() == [2.5, 3.0] and np.isnan(gm[0, 2])
    pto.tstore(gm, t, atomic="atomic_add")                     # PTOAS's spelling
    assert gm[0, :2].tolist() == [4.0, 1.0]
    gm = np.array([[1.0, 5.0, 3.0]], np.float32)
    pto.tstore(gm, t, atomic="max", target="cpu")
    assert gm[0].tolist() == [1.5, 5.0, 3.0]  # max(old, new): a NaN in the second operand loses (cpu)
    acc = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024, valid=(1, 2))
    acc.values[0, :2] = [1 + 2.0 ** -11, 3.0]  # half an f16 ulp above 1: the tie goes to even
    half = np.zeros((1, 2), np.float16)
    pto.tstore(half, acc)
    assert half.tolist() == [[1.0, 3.0]]  # rounded to nearest even
    bf = np.zeros((1, 2), ml_dtypes.bfloat16)
    pto.tstore(bf, acc)
    assert bf.astype(np.float32).tolist() == [[1.0, 3.0]]


def _err(fn, *a, **k):
    with pytest.raises(TilesimError) as e:
        fn(*a, **k)
    return e.value


def test_memory_op_errors():
    gm = np.zeros((8, 8), np.float32)
    assert _err(pto.tload, Tile("vec", "f32", 4, 8), gm, offset=(6, 0)).rule == "pto.mem.window"
    assert _err(pto.tload, Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major"), gm).rule == "pto.op.loc"
    assert _err(pto.tload, Tile("vec", "f32", 4, 8, valid=(0, 8)), gm).rule == "pto.op.valid_nonzero"
    assert _err(pto.tload, Tile("vec", "f32", 4, 8), gm.ravel()).rule == "pto.op.operand"
    assert _err(pto.tload, Tile("vec", "f32", 16, 16, slayout="col_major"), np.zeros((16, 16), np.float32)
                ).rule == "pto.op.layout"
    assert _err(pto.tload, Tile("vec", "i8", 4096, 32, valid=(1, 32)), np.zeros((1, 32), np.int8),
                target="a2a3").rule == "pto.tload.rows"
    pto.tload(Tile("vec", "i8", 4096, 32, valid=(1, 32)), np.zeros((1, 32), np.int8), target="a5")
    assert _err(pto.tstore, gm, Tile("vec", "f32", 4, 8), atomic="xor").rule == "pto.tstore.atomic"
    assert _err(pto.tstore, gm, Tile("vec", "f32", 4, 8), st_phase="middle").rule == "pto.tstore.st_phase"
    before = gm.copy()
    pto.tstore(gm, Tile.from_array(np.full((2, 3), 7, np.float32)), st_phase="final")   # no effect on data
    assert (gm[:2, :3] == 7).all() and (gm[2:] == before[2:]).all()
    assert _err(pto.tstore, gm, Tile("mat", "f32", 4, 8), target="a5").rule == "pto.op.loc"
    pto.tstore(gm, Tile("mat", "f32", 4, 8), target="a2a3")
    assert _err(pto.tstore, np.zeros((8, 8), np.float16), Tile("vec", "f32", 4, 8)).rule == "pto.mem.elem_size"


# ------------------------------------------------------------------- matmul
def _mm_tiles(M, K, N, adt, cdt, target):
    lb = pto.get_target(target).left_blayout or "row_major"
    a = Tile("left", adt, -(-M // 16) * 16, -(-K // 32) * 32, valid=(M, K), blayout=lb, slayout="row_major")
    b = Tile("right", adt, a.cols, -(-N // 16) * 16, valid=(K, N), blayout="row_major", slayout="col_major")
    c = Tile("acc", cdt, a.rows, b.cols, blayout="col_major", slayout="row_major", fractal=1024)
    return a, b, c


def _fma_step(acc: int, x: float, y: float) -> int:
    """One CPU-reference step ``acc = fma(x, y, acc)`` in f32: the exact value, rounded once (oracle arithmetic)."""
    a = o.dec(acc, "f32")
    s = Fraction(a) + Fraction(x) * Fraction(y)
    if s == 0:  # IEEE: an exact zero sum is +0 unless both addends are -0
        neg_prod = (x == 0 or y == 0) and ((x < 0) != (y < 0) or str(x).startswith("-") != str(y).startswith("-"))
        return 0x80000000 if (acc == 0x80000000 and neg_prod) else 0
    return o.round_bits(s, "f32")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("adt,cdt", [("f16", "f32"), ("bf16", "f32"), ("f32", "f32"), ("i8", "i32")])
def test_tmatmul_matches_exact_chain(target, adt, cdt):
    rng = np.random.default_rng(seed(target, adt))
    M, K, N = 5, 37, 7
    a, b, c = _mm_tiles(M, K, N, adt, cdt, target)
    A = rand_bits(rng, adt, (M, K), special=0.0, lo=-4, hi=4)
    B = rand_bits(rng, adt, (K, N), special=0.0, lo=-4, hi=4)
    a.bits[:M, :K], b.bits[:K, :N] = A, B
    pto.tmatmul(c, a, b, target=target)
    for i in range(M):
        for j in range(N):
            row = [o.dec(int(v), adt) for v in A[i]]
            col = [o.dec(int(v), adt) for v in B[:, j]]
            if cdt == "i32":
                assert int(c.bits[i, j]) == o.int_bits(sum(x * y for x, y in zip(row, col)), "i32")
            else:
                acc = 0
                for x, y in zip(row, col):
                    acc = _fma_step(acc, x, y)
                assert int(c.bits[i, j]) == acc


def test_fma_is_fused():
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a separate product would round away the 2^-24 before adding -1
    a, b, c = _mm_tiles(1, 1, 1, "f32", "f32", "a5")
    a.values[0, 0] = b.values[0, 0] = 1 + 2.0 ** -12
    pto.tmatmul(c, a, b)
    assert c.values[0, 0] == np.float32(1 + 2.0 ** -11)  # 2^-24 is half an ulp of 1: the tie goes to even
    a2, b2, c2 = _mm_tiles(1, 2, 1, "f32", "f32", "a5")
    a2.values[0, :2] = [1 + 2.0 ** -12, 1.0]
    b2.values[:2, 0] = [1 + 2.0 ** -12, -1.0]
    pto.tmatmul(c2, a2, b2)  # acc = fma(x, x, 0) rounds to 1 + 2^-11 (the 2^-24 tie goes to even), then -1
    assert c2.values[0, 0] == np.float32(2.0 ** -11)
    a3, b3, c3 = _mm_tiles(1, 2, 1, "f32", "f32", "a5")
    a3.values[0, :2] = [1.0, 1 + 2.0 ** -12]
    b3.values[:2, 0] = [-1.0, 1 + 2.0 ** -12]
    pto.tmatmul(c3, a3, b3)  # acc = -1, then fma(x, x, -1) keeps 2^-11 + 2^-24 exactly
    assert c3.values[0, 0] == np.float32(2.0 ** -11 + 2.0 ** -24)


def test_tmatmul_errors():
    a, b, c = _mm_tiles(4, 32, 16, "f16", "f32", "a5")
    assert _err(pto.tmatmul, c, b, a).rule == "pto.op.loc"
    a2 = Tile("left", "f16", 16, 32, blayout="row_major", slayout="row_major")
    assert _err(pto.tmatmul, c, a2, b, target="a5").rule == "pto.op.layout"   # A5 Left is col_major
    a3, b3, c3 = _mm_tiles(4, 32, 16, "f16", "f32", "a2a3")
    pto.tmatmul(c3, a3, b3, target="a2a3")                                     # A2A3 Left is row_major
    assert _err(pto.tmatmul, c, a, Tile("right", "f16", 32, 16, slayout="row_major")).rule == "pto.op.layout"
    assert _err(pto.tmatmul, Tile("acc", "f32", 16, 32, blayout="col_major", slayout="row_major", fractal=1024),
                a, b).rule == "pto.tmatmul.shape"
    assert _err(pto.tmatmul, Tile("acc", "f16", 16, 16, blayout="col_major", slayout="row_major", fractal=1024),
                a, b).rule == "pto.op.dtype"
    a.set_valid(0, 32)
    assert _err(pto.tmatmul, c, a, b).rule == "pto.op.range"


def test_result_cmp_rule():
    """spec §5: fail when |diff| > eps AND |diff/golden| > eps, or exactly one side is NaN; pass if <= floor(n*eps)."""
    gold = np.ones(2000)
    out = gold.copy()
    out[0] = 1.5                      # abs 0.5, rel 0.5: fails
    out[1] = np.nan                   # one-sided NaN: fails
    out[2] = 1.0005                   # within eps: passes
    r = pto.result_cmp(out, gold, 1e-3)
    assert (r.failures, r.allowed, r.passed) == (2, 2, True)
    out[3] = 2.0
    assert not pto.result_cmp(out, gold, 1e-3).passed
    big = np.full(2000, 1e6)
    assert pto.result_cmp(big * (1 + 1e-4), big, 1e-3).failures == 0   # abs diff 100 but rel 1e-4
    both = np.array([np.nan, 0.0])
    assert pto.result_cmp(both, both, 0.0).passed
    assert not pto.result_cmp(np.zeros(1001), np.ones(1001), 1.0).passed  # > 1000 unexpected zeros


def test_left_block_layout_is_checked_on_a5_only():
    """Decision PTO40: A5's TMATMUL needs a col_major Left tile (docs/isa/TMATMUL.md); A2A3's implementation
    checks dtypes and locations only, so either Left block layout gives the same product there."""
    rng = np.random.default_rng(seed("left-layout"))
    A = rand_bits(rng, "f16", (5, 37), special=0.0, lo=-4, hi=4)
    B = rand_bits(rng, "f16", (37, 7), special=0.0, lo=-4, hi=4)
    out = {}
    for lb in ("row_major", "col_major"):
        a = Tile("left", "f16", 16, 64, valid=(5, 37), blayout=lb, slayout="row_major")
        b = Tile("right", "f16", 64, 16, valid=(37, 7), blayout="row_major", slayout="col_major")
        c = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
        a.bits[:5, :37], b.bits[:37, :7] = A, B
        out[lb] = pto.tmatmul(c, a, b, target="a2a3").bits[:5, :7].copy()
        if lb == "row_major":
            assert _err(pto.tmatmul, c, a, b, target="a5").rule == "pto.op.layout"
        else:
            pto.tmatmul(c, a, b, target="a5")
    assert (out["row_major"] == out["col_major"]).all()


@pytest.mark.parametrize("blayout, slayout", [("row_major", "col_major"), ("row_major", "row_major"),
                                              ("col_major", "col_major")])
def test_cpu_tload_takes_every_vec_layout(blayout, slayout):
    """The simulator's TLOAD sets each element of the valid region whatever the tile's layout (PTO160): on `cpu`
    a Zn, Zz or Nn vec tile loads the window's bits and pads the rest; a2a3 and a5 refuse those layouts."""
    gm = np.arange(8 * 20, dtype=np.float32).reshape(8, 20)
    tile = Tile("vec", "f32", 16, 32, valid=(5, 17), blayout=blayout, slayout=slayout)
    pto.tload(tile, gm, offset=(2, 3), target="cpu")
    assert (tile.valid_values == gm[2:7, 3:20]).all()
    assert (tile.values[5:] == 0).all() and (tile.values[:, 17:] == 0).all()
    for target in ("a2a3", "a5"):
        assert _err(pto.tload, tile, gm, target=target).rule == "pto.op.layout"


def test_cpu_tload_writes_every_location():
    """The simulator's TLOAD has no location check (PTO161): on `cpu` a bias row and a left tile load their
    window's bits (TMATMUL_BIAS's bias straight from global memory, as pto-isa's tmatmul tests do); a2a3 and
    a5 load vec and mat tiles only."""
    gm = np.arange(4 * 64, dtype=np.float32).reshape(4, 64)
    bias = Tile("bias", "f32", 1, 64, valid=(1, 50))
    pto.tload(bias, gm, offset=(2, 0), target="cpu")
    assert (bias.valid_values == gm[2, :50]).all()
    left = Tile("left", "f32", 16, 16, valid=(3, 5), blayout="row_major", slayout="row_major")
    pto.tload(left, gm, offset=(1, 7), target="cpu")
    assert (left.valid_values == gm[1:4, 7:12]).all()
    for target in ("a2a3", "a5"):
        assert _err(pto.tload, bias, gm, target=target).rule == "pto.op.loc"


def test_cpu_tload_copies_fp8_codes():
    """PTO164: the simulator's TLOAD copies any element type, and pto-isa's MX matmul tests load fp8 codes into
    mat tiles; on `cpu` TLOAD takes f8e4m3/f8e5m2/f8e8m0 tiles (their bytes); a2a3 keeps its table (A5: PTO110)."""
    rng = np.random.default_rng(seed("tload-fp8"))
    for dt in ("f8e4m3", "f8e5m2", "f8e8m0"):
        codes = rng.integers(0, 256, (6, 40)).astype(np.uint8)
        mat = Tile("mat", dt, 32, 64, valid=(5, 37), blayout="col_major", slayout="row_major")
        pto.tload(mat, codes.view(pto.get_dtype(dt).np), offset=(1, 2), target="cpu")
        assert (mat.valid_bits == codes[1:6, 2:39]).all()
        assert _err(pto.tload, Tile("vec", dt, 8, 64), codes.view(pto.get_dtype(dt).np), target="a2a3"
                    ).rule == "pto.op.dtype"


def test_a5_tload_and_tstore_move_fp8_codes():
    """PTO110: A5's TLOAD asks only for a 1-, 2-, 4- or 8-byte element and TSTORE lists float8_e4m3_t,
    float8_e5m2_t and float8_e8m0_t: both move the codes' bytes, in vec and mat tiles; A2A3 lists none."""
    rng = np.random.default_rng(seed("a5-fp8"))
    for dt in ("f8e4m3", "f8e5m2", "f8e8m0"):
        codes = rng.integers(0, 256, (6, 40)).astype(np.uint8)
        g = codes.view(pto.get_dtype(dt).np)
        vec = Tile("vec", dt, 8, 64, valid=(5, 37))
        for t in (vec, Tile("mat", dt, 32, 64, valid=(5, 37), blayout="col_major", slayout="row_major")):
            pto.tload(t, g, offset=(1, 2), target="a5")
            assert (t.valid_bits == codes[1:6, 2:39]).all()
        out = np.zeros((5, 37), np.uint8)
        pto.tstore(out.view(pto.get_dtype(dt).np), vec, target="a5")
        assert (out == codes[1:6, 2:39]).all()
        assert _err(pto.tstore, np.zeros((5, 37), g.dtype), Tile("vec", dt, 8, 64, valid=(5, 37)),
                    target="a2a3").rule == "pto.op.dtype"
