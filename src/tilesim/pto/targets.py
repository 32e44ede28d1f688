"""Target profiles ``cpu``, ``a2a3`` and ``a5`` as data.

A :class:`Profile` holds everything that differs between targets: buffer
capacities, which NaN rule max/min use, whether denormals are flushed, the
A2A3 quirks, what ``tmp`` is, and the per-op dtype tables. Ops read the
profile; no op tests a target's *name*. Facts: hw-native-sys/pto-isa
(``include/pto/common/buffer_limits.hpp``, ``pto_tile.hpp``, ``include/pto/npu/*/``) and its
per-op pages (docs/isa/*.md); choices where
those are silent are in ``docs/decisions.md`` (PTO section).

A profile is frozen; :meth:`Profile.with_` derives a variant, e.g.
``get_target("a5").with_(nan_mode="spec")`` for pto-spec's maxNum rule.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from ..errors import DtypeError, TilesimError
from .dtypes import ALL, DTYPES, FP4, FP8, INT4, INTS, get_dtype
from .window_paths import QUANT_PATHS_A2A3, QUANT_PATHS_A5, WINDOW_PATHS_A2A3, WINDOW_PATHS_A5

__all__ = ["Profile", "OpTypes", "OP_TYPES", "TARGETS", "get_target", "NAN_MODES", "LOCATIONS", "DEFAULT_TARGET"]

DEFAULT_TARGET = "a5"

#: Tile locations (PTOAS ``loc=``) and the on-chip buffer each lives in.
LOCATIONS: Mapping[str, str] = MappingProxyType({
    "vec": "UB", "mat": "L1", "left": "L0A", "right": "L0B", "acc": "L0C", "bias": "BT", "scaling": "FB",
})

#: NaN rules for max/min and the arg ops (spec §6, §8.7):
#:   first      strict-compare scan: a NaN at index 0 wins and sticks, later NaNs are ignored (CPU, A5)
#:   propagate  any NaN makes the result NaN; A2A3 column-arg indices drift to the last row
#:   spec       pto-spec maxNum/minNum: one NaN gives the number, two give the canonical NaN, max(-0,+0)=+0
NAN_MODES = ("first", "propagate", "spec")

_K = 1024


@dataclass(frozen=True)
class OpTypes:
    """Accepted dtype signatures of one op on each target.

    ``roles`` names the operands a signature lists, in order (``("src", "dst")``).
    A signature is a tuple of dtype names, one per role.
    """

    op: str
    roles: tuple[str, ...]
    a2a3: frozenset
    a5: frozenset
    cpu: frozenset

    def for_target(self, target: str) -> frozenset:
        return getattr(self, target)


def _same(names: Iterable[str], n: int = 1) -> frozenset:
    return frozenset((t,) * n for t in names)


def _pairs(srcs: Iterable[str], dsts: Iterable[str]) -> frozenset:
    return frozenset((s, d) for s in srcs for d in dsts)


NARROW = ("f16", "f32", "i32", "i16")
B16_B32 = ("f16", "bf16", "i16", "u16", "f32", "i32", "u32")
IDX = ("i32", "u32")
FLOAT_ARITH_NPU = ("f16", "f32")
FLOAT_ARITH_CPU = ("f16", "f32", "bf16")
#: TLOG of integers on cpu (``static_cast<T>(log(double(x)))``; 64-bit ones refused, PTO121)
INT_LOG_CPU = ("i8", "i16", "i32", "u8", "u16", "u32")
#: the bitwise ops' integer dtypes on the NPUs (1-, 2- and 4-byte)
INT_BITWISE = ("i8", "u8", "i16", "u16", "i32", "u32")
#: the 1-, 2- and 4-byte dtypes of the permutes' pages
PERMUTE = INT_BITWISE + ("f16", "bf16", "f32")
#: TPOW/TPOWS on the NPUs (docs/isa/TPOW.md: A2A3 the integers and f32, A5 also f16 and bf16)
POW_A2A3, POW_A5 = INT_BITWISE + ("f32",), PERMUTE
#: TSCATTER's index dtypes on the NPUs (docs/isa/TSCATTER.md)
SCATTER_IDX = ("i16", "i32", "u16", "u32")
EXPAND_ARITH_A5 = ("f16", "f32", "i16", "i32", "u16", "u32", "bf16", "i8", "u8")
_EXPAND_CPU = ("f16", "f32", "i16", "i32", "u16", "u32")

_MIXED_CPU_SUM = frozenset({("f16", "f32"), ("bf16", "f32")})
#: exact widenings (every source value is a destination value): the mixed pairs the CPU simulator's
#: max/min/prod reduces take where it asserts nothing (it compiles any pair; PTO87)
_CPU_WIDEN = frozenset({
    ("f16", "f32"), ("bf16", "f32"), ("i8", "i16"), ("i8", "i32"), ("i8", "i64"), ("i8", "f16"), ("i8", "f32"),
    ("i16", "i32"), ("i16", "i64"), ("i16", "f32"), ("i32", "i64"), ("u8", "u16"), ("u8", "u32"), ("u8", "u64"),
    ("u8", "i16"), ("u8", "i32"), ("u8", "i64"), ("u8", "f16"), ("u8", "f32"), ("u16", "u32"), ("u16", "u64"),
    ("u16", "i32"), ("u16", "i64"), ("u16", "f32"), ("u32", "u64"), ("u32", "i64"), ("i8", "bf16"), ("u8", "bf16")})
#: the other pairs of clang's dtypes (bf16 aside) that the simulator's ND row max/min/prod and TCOLMIN/TCOLPROD
#: compile: each element is cast to dst's type (TCOLMIN compares in the pair's common type), undefined casts marked
#: (PTO67)
_CLANG_DTS = tuple(t for t in ALL if t != "bf16")
CPU_CAST_FIRST = frozenset((s, d) for s in _CLANG_DTS for d in _CLANG_DTS if s != d) - _CPU_WIDEN
#: the same with bf16 (g++'s build, PTO88), where TCOLMIN's compare rejects f16 <-> bf16
CPU_CAST_FIRST_BF16 = frozenset(p for t in _CLANG_DTS for p in (("bf16", t), (t, "bf16"))) - _CPU_WIDEN
_F16_BF16 = frozenset({("f16", "bf16"), ("bf16", "f16")})
#: what cpu's row max/min/prod and TCOLPROD take: same dtype, exact widenings, and the cast-first pairs
_CPU_REDUCE = _same(ALL, 2) | _CPU_WIDEN | CPU_CAST_FIRST | CPU_CAST_FIRST_BF16

# TCVT pairs: pto-isa docs/isa/TCVT.md "Supported Conversions" (FP8/H8/FP4/S4 types are not PTO dtypes here)
_CVT_A2A3 = {
    "f32": ("f16", "f32", "bf16", "i16", "i32", "i64"), "f16": ("f32", "i32", "i16", "i8", "u8"),
    "bf16": ("f32", "i32"), "i16": ("f16", "f32"), "i32": ("f32", "i16", "i64", "f16"), "i64": ("f32", "i32"),
    "u8": ("f16",), "i8": ("f16",),
}
_CVT_A5 = {
    "f32": ("f32", "f16", "bf16", "i16", "i32", "i64"), "f16": ("f32", "i32", "i16", "i8", "u8"),
    "bf16": ("f32", "i32", "f16"), "i16": ("u8", "f16", "f32", "u32", "i32"), "i32": ("f32", "i16", "u16", "i64", "u8"),
    "i64": ("f32", "i32"), "u8": ("f16", "u16"), "i8": ("f16", "i16", "i32"), "u32": ("u8", "u16", "i16"),
}


#: A2A3's TCVT with ``ODD`` where its kernel (include/pto/npu/a2a3/TCvt.hpp) has no odd intrinsic: the
#: switch's default case, as a mode (PTO107); f32 -> f16 has vconv_f322f16o, the exact pairs take no mode
CVT_ODD_A2A3 = MappingProxyType({
    **dict.fromkeys([("f32", "i64"), ("f32", "i32"), ("f32", "i16"), ("f16", "i32"), ("f16", "i16"), ("f16", "i8"),
                     ("f16", "u8"), ("bf16", "i32")], "TRUNC"),
    ("f16", "i4"): "NONE", ("i16", "f16"): "NONE", ("i32", "f32"): "NONE",
    ("f32", "f32"): "RINT", ("f32", "bf16"): "RINT", ("i64", "f32"): "RINT",
})
#: A5's: tcvtDispatchByRound (npu/a5/TCvt.hpp) has RoundOType for f32 -> f16 only; ODD elsewhere falls to its
#: default, float -> integer truncating, everything else nearest even (PTO107)
CVT_ODD_A5 = MappingProxyType({(a, b): "TRUNC" if DTYPES[a].is_float and DTYPES[b].is_int else "RINT"
                               for a, bs in _CVT_A5.items() for b in bs if (a, b) != ("f32", "f16")})
#: A2A3's TCVT without tmp honours ``sat`` only on these pairs (the kernel's kIsNarrowingCvt); the others
#: always saturate (PTO108)
CVT_SAT_PAIRS_A2A3 = frozenset({("f16", "u8"), ("f16", "i8"), ("f32", "i16"), ("f16", "i16"), ("i64", "i32"),
                                ("i32", "i16")})

#: cpu: the 4-bit dtypes with each other and every other dtype, both ways (PTO153)
_CVT_SUB_BYTE_CPU = frozenset(p for a in FP4 + INT4 for b in FP4 + INT4 + ALL for p in ((a, b), (b, a)))
#: the NPUs' 4-bit pairs (docs/isa/TCVT.md's side-by-side table): A2A3 FP16 <-> S4, A5 BF16 <-> FP4 (PTO189)
_CVT_SUB_BYTE_A2A3 = frozenset({("f16", "i4"), ("i4", "f16")})
_CVT_SUB_BYTE_A5 = frozenset(p for f in FP4 for p in (("bf16", f), (f, "bf16")))


def _cvt(table: Mapping[str, tuple[str, ...]]) -> frozenset:
    return frozenset((s, d) for s, ds in table.items() for d in ds)


_MATMUL = frozenset({("i32", "i8", "i8"), ("f32", "f16", "f16"), ("f32", "f32", "f32"), ("f32", "bf16", "bf16")})


_REM_A5 = ("f16", "f32", "i16", "u16", "i32", "u32", "i64", "u64")
_PART_A5 = ("u8", "i8", "u16", "i16", "u32", "i32", "f16", "f32", "bf16")
_PART_CPU = ("i32", "i16", "f16", "bf16", "f32", "i8", "u8")
_AXPY = frozenset({("f16", "f16"), ("f32", "f32"), ("f16", "f32")})


_DEQUANT = {("i8", "f32"), ("i16", "f32")}
#: cpu: include/pto/cpu/TDeQuant.hpp casts src to dst's type and has no dtype check (PTO71); these are the float
#: dst pairs the golden vectors cover, and integer dsts whose expression cannot overflow int (i8, u8, i16) or
#: wraps by definition (u32); u16 (whose int product can overflow), i32 and i64 dsts are left out
_DEQUANT_CPU = {(s, "f32") for s in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32")} | \
    {(s, "f16") for s in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "f16", "f32")} | \
    {(s, d) for s in ("i8", "u8", "i16", "u16", "i32", "u32") for d in ("i8", "u8", "i16", "u32")}
_TCI_A2A3 = ("i16", "u16", "i32", "u32", "f16", "bf16", "f32")


def _row(op, roles, a2a3, a5, cpu) -> OpTypes:
    return OpTypes(op, tuple(roles), frozenset(a2a3), frozenset(a5), frozenset(cpu))


def _ew(op, a2a3, a5, cpu=ALL) -> OpTypes:
    return _row(op, ("dtype",), _same(a2a3), _same(a5), _same(cpu))


_ROWS = [
    # ---- reduce (spec §1a table, §9.8; docs/isa/TROW*.md, TCOL*.md)
    _row("trowsum", ("src", "dst"), _same(NARROW, 2), _same(NARROW + ("i64", "u64"), 2),
         _same(("f32", "f16", "bf16", "i32", "i16"), 2) | _MIXED_CPU_SUM | {("i16", "i32")}),
    _row("trowmax", ("src", "dst"), _same(NARROW, 2), _same(NARROW + ("i64", "u64", "i8", "u8"), 2), _CPU_REDUCE),
    _row("trowmin", ("src", "dst"), _same(NARROW, 2), _same(NARROW + ("i64", "u64", "i8", "u8"), 2), _CPU_REDUCE),
    _row("trowprod", ("src", "dst"), _same(NARROW, 2), _same(NARROW, 2), _CPU_REDUCE),
    _row("tcolsum", ("src", "dst"), _same(NARROW, 2), _same(ALL, 2), _same(FLOAT_ARITH_CPU, 2) | _MIXED_CPU_SUM),
    _row("tcolmax", ("src", "dst"), _same(NARROW, 2), _same(ALL, 2),
         _same(("f32", "f16", "bf16", "i8", "u8"), 2) | _MIXED_CPU_SUM),
    _row("tcolmin", ("src", "dst"), _same(NARROW, 2), _same(ALL, 2), _CPU_REDUCE - _F16_BF16),
    _row("tcolprod", ("src", "dst"), _same(NARROW, 2), _same(("f16", "f32", "bf16", "i16", "u16", "i32", "u32"), 2),
         _CPU_REDUCE),
    # ---- arg reduce: (src, idx); the _val rows are the value+index mode (dst_val has src's dtype)
    _row("trowarg", ("src", "idx"), _pairs(NARROW, IDX), _pairs(B16_B32, IDX), _pairs(ALL, IDX)),
    _row("trowarg_val", ("src", "idx"), _pairs(NARROW, IDX) | _pairs(("f16",), ("i16", "u16")),
         _pairs(B16_B32, IDX), _pairs(ALL, IDX)),
    _row("tcolarg", ("src", "idx"), _pairs(("f16", "f32", "u16", "u32"), IDX),
         _pairs(("i8", "u8", "i16", "u16", "i32", "u32", "f16", "f32"), IDX), _pairs(ALL, IDX)),
    _row("tcolarg_val", ("src", "idx"),
         _pairs(("f16", "u16"), ("i16", "u16")) | _pairs(("f32", "u32"), IDX),
         _pairs(("f16", "i16", "u16"), ("i16", "u16")) | _pairs(("f32", "i32", "u32"), IDX), _pairs(ALL, IDX)),
    # ---- expand
    _ew("trowexpand", tuple(t for t in ALL if DTYPES[t].size <= 4), ALL),
    _ew("tcolexpand", tuple(t for t in ALL if DTYPES[t].size <= 4), ALL),
    # cpu: what cpu/TRowExpandOp.hpp and TColExpandOp.hpp compile (no bf16: their static_asserts refuse it, PTO79)
    *[_ew(f"t{fam}expand{op}", NARROW, EXPAND_ARITH_A5, _EXPAND_CPU + (("u8",) if op == "mul" else ()))
      for fam in ("row", "col") for op in ("add", "sub", "mul", "max", "min")],
    *[_ew(f"t{fam}expand{op}", FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, _EXPAND_CPU if op == "div" else FLOAT_ARITH_NPU)
      for fam in ("row", "col") for op in ("div", "expdif")],
    # ---- elementwise tile-tile (docs/isa/TADD.md ...)
    _ew("tadd", NARROW, ALL), _ew("tsub", NARROW, ALL),
    _ew("tmul", NARROW, ("i32", "u32", "i64", "u64", "f32", "i16", "u16", "f16", "bf16")),
    _ew("tdiv", FLOAT_ARITH_NPU, ("i32", "u32", "i64", "u64", "f32", "i16", "u16", "f16")),
    _ew("tmax", NARROW, ALL), _ew("tmin", NARROW, ALL),
    *[_ew(op, FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, FLOAT_ARITH_CPU) for op in ("texp", "tsqrt")],
    _ew("tlog", FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, FLOAT_ARITH_CPU + INT_LOG_CPU),  # integers: PTO121
    _ew("trecip", FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, ALL),
    _ew("trsqrt", FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, FLOAT_ARITH_NPU),  # cpu/TRSqrt.hpp refuses bf16 (PTO79)
    _ew("tabs", ("f32", "f16"), ("f32", "f16", "i32", "i16", "i8"), ("i32", "i16", "i8", "f16", "bf16", "f32")),
    _ew("tneg", NARROW, ("i32", "i16", "u32", "u16", "f16", "f32", "bf16"), ("i8", "i16", "i32", "i64", "f16", "bf16", "f32")),
    _ew("trelu", ("f16", "f32", "i32"), ("f16", "f32", "i32"), ("f16", "f32", "i32", "i16", "bf16")),
    # ---- elementwise tile-scalar
    _ew("tadds", NARROW, ALL), _ew("tsubs", NARROW, ALL),
    _ew("tmuls", NARROW, ("u16", "i16", "u32", "i32", "i64", "u64", "f16", "f32", "bf16")),
    _ew("tdivs", NARROW, ("u16", "i16", "u32", "i32", "i64", "u64", "f16", "f32")),
    _ew("tmaxs", NARROW, ALL), _ew("tmins", NARROW, ALL),
    _ew("texpands", ("u8", "i8", "u16", "i16", "u32", "i32", "f16", "bf16", "f32"), ALL),
    # ---- compare (src, mask) and select (data dtype; masks are checked by width)
    _row("tcmp", ("src", "mask"), _pairs(("i32", "f16", "f32"), ("u8",)), _pairs(ALL, ("u32",)),
         _pairs(tuple(t for t in ALL if DTYPES[t].size <= 4), ("u32",)) | _pairs(("i32", "f16", "f32"), ("u8",))),
    _row("tcmps", ("src", "mask"), _pairs(("i32", "f32", "f16", "u16", "i16"), ("u8",)), _pairs(ALL, ("u32",)),
         _pairs(tuple(t for t in ALL if DTYPES[t].size <= 4), ("u32",))
         | _pairs(tuple(t for t in ALL if DTYPES[t].size <= 4), ("u8",))),  # PTO73, PTO79, PTO121
    # ---- bitwise (docs/isa/TAND.md ... TSHRS.md); cpu: every integer dtype (C++ operators, PTO122)
    *[_ew(op, INT_BITWISE, INT_BITWISE, INTS) for op in ("tand", "tor", "txor", "tnot", "tands", "tors", "txors")],
    *[_ew(op, INT_BITWISE, INT_BITWISE + ("i64", "u64"), INTS) for op in ("tshl", "tshr")],
    *[_ew(op, ("i32", "i16", "u32", "u16"), INT_BITWISE + ("i64", "u64"), INTS) for op in ("tshls", "tshrs")],
    # ---- permutes (docs/isa/TTRANS.md, TINTERLEAVE.md, TDEINTERLEAVE.md; A2A3 has no (de)interleave), PTO125
    _ew("ttrans", PERMUTE, PERMUTE, ALL),
    *[_ew(op, PERMUTE, PERMUTE, ALL) for op in ("tinterleave", "tdeinterleave")],
    _ew("tsel", ("i16", "u16", "i32", "u32", "f16", "bf16", "f32"), ALL),
    _ew("tsels", ("i16", "u16", "i32", "u32", "f16", "bf16", "f32"), tuple(t for t in ALL if t != "bf16")),
    # ---- conversion, memory, matrix
    _row("tcvt", ("src", "dst"), _cvt(_CVT_A2A3) | _CVT_SUB_BYTE_A2A3, _cvt(_CVT_A5) | _CVT_SUB_BYTE_A5,
         _pairs(ALL, ALL) | _CVT_SUB_BYTE_CPU),  # no assert
    _ew("tload", ALL, ALL + FP8 + FP4 + INT4, ALL + FP8 + FP4 + INT4),  # fp8 codes: cpu PTO164, A5 PTO110; 4-bit
    _ew("tstore", ALL, ALL + FP8 + FP4, ALL + FP4 + INT4),        # A5: its fp8 (PTO110) and 4-bit types (PTO189)
    _row("tmatmul", ("c", "a", "b"), _MATMUL, _MATMUL, _MATMUL),
    # ---- remainder, partial, fused (docs/isa/TREM.md, TREMS.md, TPARTADD.md ..., TAXPY.md, TADDC.md)
    _ew("trem", ("f32", "i32"), _REM_A5), _ew("trems", ("f32", "i32"), _REM_A5),
    _ew("tfmod", FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, ALL), _ew("tfmods", ("f32",), FLOAT_ARITH_NPU, ALL),  # PTO123
    *[_ew(op, ("i32", "i16", "f16", "f32"), _PART_A5, ("i32", "i16", "f16", "bf16", "f32", "i8", "u8"))
      for op in ("tpartadd", "tpartmul", "tpartmax", "tpartmin")],
    _row("taxpy", ("src", "dst"), _AXPY, _AXPY,  # cpu: TBinSOps.hpp compiles f32 -> f16, and bf16 (PTO79)
         _AXPY | {("f32", "f16"), ("bf16", "bf16"), ("bf16", "f32"), ("f32", "bf16")}),
    _ew("taddc", NARROW, ALL), _ew("tsubc", NARROW, ALL),  # tsubc: PTO124
    _ew("taddsc", NARROW, NARROW, ALL), _ew("tsubsc", NARROW, NARROW, ALL),
    *[_ew(op, FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, ALL) for op in ("tsubrelu", "tlrelu", "tprelu")],  # PTO124
    *[_ew(op, FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, ALL) for op in ("tmuladddst", "tfusedmuladd", "tfusedmuladdrelu")],
    _ew("tpairreducesum", FLOAT_ARITH_NPU, FLOAT_ARITH_NPU, ALL),  # PTO127
    # ---- TPOW/TPOWS (docs/isa/TPOW.md, TPOWS.md); cpu: TPow.hpp and OP_POWS take every dtype (PTO132)
    *[_ew(op, POW_A2A3, POW_A5, ALL) for op in ("tpow", "tpows")],
    # ---- TPARTARGMAX/MIN (value, index): docs/isa/TPARTARGMAX.md; cpu: TPartCheck's value types, integer indices
    *[_row(op, ("dstVal", "dstIdx"), _pairs(("f16",), IDX + ("i16", "u16")) | _pairs(("f32",), IDX),
           _pairs(FLOAT_ARITH_NPU, IDX + ("i16", "u16")), _pairs(_PART_CPU, INT_BITWISE))
      for op in ("tpartargmax", "tpartargmin")],  # PTO128
    # ---- TRESHAPE (docs/isa/TRESHAPE.md): any pair on the NPUs; cpu's static_assert: same kind (PTO129)
    _row("treshape", ("src", "dst"), _pairs(ALL, ALL), _pairs(ALL, ALL),
         _pairs(INTS, INTS) | _pairs(FLOAT_ARITH_CPU, FLOAT_ARITH_CPU)),
    _ew("tsubview", ALL, ALL, ALL),  # one dtype (dst's pointer is src's); PTO130
    # ---- TGATHERB (docs/isa/TGATHERB.md): (dst, offset); offsets read as uint32_t; PTO131
    _row("tgatherb", ("dst", "offset"), _pairs(PERMUTE, IDX), _pairs(PERMUTE, IDX), _pairs(ALL, INTS)),
    # ---- TADDDEQRELU, TADDRELUCONV (docs/isa/TAddDeqRelu.md, TADDReluConv.md "Constraints"), TSUBRELUCONV
    # (PTO143, PTO144)
    _row("tadddeqrelu", ("src", "dst"), {("i32", "f16")}, {("i32", "f16")}, {("i32", "f16")}),
    *(_row(o, ("src", "dst"), *([{("f32", "f16"), ("f16", "i8"), ("i16", "i8")}] * 3))
      for o in ("taddreluconv", "tsubreluconv")),
    # ---- TQUANT's MX forms (docs/isa/TQUANT.md "Supported Input Dtypes"; A5 only; cpu's static_asserts); PTO145
    _row("tquant_mx", ("src", "dst"), _pairs(("f32", "f16", "bf16"), ("i8",)) | _pairs(("f16", "bf16"), ("f4e2m1",)),
         _pairs(("f32", "f16", "bf16"), ("i8",)) | _pairs(("f16", "bf16"), ("f4e2m1",)),
         _pairs(("f32", "f16", "bf16"), ("i8", "f4e2m1"))),
    # ---- TIMG2COL (docs/isa/TIMG2COL.md "Implementation checks"; cpu asserts none); PTO140
    _ew("timg2col", ("i8", "f16", "bf16", "f32"), ("i8", "u8", "i16", "u16", "i32", "u32", "f16", "bf16", "f32")),
    # ---- TSCATTER (docs/isa/TSCATTER.md): (dst, indexes), and the mask form's src; cpu: TScatter.hpp (PTO133)
    _row("tscatter", ("dst", "indexes"), _pairs(PERMUTE, SCATTER_IDX), _pairs(PERMUTE + ("i64", "u64"), SCATTER_IDX),
         _pairs(ALL, INTS)),
    _ew("tscatter_mask", PERMUTE, PERMUTE + ("i64", "u64"), tuple(t for t in ALL if DTYPES[t].size in (2, 4))),
    # ---- MGATHER/MSCATTER (docs/isa/MGATHER.md, MSCATTER.md): (data, indexes); cpu: any integer index (PTO134)
    *[_row(op, (role, "indexes"), _pairs(PERMUTE, IDX), _pairs(PERMUTE, IDX), _pairs(ALL, INTS))
      for op, role in (("mgather", "dst"), ("mscatter", "src"))],
    _ew("mscatter_add", ("i8", "i16", "i32", "f16", "bf16", "f32"), ("i32", "u32", "f32", "f16", "bf16")),
    # ---- TGATHER compare form, src0 (docs/isa/TGATHER.md "Comparison-based Gather Constraints"; PTO43)
    _ew("tgather_compare", ("f32", "f16", "i32"), ("i16", "u16", "i32", "u32", "f16", "f32"),
        ("i16", "u16", "i32", "u32", "f16", "f32")),
    _row("tdequant", ("src", "dst"), _DEQUANT, _DEQUANT, _DEQUANT_CPU),    # docs/isa/TDEQUANT.md
    # ---- generators (docs/isa/TCI.md, TTRI.md; include/pto/cpu/TCI.hpp, TTRI.hpp)
    _ew("tci", _TCI_A2A3, ("i16", "u16", "i32", "u32"), _TCI_A2A3 + ("i8", "u8", "i64", "u64")),
    _ew("ttri", ("i32", "i16", "u32", "u16", "f16", "f32"),
        ("i64", "u64", "i32", "i16", "i8", "u32", "u16", "u8", "f16", "f32", "bf16"),
        ("i32", "i16", "u32", "u16", "f16", "bf16", "f32")),
]

#: HiFloat8 (PTO182, PTO183), (cpu, a5) signatures added to rows above: cpu copies its codes (TTRANS, TLOAD,
#: TSTORE) and converts it to and from every dtype of ALL (not hif8 -> bf16, a cast g++ does not compile); A5
#: loads and stores it (docs/isa/TLOAD.md, TSTORE.md) and converts f32/f16 -> hif8 and hif8 -> f32 (TCVT.md);
#: A2A3 has none of these forms
_HIF8_CVT_CPU = (frozenset(p for t in ALL for p in (("hif8", t), (t, "hif8")))
                 | {("hif8", "hif8")}) - {("hif8", "bf16")}
_HIF8_ROWS = {"ttrans": ({("hif8",)}, set()), "tload": ({("hif8",)}, {("hif8",)}),
              "tstore": ({("hif8",)}, {("hif8",)}),
              "tcvt": (_HIF8_CVT_CPU, {("f32", "hif8"), ("f16", "hif8"), ("hif8", "f32")})}
_ROWS = [dataclasses.replace(r, cpu=r.cpu | _HIF8_ROWS[r.op][0], a5=r.a5 | _HIF8_ROWS[r.op][1])
         if r.op in _HIF8_ROWS else r for r in _ROWS]

OP_TYPES: Mapping[str, OpTypes] = MappingProxyType({r.op: r for r in _ROWS})


def _validate_tables() -> None:
    if len(OP_TYPES) != len(_ROWS):
        raise RuntimeError("an op has two dtype-table rows")
    for r in _ROWS:
        for tgt in ("a2a3", "a5", "cpu"):
            sigs = r.for_target(tgt)
            if not sigs:
                raise RuntimeError(f"{r.op}: empty dtype table for {tgt}")
            for sig in sigs:
                if len(sig) != len(r.roles) or any(t not in DTYPES for t in sig):
                    raise RuntimeError(f"{r.op}/{tgt}: bad signature {sig}")


_validate_tables()


@dataclass(frozen=True)
class Profile:
    """Everything an op needs to know about the machine it runs on.

    Fields:
        name: ``cpu``, ``a2a3``, ``a5`` (or a derived name).
        capacities: bytes of each tile location's buffer (``buffer_limits.hpp``).
        align: TASSIGN address alignment in bytes (all buffers: 32).
        nan_mode: one of :data:`NAN_MODES` (max/min, arg ops, TMAX/TMIN).
        flush_denormals: vector arithmetic reads subnormal inputs as zero and
            flushes subnormal results to zero (sign kept); NPUs do by default.
        colarg_unsigned_as_float: column arg ops compare u16/u32 as f16/f32 bits (A2A3).
        colarg_f16_index: column arg index-only with a 2-byte source passes the
            index through f16 (s16 -> f16 -> s32, round half away), exact to 2048 (A2A3).
        int16_row_counter: column arg ops with 2-byte sources count rows in int16,
            so at most 32767 rows (A2A3).
        tmp_used: tmp tiles are scratch the target writes (A2A3); else ignored.
            Never an output; its size is never enforced.
        tmp_same_dtype: ops whose tmp must have src's dtype on this target.
        cmp_i32_eq_only: TCMP/TCMPS on i32 always compare EQ (A2A3).
        cvt_float_honours_mode: float->float TCVT uses the round mode (NPUs); the CPU
            reference always rounds to nearest even.
        cvt_saturate_default: saturation when TCVT is called without a mode.
        cvt_wrap_pairs: (src, dst) pairs whose non-saturating conversion wraps
            modulo 2**bits instead of being undefined.
        zero_size_noop: ops that return silently when a valid size is zero.
        cvt_cpu_model: TCVT computes as the CPU simulator's C++ does, undefined casts
            included (:mod:`tilesim.pto.ops.convert_cpu`); the other cvt_* fields are unused.
        cvt_odd_modes: (src, dst) -> the mode TCVT's ``ODD`` takes where the target has no odd rounding.
        cvt_sat_pairs: pairs whose TCVT without tmp honours ``sat`` (None: all); the others saturate.
        mscatter_sequential: MSCATTER's kernel writes in its visiting order, so ``conflict="default"`` is
            the last writer too (A2A3, PTO109).
        strict: (cpu) raise where the CPU simulator's result is undefined behaviour in C++
            (``pto.tcvt.undefined``) instead of giving x86-64's result and marking it.
        expand_casts: TROWEXPAND/TCOLEXPAND take any source dtype and C++-cast it to dst's,
            read src at dst's valid rows (columns) whatever src's valid region, and do
            nothing for an empty dst (the CPU simulator).
        x86_nans: NaN results of float arithmetic carry payloads as x86-64 gives them
            (:func:`tilesim.pto.numerics.x86_nans`), not the canonical NaN.
        gxx: (cpu) the simulator as g++ 14 builds it (C++23, the only build that compiles bf16, PTO88) for
            f32/f16 too, where that is known to differ from clang's build: TROWSUM adds element after element,
            not vectorised (PTO193). The interpreter takes it for a program with a bf16 type.
        cpu_masks: TCMP, TCMPS and TSEL write and read masks as the CPU simulator's loops do
            (:mod:`tilesim.pto.ops.masks_cpu`, PTO94).
        prefetch_copies: TPREFETCH copies global memory into dst's valid region, element (r, c) from
            flat position ``r * dst.cols + c`` of the array (the CPU simulator's loop; PTO68).
        tload_fills_pad: TLOAD first fills the whole tile with its pad value (``null`` and custom: zero), then
            copies the window, as the CPU simulator does (PTO98).
        tload_any_loc: TLOAD writes a tile of any location (bias, left, acc ...), as the CPU simulator's
            element loop does; otherwise vec and mat only (PTO161).
        f16_pad_limits_zero: TFILLPAD's ``max``/``min`` pad of an f16 tile is +0: the CPU
            simulator takes it from ``std::numeric_limits<_Float16>``, unspecialised (all zero) in
            the C++20 build (PTO96).
        quant_saturate_inf: the fixpipe control register's saturate bit (the CPU simulator's task cookie
            bit 48): f32 -> f16/bf16 pre-quant turns NaN to 0 and clamps infinities too (PTO151).
        fp_modeless_casts: TEXTRACT_FP/TINSERT_FP with a dtype pair that has no vector-quant mode
            copy as the plain move does (ReLU first, then a C++ cast), as the CPU simulator's
            ``NoQuant`` path does (PTO74); elsewhere the pair is refused.
            The same holds for the scalar forms of TEXTRACT/TINSERT with a pair that has no scalar-quant
            mode, and a plain TMOV/TEXTRACT/TINSERT between dtypes is C++'s implicit cast (PTO47).
        partarg_any_valid: TPARTARGMAX/MIN take any valid regions (the index tiles' are not read; where neither
            value tile is valid, 0), as the CPU simulator does; elsewhere the ISA page's rules hold (PTO128).
        img2col_from_tile: TIMG2COL reads every setting from the ConvTile, as the CPU simulator does; elsewhere
            H, W, pads and the pad value come from the registers the SET_* ops write (PTO140).
        img2col_banked_rpt: the repeat and padding registers have an A and a B bank (A5); A2A3 has one each.
        quant_scalar_zero_extends: SET_QUANT_SCALAR widens the f32 bits through ``uint32_t`` (the CPU simulator);
            elsewhere through ``int32_t``, and SET_QUANT_VECTOR holds 128-byte addresses (PTO141).
        gm_index_nz: MGATHER/MSCATTER also take an NZ global table with an Nz vec tile (A2A3, PTO188).
        int4_one_byte: an ``i4`` (``int4b_t``) global element is one byte, its low nibble, as the CPU simulator's
            struct is; elsewhere ``int4b_t`` is packed two a byte, as fp4 is (PTO153, PTO189).
        dma_engines: the DmaEngine values TPUT_ASYNC/TGET_ASYNC take (URMA and RDMA are NPU_ARCH 3510's only;
            the CPU simulator copies for each, PTO186).
        pairsum_zeroes_tile: TPAIRREDUCESUM first zeroes all of dst's storage, as the CPU simulator does (PTO127).
        int_promotion: shifts of 8- and 16-bit lanes compute in C++'s ``int`` (counts up to 31, then
            truncated to the dtype), as the CPU simulator's ``src0 << src1`` does (PTO122); elsewhere a count
            must be below the dtype's width.
        tmov_ignores_scalar: TMOV's pre-quant scalar is checked, then ignored (a plain move), as the CPU
            simulator's TMOV does (pto-isa include/pto/cpu/TMov.hpp; PTO47).
        tmov_src_valid: TMOV copies src's valid region whatever dst's valid shape, as long as it fits in
            dst's tile, as the CPU simulator's element loop does with its assert compiled out (PTO181);
            elsewhere the two valid shapes must be equal.
        mx_sim_codes: TMATMUL_MX reads fp8 and E8M0 codes as the CPU simulator's ``MXType`` does:
            every code a finite number, E8M0 0xFF = 2**128 (PTO75).
        empty_reduce_cpu: a row (column) reduce over an empty line gives +0 (sum), 1 (product)
            or the line's first element, read outside the valid region (max), as the CPU
            simulator's loops do; its min reduces and empty sets of lines write nothing.
        colsum_pairwise: TCOLSUM's ``is_binary`` form sums rows in pairs (PTO19); the CPU
            simulator ignores the flag and sums sequentially.
        any_layout: ops whose tiles may use every layout (the CPU simulator addresses
            elements through the layout's offsets wherever it compiles).
        vec_tload_max_rows: TLOAD into a Vec tile allows at most this many rows (A2A3: 4095).
        left_blayout: the block layout of the target's Left (L0A) tile (pto-isa's ``TileLeft``), which PTOAS's
            type parser gives every ``loc=left`` tile_buf (decision PTO35); None keeps the written one.
        matmul_left_blayout: the Left block layout TMATMUL checks (A5 only, decision PTO40), or None.
        tmov_paths: the (src loc, dst loc) pairs TMOV accepts, or None for every pair (the CPU reference).
        window_paths: TEXTRACT/TINSERT rules per location pair (:mod:`tilesim.pto.window_paths`),
            or None for every pair (the CPU reference); quant_paths: the pairs of their quant forms.
        absent_ops: ops the target does not have (pto-isa gives them no back end there).
        dtypes: op -> accepted dtype signatures (see :data:`OP_TYPES`).
    """

    name: str
    capacities: Mapping[str, int]
    nan_mode: str
    flush_denormals: bool
    colarg_unsigned_as_float: bool
    colarg_f16_index: bool
    int16_row_counter: bool
    tmp_used: bool
    cmp_i32_eq_only: bool
    cvt_float_honours_mode: bool
    cvt_saturate_default: bool
    left_blayout: str | None
    matmul_left_blayout: str | None = None
    vec_tload_max_rows: int | None = None
    align: int = 32
    tmp_same_dtype: frozenset = frozenset()
    cvt_wrap_pairs: frozenset = frozenset()
    zero_size_noop: frozenset = frozenset({"tcolsum", "tcolmax", "tcolmin", "tcolprod"})
    tmov_paths: frozenset | None = None
    window_paths: Mapping | None = None
    quant_paths: frozenset | None = None
    absent_ops: frozenset = frozenset()
    cvt_cpu_model: bool = False
    cvt_odd_modes: Mapping | None = None
    cvt_sat_pairs: frozenset | None = None
    mscatter_sequential: bool = False
    strict: bool = False
    any_layout: frozenset = frozenset()
    colsum_pairwise: bool = True
    expand_casts: bool = False
    x86_nans: bool = False
    gxx: bool = False
    cpu_masks: bool = False
    f16_pad_limits_zero: bool = False
    tload_fills_pad: bool = False
    tload_any_loc: bool = False
    prefetch_copies: bool = False
    empty_reduce_cpu: bool = False
    fp_modeless_casts: bool = False
    quant_saturate_inf: bool = False
    mx_sim_codes: bool = False
    tmov_ignores_scalar: bool = False
    tmov_src_valid: bool = False
    int_promotion: bool = False
    pairsum_zeroes_tile: bool = False
    partarg_any_valid: bool = False
    img2col_from_tile: bool = False
    img2col_banked_rpt: bool = False
    quant_scalar_zero_extends: bool = False
    gm_index_nz: bool = False
    int4_one_byte: bool = False
    dma_engines: frozenset = frozenset({"sdma", "urma", "rdma"})
    dtypes: Mapping[str, frozenset] = field(default=None, compare=False, repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.nan_mode not in NAN_MODES:
            raise TilesimError(f"nan_mode must be one of {', '.join(NAN_MODES)}", instruction="pto.Profile",
                               operand="nan_mode", rule="pto.target.nan_mode", value=self.nan_mode)
        unknown = set(self.capacities) - set(LOCATIONS)
        if unknown:
            raise TilesimError("unknown tile locations", instruction="pto.Profile", operand="capacities",
                               rule="pto.target.loc", value=sorted(unknown))
        if self.dtypes is None:
            base = self.name.split("+")[0]
            object.__setattr__(self, "dtypes",
                               MappingProxyType({op: r.for_target(base) for op, r in OP_TYPES.items()}))

    @property
    def vectorised_rowsum(self) -> bool:
        """TROWSUM of an ND f32/f16 source adds as clang's vectorised loop does (PTO91), not g++'s (PTO193)."""
        return self.x86_nans and not self.gxx

    def with_(self, **changes) -> "Profile":
        """A copy with some fields changed; its name records that it is a variant."""
        name = changes.pop("name", None) or self.name.split("+")[0] + "+" + ",".join(
            f"{k}={v}" for k, v in sorted(changes.items()))
        return dataclasses.replace(self, name=name, **changes)

    def check_dtypes(self, op: str, sig: tuple, operands: tuple[str, ...] | None = None) -> None:
        """Raise DtypeError (rule ``pto.op.dtype``) unless ``sig`` is in the op's table here."""
        table = self.dtypes[op]
        sig = tuple(get_dtype(t).name for t in sig)
        if sig in table:
            return
        roles = OP_TYPES[op].roles
        allowed = sorted(table)
        shown = ", ".join("/".join(s) for s in allowed[:24]) + (" ..." if len(allowed) > 24 else "")
        raise DtypeError(
            f"{'/'.join(roles)} = {'/'.join(sig)} is not supported on target {self.name}; supported: {shown}",
            instruction=op.upper(), operand=",".join(operands or roles), rule="pto.op.dtype", value=sig)


