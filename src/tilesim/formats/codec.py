"""Decode codes to values and encode (round) values to codes, vectorised.

Codes are unsigned integers of the format's lane width. Decoding gives float64
(exact for every format of 53 significant bits or fewer) or exact
:class:`Parts`. Encoding takes float64, numpy integers (exact) or Parts, rounds
once with the chosen mode and applies the format's overflow policy. The policy
decisions are written in ``docs/decisions.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from ..errors import FormatError
from . import hif8, tables
from .checks import codes_array, flag, values_array
from .format import Domain, Format, Kind
from .registry import get
from .rounding import FINITE, INF, NAN, U64, Parts, Rounding, bit_length, round_at, shr

__all__ = ["Flags", "decode", "decode_exact", "decode_int", "encode", "quantize", "to_parts", "canonical"]

_CHUNK = 1 << 16  # elements per block: keeps temporaries in cache


@dataclass(frozen=True)
class Flags:
    """Per-element exception flags of an encode (bool arrays of the input's shape).

    inexact:   the result differs from the exact input.
    overflow:  the input's rounded magnitude exceeds the format's largest finite value.
    underflow: the result is tiny (below the smallest normal after rounding) and inexact.
    invalid:   the input has no meaning in the format (NaN into a format without NaN,
               Inf into one without Inf, a negative into an unsigned float, 0 into E8M0).
    saturated: the result was clamped to the largest (or smallest) finite value.
    """

    inexact: np.ndarray
    overflow: np.ndarray
    underflow: np.ndarray
    invalid: np.ndarray
    saturated: np.ndarray

    NAMES = ("inexact", "overflow", "underflow", "invalid", "saturated")

    def any(self) -> dict[str, bool]:
        """Each flag OR-ed over all elements."""
        return {n: bool(np.any(getattr(self, n))) for n in self.NAMES}

    def bits(self) -> np.ndarray:
        """The flags packed per element: bit i is ``NAMES[i]``."""
        out = np.zeros(self.inexact.shape, np.uint8)
        for i, n in enumerate(self.NAMES):
            out |= getattr(self, n).astype(np.uint8) << i
        return out

    @classmethod
    def from_bits(cls, bits: np.ndarray) -> "Flags":
        return cls(*(((bits >> i) & 1).astype(bool) for i in range(len(cls.NAMES))))

    def names_at(self, index) -> list[str]:
        return [n for n in self.NAMES if bool(getattr(self, n)[index])]


# ----------------------------------------------------------------- decoding
def _as_codes(codes, fmt: Format, fn: str = "formats.decode") -> np.ndarray:
    """Codes as uint64, checked to be canonical lane codes of ``fmt`` (errors blame ``fn``)."""
    a = codes_array(codes, fn)
    lo = 0
    if a.dtype.kind == "i":
        if a.dtype.itemsize * 8 == fmt.lane_bits:
            a = a.view(np.dtype(f"u{a.dtype.itemsize}"))  # a signed view of the lane's bits
            lo = None
        elif a.size and a.min() < 0:
            lo = int(a.min())
    if lo is not None and lo < 0:
        raise FormatError(f"negative code {lo} for {fmt.name}; {_valid_codes(fmt)}", instruction=fn,
                          operand="codes", rule="formats.codes", value=lo)
    a = a.astype(U64, copy=False)
    bad = canonical(a, fmt) != a
    if np.any(bad):
        at = [int(i) for i in np.argwhere(bad)[0]] if a.ndim else []
        first = int(a[bad].flat[0])
        why = ("the padding bits must be the canonical fill" if first <= fmt.lane_mask else _valid_codes(fmt))
        raise FormatError(f"{first} ({first:#x}) at {at} is not a {fmt.lane_bits}-bit lane code of {fmt.name}; {why}",
                          instruction=fn, operand="codes", rule="formats.codes", value=first)
    return a


def _valid_codes(fmt: Format) -> str:
    """What codes of ``fmt`` look like, and how values become codes."""
    hint = f"codes are 0x0..{fmt.lane_mask:#x}"
    if fmt.is_integer and not fmt.frac_bits:
        hint += f" (the values {fmt.int_min}..{fmt.int_max} become codes through formats.encode)"
    else:
        hint += " (values become codes through formats.encode)"
    return hint


def canonical(lanes: np.ndarray, fmt: Format) -> np.ndarray:
    """The canonical lane code of each raw lane: keep the ``bits`` code bits, fill the rest.

    Signed integers narrower than their lane are sign-extended (INT12 in 16
    bits); everything else has zero padding (TF32's low 13 bits, FP6's top 2).
    """
    fmt = get(fmt)
    a = codes_array(lanes, "formats.canonical", "lanes").astype(U64, copy=False)
    if fmt.is_integer and fmt.signed and fmt.bits < fmt.lane_bits:
        field_ = a & U64(fmt.code_mask)
        neg = (field_ >> U64(fmt.bits - 1)) & U64(1)
        ext = U64(fmt.lane_mask ^ fmt.code_mask)
        return np.where(neg == 1, field_ | ext, field_)
    return a & U64(fmt.code_mask << fmt.lane_shift)


def _float_parts(c: np.ndarray, fmt: Format) -> Parts:
    """Exact Parts of canonical float lane codes (uint64)."""
    if fmt.domain is Domain.TAPERED:
        i = c.astype(np.intp)
        return Parts(*(a[i] for a in hif8.parts_table()))
    c = c >> U64(fmt.lane_shift) if fmt.lane_shift else c
    m = fmt.man_bits
    mag = c & U64(fmt.mag_mask)
    e = (mag >> U64(m)).astype(np.int64)
    man = mag & U64((1 << m) - 1)
    sign = ((c >> U64(fmt.sign_bit)) & U64(1)) == 1 if fmt.signed else np.zeros(c.shape, bool)
    if fmt.domain is Domain.SCALE:
        sig, exp = np.ones(c.shape, U64), e - fmt.bias
    else:
        sig = np.where(e == 0, man, man | U64(1 << m))
        exp = np.maximum(e, 1) - fmt.bias - m
    if fmt.domain is Domain.IEEE:
        cls = np.where(e == fmt.exp_max_field, np.where(man == 0, INF, NAN), FINITE)
    elif fmt.domain in (Domain.FN, Domain.SCALE):
        cls = np.where(mag == U64(fmt.mag_mask), NAN, FINITE)
    else:
        cls = np.full(c.shape, FINITE)
    return Parts(sign, sig, exp, np.zeros(c.shape, bool), cls.astype(np.int8))


def decode_int(codes, fmt) -> np.ndarray:
    """The integer a code of an integer or fixed-point format holds, exactly.

    The value is ``result * 2**-frac_bits``. Returns int64, or uint64 for
    unsigned 64-bit formats.

    >>> decode_int([0xFF, 0x80], "int8").tolist()
    [-1, -128]
    """
    fmt = get(fmt)
    if not fmt.is_integer:
        raise FormatError(f"{fmt.name} is not an integer or fixed-point format; use formats.decode",
                          instruction="formats.decode_int", operand="fmt", rule="formats.integer", value=fmt.name)
    c = _as_codes(codes, fmt, "formats.decode_int") & U64(fmt.code_mask)
    if not fmt.signed:
        return c if fmt.bits == 64 else c.astype(np.int64)
    if fmt.bits == 64:
        return c.view(np.int64)
    neg = (c >> U64(fmt.bits - 1)) == 1
    return c.astype(np.int64) - np.where(neg, np.int64(1) << fmt.bits, 0)


def _decode_any(c: np.ndarray, fmt: Format) -> np.ndarray:
    if fmt.is_integer:
        return np.ldexp(decode_int(c, fmt).astype(np.float64), -fmt.frac_bits)
    p = _float_parts(c, fmt)
    val = np.ldexp(p.sig.astype(np.float64), p.exp)  # exact: significands have at most 53 bits
    val = np.where(p.cls == INF, np.inf, np.where(p.cls == NAN, np.nan, val))
    return np.where(p.sign, -val, val)


def decode(codes, fmt) -> np.ndarray:
    """The value of every code, as float64 (NaN and ±Inf where the format has them).

    Exact for every format except int64, uint64 and q32_32 beyond 2**53, which
    float64 cannot hold: use :func:`decode_int` or :func:`decode_exact` there.

    >>> decode([0x7E, 0x38, 0x80], "fp8_e4m3").tolist()
    [448.0, 1.0, -0.0]

    Raises:
        FormatError: a code that is not a canonical lane code of the format.
    """
    fmt = get(fmt)
    a = codes_array(codes, "formats.decode")
    if fmt.lane_bits <= 16 and a.dtype.kind in "ui" and a.dtype.itemsize == fmt.dtype.itemsize:
        idx = a.view(fmt.dtype)  # the lane's own dtype: index the table directly
        ok = tables.valid_table(fmt)
        if ok is None or ok[idx].all():
            return tables.decode_table(fmt)[idx]
    c = _as_codes(a, fmt)
    if fmt.lane_bits <= 16:
        return tables.decode_table(fmt)[c.astype(np.intp)]
    if fmt.name == "fp64":
        return c.view(np.float64).copy()
    if fmt.name == "fp32":
        with np.errstate(invalid="ignore"):  # signalling NaNs stay NaN
            return c.astype(np.uint32).view(np.float32).astype(np.float64)
    return _decode_any(c, fmt)


def decode_exact(codes, fmt) -> Parts:
    """Every code as exact :class:`Parts` (for any format, int64 and q32_32 included)."""
    fmt = get(fmt)
    c = _as_codes(codes, fmt, "formats.decode_exact")
    if fmt.is_integer:
        return _int_parts(decode_int(c, fmt), -fmt.frac_bits)
    return _float_parts(c, fmt)


def _int_parts(v: np.ndarray, exp: int) -> Parts:
    """Exact Parts of int64 or uint64 integers times ``2**exp``."""
    if v.dtype.kind == "u":
        return Parts.finite(np.zeros(v.shape, bool), v, exp)
    neg = v < 0
    u = np.atleast_1d(v.astype(U64))  # two's complement bits; the magnitude of a negative is its negation
    mag = np.where(np.atleast_1d(neg), ~u + U64(1), u).reshape(v.shape)  # arrays wrap silently, scalars warn
    return Parts.finite(neg, mag, exp)


# ----------------------------------------------------------------- encoding
def to_parts(values) -> Parts:
    """Exact Parts of float (16/32/64-bit IEEE) or integer numpy input.

    Other floating dtypes (ml_dtypes types, longdouble) are first converted to
    float64, which must hold them exactly.
    """
    if isinstance(values, Parts):
        return values
    a = values_array(values, "formats.to_parts")
    if a.dtype.kind in "iub":
        return _int_parts(a.astype(np.int64) if a.dtype.kind in "ib" else a.astype(U64), 0)
    nbits = a.dtype.itemsize * 8
    e_bits, m_bits = {16: (5, 10), 32: (8, 23), 64: (11, 52)}[nbits]
    bits = a.view(np.dtype(f"u{nbits // 8}")).astype(U64)
    sign = (bits >> U64(nbits - 1)) == 1
    ef = ((bits >> U64(m_bits)) & U64((1 << e_bits) - 1)).astype(np.int64)
    man = bits & U64((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1
    top = ef == (1 << e_bits) - 1
    sig = np.where(ef == 0, man, man | U64(1 << m_bits))
    exp = np.maximum(ef, 1) - bias - m_bits
    cls = np.where(top, np.where(man == 0, INF, NAN), FINITE).astype(np.int8)
    return Parts(sign, sig, exp, np.zeros(a.shape, bool), cls)


def _overflow_to_max(fmt: Format, mode: Rounding, sign: np.ndarray, saturate: bool):
    """Where an overflow gives ±max rather than the format's Inf (or NaN).

    IEEE 754 §7.4: toward zero, and toward the infinity of the other sign,
    overflow to the largest finite value. Saturation and formats with neither
    Inf nor NaN always give ±max.
    """
    if saturate or fmt.domain is Domain.FINITE or mode is Rounding.RTZ:
        return np.ones(sign.shape, bool)
    if mode is Rounding.RUP:
        return sign
    if mode is Rounding.RDN:
        return ~sign
    return np.zeros(sign.shape, bool)


def _encode_float(p: Parts, fmt: Format, mode: Rounding, saturate: bool, flush: bool, want_flags: bool):
    if fmt.domain is Domain.TAPERED:
        code, (inexact, over, tiny, clamped) = hif8.encode_parts(p, mode, saturate, flush,
                                                                 _overflow_to_max(fmt, mode, p.sign, saturate))
        zeros = np.zeros(code.shape, bool)
        return code, (Flags(inexact | over, over, tiny, zeros, clamped) if want_flags else None)
    m, scale = fmt.man_bits, fmt.domain is Domain.SCALE
    sign, fin = p.sign, p.cls == FINITE
    nz = fin & ((p.sig != 0) | p.sticky)
    E = np.where(nz, p.exp + bit_length(p.sig) - 1, fmt.emin)
    big = nz & (E > fmt.emax + 1)
    if np.any(big):  # a stand-in just above max keeps every shift in range
        E = np.where(big, fmt.emax + 2, E)
        p = Parts(sign, np.where(big, U64(1), p.sig), np.where(big, E, p.exp), p.sticky & ~big, p.cls)
    Eeff = np.maximum(E, fmt.emin)
    base = (Eeff - fmt.emin).astype(U64) << U64(m)
    if scale:
        # E8M0: code = biased exponent; RNE ties go to the even code (as gfloat does)
        kept, inexact = round_at(p, Eeff, mode, parity=(base + U64(1)) & U64(1))
        code = (base + kept).astype(np.int64) - 1
        tiny = nz & (E < fmt.emin)  # below 2**-127: no zero, the smallest value stands in
        code = np.maximum(code, 0).astype(U64)
    else:
        kept, inexact = round_at(p, Eeff - m, mode)
        code = base + kept
    inexact = inexact & nz
    over = nz & (code > U64(fmt.max_code))
    to_max = _overflow_to_max(fmt, mode, sign, saturate)
    ovf = (fmt.inf_code if fmt.has_inf else fmt.nan_code or 0) >> fmt.lane_shift  # FINITE: to_max everywhere
    code = np.where(over, np.where(to_max, U64(fmt.max_code), U64(ovf)), code)
    clamped = over & to_max & (saturate or fmt.domain is Domain.FINITE)

    if not scale:
        tiny = None
    if not scale and (want_flags or flush):
        sub = nz & (code < U64(1 << m))  # subnormal or rounded to zero
        # IEEE tininess after rounding: with an unbounded exponent, would it reach 2**emin?
        ku, _ = round_at(p, E - m, mode)
        tiny = nz & (E < fmt.emin) & ~((E == fmt.emin - 1) & (ku >= U64(2 << m)))
        if flush:
            flushed = sub & (code != 0)
            code = np.where(flushed, U64(0), code)
            inexact = inexact | flushed

    # special inputs
    invalid = np.zeros(sign.shape, bool)
    is_nan, is_inf = p.cls == NAN, p.cls == INF
    nan_c = U64((fmt.nan_code or 0) >> fmt.lane_shift)
    if fmt.has_nan:
        code = np.where(is_nan, nan_c, code)
    else:  # NaN into a format without NaN: +max, invalid
        code = np.where(is_nan, U64(fmt.max_code), code)
        invalid |= is_nan
    if fmt.has_inf and not saturate:
        code = np.where(is_inf, U64(fmt.inf_code >> fmt.lane_shift), code)
    else:  # Inf: ±max when saturating or without NaN, else NaN; invalid unless saturating
        inf_to_max = saturate or not fmt.has_nan
        code = np.where(is_inf, U64(fmt.max_code) if inf_to_max else nan_c, code)
        if not saturate:
            invalid |= is_inf
        if inf_to_max:
            clamped = clamped | is_inf

    if fmt.signed:
        # every NaN result is the canonical (+) NaN; NaN into a NaN-less format is +max
        positive = is_nan | (code == nan_c) if fmt.has_nan else is_nan
        code = np.where(sign & ~positive, code | U64(1 << fmt.sign_bit), code)
    else:
        bad = sign & (is_inf | (nz & (code != 0)))  # negatives that do not round to zero
        if scale:
            bad = bad | (fin & ~nz) | (sign & nz)  # E8M0: zero and negatives are NaN
        if saturate and not scale:
            code = np.where(bad, U64(0), code)
            clamped = clamped | bad
            inexact = inexact | (bad & nz)
            tiny = tiny & ~bad if tiny is not None else None  # a clamp, not an underflow
        else:
            code = np.where(bad, nan_c if fmt.has_nan else U64(0), code)
            invalid |= bad
            clamped = clamped & ~bad
            inexact = inexact & ~bad
    if fmt.lane_shift:
        code = code << U64(fmt.lane_shift)
    code = code.astype(fmt.dtype)
    if not want_flags:
        return code, None
    overflow = over & ~invalid
    return code, Flags(inexact | overflow, overflow, tiny & inexact, invalid, clamped)


def _encode_int(p: Parts, fmt: Format, mode: Rounding, saturate: bool, want_flags: bool):
    q = -fmt.frac_bits
    sign, fin = p.sign, p.cls == FINITE
    nz = fin & ((p.sig != 0) | p.sticky)
    E = np.where(nz, p.exp + bit_length(p.sig) - 1, q)
    big = nz & (E - q >= 64)
    pr = p
    if np.any(big):
        pr = Parts(sign, np.where(big, U64(0), p.sig), np.where(big, q, p.exp), p.sticky & ~big, p.cls)
    mag, inexact = round_at(pr, np.full(sign.shape, q, np.int64), mode)
    carry = nz & ~big & (mag == 0) & (E - q >= 63)  # rounded up past 2**64
    big = big | carry
    lo_mag = U64(-fmt.int_min)
    hi = U64(fmt.int_max)
    neg = sign & ((mag != 0) | big)
    in_range = ~big & np.where(neg, mag <= lo_mag, mag <= hi)
    # wrap: two's complement of the (possibly huge) integer, modulo 2**64 then the width
    if np.any(big):
        sh = p.exp - q
        wrapped = np.where(sh >= 64, U64(0), p.sig << np.clip(sh, 0, 63).astype(U64))
        wrapped = np.where(carry, U64(0), wrapped)
        mag = np.where(big, wrapped, mag)
    val = np.where(neg, (~mag) + U64(1), mag)
    out_of_range = fin & ~in_range
    if saturate:
        clamp = np.where(neg, U64(fmt.int_min & fmt.lane_mask), hi)
        val = np.where(out_of_range, clamp, val)
    is_nan, is_inf = p.cls == NAN, p.cls == INF
    val = np.where(is_nan, hi, val)
    val = np.where(is_inf, np.where(sign, U64(fmt.int_min & fmt.lane_mask), hi), val)
    code = canonical(val & U64(fmt.code_mask), fmt)
    if not want_flags:
        return code.astype(fmt.dtype), None
    invalid = is_nan | is_inf
    overflow = out_of_range
    saturated = (out_of_range & np.bool_(saturate)) | is_inf
    return code.astype(fmt.dtype), Flags(inexact & nz | overflow, overflow, np.zeros(sign.shape, bool),
                                         invalid, saturated)


def _encode_parts(p: Parts, fmt: Format, mode: Rounding, saturate: bool, flush: bool, want_flags: bool):
    if fmt.kind is Kind.FLOAT:
        return _encode_float(p, fmt, mode, saturate, flush, want_flags)
    return _encode_int(p, fmt, mode, saturate, want_flags)


def encode(values, fmt, rounding="rne", saturate=False, flush_subnormals=False, return_flags=False):
    """Round values to the nearest codes of ``fmt`` (one rounding, any shape).

    Args:
        values: float64/float32/float16 arrays (exact values), numpy integer
            arrays (exact integers, for int64 and fixed point), or :class:`Parts`.
        fmt: a format name, alias, AME code or :class:`Format`.
        rounding: ``rne``, ``rtz``, ``rup`` (toward +inf), ``rdn`` (toward -inf), ``rmm``.
        saturate: clamp out-of-range values (and ±Inf) to ±max instead of the
            format's overflow result (Inf, NaN, or wrap for integers).
        flush_subnormals: results that would be subnormal become zero.
        return_flags: also return :class:`Flags`.

    Returns:
        Codes as unsigned integers of the lane width; with ``return_flags``,
        ``(codes, flags)``.

    >>> encode([0.1, 300.0, 1000.0], "fp8_e4m3", rounding="rtz").tolist()
    [28, 121, 126]

    Raises:
        FormatError: unknown format or rounding mode, flags that are not booleans, or values that
            are not numbers (strings, complex, objects) or do not convert exactly.
    """
    fmt = get(fmt)
    mode = Rounding.of(rounding)
    opts = (fmt, mode, flag(saturate, "saturate", "formats.encode"),
            flag(flush_subnormals, "flush_subnormals", "formats.encode"))
    return_flags = flag(return_flags, "return_flags", "formats.encode")
    if isinstance(values, Parts):
        codes, flags = _encode_parts(values, *opts, return_flags)
        return (codes, flags) if return_flags else codes
    a = values_array(values, "formats.encode")
    flat = np.ascontiguousarray(a).reshape(-1)
    if tables.via_float32(flat.dtype, fmt):
        flat = tables.round_to_odd_float32(flat)
    out = np.empty(flat.shape, fmt.dtype)
    bits = np.empty(flat.shape, np.uint8) if return_flags else None
    if not (return_flags or saturate or flush_subnormals) and tables.truncates(flat.dtype, fmt):
        tables.encode_by_carry(flat, fmt, mode, out)
    elif tables.has_encode_table(flat.dtype, fmt):
        codes_t, bits_t = tables.encode_table(flat.dtype, *opts)
        tables.encode_with_table(flat, fmt, codes_t, out)
        if bits is not None:
            tables.encode_with_table(flat, fmt, bits_t, bits)
    else:
        for s in range(0, flat.size, _CHUNK):
            c, f = _encode_parts(to_parts(flat[s:s + _CHUNK]), *opts, return_flags)
            out[s:s + _CHUNK] = c
            if bits is not None:
                bits[s:s + _CHUNK] = f.bits()
    out = out.reshape(a.shape)
    if not return_flags:
        return out
    return out, Flags.from_bits(bits.reshape(a.shape))


def quantize(values, fmt, rounding="rne", saturate=False, flush_subnormals=False):
    """``decode(encode(values, ...))``: the values as the format holds them, as float64."""
    return decode(encode(values, fmt, rounding, saturate, flush_subnormals), fmt)
