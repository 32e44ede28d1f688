"""f32 ``exp``, ``log``, ``1/sqrt`` and TROWEXPANDEXPDIF's ``exp(a - b)`` in one numba pass each (PTO190, PTO112).

Each kernel evaluates the function in float64 with a relative error below
``EPS`` = 2**-44 (below 2**9.5 float64 ulps in any binade), then rounds it to f32
where the certificate holds: its 29 dropped bits lie more than 2**10 from their
midpoint, so the exact value rounds to the same f32 code, the correctly rounded
one that :func:`tilesim.pto.numerics._transcendental_exact` computes. log and
1/sqrt have tighter bounds (``LOG_BOUND``, ``RSQRT_BOUND``) and so narrower
windows (:func:`_window`: 2**5 and 2**9 ulps), and 1/sqrt evaluates the lanes
its window marks again in the kernel, as float64 ``1 / sqrt(x)`` (within
``RSQRT2_BOUND`` = 2**-52: a window of 2**2). Lanes outside a kernel's domain
(zeros, subnormals, infinities, NaNs, results that are not normal f32 numbers)
and the uncertified ones (about one in 2**18 for exp, 2**23 for log, and almost
none for 1/sqrt) are marked and left to :func:`tilesim.pto.numerics._certified`,
lane by lane.

The evaluations, and why each errs by less than ``EPS`` (unit roundoff 2**-53):

* exp: ``x = k ln2 + r``, ``|r| <= ln2 / 2``, ``ln2`` in two parts (the first
  with 40 bits, so ``k * L1`` and ``x - k * L1`` are exact); ``exp(r)`` by a
  polynomial of degree 10: its Taylor polynomial of degree 14 (tail below
  ``2 EXP_R**15 / 15!`` < 2**-62) economized on ``|r| <= EXP_R`` = 0.34658
  (:func:`economized`, in exact arithmetic: a change below 2**-52.0), so within
  2**-51.5 relative (``exp(r) >= 0.707``); rounding its coefficients and its
  Estrin evaluation (FMAs) add below 2**-49.5. The certificate on ``exp(r)``,
  then ``k`` (read from the low bits of ``x / ln2 + 1.5 * 2**52``) added to the
  f32 exponent. Inputs in (-87.3, 88.7), whose results are normal f32 numbers.
* log: ``x = 2**e m``, ``m`` in [sqrt(1/2), sqrt(2)) (split on the f32 code:
  ``e`` from ``b - code(sqrt(1/2) rounded down)``); ``log m = 2 atanh(S/2) = S
  + S w Q(w)``, ``S = 2 (m - 1) / (m + 1)`` (``2m - 2`` and ``m + 1`` exact, one
  division), ``w = S**2 <= LOG_W`` = 0.11775, ``Q`` the series ``1/12 + w/80 +
  ... + w**k / (4**(k+1) (2k+3))`` to ``w**12`` (tail below 2**-72) economized to
  degree 5 on [0, LOG_W] (a change below 2**-47.2), so ``log m`` within
  ``LOG_W * 2**-47.2`` < 2**-50.3 relative (``|log m| >= |S|``); the rounding of
  ``S`` (one 2**-53), of ``w``, ``Q`` and ``S w`` (a few 2**-53 on the term
  ``S w Q``, at most ``LOG_W / 12`` < 0.01 of ``S``) and of the sum add below
  2**-51.5. Then ``y = e LN2 + log m``, ``LN2`` the float64 nearest ln2: where
  ``e != 0``, ``|y| >= |e| ln2 / 2`` and ``|log m| <= ln2 / 2 <= |y|`` (to
  2**-24), so ``LN2``'s error and the roundings of ``e LN2`` and the sum add
  below 5 * 2**-53 relative: within ``LOG_BOUND`` = 2**-49 in all. Positive normal
  inputs.
* 1/sqrt: the f32 estimate ``y = 1 / sqrtf(x)`` (``(1 + d) / sqrt(x)``, ``|d| <=
  2**-22.99``: two f32 roundings), one first-order step in float64: ``h = 1/2 -
  (x/2 * y) * y`` (``x/2 * y`` exact, ``h = -d - d**2/2`` within 2**-54),
  ``y + y h = (1 - 3 d**2 / 2 - d**3 / 2) / sqrt(x)``: truncation below
  2**-45.39, rounding below 2**-52.4, within ``RSQRT_BOUND`` = 2**-45.3 in all.
  Positive normal inputs.

``tests/pto/test_fast_paths.py`` holds the float64 values to their bounds (exp's to
``EPS / 4``) against 50-digit decimal arithmetic and the f32 results to the exact
path. A tile runs in one call on one thread (decision PTO191).
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
from numba import njit

__all__ = ["KINDS", "EPS", "EXP_R", "LOG_W", "LOG_BOUND", "RSQRT_BOUND", "RSQRT2_BOUND", "economized", "MARK",
           "run"]

_kernel = njit(cache=True, error_model="numpy", fastmath={"contract"})
_inline = njit(cache=True, error_model="numpy", fastmath={"contract"}, inline="always")
_row = njit(cache=True, error_model="numpy", fastmath={"contract"})

#: the float64 evaluations' relative error bound; the certificate's window (in float64 ulps, about their dropped
#: 29 bits' midpoint: a modular shift puts it at 0.._NEAR)
EPS = 2.0 ** -44
_LOW29, _SHIFT, _NEAR = np.uint64((1 << 29) - 1), np.uint64((1 << 29) - (1 << 28) + (1 << 10)), np.uint64(1 << 11)
_SQRT_HALF = np.uint32(0x3F3504F3)  # the f32 code of sqrt(1/2) rounded down
#: a marked lane's code (a NaN: certified lanes are never NaN)
MARK = np.uint32(0xFFFFFFFF)


def _constants() -> tuple[float, float, float]:
    """ln2 as L1 (40 bits) + L2, and as the float64 nearest it, from 40-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 40
        ln2 = Decimal(2).ln()
        l1 = math.floor(float(ln2) * 2.0 ** 40) / 2.0 ** 40
        return l1, float(ln2 - Decimal(l1)), float(ln2)


