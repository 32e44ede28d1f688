"""Bit-exact element arithmetic on lane codes, shared by every op family.

Values stay bit patterns. The rules, and why each is exact:

* Comparisons view the bits as numbers (``float32``/``float16`` views,
  ``bfloat16`` widened to ``float32`` by a 16-bit shift, integer views):
  every comparison is exact.
* f32 ``+ - * /`` and ``sqrt``: numpy ``float32`` arithmetic is IEEE binary32,
  round to nearest even, with subnormals.
* f16 and bf16 ``+ - * / sqrt``: computed in ``float32`` (exact widening), then
  rounded once with :func:`tilesim.formats.encode`. float32 has p = 24 >= 2p+2
  for p = 11 (f16) and p = 8 (bf16), so the double rounding is innocuous
  (Figueroa 1995): the result is the correctly rounded one.
* ``exp``, ``log``, ``1/sqrt``: float64 numpy result, checked to lie at least
  2**-45 (relative) away from every rounding boundary of the target format;
  the rare element that does not is recomputed with 60-digit
  :mod:`decimal` arithmetic. The result is the correctly rounded value.
* Fast paths (decisions PTO105, PTO170, PTO171, PTO190): f32 ``+ - * / sqrt 1/x``
  without flushing run as numba kernels (:mod:`tilesim.pto.jit`) whose bits
  are numpy's float32 ones wherever no lane is NaN (those bits are the IEEE
  result on every target); a NaN anywhere sends the whole call to the exact
  path, which gives NaN payloads. f32 max/min/relu under the ``first`` rule
  and x86's abs and neg are exact kernels on every input. f32 exp, log and
  1/sqrt (and expdif's exp of an f32 difference) are one numba pass each
  (:mod:`tilesim.pto.transcend`, PTO190): a float64 evaluation within 2**-44,
  rounded to f32 where its low 29 bits show it more than 2**10 float64 ulps
  from a rounding boundary (exp: 2**9, the lanes nearer taking a double-double
  evaluation in the same call, PTO198). The lanes it leaves take :func:`_certified`:
  numpy's float64 result rounded where it is more than 32 ulps from a
  boundary (numpy's float64 exp, log and sqrt err by a few ulps), or 0 or
  past 2**128; only the other lanes (boundary cases, subnormal results, NaN)
  take the exact path above. f16/bf16 ``+ - * / sqrt 1/x`` round their float32 result by numpy's
  cast (f16) or a bit rounding (bf16) instead of :func:`tilesim.formats.encode`.
  Tests hold each fast path equal to the exact one.
* Integers: two's complement wrap-around (computed in int64/uint64, which wrap
  modulo 2**64, then truncated to the lane).
* NaN results of arithmetic are the canonical quiet NaN (F5); moves, max/min
  selection and selects keep payloads.
* ``flush``: NPUs flush denormals. When asked, subnormal inputs are read as
  zero and subnormal results written as zero, both keeping the sign.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from .. import formats
from ..errors import SpecGapError
from . import jit, transcend
from .dtypes import DType, get_dtype

__all__ = [
    "as_key", "as_f32", "is_nan", "flush_bits", "from_f32", "from_f64", "canonical_nan",
    "binary", "binary_exact", "unary", "unary_exact", "fast_f32", "fast_f32_into", "fast_narrow_into", "round_narrow",
    "select_max", "select_min", "round_fraction", "int_view",
]

U64 = np.uint64


# ------------------------------------------------------------------ views
def as_key(bits: np.ndarray, dt: DType, *, float_view: bool = False) -> np.ndarray:
    """Comparable numbers for lane codes (exact). ``float_view``: read unsigned bits as f16/f32 (A2A3 quirk)."""
    if dt.is_float:
        return as_f32(bits, dt) if dt.name == "bf16" else bits.view(dt.np)
    if float_view and dt.name in ("u16", "u32"):
        return bits.view(np.float16 if dt.name == "u16" else np.float32)
    return bits.view(dt.np)


def int_view(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Integer lanes as int64 (uint64 for u64): exact values for arithmetic; an ``i4`` lane's low nibble,
    sign-extended."""
    if dt.name == "i4":
        return ((bits.astype(np.int64) & 0xF) ^ 8) - 8
    v = bits.view(dt.np)
    return v if dt.name == "u64" else v.astype(np.int64)


