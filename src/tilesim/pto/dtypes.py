"""PTO element types: one table row per dtype, mapped onto :mod:`tilesim.formats`.

A row names the dtype as the PTOAS dialect spells it (``f32``, ``ui16``...),
the C++ type the pto-isa headers use (``float``, ``uint16_t``) and the
tilesim format that holds its bits. Tiles store lane codes (``uint8`` ..
``uint64``); :attr:`DType.np` is the numpy dtype that *views* those bits as
numbers (``float32``, ``float16``, ``ml_dtypes.bfloat16``, ``int16`` ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import ml_dtypes
import numpy as np

from .. import formats
from ..errors import DtypeError

__all__ = ["DType", "DTYPES", "get_dtype", "ALL", "FLOATS", "INTS", "FP8", "FP4", "INT4", "HIF8", "PACKED"]


@dataclass(frozen=True)
class DType:
    """One PTO element type.

    Fields:
        name: canonical tilesim name (``f32``, ``u16``).
        fmt: the :mod:`tilesim.formats` name of its bit layout.
        cxx: the pto-isa C++ spelling (``float``, ``uint16_t``).
        np_name: numpy dtype name that views the lane bits as numbers ("" where there is none).
        aliases: other accepted spellings (PTOAS ``ui16``, C++ names).
    """

    name: str
    fmt: str
    cxx: str
    np_name: str
    aliases: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"DType({self.name!r})"

    def __str__(self) -> str:
        return self.name

    @cached_property
    def format(self) -> formats.Format:
        return formats.get(self.fmt)

    @cached_property
    def np(self) -> np.dtype:
        """numpy dtype whose values are this dtype's numbers (a view of the lane bits); the lane dtype where
        numpy and ml_dtypes have none (:attr:`has_view` is False: decode through :attr:`format`)."""
        if not self.has_view:
            return self.lane
        if hasattr(ml_dtypes, self.np_name):
            return np.dtype(getattr(ml_dtypes, self.np_name))
        return np.dtype(self.np_name)

    @property
    def has_view(self) -> bool:
        """Whether :attr:`np` views the lane bits as this dtype's numbers."""
        return bool(self.np_name)

    @cached_property
    def lane(self) -> np.dtype:
        """Unsigned numpy dtype of the lane bits (what tiles store)."""
        return self.format.dtype

    @cached_property
    def size(self) -> int:
        """Bytes per element (``sizeof(T)``)."""
        return self.lane.itemsize

    @cached_property
    def bits(self) -> int:
        return self.size * 8

    @cached_property
    def is_float(self) -> bool:
        return self.format.is_float

    @cached_property
    def is_int(self) -> bool:
        return not self.format.is_float

    @property
    def signed(self) -> bool:
        return self.format.signed

    @property
    def elem_per_block(self) -> int:
        """Elements per 32-byte block."""
        return 32 // self.size

    @property
    def elem_per_repeat(self) -> int:
        """Elements per 256-byte repeat (A2A3) or vector register (A5)."""
        return 256 // self.size