def _chebyshev(n: int) -> list[int]:
    """The power-basis coefficients of the Chebyshev polynomial T_n (lowest first)."""
    t0, t1 = [1], [0, 1]
    for _ in range(n - 1):
        t0, t1 = t1, [a - b for a, b in itertools.zip_longest([0] + [2 * c for c in t1], t0, fillvalue=0)]
    return t1 if n else t0


def economized(c: list[Fraction], lo: Fraction, hi: Fraction, degree: int) -> tuple[list[Fraction], Fraction]:
    """Chebyshev economization on [lo, hi], in exact arithmetic: the polynomial ``c`` (lowest coefficient first)
    lowered to ``degree`` by subtracting from each top term ``c_n x**n`` its multiple of ``T_n(u)``, ``u = (2x -
    lo - hi) / (hi - lo)`` (the same leading term), and the bound on the change there (the multiples' sum of
    magnitudes, as ``|T_n(u)| <= 1``)."""
    al, be, c, change = 2 / (hi - lo), -(hi + lo) / (hi - lo), list(c), Fraction(0)
    for n in range(len(c) - 1, degree, -1):
        t = [Fraction(0)] * (n + 1)  # T_n(al x + be) in powers of x
        for j, tj in enumerate(_chebyshev(n)):
            for i in range(0 if be else j, j + 1) if tj else ():  # be = 0: only x**j
                t[i] += tj * math.comb(j, i) * al ** i * be ** (j - i)
        multiple = c[n] / t[n]
        c = [ck - multiple * tk for ck, tk in zip(c, t)] + c[n + 1:]
        change += abs(multiple)
    return c[:degree + 1], change


