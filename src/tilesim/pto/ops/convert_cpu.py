"""TCVT as pto-isa's CPU simulator computes it (target ``cpu``), including its undefined casts.

The reference (pto-isa ``include/pto/cpu/TCvt.hpp``) converts each element in
C++ through ``double``:

1. Saturation on: the value, as a double, is clamped to the intersection of
   the source's and the destination's ranges (f16: +-65504), NaN going to the
   upper limit (``std::max(lo, std::min(hi, v))``), and cast back to the
   *source* type. A limit the source cannot hold rounds (f32 holds no
   2**31 - 1; f16 no 32767), and for i64/u64 sources the double itself
   rounds.
2. float -> integer: the double is rounded to an integral value by the mode
   (``NONE`` leaves it, so the cast truncates; ``ODD`` sends a tie to the odd
   neighbour) and cast to the destination (u8 through ``int64_t``).
   int -> float: cast to double, then to the destination (two roundings
   from i64/u64). float -> float: one C++ cast, nearest even; the mode is
   ignored. int -> int: a C cast (wraps).

A C++ cast of a double to an integer type that cannot hold its truncated
value (NaN, +-Inf, out of range) is undefined behaviour. Here it gives what
clang's x86-64 code gives (``cvttsd2si``: 32-bit for destinations narrower
than 32 bits and for i32, 64-bit for u32 and i64, the two-conversion
sequence for u64; out of range is the "integer indefinite" 0x80...0), and
:func:`convert` returns those lanes in a mask. Decisions PTO80-PTO83.
A conversion to or from bf16 gives what g++ 14's code gives instead (the bf16
golden vectors come from a g++ C++23 build, PTO88): its u64 cast is
``x < 2**63 ? cvt(x) : cvt(x - 2**63) ^ 2**63``, so 2**64 and +Inf give 0
(PTO77).
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import SpecGapError
from .. import numerics as nx
from ..dtypes import DType, get_dtype

__all__ = ["convert", "cast", "x86_cast", "refuse_undefined", "UndefinedCastWarning"]


class UndefinedCastWarning(UserWarning):
    """A run on target ``cpu`` cast NaN, ±Inf or out-of-range floats to integers: undefined behaviour in C++,
    here x86-64's values, marked in ``Tile.undefined``. ``strict=True`` turns it into an error."""

_F16_MAX = 65504.0
_I32 = (-(2.0 ** 31), 2.0 ** 31)
_I64 = (-(2.0 ** 63), 2.0 ** 63)
#: how clang's x86-64 code casts a double to each integer type: "32", "64" (cvttsd2si width) or "u64"
_CVT_WIDTH = {"i8": "32", "u8": "32", "i16": "32", "u16": "32", "i32": "32", "u32": "64", "i64": "64", "u64": "u64"}


def _limits(dt: DType) -> tuple[float, float]:
    """SafeLimits<T> as doubles (numeric_limits, f16: +-65504)."""
    if dt.name == "f16":
        return -_F16_MAX, _F16_MAX
    f = dt.format
    if dt.is_float:
        top = (2 - 2.0 ** -f.man_bits) * 2.0 ** ((1 << (f.exp_bits - 1)) - 1)  # the largest finite value
        return -top, top
    return float(f.int_min), float(f.int_max)


def _cvttsd2si(x: np.ndarray, rng: tuple[float, float]) -> np.ndarray:
    """x86 ``cvttsd2si``: truncate; NaN and out of range give the lowest value of the width (as int64)."""
    t = np.trunc(x)
    ok = (t >= rng[0]) & (t < rng[1])  # False for NaN
    return np.where(ok, t, rng[0]).astype(np.int64)


def _gxx(*dts: DType) -> bool:
    """Whether a conversion between these dtypes follows g++'s code: bf16's (PTO77, PTO88)."""
    return any(d.name == "bf16" for d in dts)


