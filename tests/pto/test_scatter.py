"""TSCATTER (decision PTO133) against scalar transcriptions: the CPU simulator's loops (storage offsets, the last
writer winning; the mask forms' stream over src) and the ISA page's (index, column) rule for the NPUs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.errors import TilesimError
from tilesim.pto import Tile, tscatter


def _tiles(rng, dt, shape, idt, ishape, hi):
    dst, src, idx = Tile("vec", dt, *shape), Tile("vec", dt, *ishape), Tile("vec", idt, *ishape)
    dst.bits[...] = rng.integers(0, 1 << 16, dst.bits.shape).astype(dst.dtype.lane)
    src.bits[...] = rng.integers(1, 1 << 16, src.bits.shape).astype(src.dtype.lane)
    idx.bits[...] = rng.integers(0, hi, idx.bits.shape).astype(idx.dtype.lane)
    return dst, src, idx


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([("f32", "u32"), ("f16", "u16"), ("i8", "u16"), ("u16", "i32")]),
       st.integers(1, 8), st.integers(1, 32))
def test_cpu_writes_storage_offsets_last_writer_wins(seed, types, vr, vc):
    rng = np.random.default_rng(seed)
    dt, idt = types
    dst, src, idx = _tiles(rng, dt, (4, 64), idt, (8, 32), 40)   # few targets: many duplicates
    idx.set_valid(vr, vc)
    want = dst.bits.reshape(-1).copy()
    for i in range(vr):                                           # the simulator's loop, element by element
        for j in range(vc):
            want[int(idx.bits[i, j])] = src.bits[i, j]
    tscatter(dst, src, idx, target="cpu")
    assert np.array_equal(dst.bits.reshape(-1), want)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npus_follow_the_page(target):
    rng = np.random.default_rng(3)
    dst, src, idx = _tiles(rng, "f32", (8, 32), "u32", (6, 32), 8)
    src.set_valid(6, 20)
    idx.set_valid(6, 20)
    want = np.zeros_like(dst.bits)                                # dst zeroed, then dst[idx[i, j], j] = src[i, j]
    for i in range(6):
        for j in range(20):
            want[int(idx.bits[i, j]), j] = src.bits[i, j]
    tscatter(dst, src, idx, target=target)
    assert np.array_equal(dst.bits, want)


def _mask_oracle(dst, src, period, sel, axis):
    """TScatter / TScatterCol of include/pto/cpu/TScatter.hpp, transcribed loop by loop."""
    out = dst.bits.copy()
    if axis == "row":
        sr = sc = 0
        for r in range(src.valid_rows):
            for c in range(dst.valid_cols):
                if c % period == sel:
                    out[r, c] = src.bits[sr, sc]
                    sc += 1
                    if sc == src.cols:
                        sc, sr = 0, sr + 1
                else:
                    out[r, c] = 0
    else:
        srow = 0
        for r in range(dst.valid_rows):
            if r % period == sel:
                out[r, :dst.valid_cols] = src.bits[srow, :dst.valid_cols]
                srow += 1
            else:
                out[r, :dst.valid_cols] = 0
    return out


@pytest.mark.parametrize("pattern,period,sel", [("P0101", 2, 0), ("P1010", 2, 1), ("P0001", 4, 0), ("P0010", 4, 1),
                                                ("P0100", 4, 2), ("P1000", 4, 3)])
@pytest.mark.parametrize("axis", ["row", "col"])
def test_cpu_mask_forms(pattern, period, sel, axis):
    rng = np.random.default_rng(period * 10 + sel)
    dst, src = Tile("vec", "i16", 16, 32, valid=(13, 29)), Tile("vec", "i16", 16, 32)
    dst.bits[...] = rng.integers(0, 1 << 16, dst.bits.shape).astype(np.uint16)
    src.bits[...] = rng.integers(1, 1 << 16, src.bits.shape).astype(np.uint16)
    n = sum(1 for k in range(29 if axis == "row" else 13) if k % period == sel)
    src.set_valid(*((13, n) if axis == "row" else (n, 29)))
    want = _mask_oracle(dst, src, period, sel, axis)
    tscatter(dst, src, mask_pattern=pattern, axis=axis, target="cpu")
    assert np.array_equal(dst.bits, want)
    tscatter(dst, src, mask_pattern=pattern, axis=axis, target="a5")   # the NPUs zero all of dst first
    want[13:], want[:, 29:] = 0, 0
    if axis == "row":   # and read each src row from its start (the page's formula)
        want[:13, :29] = 0
        want[:13, [c for c in range(29) if c % period == sel]] = src.bits[:13, :n]
    assert np.array_equal(dst.bits, want)


def test_p1111_is_tmov():
    src, dst = Tile("vec", "f32", 4, 8), Tile("vec", "f32", 4, 8)
    src.values[...] = np.arange(32).reshape(4, 8)
    assert tscatter(dst, src, mask_pattern="P1111", target="cpu").values.tolist() == src.values.tolist()


def test_refusals_leave_dst_unchanged():
    rng = np.random.default_rng(1)
    dst, src, idx = _tiles(rng, "f32", (4, 8), "u32", (2, 8), 32)
    idx.bits[1, 3] = 32                                           # one past dst's storage
    before = dst.bits.copy()
    with pytest.raises(TilesimError) as e:
        tscatter(dst, src, idx, target="cpu")
    assert e.value.rule == "pto.tscatter.index" and np.array_equal(dst.bits, before)
    idx.bits[1, 3] = 4                                            # in storage, but past the page's 4 rows
    with pytest.raises(TilesimError) as e:
        tscatter(dst, src, idx, target="a5")
    assert e.value.rule == "pto.tscatter.index" and np.array_equal(dst.bits, before)
    with pytest.raises(TilesimError):                             # 4-byte data needs 4-byte indexes on the NPUs
        tscatter(dst, src, Tile("vec", "u16", 2, 16), target="a2a3")
    with pytest.raises(TilesimError):                             # index form or mask form, not both
        tscatter(dst, src, idx, mask_pattern="P0101", target="cpu")
    with pytest.raises(TilesimError) as e:                        # the page's shapes on the NPUs
        tscatter(Tile("vec", "f32", 4, 8), Tile("vec", "f32", 4, 8), mask_pattern="P0101", target="a5")
    assert e.value.rule == "pto.tscatter.shape"
    with pytest.raises(TilesimError):                             # cpu: 1-byte mask scatter fails its static_assert
        tscatter(Tile("vec", "i8", 4, 32), Tile("vec", "i8", 4, 32, valid=(4, 16)), mask_pattern="P0101",
                 target="cpu")


def test_pto_dps_form():
    import io

    from tilesim import pto
    b = lambda dt, r, c: (f"!pto.tile_buf<loc=vec, dtype={dt}, rows={r}, cols={c}, v_row={r}, v_col={c}, "  # noqa
                          "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    s, i, d = b("f32", 1, 8), b("u32", 1, 8), b("f32", 2, 8)
    text = f"""module {{
  func.func @k() {{
    %s = pto.alloc_tile : {s}
    %i = pto.alloc_tile : {i}
    %d = pto.alloc_tile : {d}
    %c5 = arith.constant 5.0 : f32
    %c1 = arith.constant 1 : i32
    pto.texpands ins(%c5 : f32) outs(%s : {s})
    pto.texpands ins(%c1 : i32) outs(%i : {i})
    pto.tscatter ins(%s, %i : {s}, {i}) outs(%d : {d})
    pto.tprint ins(%d : {d})
    return
  }}
}}
"""
    out = io.StringIO()
    pto.run_text(text, {}, "a5", stdout=out)
    assert "[[0. 0. 0. 0. 0. 0. 0. 0.]\n [5. 5. 5. 5. 5. 5. 5. 5.]]" in out.getvalue(), out.getvalue()
