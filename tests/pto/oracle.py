"""A slow, scalar reference for the PTO ops, written from pto-isa's per-op pages (docs/isa/) alone.

Nothing here imports the code under test or tilesim.formats: values are
decoded from bits by hand (struct for f32, field arithmetic for f16/bf16),
arithmetic is exact (fractions.Fraction, decimal for exp/ln/sqrt) and every
result is rounded by :func:`round_bits`, a scalar IEEE rounding written for
this file. Each op is a Python loop over elements following the spec's
pseudo-code (sequential sums, strict-compare scans, the A2A3 scan).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal, localcontext
from fractions import Fraction

# (exponent bits, mantissa bits) of the float dtypes; integer dtypes: (bits, signed)
FLOATS = {"f32": (8, 23), "f16": (5, 10), "bf16": (8, 7)}
INTS = {"i8": (8, True), "i16": (16, True), "i32": (32, True), "i64": (64, True),
        "u8": (8, False), "u16": (16, False), "u32": (32, False), "u64": (64, False)}
BITS = {**{k: 1 + e + m for k, (e, m) in FLOATS.items()}, **{k: b for k, (b, _) in INTS.items()}}


# --------------------------------------------------------------- decoding
def dec(bits: int, dt: str):
    """The value of a lane: a Python float for floats (exact: at most 24 significant bits), int for ints."""
    if dt in INTS:
        n, signed = INTS[dt]
        return bits - (1 << n) if signed and bits >> (n - 1) else bits
    if dt == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    e_bits, m_bits = FLOATS[dt]
    sign = -1.0 if bits >> (e_bits + m_bits) else 1.0
    e = (bits >> m_bits) & ((1 << e_bits) - 1)
    m = bits & ((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1
    if e == (1 << e_bits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - m_bits)
    return sign * math.ldexp(m | (1 << m_bits), e - bias - m_bits)


def is_nan_bits(bits: int, dt: str) -> bool:
    return dt in FLOATS and math.isnan(dec(bits, dt))


def canon_nan(dt: str) -> int:
    e, m = FLOATS[dt]
    return (((1 << e) - 1) << m) | (1 << (m - 1))


def sign_bit(dt: str) -> int:
    return 1 << (BITS[dt] - 1)


# --------------------------------------------------------------- rounding
def round_bits(x, dt: str, mode: str = "rne") -> int:
    """Bits of the float ``dt`` nearest to ``x`` (Fraction, int or float incl. inf/nan) by ``mode``.

    mode: rne, rmm (ties away), rtz, rup, rdn, odd (round to odd: truncate, set the last bit if inexact).
    ``x`` may be ("zero", negative) for a signed zero.
    """
    e_bits, m_bits = FLOATS[dt]
    bias = (1 << (e_bits - 1)) - 1
    sbit = 1 << (e_bits + m_bits)
    inf = ((1 << e_bits) - 1) << m_bits
    if isinstance(x, tuple):
        return sbit if x[1] else 0
    if isinstance(x, float):
        if math.isnan(x):
            return canon_nan(dt)
        if math.isinf(x):
            return inf | (sbit if x < 0 else 0)
        if x == 0:
            return sbit if math.copysign(1, x) < 0 else 0
        x = Fraction(x)
    x = Fraction(x)
    if x == 0:
        return 0
    neg = x < 0
    a = -x if neg else x
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    emin = 1 - bias
    e = max(e, emin)
    q = Fraction(2) ** (e - m_bits)
    n, rem = divmod(a, q)
    n = int(n)
    frac = rem / q
    up = False
    if mode == "rne":
        up = frac > Fraction(1, 2) or (frac == Fraction(1, 2) and n % 2 == 1)
    elif mode == "rmm":
        up = frac >= Fraction(1, 2)
    elif mode == "rup":
        up = frac > 0 and not neg
    elif mode == "rdn":
        up = frac > 0 and neg
    elif mode == "odd":
        if frac > 0:
            n |= 1
    n += int(up)
    if n >> (m_bits + 1):  # carried into the next binade
        n >>= 1
        e += 1
    emax = bias
    max_bits = inf - 1
    if e > emax:
        to_max = mode in ("rtz", "odd") or (mode == "rup" and neg) or (mode == "rdn" and not neg)
        return (max_bits if to_max else inf) | (sbit if neg else 0)
    if n < (1 << m_bits):  # subnormal (or zero)
        code = n
    else:
        code = ((e + bias) << m_bits) | (n - (1 << m_bits))
    return code | (sbit if neg else 0)


def flush(bits: int, dt: str) -> int:
    """Subnormal -> zero of the same sign (NPU denormal flushing)."""
    e_bits, m_bits = FLOATS[dt]
    if (bits >> m_bits) & ((1 << e_bits) - 1) == 0:
        return bits & sign_bit(dt)
    return bits


def int_bits(v: int, dt: str) -> int:
    return v % (1 << INTS[dt][0])


# -------------------------------------------------------------- arithmetic
def _exact(bits: int, dt: str, daz: bool):
    if daz:
        bits = flush(bits, dt)
    return dec(bits, dt)


def _finish(result, dt: str, ftz: bool, mode: str = "rne") -> int:
    b = round_bits(result, dt, mode)
    return flush(b, dt) if ftz else b


def f_add(a: float, b: float, sub: bool = False):
    """Exact a + b (or a - b) as a Fraction, or a special float, or a signed zero tuple."""
    if sub:
        b = -b
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return a + b
    s = Fraction(a) + Fraction(b)
    if s == 0:
        both_neg = math.copysign(1, a) < 0 and math.copysign(1, b) < 0
        return ("zero", both_neg)
    return s


def f_mul(a: float, b: float):
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return a * b
    p = Fraction(a) * Fraction(b)
    if p == 0:
        return ("zero", (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0))
    return p


def f_div(a: float, b: float):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    neg = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
    if b == 0:
        return math.nan if a == 0 else (-math.inf if neg else math.inf)
    if math.isinf(a):
        return math.nan if math.isinf(b) else (-math.inf if neg else math.inf)
    if math.isinf(b) or a == 0:
        return ("zero", neg)
    return Fraction(a) / Fraction(b)


def binary(op: str, x: int, y: int, dt: str, ftz: bool = False, nan_mode: str = "first") -> int:
    """One lane of a binary op on bits (floats correctly rounded, integers wrap)."""
    if op == "max":
        return max_sel(x, y, dt, nan_mode)
    if op == "min":
        return min_sel(x, y, dt, nan_mode)
    if dt in INTS:
        a, b = dec(x, dt), dec(y, dt)
        if op == "add":
            r = a + b
        elif op == "sub":
            r = a - b
        elif op == "mul":
            r = a * b
        else:
            r = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return int_bits(r, dt)
    a, b = _exact(x, dt, ftz), _exact(y, dt, ftz)
    r = {"add": lambda: f_add(a, b), "sub": lambda: f_add(a, b, True), "mul": lambda: f_mul(a, b),
         "div": lambda: f_div(a, b)}[op]()
    return _finish(r, dt, ftz)


def _lt(a, b) -> bool:
    return a < b  # IEEE: False whenever a NaN is involved


def _nan_sel(x: int, y: int, dt: str, nan_mode: str, neg_zero_wins: bool):
    """The NaN and signed-zero rules TMAX and TMIN share; ``None`` where the plain compare decides."""
    a, b = dec(x, dt), dec(y, dt)
    if dt in FLOATS and nan_mode == "propagate":
        if math.isnan(a):
            return x
        if math.isnan(b):
            return y
    if dt in FLOATS and nan_mode == "spec":
        if math.isnan(a) and math.isnan(b):
            return canon_nan(dt)
        if math.isnan(a):
            return y
        if math.isnan(b):
            return x
        if a == 0 and b == 0:
            return x if bool(x & sign_bit(dt)) == neg_zero_wins else y
    return None


def max_sel(x: int, y: int, dt: str, nan_mode: str) -> int:
    """TMAX(a, b) per NaN rule: first ``a < b ? b : a``; propagate: NaN wins (a's first); spec: maxNum."""
    r = _nan_sel(x, y, dt, nan_mode, neg_zero_wins=False)
    return r if r is not None else (y if _lt(dec(x, dt), dec(y, dt)) else x)


def min_sel(x: int, y: int, dt: str, nan_mode: str) -> int:
    """TMIN(a, b): first ``b < a ? b : a``; as max_sel otherwise (spec: min(-0, +0) = -0)."""
    r = _nan_sel(x, y, dt, nan_mode, neg_zero_wins=True)
    return r if r is not None else (y if _lt(dec(y, dt), dec(x, dt)) else x)


def _dec_fn(name: str, a: float):
    """Exact-enough (60 digits) exp/ln/sqrt/rsqrt as a Fraction, with IEEE special cases."""
    if math.isnan(a):
        return math.nan
    if name == "exp":
        if math.isinf(a):
            return math.inf if a > 0 else ("zero", False)
        if a > 200:
            return math.inf
        if a < -200:
            return ("zero", False)
        f = lambda d: d.exp()
    elif name == "log":
        if a < 0:
            return math.nan
        if a == 0:
            return -math.inf
        if math.isinf(a):
            return math.inf
        if a == 1:
            return ("zero", False)
        f = lambda d: d.ln()
    elif name == "sqrt":
        if a < 0:
            return math.nan
        if a == 0 or math.isinf(a):
            return a if a != 0 else ("zero", math.copysign(1, a) < 0)
        f = lambda d: d.sqrt()
    else:  # rsqrt
        if a < 0:
            return math.nan
        if a == 0:
            return math.copysign(math.inf, a)
        if math.isinf(a):
            return ("zero", False)
        f = lambda d: 1 / d.sqrt()
    with localcontext() as ctx:
        ctx.prec = 60
        return Fraction(f(Decimal(a)))


def unary(op: str, x: int, dt: str, ftz: bool = False, nan_mode: str = "first", x86: bool = False) -> int:
    """``x86``: the CPU simulator's code: abs is ``x < 0 ? -x : x``; f16 exp is f32 expf, rounded again."""
    if op == "relu":
        return max_sel(x, 0, dt, nan_mode)
    if dt in INTS and op == "log":  # cpu: static_cast<T>(log(double(x))); ln 0, ln x<0 through x86's cvttsd2si
        a = dec(x, dt)
        if a >= 1:
            return int_bits(math.floor(math.log(a)), dt)
        return int_bits(-(2 ** 31) if dt != "u32" else 0, dt)  # u32 casts through int64: INT64_MIN's low word
    if dt in INTS and op == "recip":  # cpu: the C++ integer 1 / x (truncating)
        a = dec(x, dt)
        return int_bits(int(Fraction(1, a)), dt)
    if dt in INTS:
        a = dec(x, dt)
        return int_bits(abs(a) if op == "abs" else -a, dt)
    if op == "abs" and x86:
        return x ^ sign_bit(dt) if dec(x, dt) < 0 else x
    if op == "abs":
        return x & ~sign_bit(dt)
    if op == "exp" and x86 and dt == "f16":
        return round_bits(dec(unary("exp", round_bits(dec(x, dt), "f32"), "f32"), "f32"), "f16")
    if op == "neg":
        return x ^ sign_bit(dt)
    a = _exact(x, dt, ftz)
    if op == "recip":
        return _finish(f_div(1.0, a), dt, ftz)
    return _finish(_dec_fn(op, a), dt, ftz)


# ---------------------------------------------------------------- reductions
def widen(bits: int, src: str, dst: str) -> int:
    """An exact widening (CPU mixed-dtype reduces): float -> float, int -> int or int -> float."""
    if src == dst:
        return bits
    if dst in INTS:
        return int_bits(dec(bits, src), dst)
    v = dec(bits, src)
    return round_bits(Fraction(v) if src in INTS else v, dst) if v != 0 else 0


def seq_sum(line: list[int], src: str, dst: str, ftz: bool, acc_f32: bool) -> int:
    """Sequential sum from +0 (spec §9.2). acc_f32: f16/bf16 accumulate in f32, round once at the end."""
    if src in INTS:
        return int_bits(sum(dec(v, src) for v in line), dst)
    acc_dt = "f32" if acc_f32 else dst
    acc = 0  # +0 bits
    for v in line:
        x = round_bits(_exact(v, src, ftz), acc_dt)  # exact: widening
        acc = binary("add", acc, x, acc_dt, ftz)
    return acc if acc_dt == dst else _finish(dec(acc, acc_dt), dst, ftz)


def seq_prod(line: list[int], src: str, dst: str, ftz: bool) -> int:
    if src in INTS and dst in FLOATS:  # each element cast to dst first (exact), then float products
        return seq_prod([widen(v, src, dst) for v in line], dst, dst, ftz)
    if src in INTS:
        p = 1
        for v in line:
            p = p * dec(v, src)
        return int_bits(p, dst)
    acc = round_bits(Fraction(1), dst)
    for v in line:
        acc = binary("mul", acc, round_bits(_exact(v, src, ftz), dst), dst, ftz)
    return acc


def vector_rowsum(line: list[int]) -> int:
    """The CPU simulator's vectorised f32 TROWSUM (x86-64 clang -O2): two 4-lane partial sums over each 8
    elements, added lane by lane, the 4 lanes summed in order, then the rest one by one."""
    m = len(line) // 8 * 8
    parts = [[0] * 4, [0] * 4]
    for j in range(0, m, 8):
        for u in range(2):
            parts[u] = [binary("add", parts[u][k], line[j + 4 * u + k], "f32") for k in range(4)]
    v = [binary("add", parts[0][k], parts[1][k], "f32") for k in range(4)]
    acc = v[0]
    for k in range(1, 4):
        acc = binary("add", acc, v[k], "f32")
    if not m:
        acc = 0
    for x in line[m:]:
        acc = binary("add", acc, x, "f32")
    return acc


def pairwise_sum(line: list[int], dt: str, ftz: bool) -> int:
    """TCOLSUM isBinary: adjacent pairs level by level, an odd last element carried; then +0 + result."""
    level = list(line)
    while len(level) > 1:
        nxt = [binary("add", level[i], level[i + 1], dt, ftz) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return binary("add", 0, level[0], dt, ftz)


def _key(bits: int, dt: str, float_view: bool):
    if float_view and dt in ("u16", "u32"):
        return dec(bits, "f16" if dt == "u16" else "f32")
    return dec(bits, dt)


def scan_extreme(line: list[int], dt: str, kind: str, nan_mode: str, *, float_view: bool = False,
                 a2a3_colarg: bool = False) -> tuple[int, int]:
    """(index, value bits) of a max/min scan in increasing index order.

    first (CPU, A5):  replace on a strict > (max) / < (min): a NaN at 0 sticks, later NaNs never win.
    propagate (A2A3): the first NaN wins; with ``a2a3_colarg`` the column-arg scan
        ``if !(old >= new): idx = i; old = vmax(old, new)`` (vmax keeps a NaN).
    spec:             maxNum fold; idx moves when ``r == x_i and r != acc``.
    """
    better = (lambda a, b: a > b) if kind == "max" else (lambda a, b: a < b)
    not_worse = (lambda a, b: a >= b) if kind == "max" else (lambda a, b: a <= b)
    acc, idx = line[0], 0
    floaty = dt in FLOATS or (float_view and dt in ("u16", "u32"))
    for i in range(1, len(line)):
        x = line[i]
        ka, kx = _key(acc, dt, float_view), _key(x, dt, float_view)
        if not floaty or nan_mode == "first":
            if better(kx, ka):
                acc, idx = x, i
        elif nan_mode == "propagate" and a2a3_colarg:
            if not not_worse(ka, kx):
                idx = i
            if not math.isnan(ka):
                if math.isnan(kx) or better(kx, ka):
                    acc = x
        elif nan_mode == "propagate":
            if math.isnan(ka):
                continue
            if math.isnan(kx) or better(kx, ka):
                acc, idx = x, i
        else:  # spec
            fdt = dt if dt in FLOATS else ("f16" if dt == "u16" else "f32")
            r = (max_sel if kind == "max" else min_sel)(acc, x, fdt, "spec")
            kr = dec(r, fdt)
            if kr == kx and kr != ka:
                idx = i
            acc = r
    if floaty and nan_mode == "spec":
        fdt = dt if dt in FLOATS else ("f16" if dt == "u16" else "f32")
        if math.isnan(_key(acc, dt, float_view)) and dt in FLOATS:
            acc = canon_nan(fdt)
    return idx, acc


def rmm_f16_int(i: int) -> int:
    """An index sent s16 -> f16 (round half away) -> s32: the A2A3 half index-only path."""
    return int(dec(round_bits(Fraction(i), "f16", "rmm"), "f16"))


# ---------------------------------------------------------------- conversion
def to_integral(a: Fraction, mode: str) -> int:
    """An exact rational to an integer by a pto RoundMode (CPU reference semantics, spec §9.6)."""
    fl = math.floor(a)
    frac = a - fl
    if mode in ("TRUNC", "NONE"):
        return math.trunc(a)
    if mode == "FLOOR":
        return fl
    if mode == "CEIL":
        return math.ceil(a)
    if frac != Fraction(1, 2):
        return fl + (1 if frac > Fraction(1, 2) else 0)
    if mode in ("RINT", "CAST_RINT"):
        return fl if fl % 2 == 0 else fl + 1
    if mode == "ROUND":
        return fl + 1 if a > 0 else fl
    return fl if fl % 2 else fl + 1  # ODD: the odd neighbour


MODE_TO_ROUNDING = {"CAST_RINT": "rne", "RINT": "rne", "NONE": "rne", "ROUND": "rmm", "FLOOR": "rdn", "CEIL": "rup",
                    "TRUNC": "rtz", "ODD": "odd"}


# ------------------------------------------------------------------ 8-bit floats
#: (exponent bits, mantissa bits, bias, kind): OCP E4M3 (no Inf, NaN = S.1111.111), IEEE-like E5M2, E8M0 (unsigned)
FP8 = {"f8e4m3": (4, 3, 7, "fn"), "f8e5m2": (5, 2, 15, "ieee"), "f8e8m0": (8, 0, 127, "e8m0"),
       "f4e2m1": (2, 1, 1, "finite"),  # OCP MX FP4 E2M1 too
       "f4e1m2": (1, 2, 1, "finite")}  # pto-isa's float4_e1m2x2_t: E1M2 with bias 1 (MXTypes.hpp)


def dec_fp8(bits: int, dt: str) -> float:
    """The value of an 8-bit float code, from the OCP MX / OFP8 definitions (exact as a Python float)."""
    e_bits, m_bits, bias, kind = FP8[dt]
    if kind == "e8m0":
        return math.nan if bits == 0xFF else math.ldexp(1.0, bits - bias)
    sign = -1.0 if bits >> (e_bits + m_bits) else 1.0
    e = (bits >> m_bits) & ((1 << e_bits) - 1)
    m = bits & ((1 << m_bits) - 1)
    if kind == "fn" and e == (1 << e_bits) - 1 and m == (1 << m_bits) - 1:
        return math.nan
    if kind == "ieee" and e == (1 << e_bits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - m_bits)
    return sign * math.ldexp(m | (1 << m_bits), e - bias - m_bits)


def dec_fp8_sim(bits: int, dt: str) -> float:
    """The value the CPU simulator's MX class gives an 8-bit float code (pto-isa include/pto/cpu/MXTypes.hpp):
    no special codes, so the top exponent is an ordinary binade; E8M0 is 2**(e - 127) for every code; the
    negative-zero code reads as +0."""
    e_bits, m_bits, bias, kind = FP8[dt]
    if kind == "e8m0":
        return math.ldexp(1.0, bits - bias)
    e, m = (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    mag = math.ldexp(m, 1 - bias - m_bits) if e == 0 else math.ldexp(m | (1 << m_bits), e - bias - m_bits)
    return -mag if bits >> (e_bits + m_bits) and mag else mag


# ------------------------------------------------- the CPU simulator's TCVT
def _cvtt(x: float, width: int) -> int:
    """x86-64 cvttsd2si of ``width`` bits: truncate; NaN or out of range -> the lowest value."""
    lo = -(1 << (width - 1))
    if math.isnan(x) or math.isinf(x):
        return lo
    t = math.trunc(x)
    return t if lo <= t < -lo else lo


def x86_cast(x: float, dt: str, gxx: bool = False) -> tuple[int, bool]:
    """(bits of static_cast<dt>(double x) as clang's x86-64 code computes it, or g++'s (PTO77), undefined?)."""
    n, signed = INTS[dt]
    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)
    ub = math.isnan(x) or math.isinf(x) or not lo <= math.trunc(x) <= hi
    if dt == "u64" and gxx:  # one branch on x >= 2**63
        r = _cvtt(x, 64) if not x >= 2.0 ** 63 else _cvtt(x - 2.0 ** 63, 64) ^ -(1 << 63)
    elif dt == "u64":
        r1 = _cvtt(x, 64)
        r2 = _cvtt(x - 2.0 ** 63, 64)
        r = r1 | (r2 & (-1 if r1 < 0 else 0))
    else:
        r = _cvtt(x, 64 if dt in ("u32", "i64") else 32)
    return int_bits(r, dt), ub


def _safe_limits(dt: str) -> tuple[float, float]:
    if dt == "f16":
        return -65504.0, 65504.0
    if dt in FLOATS:
        e, m = FLOATS[dt]
        top = (2 - 2.0 ** -m) * 2.0 ** ((1 << (e - 1)) - 1)  # the largest finite value
        return -top, top
    n, signed = INTS[dt]
    return (float(-(1 << (n - 1))), float((1 << (n - 1)) - 1)) if signed else (0.0, float((1 << n) - 1))


def _to_integral_f(x: float, mode: str) -> float:
    if math.isnan(x) or math.isinf(x) or mode == "NONE":
        return x
    return float(to_integral(Fraction(x), mode))


def cpu_tcvt(bits: int, s: str, d: str, mode: str, sat: bool) -> tuple[int, bool]:
    """(destination bits, undefined?) of one element of pto-isa's CPU TCVT (cpu/TCvt.hpp, transcribed); with bf16,
    g++'s casts (PTO77)."""
    ub, gxx = False, "bf16" in (s, d)
    if s in INTS and d in INTS and not sat:
        return int_bits(dec(bits, s), d), False
    v = dec(bits, s)
    x = float(v)
    if sat:
        lo = max(_safe_limits(s)[0], _safe_limits(d)[0])
        hi = min(_safe_limits(s)[1], _safe_limits(d)[1])
        x = x if x < hi else hi            # std::min(hi, x): NaN -> hi
        x = x if lo < x else lo            # std::max(lo, x)
        if s in FLOATS:                    # back to the source type
            x = dec(round_bits(Fraction(x), s), s) if x != 0 else x
        else:
            sb, ub = x86_cast(x, s, gxx)
            v = dec(sb, s)
            x = float(v)
            if d in INTS:
                return int_bits(v, d), ub
    if d in FLOATS:
        if s in FLOATS and not sat and math.isnan(x):
            return _nan_cast(bits, s, d), ub
        if s in FLOATS and s == d and not sat:
            return bits, ub
        if math.isnan(x):
            return canon_nan(d), ub
        if x == 0:
            return (sign_bit(d) if math.copysign(1.0, x) < 0 else 0), ub
        return round_bits(x if math.isinf(x) else Fraction(x), d), ub
    x = _to_integral_f(x, mode) if s in FLOATS else x
    if d == "u8":
        r, bad = x86_cast(x, "i64")
        return r % 256, ub or bad
    r, bad = x86_cast(x, d, gxx)
    return r, ub or bad


def _nan_cast(bits: int, s: str, d: str) -> int:
    """A float cast of a NaN: sign and the payload's top bits kept, quiet bit set."""
    (es, ms), (ed, md) = FLOATS[s], FLOATS[d]
    payload = bits & ((1 << ms) - 1)
    payload = payload >> (ms - md) if ms >= md else payload << (md - ms)
    sign = (bits >> (es + ms)) << (ed + md)
    return sign | (((1 << ed) - 1) << md) | (1 << (md - 1)) | payload
