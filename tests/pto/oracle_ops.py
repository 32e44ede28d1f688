"""Scalar references for the data-movement and misc PTO ops (TMOV ... TRANDOM), written from the pto-isa
headers' descriptions. Like :mod:`tests.pto.oracle` (whose decoders and rounding it reuses) it imports
nothing from tilesim: every element is a Python loop step on ints, Fractions and struct-packed floats.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

from .oracle import FLOATS, INTS, binary, dec, flush, int_bits, round_bits, to_integral


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def value(bits: int, dt: str):
    return dec(bits, dt)


def encode(v, dt: str) -> int:
    """A value (float/Fraction/int) rounded once to ``dt`` (floats) or wrapped (ints)."""
    if dt in INTS:
        return int_bits(int(v), dt)
    return round_bits(v, dt)


# ------------------------------------------------------------------ moves
def cast(bits: int, src: str, dst: str) -> int:
    """A C++ value conversion between lanes (same dtype: the bits)."""
    if src == dst:
        return bits
    if dst == "f32" and src in ("f16", "bf16"):
        e_bits, m_bits = FLOATS[src]
        if math.isnan(dec(bits, src)):  # widening keeps the payload, left-aligned
            sign = bits >> (e_bits + m_bits)
            return (sign << 31) | 0x7F800000 | ((bits & ((1 << m_bits) - 1)) << (23 - m_bits))
        return f32_bits(dec(bits, src))
    return round_bits(dec(bits, src), dst)


def relu_after(bits: int, dt: str) -> int:
    v = dec(bits, dt)
    return 0 if (not (isinstance(v, float) and math.isnan(v))) and v < 0 else bits


def relu_before(bits: int, dt: str) -> int:
    v = dec(bits, dt)
    return bits if (not (isinstance(v, float) and math.isnan(v))) and v > 0 else 0


# --------------------------------------------------------------- quant
def _f32(x) -> float:
    """Round an exact value to float32 (as a Python float)."""
    b = round_bits(x, "f32")
    return dec(b, "f32")


def quant_scale(word: int, vector: bool) -> float:
    if not vector:
        return dec(word & 0xFFFFFFFF, "f32")
    m1 = (word >> 13) & 0x7FFFF
    sign, e, m = (m1 >> 18) & 1, (m1 >> 10) & 0xFF, m1 & 0x3FF
    if e == 0 and m == 0:
        return 0.0
    return _f32(Fraction(-1 if sign else 1) * (1 + Fraction(m, 1024)) * Fraction(2) ** (e - 127))


def quantize(bits: int, src: str, dst: str, word: int, vector: bool, relu: bool) -> int:
    """One element of the fixpipe pre-quantisation (see src's fixpipe module docstring for the modes)."""
    if src == "i32" and dst == "i16":
        shift = ((word >> 32) & 0xF) + 1
        t = int_bits(dec(bits, "i32") >> shift, "i16")
        x = float(t - 65536 if t >= 32768 else t)
    else:
        v = dec(bits, src)
        v = _f32(v) if src == "i32" else v
        s = quant_scale(word, vector)
        if not (math.isfinite(v) and math.isfinite(s)) or v == 0 or s == 0:
            x = float(v) * s  # IEEE special cases (inf * 0 = NaN, signed zeros) are exact in Python floats
        else:
            x = _f32(Fraction(v) * Fraction(s))
        if dst in ("i8", "u8"):
            off = (word >> 37) & 0x1FF
            signed = (word >> 46) & 1
            if math.isnan(x):
                pass
            else:
                y = x + off if math.isinf(x) else _f32(Fraction(x) + off)
                r = y if math.isinf(y) else float(to_integral(Fraction(y), "RINT"))
                lo, hi = (-128, 127) if signed else (0, 255)
                x = min(max(r, lo), hi)
        elif dst == "f16" and (src == "i32" or not (math.isnan(x) or math.isinf(x))):
            if not math.isnan(x):
                x = min(max(x, -65504.0), 65504.0)
    if relu:
        x = x if (not math.isnan(x)) and x > 0 else 0.0
    if dst in FLOATS:
        return round_bits(x, dst)
    return int_bits(0 if math.isnan(x) else int(x), dst)


# ---------------------------------------------------------------- layout
#: PadValue lane codes from the formats' definitions: +-Inf for floats that have one, else the C++ limits
PAD_NO_INF = {"f8e4m3": {"max": 0x7E, "min": 0x08}, "f8e8m0": {"max": 0xFE, "min": 0x00}}


def pad_code(dt: str, pad: str) -> int:
    if pad == "zero":
        return 0
    if dt in INTS:
        n, signed = INTS[dt]
        v = ((1 << (n - 1)) - 1 if signed else (1 << n) - 1) if pad == "max" else (-(1 << (n - 1)) if signed else 0)
        return int_bits(v, dt)
    if dt in PAD_NO_INF:
        return PAD_NO_INF[dt][pad]
    if dt == "f8e5m2":
        return 0x7C if pad == "max" else 0xFC
    e, m = FLOATS[dt]
    inf = ((1 << e) - 1) << m
    return inf if pad == "max" else inf | (1 << (e + m))


def print_cell(bits: int, dt: str, width: int = 8, prec: int = 4) -> str:
    v = dec(bits, dt)
    if dt in INTS:
        return str(v).rjust(width)
    if math.isnan(v):
        return "nan".rjust(width)
    if math.isinf(v):
        return ("-inf" if v < 0 else "inf").rjust(width)
    # fixed notation from the exact value, ties to even (what printf does with an exact binary value)
    q = Fraction(v) * 10 ** prec
    n = to_integral(abs(q), "RINT")
    s = f"{n // 10 ** prec}.{n % 10 ** prec:0{prec}d}"
    return (("-" if math.copysign(1, v) < 0 else "") + s).rjust(width)


# ------------------------------------------------------------ gather / sort
def gather_index(src_rows: list[list[int]], k: int) -> int:
    rows, cols = len(src_rows), len(src_rows[0])
    if not 0 <= k < rows * cols:
        return 0
    return src_rows[k // cols][k % cols]


MASKS = {"P0101": lambda i: i % 2 == 0, "P1010": lambda i: i % 2 == 1, "P0001": lambda i: i % 4 == 0,
         "P0010": lambda i: i % 4 == 1, "P0100": lambda i: i % 4 == 2, "P1000": lambda i: i % 4 == 3,
         "P1111": lambda i: True}


def sort32_block(scores: list[int], ids: list[int], dt: str) -> list[int]:
    """Records (lanes) of one sorted block: descending score, ties by index, NaN last."""
    def key(p):
        v = dec(p[0], dt)
        nan = isinstance(v, float) and math.isnan(v)
        return (1 if nan else 0, 0 if nan else -v, p[1])
    recs = []
    for s, i in sorted(zip(scores, ids), key=key):
        recs += [s, i] if dt in ("f32", "i32") else [s, 0, i & 0xFFFF, i >> 16]
    return recs


def histogram_row(values: list[int], nbytes: int, byte: int, filters: list[int]) -> list[int]:
    """Cumulative counts of byte ``byte`` over values whose bytes above it (from the top) equal ``filters``."""
    counts = [0] * 256
    top = nbytes - 1
    for v in values:
        if all((v >> (8 * (top - k))) & 0xFF == f for k, f in enumerate(filters)):
            counts[(v >> (8 * byte)) & 0xFF] += 1
    out, acc = [], 0
    for c in counts:
        acc += c
        out.append(acc)
    return out


# ------------------------------------------------------------------ arith
def rem(x: int, y: int, dt: str, ftz: bool) -> int:
    """One TREM element: fmod, then + the divisor when the signs differ and the remainder is not 0."""
    if dt in INTS:
        a, b = dec(x, dt), dec(y, dt)
        r = abs(a) % abs(b) * (1 if a >= 0 else -1)   # C's truncating %
        if (a >= 0) != (b >= 0) and r != 0:
            r += b
        return int_bits(r, dt)
    if ftz:
        x, y = flush(x, dt), flush(y, dt)
    a, b = dec(x, dt), dec(y, dt)
    r = math.fmod(a, b) if not (math.isnan(a) or math.isnan(b) or math.isinf(a)) else math.nan
    out = round_bits(r, dt)
    if (a >= 0) != (b >= 0) and r != 0:
        return binary("add", flush(out, dt) if ftz else out, y, dt, ftz)
    return flush(out, dt) if ftz else out



# ------------------------------------------------------------- quant / random
def tquant(x_bits: int, scale: float, zero: float | None) -> int:
    """One TQUANT element (f32 in): rint(x * s [+ z]) clamped to i8 (SYM) or u8 (ASYM); NaN -> 0; float32 steps."""
    x = dec(x_bits, "f32")
    def f32(v):
        return v if (isinstance(v, float) and not math.isfinite(v)) else dec(round_bits(v, "f32"), "f32")
    p = f32(x * scale if not (math.isfinite(x) and math.isfinite(scale)) or x == 0 or scale == 0
            else Fraction(x) * Fraction(scale))
    if zero is not None:
        p = f32(p + zero if not math.isfinite(p) or p == 0 and zero == 0 else Fraction(p) + Fraction(zero))
    if math.isnan(p):
        return 0
    lo, hi = (0, 255) if zero is not None else (-128, 127)
    r = p if math.isinf(p) else to_integral(Fraction(p), "RINT")
    v = int(min(max(r, lo), hi))
    return v & 0xFF


def philox(counter: int, key: tuple[int, int], rounds: int) -> list[int]:
    """Philox-4x32 (Salmon et al., SC'11) on a 128-bit counter: the four 32-bit output words."""
    c = [(counter >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
    k0, k1 = key
    for _ in range(rounds):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c


# ------------------------------------------------------------------ MX matmul
def mx_dot(a: list[float], b: list[float], sa: list[float], sb: list[float]) -> int:
    """f32 bits of ``sum a[k] b[k] sa[k//32] sb[k//32]``: each step summed in double, then rounded to float."""
    acc = 0.0
    for k, (x, y) in enumerate(zip(a, b)):
        p = x * y * (sa[k // 32] * sb[k // 32])          # exact in double (NaN/Inf as IEEE says)
        acc = dec(round_bits(acc + p, "f32"), "f32")       # Python float add = double RNE, then to float
    return round_bits(acc, "f32")


# ------------------------------------------------------------------ generators
def tci_row(start, n: int, descending: bool, dt: str) -> list[int]:
    """TCI: ``start +- k`` for k < n (pto-isa include/pto/cpu/TCI.hpp), each rounded once / wrapped to ``dt``."""
    s = Fraction(start)
    return [encode(s - k if descending else s + k, dt) for k in range(n)]


def ttri_cell(r: int, c: int, diagonal: int, upper: bool, dt: str) -> int:
    """TTRI (include/pto/cpu/TTRI.hpp): lower is 1 for c < diagonal + r + 1; upper is 0 for c < diagonal + r."""
    one = c >= diagonal + r if upper else c < diagonal + r + 1
    return encode(1 if one else 0, dt)


def tdequant(x: int, offset_bits: int, scale_bits: int, ftz: bool, nan_mode: str) -> int:
    """TDEQUANT: ``(float(x) - offset) * scale``, each step rounded to f32 (pto-isa TDequant.hpp)."""
    xb = round_bits(Fraction(x), "f32")
    return binary("mul", binary("sub", xb, offset_bits, "f32", ftz, nan_mode), scale_bits, "f32", ftz, nan_mode)


def mrgsort(lists: list[list[tuple]], room: int, exhausted: bool) -> tuple[list[tuple], list[int]]:
    """TMRGSORT's merge (pto-isa include/pto/cpu/TMrgSort.hpp): records are (value, payload...) tuples; the
    first list with a head strictly greater than the current pick wins; returns the records and the counts."""
    pos = [0] * len(lists)
    out: list[tuple] = []
    while len(out) < room:
        pick = None
        for i, lst in enumerate(lists):
            if pos[i] < len(lst):
                v = lst[pos[i]][0]
                if pick is None or v > lists[pick][pos[pick]][0]:   # NaN compares false either way
                    pick = i
        if pick is None:
            break
        out.append(lists[pick][pos[pick]])
        pos[pick] += 1
        if exhausted and any(p == len(lst) for p, lst in zip(pos, lists)):
            break
    return out, pos
