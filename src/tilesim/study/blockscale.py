"""Block-scaled inputs: each block of N elements along K shares one scale (OCP MX v1.0, and NVFP4's kind).

:func:`quantize_blocks` turns float64 values into element values of a
format of the core and one scale per block (docs/decisions.md S10):

- ``e8m0`` scales (OCP MX v1.0, §6.3): ``X = 2**(floor(log2 amax) - emax)``
  with ``amax`` the block's largest magnitude and ``emax`` the exponent of
  the element format's largest value (8 for FP8 E4M3, 15 for E5M2, 4 for
  FP6 E3M2, 2 for E2M3 and FP4 E2M1, 6 for INT8), clipped to 2**-127 ..
  2**127; an all-zero block gets 2**-127.
- ``fp8_e4m3`` scales (NVFP4's kind): ``X = E4M3(amax / max)``, rounded to
  nearest-even and clamped to 448; a block whose X rounds to 0 is all zeros.
- Elements: ``P = RNE(V / X)`` clamped to the element format's largest
  magnitude (the MX rule). V / X is exact for E8M0's powers of two, and
  rounded to odd in float64 for E4M3 scales, so the one rounding is correct
  (Boldo and Melquiond 2005).
- A block holding NaN or an infinity gets a NaN scale, and all its values are
  NaN (the element formats have no Inf; a NaN X makes the block NaN).
- K need not be a multiple of N: the last block is shorter.

How scales enter the MAC (docs/decisions.md S11), both offered:

- ``after`` (the default): MMACC.T multiplies the elements in their own
  format into its accumulator, one K-slice at a time from zero (a slice of
  ``min(K-step, block)`` elements, so each slice has one scale per row); the
  runtime multiplies each slice's result by ``X_A x X_B`` (exact) and adds it
  into an FP32 total, rounded once per slice with RND (:func:`scaled_after`).
  This is OCP's block dot product ``X_A X_B sum P_A P_B`` with the sums of
  the proposal's MAC.
- ``before``: the runtime dequantises ``P x X`` into :func:`dequantised`
  (BF16, or FP32 where BF16 cannot hold every product exactly) and runs the
  GEMM in that format, with its accumulator.

Counts, per operand: ``clipped``, the share of elements whose ``|V / X|`` is
beyond the element format's largest value, and ``flushed``, the share of
non-zero elements that became zero.

>>> q = quantize_blocks(np.array([[1.0, -3.0, 500.0, 0.0009]]), "fp8_e4m3", "e8m0", 4)
>>> q.scales.tolist(), q.values.tolist(), q.clipped, q.flushed
([[1.0]], [[1.0, -3.0, 448.0, 0.0]], 0.25, 0.25)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import formats
from ..errors import TilesimError
from ..formats import Format
from .metrics import share

__all__ = ["SCALE_FORMATS", "SCALE_AT", "DEFAULT_BLOCK", "TOTAL", "Blocks", "check", "emax_of", "quantize_blocks",
           "dequantised", "scaled_after"]

SCALE_FORMATS: tuple[str, ...] = ("none", "e8m0", "fp8_e4m3")
SCALE_AT: tuple[str, ...] = ("after", "before")  # scales enter after the K-slice sum, or dequantise before the MAC
DEFAULT_BLOCK = 32  # OCP MX's k
TOTAL = "fp32"  # the runtime's running sum of scaled K-slice results (scale_at = after)
_E4M3_MAX = 448.0


@dataclass(frozen=True)
class Blocks:
    """Block-scaled values: ``values`` = ``elements`` x their block's scale (float64, the input's shape),
    ``scales`` (rows, blocks), and the shares of ``clipped`` and ``flushed`` elements."""

    values: np.ndarray
    elements: np.ndarray
    scales: np.ndarray
    clipped: float
    flushed: float


def check(elem, scale: str, block: int) -> Format:
    """The element format, checked with its scale format and block size.

    Raises:
        TilesimError: an unknown scale format, a block below 1 (``study.block``), or an element format with
            no finite largest value to scale to (``study.block``).
    """
    if scale not in SCALE_FORMATS:
        raise TilesimError(f"unknown block scale {scale!r}; valid: " + ", ".join(SCALE_FORMATS), instruction="study",
                           operand="--block-scale", rule="study.block", value=scale)
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise TilesimError(f"block size {block!r} is not a positive integer", instruction="study",
                           operand="--block-size", rule="study.block", value=block)
    fmt = formats.get(elem)
    if not fmt.signed or not fmt.has_zero:
        raise TilesimError(f"{fmt.name} is not a signed element format with a zero; block scaling needs one",
                           instruction="study", operand="-f", rule="study.block", value=fmt.name)
    return fmt


def emax_of(fmt: Format) -> int:
    """The exponent of ``fmt``'s largest value: floor(log2 max)."""
    return int(np.frexp(float(fmt.max_exact))[1]) - 1


