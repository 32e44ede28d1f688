"""f32 ``exp``, ``log``, ``1/sqrt`` and TROWEXPANDEXPDIF's ``exp(a - b)`` in one numba pass each (decisions PTO190,
PTO198, PTO112, PTO113).

The log and 1/sqrt kernels evaluate the function in float64 within their proven
bounds (``LOG_BOUND``, ``RSQRT_BOUND``, both below ``EPS`` = 2**-44), then round
it to f32 where the certificate holds: its 29 dropped bits lie outside a window
about their midpoint (:func:`_window`: 2**5 float64 ulps for log, 2**9 for
1/sqrt), so the exact value rounds to the same f32 code, the correctly rounded
one that :func:`tilesim.pto.numerics._transcendental_exact` computes. 1/sqrt
evaluates the lanes its window marks again in the kernel, as float64 ``1 /
sqrt(x)`` (within ``RSQRT2_BOUND`` = 2**-52: a window of 2**2). Lanes outside a
kernel's domain (zeros, subnormals, infinities, NaNs, results that are not
normal f32 numbers) and the uncertified ones (about one in 2**23 for log, almost
none for 1/sqrt) are marked and left to
:func:`tilesim.pto.numerics._certified`, lane by lane. log's fast pass (PTO113)
marks nothing: it writes every lane from a cheaper value, within ``LOG4_BOUND``
= 2**-43 (a window of 2**11), and keeps two figures of the row, the least
distance of a lane's dropped bits from their midpoint and the largest ``b -
2**23`` of its codes ``b``; a row where a lane comes within that window or lies
outside the domain (about one lane in 2**17) runs the marking pass above. Every
lane the marking pass marks is in such a row: its value ``y`` within 2**5 ulps
of a midpoint, the exact value within 2**4 ulps of ``y`` and the fast value
within 2**10 of the exact one make the fast value's distance below 2**11; and
an unflagged row's codes are the correctly rounded ones.

The exp kernels (PTO198) write every lane of a row from a float64 value within
``EXP_EPS`` = 2**-44 and keep two figures of the row: the least distance of a
lane's dropped bits from their midpoint, and the largest ``|x|``. A row where a
lane comes within 2**9 of its midpoint (about one lane in 2**19) or has ``|x| >=
87`` gets a second look, block by block (:func:`_exp_fix`): those lanes take the
second tier, a double-double value within ``EXP_DD_EPS`` = 2**-72, rounded where
its distance from the f32 midpoint decides (:func:`_exp_dd_code`); the lanes it
leaves (outside (-87.3, 88.7); none inside is known) are marked as above.

The evaluations, and why each errs by less than its bound (unit roundoff 2**-53):

* exp: ``x = k ln2 + r``, ``k`` read from the low bits of ``x / ln2 + 1.5 *
  2**52``, ``r = x - k LN2`` in one FMA (``|k| <= 128``, ``|LN2 - ln2| <
  2**-55.3``: an error below 2**-48.3; below 2**-46.3 were it not contracted),
  ``|r| <= EXP_R`` = 0.34658; ``exp(r)`` by a polynomial of degree 9: its Taylor
  polynomial of degree 14 (tail below ``2 EXP_R**15 / 15!`` < 2**-62) economized
  on ``|r| <= EXP_R`` (:func:`economized`, in exact arithmetic: a change below
  2**-46.05), so within 2**-45.55 relative (``exp(r) >= 0.707``); its rounded
  coefficients and Horner steps add below 2**-47.8 relative with FMAs (2**-46.9
  without), so the value errs by less than 2**-45.1 (2**-44.5 without FMAs) <
  ``EXP_EPS``: below 2**9 ulps of ``exp(r) <= 1.415`` in either binade. The
  certificate on ``exp(r)``, then ``k`` added to the f32 exponent. The fast pass
  takes ``|x| < 87``, whose results are normal f32 numbers.
* exp's second tier (:func:`exp_dd`): ``x = (64 k + j) ln2 / 64 + r``, ``|r| <=
  ln2 / 128`` (with a rounding to spare), ``ln2 / 64 = C1 + C2 + C3`` (39 and 38
  bits: ``n C1``, ``n C2`` and ``x - n C1`` exact for ``|n| < 2**13``), ``r`` as a
  double-double from an exact two-sum (error below 2**-100); ``e**r - 1 = r +
  r**2 / 2 + r**3 q(r)`` with ``r**2`` an exact product (Dekker), ``q = 1/3! + ...
  + r**4 / 7!`` in float64 (truncation below 2**-75.5, ``q``'s and ``r**3``'s
  roundings below 2**-76 each, the sums' below 2**-75.4): within 2**-74
  absolute; times ``2**(j/64)`` as a double-double (within 2**-106, from 60-digit
  decimal arithmetic) with an exact product: within 2**-73 relative <
  ``EXP_DD_EPS``. Rounding: ``m`` the f32 midpoint above ``hi`` truncated to 24
  bits, ``d = (hi - m) + lo`` (``hi - m`` exact, ``d``'s sign right); as ``hi + lo
  < 2.02``, the exact value lies within 2**-70.9 of it, so where ``|d| > 2**-70``
  the code is ``hi`` truncated, plus one where ``d > 0``, plus ``k`` in the
  exponent. Inputs in (-87.3, 88.7).
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
* log's fast pass (:func:`_log4`): the same steps with ``Q`` economized to
  degree 4 (a change below 2**-40.01, so ``log m`` within ``LOG_W *
  2**-40.01`` < 2**-43.09 relative); the roundings, as above, add below 2**-49:
  within 2**-43.09 + 2**-49 < ``LOG4_BOUND`` = 2**-43.
* 1/sqrt: the f32 estimate ``y = 1 / sqrtf(x)`` (``(1 + d) / sqrt(x)``, ``|d| <=
  2**-22.99``: two f32 roundings), one first-order step in float64: ``h = 1/2 -
  (x/2 * y) * y`` (``x/2 * y`` exact, ``h = -d - d**2/2`` within 2**-54),
  ``y + y h = (1 - 3 d**2 / 2 - d**3 / 2) / sqrt(x)``: truncation below
  2**-45.39, rounding below 2**-52.4, within ``RSQRT_BOUND`` = 2**-45.3 in all.
  Positive normal inputs.

``tests/pto/test_fast_paths.py`` holds each float64 value to its bound against
50-digit decimal arithmetic and the f32 results to the exact path. A tile runs in
one call on one thread (decision PTO191).
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
from numba import njit

__all__ = ["KINDS", "EPS", "EXP_EPS", "EXP_DD_EPS", "EXP_R", "LOG_W", "LOG_BOUND", "LOG4_BOUND", "RSQRT_BOUND",
           "RSQRT2_BOUND", "economized", "MARK", "run"]

_kernel = njit(cache=True, error_model="numpy", fastmath={"contract"})
_inline = njit(cache=True, error_model="numpy", fastmath={"contract"}, inline="always")
_row = njit(cache=True, error_model="numpy", fastmath={"contract"})
#: the double-double steps need each rounding as written: no contraction into FMAs
_exact = njit(cache=True, error_model="numpy")
_exact_inline = njit(cache=True, error_model="numpy", inline="always")

#: the float64 evaluations' relative error bound; the certificate's window (in float64 ulps, about their dropped
#: 29 bits' midpoint: a modular shift puts it at 0.._NEAR)
EPS = 2.0 ** -44
_LOW29, _SHIFT, _NEAR = np.uint64((1 << 29) - 1), np.uint64((1 << 29) - (1 << 28) + (1 << 10)), np.uint64(1 << 11)
#: exp's (PTO198): its relative error bound on exp(r); its window, 2**9 ulps (EXP_EPS * 2**53, as exp(r) <= 1.415)
EXP_EPS = 2.0 ** -44
_EXP_SHIFT, _EXP_NEAR = np.uint64((1 << 29) - (1 << 28) + (1 << 9)), np.uint64(1 << 10)
#: the fast pass's inputs: |x| < 87 (their results normal f32 numbers); |x|'s code from x's
_EXP_TOP, _ABS = np.float32(87).view(np.uint32), np.uint32(0x7FFFFFFF)
_SQRT_HALF = np.uint32(0x3F3504F3)  # the f32 code of sqrt(1/2) rounded down
#: a marked lane's code (a NaN: certified lanes are never NaN)
MARK = np.uint32(0xFFFFFFFF)


def _ln2() -> float:
    """The float64 nearest ln2, from 40-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 40
        return float(Decimal(2).ln())


