"""A2A3's NZ forms of MGATHER and MSCATTER (decision PTO188) against a scalar transcription of the kernels'
loops in docs/isa/MGATHER.md and MSCATTER.md ("NZ Layout (A2/A3)") and npu/a2a3/MGather.hpp, MScatter.hpp:
a flat GM buffer addressed through the tensor's element strides by MGatherNZGmOffset's formula (with its
gShape0 == 1 case), bursts of C0 elements per (row, batch), the Elem walk block column -> row -> element, and
the tile's bytes addressed as the pages' UB offset ``(c / C0) * (Rows * C0) + r * C0 + c % C0``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import Tile, mgather, mscatter

U32 = 2 ** 32


def _remap(k: int, cap: int, oob: str):
    """mgather_remap / mscatter_remap on uint32_t: the index used, or None (zero / skip)."""
    k %= U32
    if oob == "clamp":
        return min(k, cap - 1)
    if oob == "wrap":
        return k % cap
    return k if k < cap else None


def _gm_offset(row: int, col: int, shape, strides) -> int:
    """MGatherNZGmOffset: the element offset of logical (row, col) in an NZ tensor."""
    c0 = shape[4]
    bcc, cin = divmod(col, c0)
    outer0, outer1 = (0, bcc) if shape[0] == 1 else divmod(bcc, shape[1])
    brow, rin = divmod(row, 16)
    return outer0 * strides[0] + outer1 * strides[1] + brow * strides[2] + rin * strides[3] + cin * strides[4]


def _ub(r: int, c: int, rows: int, c0: int) -> int:
    return (c // c0) * (rows * c0) + r * c0 + c % c0


def _table(rng, shape, pad: int, dt):
    """An NZ table as a view with ``pad`` spare elements after each block row (a stride-padded tensor), and
    the flat buffer with its element strides."""
    b, bc, br, _, c0 = shape
    s3, s2 = c0, 16 * c0 + pad
    s1, s0 = br * s2, bc * br * s2
    buf = rng.integers(0, 2 ** (8 * np.dtype(dt).itemsize), b * s0, dtype=np.uint64).astype(dt)
    it = buf.itemsize
    view = np.lib.stride_tricks.as_strided(buf, shape, (s0 * it, s1 * it, s2 * it, s3 * it, it))
    return view, buf, (s0, s1, s2, s3, 1)


def _nz_tile(dt: str, rows: int, cols: int, valid, fill) -> Tile:
    t = Tile("vec", dt, rows, cols, valid, "col_major", "row_major")
    t.load_storage(fill)
    return t


SHAPES = [(1, 2, 2, 16, 8), (2, 1, 1, 16, 8), (2, 2, 1, 16, 8)]     # f32/i32: C0 = 8


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(SHAPES), st.sampled_from(["clamp", "wrap", "zero"]),
       st.integers(0, 3), st.integers(1, 32), st.integers(1, 32))
def test_row_gather_matches_the_kernel(seed, shape, oob, pad, vr, vc):
    rng = np.random.default_rng(seed)
    view, buf, strides = _table(rng, shape, pad, np.uint32)
    rows, c0 = shape[2] * 16, shape[4]
    init = rng.integers(0, U32, 32 * 32, dtype=np.uint64).astype(np.uint32)
    dst = _nz_tile("i32", 32, 32, (vr, vc), init)
    idx = Tile("vec", "i32", 1, 32, (1, vr))
    idx.bits[0] = rng.integers(-3, rows + 5, 32).astype(np.int32).view(np.uint32)
    want = np.zeros_like(init) if oob == "zero" else init.copy()
    for r in range(vr):
        k = _remap(int(idx.bits[0, r]), rows, oob)
        if k is None:
            continue
        for i in range(shape[0]):                   # one multi-burst DMA per batch: gShape1 bursts of C0
            for j in range(shape[1]):
                for e in range(c0):
                    col = (i * shape[1] + j) * c0 + e
                    want[_ub(r, col, 32, c0)] = buf[i * strides[0] + (k // 16) * strides[2] + (k % 16) * strides[3]
                                                     + j * strides[1] + e]
    mgather(dst, view.view(np.int32), idx, coalesce="row", oob=oob, target="a2a3")
    assert np.array_equal(dst.storage(), want)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(SHAPES), st.sampled_from(["clamp", "wrap", "zero"]),
       st.integers(0, 3), st.integers(1, 32), st.integers(1, 32))
def test_elem_gather_matches_the_kernel(seed, shape, oob, pad, vr, vc):
    rng = np.random.default_rng(seed)
    view, buf, strides = _table(rng, shape, pad, np.uint32)
    c0 = shape[4]
    nlc = shape[0] * shape[1] * c0
    size = shape[2] * 16 * nlc
    init = rng.integers(0, U32, 32 * 32, dtype=np.uint64).astype(np.uint32)
    dst = _nz_tile("f32", 32, 32, (vr, vc), init)
    idx = Tile("vec", "u32", 32, 32, (vr, vc))
    idx.bits[...] = rng.integers(0, size + 40, (32, 32)).astype(np.uint32)
    idx.bits[0, 0] = U32 - 1                                        # -1 as uint32: wraps to (2**32 - 1) % size
    want = init.copy()
    for bcol in range(-(-vc // c0)):
        for r in range(vr):
            for c in range(bcol * c0, min(bcol * c0 + c0, vc)):
                k = _remap(int(idx.bits[r, c]), size, oob)
                want[_ub(r, c, 32, c0)] = 0 if k is None else buf[_gm_offset(k // nlc, k % nlc, shape, strides)]
    mgather(dst, view.view(np.float32), idx, coalesce="elem", oob=oob, target="a2a3")
    assert np.array_equal(dst.storage(), want)


@pytest.mark.parametrize("coalesce", ["elem", "row"])
@pytest.mark.parametrize("atomic", ["none", "add"])
@pytest.mark.parametrize("oob", ["skip", "clamp", "wrap"])
@pytest.mark.parametrize("conflict", ["last", "default"])   # A2A3 has no ScatterConflict: its loop decides (PTO109)
def test_scatter_matches_the_kernel(coalesce, atomic, oob, conflict):
    rng = np.random.default_rng(sum(map(ord, coalesce + atomic + oob)))
    shape, pad = (2, 1, 2, 16, 16), 5                                # i16: C0 = 16
    view, buf, strides = _table(rng, shape, pad, np.uint16)
    c0, rows, nlc = 16, 32, 32
    size = rows * nlc
    vr, vc = 20, 27
    src = _nz_tile("i16", 32, 32, (vr, vc), rng.integers(0, 2 ** 16, 32 * 32).astype(np.uint16))
    lanes = src.storage()
    if coalesce == "row":
        idx = Tile("vec", "i32", 1, 32, (1, vr))
        idx.bits[0] = rng.integers(-2, rows + 3, 32).astype(np.int32).view(np.uint32)
        idx.bits[0, 1] = idx.bits[0, 0]                              # a repeated row: the later wins / adds
    else:
        idx = Tile("vec", "i32", 32, 32, (vr, vc))
        idx.bits[...] = rng.integers(-2, 60, (32, 32)).astype(np.int32).view(np.uint32)   # many collisions
    want = buf.copy()

    def store(off: int, v: int) -> None:
        want[off] = (int(want[off]) + v) % 2 ** 16 if atomic == "add" else v

    if coalesce == "row":
        for r in range(vr):
            k = _remap(int(idx.bits[0, r]), rows, oob)
            if k is None:
                continue
            for i in range(shape[0]):
                for e in range(c0):                                  # gShape1 = 1 burst of C0
                    col = i * c0 + e
                    store(i * strides[0] + (k // 16) * strides[2] + (k % 16) * strides[3] + e,
                          int(lanes[_ub(r, col, 32, c0)]))
    else:
        for bcol in range(-(-vc // c0)):
            for r in range(vr):
                for c in range(bcol * c0, min(bcol * c0 + c0, vc)):
                    k = _remap(int(idx.bits[r, c]), size, oob)
                    if k is not None:
                        store(_gm_offset(k // nlc, k % nlc, shape, strides), int(lanes[_ub(r, c, 32, c0)]))
    mscatter(view.view(np.int16), src, idx, coalesce=coalesce, atomic=atomic, oob=oob, conflict=conflict,
             target="a2a3")
    assert np.array_equal(buf, want)


def test_float_add_follows_the_elem_walk():
    """f32 sums in the kernel's order (block column before row): 1 + 1 + 2**24 is exact, 1 + 2**24 + 1 is not."""
    view = np.zeros((1, 2, 1, 16, 8), np.float32)
    src = Tile("vec", "f32", 16, 16, (2, 9), "col_major", "row_major")
    idx = Tile("vec", "i32", 16, 16, (2, 9))
    idx.bits[...] = 0
    src.values[...] = 0
    src.values[0, 0], src.values[1, 0], src.values[0, 8] = 1.0, 1.0, 2.0 ** 24   # walk: (0,0), (1,0), then (0,8)
    mscatter(view, src, idx, atomic="add", target="a2a3")
    assert view[0, 0, 0, 0, 0] == 2.0 ** 24 + 2      # row by row: (0,0), (0,8) gives 2**24 + 1, rounded to 2**24