def _mantissa(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m, e) with |x| = m * 2**e, m an odd int64 below 2**53 (1 and 0 for x = 0)."""
    f, e = np.frexp(np.abs(x))
    m = (f * 2.0**53).astype(np.int64)
    m = np.where(m == 0, 1, m)
    low = (m & -m).astype(np.float64)  # the lowest set bit: strip trailing zeros
    tz = np.frexp(low)[1] - 1
    return m >> tz, e - 53 + tz


def _div_odd(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` rounded to odd at 44 or more bits (exact when it fits), for den of at most 9 significant
    bits and non-zero; one more rounding to a format of at most 42 bits is then the correctly rounded
    quotient in every mode."""
    mn, en = _mantissa(num)
    md, ed = _mantissa(den)
    shift = 53 - np.frexp(mn.astype(np.float64))[1]  # the numerator's mantissa widened to 53 bits
    q, r = np.divmod(mn << shift, md)
    q = q | (r != 0)
    with np.errstate(over="ignore"):  # beyond float64: Inf, which the callers clamp or drop
        out = np.ldexp(q.astype(np.float64), en - shift - ed)
    return np.where(num == 0, num * 0.0, np.copysign(out, np.sign(num) * np.sign(den)))


def _e8m0(amax: np.ndarray, fmt: Format) -> np.ndarray:
    e = np.frexp(amax)[1] - 1 - emax_of(fmt)
    return np.ldexp(1.0, np.where(amax == 0, -127, np.clip(e, -127, 127)))


def _e4m3(amax: np.ndarray, fmt: Format) -> np.ndarray:
    top = np.full(amax.shape, float(fmt.max_exact))
    return formats.quantize(_div_odd(amax, top), "fp8_e4m3", saturate=True)


