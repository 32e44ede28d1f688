"""Error metrics of a GEMM result against a float64 reference, in the accumulator's terms.

- ``rel``: ``||C - R||_F / ||R||_F`` (``||C||_F`` when R is zero); Inf when C
  holds Inf or NaN.
- ``row``: the largest ``||C_i - R_i|| / ||R_i||`` over the rows i: each
  row measured against its own size (a token's output vector), so one
  result near zero cannot dominate, as it does the largest ULP error.
- ULP errors: ``|C - R| / ulp(R)`` per element, with ``ulp(x)`` the spacing of
  the accumulator format at x: ``2**(max(e, emin) - man_bits)`` for floats
  (e = floor(log2 |x|), at most emax; zero has the subnormal spacing), and
  ``2**-frac_bits`` for integer and fixed-point accumulators. Both C and R are
  in the accumulator's units (the inputs divided by the per-tensor scales of
  integer formats). Inf where C is not finite.
- ``ulp_p99``: the 99th percentile of the ULP errors (the lower of the
  two neighbours, numpy's ``method="lower"``, so it is one element's error),
  robust where ``ulp_max`` is driven by a few results near zero.
- The ULP histogram counts elements in bins with upper edges 0.5, 1, 2, 4, ...,
  2**30, Inf (each bin holds its upper edge; the first holds 0).
- ``wrapped``: results of an integer or fixed-point accumulator that wraps
  (SAT off) whose exact value of the quantised inputs lies outside the
  accumulator's range. Wrapping is modular, so these are the results off by a
  multiple of 2**bits.

>>> from tilesim import formats
>>> acc = formats.get("fp32")
>>> ulps(np.array([1.0 + 2**-23, 3.0]), np.array([1.0, 3.0]), acc).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import numpy as np

from ..formats import Format, Kind

__all__ = ["ULP_EDGES", "matmul64", "rel_error", "row_error", "ulp_of", "ulps", "histogram", "summary", "wrapped",
           "share"]

ULP_EDGES: tuple[float, ...] = (0.5,) + tuple(float(2**i) for i in range(31)) + (float("inf"),)


def matmul64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` in float64 in a fixed order: numpy's einsum loop, not BLAS, whose summation order
    depends on its thread count (Dask workers run one thread), so a record is the same in every process."""
    return np.einsum("ik,kj->ij", a, b, optimize=False)


def rel_error(c: np.ndarray, ref: np.ndarray) -> float:
    """``||C - R||_F / ||R||_F``; Inf if C is not finite."""
    if not np.isfinite(c).all():
        return float("inf")
    d = _norm(ref)
    diff = _norm(c - ref)
    return diff / d if d else diff


def row_error(c: np.ndarray, ref: np.ndarray) -> float:
    """Largest ``||C_i - R_i|| / ||R_i||`` over rows (``||C_i - R_i||`` for a zero row); Inf if C is not finite."""
    if not np.isfinite(c).all():
        return float("inf")
    d = np.sqrt(np.sum(np.square(c - ref, dtype=np.float64), axis=-1))
    r = np.sqrt(np.sum(np.square(ref, dtype=np.float64), axis=-1))
    return float(np.max(np.where(r > 0, d / np.where(r > 0, r, 1.0), d))) if c.size else 0.0


def share(mask: np.ndarray, of: np.ndarray | None = None) -> float:
    """``mask``'s true count over the size of ``of`` (or of ``mask``); 0 when empty."""
    n = mask.size if of is None else of.size
    return float(mask.sum()) / n if n else 0.0


def _norm(x: np.ndarray) -> float:
    """Frobenius norm in numpy's own pairwise sum, not BLAS's dot (``np.linalg.norm``), whose order depends
    on its thread count: the same record in every process (S5)."""
    return float(np.sqrt(np.sum(np.square(x, dtype=np.float64))))


def ulp_of(x: np.ndarray, acc: Format) -> np.ndarray:
    """The spacing of ``acc`` at each value of ``x`` (float64, in the accumulator's units)."""
    if acc.kind is not Kind.FLOAT:
        return np.full(np.shape(x), 2.0 ** -acc.frac_bits)
    _, e = np.frexp(np.asarray(x, np.float64))
    e = np.where(x == 0, acc.emin, np.clip(e - 1, acc.emin, acc.emax))
    return np.ldexp(1.0, e - acc.man_bits)


def ulps(c: np.ndarray, ref: np.ndarray, acc: Format) -> np.ndarray:
    """``|C - R| / ulp(R)`` per element (Inf where C is Inf or NaN)."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(c - ref) / ulp_of(ref, acc)
    return np.where(np.isfinite(err), err, np.inf)


def histogram(err: np.ndarray) -> tuple[int, ...]:
    """Counts of ``err`` in the bins of :data:`ULP_EDGES`."""
    idx = np.searchsorted(np.array(ULP_EDGES), err.ravel(), side="left")
    return tuple(int(x) for x in np.bincount(idx, minlength=len(ULP_EDGES)))


def summary(c: np.ndarray, ref: np.ndarray, acc: Format) -> tuple[dict[str, float], tuple[int, ...]]:
    """(rel, row, ulp_max, ulp_p99, ulp_over1) and the ULP histogram of C against R, in the accumulator's units."""
    err = ulps(c, ref, acc)
    return ({"rel": rel_error(c, ref), "row": row_error(c, ref), "ulp_max": float(err.max()),
             "ulp_p99": float(np.percentile(err, 99, method="lower")), "ulp_over1": float((err > 1).mean())},
            histogram(err))


def wrapped(ref_quantised: np.ndarray, acc: Format, saturating: bool) -> int:
    """Results whose exact value (``ref_quantised``, in the accumulator's units) does not fit a wrapping
    integer or fixed-point accumulator; 0 for floats and when SAT clamps.

    ``ref_quantised`` is exact when float64 holds every partial sum, as it does
    for products of formats up to 16 bits over any practical K.
    """
    if acc.kind is Kind.FLOAT or saturating:
        return 0
    return int(((ref_quantised < float(acc.min_exact)) | (ref_quantised > float(acc.max_exact))).sum())
