"""The SFPU's multiply-add on Wormhole B0: ``a * b + c`` on FP32 bit patterns, not IEEE FMA.

Every SFPU float op (SFPMAD, SFPADD, SFPMUL, SFPMULI, SFPADDI, SFPLUT, SFPLUTFP32) is this one
operation. The model is tt-isa-documentation's ``Miscellaneous/FMA/fma.c`` (``fma_model_wh``),
which ttsim uses too; in words (decision TT34):

1. Inputs with exponent 0 are zero (denormals flush, the sign is kept only for the product sign).
2. The 48-bit product is cut to 24 bits plus 3 guard bits, its dropped bits ORed into the last
   (sticky) bit; its exponent is the sum of the exponents.
3. A NaN/Inf operand or a product whose exponent reaches 255 is resolved first: Inf * 0, a NaN
   operand, or Inf - Inf give a "NaN result" ``sign | 0x7F800001`` (the product's sign, or c's
   sign when c is the NaN) that is ORed into whatever the rest computes; otherwise an infinite c
   returns c and an infinite product returns ``sign | 0x7F800000``.
4. A zero product, or one whose exponent is below 0, returns c unchanged (+0 when c is zero).
5. The smaller term is shifted right to the larger exponent; a term that keeps a non-zero value
   ORs the dropped bits into its last bit ("semi-sticky"), one shifted to nothing is 0.
6. Magnitudes add or subtract (the larger operand's sign wins); an exact zero is +0.
7. Normalising right keeps only the old last bit as sticky; exponent 255 or more is Inf;
   below 0 flushes to +0 (the sign is lost); then round to nearest even on the 3 guard bits;
   a result still below the normal range flushes to +0.

:func:`fma` is the numpy reference over whole arrays; :func:`fma_masked` writes the results to
the enabled lanes through a numba kernel (``jit``) or the reference. :func:`fma_doc` is the
``doc`` rounding model: what ``SFPMAD.md`` states (one rounding of the exact result).
"""

from __future__ import annotations

import numpy as np

__all__ = ["fma", "fma_masked", "fma_all", "fma_doc", "DOC_NAN"]

_U = np.uint64
_SIGN = 0x80000000


def _unpack(v: np.ndarray):
    e = ((v >> 23) & 255).astype(np.int64)
    m = np.where(e == 0, 0, (v & 0x7FFFFF) | 0x800000).astype(np.int64)
    return e, m


def fma(a, b, c) -> np.ndarray:
    """``a * b + c`` under the Wormhole SFPU model, elementwise over ``uint32`` bit patterns."""
    a, b, c = (np.asarray(x, np.uint32).astype(np.int64) for x in (a, b, c))
    ae, am = _unpack(a)
    be, bm = _unpack(b)
    ce, cm = _unpack(c)
    c_sign = c & _SIGN
    p_sign = (a ^ b) & _SIGN
    prod = am * bm                                    # < 2**48
    pm = (prod << 3 >> 23) | (((prod << 3) & 0x7FFFFF) != 0)
    pe = ae + be - 127
    cm = cm << 3
    c_inf = (ce == 255) & (cm == 0x4000000)
    special = (ae == 255) | (be == 255) | (pe >= 255) | (ce == 255)
    p_inf_like = (ae == 255) | (be == 255) | (pe >= 255)
    nan_p = special & (((ae == 255) & ((am != 0x800000) | (bm == 0))) | ((be == 255) & ((bm != 0x800000) | (am == 0)))
                       | (c_inf & p_inf_like & (c_sign != p_sign)))
    nan_c = special & ~nan_p & (ce == 255) & ~c_inf
    nan = np.where(nan_p, p_sign | 0x7F800001, np.where(nan_c, c_sign | 0x7F800001, 0))
    ret_c_inf = special & ~nan_p & ~nan_c & (ce == 255)
    ret_p_inf = special & ~nan_p & ~nan_c & ~ret_c_inf
    pe = np.where(special, np.minimum(pe, 255), pe)
    tiny = (pm == 0) | (pe < 0)
    pm = np.where(tiny, 0, pm)
    pe = np.where(tiny, 0, pe)
    ret_c = tiny & (nan == 0)                          # c, or +0 when c is zero
    c_zero = cm == 0
    re = np.maximum(pe, ce)
    pm = _semi_sticky(pm, re - pe)
    cm = _semi_sticky(cm, re - ce)
    r_sign = np.where(pm >= cm, p_sign, c_sign)
    rm = np.where(p_sign != c_sign, np.abs(pm - cm), pm + cm)
    _, width = np.frexp(rm.astype(np.float64))
    n = width.astype(np.int64) - 27
    re = re + n
    rm = np.where(n <= 0, rm << np.maximum(-n, 0), (rm >> np.maximum(n, 0)) | (rm & 1))
    r = (re << 23) + ((rm >> 3) & 0x7FFFFF)
    r = r + (((rm & 7) + (r & 1)) > 4)
    out = np.where(nan != 0, nan, r_sign) | r
    out = np.where((r >> 23) == 0, nan, out)
    out = np.where(re < 0, nan, out)
    out = np.where(re >= 255, np.where(nan != 0, nan, r_sign | 0x7F800000), out)
    out = np.where(rm == 0, nan, out)
    out = np.where(ret_c, np.where(c_zero, 0, c), out)
    out = np.where(ret_p_inf, p_sign | 0x7F800000, out)
    out = np.where(ret_c_inf, c, out)
    return out.astype(np.uint32)


