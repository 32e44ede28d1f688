"""TPOW and TPOWS: ``dst = base ** exp``, element by element (decision PTO132).

pto-isa's CPU simulator (include/pto/cpu/TPow.hpp, ElementOp.h ``OP_POWS``) calls ``std::pow`` in double and
casts back: TPOW ``T(pow(double(b), double(e)))`` (half through float first), TPOWS the same without the float
step; TPOW of integers is a loop of wrapping products (``integer_pow``), TPOWS of integers the double pow cast
to the integer type. So on ``cpu`` a float lane is ``base ** exp`` rounded to float64 (glibc's pow, which is
within 0.52 ulp, so correctly rounded but where the exact power lies within 0.02 ulp of a float64 midpoint),
then rounded to each type of the cast chain. The NPUs (docs/isa/TPOW.md: ``exp(ln|b| * e)``, no error bound)
get the power rounded once to dst's type, subnormals flushed.

Every float lane here is exact: numpy's float64 ``power`` (a few ulps at worst) is kept where both ends of a
2**-44 relative window round to the same code through the chain; the rest (about one lane in 2**15, and
overflow, underflow and the lanes whose power is an exact dyadic rational) take :func:`_slow`: exact
rationals where the power is dyadic, else decimal arithmetic at growing precision until the window decides.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from ... import formats
from .. import numerics as nx
from ..dtypes import DType
from ..tile import Tile
from . import convert_cpu
from ._common import Op
from .elementwise import _tile_scalar, _tile_tile

__all__ = ["tpow", "tpows"]

_EPS = 2.0 ** -44     # numpy's float64 power is trusted to 2**-44 relative (a libm errs by a few 2**-53)
_FMT = {"f32": "fp32", "f16": "fp16", "bf16": "bf16"}


def _chain(op: Op, dt: DType) -> tuple[str, ...]:
    """The formats a float lane is rounded to, in order: cpu's casts of a double pow, or dst's alone."""
    if not op.prof.x86_nans:
        return (dt.format.name,)
    if op.name == "tpow" and dt.name == "f16":
        return ("fp64", "fp32", "fp16")  # TPow.hpp: half(float(result))
    return ("fp64", dt.format.name)


#: numpy's casts from float64, round to nearest even with subnormals and overflow to Inf as IEEE 754 says (the
#: casts PTO105 uses; ``test_power.py`` holds them to the codec at every f16 and f32 rounding boundary)
_NP_CAST = {"fp32": np.float32, "fp16": np.float16}


def _round(v: np.ndarray, chain: tuple[str, ...]) -> np.ndarray:
    """Codes in chain[-1] of float64 values rounded (RNE) to each format of the chain in turn."""
    for f in chain[:-1]:
        if f != "fp64":
            v = v.astype(_NP_CAST[f]).astype(np.float64) if f in _NP_CAST else formats.decode(formats.encode(v, f), f)
    f = chain[-1]
    if f in _NP_CAST:
        with np.errstate(over="ignore"):
            return v.astype(_NP_CAST[f]).view(np.uint32 if f == "fp32" else np.uint16)
    return v.view(np.uint64) if f == "fp64" else formats.encode(v, f)


def _round_q(q: Fraction, chain: tuple[str, ...]) -> int:
    """:func:`_round` of one exact rational."""
    code = nx.round_fraction(q, chain[0])
    if len(chain) == 1:
        return code
    return int(_round(np.asarray(formats.decode(np.array([code], np.uint64), chain[0]), np.float64), chain[1:])[0])


def _dyadic_power(x: float, y: float) -> Fraction | None:
    """``x ** y`` (x > 0, |x ** y| within 2**+-1200) when it is a dyadic rational that can be a rounding boundary,
    else None. With x = m 2**e (m odd) and y = n / d (d a power of two), it is dyadic iff m is a perfect d-th
    power r**d with n >= 0 (or m = 1) and e y is an integer; a boundary's odd part has at most 54 bits."""
    fx, fy = Fraction(x), Fraction(y)
    m, e = fx.numerator, -(fx.denominator.bit_length() - 1)
    while m % 2 == 0:
        m, e = m // 2, e + 1
    t = e * fy
    if t.denominator != 1:
        return None
    if m == 1:
        return Fraction(2) ** int(t)
    n, d = fy.numerator, fy.denominator
    if n < 0 or d > 16:  # m < 2**24 is no 32nd power; 1 / m**n is not dyadic
        return None
    if n * np.log2(m) / d > 64:  # an odd part r**n of over 64 bits: no boundary (they have at most 54)
        return None
    r = round(m ** (1 / d))
    r = next((c for c in (r - 1, r, r + 1) if c > 0 and c ** d == m), None)
    return None if r is None else Fraction(r) ** n * Fraction(2) ** int(t)


