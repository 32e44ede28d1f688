"""TQUANT's microscaling forms: MXFP8 (E4M3 bytes) and MXFP4 (E2M1 codes) with E8M0 group exponents, groups of
32 along the columns (ND, ``grp_axis=1``) or the rows (DN, TQUANT_DN, ``grp_axis=0``), OCP or NV scales
(decision PTO145; pto-isa include/pto/cpu/TQuant.hpp, docs/isa/TQUANT.md, TQUANT_DN.md).

Per group: the abs max ``m`` (MXFP8 and NV MXFP4: f32 ``max`` that skips NaNs, NV MXFP4 returns a NaN
element itself; OCP MXFP4: the max of the truncated-bf16 magnitudes' bits), the exponent
(OCP: ``m``'s biased exponent - 8 (FP8) or - 2 (FP4), at least 0, 0xFF for a NaN; NV: ``m / 448`` or ``m / 6``
rounded up to a power of two), the scale ``2^(127 - e)`` (2^-127 for e = 254 and, NV, 254; ``m`` itself for
0xFF), then each element ``x * scale`` in f32 encoded: E4M3 to nearest even, clipped to +-448, NaN 0x7F, a zero
result +0 (NV: |v| < 2^-10 gives a zero of v's sign); E2M1 by the simulator's magic-number add (a bf16 source's
product rounded to bf16 first), a NaN or infinite scale 0x7 / 0xF.
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import SpecGapError, TilesimError
from .. import numerics as nx
from ..dtypes import get_dtype
from ..tile import Tile
from . import convert_cpu
from ._common import Op

__all__ = ["tquant_mx", "MX_ALGS"]

#: algorithm -> (element format, scale algorithm); the pto-isa MxQuantAlg names are accepted too
MX_ALGS = {"ocp_fp8": ("fp8", "ocp"), "nv_fp8": ("fp8", "nv"), "ocp_fp4": ("fp4", "ocp"), "nv_fp4": ("fp4", "nv")}
_ALIASES = {"ocpmxfp8e4m3": "ocp_fp8", "nvmxfp8e4m3": "nv_fp8", "ocpmxfp4e2m1": "ocp_fp4", "nvmxfp4e2m1": "nv_fp4"}
_DST = {"fp8": "i8", "fp4": "f4e2m1"}
_GROUP = 32
_F32 = get_dtype("f32")
_E4M3 = formats.get("fp8_e4m3")


def _f32(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.uint32).view(np.float32)


def _bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32).view(np.uint32)


def _group_max(v: np.ndarray, kind: str, alg: str) -> np.ndarray:
    """Per group (last axis) the simulator's abs max, as f32."""
    if kind == "fp4" and alg == "ocp":                 # max of (truncated bf16 bits & 0x7FFF)
        return _f32(((_bits(v) >> 16) & 0x7FFF).max(axis=-1).astype(np.uint32) << 16)
    m = np.where(np.isnan(v), np.float32(0), np.abs(v)).max(axis=-1)   # std::max(m, NaN) keeps m
    if kind == "fp4":                                   # NV MXFP4: the first NaN element itself
        nan = np.isnan(v)
        first = v[np.arange(v.shape[0])[:, None], np.arange(v.shape[1])[None, :], nan.argmax(axis=-1)]
        m = np.where(nan.any(axis=-1), first, m)
    return m.astype(np.float32)


def _exponent(m: np.ndarray, kind: str, alg: str) -> np.ndarray:
    b = _bits(m)
    exp, man = (b >> 23) & 0xFF, b & 0x7FFFFF
    if alg == "ocp":
        shift = 8 if kind == "fp8" else 2
        e = np.where(exp <= shift, 0, exp.astype(np.int64) - shift)
        return np.where((exp == 0xFF) & (man != 0), 0xFF, e).astype(np.uint8)
    with np.errstate(over="ignore", invalid="ignore"):
        d = _bits(m * np.float32(1.0 / (448.0 if kind == "fp8" else 6.0)))
    exp, man = (d >> 23) & 0xFF, d & 0x7FFFFF
    up = (man > 0) & (exp != 0xFE) & ~((exp == 0) & (man <= 0x400000))
    e = np.where(exp == 0xFF, np.where(man == 0, 0xFE, 0xFF), exp.astype(np.int64) + up)
    return np.where(m == 0, 0, e).astype(np.uint8)


def _scaling(m: np.ndarray, e: np.ndarray, alg: str) -> np.ndarray:
    s = _f32((254 - e.astype(np.uint32)) << 23)
    tiny = np.float32(2.0 ** -127)
    s = np.where(s == 0, tiny, s)
    if alg == "nv":
        s = np.where(e == 0xFE, tiny, s)
    return np.where(e == 0xFF, m, s).astype(np.float32)


