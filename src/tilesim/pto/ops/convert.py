"""TCVT: element type conversion with a round mode and optional saturation.

Round modes (pto ``RoundMode``): ``CAST_RINT``/``RINT`` nearest-even,
``ROUND`` nearest ties-away, ``FLOOR``, ``CEIL``, ``TRUNC``, ``ODD``, ``NONE``.

* float -> float: NPUs honour the mode (``ODD`` is round-to-odd: truncate,
  then set the last bit if inexact); the CPU reference always rounds to
  nearest even (spec §9.6). The NPUs have an odd intrinsic for f32 -> f16
  only; their other pairs take their kernel's default case for ``ODD``
  (PTO107), as ``NONE`` does (so NPU f32 -> f32 ``NONE`` rounds to even). ``f32 -> f32`` rounds to an integral value by
  the mode on the NPUs ("round-only") and copies on the CPU.
* float -> int: round to an integer by the mode (``NONE`` truncates; ``ODD``
  sends a .5 tie to the odd integer, as the CPU reference does), then:
  saturating: clamp, NaN -> +max, +-Inf -> +-max; not saturating: values
  out of range (and NaN/Inf) are undefined and raise ``pto.tcvt.range``,
  except the pairs a profile wraps modulo 2**bits (CPU: any -> u8;
  A2A3: the PyTorch-compatible f32->i16, f16->i16, f16->i8 paths).
  A2A3 without tmp honours ``sat`` only on its narrowing pairs (f16->u8/i8/i16,
  f32->i16, i64->i32, i32->i16) and saturates the others (PTO108).
* int -> float: rounded by the mode (CPU: nearest even).
* int -> int: saturating clamps, otherwise wraps (C casts).

The 4-bit dtypes (``i4``, ``f4e2m1``, ``f4e1m2``) convert on ``cpu`` with every dtype, as the simulator does
(:mod:`.convert_sub_byte`, PTO153), and on the NPUs in the pairs of the TCVT page (PTO189): A2A3 f16 <-> i4
(as its other f16 <-> integer pairs), A5 bf16 <-> f4e2m1/f4e1m2. An fp4 side is never flushed (its subnormals
are values of the format); bf16 -> fp4 rounds by the mode (``ODD`` and ``NONE``: nearest even, as A5's dispatch
falls back), saturates to the largest finite value (NaN to +max, the format core's policy), and, as A5's
kernel does, first zeroes the valid rows' bytes, then writes whole bytes only: an odd valid width's last
element stays 0. HiFloat8 (``hif8``) converts on ``cpu`` as the simulator's ``hifloat8_t`` does
(:mod:`.convert_hif8`), and on A5 f32/f16 -> hif8 rounds to nearest, ties away from zero, whatever the mode
(the hardware's ROUND_A), and hif8 -> f32 is exact (PTO183).
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import SpecGapError, TilesimError
from .. import numerics as nx
from ..dtypes import FP4, DType
from ..tile import Tile
from . import convert_cpu, convert_hif8, convert_sub_byte
from ._common import Op

__all__ = ["tcvt", "ROUND_MODES"]

#: pto RoundMode name -> tilesim.formats rounding (None: the special ODD handling)
ROUND_MODES = {"CAST_RINT": "rne", "RINT": "rne", "NONE": "rne", "ROUND": "rmm", "FLOOR": "rdn", "CEIL": "rup",
               "TRUNC": "rtz", "ODD": None}


def _round_mode(op: Op, rmode) -> str:
    m = str(rmode).upper()
    m = m[5:] if m.startswith("CAST_") and m != "CAST_RINT" else m
    if m not in ROUND_MODES:
        op.fail("rmode must be one of " + ", ".join(ROUND_MODES), "rmode", "pto.tcvt.rmode", rmode, TilesimError)
    return m


def _round_to_odd(x, fmt) -> np.ndarray:
    codes, flags = formats.encode(x, fmt, rounding="rtz", return_flags=True)
    fin = ~np.isnan(x) & ~np.isinf(x) if np.asarray(x).dtype.kind == "f" else np.ones(codes.shape, bool)
    return np.where(flags.inexact & fin, codes | codes.dtype.type(1), codes)


def _integral(x: np.ndarray, mode: str) -> np.ndarray:
    """float64 values rounded to integers by a pto round mode (exact: x is an exact float64).

    A zero result keeps x's sign, as IEEE roundToIntegral does (-0.3 -> -0).
    """
    return np.copysign(_integral_mag(x, mode), x)


def _integral_mag(x: np.ndarray, mode: str) -> np.ndarray:
    if mode in ("TRUNC", "NONE"):
        return np.trunc(x)
    if mode == "FLOOR":
        return np.floor(x)
    if mode == "CEIL":
        return np.ceil(x)
    if mode in ("RINT", "CAST_RINT"):
        return np.rint(x)
    f = np.floor(x)
    frac = x - f
    if mode == "ROUND":
        return np.where(frac == 0.5, np.where(x > 0, f + 1, f), np.where(frac > 0.5, f + 1, f))
    # ODD: nearest, a tie goes to the odd neighbour
    odd_f = np.fmod(f, 2) != 0
    return np.where(frac == 0.5, np.where(odd_f, f, f + 1), np.where(frac > 0.5, f + 1, f))


def tcvt(dst: Tile, src: Tile, rmode: str = "CAST_RINT", sat: bool | None = None, tmp: Tile | None = None, *,
         target=None) -> Tile:
    """TCVT: ``dst = convert(src)`` over the valid region (see the module docstring for the rules).

    Args:
        rmode: a pto RoundMode name (``CAST_RINT`` default, ``RINT``, ``ROUND``, ``FLOOR``, ``CEIL``,
            ``TRUNC``, ``ODD``, ``NONE``).
        sat: saturation on/off; ``None`` takes the target's default (CPU off, NPUs on).
        tmp: optional scratch (A2A3 non-saturating narrowing paths); never written.

    Raises:
        ``pto.op.dtype`` (pair not supported on the target), ``pto.op.valid_match``,
        ``pto.tcvt.rmode``, ``pto.tcvt.range`` (out-of-range value without saturation).

    >>> s = Tile.from_array(np.array([[2.5, -2.5, 3.5]], np.float32))
    >>> d = Tile("vec", "i32", 1, 8, valid=(1, 3))
    >>> tcvt(d, s, "RINT", target="cpu").valid_values.tolist(), tcvt(d, s, "ROUND", target="cpu").valid_values.tolist()
    ([[2, -2, 4]], [[3, -3, 4]])
    """
    op = Op("tcvt", target)
    mode = rmode if isinstance(rmode, str) and rmode in ROUND_MODES else _round_mode(op, rmode)

    def static():
        op.tile(dst, "dst")
        op.tile(src, "src")
        op.layout(dst, "dst", ("ROW_MAJOR",), "a row_major block layout")
        op.layout(src, "src", ("ROW_MAJOR",), "a row_major block layout")
        op.dtypes("tcvt", (src.dtype, dst.dtype), ("src", "dst"))
        if tmp is not None:
            op.tile(tmp, "tmp", None)
        op.valid_match(dst, src, "src", "dst")
    op.static((dst, src, tmp), static)
    R, C = dst.valid
    p = op.prof
    saturate = p.cvt_saturate_default if sat is None else bool(sat)
    if p.cvt_sat_pairs is not None and tmp is None and (src.dtype.name, dst.dtype.name) not in p.cvt_sat_pairs:
        saturate = True                           # A2A3's no-tmp form forces saturation on these pairs (PTO108)
    if not p.cvt_cpu_model:
        if dst.dtype.name in FP4:                 # A5's whole packed bytes over zeroed rows (PTO189)
            lanes = convert(op, src.bits[:R, :C], src.dtype, dst.dtype, mode, saturate)
            dst.bits[:R] = 0
            dst.bits[:R, :C - C % 2] = lanes[:, :C - C % 2]
            return dst
        dst.bits[:R, :C] = convert(op, src.bits[:R, :C], src.dtype, dst.dtype, mode, saturate)
        return dst
    sub_byte = src.dtype.name in convert_sub_byte.SUB_BYTE or dst.dtype.name in convert_sub_byte.SUB_BYTE
    if not (sub_byte or saturate) and convert_cpu.numpy_cast_into(src.valid_bits, src.dtype, dst.dtype,
                                                                   dst.valid_bits):
        dst.mark_undefined((slice(0, R), slice(0, C)), False)
        return dst
    module = convert_hif8 if "hif8" in (src.dtype.name, dst.dtype.name) else \
        convert_sub_byte if sub_byte else convert_cpu
    lanes, undefined = module.convert(src.bits[:R, :C], src.dtype, dst.dtype, mode, saturate)
    convert_cpu.refuse_undefined(op, undefined, src.bits[:R, :C], src.dtype, dst.dtype)
    dst.bits[:R, :C] = lanes
    dst.mark_undefined((slice(0, R), slice(0, C)), undefined)
    return dst


def _fp4(bits: np.ndarray, s: DType, d: DType, mode: str, flush: bool) -> np.ndarray:
    """A5's BF16 <-> FP4: the fp4 side unflushed; to fp4 rounded once by the mode (PTO189)."""
    if s.name in FP4:
        return nx.from_f64(formats.decode(bits, s.format), d, flush=False)           # exact
    with np.errstate(invalid="ignore"):
        x = nx.as_f32(nx.flush_bits(bits, s) if flush else bits, s).astype(np.float64)
    rounding = "rne" if mode in ("ODD", "NONE") else ROUND_MODES[mode]
    return nx.from_f64(x, d, flush=False, rounding=rounding)