def as_f32(bits: np.ndarray, dt: DType) -> np.ndarray:
    """float32 values of f32/f16/bf16 lanes (exact widening)."""
    if dt.name == "f32":
        return bits.view(np.float32)
    if dt.name == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return bits.view(np.float16).astype(np.float32)


def _fields(dt: DType) -> tuple[int, int, int]:
    f = dt.format
    return 1 << (f.bits - 1), ((1 << f.exp_bits) - 1) << f.man_bits, (1 << f.man_bits) - 1


def is_nan(bits: np.ndarray, dt: DType) -> np.ndarray:
    """NaN lanes of a float dtype (all False for integers)."""
    if not dt.is_float:
        return np.zeros(bits.shape, bool)
    sign, exp, _ = _fields(dt)
    return (bits & dt.lane.type(~sign & dt.format.lane_mask)) > dt.lane.type(exp)


def canonical_nan(dt: DType) -> int:
    return int(dt.format.nan_code)


def flush_bits(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Subnormal lanes replaced by zero of the same sign (other lanes unchanged); a new array."""
    sub = _subnormal(bits, dt)
    if not sub.any():
        return np.array(bits, copy=True)
    return np.where(sub, bits & _FLUSH[dt.name][0], bits)


def _subnormal(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Which lanes are subnormal: 0 < |code| <= the mantissa mask."""
    masks = _FLUSH.get(dt.name)
    if masks is None:
        sign, exp, man = _fields(dt)
        L = dt.lane.type
        masks = _FLUSH[dt.name] = (L(sign), L(exp | man), L(0), L(man))
    _, magnitude, zero, man = masks
    mag = bits & magnitude
    return (mag <= man) & (mag != zero)


#: dtype name -> (sign, magnitude, 0, mantissa) masks as lane scalars, for :func:`flush_bits`
_FLUSH: dict = {}


def from_f32(x: np.ndarray, dt: DType, *, flush: bool) -> np.ndarray:
    """Lanes of a float32 result: f32 as is (NaN made canonical), f16/bf16 rounded once (RNE)."""
    x = np.asarray(x, np.float32)
    if dt.name == "f32":
        bits = np.where(np.isnan(x), np.uint32(canonical_nan(dt)), x.view(np.uint32))
        return flush_bits(bits, dt) if flush else bits
    return formats.encode(x, dt.format, flush_subnormals=flush)


def from_f64(x: np.ndarray, dt: DType, *, flush: bool, rounding: str = "rne") -> np.ndarray:
    """Lanes of exact float64 values, rounded once."""
    return formats.encode(np.asarray(x, np.float64), dt.format, rounding=rounding, flush_subnormals=flush)


def _f32_in(bits: np.ndarray, dt: DType, flush: bool) -> np.ndarray:
    return as_f32(flush_bits(bits, dt) if flush else bits, dt)


# ------------------------------------------------------- exact fallbacks
def round_fraction(q: Fraction, fmt, rounding: str = "rne") -> int:
    """Lane code of an exact rational, rounded once (used for literals and rare transcendental cases).

    The rational is truncated to a 62-bit significand with round-to-odd (the
    lowest bit records any remainder); rounding that to a format of at most 60
    bits gives the same result as rounding the exact value, in every mode.
    """
    fmt = formats.get(fmt)
    if q == 0:
        return int(formats.encode(np.array([0.0]), fmt)[0])
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    k = 61 - e
    scaled = a * (Fraction(2) ** k)
    sig, rem = divmod(scaled.numerator, scaled.denominator)
    while sig >= 1 << 62:
        rem = rem or sig & 1
        sig >>= 1
        k -= 1
    if rem:
        sig |= 1
    parts = formats.Parts.finite(np.array([neg]), np.array([sig], np.uint64), np.array([-k], np.int64))
    return int(formats.encode(parts, fmt, rounding=rounding)[0])


_DEC = {
    "exp": lambda d: d.exp(),
    "log": lambda d: d.ln(),
    "rsqrt": lambda d: 1 / d.sqrt(),
}


_DT_F32 = get_dtype("f32")
_F64 = {"exp": np.exp, "log": np.log, "rsqrt": lambda v: 1.0 / np.sqrt(v)}


def _f64_result(name: str, x: np.ndarray) -> np.ndarray:
    """numpy's float64 exp, log or 1/sqrt of f32 or float64 values (f32 widened exactly inside the ufunc)."""
    if name == "rsqrt":
        y = np.sqrt(x, dtype=np.float64)
        return np.divide(1.0, y, out=y)
    return _F64[name](x, dtype=np.float64)


def _transcendental(name: str, x: np.ndarray, dt: DType, flush: bool) -> np.ndarray:
    """Correctly rounded exp/log/rsqrt of exact float64 (or, for f32, float32) inputs (see the module docstring).

    For f32, float64 results that are normal f32 numbers more than 32 f64 ulps from a rounding boundary are
    rounded by a cast (decision PTO105); the other lanes take the exact path.
    """
    if dt.name != "f32":
        return _transcendental_exact(name, x, dt, flush)
    return _certified(name, x, None)[0]


def _certified(name: str, x: np.ndarray, out: np.ndarray | None) -> tuple[np.ndarray, int]:
    """(f32 lanes of :func:`_transcendental`, written into ``out`` if given; how many lanes took the exact path):
    :func:`tilesim.pto.jit.certify` rounds the lanes it vouches for in one pass."""
    with np.errstate(all="ignore"):
        y = _f64_result(name, x).reshape(-1)  # f32 values widen here, signaling NaNs quietly
    flat = out is not None and out.flags.c_contiguous
    r = out.reshape(-1) if flat else np.empty(y.size, np.uint32)
    n = jit.certify(y, y.view(np.uint64), r)
    if n:
        with np.errstate(all="ignore"):
            ay = np.abs(y)
            # near: the dropped bits within 2**5 f64 ulps of their midpoint (the modular shift puts that window at
            # 0..2**6); f32 subnormals, the overflow boundary, NaN: exact; a zero or a value past 2**128: the cast
            near = ((y.view(np.uint64) + jit.SHIFT29) & jit.LOW29) <= jit.NEAR29
            unsure = (near | ~((ay >= jit.TINY) & (ay < jit.HUGE))) & ~((ay == 0) | (ay >= jit.HUGE))
            r[unsure] = _transcendental_exact(name, np.asarray(x, np.float64).reshape(-1)[unsure], _DT_F32, False)
    r = r.reshape(np.shape(x))
    if out is not None and not flat:
        out[...] = r
    return r, n


def _fused(op: str, a: np.ndarray, b: np.ndarray | None, out: np.ndarray | None):
    """f32 lanes of exp, log, 1/sqrt of ``a`` or (``expdif``) exp(a - b), ``b`` a row or a column, from
    :mod:`tilesim.pto.transcend`'s one-pass kernels (decision PTO190), written into ``out`` if given; the lanes
    they leave (outside their domain, or not certified) take :func:`_certified`. None when a result is NaN (the
    exact path decides its payload); False when an operand's layout is not one the kernels take."""
    shape = out.shape if out is not None else np.shape(a) if b is None else np.broadcast_shapes(a.shape, b.shape)
    if len(shape) > 2 or b is not None and len(shape) != 2:
        return False
    R, C = shape if len(shape) == 2 else (1, int(np.prod(shape)))
    o = np.empty(shape, np.uint32) if out is None else out
    x, y, w = jit.rows(a, (R, C)), None if b is None else jit.rows(b, (R, C)), jit.rows(o, (R, C))
    if x is None or w is None or not x[2] or b is not None and y is None or b is not None and R * C == 0:
        return False
    return fix_marked(op, a, b, o, transcend.run(op, x, y, w, R, C), R, C)


def fix_marked(op: str, a: np.ndarray, b: np.ndarray | None, o: np.ndarray, bad: np.ndarray | None, R: int,
               C: int):
    """``o`` (R x C f32 codes from :mod:`tilesim.pto.transcend`'s kernel ``op`` on ``a``, or ``a - b``) with the
    lanes the kernel left, ``bad`` (flat indices ``i * C + j``; None: the lanes holding its mark), from
    :func:`_certified`; None when a result is NaN (the exact path decides its payload)."""
    if bad is None:  # too many to list: find the marks
        bad = np.flatnonzero(o.reshape(-1) == transcend.MARK)
    if bad.size:
        i, j = np.divmod(bad, C)
        o2, a2 = o.reshape(R, C), np.broadcast_to(a, (R, C))
        v = a2[i, j].view(np.float32)
        if op == "expdif":
            with np.errstate(all="ignore"):
                v = v - np.broadcast_to(b, (R, C))[i, j].view(np.float32)
            if np.isnan(v).any():
                return None
        r, n = _certified("exp" if op == "expdif" else op, v, None)
        if n and np.isnan(r.view(np.float32).max()):
            return None
        o2[i, j] = r
    return o


def _transcendental_exact(name: str, x: np.ndarray, dt: DType, flush: bool) -> np.ndarray:
    """The reference: float64 result 2**-45 (relative) from every rounding boundary, else 60-digit decimal."""
    with np.errstate(all="ignore"):
        y = _F64[name](x)
        eps = 2.0 ** -45
        lo = from_f64(y * (1 - eps), dt, flush=flush)
        hi = from_f64(y * (1 + eps), dt, flush=flush)
    out = lo
    unsure = np.flatnonzero((lo != hi) & np.isfinite(y) & (y != 0))
    if unsure.size:
        out = out.copy()
        flat = out.reshape(-1)
        with localcontext() as ctx:
            ctx.prec = 60
            for i in unsure:
                q = Fraction(_DEC[name](Decimal(float(x.reshape(-1)[i]))))
                code = round_fraction(q, dt.format)
                flat[i] = flush_bits(np.array([code], dt.lane), dt)[0] if flush else code
    return out


# ------------------------------------------------------------- max / min
def select_max(a: np.ndarray, b: np.ndarray, dt: DType, nan_mode: str, *, float_view: bool = False) -> np.ndarray:
    """Lane-wise max of two lane arrays under a NaN rule (keeps the chosen operand's bits).

    first:     ``a < b ? b : a`` (std::max): a NaN in ``a`` is kept, a NaN in ``b`` loses; ties keep ``a``.
    propagate: a NaN in either gives that NaN (``a``'s first); otherwise as ``first``.
    spec:      maxNum: one NaN gives the number, two give the canonical NaN; max(-0, +0) = +0.
    """
    return _select(a, b, dt, nan_mode, float_view, "max")


def select_min(a: np.ndarray, b: np.ndarray, dt: DType, nan_mode: str, *, float_view: bool = False) -> np.ndarray:
    """Lane-wise min: ``b < a ? b : a`` and the same NaN rules as :func:`select_max` (min(-0, +0) = -0)."""
    return _select(a, b, dt, nan_mode, float_view, "min")


def blend(cond: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.where(cond, x, y)`` for lane arrays of one unsigned dtype, by bit arithmetic: numpy's ``where``
    branches per element and runs many times slower on masks without a pattern."""
    m = np.asarray(cond).astype(y.dtype)
    np.negative(m, out=m)  # all ones where cond
    r = np.bitwise_xor(x, y)
    r &= m
    r ^= y
    return r


def _select(a, b, dt, nan_mode, float_view, kind):
    a, b = np.broadcast_arrays(a, b)
    ka, kb = as_key(a, dt, float_view=float_view), as_key(b, dt, float_view=float_view)
    take_b = (kb > ka) if kind == "max" else (kb < ka)
    out = blend(take_b, b, a)
    if not (dt.is_float or float_view) or nan_mode == "first":
        return out
    na, nb = np.isnan(ka), np.isnan(kb)
    if nan_mode == "propagate":
        return np.where(na, a, np.where(nb, b, out))
    # spec: maxNum / minNum, signed zeros ordered
    sign = dt.lane.type(1 << (dt.bits - 1))
    zero = (ka == 0) & (kb == 0)
    if kind == "max":
        zsel = np.where((a & sign) == 0, a, b)
    else:
        zsel = np.where((a & sign) != 0, a, b)
    out = np.where(zero, zsel, out)
    out = np.where(na & ~nb, b, np.where(nb & ~na, a, out))
    canon = dt.lane.type(canonical_nan(dt)) if dt.is_float else a
    return np.where(na & nb, canon, out)


# ------------------------------------------------------------ arithmetic
def x86_nans(r: np.ndarray, a: np.ndarray, b: np.ndarray, dt: DType, b_first=False) -> np.ndarray:
    """NaN results as x86-64 SSE gives them: the first operand's NaN quieted, else the second's, else the
    default NaN (sign set). ``b_first`` (bool or a mask) says where the machine code puts b first.
    f16/bf16 arithmetic runs in f32, so their payloads pass through f32 and back."""
    nan = is_nan(r, dt)
    if not nan.any():  # the payload work only where NaNs are
        return r
    first, second = np.where(b_first, b, a), np.where(b_first, a, b)
    sign, exp, _ = _fields(dt)
    L = dt.lane.type
    quiet = L(1 << (dt.format.man_bits - 1))
    n1, n2 = is_nan(first, dt), is_nan(second, dt)
    out = np.where(n1, first | quiet, np.where(n2, second | quiet, L(sign | exp | int(quiet))))
    return np.where(nan, out, r)


def _element(mask: np.ndarray) -> str:
    """Where the first True of a (rows, cols) mask is, as text."""
    at = np.argwhere(np.atleast_2d(mask))[0]
    return f" at element ({int(at[0])}, {int(at[1])})"


def check_divisor(x: np.ndarray, y: np.ndarray, dt: DType, instruction: str, *, x86: bool,
                  what: str = "division") -> None:
    """Refuse the integer divisions that trap: by zero everywhere (rule ``pto.op.div_zero``), and on the CPU
    simulator (``x86``) INT_MIN / -1 of 32- and 64-bit types, where x86-64's ``idiv`` traps (SIGFPE) and C++
    leaves the result undefined (rule ``pto.op.div_overflow``, decision PTO72). Narrower types divide after
    promotion to int, so there INT_MIN / -1 is defined and wraps.

    Raises:
        SpecGapError: naming the op, the divisor and the first such element (row, col) of the valid region.
    """
    zero = y == 0
    if np.any(zero):
        raise SpecGapError(f"integer {what} by zero is undefined{_element(zero)}", instruction=instruction,
                           operand="divisor", rule="pto.op.div_zero", value=0)
    if x86 and dt.signed and dt.size >= 4:
        over = (x == dt.format.int_min) & (y == -1)
        if np.any(over):
            raise SpecGapError(f"integer {what} {dt.format.int_min} / -1{_element(over)} overflows {dt}: "
                               "undefined in C++, and x86-64's idiv traps (SIGFPE) in the CPU simulator",
                               instruction=instruction, operand="divisor", rule="pto.op.div_overflow", value=-1)


_F32_ARITH = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "sqrt": np.sqrt,
              "recip": np.reciprocal}
_F32_SELECT = {"max": np.maximum, "min": np.minimum}


def _f32_operand(lanes: np.ndarray):
    """f32 lanes as float32 numbers: a 0-d array becomes a numpy scalar, which ufuncs broadcast many times
    faster than a 0-d array."""
    v = lanes.view(np.float32)
    return v[()] if v.ndim == 0 else v


def fast_f32(op: str, a: np.ndarray, b: np.ndarray | None = None, out: np.ndarray | None = None,
             nan_mode: str = "first", x86: bool = False):
    """f32 lanes of ``a op b`` (add, sub, mul, div; max and min under the ``first`` NaN rule) or ``op(a)``
    (sqrt, recip, neg, relu under the ``first`` rule, and with ``x86`` abs as x86 computes it:
    :func:`tilesim.pto.jit.run`; exp, log, rsqrt from :func:`_transcendental`), without flushing, written into
    ``out`` if given; ``None`` when a result lane is NaN, whose payload the exact path decides, or the op is not
    covered (``out`` may then hold anything). ``out`` must not overlap ``a`` or ``b``."""
    if (op in _F32_SELECT or op == "relu") and nan_mode != "first" or op == "abs" and not x86:
        return None
    if op in transcend.KINDS:
        done = _fused(op, a, b, out)
        if done is not False:
            return done
        if op == "expdif":
            return None
    if op in _F64:  # a NaN result is never certified: look for one only where the exact path ran
        r, n = _certified(op, a.view(np.float32), out)
        return None if n and np.isnan(r.view(np.float32).max()) else r
    if out is None:
        out = np.empty(np.broadcast_shapes(np.shape(a), np.shape(b)), np.uint32)
    done = jit.run(op, a, b, out)
    if done is None:  # a layout the kernels do not take: numpy's kernel, then one pass for NaNs
        x, y, o = _f32_operand(a), None if b is None else _f32_operand(b), out.view(np.float32)
        if op in ("abs", "neg", "relu"):
            return None
        f = _F32_ARITH.get(op) or _F32_SELECT[op]
        with np.errstate(all="ignore"):
            r = f(x, out=o) if b is None else f(x, y, out=o)
        if op in _F32_SELECT and r.size and (r == 0).any():
            return None
        done = not (r.size and np.isnan(r.max()))
    return out if done else None


def fast_f32_into(op: str, a: np.ndarray, b: np.ndarray | None, out: np.ndarray, nan_mode: str = "first",
                  x86: bool = False) -> bool:
    """:func:`fast_f32` into the f32 lanes ``out`` (through a temporary where ``out`` overlaps a source, which
    the exact path may still need); False, with ``out`` unspecified, when the exact path must decide (NaN results,
    or ``op`` not covered)."""
    if op not in jit.OPS and op not in _F64 and op not in transcend.KINDS:
        return False
    if np.may_share_memory(out, a) or b is not None and np.may_share_memory(out, b):
        r = fast_f32(op, a, b, nan_mode=nan_mode, x86=x86)
        if r is None:
            return False
        out[...] = r
        return True
    return fast_f32(op, a, b, out, nan_mode, x86) is not None


_NARROW_ARITH = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "sqrt": np.sqrt,
                 "recip": lambda x, out: np.divide(np.float32(1), x, out=out)}


def fast_narrow_into(op: str, a: np.ndarray, b: np.ndarray | None, out: np.ndarray, dt: DType) -> bool:
    """f16/bf16 lanes of ``a op b`` (add, sub, mul, div) or ``op(a)`` (sqrt, recip) without flushing, into
    ``out``: the float32 result of the exactly widened operands, rounded once to nearest even by numpy's cast
    (f16) or by adding half an ulp on the bits (bf16), as :func:`binary_exact` rounds it with
    :func:`tilesim.formats.encode` (decision PTO171). False, with ``out`` unchanged, when the op is not covered
    or a result is NaN (whose payload the exact path decides)."""
    f = _NARROW_ARITH.get(op)
    if f is None or dt.name not in ("f16", "bf16"):
        return False
    x = _widened(a, dt)
    r = np.empty(np.broadcast_shapes(np.shape(a), np.shape(b)), np.float32)
    with np.errstate(all="ignore"):
        if b is None:
            f(x, out=r)
        else:
            f(x, _widened(b, dt), out=r)
    if r.size and np.isnan(r.max()):
        return False
    out[...] = round_narrow(r, dt)
    return True


def _widened(bits: np.ndarray, dt: DType) -> np.ndarray:
    """float32 values of f16/bf16 lanes (:func:`as_f32`; f16 tiles by numba's exact widening on the codes)."""
    if dt.name == "f16" and bits.size > 64 and bits.flags.c_contiguous:
        out = np.empty(bits.shape, np.uint32)
        jit.f16_widen(bits.reshape(-1), out.reshape(-1))
        return out.view(np.float32)
    return as_f32(bits, dt)


def round_narrow(r: np.ndarray, dt: DType) -> np.ndarray:
    """f16 or bf16 lanes of float32 values that are not NaN, rounded once to nearest even (as
    :func:`tilesim.formats.encode` rounds them): for f16 :func:`tilesim.pto.jit.f16_round` (numpy's cast where
    ``r`` is not contiguous); for bf16, half an ulp (less one where the kept bit is even) added to the bits, then
    the low 16 dropped. ``r`` may be overwritten."""
    if dt.name == "f16":
        out = np.empty(r.shape, np.uint16)
        if r.flags.c_contiguous:  # numba's rounding on the codes: numpy's float16 cast runs element by element
            jit.f16_round(r.reshape(-1).view(np.uint32), out.reshape(-1))
            return out
        with np.errstate(over="ignore"):  # overflow to Inf is the rounding's answer
            return r.astype(np.float16).view(np.uint16)
    u = r.view(np.uint32)
    half = (u >> np.uint32(16)) & np.uint32(1)
    half += np.uint32(0x7FFF)
    u += half
    return (u >> np.uint32(16)).astype(np.uint16)


def binary(op: str, a: np.ndarray, b: np.ndarray, dt, *, flush: bool = False, nan_mode: str = "first",
           instruction: str = "pto", x86: bool = False, b_first=False) -> np.ndarray:
    """``a op b`` lane-wise for op in add, sub, mul, div, max, min (broadcasting).

    ``x86``: NaN results carry payloads as the CPU simulator's x86-64 code gives them (:func:`x86_nans`,
    with ``b_first``); otherwise they are the canonical NaN.

    Raises:
        SpecGapError: integer division by zero, or on cpu INT_MIN / -1 (:func:`check_divisor`).
    """
    dt = get_dtype(dt)
    if dt.name == "f32" and (op in _F32_SELECT or not flush and op in _F32_ARITH):
        r = fast_f32(op, np.asarray(a, np.uint32), np.asarray(b, np.uint32), nan_mode=nan_mode)
        if r is not None:
            return r
    if dt.name == "f32" and flush and op in _F32_FLUSHED:
        a, b = np.asarray(a, np.uint32), np.asarray(b, np.uint32)
        if not (_subnormal(a, dt).any() or _subnormal(b, dt).any()):  # flushing the sources changes nothing
            r = fast_f32(op, a, b, nan_mode=nan_mode)
            if r is not None:                              # no NaN: binary_exact's lanes, its result flushed
                return flush_bits(r, dt)
    if not flush and op in _NARROW_ARITH and dt.name in ("f16", "bf16"):
        a, b = np.asarray(a, dt.lane), np.asarray(b, dt.lane)
        r = np.empty(np.broadcast_shapes(a.shape, b.shape), dt.lane)
        if fast_narrow_into(op, a, b, r, dt):
            return r
    return binary_exact(op, a, b, dt, flush=flush, nan_mode=nan_mode, instruction=instruction, x86=x86,
                        b_first=b_first)


#: f32 ops whose flushed form :func:`binary` takes from :func:`fast_f32` when no source lane is subnormal
_F32_FLUSHED = ("add", "sub", "mul", "div")


def binary_exact(op: str, a: np.ndarray, b: np.ndarray, dt, *, flush: bool = False, nan_mode: str = "first",
                 instruction: str = "pto", x86: bool = False, b_first=False) -> np.ndarray:
    """:func:`binary` without its f32 fast path: the reference it is tested against."""
    dt = get_dtype(dt)
    a, b = np.broadcast_arrays(np.asarray(a, dt.lane), np.asarray(b, dt.lane))
    if op == "max":
        return select_max(a, b, dt, nan_mode)
    if op == "min":
        return select_min(a, b, dt, nan_mode)
    if dt.is_float:
        x, y = _f32_in(a, dt, flush), _f32_in(b, dt, flush)
        with np.errstate(all="ignore"):
            r = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](x, y)
        out = from_f32(r, dt, flush=flush)
        return x86_nans(out, a, b, dt, b_first) if x86 else out
    x, y = int_view(a, dt), int_view(b, dt)
    with np.errstate(all="ignore"):
        if op == "add":
            r = x + y
        elif op == "sub":
            r = x - y
        elif op == "mul":
            r = x * y
        elif op == "div":
            check_divisor(x, y, dt, instruction, x86=x86)
            r = x // y  # numpy floors; C truncates toward zero: one up where the signs differ and it is inexact
            if dt.signed:
                r = r + ((r * y != x) & ((x < 0) != (y < 0)))
        else:
            raise ValueError(op)
    return np.asarray(r).astype(dt.np).view(dt.lane) if dt.name != "u64" else r.view(np.uint64)


def unary(op: str, a: np.ndarray, dt, *, flush: bool = False, nan_mode: str = "first",
          instruction: str = "pto", x86: bool = False) -> np.ndarray:
    """Lane-wise exp, log, sqrt, rsqrt, recip, abs, neg, relu.

    abs and neg are sign-bit operations on floats (payloads kept); relu is
    ``max(x, +0)`` under the NaN rule. ``x86``: as the CPU simulator's x86-64
    code does it: abs is ``x < 0 ? -x : x`` (-0 and NaN kept as they are), f16
    exp is f32 ``expf`` rounded to f16 (two roundings), and NaN results are the
    input NaN quieted, or else the default NaN (PTO92).
    """
    dt = get_dtype(dt)
    a = np.asarray(a, dt.lane)
    if dt.name == "f32" and not flush and (op in _F32_ARITH or op in _F64):
        r = fast_f32(op, a)
        if r is not None:
            return r
    if not flush and op in ("sqrt", "recip") and dt.name in ("f16", "bf16"):
        r = np.empty(a.shape, dt.lane)
        if fast_narrow_into(op, a, None, r, dt):
            return r
    return unary_exact(op, a, dt, flush=flush, nan_mode=nan_mode, instruction=instruction, x86=x86)


def unary_exact(op: str, a: np.ndarray, dt, *, flush: bool = False, nan_mode: str = "first",
                instruction: str = "pto", x86: bool = False) -> np.ndarray:
    """:func:`unary` without its f32 fast path (the reference it is tested against)."""
    dt = get_dtype(dt)
    a = np.asarray(a, dt.lane)
    if x86 and dt.is_float:
        if op == "abs":
            return blend(as_key(a, dt) < 0, unary("neg", a, dt), a)
        if op == "neg" and dt.name == "bf16":  # g++ negates bf16 in f32: a NaN comes back quieted (PTO78)
            r = unary("neg", a, dt)
            return x86_nans(r, r, r, dt)
        if op == "exp" and dt.name == "f16":  # expf, then rounded to half: two roundings
            f32 = get_dtype("f32")
            r = unary("exp", as_f32(a, dt).view(np.uint32), f32).view(np.float32)
            return x86_nans(from_f32(r, dt, flush=flush), a, a, dt)
        if op not in ("neg", "relu"):
            return x86_nans(unary(op, a, dt, flush=flush, nan_mode=nan_mode, instruction=instruction), a, a, dt)
    if op == "relu":
        return select_max(a, np.zeros_like(a), dt, nan_mode)
    if dt.is_int:
        x = int_view(a, dt)
        if op == "abs":
            r = np.abs(x)
        elif op == "neg":
            r = -x
        else:
            raise ValueError(op)
        return r.astype(dt.np).view(dt.lane) if dt.name != "u64" else r.view(np.uint64)
    sign = dt.lane.type(1 << (dt.bits - 1))
    if op == "abs":
        return a & dt.lane.type(~int(sign) & dt.format.lane_mask)
    if op == "neg":
        return a ^ sign
    if op in ("sqrt", "recip"):
        x = _f32_in(a, dt, flush)
        with np.errstate(all="ignore"):
            r = np.sqrt(x) if op == "sqrt" else np.float32(1) / x
        return from_f32(r, dt, flush=flush)
    with np.errstate(invalid="ignore"):
        x = _f32_in(a, dt, flush).astype(np.float64)
    return _transcendental(op, x, dt, flush)