def x86_cast(x: np.ndarray, d: DType, gxx: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(lanes of ``static_cast<D>(x)`` as clang's x86-64 code computes it, or g++'s, undefined-behaviour mask)
    for doubles x."""
    t = np.trunc(x)
    f = d.format
    undefined = ~((t >= float(f.int_min)) & (t < float(f.int_max + 1)))  # bounds are powers of two: exact; NaN
    width = _CVT_WIDTH[d.name]
    if width == "u64" and gxx:  # x < 2**63 ? cvt(x) : cvt(x - 2**63) ^ 2**63 (NaN compares false: cvt(x))
        big = x >= 2.0 ** 63
        r = np.where(big, _cvttsd2si(x - 2.0 ** 63, _I64) ^ np.int64(-(2 ** 63)), _cvttsd2si(x, _I64))
    elif width == "u64":  # r1 = cvt(x); r2 = cvt(x - 2**63); r = r1 | (r2 & (r1 >> 63))
        r1 = _cvttsd2si(x, _I64)
        r2 = _cvttsd2si(x - 2.0 ** 63, _I64)
        r = r1 | (r2 & (r1 >> 63))
    else:
        r = _cvttsd2si(x, _I32 if width == "32" else _I64)
    return r.astype(d.np).view(d.lane), undefined


def _double_of(bits: np.ndarray, s: DType) -> np.ndarray:
    """``static_cast<double>(v)`` of lanes: exact for floats and 32-bit ints, nearest even for 64-bit ints."""
    if s.is_float:
        return nx.as_f32(bits, s).astype(np.float64)
    return bits.view(s.np).astype(np.float64)


def _round_to_source(x: np.ndarray, s: DType, gxx: bool) -> tuple[np.ndarray, np.ndarray]:
    """``static_cast<S>(double)`` as a double again, and where that cast is undefined (integer S)."""
    if s.is_float:
        return nx.as_f32(nx.from_f64(x, s, flush=False), s).astype(np.float64), np.zeros(x.shape, bool)
    lanes, undefined = x86_cast(x, s, gxx)
    return _double_of(lanes, s), undefined


def _integral(x: np.ndarray, mode: str) -> np.ndarray:
    """applyRoundingToIntegral: the pto RoundMode applied to a double (NaN and +-Inf unchanged)."""
    if mode in ("RINT", "CAST_RINT"):
        return np.rint(x)
    if mode == "ROUND":
        return _round_away(x)
    if mode == "FLOOR":
        return np.floor(x)
    if mode == "CEIL":
        return np.ceil(x)
    if mode == "TRUNC":
        return np.trunc(x)
    if mode == "ODD":  # nearest; a tie goes to the odd neighbour
        f = np.floor(x)
        frac = x - f
        odd = np.fmod(f, 2) != 0
        return np.where(frac > 0.5, f + 1, np.where(frac < 0.5, f, np.where(odd, f, f + 1)))
    return x  # NONE: the cast truncates


def _round_away(x: np.ndarray) -> np.ndarray:
    """std::round (exact for every double: |x| + 0.5 is only inexact when |x| >= 2**52, already integral)."""
    a = np.abs(x)
    r = np.where(a >= 2.0 ** 52, a, np.floor(a + 0.5))
    r = np.where((a < 0.5), 0.0, r)
    return np.copysign(r, x)


def convert(bits: np.ndarray, s: DType, d: DType, mode: str, saturate: bool) -> tuple[np.ndarray, np.ndarray]:
    """(destination lanes, undefined-behaviour mask) of the CPU reference's TCVT of ``bits``."""
    with np.errstate(all="ignore"):  # NaN and Inf take the C++ path on purpose
        return _convert(bits, s, d, mode, saturate)


#: float pairs whose numpy cast is the reference's correctly rounded one (IEEE RNE, subnormals, overflow to
#: Inf) for every lane but NaN, whose payload :func:`nan_lanes` decides
_NUMPY_CASTS = {("f32", "f16"): np.float16, ("f16", "f32"): np.float32}


def numpy_cast_into(bits: np.ndarray, s: DType, d: DType, out: np.ndarray) -> bool:
    """:data:`_NUMPY_CASTS`' cast of ``bits`` written straight into the lanes ``out`` (without saturation, which
    the caller asks for): True, or False with ``out`` untouched when the pair has no such cast or a lane is NaN."""
    fast = _NUMPY_CASTS.get((s.name, d.name))
    if fast is None or not bits.size:
        return fast is not None
    x = bits.view(s.np)
    m = x.max()  # max propagates NaN
    if m != m:
        return False
    with np.errstate(over="ignore"):  # overflow to Inf is the reference's
        out.view(fast)[...] = x
    return True


def _convert(bits: np.ndarray, s: DType, d: DType, mode: str, saturate: bool) -> tuple[np.ndarray, np.ndarray]:
    undefined = np.zeros(bits.shape, bool)
    if not saturate and (s.name, d.name) in _NUMPY_CASTS:
        out = np.empty(bits.shape, d.lane)
        if numpy_cast_into(bits, s, d, out):
            return out, undefined
    if not saturate and s.is_int and d.is_int:
        v = bits.view(s.np)
        return v.astype(d.np).view(d.lane), undefined
    x = _double_of(bits, s)
    if saturate:
        (slo, shi), (dlo, dhi) = _limits(s), _limits(d)
        lo, hi = max(slo, dlo), min(shi, dhi)
        x = np.where(x < hi, x, hi)      # std::min(hi, v): NaN -> hi
        x = np.where(lo < x, x, lo)      # std::max(lo, v)
        x, undefined = _round_to_source(x, s, _gxx(s, d))
        if s.is_int and d.is_int:
            lanes = x86_cast(x, s)[0].view(s.np)
            return lanes.astype(d.np).view(d.lane), undefined
    if d.is_float:
        if s.is_float and not saturate:
            if s is d:
                return bits.copy(), undefined
            return np.where(x != x, nan_lanes(bits, s, d), nx.from_f64(x, d, flush=False)), undefined
        return nx.from_f64(x, d, flush=False), undefined
    if s.is_float:
        x = _integral(x, mode)
    if d.name == "u8":  # static_cast<uint8_t>(static_cast<int64_t>(v)): only the int64 cast can be undefined
        lanes64, bad = x86_cast(x, get_dtype("i64"))
        return lanes64.view(np.int64).astype(np.uint8), undefined | bad
    lanes, bad = x86_cast(x, d, _gxx(s, d))
    return lanes, undefined | bad


def nan_lanes(bits: np.ndarray, s: DType, d: DType) -> np.ndarray:
    """A float cast of NaN lanes: sign and the payload's top bits kept, the quiet bit set."""
    fs, fd = s.format, d.format
    payload = bits.astype(np.uint64) & np.uint64((1 << fs.man_bits) - 1)
    shift = fs.man_bits - fd.man_bits
    payload = payload >> np.uint64(shift) if shift >= 0 else payload << np.uint64(-shift)
    sign = (bits.astype(np.uint64) >> np.uint64(fs.bits - 1)) << np.uint64(fd.bits - 1)
    exp = np.uint64(((1 << fd.exp_bits) - 1) << fd.man_bits)
    quiet = np.uint64(1 << (fd.man_bits - 1))
    return (sign | exp | quiet | payload).astype(d.lane)


def cast(bits: np.ndarray, s: DType, d: DType) -> tuple[np.ndarray, np.ndarray]:
    """(lanes, undefined mask) of a plain C++ ``static_cast<D>(v)`` of S lanes (not through double).

    Floats and integers round once to nearest even (x86-64's cvtsi2ss and
    clang's unsigned sequences are correctly rounded); float -> integer is
    :func:`x86_cast` (u8 through the 32-bit cvttss2si); integers wrap.
    """
    undefined = np.zeros(bits.shape, bool)
    if s is d:
        return bits.copy(), undefined
    if s.is_int and d.is_int:
        return bits.view(s.np).astype(d.np).view(d.lane), undefined
    if s.is_int:
        return formats.encode(bits.view(s.np), d.format), undefined
    with np.errstate(all="ignore"):
        x = _double_of(bits, s)
        if d.is_float:
            return np.where(x != x, nan_lanes(bits, s, d), nx.from_f64(x, d, flush=False)), undefined
        return x86_cast(x, d, _gxx(s, d))


def refuse_undefined(op, undefined: np.ndarray, bits: np.ndarray, s: DType, d: DType) -> None:
    """Under a strict profile, raise ``pto.tcvt.undefined`` for the first lane an undefined cast produced."""
    if not (op.prof.strict and undefined.any()):
        return
    where = tuple(int(i) for i in np.argwhere(undefined)[0])
    lane = bits[where]
    bad = float(nx.as_f32(np.array([lane]), s)[0]) if s.is_float else int(np.array([lane]).view(s.np)[0])
    raise SpecGapError(f"{bad!r} at {where} converts to {d} by an undefined C++ cast; strict mode refuses it",
                       instruction=op.inst, operand="src", rule="pto.tcvt.undefined", value=bad)