def _dd_constants() -> tuple[float, float, float, np.ndarray, np.ndarray]:
    """ln2/64 as C1 (its bits 2**-7 to 2**-45) + C2 (2**-46 to 2**-83) + C3, and 2**(j/64), j < 64, as
    double-doubles (their high parts' array, then their low parts'), from 60-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 60
        c = Decimal(2).ln() / 64
        c1 = math.floor(c * 2 ** 45) / 2.0 ** 45
        c2 = math.floor((c - Decimal(c1)) * 2 ** 83) / 2.0 ** 83
        t = [Decimal(2) ** (Decimal(j) / 64) for j in range(64)]
        hi = np.array([float(v) for v in t])
        return c1, c2, float(c - Decimal(c1) - Decimal(c2)), hi, np.array([float(v - Decimal(h)) for v, h in zip(t, hi)])


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


_LN2, _INV_LN2, _ROUND = _ln2(), 1.0 / math.log(2.0), 1.5 * 2.0 ** 52
_LN2_23 = _LN2 * 2.0 ** -23  # e ln2 from e 2**23 (an exact scaling)
#: exp(r) on |r| <= EXP_R: Taylor to degree 14 (its tail below EXP_R**15 / 15! * 2) economized to degree 9
EXP_R = Fraction(34658, 100000)
_EXP_POLY, _EXP_CHANGE = economized([Fraction(1, math.factorial(n)) for n in range(15)], -EXP_R, EXP_R, 9)
_E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9 = (float(c) for c in _EXP_POLY)
#: exp's second tier (PTO198): relative error bound of its double-double value; n = 64 k + j, ln2/64 in three parts
EXP_DD_EPS = 2.0 ** -72
_INV64, (_C1, _C2, _C3, _TH, _TL) = 64 / math.log(2.0), _dd_constants()
_Q = tuple(1 / math.factorial(n) for n in range(3, 8))  # e**r - 1 - r - r**2/2 = r**3 (1/3! + r/4! + ... + r**4/7!)
#: the second tier's decision margin: more than 2.02 EXP_DD_EPS (its value is below 2.02), with a rounding to spare
_DD_TOL = 2.0 ** -70
_SPLIT = 2.0 ** 27 + 1  # Veltkamp's splitter
#: log's 2 atanh(S/2) = S + S w Q(w), w = S**2 <= LOG_W (>= (2 (sqrt2 - 1) / (sqrt2 + 1))**2 = 68 - 48 sqrt2): Q's
#: series (1/12 + w/80 + w**2/448 + ...) to degree 12 (its tail below (LOG_W/4)**13 / (4 * 29) / (1 - LOG_W/4))
#: economized to degree 5
LOG_W = Fraction(11775, 100000)
_LOG_SERIES = [Fraction(1, 4 ** (k + 1) * (2 * k + 3)) for k in range(13)]
_LOG_POLY, _LOG_CHANGE = economized(_LOG_SERIES, Fraction(0), LOG_W, 5)
_A0, _A1, _A2, _A3, _A4, _A5 = (float(c) for c in _LOG_POLY)
#: log's fast pass (PTO113): the same series economized to degree 4 (a change below 2**-40.01)
_LOG4_POLY, _LOG4_CHANGE = economized(_LOG_SERIES, Fraction(0), LOG_W, 4)
_F0, _F1, _F2, _F3, _F4 = (float(c) for c in _LOG4_POLY)
#: the proven relative error bounds of the log and 1/sqrt evaluations (below EPS), and of 1/sqrt's second tier
LOG_BOUND, RSQRT_BOUND, RSQRT2_BOUND = 2.0 ** -49, 2.0 ** -45.3, 2.0 ** -52
#: the proven relative error bound of log's fast pass (above EPS: it has its own window, 2**11)
LOG4_BOUND = 2.0 ** -43


def _window(bound: float) -> tuple[np.uint64, np.uint64]:
    """The certificate's window for an evaluation within ``bound`` (relative; ``bound * 2**53`` float64 ulps in
    any binade): twice that, rounded up to a power of two, either side of the dropped 29 bits' midpoint, as the
    modular shift and the bound :func:`_code_in` takes (EPS gives _SHIFT and _NEAR)."""
    half = 1 << math.ceil(math.log2(2 * bound * 2.0 ** 53))
    return np.uint64((1 << 29) - (1 << 28) + half), np.uint64(2 * half)


_LOG_SHIFT, _LOG_NEAR = _window(LOG_BOUND)
_LOG4_SHIFT, _LOG4_NEAR = _window(LOG4_BOUND)
_RSQRT_SHIFT, _RSQRT_NEAR = _window(RSQRT_BOUND)
_RSQRT2_SHIFT, _RSQRT2_NEAR = _window(RSQRT2_BOUND)


@_inline
def _exp(v):
    """(p within EXP_EPS of exp(r), and the integer k of exp(v) = 2**k exp(r), |r| <= EXP_R), ``v`` an f32 value
    with ``|v| < 88.8``."""
    kr = v * _INV_LN2 + _ROUND  # k in its low bits (two's complement)
    k = kr - _ROUND
    r = v - k * _LN2
    p = _E0 + r * (_E1 + r * (_E2 + r * (_E3 + r * (_E4 + r * (_E5 + r * (_E6 + r * (_E7 + r * (_E8 + r * _E9))))))))
    return p, np.int32(np.float64(kr).view(np.int64))


@_inline
def _exp_dist(p):
    """How far ``p``'s 29 dropped bits lie from their midpoint, shifted so that the window is 0.._EXP_NEAR."""
    return (np.float64(p).view(np.uint64) + _EXP_SHIFT) & _LOW29


