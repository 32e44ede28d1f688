"""TLOAD, TSTORE, TEXTRACT and TTRANS of a :class:`~tilesim.pto.conv.ConvTile` (decisions PTO172-PTO174).

``pto.tload``, ``pto.tstore``, ``pto.textract`` and ``pto.ttrans`` come here when an operand is a ConvTile.
On ``cpu`` every form follows pto-isa's CPU simulator (include/pto/cpu/TLoad.hpp ``TLOAD_CONVTILE_IMPL``,
TStore.hpp ``TStoreConv``, TExtract.hpp ``TEXTRACT_CONVTILE_IMPL``, TTrans.hpp ``TTRANS_CONV_IMPL``, the index
maps of tile_offsets.hpp), written here as whole-array index maps; ``C0`` is the dtype's 32-byte block
(:attr:`ConvTile.c0`).

* **TLOAD / TSTORE** (``mat`` ConvTile; NC1HWC0, NDC1HWC0, and for TLOAD FRACTAL_Z): the global tensor is a
  numpy array in the tile's layout, ``(N, C1, H, W, C0)``, ``(N, D, C1, H, W, C0)`` or ``(C1, H, W, N, C0)``.
  Tile element (r, c) of the simulator's 2-D walk is read from (written to) the global element that the same
  (r, c) names through the global's own shape (:func:`global_index`); where the two shapes agree that is
  element for element.
* **TEXTRACT** (a FRACTAL_Z or FRACTAL_Z_3D ``mat`` ConvTile into a ``right`` Zn tile): whole 512-byte
  fractals, ``ceil(valid_rows / C0)`` rows of ``ceil(valid_cols / 16)`` of them, from fractal row
  ``index_row / C0`` and column ``index_col / 16`` of the source (one fractal row per C1HW index, N / 16
  fractals a row) into the same places of dst's storage.
* **TTRANS** between ConvTiles: NCHW -> NC1HWC0 and back, GNCHW -> GNC1HWC0, NC1HWC0 or GNC1HWC0 -> FRACTAL_Z
  ``(G*C1*H*W, N1, N0, C0)``, NCDHW -> FRACTAL_Z_3D ``(D*C1*H*W, N1, N0, C0)``; lanes the map does not reach
  (the C and N padding) keep what dst held.

On a2a3 and a5 TTRANS follows its ISA page's ConvTile rules (vec tiles, 1/2/4-byte dtypes, C0 one 32-byte
block, N0 = 16, NCHW's H*W a whole number of blocks); the pages give TLOAD, TSTORE and TEXTRACT no ConvTile
form, so those are refused (``pto.convtile.target``).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, SpecGapError, TilesimError
from ..conv import ConvTile
from ..tile import Tile
from ._common import Op

__all__ = ["CONV_DTYPES", "TTRANS_PAIRS", "tile_index", "global_index", "tload", "tstore", "textract", "ttrans"]

#: the element types of TLOAD/TSTORE/TEXTRACT's ConvTile checks and of TTRANS's ISA page
CONV_DTYPES = ("i8", "u8", "i16", "u16", "i32", "u32", "f16", "bf16", "f32")
_BLOCK = 512          # bytes of one fractal: 16 rows of one 32-byte C0 block
_N0 = 16


def _c0_check(op: Op, t: ConvTile, operand: str, c0: int) -> None:
    if c0 != t.c0:
        op.fail(f"C0 = {c0}: the simulator's map takes C0 = {t.c0} (one 32-byte block of {t.dtype})", operand,
                "pto.convtile.c0", c0)


# --------------------------------------------------------------------------- TLOAD / TSTORE index maps
def _walk(t: ConvTile) -> tuple[np.ndarray, np.ndarray]:
    """The simulator's 2-D walk of a ConvTile: (r, c) over CalculateValidRow/ColFromTile."""
    s, c0 = t.shape, t.c0
    if t.layout == "NC1HWC0":
        rows, cols = s[0] * s[2] * s[3], s[1] * c0
    elif t.layout == "NDC1HWC0":
        rows, cols = s[0] * s[3] * s[4], s[1] * s[2] * c0
    else:
        rows, cols = (s[0] * s[1] * s[3], s[2]) if len(s) == 4 else (s[0] * s[1] * s[2] * s[4], s[3])
    return np.arange(rows, dtype=np.int64)[:, None], np.arange(cols, dtype=np.int64)[None, :]