_ROWS = (
    DType("f16", "fp16", "half", "float16", ("half", "float16", "float16_t", "fp16")),
    DType("f32", "fp32", "float", "float32", ("float", "float32", "float32_t", "fp32")),
    DType("bf16", "bf16", "bfloat16_t", "bfloat16", ("bfloat16", "bfloat16_t")),
    DType("i8", "int8", "int8_t", "int8", ("int8", "int8_t", "s8", "si8")),
    DType("i16", "int16", "int16_t", "int16", ("int16", "int16_t", "s16", "si16")),
    DType("i32", "int32", "int32_t", "int32", ("int32", "int32_t", "int", "s32", "si32")),
    DType("i64", "int64", "int64_t", "int64", ("int64", "int64_t", "s64", "si64")),
    DType("u8", "uint8", "uint8_t", "uint8", ("ui8", "uint8", "uint8_t")),
    DType("u16", "uint16", "uint16_t", "uint16", ("ui16", "uint16", "uint16_t")),
    DType("u32", "uint32", "uint32_t", "uint32", ("ui32", "uint32", "uint32_t")),
    DType("u64", "uint64", "uint64_t", "uint64", ("ui64", "uint64", "uint64_t")),
    # 8-bit floats (A5): PTOAS lowers MLIR f8E4M3FN *and* f8E4M3 to the one C++ float8_e4m3_t, the OCP E4M3
    # (PTOAS lib/PTO/Transforms/PTOToEmitC.cpp), so both spellings name the OCP format (decision PTO50).
    DType("f8e4m3", "fp8_e4m3", "float8_e4m3_t", "float8_e4m3fn",
          ("f8E4M3FN", "f8E4M3", "float8_e4m3_t", "float8_e4m3fn", "e4m3", "fp8_e4m3")),
    DType("f8e5m2", "fp8_e5m2", "float8_e5m2_t", "float8_e5m2", ("f8E5M2", "float8_e5m2_t", "e5m2", "fp8_e5m2")),
    DType("f8e8m0", "e8m0", "float8_e8m0_t", "float8_e8m0fnu",
          ("f8E8M0FNU", "float8_e8m0_t", "float8_e8m0fnu", "e8m0", "ue8m0")),
    # OCP MX FP4 E2M1 (finite): the MX matmul operand of pto-isa's float4_e2m1x2_t, one code per element here
    # (the simulator packs two a byte in its storage; decision PTO76)
    DType("f4e2m1", "fp4_e2m1", "float4_e2m1x2_t", "float4_e2m1fn", ("float4_e2m1x2_t", "f4E2M1FN")),
    # pto-isa's float4_e1m2x2_t: E1M2 with bias 1 (include/pto/cpu/MXTypes.hpp), not the AME fp4_e1m2 (bias 0);
    # numpy and ml_dtypes have no type for it, so ``np`` is the lane and values decode through the format (PTO48)
    DType("f4e1m2", "fp4_e1m2_b1", "float4_e1m2x2_t", "", ("float4_e1m2x2_t", "f4E1M2")),
    # pto-isa's int4b_t: a 4-bit two's-complement code in the low nibble of a byte, one a byte as the CPU
    # simulator holds it (not a "twin" type there); values decode through the format (PTO153)
    DType("i4", "int4", "int4b_t", "", ("int4", "int4b_t", "si4")),
    # Huawei HiFloat8 (pto-isa's hifloat8_t): tapered precision, values decode through the format (PTO182)
    DType("hif8", "hif8", "hifloat8_t", "", ("hifloat8_t", "hifloat8", "hif8_t")),
)

DTYPES: dict[str, DType] = {d.name: d for d in _ROWS}
_LOOKUP: dict[str, DType] = {}
for _d in _ROWS:
    for _key in (_d.name, *_d.aliases):
        if _key in _LOOKUP:
            raise RuntimeError(f"dtype spelling {_key!r} used twice")
        _LOOKUP[_key] = _d
    if _d.format.dtype.itemsize != _d.np.itemsize:
        raise RuntimeError(f"{_d.name}: numpy view and lane differ in size")

#: the 8-bit float dtypes; ALL (what the older dtype tables mean by "every dtype") leaves them out
FP8 = ("f8e4m3", "f8e5m2", "f8e8m0")
#: 4-bit MX element dtypes: like FP8, only where an op's row names them
FP4 = ("f4e2m1", "f4e1m2")
#: 4-bit integers (pto-isa int4b_t): like FP4, only where an op's row names them
INT4 = ("i4",)
#: the dtypes whose global memory holds two codes a byte, element 2k in the low nibble of byte k (the CPU
#: simulator's "twin" types, include/pto/cpu/MXTypes.hpp); TLOAD/TSTORE unpack and pack them (PTO153)
PACKED = ("f4e2m1", "f4e1m2")
#: HiFloat8: like FP8, only where an op's row names it (PTO182)
HIF8 = ("hif8",)
ALL = tuple(n for n in DTYPES if n not in FP8 + FP4 + INT4 + HIF8)
FLOATS = tuple(n for n in ALL if DTYPES[n].is_float)
INTS = tuple(n for n in ALL if DTYPES[n].is_int)


def get_dtype(key, *, instruction: str | None = None, operand: str | None = None) -> DType:
    """Find a dtype by name, alias (``ui32``, ``uint32_t``), numpy dtype or :class:`DType`.

    >>> get_dtype("ui32").name, get_dtype("half").name
    ('u32', 'f16')

    Raises:
        DtypeError: an unknown spelling (rule ``pto.dtype.name``); the message lists the names.
    """
    if isinstance(key, DType):
        return key
    if not isinstance(key, str):
        try:
            npd = np.dtype(key)
        except TypeError:
            npd = None
        for d in _ROWS:
            if npd is not None and npd == d.np:
                return d
        key = str(key)
    d = _LOOKUP.get(key) or _LOOKUP.get(key.lower())
    if d is None:
        raise DtypeError(f"unknown dtype {key!r}; known: " + ", ".join(DTYPES), instruction=instruction,
                         operand=operand, rule="pto.dtype.name", value=key)
    return d