_L1, _L2, _LN2 = _constants()
_INV_LN2, _ROUND = 1.0 / math.log(2.0), 1.5 * 2.0 ** 52
#: exp(r) on |r| <= EXP_R: Taylor to degree 14 (its tail below EXP_R**15 / 15! * 2) economized to degree 10
EXP_R = Fraction(34658, 100000)
_EXP_POLY, _EXP_CHANGE = economized([Fraction(1, math.factorial(n)) for n in range(15)], -EXP_R, EXP_R, 10)
_E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10 = (float(c) for c in _EXP_POLY)
#: log's 2 atanh(S/2) = S + S w Q(w), w = S**2 <= LOG_W (>= (2 (sqrt2 - 1) / (sqrt2 + 1))**2 = 68 - 48 sqrt2): Q's
#: series (1/12 + w/80 + w**2/448 + ...) to degree 12 (its tail below (LOG_W/4)**13 / (4 * 29) / (1 - LOG_W/4))
#: economized to degree 5
LOG_W = Fraction(11775, 100000)
_LOG_POLY, _LOG_CHANGE = economized([Fraction(1, 4 ** (k + 1) * (2 * k + 3)) for k in range(13)], Fraction(0),
                                    LOG_W, 5)
_A0, _A1, _A2, _A3, _A4, _A5 = (float(c) for c in _LOG_POLY)
#: the proven relative error bounds of the log and 1/sqrt evaluations (below EPS), and of 1/sqrt's second tier
LOG_BOUND, RSQRT_BOUND, RSQRT2_BOUND = 2.0 ** -49, 2.0 ** -45.3, 2.0 ** -52


def _window(bound: float) -> tuple[np.uint64, np.uint64]:
    """The certificate's window for an evaluation within ``bound`` (relative; ``bound * 2**53`` float64 ulps in
    any binade): twice that, rounded up to a power of two, either side of the dropped 29 bits' midpoint, as the
    modular shift and the bound :func:`_code_in` takes (EPS gives _SHIFT and _NEAR)."""
    half = 1 << math.ceil(math.log2(2 * bound * 2.0 ** 53))
    return np.uint64((1 << 29) - (1 << 28) + half), np.uint64(2 * half)


_LOG_SHIFT, _LOG_NEAR = _window(LOG_BOUND)
_RSQRT_SHIFT, _RSQRT_NEAR = _window(RSQRT_BOUND)
_RSQRT2_SHIFT, _RSQRT2_NEAR = _window(RSQRT2_BOUND)


@_inline
def _near(y):
    """Whether the float64 ``y`` (its f32 rounding normal, or 0) lies within 2**10 float64 ulps of an f32 rounding
    boundary: its 29 dropped bits within 2**10 of their midpoint 2**28 (an error below EPS |y| is below 2**9.5
    ulps in every binade)."""
    return ((np.float64(y).view(np.uint64) + _SHIFT) & _LOW29) <= _NEAR


@_inline
def _exp(v):
    """(exp(r) in [0.707, 1.415], the integer k of exp(v) = 2**k exp(r), whether ``v`` (an f32 value) is in the
    kernel's domain)."""
    kr = v * _INV_LN2 + _ROUND  # k in its low bits (two's complement) where ok
    k = kr - _ROUND
    r = (v - k * _L1) - k * _L2
    r2 = r * r
    r4 = r2 * r2
    p = ((_E0 + r * _E1) + r2 * (_E2 + r * _E3)) + r4 * (((_E4 + r * _E5) + r2 * (_E6 + r * _E7))
                                                         + r4 * ((_E8 + r * _E9) + r2 * _E10))
    ok = (v > -87.3) & (v < 88.7)
    return p, np.int32(np.float64(kr).view(np.int64)), ok