def _slow(x: float, y: float, chain: tuple[str, ...]) -> int:
    """The code of ``x ** y`` (x > 0 finite, y finite) through the chain, exactly."""
    est = y * np.log2(x)
    if est > 1100 or est < -1200:  # past every format's range: +Inf or +0 in all chains
        return _round_q(Fraction(2) ** (1100 if est > 0 else -1200), chain)
    q = _dyadic_power(x, y)
    if q is not None:
        return _round_q(q, chain)
    # not dyadic, so never on a boundary: widen the precision until the window is on one side
    with localcontext() as ctx:
        ctx.Emax, ctx.Emin = 10 ** 6, -10 ** 6
        for prec in (40, 80, 160, 320):
            ctx.prec = prec
            v = Fraction(Decimal(x) ** Decimal(y))
            err = abs(v) / 10 ** (prec - 3)
            lo, hi = _round_q(v - err, chain), _round_q(v + err, chain)
            if lo == hi:
                break
    return lo


def _magnitude(ax: np.ndarray, y: np.ndarray, chain: tuple[str, ...]) -> np.ndarray:
    """Codes of ``ax ** y`` (ax > 0 finite, y finite) through the chain."""
    with np.errstate(all="ignore"):
        r, est = np.power(ax, y), y * np.log2(ax)
        lo, hi = _round(r * (1 - _EPS), chain), _round(r * (1 + _EPS), chain)
    big, tiny = est > 1100, est < -1200  # past every format's range: +Inf or +0 in all chains
    out = np.where(big, _round(np.array(np.inf), chain), np.where(tiny, _round(np.array(0.0), chain), lo))
    for i in np.flatnonzero(((lo != hi) | ~np.isfinite(r) | (r == 0)) & ~big & ~tiny):
        out[i] = _slow(float(ax[i]), float(y[i]), chain)
    return out


def float_pow(x: np.ndarray, y: np.ndarray, chain: tuple[str, ...]) -> np.ndarray:
    """Codes in chain[-1] of C's ``pow(x, y)`` (float64 values, broadcast) through the chain, with C99's
    special cases (Annex F.10.4.4); NaN results as the default NaN, for the caller's NaN rule."""
    x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    fin_y = np.isfinite(y)
    with np.errstate(invalid="ignore"):
        y_int = fin_y & (np.floor(y) == y)
        neg = np.signbit(x) & y_int & (np.fmod(y, 2) != 0)          # an odd integer power keeps the sign
    ax = np.abs(x)
    regular = np.isfinite(x) & (x != 0) & fin_y & (y != 0) & (ax != 1) & ~((x < 0) & ~y_int)
    with np.errstate(all="ignore"):
        grows = (ax > 1) == (y > 0)                                   # |x| ** y is large, else small
        v = np.where(grows, np.inf, 0.0)                              # 0 or Inf bases, infinite exponents
        v = np.where(ax == 1, 1.0, v)                                 # (-1) ** +-Inf = 1, 1 ** y = 1
        v = np.where(np.isnan(x) | np.isnan(y) | ((x < 0) & np.isfinite(x) & ~y_int & fin_y), np.nan, v)
        v = np.where((y == 0) | (x == 1), 1.0, v)                     # x ** 0 = 1 ** y = 1, NaN or not
    mag = _round(np.where(regular, 1.0, v), chain)
    if regular.any():
        mag[regular] = _magnitude(ax[regular], y[regular], chain)
    sign = mag.dtype.type(1 << (8 * mag.itemsize - 1))
    return np.where(neg & ~np.isnan(v), mag | sign, mag)


def int_pow(base: np.ndarray, exp: np.ndarray, dt: DType) -> np.ndarray:
    """The simulator's ``integer_pow``: exp (read as int64) 0 or base 1 give 1; a negative exp gives +-1 for a
    base of -1 (as C compares it) and 0 otherwise; else the product wraps modulo 2**bits."""
    b = np.asarray(base).astype(np.uint64)
    e = nx.int_view(np.asarray(exp), dt).astype(np.int64) if dt.name != "u64" else np.asarray(exp).view(np.int64)
    mask = np.uint64((1 << dt.bits) - 1)
    minus_one = (b & mask) == mask if dt.signed or dt.bits >= 32 else np.zeros(b.shape, bool)
    res, sq, k = np.ones_like(b), b.copy(), np.where(e > 0, e, 0).astype(np.uint64)
    while k.any():
        res = np.where(k & np.uint64(1), res * sq, res)
        sq, k = sq * sq, k >> np.uint64(1)
    odd = (e % 2) != 0
    res = np.where(e < 0, np.where(minus_one, np.where(odd, mask, np.uint64(1)), np.uint64(0)), res)
    res = np.where((e == 0) | (b == 1), np.uint64(1), res)
    return (res & mask).astype(dt.lane)


