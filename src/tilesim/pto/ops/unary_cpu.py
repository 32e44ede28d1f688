"""TLOG and TRECIP of integer tiles as pto-isa's CPU simulator computes them (target ``cpu``, decision PTO121).

The simulator's ``ElementOpCal`` has no dtype check: TLOG is ``static_cast<T>(std::log(double(x)))`` and TRECIP
the C++ integer division ``1 / x``. So TLOG of ``x >= 1`` is ``floor(ln x)``, found here exactly by comparing
``x`` with the integers ``ceil(e^k)`` (no floating point); ``ln 0 = -inf`` and ``ln x = NaN`` for ``x < 0``
cast to an integer are undefined behaviour: x86-64's values, marked in ``Tile.undefined``. TRECIP is 1 for 1,
-1 for -1 and 0 otherwise; ``1 / 0`` traps (rule ``pto.op.div_zero``).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Context, Decimal

import numpy as np

from ...errors import SpecGapError
from .. import numerics as nx
from ..dtypes import DType
from . import convert_cpu

__all__ = ["LOG_DTYPES", "int_log", "int_recip"]

#: the integer dtypes TLOG takes on cpu: up to 32 bits, where every double ``log`` (within an ulp) truncates to
#: ``floor(ln x)``; a 64-bit ``x`` near ``e^k`` (k >= 37) truncates to k or k - 1 by the libm's last bit (PTO121)
LOG_DTYPES = ("i8", "i16", "i32", "u8", "u16", "u32")

_CTX = Context(prec=40)
#: ceil(e^k) for k = 1..22: x >= 1 has floor(ln x) = the number of these <= x (e^22 < 2^32 < e^23)
_E_CEIL = np.array([int(_CTX.exp(Decimal(k)).to_integral_value(ROUND_CEILING)) for k in range(1, 23)], np.int64)


def int_log(op, bits: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """(lanes, undefined mask) of TLOG of integer lanes."""
    x = nx.int_view(bits, dt).astype(np.int64)
    k = np.searchsorted(_E_CEIL, x, side="right").astype(np.float64)
    with np.errstate(invalid="ignore"):
        ln = np.where(x >= 1, k, np.where(x == 0, -np.inf, np.nan))
    lanes, undefined = convert_cpu.x86_cast(ln, dt)
    if op.prof.strict and undefined.any():
        where = tuple(int(i) for i in np.argwhere(undefined)[0])
        bad = int(x[where])
        raise SpecGapError(f"ln({bad}) at {where} is {'-inf' if bad == 0 else 'NaN'}, whose cast to {dt} is "
                           "undefined in C++; strict mode refuses it (use x >= 1)", instruction=op.inst,
                           operand="src", rule="pto.tcvt.undefined", value=bad)
    return lanes, undefined


def int_recip(op, bits: np.ndarray, dt: DType) -> np.ndarray:
    """TRECIP of integer lanes: the C++ ``1 / x`` (x = 0 raises ``pto.op.div_zero``)."""
    x = nx.int_view(bits, dt)
    nx.check_divisor(np.ones_like(x), x, dt, op.inst, x86=True, what="reciprocal")
    r = np.where(x == 1, 1, 0)
    if dt.signed:
        r = np.where(x == -1, -1, r)
    return r.astype(dt.np).view(dt.lane)
