"""The pto-isa test suite's comparison rule (``ResultCmp``, spec §5), for checking a device or tilesim
output against a golden the way the upstream tests do.

An element fails when both its absolute and its relative difference exceed
``eps``, or when exactly one side is NaN. The comparison passes when at most
``floor(n * eps)`` elements fail and no more than 1000 elements are zero in
the output while non-zero in the golden (the upstream "unexpected zeros" guard).
Upstream eps: 0.001 for f32 and 0.005 for f16 in TROWMAX; 0.001 in TCOLARGMAX.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CmpResult", "result_cmp"]

UNEXPECTED_ZEROS = 1000


@dataclass(frozen=True)
class CmpResult:
    passed: bool
    failures: int
    allowed: int
    unexpected_zeros: int


def result_cmp(output, golden, eps: float) -> CmpResult:
    """Compare ``output`` with ``golden`` by the ResultCmp rule.

    >>> result_cmp(np.array([1.0, 2.0005]), np.array([1.0, 2.0]), 1e-3).passed
    True
    """
    out = np.asarray(output, np.float64).ravel()
    gold = np.asarray(golden, np.float64).ravel()
    if out.shape != gold.shape:
        raise ValueError(f"shapes differ: {out.shape} vs {gold.shape}")
    with np.errstate(all="ignore"):
        diff = np.abs(out - gold)
        rel = diff / np.abs(gold)
    one_nan = np.isnan(out) != np.isnan(gold)
    both_nan = np.isnan(out) & np.isnan(gold)
    fail = one_nan | (~both_nan & (diff > eps) & ~(rel <= eps))
    allowed = int(np.floor(out.size * eps))
    zeros = int(np.count_nonzero((out == 0) & (gold != 0)))
    n = int(np.count_nonzero(fail))
    return CmpResult(n <= allowed and zeros <= UNEXPECTED_ZEROS, n, allowed, zeros)