def _float_lanes(op: Op, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """Lanes of a float TPOW/TPOWS on op's target (flushing, NaNs)."""
    p = op.prof
    if p.flush_denormals:
        a, b = nx.flush_bits(a, dt), nx.flush_bits(b, dt)
    with np.errstate(invalid="ignore"):
        x, y = nx.as_f32(a, dt).astype(np.float64), nx.as_f32(b, dt).astype(np.float64)
    r = float_pow(x, y, _chain(op, dt)).astype(dt.lane)
    if p.x86_nans:  # glibc: x + y for NaN operands, (x - x) / (x - x) (the default NaN) for invalid ones,
        a, b = np.broadcast_arrays(a, b)  # but x * x, negated for an odd integer y, for a NaN x of sign 1
        r = nx.x86_nans(r, a, b, dt)
        with np.errstate(invalid="ignore"):
            flip = np.isnan(x) & np.signbit(x) & np.isfinite(y) & (np.floor(y) == y) & (np.fmod(y, 2) != 0)
        return np.where(flip, r ^ dt.lane.type(1 << (dt.bits - 1)), r)
    r = nx.flush_bits(r, dt) if p.flush_denormals else r
    return np.where(nx.is_nan(r, dt), dt.lane.type(nx.canonical_nan(dt)), r)


def _run(op: Op, dst: Tile, a: np.ndarray, b: np.ndarray) -> Tile:
    dt = dst.dtype
    R, C = dst.valid
    if dt.is_float:
        dst.bits[:R, :C] = _float_lanes(op, a, b, dt)
    elif op.name == "tpows" and op.prof.x86_nans:  # cpu: T(pow(double(b), double(s)))
        x = np.asarray(nx.int_view(a, dt), np.float64)
        s = np.asarray(nx.int_view(b, dt), np.float64)
        v = formats.decode(float_pow(x, s, ("fp64",)), "fp64")
        lanes, undefined = convert_cpu.x86_cast(np.asarray(v, np.float64), dt)
        convert_cpu.refuse_undefined(op, undefined, a, dt, dt)
        dst.bits[:R, :C] = lanes
        dst.mark_undefined((slice(0, R), slice(0, C)), undefined)
    else:
        dst.bits[:R, :C] = int_pow(a, np.broadcast_to(b, a.shape), dt)
    return dst


def _tmp(op: Op, dst: Tile, tmp: Tile | None) -> None:
    """A2A3 reads tmp for float powers: it must be given, of dst's dtype, with dst's valid shape."""
    if op.prof.name == "a2a3" and dst.dtype.is_float:
        if tmp is None:
            op.fail("A2A3 needs tmp for a float power (docs/isa/TPOW.md)", "tmp", "pto.op.operand")
        op.same_dtype(dst, tmp, "tmp", "dst")
        op.valid_match(dst, tmp, "tmp", "dst")


def tpow(dst: Tile, base: Tile, exp: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TPOW: ``dst = base ** exp`` (PTO132). Floats: C's pow with its special cases, correctly rounded (on cpu
    through double, as the simulator casts it); integers: exact powers wrapping modulo 2**bits, a negative
    exponent giving 0 (or +-1 for a base of +-1). tmp: required on A2A3 for floats, otherwise unused.

    >>> from tilesim.pto import Tile
    >>> b, e, d = (Tile("vec", "f32", 1, 8, valid=(1, 3)) for _ in range(3))
    >>> b.values[0, :3], e.values[0, :3] = (2, -8, 9), (10, 1 / 3, 0.5)
    >>> tpow(d, b, e).valid_values.tolist()
    [[1024.0, nan, 3.0]]
    """
    op = Op("tpow", target)
    _tile_tile(op, dst, base, exp, tmp)
    _tmp(op, dst, tmp)
    R, C = dst.valid
    return _run(op, dst, base.bits[:R, :C], exp.bits[:R, :C])


def tpows(dst: Tile, base: Tile, scalar, tmp: Tile | None = None, *, target=None) -> Tile:
    """TPOWS: ``dst = base ** scalar`` (see :func:`tpow`). On cpu integer lanes are the double pow cast to dst's
    type (truncated; out of range: x86-64's value, marked undefined; strict refuses it)."""
    op = Op("tpows", target)
    s = _tile_scalar(op, dst, base, scalar, tmp)
    _tmp(op, dst, tmp)
    R, C = dst.valid
    return _run(op, dst, base.bits[:R, :C], s)