def _semi_sticky(v: np.ndarray, s: np.ndarray) -> np.ndarray:
    s = np.minimum(s, 40)
    kept = v >> s
    return np.where(kept != 0, kept | ((kept << s) != v), 0)


def _numba_kernel():
    import numba

    @numba.njit(cache=True, nogil=True)
    def kernel(a, b, c, mask, out):                    # pragma: no cover - checked against fma()
        for i in range(a.shape[0]):
            if not mask[i]:
                continue
            x, y, z = np.int64(a[i]), np.int64(b[i]), np.int64(c[i])
            xe, ye, ze = (x >> 23) & 255, (y >> 23) & 255, (z >> 23) & 255
            xm = 0 if xe == 0 else (x & 0x7FFFFF) | 0x800000
            ym = 0 if ye == 0 else (y & 0x7FFFFF) | 0x800000
            zm = 0 if ze == 0 else (z & 0x7FFFFF) | 0x800000
            z_sign, p_sign = z & _SIGN, (x ^ y) & _SIGN
            pm = xm * ym << 3
            pm = (pm >> 23) | (1 if pm & 0x7FFFFF else 0)
            pe = xe + ye - 127
            zm <<= 3
            nan = 0
            if xe == 255 or ye == 255 or pe >= 255 or ze == 255:
                pinf = xe == 255 or ye == 255 or pe >= 255
                if (xe == 255 and (xm != 0x800000 or ym == 0)) or (ye == 255 and (ym != 0x800000 or xm == 0)) \
                        or (ze == 255 and zm == 0x4000000 and pinf and z_sign != p_sign):
                    nan = p_sign | 0x7F800001
                elif ze == 255 and zm != 0x4000000:
                    nan = z_sign | 0x7F800001
                elif ze == 255:
                    out[i] = z
                    continue
                else:
                    out[i] = p_sign | 0x7F800000
                    continue
                pe = min(pe, 255)
            if pm == 0 or pe < 0:
                if nan:
                    pm, pe = 0, 0
                else:
                    out[i] = z if zm else 0
                    continue
            re = max(pe, ze)
            if pe < re:
                s = re - pe
                k = pm >> s if s < 40 else 0
                pm = (k | (1 if (k << s) != pm else 0)) if k else 0
            if ze < re:
                s = re - ze
                k = zm >> s if s < 40 else 0
                zm = (k | (1 if (k << s) != zm else 0)) if k else 0
            r_sign = p_sign if pm >= zm else z_sign
            rm = abs(pm - zm) if p_sign != z_sign else pm + zm
            if rm == 0:
                out[i] = nan
                continue
            width = 0
            t = rm
            while t:
                width += 1
                t >>= 1
            n = width - 27
            re += n
            if re >= 255:
                out[i] = nan if nan else r_sign | 0x7F800000
                continue
            if re < 0:
                out[i] = nan
                continue
            rm = rm << -n if n <= 0 else (rm >> n) | (rm & 1)
            r = (re << 23) + ((rm >> 3) & 0x7FFFFF)
            r += 1 if (rm & 7) + (r & 1) > 4 else 0
            if (r >> 23) == 0:
                out[i] = nan
                continue
            out[i] = (nan if nan else r_sign) | r

    return kernel


