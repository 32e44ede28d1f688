"""TGATHERB against a byte-by-byte oracle over the storages, and its checks per target (PTO131)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError
from tilesim.pto import Tile

from .helpers import TARGETS, rand_bits, seed


def _oracle(dst: Tile, src: Tile, offset: Tile, cpu: bool) -> bytes:
    """dst's bytes after the op, one 32-byte block at a time (Python ints, no numpy indexing tricks)."""
    out = bytearray(dst.storage().tobytes())
    sb = src.storage().tobytes()
    offs = [int(v) & 0xFFFFFFFF for v in offset.storage().view(offset.dtype.np).tolist()]
    row_bytes = dst.cols * dst.dtype.size
    for r in range(dst.valid_rows):
        for c in range(dst.valid_cols * dst.dtype.size // 32):
            o = offs[r * offset.cols + c]
            if o + 32 <= len(sb):
                out[r * row_bytes + 32 * c: r * row_bytes + 32 * c + 32] = sb[o: o + 32]
    return bytes(out)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("ddt,sdt,valid", [("f32", "f32", (7, 16)), ("i16", "bf16", (8, 64)), ("u8", "i32", (3, 96))])
def test_tgatherb_blocks(target, ddt, sdt, valid):
    rng = np.random.default_rng(seed("tgatherb", target, ddt, sdt))
    dst = Tile("vec", ddt, 8, 128 // pto.get_dtype(ddt).size, valid=valid)
    src = Tile("vec", sdt, 16, 256 // pto.get_dtype(sdt).size)
    off = Tile("vec", "u32", 8, 8)
    for t in (dst, src):
        t.bits[...] = rand_bits(rng, t.dtype.name, t.bits.shape)
    n = src.numel * src.dtype.size
    off.bits[...] = rng.integers(0, n - 32, off.bits.shape)
    off.bits[0, 0] = n - 32
    want = _oracle(dst, src, off, target == "cpu")
    pto.tgatherb(dst, src, off, target=target)
    assert dst.storage().tobytes() == want


def test_tgatherb_cpu_quirks():
    """cpu: an offset past src's end keeps the block; a partial last block is not written; valid columns a
    multiple of 4 (the simulator's assert); the NPUs refuse the first two."""
    src, off = Tile("vec", "f32", 4, 16), Tile("vec", "i32", 4, 8)
    off.bits[...] = 0
    off.values[0, 0] = 4 * 16 * 4 - 31
    dst = Tile("vec", "f32", 4, 16, valid=(4, 12))
    dst.bits[...] = 7
    src.bits[...] = 1
    pto.tgatherb(dst, src, off, target="cpu")
    assert (dst.bits[0, :8] == 7).all() and (dst.bits[1:, :8] == 1).all() and (dst.bits[:, 8:] == 7).all()
    for target, rule in (("a5", "pto.tgatherb.cols"), ("a2a3", "pto.tgatherb.cols")):
        with pytest.raises(GeometryError, match=rule):
            pto.tgatherb(dst, src, off, target=target)
    whole = Tile("vec", "f32", 4, 16, valid=(4, 16))
    with pytest.raises(GeometryError, match="pto.tgatherb.offset"):
        pto.tgatherb(whole, src, off, target="a5")
    with pytest.raises(GeometryError, match="pto.tgatherb.cols"):
        pto.tgatherb(Tile("vec", "f32", 4, 16, valid=(4, 6)), src, off, target="cpu")


@pytest.mark.parametrize("target", TARGETS)
def test_tgatherb_refusals(target):
    src, off = Tile("vec", "f32", 4, 16), Tile("vec", "u32", 4, 8)
    with pytest.raises(GeometryError, match="pto.op.layout"):     # row-major ND tiles only
        pto.tgatherb(Tile("vec", "f32", 16, 4, blayout="col_major"), src, off, target=target)
    with pytest.raises(DtypeError, match="pto.op.dtype"):
        pto.tgatherb(Tile("vec", "f32", 4, 16), src, Tile("vec", "f32", 4, 8), target=target)
    with pytest.raises(GeometryError, match="pto.tgatherb.offset"):   # row 4's offsets are not in the tile
        pto.tgatherb(Tile("vec", "f32", 8, 16), src, Tile("vec", "u32", 4, 8), target=target)


def test_tgatherb_pto_dps():
    b = lambda dt, r, c: (f"!pto.tile_buf<loc=vec, dtype={dt}, rows={r}, cols={c}, v_row={r}, v_col={c}, "  # noqa
                          "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    s, o, d = b("i32", 2, 8), b("u32", 1, 8), b("i32", 1, 8)
    text = f"""module {{
  func.func @k() {{
    %s = pto.alloc_tile : {s}
    %o = pto.alloc_tile : {o}
    %d = pto.alloc_tile : {d}
    %c5 = arith.constant 5 : i32
    %c32 = arith.constant 32 : i32
    pto.texpands ins(%c5 : i32) outs(%s : {s})
    pto.texpands ins(%c32 : i32) outs(%o : {o})
    pto.tgatherb ins(%s, %o : {s}, {o}) outs(%d : {d})
    pto.tprint ins(%d : {d})
    return
  }}
}}
"""
    for target in TARGETS:
        out = io.StringIO()
        pto.run_text(text, {}, target, stdout=out)
        assert "[[5 5 5 5 5 5 5 5]]" in out.getvalue(), out.getvalue()