#: ops whose CPU_SIM code addresses elements through each tile's layout offsets and asserts no layout
#: (PTO73; the bitwise ops, TFMOD/TFMODS, TSUBC...: PTO122-PTO124)
_CPU_ANY_LAYOUT = frozenset({
    "tcvt", "trowsum", "trowmax", "trowmin", "trowprod", "tcolsum", "tcolmax", "tcolmin", "tcolprod",
    "trowexpand", "tcolexpand", "tadd", "tsub", "tmul", "tmax", "tmin", "tdiv",
    "texp", "tlog", "tsqrt", "trsqrt", "tabs", "tneg", "trelu",
    "tsubs", "tmins", "trem", "trems", "taddc", "tpartadd", "tpartmul", "tpartmax", "tpartmin",
    "tcmp", "tcmps", "tsel", "tsels", "taxpy",
    "tand", "tor", "txor", "tnot", "tands", "tors", "txors", "tshl", "tshr", "tshls", "tshrs", "tfmod", "tfmods",
    "tsubc", "tsubrelu", "tprelu", "ttrans", "tmuladddst", "tfusedmuladd", "tfusedmuladdrelu",
    "tadddeqrelu", "tload",                                         # PTO160
    "tpow"})  # TPow.hpp: every layout; TPOWS is row-major only (PTO132)