@_inline
def _exp_lane(v):
    """The fast pass on the f32 value ``v``: (its code, as exp(v) = 2**k p rounds p; :func:`_exp_dist` of p; |v|'s
    f32 code, which the pass takes below _EXP_TOP)."""
    p, k = _exp(np.float64(v))
    return (np.float32(p).view(np.uint32) + (np.uint32(k) << np.uint32(23)), _exp_dist(p),
            np.uint32(np.float32(v).view(np.uint32) & _ABS))


@_exact_inline
def _two_sum(a, b):
    s = a + b
    t = s - a
    return s, (a - (s - t)) + (b - t)


@_exact_inline
def _two_prod(a, b):
    """a * b as p + e exactly (Dekker, with Veltkamp's split; no overflow here)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@_exact
def exp_dd(v):
    """(hi, lo, k): exp(v) = 2**k (hi + lo) within EXP_DD_EPS relative, hi + lo in [0.99, 2.02], for an f32 value
    ``v`` in (-87.3, 88.7) (decision PTO198)."""
    n = math.floor(v * _INV64 + 0.5)
    j = int(n) & 63
    s = v - n * _C1  # exact, as n * _C1 and n * _C2 are
    rh, e = _two_sum(s, -(n * _C2))
    rl = e - n * _C3
    rh, rl = _two_sum(rh, rl)
    q = _Q[0] + rh * (_Q[1] + rh * (_Q[2] + rh * (_Q[3] + rh * _Q[4])))
    sh, sl = _two_prod(rh, rh)
    ah, al = _two_sum(rh, 0.5 * sh)
    ph, pl = _two_sum(ah, ((al + rl) + 0.5 * (sl + 2.0 * rh * rl)) + (rh * sh) * q)  # e**r - 1
    th, tl = _TH[j], _TL[j]
    mh, ml = _two_prod(th, ph)
    yh, e = _two_sum(th, mh)
    yh, yl = _two_sum(yh, e + (((ml + th * pl) + tl * ph) + tl))
    return yh, yl, (int(n) - j) >> 6


@_exact
def _exp_dd_code(v):
    """The f32 code of exp(v) from :func:`exp_dd` where the exact value's side of the nearest f32 midpoint is
    certain, else the mark."""
    if not (v > -87.3 and v < 88.7):
        return MARK
    yh, yl, k = exp_dd(v)
    t = np.uint64(np.float64(yh).view(np.uint64) & ~_LOW29)  # yh truncated to 24 bits
    d = (yh - np.uint64(t | np.uint64(1 << 28)).view(np.float64)) + yl  # from the midpoint above t
    if abs(d) <= _DD_TOL:
        return MARK
    code = np.float32(t.view(np.float64)).view(np.uint32)
    return np.uint32(code + np.uint32(d > 0) + (np.uint32(k) << np.uint32(23)))


@_inline
def _log_split(b):
    """(e 2**23, S, w = S**2) of the f32 code ``b``: its value 2**e m, m in [sqrt(1/2), sqrt(2)), S = 2 (m - 1) / (m
    + 1). ``e 2**23`` is ``e``'s bits where the code holds them (no shift; times ``LN2 2**-23``, an exact scaling,
    it gives ``e LN2``'s bits: decision PTO115)."""
    e = (np.uint32(b) - _SQRT_HALF) & np.uint32(0xFF800000)  # 2**e m, m's f32 code in [_SQRT_HALF, 2 _SQRT_HALF)
    m = np.float64(np.uint32(np.uint32(b) - e).view(np.float32))
    s = (2.0 * m - 2.0) / (m + 1.0)
    return np.float64(np.int32(e)), s, s * s