def _e4m3(x: np.ndarray, alg: str) -> np.ndarray:
    codes = formats.encode(np.clip(np.where(np.isnan(x), 0, x), -448, 448).astype(np.float64), _E4M3)
    codes = np.where((codes & 0x7F) == 0, 0, codes)                     # the search's tie: +0 (the lower code)
    if alg == "nv":
        tiny = np.abs(x) < np.float32(2.0 ** -10)
        codes = np.where(tiny, np.where(np.signbit(x), 0x80, 0x00), codes)
    return np.where(np.isnan(x), 0x7F, codes).astype(np.uint8)


def _e2m1(x: np.ndarray) -> np.ndarray:
    """The simulator's EncodeE2M1Magic on f32 values."""
    b = _bits(x)
    sign = ((b >> 28) & 0x8).astype(np.uint8)
    a = np.abs(x)
    be = np.clip((_bits(a) >> 23) & 0xFF, 127, 129).astype(np.uint32)
    magic = (be + 22) << 23
    with np.errstate(over="ignore", invalid="ignore"):
        q = (_bits(a + _f32(magic)).astype(np.int64) - magic) & 0xFFFFFFFF
    mag = np.minimum(q + ((be - 127) << 1), 7).astype(np.uint8)
    out = np.where(np.isinf(a), sign | 7, sign | mag)
    return np.where(np.isnan(x), 0x7, out).astype(np.uint8)


def _flat_store(t: Tile, idx: np.ndarray, values: np.ndarray) -> None:
    """Write f32 values into ``t``'s storage at flat element ``idx`` (the simulator's TRESHAPE view)."""
    flat = t.storage()
    flat[idx] = convert_cpu.cast(_bits(values), _F32, t.dtype)[0] if t.dtype != _F32 else _bits(values)
    t.load_storage(flat)


