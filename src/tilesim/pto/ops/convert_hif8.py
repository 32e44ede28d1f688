"""TCVT to and from HiFloat8 on ``cpu``, as pto-isa's CPU simulator computes it (decision PTO183).

The simulator's ``hifloat8_t`` (include/pto/cpu/Hifloat8.hpp) reads and writes codes through a table of
doubles built from its own reading of the fields, and TCVT (include/pto/cpu/TCvt.hpp ``convert_value``)
converts through that double:

* reading (:data:`SIM_VALUES`): the paper's value (:mod:`tilesim.formats.hif8`) except in two dot modes,
  where the simulator takes mantissa bits that are not there: dot ``0001`` (E = 0) reads 1 + M/32 for its
  3-bit M, and dot ``001`` reads its 4 bits after the prefix as a mantissa under E = +1, 2 * (1 + b/16),
  so it never gives the paper's 0.5 .. 0.9375;
* writing (:func:`sim_encode`): the table's nearest value to the double, by ``|value - x|`` in double; a
  tie goes to the lower value; a finite value beyond ±2**15 and +Inf give ±2**15 (0x6E / 0xEE), -Inf
  gives 0xEF, and NaN also 0xEF (the constructor stores 0x80, then overwrites it with the first entry of its
  sorted table, -Inf); -0 gives 0x00;
* hif8 to a float: ``static_cast<D>(double)`` (exact; NaN is the positive default NaN); to an integer the
  C++ cast of the double (truncation; NaN, Inf and out of range are undefined, x86-64's values marked as in
  :mod:`.convert_cpu`); the round mode is not applied;
* a float or an integer to hif8: :func:`sim_encode` of ``static_cast<double>(v)``; the round mode is ignored;
* hif8 to hif8: the code is copied;
* saturation on: ``SafeLimits<hifloat8_t>`` are ``numeric_limits<hifloat8_t>``'s defaults, ``hifloat8_t()``,
  so both limits are 0 and every lane converts 0 (code 0x00, +0.0 or 0).
"""

from __future__ import annotations

import numpy as np

from ...formats import hif8
from ..dtypes import DType
from . import convert_cpu

__all__ = ["SIM_VALUES", "sim_encode", "convert"]


def _sim_value(code: int) -> float:
    """The simulator's double for one code."""
    rest = code & 0x7F
    if rest >> 3 == 0b0001:                        # dot 0001: E = 0, the 3 bits read as 5
        v = 1 + (rest & 0x7) / 32
    elif rest >> 4 == 0b001:                       # dot 001: 4 bits of mantissa under E = +1
        v = 2 * (1 + (rest & 0xF) / 16)
    else:
        return float(hif8.VALUES[code])
    return -v if code & 0x80 else v


SIM_VALUES = np.array([_sim_value(c) for c in range(256)])
_ORDER = np.array(sorted((c for c in range(256) if not np.isnan(SIM_VALUES[c])), key=lambda c: SIM_VALUES[c]))
_SORTED = SIM_VALUES[_ORDER]


def sim_encode(x: np.ndarray) -> np.ndarray:
    """``hifloat8_t(double)`` of float64 values: codes (uint8)."""
    x = np.asarray(x, np.float64)
    i = np.searchsorted(_SORTED, x, side="left")            # std::lower_bound: the first value >= x
    hi = np.minimum(i, _SORTED.size - 1)
    lo = np.maximum(i - 1, 0)
    with np.errstate(invalid="ignore"):
        take_hi = np.abs(_SORTED[hi] - x) < np.abs(_SORTED[lo] - x)  # NaN differences compare false
    code = np.where(i == 0, _ORDER[0], np.where(take_hi, _ORDER[hi], _ORDER[lo]))
    return np.where(np.isnan(x), _ORDER[0], code).astype(np.uint8)


def convert(bits: np.ndarray, s: DType, d: DType, mode: str, saturate: bool) -> tuple[np.ndarray, np.ndarray]:
    """(destination lanes, undefined mask) of the simulator's TCVT of ``bits`` from ``s`` to ``d``."""
    undefined = np.zeros(bits.shape, bool)
    if saturate:                                            # both SafeLimits are 0: every lane is 0
        return np.zeros(bits.shape, d.lane), undefined
    if s.name == d.name:
        return bits.copy(), undefined
    with np.errstate(all="ignore"):
        if s.name == "hif8":
            x = SIM_VALUES[bits.astype(np.intp)]
            if d.is_float:
                return x.astype(d.np).view(d.lane), undefined
            return convert_cpu.x86_cast(x, d)
        x = bits.view(s.np).astype(np.float64)
        return sim_encode(x), undefined