@_inline
def _log(b):
    """(log of the f32 code ``b``, within LOG_BOUND; whether ``b`` is a positive normal number)."""
    e, s, w = _log_split(b)
    w2 = w * w
    q = (_A0 + w * _A1) + w2 * ((_A2 + w * _A3) + w2 * (_A4 + w * _A5))
    return e * _LN2_23 + ((s * w) * q + s), b - np.uint32(0x00800000) < np.uint32(0x7F000000)


@_inline
def _log4(b):
    """log of the f32 code ``b`` (a positive normal number) within LOG4_BOUND: ``Q`` of degree 4."""
    e, s, w = _log_split(b)
    w2 = w * w
    q = (_F0 + w * _F1) + w2 * ((_F2 + w * _F3) + w2 * _F4)
    return e * _LN2_23 + ((s * w) * q + s)


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
# chunk loop vectorises better than the same loop inlined there). a: a row's f32 codes (f32 values for expdif),
# o: its output codes; log and 1/sqrt return how many lanes they marked.
@_row
def _exp_row(a, o):
    """exp of a row (the fast pass); whether a lane needs a second look: its input is not within (-87, 87), or it
    comes within the window (the least distance of the row's lanes)."""
    dist, top = np.uint64(-1), np.uint32(0)
    for j in range(a.size):
        o[j], d, t = _exp_lane(np.uint32(a[j]).view(np.float32))
        dist, top = min(dist, d), max(top, t)
    return dist <= _EXP_NEAR or top >= _EXP_TOP