def quantize_blocks(x, elem, scale: str = "e8m0", block: int = DEFAULT_BLOCK) -> Blocks:
    """Block-scale ``x`` (rows, K) along K; see the module docstring.

    Raises:
        TilesimError: what :func:`check` refuses.
    """
    fmt = check(elem, scale, block)
    x = np.asarray(x, np.float64)
    if scale == "none":
        v = formats.quantize(x, fmt, saturate=True)
        return Blocks(v, v, np.ones(x.shape[:-1] + (0,)), share(np.abs(x) > float(fmt.max_exact)),
                      share((x != 0) & (v == 0), x))
    rows, k = x.shape
    nb = -(-k // block)
    if k % block:
        padded = np.zeros((rows, nb * block))
        padded[:, :k] = x
    else:
        padded = x
    blocks = padded.reshape(rows, nb, block)
    with np.errstate(invalid="ignore"):
        amax = np.max(np.abs(blocks), axis=-1)
    bad = ~np.isfinite(amax)
    if bad.any():
        amax = np.where(bad, 0.0, amax)
        blocks = np.where(bad[..., None], 0.0, blocks)
    scales = _e8m0(amax, fmt) if scale == "e8m0" else _e4m3(amax, fmt)
    zero_scale = scales == 0
    safe = np.where(zero_scale, 1.0, scales)[..., None]
    if scale == "e8m0":  # a power of two: exact, but where float64 underflows, far below every element's half-ulp
        ratio = blocks / safe
    else:
        ratio = _div_odd(blocks, np.broadcast_to(safe, blocks.shape))
    if zero_scale.any():
        ratio = np.where(zero_scale[..., None], 0.0, ratio)
    elements = formats.quantize(ratio, fmt, saturate=True)
    values = elements * scales[..., None]  # exact: few significant bits, within float64's range
    if bad.any():
        elements, values = (np.where(bad[..., None], np.nan, a) for a in (elements, values))
    elements, values = (a.reshape(rows, -1)[:, :k] for a in (elements, values))
    clipped = (np.abs(ratio) > float(fmt.max_exact)).reshape(rows, -1)[:, :k]
    return Blocks(values, elements, np.where(bad, np.nan, scales), share(clipped),
                  share((x != 0) & (values == 0), x))




def dequantised(elem, scale: str) -> str:
    """The format that holds every element x scale exactly: BF16 when their significant bits together fit its
    8, else FP32 (same exponent range; products beyond it, from inputs near 2**128, are clamped)."""
    fmt = formats.get(elem)
    bits = fmt.man_bits + 1 if fmt.is_float else fmt.bits - 1
    extra = 0 if scale == "e8m0" else formats.get(scale).man_bits + 1
    return "bf16" if bits + extra <= 8 else "fp32"


def _add_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x + y`` rounded to odd in float64 (exact where float64 holds it): rounding it once more to FP32 is the
    correctly rounded sum in every mode (Boldo and Melquiond 2005). Non-finite sums are numpy's."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = x + y
        bb = s - x
        err = (x - (s - bb)) + (y - bb)  # TwoSum: the exact error of s
    fix = np.isfinite(s) & (err != 0)
    toward0 = fix & ((err < 0) != (s < 0))
    t = np.where(toward0, np.nextafter(s, 0.0), s)
    odd = (t.view(np.int64) | 1).view(np.float64)
    return np.where(fix, odd, s)


def scaled_after(qa: Blocks, qb: Blocks, point, plan, run) -> tuple[np.ndarray, dict, int]:
    """C of ``scale_at = after``: each K-slice's MMACC.T result scaled and added into an FP32 total.

    ``qa`` holds A (M x K) and ``qb`` B transposed (N x K); ``plan`` is the point's plan, ``run`` the GEMM
    (:func:`~tilesim.ame.gemm.gemm`'s signature). Returns (C values, status, wrapped results).
    """
    m, k = qa.elements.shape
    n = qb.elements.shape[0]
    step = min(plan.k_step, point.block_size)
    total = np.zeros((m, n))
    status = {"guard_fallback": plan.guard_fallback, "badgeom": False, "inexact": False, "sat_hit": False}
    wrapped = 0
    for k0 in range(0, k, step):
        ks = slice(k0, min(k, k0 + step))
        r = run(qa.elements[:, ks], qb.elements[:, ks].T, ft=plan.ft.name, bovf=point.bovf, rnd=point.rnd,
                sat=point.sat, tiling=plan.mode_arg, accumulation=point.accumulation, acc=plan.acc.name)
        status["inexact"] |= r.status["inexact"]
        status["sat_hit"] |= r.status["sat_hit"]
        wrapped += r.wrapped
        blk = k0 // point.block_size
        with np.errstate(invalid="ignore", over="ignore"):
            term = r.values.astype(np.float64) * qa.scales[:, blk][:, None] * qb.scales[:, blk][None, :]
        odd = _add_odd(total, term)
        total = formats.quantize(odd, TOTAL, rounding=point.rnd)
        status["inexact"] |= bool((np.isfinite(odd) & (total != odd)).any())
    return total, status, wrapped