@_inline
def _exp_code(p, k, ok):
    """(the f32 code of ``p * 2**k`` where ``ok`` and the certificate holds for ``p``, else the mark; whether
    marked)."""
    bad = np.uint32(_near(p)) | (np.uint32(1) ^ np.uint32(ok))
    return (np.float32(p).view(np.uint32) + (np.uint32(k) << np.uint32(23))) | (np.uint32(0) - bad), bad


@_inline
def _log(b):
    """(log of the f32 code ``b``, whether ``b`` is a positive normal number)."""
    e = np.int32(np.uint32(b) - _SQRT_HALF) >> np.int32(23)  # 2**e m, m's f32 code in [_SQRT_HALF, 2 _SQRT_HALF)
    m = np.float64(np.uint32(np.uint32(b) - (np.uint32(e) << np.uint32(23))).view(np.float32))
    s = (2.0 * m - 2.0) / (m + 1.0)
    w = s * s
    w2 = w * w
    q = (_A0 + w * _A1) + w2 * ((_A2 + w * _A3) + w2 * (_A4 + w * _A5))
    return np.float64(e) * _LN2 + ((s * w) * q + s), b - np.uint32(0x00800000) < np.uint32(0x7F000000)


@_inline
def _rsqrt(b):
    """(1/sqrt of the f32 code ``b``, whether ``b`` is a positive normal number)."""
    x = np.uint32(b).view(np.float32)
    y = np.float64(np.float32(1) / np.sqrt(x))
    h = 0.5 - ((0.5 * np.float64(x)) * y) * y
    return y + y * h, b - np.uint32(0x00800000) < np.uint32(0x7F000000)


@_inline
def _code_in(y, ok, shift, near):
    """(the f32 code of ``y`` where ``ok`` and the certificate in the window ``shift``, ``near`` of
    :func:`_window` holds, else the mark; whether marked)."""
    bad = np.uint32(((np.float64(y).view(np.uint64) + shift) & _LOW29) <= near) | (np.uint32(1) ^ np.uint32(ok))
    return np.float32(y).view(np.uint32) | (np.uint32(0) - bad), bad  # all ones where marked


@_inline
def _marked(o, base, C, bad, nb):
    """Append the marked lanes of the row ``o`` (flat indices ``base + j``) to ``bad`` from ``nb``; -1 when
    ``bad`` is full."""
    for j in range(C):
        if o[j] == MARK:
            if nb == bad.size:
                return -1
            bad[nb] = base + j
            nb += 1
    return nb


# One row function per function (one taking it as an argument does not vectorise; a row function called from the
# chunk loop vectorises better than the same loop inlined there). a: a row's f32 codes (f32 values for exp),
# o: its output codes; returns how many lanes it marked.
@_row
def _exp_row(a, o):
    n = 0
    for j in range(a.size):
        p, k, ok = _exp(np.float64(a[j]))
        c, m = _exp_code(p, k, ok)
        o[j] = c
        n += m
    return n


@_row
def _log_row(a, o):
    n = 0
    for j in range(a.size):
        y, ok = _log(a[j])
        c, m = _code_in(y, ok, _LOG_SHIFT, _LOG_NEAR)
        o[j] = c
        n += m
    return n


@_row
def _rsqrt_row(a, o):
    n = 0
    for j in range(a.size):
        y, ok = _rsqrt(a[j])
        c, m = _code_in(y, ok, _RSQRT_SHIFT, _RSQRT_NEAR)
        o[j] = c
        n += m
    return n


@_inline
def _rsqrt_again(a, o, base, bad, start, nb):
    """1/sqrt's second tier: the row's marked lanes, listed in ``bad[start:nb]`` (flat indices ``base + j``), again
    as float64 ``1 / sqrt(x)`` (two correctly rounded operations: within RSQRT2_BOUND); those it certifies get
    their code and leave the list. Returns the list's new length (-1, a full list, stays)."""
    if nb < 0:
        return nb
    kept = start
    for t in range(start, nb):
        j = bad[t] - base
        b = a[j]
        y = 1.0 / np.sqrt(np.float64(np.uint32(b).view(np.float32)))
        c, m = _code_in(y, b - np.uint32(0x00800000) < np.uint32(0x7F000000), _RSQRT2_SHIFT, _RSQRT2_NEAR)
        o[j] = c
        bad[kept] = bad[t]
        kept += m
    return kept