_KERNEL = None


def _lanes(x, shape) -> np.ndarray:
    """An operand as a uint32 array of ``shape`` (a scalar is broadcast)."""
    if isinstance(x, np.ndarray) and x.shape == shape and x.dtype == np.uint32:
        return x
    return np.broadcast_to(np.asarray(x, np.uint32), shape)


def fma_masked(a, b, c, mask: np.ndarray, out: np.ndarray, jit: bool = True) -> None:
    """``out[mask] = fma(a, b, c)[mask]``, in place: through the numba kernel when ``jit``."""
    global _KERNEL
    if jit:
        if _KERNEL is None:
            _KERNEL = _numba_kernel()
        _KERNEL(_lanes(a, out.shape), _lanes(b, out.shape), _lanes(c, out.shape), mask, out)
    else:
        np.copyto(out, fma(a, b, c), where=mask)


_ALL = np.ones(32, bool)


def fma_all(a, b, c, jit: bool = True, rounding: str = "hardware") -> np.ndarray:
    """:func:`fma` on 32 lanes, through the numba kernel when ``jit``; :func:`fma_doc` for the ``doc`` model."""
    if rounding == "doc":
        return np.broadcast_to(fma_doc(a, b, c), (32,))
    if not jit:
        return fma(a, b, c)
    out = np.zeros(32, np.uint32)
    fma_masked(a, b, c, _ALL, out, jit=True)
    return out


#: The NaN the ``doc`` model writes: the page guarantees only that the mantissa's last bit is set.
DOC_NAN = 0x7FC00001


def fma_doc(a, b, c) -> np.ndarray:
    """``a * b + c`` as ``SFPMAD.md`` states it (the ``doc`` rounding model, decision TT34): denormal
    inputs are zero; the exact ``a * b + c`` is rounded once to nearest even; a denormal or negative
    zero result is +0; Inf and NaN follow IEEE 754, a NaN result being :data:`DOC_NAN`.

    The exact sum is formed in float64 (the product of two FP32 values is exact there), rounded to
    odd by TwoSum and a one-ulp step, then rounded to FP32: odd rounding to 53 bits followed by
    rounding to 24 is the single rounding (53 >= 24 + 2).
    """
    a, b, c = (_flush_in(np.asarray(x, np.uint32)) for x in (a, b, c))
    with np.errstate(all="ignore"):
        p = a.view(np.float32).astype(np.float64) * b.view(np.float32).astype(np.float64)
        z = c.view(np.float32).astype(np.float64)
        s = p + z
        bb = s - p
        err = (p - (s - bb)) + (z - bb)                  # TwoSum: p + z = s + err exactly
        even = (s.view(np.uint64) & np.uint64(1)) == 0
        step = np.isfinite(s) & (err != 0) & even
        s = np.where(step, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        r = s.astype(np.float32).view(np.uint32)
    r = np.where(np.isnan(s), np.uint32(DOC_NAN), r)
    return np.where((r & 0x7F800000) == 0, np.uint32(0), r).astype(np.uint32)


def _flush_in(v: np.ndarray) -> np.ndarray:
    return np.where((v & 0x7F800000) == 0, v & np.uint32(0x80000000), v)
