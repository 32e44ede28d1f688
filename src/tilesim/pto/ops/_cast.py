"""Element casts and enum spellings shared by the data-movement ops (TMOV, TEXTRACT, TINSERT ...).

A move copies lane codes when source and destination share a dtype; across
dtypes it converts values as the pto-isa CPU reference's ``SetElement`` does
(a C++ value conversion, pto-isa include/pto/cpu/TMov.hpp): f32 to f16/bf16
rounds once to nearest even, f16/bf16 to f32 widens exactly (decision PTO51).

Two ReLU flavours exist in the reference and both are kept (decision PTO52):
``after`` (TMOV: ``v < 0 ? 0 : v`` on the converted value, so NaN and -0
pass) and ``before`` (TEXTRACT/TINSERT: ``v > 0 ? v : 0`` on the source
value, so NaN and -0 become +0).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..dtypes import DType
from . import convert_cpu
from ._common import Op

#: (src, dst) dtype pairs a plain move converts by value (others must be equal)
CASTS = frozenset({("f32", "f16"), ("f32", "bf16"), ("f16", "f32"), ("bf16", "f32")})


def word(op: Op, value, operand: str, allowed: dict) -> object:
    """An enum attribute by any spelling (``NormalRelu``, ``normal_relu``, ``#pto<relu_pre_mode normal_relu>``,
    a bool or an int code) -> its canonical value in ``allowed`` (keys are lower-case words without ``_``)."""
    if isinstance(value, (bool, np.bool_)):
        key = str(bool(value)).lower()
    else:
        key = str(value).strip()
        if key.startswith("#") and "<" in key:
            key = key[key.index("<") + 1: key.rindex(">")].split()[-1]
        key = key.lower().replace("_", "")
    if key not in allowed:
        op.fail(f"must be one of {', '.join(sorted({str(v) for v in allowed.values()}))}", operand,
                f"pto.{op.name}.{operand}", value, TilesimError)
    return allowed[key]


#: on/off attributes: ReluPreMode words, booleans (isMSB) and their 0/1 codes
RELU = {"norelu": False, "normalrelu": True, "false": False, "true": True, "0": False, "1": True}


def cast_bits(op: Op, bits: np.ndarray, src: DType, dst: DType, operand: str = "dst") -> np.ndarray:
    """Lane codes of ``src`` as lane codes of ``dst`` (bits when equal, else a value conversion from CASTS)."""
    if src == dst:
        return bits.copy()
    if (src.name, dst.name) not in CASTS:
        op.fail(f"cannot move {src} to {dst}; conversions: "
                + ", ".join(f"{a}->{b}" for a, b in sorted(CASTS)) + " (other pairs need equal dtypes)",
                operand, "pto.op.dtype", (src.name, dst.name), DtypeError)
    if op.prof.x86_nans and src.is_float and dst.is_float:  # cpu: a C++ cast, NaN sign and payload kept (PTO83)
        return convert_cpu.cast(bits, src, dst)[0]
    return nx.from_f32(nx.as_f32(bits, src), dst, flush=False) if dst.name != "f32" else nx.as_f32(bits, src).view(
        np.uint32).copy()


def relu_after(bits: np.ndarray, dt: DType) -> np.ndarray:
    """``v < 0 ? 0 : v`` (NaN and -0 unchanged)."""
    return np.where(nx.as_key(bits, dt) < 0, dt.lane.type(0), bits)


def relu_before(bits: np.ndarray, dt: DType) -> np.ndarray:
    """``v > 0 ? v : 0`` (NaN and -0 become +0)."""
    with np.errstate(invalid="ignore"):
        return np.where(nx.as_key(bits, dt) > 0, bits, dt.lane.type(0))