def convert(op: Op, bits: np.ndarray, s: DType, d: DType, mode: str, saturate: bool) -> np.ndarray:
    """Lane-wise conversion of ``bits`` from ``s`` to ``d`` (no side effects)."""
    p = op.prof
    flush = p.flush_denormals
    if "hif8" in (s.name, d.name):
        return _hif8_npu(bits, s, d, flush)
    if s.name in FP4 or d.name in FP4:
        return _fp4(bits, s, d, mode, flush)
    if mode == "ODD":                         # no odd intrinsic: the kernel's default case (PTO107, PTO189)
        mode = (p.cvt_odd_modes or {}).get((s.name, d.name), mode)
    if s.is_float:
        if flush:
            bits = nx.flush_bits(bits, s)
        with np.errstate(invalid="ignore"):
            x = nx.as_f32(bits, s).astype(np.float64)
    if s.is_float and d.is_float:
        if s == d:                            # NONE: both kernels' default case rounds (vconv_f322f32r, vtrc R)
            if s.name != "f32" or not p.cvt_float_honours_mode:
                return bits.copy()
            mode = "RINT" if mode == "NONE" else mode
            fin = np.isfinite(x)
            r = _integral(np.where(fin, x, 0.0), mode)
            return nx.from_f64(np.where(fin, r, x), d, flush=flush)
        if d.name == "f32" and s.name in ("f16", "bf16") and not np.isnan(x).any():
            return x.astype(np.float32).view(d.lane)    # every f16/bf16 value is an f32 one: no mode rounds it
        rounding = ROUND_MODES[mode] if p.cvt_float_honours_mode else "rne"
        if rounding is None:
            codes = _round_to_odd(x, d.format)
            return nx.flush_bits(codes, d) if flush else codes
        return nx.from_f64(x, d, flush=flush, rounding=rounding)
    if s.is_float:  # float -> int
        special = ~np.isfinite(x)
        r = np.where(special, x, _integral(np.where(special, 0, x), mode))
        lo, hi = d.format.int_min, d.format.int_max
        out = special | (r < lo) | (r > hi)
        if not saturate and np.any(out):
            if (s.name, d.name) not in p.cvt_wrap_pairs or np.any(special):
                bad = x[out].flat[0]
                raise SpecGapError(f"{float(bad)!r} is outside {d} ({lo}..{hi}) and saturation is off: undefined",
                                   instruction=op.inst, operand="src", rule="pto.tcvt.range", value=float(bad))
        return formats.encode(r, d.format, rounding="rtz", saturate=saturate)
    v = nx.int_view(bits, s)
    if d.is_float:
        rounding = ROUND_MODES[mode] if p.cvt_float_honours_mode else "rne"
        if rounding is None:
            codes = _round_to_odd(v, d.format)
        else:
            codes = formats.encode(v, d.format, rounding=rounding)
        return nx.flush_bits(codes, d) if flush else codes
    if saturate:
        return formats.encode(v, d.format, saturate=True)
    return v.astype(d.np).view(d.lane) if v.dtype != np.uint64 else v.astype(d.np).view(d.lane)


def _hif8_npu(bits: np.ndarray, s: DType, d: DType, flush: bool) -> np.ndarray:
    """A5's HiFloat8 conversions (PTO183): f32/f16 -> hif8 to nearest, ties away (ROUND_A; no saturation:
    overflow is ±Inf), hif8 -> f32 exact."""
    if s.name == "hif8":
        return nx.from_f64(formats.decode(bits, s.format), d, flush=False)
    x = nx.as_f32(nx.flush_bits(bits, s) if flush else bits, s).astype(np.float64)
    return formats.encode(x, d.format, rounding="rmm")