@_row
def _log_flag_row(a, o):
    """log of a row, every lane written from :func:`_log4`'s value; whether a lane needs :func:`_log_row`: its input
    is not a positive normal number (the largest ``b - 2**23`` of the row's codes), or its value comes within the
    fast pass's window, 2**11 (the least distance of the row's lanes) (decision PTO113)."""
    dist, top = np.uint64(-1), np.uint32(0)
    for j in range(a.size):
        b = a[j]
        y = _log4(b)
        o[j] = np.float32(y).view(np.uint32)
        dist = min(dist, (np.float64(y).view(np.uint64) + _LOG4_SHIFT) & _LOW29)
        top = max(top, np.uint32(b - np.uint32(0x00800000)))
    return dist <= _LOG4_NEAR or top >= np.uint32(0x7F000000)


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
    """:func:`_exp_row` of float32(a - w): ``w`` the row's C values (cb 1) or its one value (cb 0)."""
    dist, top = np.uint64(-1), np.uint32(0)
    if cb:
        for j in range(a.size):
            o[j], d, t = _exp_lane(a[j] - w[j])
            dist, top = min(dist, d), max(top, t)
    else:
        s = w[0]
        for j in range(a.size):
            o[j], d, t = _exp_lane(a[j] - s)
            dist, top = min(dist, d), max(top, t)
    return dist <= _EXP_NEAR or top >= _EXP_TOP