def tile_index(t: ConvTile, r: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """The ConvTile element (as an index into ``t.bits``) of walk position (r, c) (GetConvTileElementOffset)."""
    s, c0 = t.shape, t.c0
    if t.layout == "NC1HWC0":
        hw = s[2] * s[3]
        return r // hw, c // c0, r // s[3] % s[2], r % s[3], c % c0
    if t.layout == "NDC1HWC0":
        hw = s[3] * s[4]
        return r // hw, c // (s[2] * c0), c // c0 % s[2], r // s[4] % s[3], r % s[4], c % c0
    if len(s) == 4:                                    # FRACTAL_Z (C1HW, N1, N0, C0): rows (C1HW, N1, C0)
        return r // (s[1] * s[3]), r // s[3] % s[1], c, r % s[3]
    return r // (s[1] * s[2] * s[4]), r // (s[2] * s[4]) % s[1], r // s[4] % s[2], c, r % s[4]


def global_index(layout: str, g: tuple[int, ...], c0: int, r: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """The global element (an index into the array of shape ``g``) of walk position (r, c), through the
    global's own shape (MapTileIndicesToGlobalOffset); NDC1HWC0's last axis is the C0 the simulator adds."""
    if layout == "NC1HWC0":
        return r // (g[2] * g[3]), c // g[4], r // g[3] % g[2], r % g[3], c % g[4]
    if layout == "NDC1HWC0":
        return r // (g[3] * g[4]), c // (g[2] * c0), c // c0 % g[2], r // g[4] % g[3], r % g[4], c % c0
    return r // (g[1] * g[2] * g[4]), r // (g[2] * g[4]) % g[1], r // g[4] % g[2], c, r % g[4]


def _gm_plan(op: Op, t: ConvTile, gm, operand: str, layouts: tuple[str, ...], offset):
    """Check a ConvTile TLOAD/TSTORE; returns (tile index, global index) of the walk."""
    if not isinstance(gm, np.ndarray):
        op.fail("global memory must be a numpy array", operand, "pto.op.operand", type(gm).__name__, TilesimError)
    if tuple(offset) != (0, 0):
        op.fail("a ConvTile's global tensor is the whole array (pass a slice of it instead of an offset)", "offset",
                "pto.op.operand", tuple(offset), TilesimError)
    if not op.prof.img2col_from_tile:
        op.fail(f"the {op.inst} ISA page gives no ConvTile form on {op.prof.name} (pto-isa's CPU simulator has "
                "one: target cpu)", "src" if operand == "dst" else "dst", "pto.convtile.target", op.prof.name,
                SpecGapError)
    tname = "src" if operand == "dst" else "dst"
    if t.loc != "mat":
        op.fail("must be a mat ConvTile", tname, "pto.op.loc", t.loc)
    if t.layout not in layouts:
        op.fail(f"a ConvTile {op.inst} takes {', '.join(layouts)}", tname, "pto.convtile.layout", t.layout)
    if t.dtype.name not in CONV_DTYPES:
        op.fail(f"a ConvTile {op.inst} takes {', '.join(CONV_DTYPES)}", tname, "pto.op.dtype", str(t.dtype),
                DtypeError)
    if gm.dtype.itemsize != t.dtype.size:
        op.fail(f"global elements are {gm.dtype.itemsize} bytes, the tile's {t.dtype} {t.dtype.size}", operand,
                "pto.mem.elem_size", str(gm.dtype), DtypeError)
    rank = 6 if t.layout == "NDC1HWC0" else 5
    if gm.ndim != rank:
        op.fail(f"a {t.layout} global tensor is a {rank}-D array", operand, "pto.convtile.global", gm.shape)
    s, g = t.shape, gm.shape
    if t.layout != "FRACTAL_Z" or len(s) == 4:
        _c0_check(op, t, tname, s[-1])
    if t.layout == "NDC1HWC0" and g[5] != t.c0:
        op.fail(f"the global's C0 axis holds {g[5]}; the simulator adds C0 = {t.c0} lanes", operand,
                "pto.convtile.global", g)
    if t.layout == "FRACTAL_Z" and len(s) == 4 and (s[2] != _N0 or g[3:] != (_N0, t.c0)):
        op.fail(f"a 4-D FRACTAL_Z tile and its global end in [16, {t.c0}] (N0, C0)", tname, "pto.convtile.global",
                (s, g))
    if t.layout == "FRACTAL_Z" and len(s) == 5 and (g[1:3] != s[1:3] or s[3] > 0xFFFF):
        op.fail("a 5-D FRACTAL_Z tile has its global's H and W, and N <= 65535", tname, "pto.convtile.global",
                (s, g))
    r, c = _walk(t)
    gi = global_index(t.layout, g, t.c0, r, c)
    over = [k for k, (i, n) in enumerate(zip(gi, g)) if int(i.max()) >= n]
    if over:
        op.fail(f"the tile's {r.size}x{c.size} walk reaches past axis {over[0]} of the {g} global (the simulator "
                "addresses memory outside the tensor)", operand, "pto.mem.window", g)
    return tile_index(t, r, c), gi


def tload(dst: ConvTile, src: np.ndarray, *, offset=(0, 0), target=None) -> ConvTile:
    """TLOAD into a ConvTile (cpu): every tile element from the global element of the same walk position."""
    op = Op("tload", target)
    ti, gi = _gm_plan(op, dst, src, "src", ("NC1HWC0", "NDC1HWC0", "FRACTAL_Z"), offset)
    dst.bits[ti] = src.view(dst.dtype.lane)[gi]
    return dst


def tstore(dst: np.ndarray, src: ConvTile, *, offset=(0, 0), atomic: str = "none", target=None) -> np.ndarray:
    """TSTORE of a ConvTile (cpu), in place; returns ``dst``."""
    op = Op("tstore", target)
    ti, gi = _gm_plan(op, src, dst, "dst", ("NC1HWC0", "NDC1HWC0"), offset)
    if str(atomic).lower().removeprefix("atomic_") != "none":
        op.fail("a ConvTile store has no atomic form in tilesim", "atomic", "pto.tstore.atomic", atomic,
                TilesimError)
    dst.view(src.dtype.lane)[gi] = src.bits[ti]
    return dst


# --------------------------------------------------------------------------- TEXTRACT
def textract(dst: Tile, src: ConvTile, index_row=0, index_col=0, *, target=None) -> Tile:
    """TEXTRACT of whole fractals of a FRACTAL_Z / FRACTAL_Z_3D ConvTile into a right Zn tile (cpu)."""
    op = Op("textract", target)
    op.tile(dst, "dst", "right")
    if not op.prof.img2col_from_tile:
        op.fail(f"the TEXTRACT ISA page gives no ConvTile form on {op.prof.name} (target cpu has one)", "src",
                "pto.convtile.target", op.prof.name, SpecGapError)
    if src.loc != "mat":
        op.fail("must be a mat ConvTile", "src", "pto.op.loc", src.loc)
    if src.layout not in ("FRACTAL_Z", "FRACTAL_Z_3D"):
        op.fail("a ConvTile TEXTRACT takes FRACTAL_Z or FRACTAL_Z_3D", "src", "pto.convtile.layout", src.layout)
    op.layout(dst, "dst", ("Zn",), "the Zn layout (BLayout RowMajor, SLayout ColMajor)")
    if dst.fractal != _BLOCK:
        op.fail(f"must use {_BLOCK}-byte fractals, as the source's", "dst", "pto.op.layout", dst.fractal)
    for t, n in ((dst, "dst"), (src, "src")):
        if t.dtype.name not in CONV_DTYPES:
            op.fail(f"a ConvTile TEXTRACT takes {', '.join(CONV_DTYPES)}", n, "pto.op.dtype", str(t.dtype),
                    DtypeError)
    if dst.dtype.size != src.dtype.size:
        op.fail(f"{dst.dtype} is not {src.dtype}'s size (the fractals are copied as bytes)", "dst",
                "pto.mem.elem_size", str(dst.dtype), DtypeError)
    op.nonzero(dst, "dst")
    s, c0 = src.shape, src.c0
    _c0_check(op, src, "src", s[-1])
    n_cols = s[1] * s[2] if len(s) == 4 else s[3]
    if (len(s) == 4 and s[2] != _N0) or n_cols % _N0:
        op.fail("the source's N must be whole 16-row fractals (N0 = 16)", "src", "pto.convtile.shape", s)
    for name, v, step in (("index_row", index_row, c0), ("index_col", index_col, _N0)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0 or v % step:
            op.fail(f"must be a non-negative multiple of {step} (whole fractals; the simulator drops the rest)",
                    name, "pto.textract.conv_align", v, TilesimError)
    per_row = n_cols // _N0
    blocks = src.bits.reshape(-1, per_row, _BLOCK // src.dtype.size)
    k0, m0 = int(index_row) // c0, int(index_col) // _N0
    k, m = -(-dst.valid_rows // c0), -(-dst.valid_cols // _N0)
    if k0 + k > blocks.shape[0] or m0 + m > per_row:
        op.fail(f"fractal rows [{k0}:{k0 + k}] x columns [{m0}:{m0 + m}] leave the source's "
                f"{blocks.shape[0]} x {per_row}", "index_row,index_col", "pto.op.window", (index_row, index_col))
    lanes = dst.storage().reshape(dst.rows // c0, dst.cols // _N0, -1)
    lanes[:k, :m] = blocks[k0:k0 + k, m0:m0 + m]
    return dst.load_storage(lanes.reshape(-1))


# --------------------------------------------------------------------------- TTRANS
def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _to_c1(idx: tuple, dims: tuple, C0: int, C1: int) -> np.ndarray:
    """Flat (G, N, C1, H, W, C0) offsets of (G)NCHW positions ``idx`` = (g, n, c, h, w) of sizes ``dims``."""
    g, n, c, h, w = idx
    _, N, _, H, W = dims
    return ((((g * N + n) * C1 + c // C0) * H + h) * W + w) * C0 + c % C0


def _nchw(s: tuple, d: tuple, c0: int):
    """(G)NCHW -> (G)NC1HWC0: every source offset (C order) goes to this destination offset."""
    dims = ((1,) + s)[-5:]
    return None, _to_c1(np.indices(dims, dtype=np.int64), dims, c0, _ceil(dims[2], c0))


def _nc1hwc0_nchw(s: tuple, d: tuple, c0: int):
    """NC1HWC0 -> NCHW: every destination offset (C order) reads this source offset."""
    dims = (1,) + d
    return _to_c1(np.indices(dims, dtype=np.int64), dims, c0, s[1]), None


def _fractal_z(s: tuple, d: tuple, c0: int):
    """(G)NC1HWC0 -> FRACTAL_Z (G*C1*H*W, N1, N0, C0): block (g, c1, h, w), then (n1, n0, c0)."""
    g, n, c1, h, w, k = np.indices(((1,) + s)[-6:], dtype=np.int64)
    _, N1, N0, C0 = d
    G, _, C1, H, W, _ = ((1,) + s)[-6:]
    block = ((g * C1 + c1) * H + h) * W + w
    return None, block * (C0 * N0 * N1) + n // N0 * (C0 * N0) + n % N0 * C0 + k


def _fractal_z_3d(s: tuple, d: tuple, c0: int):
    """NCDHW -> FRACTAL_Z_3D (D*C1*H*W, N1, N0, C0): block (d, c1, h, w), then (n1, n0, c0)."""
    n, c, dd, h, w = np.indices(s, dtype=np.int64)
    _, N1, N0, C0 = d
    _, C, D, H, W = s
    block = ((dd * _ceil(C, C0) + c // C0) * H + h) * W + w
    return None, block * (C0 * N0 * N1) + n // N0 * (C0 * N0) + n % N0 * C0 + c % C0


def _want_nchw(s, d, c0):
    return d == (s[0], _ceil(s[1], c0), s[2], s[3], c0), f"(N, ceil(C/{c0}), H, W, {c0})"


def _want_back(s, d, c0):
    return s[4] == c0 and d == (s[0], s[1] * c0, s[2], s[3]), f"(N, C1*{c0}, H, W) from a C0 = {c0} source"


def _want_gnchw(s, d, c0):
    return d == (s[0], s[1], _ceil(s[2], c0), s[3], s[4], c0), f"(G, N, ceil(C/{c0}), H, W, {c0})"


def _want_fz(s, d, c0):
    return (len(d) == 4 and d[0] == s[1] * s[2] * s[3] and d[1] * d[2] >= s[0] and d[3] == s[4],
            "(C1*H*W, N1, N0, C0) with N1*N0 >= N and the source's C0")


def _want_gfz(s, d, c0):
    return (len(d) == 4 and d[2] > 0 and d[0] == s[0] * s[2] * s[3] * s[4] and d[1] == _ceil(s[1], d[2])
            and d[3] == s[5], "(G*C1*H*W, ceil(N/N0), N0, C0) with the source's C0")


def _want_fz3d(s, d, c0):
    return (d[0] // (s[2] * s[3] * s[4]) == _ceil(s[1], c0) and d[2] > 0 and d[1] == _ceil(s[0], d[2])
            and d[3] == c0, f"(D*ceil(C/{c0})*H*W, ceil(N/N0), N0, {c0})")


#: (src layout, dst layout) -> (shape rule, index map): the pairs of the simulator's TTRANS_CONV_IMPL
TTRANS_PAIRS = {("NCHW", "NC1HWC0"): (_want_nchw, _nchw), ("NC1HWC0", "NCHW"): (_want_back, _nc1hwc0_nchw),
                ("NC1HWC0", "FRACTAL_Z"): (_want_fz, _fractal_z), ("GNCHW", "GNC1HWC0"): (_want_gnchw, _nchw),
                ("GNC1HWC0", "FRACTAL_Z"): (_want_gfz, _fractal_z),
                ("NCDHW", "FRACTAL_Z_3D"): (_want_fz3d, _fractal_z_3d)}


def ttrans(dst: ConvTile, src: ConvTile, tmp=None, *, target=None) -> ConvTile:
    """TTRANS between two ConvTiles: a layout change by the pair's index map (:data:`TTRANS_PAIRS`).

    >>> src = ConvTile("f32", (1, 10, 1, 1), "NCHW", loc="vec")
    >>> src.values[0, :, 0, 0] = range(10)
    >>> dst = ttrans(ConvTile("f32", (1, 2, 1, 1, 8), "NC1HWC0", loc="vec"), src, target="cpu")
    >>> dst.values[0, :, 0, 0].astype(int).tolist()
    [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 0, 0, 0, 0, 0, 0]]
    """
    op = Op("ttrans", target)
    for t, n in ((dst, "dst"), (src, "src")):
        if not isinstance(t, ConvTile):
            op.fail(f"expected a ConvTile (both operands of a layout TTRANS are), got {type(t).__name__}", n,
                    "pto.op.operand", type(t).__name__, TilesimError)
    if tmp is not None and not isinstance(tmp, Tile):
        op.fail(f"expected a Tile, got {type(tmp).__name__}", "tmp", "pto.op.operand", type(tmp).__name__,
                TilesimError)
    op.same_dtype(src, dst, "dst", "src")
    pair = (src.layout, dst.layout)
    if pair not in TTRANS_PAIRS:
        op.fail("a ConvTile TTRANS converts " + ", ".join(f"{a} -> {b}" for a, b in TTRANS_PAIRS), "src,dst",
                "pto.ttrans.conv_layouts", pair)
    npu = not op.prof.img2col_from_tile
    if npu:
        for t, n in ((dst, "dst"), (src, "src")):
            if t.loc != "vec":
                op.fail("the TTRANS page takes vec ConvTiles", n, "pto.op.loc", t.loc)
        if src.dtype.name not in CONV_DTYPES:
            op.fail(f"the TTRANS page's ConvTile dtypes are {', '.join(CONV_DTYPES)}", "src", "pto.op.dtype",
                    str(src.dtype), DtypeError)
    s, d, c0 = src.shape, dst.shape, dst.c0
    want, index = TTRANS_PAIRS[pair]
    ok, form = want(s, d, c0)
    if not ok:
        op.fail(f"{pair[0]} {s} -> {pair[1]} wants dst {form}, not {d}", "dst", "pto.ttrans.conv_shape", d)
    if npu:
        if s[-1] != c0 and pair[0] in ("NC1HWC0", "GNC1HWC0") or d[-1] != c0 and pair[1] != "NCHW":
            op.fail(f"the TTRANS page takes C0 = {c0} (one 32-byte block)", "src,dst", "pto.convtile.c0",
                    (s[-1], d[-1]))
        if pair[1].startswith("FRACTAL_Z") and d[2] != _N0:
            op.fail("the TTRANS page takes N0 = 16", "dst", "pto.convtile.shape", d[2])
        if pair[0] == "NCHW" and s[2] * s[3] * src.dtype.size % 32:
            op.fail("the TTRANS page wants H*W*sizeof(T) a multiple of 32 bytes", "src", "pto.convtile.shape", s)
    reads, writes = index(s, d, c0)
    out, inp = dst.bits.reshape(-1), src.bits.reshape(-1)
    if reads is None:
        out[writes.reshape(-1)] = inp
    else:
        out[:] = inp[reads.reshape(-1)]
    return dst