_CAP_A2A3 = {"vec": 192 * _K, "mat": 512 * _K, "left": 64 * _K, "right": 64 * _K, "acc": 128 * _K,
             "bias": 1 * _K, "scaling": 2 * _K}
# TMOV location pairs: pto-isa docs/isa/TMOV.md, "A2A3/A5 implementation checks"
_TMOV_A2A3 = frozenset({("mat", "left"), ("mat", "right"), ("mat", "bias"), ("mat", "scaling"), ("vec", "vec"),
                        ("acc", "mat")})
_TMOV_A5 = _TMOV_A2A3 | {("vec", "mat"), ("acc", "vec")}
_CAP_A5 = {"vec": 256 * _K, "mat": 512 * _K, "left": 64 * _K, "right": 64 * _K, "acc": 256 * _K,
           "bias": 4 * _K, "scaling": 4 * _K}

TARGETS: Mapping[str, Profile] = MappingProxyType({
    "cpu": Profile(
        name="cpu", capacities=MappingProxyType(_CAP_A5), nan_mode="first", flush_denormals=False,
        colarg_unsigned_as_float=False, colarg_f16_index=False, int16_row_counter=False, tmp_used=False,
        cmp_i32_eq_only=False, cvt_float_honours_mode=False, cvt_saturate_default=False, left_blayout=None,
        cvt_cpu_model=True, any_layout=_CPU_ANY_LAYOUT, colsum_pairwise=False,
        expand_casts=True, x86_nans=True, cpu_masks=True, f16_pad_limits_zero=True, tload_fills_pad=True,
        prefetch_copies=True, tload_any_loc=True,
        empty_reduce_cpu=True, zero_size_noop=frozenset(),
        fp_modeless_casts=True, mx_sim_codes=True, tmov_ignores_scalar=True, int_promotion=True,
        pairsum_zeroes_tile=True, partarg_any_valid=True, img2col_from_tile=True,
        quant_scalar_zero_extends=True, int4_one_byte=True, tmov_src_valid=True),
    "a2a3": Profile(
        name="a2a3", capacities=MappingProxyType(_CAP_A2A3), nan_mode="propagate", flush_denormals=True,
        colarg_unsigned_as_float=True, colarg_f16_index=True, int16_row_counter=True, tmp_used=True,
        cmp_i32_eq_only=True, cvt_float_honours_mode=True, cvt_saturate_default=True, left_blayout="row_major",
        vec_tload_max_rows=4095,
        tmp_same_dtype=frozenset({"tcolargmax", "tcolargmin", "trowprod", "tcolsum"}),
        cvt_wrap_pairs=frozenset({("f32", "i16"), ("f16", "i16"), ("f16", "i8")}),
        zero_size_noop=frozenset({"tcolsum", "tcolmax", "tcolmin", "tcolprod", "trowexpand", "tcolexpand"}),
        tmov_paths=_TMOV_A2A3, window_paths=WINDOW_PATHS_A2A3, quant_paths=QUANT_PATHS_A2A3,
        absent_ops=frozenset({"thistogram", "tget_scale_addr", "tinterleave", "tdeinterleave", "tquant_mx"}),
        gm_index_nz=True, dma_engines=frozenset({"sdma"}),
        cvt_odd_modes=CVT_ODD_A2A3, cvt_sat_pairs=CVT_SAT_PAIRS_A2A3, mscatter_sequential=True),
    "a5": Profile(
        name="a5", capacities=MappingProxyType(_CAP_A5), nan_mode="first", flush_denormals=True,
        colarg_unsigned_as_float=False, colarg_f16_index=False, int16_row_counter=False, tmp_used=False,
        cmp_i32_eq_only=False, cvt_float_honours_mode=True, cvt_saturate_default=True, left_blayout="col_major",
        matmul_left_blayout="col_major", tmov_paths=_TMOV_A5,
        window_paths=WINDOW_PATHS_A5, quant_paths=QUANT_PATHS_A5, img2col_banked_rpt=True,
        cvt_odd_modes=CVT_ODD_A5),
})


def get_target(target: "str | Profile | None" = None) -> Profile:
    """The profile for a name (``cpu``, ``a2a3``, ``a5``; ``a3``/``a2`` mean ``a2a3``) or a Profile.

    >>> get_target("a3").name
    'a2a3'

    Raises:
        TilesimError: an unknown target (rule ``pto.target.name``).
    """
    if isinstance(target, Profile):
        return target
    prof = TARGETS.get(target)  # the common spelling, without normalising
    if prof is not None:
        return prof
    key = DEFAULT_TARGET if target is None else str(target).lower()
    key = {"a2": "a2a3", "a3": "a2a3"}.get(key, key)
    if key not in TARGETS:
        raise TilesimError(f"unknown target {target!r}; known: " + ", ".join(TARGETS), instruction="pto",
                           operand="target", rule="pto.target.name", value=target)
    return TARGETS[key]
