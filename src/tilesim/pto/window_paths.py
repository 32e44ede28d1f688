"""Per-target location, layout and dtype rules of TEXTRACT and TINSERT, as data.

A :class:`WindowPath` says what one (source location, destination location)
pair of one op accepts on one target. The tables transcribe the "A2A3
implementation checks" and "A5 implementation checks" of pto-isa
``docs/isa/TEXTRACT.md`` and ``docs/isa/TINSERT.md`` (hw-native-sys/pto-isa);
PTOAS's verifier rejects the same programs (decision PTO43). The CPU reference
accepts every pair, so target ``cpu`` has no table.

Layouts use :attr:`tilesim.pto.Tile.layout`'s names: ``ND`` (row_major/none_box),
``DN``, and the boxed ``Nz`` (col_major blocks of row_major boxes), ``Zn``, ``Zz``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterable, Mapping

__all__ = ["WindowPath", "WINDOW_PATHS_A2A3", "WINDOW_PATHS_A5", "QUANT_PATHS_A2A3", "QUANT_PATHS_A5"]


@dataclass(frozen=True)
class WindowPath:
    """What one location pair accepts.

    dtypes: the (src, dst) dtype pairs of the plain and relu forms, or None for
        any pair the conversion itself accepts.
    src_layouts / dst_layouts: the layouts each side may use, or None for any.
    same_layout: src and dst must use the same layout.
    """

    dtypes: frozenset | None = None
    src_layouts: frozenset | None = None
    dst_layouts: frozenset | None = None
    same_layout: bool = False


def _same(names: Iterable[str]) -> frozenset:
    return frozenset((n, n) for n in names)


_NZ = frozenset({"Nz"})
_ND_NZ = frozenset({"ND", "Nz"})
#: TEXTRACT Mat -> Left/Right element types
_MAT_A2A3 = _same(("i8", "f16", "bf16", "f32"))
_MAT_A5 = _same(("i8", "f8e4m3", "f8e5m2", "f8e8m0", "f16", "bf16", "f32"))
#: TEXTRACT Vec -> Vec, both targets: any 1-, 2- or 4-byte standard type
_VEC_EXTRACT = _same(("i8", "u8", "i16", "u16", "i32", "u32", "f16", "bf16", "f32"))
#: TINSERT Vec -> Vec / Vec -> Mat on A5
_VEC_INSERT_A5 = _same(("f16", "bf16", "f32", "i32", "i8", "f8e4m3", "f8e5m2", "f8e8m0"))
#: non-quant accumulator moves: f32 -> f16/bf16 (A2A3), plus f32 -> f32 and i32 -> i32 (A5)
_ACC_A2A3 = frozenset({("f32", "f16"), ("f32", "bf16")})
_ACC_A5 = _ACC_A2A3 | {("f32", "f32"), ("i32", "i32")}

_EXTRACT_VEC = WindowPath(_VEC_EXTRACT, _ND_NZ, _ND_NZ, same_layout=True)

#: op -> {(src loc, dst loc): WindowPath}
WINDOW_PATHS_A2A3: Mapping[str, Mapping] = MappingProxyType({
    "textract": MappingProxyType({
        ("mat", "left"): WindowPath(_MAT_A2A3), ("mat", "right"): WindowPath(_MAT_A2A3),
        ("vec", "vec"): _EXTRACT_VEC}),
    "tinsert": MappingProxyType({("acc", "mat"): WindowPath(_ACC_A2A3, _NZ, _NZ)}),
})
WINDOW_PATHS_A5: Mapping[str, Mapping] = MappingProxyType({
    "textract": MappingProxyType({
        ("mat", "left"): WindowPath(_MAT_A5), ("mat", "right"): WindowPath(_MAT_A5),
        ("mat", "scaling"): WindowPath(_MAT_A5), ("acc", "mat"): WindowPath(_ACC_A5, _NZ, _NZ),
        ("acc", "vec"): WindowPath(_ACC_A5, _NZ), ("vec", "mat"): WindowPath(None, _ND_NZ, _NZ),
        ("vec", "vec"): _EXTRACT_VEC}),
    "tinsert": MappingProxyType({
        ("acc", "mat"): WindowPath(_ACC_A5, _NZ, _NZ),
        ("acc", "vec"): WindowPath(_ACC_A5, _NZ, frozenset({"Nz", "ND", "DN"})),
        ("vec", "vec"): WindowPath(_VEC_INSERT_A5, _ND_NZ, _ND_NZ, same_layout=True),
        ("vec", "mat"): WindowPath(_VEC_INSERT_A5, _ND_NZ, _NZ)}),
})
#: location pairs of the scalar- and vector-quant forms (their dtype pairs are the fixpipe's quant modes)
QUANT_PATHS_A2A3 = frozenset({("acc", "mat")})
QUANT_PATHS_A5 = frozenset({("acc", "mat"), ("acc", "vec")})