def tquant_mx(dst: Tile, src: Tile, exp: Tile, max: Tile, scaling: Tile, *, alg="ocp_fp8", grp_axis: int = 1,
              exp_zz: Tile | None = None, target=None) -> Tile:
    """TQUANT (MX): quantise src in groups of 32 to MXFP8 (dst i8 holding E4M3 codes) or MXFP4 (dst f4e2m1),
    the E8M0 exponent of group g of line i in ``exp`` at (i, g) (ND) or (g, i) (DN), and each group's abs max
    and scale in ``max`` and ``scaling`` at the flat index i * groups + g (ND) or g * cols + i (DN) (PTO145).

    ND (``grp_axis=1``) quantises src's valid rows over all its columns; DN (``grp_axis=0``, TQUANT_DN) all its
    rows over its valid columns. ``exp_zz`` (MXFP8, OCP, ND) also receives the exponents reordered into
    16 x 2 ZZ boxes. A5 and cpu only (``pto.op.target`` on a2a3). Rules: ``pto.tquant_mx.alg``,
    ``pto.tquant_mx.shape`` (dst and src the same static shape, the grouped side a multiple of 32; A5 the
    page's row multiples), ``pto.tquant_mx.exp`` (exp covers the groups), ``pto.tquant_mx.scratch``,
    ``pto.tquant_mx.zz``, ``pto.op.dtype``, and on a5 ``pto.tquant_mx.special`` (a NaN or infinite source).

    >>> import numpy as np
    >>> from tilesim.pto import Tile
    >>> src = Tile.from_array(np.full((1, 32), 3.0, np.float32))
    >>> dst, e = Tile("vec", "i8", 1, 32), Tile("vec", "u8", 1, 32)
    >>> m, s = Tile("vec", "f32", 1, 8), Tile("vec", "f32", 1, 8)
    >>> _ = tquant_mx(dst, src, e, m, s, alg="ocp_fp8", target="cpu")
    >>> int(e.bits[0, 0]), hex(int(dst.bits[0, 0])), float(s.values[0, 0])
    (120, '0x7c', 128.0)
    """
    op = Op("tquant_mx", target)
    name = _ALIASES.get(str(alg).lower().replace("_", ""), str(alg).lower())
    if name not in MX_ALGS:
        op.fail(f"alg must be one of {', '.join(MX_ALGS)} (or pto-isa's MxQuantAlg names)", "alg",
                "pto.tquant_mx.alg", alg, TilesimError)
    kind, scale_alg = MX_ALGS[name]
    if grp_axis not in (0, 1):
        op.fail("grp_axis must be 1 (ND: groups along the columns) or 0 (DN: along the rows)", "grp_axis",
                "pto.tquant_mx.alg", grp_axis, TilesimError)
    for t, n in ((dst, "dst"), (src, "src"), (exp, "exp"), (max, "max"), (scaling, "scaling")):
        op.tile(t, n)
    op.dtypes("tquant_mx", (src.dtype, dst.dtype), ("src", "dst"))
    if dst.dtype.name != _DST[kind] or exp.dtype.name != "u8":
        op.fail(f"{name} writes {_DST[kind]} codes and u8 exponents, not {dst.dtype} and {exp.dtype}", "dst",
                "pto.op.dtype", (dst.dtype.name, exp.dtype.name), TilesimError)
    cpu = op.prof.x86_nans
    if (dst.rows, dst.cols) != (src.rows, src.cols) or not (src.is_row_major and dst.is_row_major) or \
            (src.cols if grp_axis else src.rows) % _GROUP:
        op.fail(f"dst and src must be row-major tiles of one static shape whose {'cols' if grp_axis else 'rows'} "
                f"are a multiple of 32, not {dst.describe()} and {src.describe()}", "src", "pto.tquant_mx.shape",
                (src.rows, src.cols))
    if not cpu and (src.rows % (16 if grp_axis else 32) or (exp_zz is not None and src.cols % 64)):
        op.fail(f"A5 needs rows a multiple of {16 if grp_axis else 32} (and cols of 64 for ZZ)", "src",
                "pto.tquant_mx.shape", (src.rows, src.cols))
    if exp_zz is not None and (kind, scale_alg, grp_axis) != ("fp8", "ocp", 1):
        op.fail("exp_zz is the MXFP8 OCP ND form's", "exp_zz", "pto.tquant_mx.zz", name, TilesimError)
    rows = src.valid_rows if grp_axis else src.rows
    cols = src.cols if grp_axis else src.valid_cols
    x = nx.as_f32(src.bits[:rows, :cols], src.dtype).astype(np.float32)
    v = x.reshape(rows, cols // _GROUP, _GROUP) if grp_axis else x.T.reshape(cols, rows // _GROUP, _GROUP)
    n_line, n_grp = v.shape[:2]
    er, ec = (n_line, n_grp) if grp_axis else (n_grp, n_line)
    if exp.rows < er or exp.cols < ec:
        op.fail(f"must hold {er} x {ec} exponents, not {exp.describe()}", "exp", "pto.tquant_mx.exp", exp.describe())
    if not cpu and not np.isfinite(v).all():
        op.fail("a NaN or infinite source element: A5's conversions of them are target-defined", "src",
                "pto.tquant_mx.special", int((~np.isfinite(v)).sum()), SpecGapError)
    for t, n in ((max, "max"), (scaling, "scaling")):
        if t.numel < n_line * n_grp:
            op.fail(f"holds {t.numel} elements, the groups need {n_line * n_grp}", n, "pto.tquant_mx.scratch",
                    t.describe())
    zz = None
    if exp_zz is not None:
        gcols = src.valid_cols // _GROUP
        if rows % 16 or gcols % 2 or not exp.is_nd or not exp_zz.is_nd or exp_zz.numel < rows * gcols:
            op.fail(f"the ZZ reorder needs ND u8 tiles of {rows * gcols} exponents, rows a multiple of 16 and an "
                    "even number of groups", "exp_zz", "pto.tquant_mx.zz", (rows, gcols))
        zz = exp_zz
    m = _group_max(v, kind, scale_alg)
    e = _exponent(m, kind, scale_alg)
    s = _scaling(m, e, scale_alg)
    with np.errstate(all="ignore"):
        if kind == "fp8":
            codes = _e4m3(v * s[..., None], scale_alg)
        else:
            y = v * s[..., None]
            if src.dtype.name == "bf16":                  # FloatToBf16BitsRound: uint32 arithmetic, wrapping
                b = _bits(y).astype(np.uint64)
                y = _f32((((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFFFFFF) >> 16) << 16)
            codes = _e2m1(y)
            codes = np.where(np.isinf(s)[..., None], np.where(s > 0, 0x7, 0xF)[..., None], codes)
            codes = np.where(np.isnan(s)[..., None], 0x7, codes).astype(np.uint8)
    line = np.arange(n_line)[:, None]
    grp = np.arange(n_grp)[None, :]
    flat = (line * n_grp + grp) if grp_axis else (grp * n_line + line)
    _flat_store(max, flat.ravel(), m.ravel())
    _flat_store(scaling, flat.ravel(), s.ravel())
    if kind == "fp4":
        dst.bits[...] = 0
    out = codes.reshape(rows, cols) if grp_axis else codes.reshape(cols, rows).T
    dst.bits[:rows, :cols] = out.view(dst.dtype.lane) if dst.dtype.lane == np.uint8 else out
    if grp_axis:
        exp.bits[:er, :ec] = e
    else:
        exp.bits[:er, :ec] = e.T
    if zz is not None:
        gcols = src.valid_cols // _GROUP
        vals = exp.storage()[: rows * gcols].reshape(rows // 16, 16, gcols // 2, 2)
        zflat = zz.storage()
        zflat[: rows * gcols] = vals.transpose(0, 2, 1, 3).ravel()
        zz.load_storage(zflat)
    return dst