@_row
def _expdif_row(a, w, cb, o):
    """exp(float32(a - w)): ``w`` the row's C values (cb 1) or its one value (cb 0)."""
    n = 0
    if cb:
        for j in range(a.size):
            p, k, ok = _exp(np.float64(a[j] - w[j]))
            c, m = _exp_code(p, k, ok)
            o[j] = c
            n += m
    else:
        t = w[0]
        for j in range(a.size):
            p, k, ok = _exp(np.float64(a[j] - t))
            c, m = _exp_code(p, k, ok)
            o[j] = c
            n += m
    return n


# The tile loops: the R rows of x (f32 codes: a flat buffer and its row step, as jit.rows gives them) into out
# likewise; bad: the flat indices (i * C + j) of the marked lanes. Returns their count, or -1 when bad is full.
@_kernel
def _exp_k(x, sx, out, so, R, C, bad):
    xf, nb = x.view(np.float32), 0
    for i in range(R):
        o = out[i * so:i * so + C]
        if _exp_row(xf[i * sx:i * sx + C], o) and nb >= 0:
            nb = _marked(o, i * C, C, bad, nb)
    return nb


@_kernel
def _log_k(x, sx, out, so, R, C, bad):
    nb = 0
    for i in range(R):
        o = out[i * so:i * so + C]
        if _log_row(x[i * sx:i * sx + C], o) and nb >= 0:
            nb = _marked(o, i * C, C, bad, nb)
    return nb


@_kernel
def _rsqrt_k(x, sx, out, so, R, C, bad):
    nb = 0
    for i in range(R):
        a, o = x[i * sx:i * sx + C], out[i * so:i * so + C]
        if _rsqrt_row(a, o) and nb >= 0:
            nb = _rsqrt_again(a, o, i * C, bad, nb, _marked(o, i * C, C, bad, nb))
    return nb


@_kernel
def _expdif_k(x, sx, b, sb, cb, out, so, R, C, bad):
    """exp(float32(a - b)) with ``b`` a row's value (cb 0) or a row of C values (cb 1)."""
    xf, bf, nb = x.view(np.float32), b.view(np.float32), 0
    for i in range(R):
        o = out[i * so:i * so + C]
        if _expdif_row(xf[i * sx:i * sx + C], bf[i * sb:i * sb + (C if cb else 1)], cb, o) and nb >= 0:
            nb = _marked(o, i * C, C, bad, nb)
    return nb


#: op -> kernel
_KERNELS = {"exp": _exp_k, "log": _log_k, "rsqrt": _rsqrt_k, "expdif": _expdif_k}
KINDS = frozenset(_KERNELS)
#: capacity of the list of marked lanes (more marks: the caller finds them with one numpy pass)
_BAD_CAP = 4096


def run(kind: str, x: tuple, b: tuple | None, out: tuple, R: int, C: int) -> np.ndarray | None:
    """``kind`` (exp, log, rsqrt; expdif with ``b``) of R x C f32 lanes given as :func:`tilesim.pto.jit.rows`
    triples (buffer, row step, column step), into ``out``'s triple. Returns the flat indices (``i * C + j``) of
    the lanes left to the exact path (their ``out`` lanes hold :data:`MARK`), or None when there are too many to
    list (then they are the lanes holding MARK)."""
    args = (x[0], x[1]) if b is None else (x[0], x[1], b[0], b[1], b[2])
    bad = np.empty(min(_BAD_CAP, R * C), np.int64)
    n = _KERNELS[kind](*args, out[0], out[1], R, C, bad)
    return None if n < 0 else bad[:n]