@_row
def _difference(a, w, cb):
    """float32(a - w) of a row, ``w`` as in :func:`_expdif_row`."""
    d = np.empty_like(a)
    if cb:
        for j in range(a.size):
            d[j] = a[j] - w[j]
    else:
        for j in range(a.size):
            d[j] = a[j] - w[0]
    return d


@_inline
def _exp_unsure(v):
    """Whether the fast pass leaves exp of the f32 value ``v`` to the second tier: ``|v| >= 87``, or within its
    window."""
    _, d, t = _exp_lane(v)
    return (d <= _EXP_NEAR) | (t >= _EXP_TOP)


#: how many lanes the second look tests at once
_BLOCK = 64


@_row
def _exp_fix(v, o, base, bad, nb):
    """The second look at a row ``o`` of exp(v) that :func:`_exp_row` or :func:`_expdif_row` flagged, block by
    block: in a block holding a flagged lane, each such lane takes :func:`_exp_dd_code`'s code (decision PTO198);
    those it leaves marked are appended to ``bad`` (flat indices ``base + j``) from ``nb``. Returns the new
    count, -1 once ``bad`` is full."""
    C = o.size
    for j0 in range(0, C, _BLOCK):
        j1 = min(j0 + _BLOCK, C)
        hit = False
        for j in range(j0, j1):
            hit |= _exp_unsure(v[j])
        if not hit:
            continue
        for j in range(j0, j1):
            if _exp_unsure(v[j]):
                c = _exp_dd_code(np.float64(v[j]))
                o[j] = c
                if c == MARK and nb >= 0:
                    if nb == bad.size:
                        nb = -1
                    else:
                        bad[nb] = base + j
                        nb += 1
    return nb


# The tile loops: the R rows of x (f32 codes: a flat buffer and its row step, as jit.rows gives them) into out
# likewise; bad: the flat indices (i * C + j) of the marked lanes. Returns their count, or -1 when bad is full.
@_kernel
def _exp_k(x, sx, out, so, R, C, bad):
    xf, nb = x.view(np.float32), np.int64(0)
    for i in range(R):
        o, a = out[i * so:i * so + C], xf[i * sx:i * sx + C]
        if _exp_row(x[i * sx:i * sx + C], o):
            nb = _exp_fix(a, o, i * C, bad, nb)
    return nb


@_kernel
def _log_k(x, sx, out, so, R, C, bad):
    nb = 0
    for i in range(R):
        a, o = x[i * sx:i * sx + C], out[i * so:i * so + C]
        if _log_flag_row(a, o) and _log_row(a, o) and nb >= 0:  # a flagged row, again with marks
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
    xf, bf, nb = x.view(np.float32), b.view(np.float32), np.int64(0)
    for i in range(R):
        o, a, w = out[i * so:i * so + C], xf[i * sx:i * sx + C], bf[i * sb:i * sb + (C if cb else 1)]
        if _expdif_row(a, w, cb, o):
            nb = _exp_fix(_difference(a, w, cb), o, i * C, bad, nb)
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


def prepared(kind: str, x: np.ndarray, out: np.ndarray, R: int, C: int) -> tuple:
    """What :func:`run_prepared` needs, besides the arrays, to run ``kind``'s kernel (exp, log, rsqrt) on the
    top-left R x C lanes of ``x`` into ``out`` (whole tiles' f32 codes: 2-D C-contiguous uint32 arrays, apart in
    memory): the kernel, the row steps, R, C and the list's size (decision PTO115). It holds no array, so a kept
    entry keeps no tile's memory alive."""
    return _KERNELS[kind], x.shape[1], out.shape[1], R, C, min(_BAD_CAP, R * C)


def run_prepared(p: tuple, x: np.ndarray, out: np.ndarray) -> np.ndarray | None:
    """:func:`run` on the arrays and the arguments :func:`prepared` made for them."""
    kernel, sx, so, R, C, cap = p
    bad = np.empty(cap, np.int64)
    n = kernel(x.reshape(-1), sx, out.reshape(-1), so, R, C, bad)
    return None if n < 0 else bad[:n]