def test_refusals():
    view = np.zeros((1, 2, 2, 16, 8), np.int32)
    nz, nd = (Tile("vec", "i32", 32, 16, (4, 16), "col_major", "row_major"), Tile("vec", "i32", 4, 16))
    idx = Tile("vec", "i32", 1, 8, (1, 4))
    with pytest.raises(GeometryError, match="pto.op.layout"):          # an ND tile with an NZ table
        mgather(nd, view, idx, coalesce="row", target="a2a3")
    with pytest.raises(GeometryError, match="pto.op.layout"):          # an Nz tile with an ND table
        mgather(nz, np.zeros((32, 16), np.int32), idx, coalesce="row", target="a2a3")
    with pytest.raises(TilesimError, match="pto.mgather.nz"):         # C0 of i32 is 8
        mgather(nz, np.zeros((1, 1, 2, 16, 16), np.int32), idx, coalesce="row", target="a2a3")
    with pytest.raises(TilesimError, match="pto.mgather.nz"):         # whole rows of 32 columns, tile of 16
        mgather(nz, np.zeros((2, 2, 2, 16, 8), np.int32), idx, coalesce="row", target="a2a3")
    with pytest.raises(DtypeError, match="pto.mem.elem_size"):
        mgather(nz, np.zeros((1, 2, 2, 16, 8), np.int16), idx, coalesce="row", target="a2a3")
    idx.bits[0, 0] = 32
    with pytest.raises(TilesimError, match="pto.mgather.index"):      # undefined: past the 32 logical rows
        mgather(nz, view, idx, coalesce="row", target="a2a3")
    for target in ("a5", "cpu"):                                        # NZ tables are A2A3's only
        with pytest.raises(TilesimError):
            mgather(nz, view, Tile("vec", "i32", 1, 8, (1, 4)), coalesce="row", target=target)
    idx.bits[0, 0] = 0
    table = np.ones((2, 1, 2, 16, 8), np.int32)
    with pytest.raises(TilesimError, match="pto.mscatter.nz"):
        mscatter(np.ones((1, 1, 2, 16, 4), np.int32), nz, idx, coalesce="row", target="a2a3")   # C0 of i32: 8
    mscatter(table, nz, idx, coalesce="row", target="a2a3")
    wide = Tile("vec", "i32", 32, 8, (4, 8), "col_major", "row_major")
    before = table.copy()
    with pytest.raises(TilesimError, match="pto.mscatter.nz"):         # 16 columns from a tile of 8
        mscatter(table, wide, idx, coalesce="row", target="a2a3")
    assert np.array_equal(table, before)


def test_npu_indexes_are_uint32():
    """-1 is 2**32 - 1 on the NPUs (mgather_remap's uint32_t), 2**64 - 1 on cpu (size_t): wrap differs."""
    table = np.arange(7, dtype=np.float32)
    idx = Tile("vec", "i32", 1, 8, (1, 1))
    idx.bits[0, 0] = U32 - 1
    got = {t: mgather(Tile("vec", "f32", 1, 8, (1, 1)), table, idx, oob="wrap", target=t).values[0, 0]
           for t in ("cpu", "a2a3", "a5")}
    assert got == {"cpu": (2 ** 64 - 1) % 7, "a2a3": (2 ** 32 - 1) % 7, "a5": (2 ** 32 - 1) % 7}
