"""PTO stimulus: every op of :data:`tilesim.pto.ops.OPS`, on one target and dtype signature.

A vector is one call on fresh tiles. Every tile is an operand at its full capacity (inputs and
the destination's prior content, so writes outside the valid region show as mismatches), and
``valid`` lists each tile's valid region (rows, cols) in operand order. The directed part puts
value classes into the sources, argmax ties, and partial valid regions; ``partial_valid``
vectors shrink the op's region below the capacity.

Shapes: ``R = 4`` rows; each operand tile is one 32-byte block wide (two for 1-byte types),
so its columns follow its dtype. Families (``FAMILY``) decide which tiles an op takes; the ops
with no elementwise dtype table (``_FIXED``) get one signature each, and inputs with a constrained
range (indices, filters, scales, quant words) are filled from that range (decision V13).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from ... import formats
from ...errors import DtypeError, TilesimError
from ...pto import BlockConfig, ConvTile, Tile
from ...pto.dtypes import get_dtype
from ...pto import ops as pto_ops
from ...pto.ops import OPS as PTO_OPS
from ...pto.targets import OP_TYPES, get_target
from ..classes import finish, plan
from ..vectorset import Operand, VectorSet
from .dist import Dist
from .values import applicable, class_codes, measure, random_codes, tie_mask, tie_values

__all__ = ["OPS", "OPTIONS", "FAMILY", "generate"]

OPTIONS = frozenset({"dtype", "target", "dist"})
R = 4
_TEXT = 1024   # bytes of TPRINT's text operand (R x 16 values of at most 11 characters, row breaks)

_ROW_RED = ("trowsum", "trowmax", "trowmin", "trowprod")
_COL_RED = ("tcolsum", "tcolmax", "tcolmin", "tcolprod")
_ARG = ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin")

#: ops with no elementwise dtype-table row: (family, the one dtype signature generated, its roles)
_FIXED: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "tconcat": ("concat", ("f16",), ("dtype",)),
    "tpack": ("pack", ("i32", "i16"), ("src", "dst")),
    **{o: ("fillpad", ("f16",), ("dtype",)) for o in ("tfillpad", "tfillpad_inplace", "tfillpad_expand")},
    "tprefetch": ("prefetch", ("f16",), ("dtype",)),
    "tprint": ("print", ("f16",), ("dtype",)),
    "tmov": ("move", ("f16",), ("dtype",)), "textract": ("move", ("f16",), ("dtype",)),
    "tinsert": ("move", ("f16",), ("dtype",)),
    **{o: ("window_fp", ("f32", "i8", "u64"), ("src", "dst", "fp")) for o in ("textract_fp", "tinsert_fp")},
    "tstore_fp": ("store_fp", ("f32", "i8", "u64"), ("src", "dst", "fp")),
    "tmov_fp": ("move_fp", ("f32", "i8", "u64"), ("src", "dst", "fp")),
    "tgather": ("gather", ("f16", "i32"), ("dtype", "indices")),
    "thistogram": ("histogram", ("u16", "u8", "u32"), ("src", "idx", "dst")),
    "tsort32": ("sort32", ("f32", "u32"), ("dtype", "idx")),
    "tquant": ("quant", ("f32", "i8"), ("src", "dst")),
    "trandom": ("random", ("u32",), ("dtype",)),
    "tmrgsort": ("mrgsort", ("f32",), ("dtype",)),
    "treshape": ("reshape", ("i32", "i16"), ("src", "dst")),
    "tsubview": ("subview", ("f16",), ("dtype",)),
    "tgatherb": ("gatherb", ("f32", "u32"), ("dst", "offset")),
    "tadddeqrelu": ("adddeqrelu", ("i32", "f16"), ("src", "dst")),
    **{o: ("addreluconv", ("f32", "f16"), ("src", "dst")) for o in ("taddreluconv", "tsubreluconv")},
    "timg2col": ("img2col", ("f16",), ("dtype",)),
    "tquant_mx": ("quant_mx", ("f32", "i8"), ("src", "dst")),
    "tprefetch_async": ("prefetch_async", ("f16",), ("dtype",)),
    "tscatter": ("scatter", ("f32", "u32"), ("dst", "indexes")),
    "mgather": ("mgather", ("f32", "u32"), ("dst", "indexes")),
    "mscatter": ("mscatter", ("f32", "u32"), ("src", "indexes")),
    **{o: ("matmul_mx", ("f32", "f8e4m3", "f8e4m3", "f8e8m0"), ("c", "a", "b", "scale"))
       for o in ("tmatmul_mx", "tmatmul_mx_acc", "tmatmul_mx_bias", "tgemv_mx", "tgemv_mx_acc", "tgemv_mx_bias")},
}

#: op -> family (the tiles it takes and how they are shaped)
FAMILY: dict[str, str] = {
    **{o: "row_reduce" for o in _ROW_RED}, **{o: "col_reduce" for o in _COL_RED},
    **{o: "arg" for o in _ARG},
    "trowexpand": "row_expand", "tcolexpand": "col_expand",
    **{f"trowexpand{k}": "row_expand_binary" for k in ("add", "sub", "mul", "div", "max", "min", "expdif")},
    **{f"tcolexpand{k}": "col_expand_binary" for k in ("add", "sub", "mul", "div", "max", "min", "expdif")},
    **{o: "binary" for o in ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin")},
    **{o: "unary" for o in ("texp", "tlog", "tsqrt", "trsqrt", "trecip", "tabs", "tneg", "trelu")},
    **{o: "scalar" for o in ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins")},
    "texpands": "fill", "tcmp": "cmp", "tcmps": "cmps", "tsel": "sel", "tsels": "sels", "tcvt": "cvt",
    "tload": "load", "tstore": "store", "tmatmul": "matmul",
    **{o: "binary" for o in ("trem", "tpartadd", "tpartmul", "tpartmax", "tpartmin")},
    "trems": "scalar", "taddc": "ternary", "taxpy": "axpy",
    **{o: "binary" for o in ("tand", "tor", "txor", "tfmod", "tsubrelu", "tprelu")},  # issue 21
    **{o: "scalar" for o in ("tands", "tors", "txors", "tfmods", "tlrelu")}, "tnot": "unary",
    "tpow": "binary", "tpows": "scalar",  # PTO132
    "tshl": "shift", "tshr": "shift", "tshls": "shift_scalar", "tshrs": "shift_scalar", "tsubc": "ternary",
    "taddsc": "carry_scalar", "tsubsc": "carry_scalar", "ttrans": "trans",
    "tinterleave": "interleave", "tdeinterleave": "interleave",
    **{o: "binary" for o in ("tmuladddst", "tfusedmuladd", "tfusedmuladdrelu")}, "tpairreducesum": "unary",
    "tpartargmax": "partarg", "tpartargmin": "partarg",
    "tmatmul_acc": "matmul_acc", "tmatmul_bias": "matmul_bias",
    "tgemv": "matmul", "tgemv_acc": "matmul_acc", "tgemv_bias": "matmul_bias",  # M = 1 (_region, PTO135)
    "tci": "ci", "ttri": "tri", "tdequant": "dequant",
    **{o: _FIXED[o][0] for o in sorted(_FIXED)},
}
OPS = tuple(FAMILY)

#: families whose results are source bits moved unchanged, so a NaN's payload is defined (decision V5);
#: arithmetic results are NaNs the spec does not give a payload (tilesim writes a canonical one)
_BIT_COPY = frozenset({"row_expand", "col_expand", "fill", "sel", "sels", "load", "store", "cmp", "cmps", "arg",
                       "concat", "pack", "fillpad", "prefetch", "print", "move", "gather", "histogram", "sort32",
                       "random", "ci", "tri", "mrgsort", "partarg", "reshape", "subview", "gatherb", "img2col",
                       "prefetch_async", "scatter", "mgather", "mscatter"})

#: the dtype-table row of each op (arg ops share theirs)
_TABLE = {**{o: o for o in FAMILY}, "trowargmax": "trowarg", "trowargmin": "trowarg",
          "tcolargmax": "tcolarg", "tcolargmin": "tcolarg", "tmatmul_acc": "tmatmul", "tmatmul_bias": "tmatmul",
          **{o: "tmatmul" for o in ("tgemv", "tgemv_acc", "tgemv_bias")}}


def _cols(dt) -> int:
    """Columns of an operand tile: one 32-byte block (two for 1-byte types)."""
    size = get_dtype(dt).size
    return 32 // size * (2 if size == 1 else 1)


def _pb(dt) -> int:
    return 32 // get_dtype(dt).size


def _shift_width(dt, target) -> int:
    """Shift counts run over 0 .. width - 1 (8- and 16-bit lanes promoted to int where the target does)."""
    bits = get_dtype(dt).bits
    return max(32, bits) if get_target(target).int_promotion else bits


@dataclass
class _Call:
    """The tiles of one call, the roles of each, and the call itself."""

    tiles: dict[str, Tile]
    outputs: tuple[str, ...]
    call: object                 # call(scalar value) runs the op
    scalar: str | None = None    # the scalar operand's dtype, for the families that take one
    fills: dict = field(default_factory=dict)   # tile name -> fill(rng, shape): inputs with a constrained range


def _signature(op: str, target, dtype: str | None) -> tuple[str, ...]:
    """The dtype signature in the op's table row order: given (``f16`` or ``f16,i32``) or the first listed."""
    if op in _FIXED:
        sig = _FIXED[op][1]
        if dtype is not None and tuple(get_dtype(t.strip()).name for t in str(dtype).split(",")) not in (sig, sig[:1]):
            raise DtypeError(f"{op} vectors are generated for dtype {','.join(sig)} only",
                             instruction="tilesim vectors", operand="dtype", rule="verify.pto.dtype", value=str(dtype))
        return sig
    prof = get_target(target)
    table = prof.dtypes[_TABLE[op]]
    if dtype is None:
        order = ("f32", "f16", "bf16", "i32", "i16", "i8", "u32", "u16", "u8", "i64", "u64")
        return min(table, key=lambda s: tuple(order.index(t) if t in order else len(order) for t in s))  # hif8 last
    sig = tuple(get_dtype(t.strip()).name for t in str(dtype).split(","))
    if len(sig) == 1 and len(OP_TYPES[_TABLE[op]].roles) > 1:
        same = sig * len(OP_TYPES[_TABLE[op]].roles)  # the same dtype throughout where the table has it
        sig = same if same in table else next((s for s in sorted(table) if s[0] == sig[0]), same)
    prof.check_dtypes(_TABLE[op], sig)
    return sig


def _build(op: str, sig: tuple[str, ...], vr: int, vc: int, target) -> _Call:
    """Fresh tiles for ``op`` with region (vr, vc) and the call that runs it."""
    fam = FAMILY[op]
    fn = PTO_OPS[op] if op in PTO_OPS else getattr(pto_ops, op)  # MGATHER/MSCATTER: Python only
    d = sig[0]
    C = _cols(d)

    def t(dt, rows, cols, valid, **kw):
        return Tile(kw.pop("loc", "vec"), dt, rows, cols, valid=valid, **kw)

    if fam in ("row_reduce", "col_reduce", "arg"):
        src_dt, dst_dt = sig
        src = t(src_dt, R, C, (vr, vc))
        if op.startswith("trow"):
            dst = t(dst_dt, R, _pb(dst_dt), (vr, 1))
        else:
            # the width follows the source tile, not the valid region, so every vector has one shape
            dst = t(dst_dt, 1, max(-(-C // _pb(dst_dt)) * _pb(dst_dt), _pb(dst_dt)), (1, vc))
        tmp = t(src_dt, R, C, (R, C))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, tmp, target=target))
    if fam in ("row_expand", "col_expand"):
        dst = t(d, R, C, (vr, vc))
        src = t(d, R, C, (vr, 1)) if fam == "row_expand" else t(d, 1, C, (1, vc))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
    if fam in ("row_expand_binary", "col_expand_binary"):
        dst, src0 = t(d, R, C, (vr, vc)), t(d, R, C, (vr, vc))
        src1 = t(d, R, _pb(d), (vr, _pb(d))) if fam == "row_expand_binary" else t(d, 1, C, (1, vc))
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src0, src1, target=target))
    if fam == "binary":
        dst, src0, src1 = (t(d, R, C, (vr, vc)) for _ in range(3))
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",), lambda v=None: fn(dst, src0, src1, target=target))
    if fam in ("unary", "scalar"):
        dst, src = t(d, R, C, (vr, vc)), t(d, R, C, (vr, vc))
        if fam == "unary":
            return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v: fn(dst, src, v, target=target), d)
    if fam == "fill":
        dst = t(d, R, C, (vr, vc))
        return _Call({"dst": dst}, ("dst",), lambda v: fn(dst, v, target=target), d)
    if fam in ("cmp", "cmps"):
        src_dt, mask_dt = sig
        w = get_dtype(mask_dt).bits
        mask = t(mask_dt, R, _pb(mask_dt), (vr, -(-vc // w)))
        src0 = t(src_dt, R, _cols(src_dt), (vr, vc))
        if fam == "cmp":
            src1 = t(src_dt, R, _cols(src_dt), (vr, vc))
            return _Call({"src0": src0, "src1": src1, "dst": mask}, ("dst",),
                         lambda v=None: fn(mask, src0, src1, "lt", target=target))
        return _Call({"src0": src0, "dst": mask}, ("dst",), lambda v: fn(mask, src0, v, "lt", target=target), src_dt)
    if fam in ("sel", "sels"):
        mask_dt = "u8" if get_target(target).name == "a2a3" else "u32"
        mask = t(mask_dt, R, _pb(mask_dt), (R, 1))
        dst, src0 = t(d, R, C, (vr, vc)), t(d, R, C, (vr, vc))
        if fam == "sel":
            src1 = t(d, R, C, (vr, vc))
            return _Call({"mask": mask, "src0": src0, "src1": src1, "dst": dst}, ("dst",),
                         lambda v=None: fn(dst, mask, src0, src1, target=target))
        return _Call({"mask": mask, "src0": src0, "dst": dst}, ("dst",),
                     lambda v: fn(dst, mask, src0, v, target=target), d)
    if fam == "cvt":
        src_dt, dst_dt = sig
        cols = max(_cols(src_dt), _cols(dst_dt))
        src, dst = t(src_dt, R, cols, (vr, vc)), t(dst_dt, R, cols, (vr, vc))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
    if fam == "load":
        dst = t(d, R, C, (vr, vc))
        src = t(d, R, C, (R, C))                  # the global matrix, carried as a tile-shaped operand
        return _Call({"src": src, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src.bits.view(get_dtype(d).lane), target=target))
    if fam == "store":
        src = t(d, R, C, (vr, vc))
        dst = t(d, R, C, (R, C))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst.bits, src, target=target))
    if fam in ("matmul", "matmul_acc", "matmul_bias"):
        c_dt, a_dt, b_dt = sig
        prof = get_target(target)
        kk = _pb(a_dt)
        left_bl = prof.left_blayout or "row_major"
        a = Tile("left", a_dt, 16, kk, valid=(vr, kk), blayout=left_bl, slayout="row_major", fractal=512)
        b = Tile("right", b_dt, kk, 16, valid=(kk, vc), blayout="row_major", slayout="col_major", fractal=512)
        c = Tile("acc", c_dt, 16, 16, valid=(vr, vc), blayout="col_major", slayout="row_major", fractal=1024)
        if fam == "matmul":
            return _Call({"a": a, "b": b, "dst": c}, ("dst",), lambda v=None: fn(c, a, b, target=target))
        if fam == "matmul_acc":
            c_in = Tile("acc", c_dt, 16, 16, valid=(vr, vc), blayout="col_major", slayout="row_major", fractal=1024)
            return _Call({"c_in": c_in, "a": a, "b": b, "dst": c}, ("dst",),
                         lambda v=None: fn(c, c_in, a, b, target=target))
        bias = Tile("bias", c_dt, 1, 16, valid=(1, vc))
        return _Call({"a": a, "b": b, "bias": bias, "dst": c}, ("dst",),
                     lambda v=None: fn(c, a, b, bias, target=target))
    return _build_more(op, fam, fn, sig, vr, vc, t, target)


def _build_more(op: str, fam: str, fn, sig, vr: int, vc: int, t, target) -> _Call:
    """The families of the layout, move, gather, sort, quant, debug and MX ops (see ``_FIXED``)."""
    d = sig[0]
    C = _cols(d)
    if fam == "ternary":
        dst, src0, src1, src2 = (t(d, R, C, (vr, vc)) for _ in range(4))
        return _Call({"src0": src0, "src1": src1, "src2": src2, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src0, src1, src2, target=target))
    if fam == "shift":       # counts the target defines (PTO122)
        dst, src0, src1 = (t(d, R, C, (vr, vc)) for _ in range(3))
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src0, src1, target=target),
                     fills={"src1": lambda rng, shape: rng.integers(0, _shift_width(d, target), shape)})
    if fam in ("shift_scalar", "carry_scalar"):
        dst, src0 = t(d, R, C, (vr, vc)), t(d, R, C, (vr, vc))
        if fam == "shift_scalar":
            return _Call({"src": src0, "dst": dst}, ("dst",), lambda v: fn(dst, src0, v, target=target), d)
        src1 = t(d, R, C, (vr, vc))
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",),
                     lambda v: fn(dst, src0, v, src1, target=target), d)
    if fam == "trans":       # dst holds the transpose of src's region
        src, dst = t(d, R, C, (vr, vc)), t(d, C, max(_pb(d), R), (vc, vr))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
    if fam == "interleave":  # four tiles of one region with even columns
        vc = max(2, vc - vc % 2)
        dst0, dst1, src0, src1 = (t(d, R, C, (vr, vc)) for _ in range(4))
        return _Call({"src0": src0, "src1": src1, "dst0": dst0, "dst1": dst1}, ("dst0", "dst1"),
                     lambda v=None: fn(dst0, dst1, src0, src1, target=target))
    if fam == "partarg":     # values and their indices, all of one region (PTO128)
        vals = [t(sig[0], R, _cols(sig[0]), (vr, vc)) for _ in range(3)]
        idxs = [t(sig[1], R, _cols(sig[1]), (vr, vc)) for _ in range(3)]
        names = ("dst_val", "src0_val", "src1_val", "dst_idx", "src0_idx", "src1_idx")
        return _Call(dict(zip(names, vals + idxs)), ("dst_val", "dst_idx"),
                     lambda v=None: fn(vals[0], idxs[0], vals[1], vals[2], idxs[1], idxs[2], target=target))
    if fam == "reshape":      # dst: one row over src's bytes (PTO129)
        src = t(sig[0], R, C, (vr, vc))
        n = R * C * get_dtype(sig[0]).size // get_dtype(sig[1]).size
        dst = t(sig[1], 1, n, (1, n))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
    if fam == "subview":      # dst: src's lower half (PTO130)
        src = t(d, R, C, (R, C))
        dst = t(d, R // 2, C, (R // 2, vc))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, R // 2, 0, target=target))
    if fam in ("adddeqrelu", "addreluconv"):   # sums in f16's range (the NPUs refuse the rest; PTO143, PTO144)
        cols = max(_cols(sig[0]), _cols(sig[1]))
        src0, src1 = (t(sig[0], R, cols, (vr, vc)) for _ in range(2))
        dst = t(sig[1], R, cols, (vr, vc))
        small = (lambda rng, shape: rng.integers(-3000, 3000, shape).astype(np.int32).view(np.uint32)) \
            if fam == "adddeqrelu" else (lambda rng, shape: (rng.standard_normal(shape) * 100).astype(np.float32)
                                         .view(np.uint32))
        extra = (0.5,) if fam == "adddeqrelu" else ()
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src0, src1, *extra, target=target), fills={"src0": small, "src1": small})
    if fam == "img2col":      # a 4 x 4 feature map (1 x 16 channels), 2 x 2 filter, pads 1: 25 rows of 64 (PTO140)
        src = t(d, 16, 32 // get_dtype(d).size, (16, 32 // get_dtype(d).size), loc="mat")
        zz = get_target(target).left_blayout == "row_major"          # A2A3's Left tile is Zz (PTO187)
        dst = t(d, 16, C, (vr, vc), loc="left", blayout="row_major" if zz else "col_major", slayout="row_major")
        shape = (1, 1, 4, 4, src.cols)

        def run(v=None):
            conv = ConvTile(d, shape, fmap_h=4, fmap_w=4, filter_h=2, filter_w=2, pad_list=(1, 1, 1, 1))
            conv.bits[...] = src.bits.reshape(shape)
            return fn(dst, conv, 3, 0, mode="a_auto", config=BlockConfig(), target=target)
        return _Call({"src": src, "dst": dst}, ("dst",), run)
    if fam == "quant_mx":     # OCP MXFP8, groups along the rows of src's valid rows, finite sources (PTO145)
        src, dst = t(sig[0], 16, 64, (vr, 64)), t(sig[1], 16, 64, (vr, 64))
        exp, mx, sc = t("u8", 16, 32, (16, 32)), t("f32", 1, 32, (1, 32)), t("f32", 1, 32, (1, 32))
        finite = lambda rng, shape: (rng.standard_normal(shape) * 2.0 ** rng.integers(-20, 20, (shape[0], 1))  # noqa
                                     ).astype(np.float32).view(np.uint32)
        return _Call({"src": src, "dst": dst, "exp": exp, "max": mx, "scaling": sc}, ("dst", "exp", "max", "scaling"),
                     lambda v=None: fn(dst, src, exp, mx, sc, target=target), fills={"src": finite})
    if fam == "prefetch_async":   # global memory carried as a tile, also the output: left as it was (PTO142)
        src = t(d, R, C, (vr, vc))
        return _Call({"src": src}, ("src",), lambda v=None: fn(src.bits.view(get_dtype(d).lane), target=target))
    if fam == "gatherb":      # dst's blocks from src's blocks in reverse order (PTO131)
        src, dst = t(d, R, C, (R, C)), t(d, R, C, (vr, C))
        off = t(sig[1], R, _pb(sig[1]), (R, _pb(sig[1])))
        nb = C * get_dtype(d).size // 32
        off.bits[:, :nb] = (R * nb - 1 - np.arange(R * nb).reshape(R, nb)) * 32
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, off, target=target))
    if fam in ("mgather", "mscatter"):  # the global table carried as a tile; indexes reverse its elements (PTO134)
        tile, table = t(d, R, C, (vr, vc)), t(d, R, C, (R, C))
        idx = t(sig[1], R, C, (vr, vc))
        idx.bits[...] = R * C - 1 - np.arange(R * C).reshape(R, C)
        if fam == "mgather":
            return _Call({"src": table, "dst": tile}, ("dst",),
                         lambda v=None: fn(tile, table.bits.view(get_dtype(d).lane), idx, target=target))
        return _Call({"src": tile, "dst": table}, ("dst",), lambda v=None: fn(table.bits, tile, idx, target=target))
    if fam == "scatter":      # src's valid rows to dst's rows in reverse order, an index per element (PTO133)
        src, dst, idx = t(d, R, C, (vr, vc)), t(d, R, C, (R, C)), t(sig[1], R, C, (vr, vc))
        idx.bits[:vr, :vc] = (R - 1 - np.arange(vr))[:, None]
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, idx, target=target))
    if fam == "axpy":
        cols = max(_cols(sig[0]), _cols(sig[1]))
        src, dst = t(sig[0], R, cols, (vr, vc)), t(sig[1], R, cols, (vr, vc))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v: fn(dst, src, v, target=target), sig[0])
    if fam == "concat":       # src0 gives the first half of dst's valid columns, src1 the rest
        dst = t(d, R, C, (vr, vc))
        src0, src1 = t(d, R, C, (vr, (vc + 1) // 2)), t(d, R, C, (vr, vc // 2))
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src0, src1, target=target))
    if fam == "pack":
        src, dst = t(sig[0], R, C, (vr, vc)), t(sig[1], R, _cols(sig[1]), (vr, vc))
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
    if fam == "fillpad":      # pad value max (+inf); the expand form's dst is twice src's size each way
        src = t(d, R, C, (vr, vc))
        dst = t(d, 2 * R, 2 * C, (2 * R, 2 * C), pad="max") if op.endswith("expand") else t(d, R, C, (R, C), pad="max")
        return _Call({"src": src, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, target=target))
    if fam == "prefetch":     # a hint: dst after it is dst before it
        dst, src = t(d, R, C, (vr, vc)), t(d, R, C, (R, C))
        return _Call({"src": src, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src.bits.view(get_dtype(d).lane), target=target))
    if fam == "print":        # the text, as UTF-8 bytes zero-padded to the text tile (decision V13)
        src = t(d, R, C, (vr, vc))
        text = t("u8", 1, _TEXT, (1, _TEXT))

        def call(v=None):
            out = fn(src, out=io.StringIO(), target=target).encode()
            text.bits[...] = 0
            text.bits[0, : len(out)] = np.frombuffer(out, np.uint8)
        return _Call({"src": src, "text": text}, ("text",), call)
    if fam == "move" and op == "tinsert" and _acc_insert(target):   # A2A3 TINSERT: acc f32 -> mat, Nz (PTO43)
        nz = dict(blayout="col_major", slayout="row_major")
        small = Tile("acc", "f32", 16, 16, valid=(vr, vc), fractal=1024, **nz)
        big = Tile("mat", d, 16, 16, valid=(16, 16), **nz)
        return _Call({"src": small, "dst": big}, ("dst",),
                     lambda v=None: fn(big, small, 16 - vr, 16 - vc, target=target))
    if fam == "move":         # textract / tinsert: the window at the bottom-right corner of the big tile
        big, small = t(d, R, C, (R, C)), t(d, R, C, (vr, vc))
        if op == "tmov":
            src = t(d, R, C, (vr, vc))
            return _Call({"src": src, "dst": small}, ("dst",), lambda v=None: fn(small, src, target=target))
        if op == "textract":
            return _Call({"src": big, "dst": small}, ("dst",),
                         lambda v=None: fn(small, big, R - vr, C - vc, target=target))
        return _Call({"src": small, "dst": big}, ("dst",), lambda v=None: fn(big, small, R - vr, C - vc, target=target))
    if fam == "window_fp":    # acc f32 -> mat i8, one random quant word per source column
        acc = dict(blayout="col_major", slayout="row_major")
        big = Tile("acc", sig[0], 16, 16, valid=(16, 16), fractal=1024, **acc)
        small = Tile("acc", sig[0], 16, 16, valid=(vr, vc), fractal=1024, **acc)
        fp = Tile("scaling", "u64", 1, 16, valid=(1, 16))
        words = {"fp": lambda rng, shape: rng.integers(0, 1 << 62, size=shape, dtype=np.uint64)}
        if op == "textract_fp":
            dst = Tile("mat", sig[1], 16, 32, valid=(vr, vc), **acc)
            return _Call({"src": big, "fp": fp, "dst": dst}, ("dst",),
                         lambda v=None: fn(dst, big, fp, 16 - vr, 16 - vc, target=target), fills=words)
        dst = Tile("mat", sig[1], 16, 32, valid=(16, 16), **acc)
        return _Call({"src": small, "fp": fp, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, small, fp, 16 - vr, 16 - vc, target=target), fills=words)
    if fam == "move_fp":      # acc f32 -> mat i8, one random quant word per column
        acc = dict(blayout="col_major", slayout="row_major")
        src = Tile("acc", sig[0], 16, 16, valid=(vr, vc), fractal=1024, **acc)
        fp = Tile("scaling", "u64", 1, 16, valid=(1, 16))
        dst = Tile("mat", sig[1], 16, 32, valid=(vr, vc), **acc)
        words = {"fp": lambda rng, shape: rng.integers(0, 1 << 62, size=shape, dtype=np.uint64)}
        return _Call({"src": src, "fp": fp, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, fp, target=target),
                     fills=words)
    if fam == "store_fp":     # acc f32 -> global i8 (a tile-shaped operand), one quant word per row or column
        src = Tile("acc", sig[0], 16, 16, valid=(vr, vc), fractal=1024, blayout="col_major", slayout="row_major")
        fp = Tile("scaling", "u64", 1, 16, valid=(1, 16))
        dst = t(sig[1], 16, 32, (16, 32))
        words = {"fp": lambda rng, shape: rng.integers(0, 1 << 62, size=shape, dtype=np.uint64)}
        return _Call({"src": src, "fp": fp, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst.bits.view(get_dtype(sig[1]).np), src, fp, target=target), fills=words)
    if fam == "gather":       # indices in [-4, numel + 4): out-of-range ones write 0
        src, dst, idx = t(d, R, C, (R, C)), t(d, R, C, (vr, vc)), t(sig[1], R, _cols(sig[1]) * 2, (vr, vc))
        fill = {"indices": lambda rng, shape: rng.integers(-4, R * C + 4, size=shape).astype(np.int32).view(np.uint32)}
        return _Call({"src": src, "indices": idx, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src, idx, target=target), fills=fill)
    if fam == "histogram":    # most significant byte; idx filters are 0..2 as the byte below
        src = t(sig[0], R, C, (vr, vc))
        idx = t(sig[1], 32, 1, (vr, 1), blayout="col_major")
        dst = t(sig[2], R, 256, (vr, 256))
        fill = {"idx": lambda rng, shape: rng.integers(0, 3, size=shape, dtype=np.uint8),
                "src": lambda rng, shape: (rng.integers(0, 256, size=shape) * 257 // rng.integers(1, 3, size=shape)
                                           ).astype(np.uint16)}
        return _Call({"src": src, "idx": idx, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src, idx, target=target), fills=fill)
    if fam == "sort32":       # one 32-element block per row; dst holds (score, index) records
        src, idx = t(d, R, 32, (vr, vc)), t(sig[1], R, 32, (vr, vc))
        dst = t(d, R, 64, (R, 64))
        return _Call({"src": src, "idx": idx, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, idx, target=target))
    if fam == "quant":        # INT8_SYM, one scale per row
        src, dst = t(sig[0], R, C, (vr, vc)), t(sig[1], R, _cols(sig[1]), (vr, vc))
        fp = t(sig[0], R, C, (vr, 1))
        return _Call({"src": src, "fp": fp, "dst": dst}, ("dst",), lambda v=None: fn(dst, src, fp, target=target))
    if fam == "random":       # keys lanes 0..5: key0, key1, counter0..3 (Philox-4x32-10)
        dst, keys = t(d, R, C, (vr, vc)), t("u32", 1, 8, (1, 6))
        return _Call({"keys": keys, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, *(int(k) for k in keys.bits[0, :6]), target=target))
    if fam == "ci":           # one row: start +- k from the scalar
        dst = t(d, 1, C, (1, vc))
        return _Call({"dst": dst}, ("dst",), lambda v: fn(dst, v, target=target), d)
    if fam == "tri":          # lower triangle, diagonal 1
        dst = t(d, R, C, (vr, vc))
        return _Call({"dst": dst}, ("dst",), lambda v=None: fn(dst, 1, target=target))
    if fam == "dequant":      # one f32 scale and offset per row
        cols = max(_cols(sig[0]), _cols(sig[1]))
        src, dst = t(sig[0], R, cols, (vr, vc)), t(sig[1], R, cols, (vr, vc))
        scale, offset = t(sig[1], R, _pb(sig[1]), (vr, 1)), t(sig[1], R, _pb(sig[1]), (vr, 1))
        return _Call({"src": src, "scale": scale, "offset": offset, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, src, scale, offset, target=target))
    if fam == "mrgsort":      # two 8-record lists merged into 16 records (records copied whole)
        src0, src1 = t(d, 1, 16, (1, 16)), t(d, 1, 16, (1, 16))
        dst, tmp = t(d, 1, 32, (1, 32)), t(d, 1, 32, (1, 32))
        return _Call({"src0": src0, "src1": src1, "dst": dst}, ("dst",),
                     lambda v=None: fn(dst, None, src0, src1, tmp, target=target))
    if fam == "matmul_mx":    # K = 64, f8e8m0 scales near 1 (codes 110..140)
        c_dt, a_dt, b_dt, s_dt = sig
        a = Tile("left", a_dt, 16, 64, valid=(vr, 64), blayout="col_major", slayout="row_major")
        b = Tile("right", b_dt, 64, 16, valid=(64, vc), blayout="row_major", slayout="col_major")
        c = Tile("acc", c_dt, 16, 16, valid=(vr, vc), blayout="col_major", slayout="row_major", fractal=1024)
        sa, sb = (Tile("scaling", s_dt, 16, 32, fractal=32, slayout="row_major") for _ in range(2))
        scale = {k: lambda rng, shape: rng.integers(110, 140, size=shape, dtype=np.uint8)
                 for k in ("a_scale", "b_scale")}
        tiles = {"a": a, "a_scale": sa, "b": b, "b_scale": sb}
        if op in ("tmatmul_mx", "tgemv_mx"):
            return _Call({**tiles, "dst": c}, ("dst",), lambda v=None: fn(c, a, sa, b, sb, target=target), fills=scale)
        if op in ("tmatmul_mx_acc", "tgemv_mx_acc"):
            c_in = Tile("acc", c_dt, 16, 16, valid=(vr, vc), blayout="col_major", slayout="row_major", fractal=1024)
            return _Call({"c_in": c_in, **tiles, "dst": c}, ("dst",),
                         lambda v=None: fn(c, c_in, a, sa, b, sb, target=target), fills=scale)
        bias = Tile("bias", c_dt, 1, 16, valid=(1, vc))
        return _Call({**tiles, "bias": bias, "dst": c}, ("dst",),
                     lambda v=None: fn(c, a, sa, b, sb, bias, target=target), fills=scale)
    raise AssertionError(fam)


def _acc_insert(target) -> bool:
    """TINSERT on this target has no vec -> vec path, only acc -> mat (A2A3; PTO43)."""
    paths = get_target(target).window_paths
    return paths is not None and ("vec", "vec") not in paths["tinsert"]


def _region(op: str, sig, target) -> tuple[int, int]:
    """The full region (rows, cols) of the op's main tile."""
    fam = FAMILY[op]
    if op.startswith("tgemv"):  # one row of A (PTO135)
        return 1, 16
    if fam.startswith("matmul") or fam in ("window_fp", "store_fp", "move_fp") or (
            op == "tinsert" and _acc_insert(target)):
        return 16, 16
    if fam == "sort32":
        return R, 32
    if fam == "mrgsort":      # the one-row tiles ignore the rows
        return R, 16
    if fam == "dequant":
        return R, max(_cols(sig[0]), _cols(sig[1]))
    if fam == "axpy":
        return R, max(_cols(sig[0]), _cols(sig[1]))
    if fam in ("adddeqrelu", "addreluconv"):
        return R, max(_cols(sig[0]), _cols(sig[1]))
    if fam == "quant_mx":     # A5's rows are a multiple of 16; two groups of 32 a row
        return 16, 64
    if fam == "partarg":      # values and indices share a region
        return R, min(_cols(sig[0]), _cols(sig[1]))
    if fam == "cvt":
        return R, max(_cols(sig[0]), _cols(sig[1]))
    if fam in ("cmp", "cmps"):
        return R, min(_cols(sig[0]), _pb(sig[1]) * get_dtype(sig[1]).bits)
    return R, _cols(sig[0])


def _classes(op: str, sig, target) -> list[str]:
    fam = FAMILY[op]
    src_fmt = get_dtype(sig[1] if fam.startswith("matmul") else sig[0]).format
    out = [] if fam in ("fill", "load", "store") else applicable(src_fmt)
    if fam == "arg":
        out.append("argmax_tie")
    if src_fmt.is_float and "nan" in out and fam in ("row_reduce", "col_reduce", "arg"):
        out += ["nan_at_0", "nan_after_0"]
    if _arith(op) and src_fmt.is_float:
        out += ["tie", "overflow"]
    if _tie_op(op, sig):
        out.append("tie")
    if fam == "cvt" and _narrows(*sig):
        out += ["tie"] + (["overflow"] if _range(get_dtype(sig[1]).format) < _range(src_fmt) else [])
    if _cvt_undefined(op, sig, get_target(target)):     # the target leaves these inputs undefined
        out = [c for c in out if c not in ("nan", "inf", "max_normal", "overflow")]
    return out + ["partial_valid"]


def generate(op: str, *, n: int, seed: int, min_per_class: int, dtype: str | None = None,
             target: str | None = None, dist: Dist | None = None) -> VectorSet:
    """A vector set for one PTO op on one target (default a5) and dtype signature."""
    dist = dist or Dist()
    prof = get_target(target)
    sig = _signature(op, prof.name, dtype)
    full = _region(op, sig, prof.name)
    rng = np.random.default_rng(seed)
    classes = _classes(op, sig, prof.name)
    order = plan(classes, n, min_per_class, rng)
    probe = _build(op, sig, *full, prof.name)
    names = list(probe.tiles)
    arrays: dict[str, list] = {k: [] for k in names}
    outs: dict[str, list] = {f"{k}_out": [] for k in probe.outputs}
    valids, scalars, tags = [], [], []
    for cls in order:
        vr, vc = full
        if cls == "partial_valid":
            fam = FAMILY[op]
            vr = int(rng.integers(1, full[0] - 1, endpoint=True)) if not fam.startswith("matmul") \
                else int(rng.integers(1, 15)) if full[0] > 1 else 1                  # TGEMV: M = 1
            vc = int(rng.integers(1, full[1] - 1, endpoint=True)) if fam not in ("row_expand_binary",) else vc
        c = _build(op, sig, vr, vc, prof.name)
        t: set[str] = {cls} - {"random"}
        for name, tile in c.tiles.items():
            fmt = tile.dtype.format
            if name in c.fills:
                tile.bits[...] = c.fills[name](rng, tile.bits.shape)
            elif name == "mask" or (name == "dst" and FAMILY[op] != "store"):
                tile.bits[...] = random_codes(fmt, rng, tile.bits.shape)
            else:
                tile.bits[...] = _codes(fmt, cls, rng, tile.bits.shape, (tile.valid_rows, tile.valid_cols), op, dist)
                if name == "src" and _cvt_undefined(op, sig, prof):
                    _keep_in_range(tile, get_dtype(sig[1]).format, rng)
        sc = np.zeros(1, np.uint64)
        if c.scalar is not None:
            sc = _codes(get_dtype(c.scalar).format, cls, rng, (1, 1), (1, 1), op, dist).reshape(1).astype(np.uint64)
        if op in _DIVISOR:
            sc = _nonzero(c, _DIVISOR[op], sc)
        if FAMILY[op] == "shift_scalar":
            sc = sc % np.uint64(_shift_width(sig[0], prof.name))
        if cls == "argmax_tie":
            _plant_tie(op, c.tiles["src"] if "src" in c.tiles else c.tiles["src0"])
        if cls in ("nan_at_0", "nan_after_0"):
            _plant_nan(op, c.tiles["src"], cls, rng)
        if cls in ("tie", "overflow"):
            sc = _plant_rounding(op, sig, cls, c, sc, rng)
        for name, tile in c.tiles.items():
            if name not in ("dst", "mask", "text"):
                meas = measure(tile.bits[: tile.valid_rows, : tile.valid_cols], tile.dtype.format)
                t |= {k for k, m in meas.items() if k in classes and m.any()}
        t |= _measure_rounding(op, sig, c, sc) & set(classes)
        before = {k: tile.bits.copy() for k, tile in c.tiles.items()}
        value = None
        if c.scalar is not None:
            sdt = get_dtype(c.scalar)
            value = sc.astype(sdt.lane).view(sdt.np)[0]
        with np.errstate(all="ignore"):
            c.call(value)
        for k in names:
            arrays[k].append(before[k])
        for k in c.outputs:
            outs[f"{k}_out"].append(c.tiles[k].bits.copy())
        valids.append([list(c.tiles[k].valid) for k in names])
        scalars.append(sc)
        if cls == "partial_valid" or (vr, vc) != full:
            t.add("partial_valid")
        tags.append(sorted(t | ({cls} - {"random"})))
    tags = finish(tags, classes, min_per_class)
    operands = []
    for k in names:
        tile = probe.tiles[k]
        operands.append(Operand(k, "input", tile.bits.shape, tile.dtype.format.lane_bits, tile.dtype.format.name,
                                doc=f"{tile.loc} {tile.dtype} {tile.rows}x{tile.cols} tile (all of it)"))
    if probe.scalar is not None:
        sf = get_dtype(probe.scalar).format
        operands.append(Operand("scalar", "input", (1,), sf.lane_bits, sf.name, doc="the scalar operand"))
    operands.append(Operand("valid", "input", (len(names), 2), 16,
                            doc="valid (rows, cols) of each tile, in operand order: " + ", ".join(names)))
    for k in probe.outputs:
        tile = probe.tiles[k]
        operands.append(Operand(f"{k}_out", "output", tile.bits.shape, tile.dtype.format.lane_bits,
                                tile.dtype.format.name, nan_any=FAMILY[op] not in _BIT_COPY,
                                doc=f"{k} after the op, all of it (outside the valid region: unchanged)"))
    arr = {k: np.stack(v).astype(probe.tiles[k].dtype.lane) for k, v in arrays.items()}
    arr |= {k: np.stack(v).astype(probe.tiles[k[:-4]].dtype.lane) for k, v in outs.items()}
    arr["valid"] = np.array(valids, np.uint16)
    if probe.scalar is not None:
        arr["scalar"] = np.stack(scalars).astype(get_dtype(probe.scalar).lane)
    roles = _FIXED[op][2] if op in _FIXED else OP_TYPES[_TABLE[op]].roles
    config = {"target": prof.name, "dtype": list(sig), "roles": list(roles),
              "family": FAMILY[op], "region": list(full),
              "cmp_mode": "lt" if FAMILY[op] in ("cmp", "cmps") else None}
    return VectorSet("pto", op, config, seed, operands, arr, tags, classes, min_per_class)


def _codes(fmt, cls, rng, shape, valid, op, dist: Dist) -> np.ndarray:
    """Codes for a source tile drawn from ``dist``, with class codes planted in the valid region."""
    codes = dist.codes(fmt, rng, shape)
    if cls in ("nan", "inf", "zero", "subnormal", "min_normal", "max_normal") and cls in applicable(fmt):
        vr, vc = valid
        k = int(rng.integers(1, max(1, vr * vc // 4), endpoint=True))
        flat = np.zeros(shape, bool)
        idx = rng.choice(vr * vc, min(k, vr * vc), replace=False)
        flat[idx // vc, idx % vc] = True
        codes = codes.copy()
        codes[flat] = class_codes(fmt, cls, rng, int(flat.sum()))
    return codes.astype(fmt.dtype)


#: ops whose divisor (a tile, or the scalar) must not be zero: TREM by zero is undefined (``pto.op.div_zero``)
_DIVISOR = {"trem": "src1", "trems": None, "tfmod": "src1", "tfmods": None}


def _zero(codes, fmt) -> np.ndarray:
    """Codes that are zero, or subnormal (a target that flushes denormals divides by zero there)."""
    m = measure(codes, fmt)
    return m["zero"] | m["subnormal"] if "subnormal" in m else m["zero"]


def _nonzero(c: _Call, divisor: str | None, sc) -> np.ndarray:
    """Zero divisors (tile ``divisor``'s, or the scalar code ``sc``) replaced by one; returns the scalar code."""
    if divisor is None:
        fmt = get_dtype(c.scalar).format
        return np.where(_zero(sc.astype(fmt.dtype), fmt), formats.encode(np.ones(1), fmt).astype(np.uint64), sc)
    tile = c.tiles[divisor]
    zero = _zero(tile.bits, tile.dtype.format)
    tile.bits[zero] = formats.encode(np.ones(int(zero.sum())), tile.dtype.format)
    return sc


def _plant_tie(op: str, src: Tile) -> None:
    """The extreme of every row (or column) of the region at index 0 and at the last index too."""
    vr, vc = src.valid
    axis = 0 if op.startswith("tcol") else 1
    v = src.values[:vr, :vc]
    at = np.argmax(v, axis=axis) if op.endswith("max") else np.argmin(v, axis=axis)
    b = src.bits
    if axis == 0:
        ext = b[at, np.arange(vc)]
        b[0, :vc], b[vr - 1, :vc] = ext, ext
    else:
        ext = b[np.arange(vr), at]
        b[:vr, 0], b[:vr, vc - 1] = ext, ext


def _plant_nan(op: str, src: Tile, cls: str, rng) -> None:
    vr, vc = src.valid
    fmt = src.dtype.format
    nan = class_codes(fmt, "nan", rng, 1)[0]
    if op.startswith("tcol"):
        row = 0 if cls == "nan_at_0" or vr == 1 else int(rng.integers(1, vr))
        src.bits[row, :vc] = nan
    else:
        col = 0 if cls == "nan_at_0" or vc == 1 else int(rng.integers(1, vc))
        src.bits[:vr, col] = nan


# ----------------------------------------------------------------- rounding ties and overflow
_ROUNDING_FAMILIES = ("binary", "scalar", "row_expand_binary", "col_expand_binary")


def _arith(op: str) -> str | None:
    """``add``, ``sub`` or ``mul`` for the ops whose ties and overflow are built here, else None."""
    if FAMILY[op] not in _ROUNDING_FAMILIES:
        return None
    kind = op[1:].removeprefix("rowexpand").removeprefix("colexpand").removeprefix("part").removesuffix("s")
    return kind if kind in ("add", "sub", "mul") else None


def _cvt_undefined(op: str, sig, prof) -> bool:
    """TCVT float -> integer without saturation: NaN, Inf and out-of-range inputs are undefined
    (``pto.tcvt.range``), so the stimulus stays inside the integer range (decision V10)."""
    return op == "tcvt" and not prof.cvt_saturate_default and get_dtype(sig[0]).format.is_float \
        and get_dtype(sig[1]).format.is_integer


def _keep_in_range(src: Tile, dst_fmt, rng) -> None:
    """Replace the source values a non-saturating float -> int conversion leaves undefined."""
    fmt = src.dtype.format
    v = formats.decode(src.bits, fmt)
    lim = min(float(dst_fmt.int_max), 1000.0)
    bad = ~(np.abs(v) <= lim) | ((v < 0) & (dst_fmt.int_min == 0))
    lo = 0.0 if dst_fmt.int_min == 0 else -lim
    src.bits[bad] = formats.encode(rng.uniform(lo, lim, int(bad.sum())), fmt)


def _range(fmt) -> float:
    return float(fmt.max_exact)


def _narrows(src: str, dst: str) -> bool:
    """Whether some finite source value is not a destination value (so it rounds)."""
    a, b = get_dtype(src).format, get_dtype(dst).format
    if a.is_integer:
        return b.is_float and a.bits > b.man_bits + 1
    return b.is_integer or b.man_bits < a.man_bits or b.exp_bits < a.exp_bits


def _fill(tile: Tile, code) -> None:
    r, cc = tile.valid
    tile.bits[:r, :cc] = code


def _tie_op(op: str, sig) -> bool:
    """Float sums, products, matrix products and the scaled conversions (quant, dequant, fixpipe quant words,
    MX matmul): each result rounds, so it gets directed ties (decision V18)."""
    fam = FAMILY[op]
    if fam in ("row_reduce", "col_reduce"):
        return op.endswith(("sum", "prod")) and get_dtype(sig[0]).format.is_float
    if fam in ("ternary", "axpy"):
        return get_dtype(sig[-1]).format.is_float
    if fam in ("quant", "window_fp", "store_fp", "move_fp", "matmul_mx"):
        return True
    if op in _TWO_STEP:
        return get_dtype(sig[0]).format.is_float
    if fam == "dequant":
        return get_dtype(sig[1]).format.is_float
    return fam in ("matmul", "matmul_acc", "matmul_bias") and get_dtype(sig[1]).format.is_float


def _plant_reduce_tie(op: str, c: _Call, rng) -> None:
    """Sources whose every result is exactly halfway between two codes of the result format.

    TROWSUM/TCOLSUM: each reduced line is a in [1, 2) with an odd last bit, h = half an ulp of 1, and
    zeros (a + h, in any order); TROWPROD/TCOLPROD: a in [1, 4/3) with an odd last bit, 1.5 and ones
    (1.5 a = a + a / 2 in [1.5, 2), its last bit half an ulp); TMATMUL (and _ACC with
    C = 0, _BIAS with bias 0): row i of A is (a_i, 2^-12, 0 ...), every column of B (1, 2^-12, 0 ...),
    so C[i, j] = a_i + 2^-24, half an f32 ulp past a_i; TADDC: src0 = a, src1 = half an ulp of 1 (same
    sign), src2 = 0; TAXPY: src = a (on dst's grid too), dst = half an ulp of 1 in dst's format, scalar 1;
    TQUANT: src = (k + 1/2) 2^-e, the row's scale 2^e, so src x scale = k + 1/2 before rounding to i8.
    Signs are random per line (per element for TADDC and TAXPY).
    """
    fam = FAMILY[op]
    if fam in _SCALED_TIE:
        _SCALED_TIE[fam](c, rng)
        return
    if fam == "quant":
        src, fp = c.tiles["src"], c.tiles["fp"]
        r, cc = src.valid
        e = rng.integers(-3, 3, (r, 1), endpoint=True)
        src.bits[:r, :cc] = formats.encode((rng.integers(-100, 100, (r, cc)) + 0.5) * 2.0 ** -e, src.dtype.format)
        fp.bits[:r, :1] = formats.encode(2.0 ** e, fp.dtype.format)
        return
    if fam in ("ternary", "axpy"):
        first, second = ("src0", "src1") if fam == "ternary" else ("src", "dst")
        x, y = c.tiles[first], c.tiles[second]
        fy = y.dtype.format
        r, cc = x.valid
        m = min(x.dtype.format.man_bits, fy.man_bits)
        lead = ((rng.integers(0, 1 << max(m - 1, 0), (r, cc)) * 2 + 1) * 2.0 ** -m + 1) * rng.choice([-1.0, 1.0],
                                                                                                   (r, cc))
        x.bits[:r, :cc] = formats.encode(lead, x.dtype.format)
        y.bits[:r, :cc] = formats.encode(2.0 ** -(fy.man_bits + 1) * np.sign(lead), fy)
        if fam == "ternary":
            c.tiles["src2"].bits[...] = 0
        return
    if fam.startswith("matmul"):
        a, b = c.tiles["a"], c.tiles["b"]
        fa, fb = a.dtype.format, b.dtype.format
        r, k = a.valid
        m = fa.man_bits
        lead = (rng.integers(0, 1 << max(m - 1, 0), r) * 2 + 1) * 2.0 ** -m + 1
        rows = np.zeros((r, k))
        rows[:, 0] = lead * rng.choice([-1.0, 1.0], r)
        rows[:, 1] = 2.0 ** -12 * np.sign(rows[:, 0])
        a.bits[:r, :k] = formats.encode(rows, fa)
        cols = np.zeros(b.valid)
        cols[0], cols[1] = 1.0, 2.0 ** -12
        b.bits[: b.valid_rows, : b.valid_cols] = formats.encode(cols, fb)
        for name in ("c_in", "bias"):
            if name in c.tiles:
                c.tiles[name].bits[...] = 0
        return
    src = c.tiles["src"]
    fmt = src.dtype.format
    r, cc = src.valid
    m = fmt.man_bits
    along_rows = op.startswith("trow")
    lines = r if along_rows else cc
    prod = op.endswith("prod")
    top = (1 << m) // 3 if prod else 1 << m         # products: a < 4/3, so 1.5 a stays below 2
    lead = ((rng.integers(0, max(top // 2, 1), lines) * 2 + 1) * 2.0 ** -m + 1) * rng.choice([-1.0, 1.0], lines)
    block = np.full((r, cc), 1.0 if prod else 0.0)
    second = np.full(lines, 1.5) if prod else 2.0 ** -(m + 1) * np.sign(lead)
    if along_rows:
        block[:, 0], block[:, 1] = lead, second
    else:
        block[0, :], block[1, :] = lead, second
    src.bits[:r, :cc] = formats.encode(block, fmt)


def _dequant_tie(c: _Call, rng) -> None:
    """TDEQUANT: src = k + o with k = +-3 2^j and offset o (both whole, so src - o = k exactly), the row's
    scale a 2^-(j+1) with a in [1, 4/3) and an odd last bit in dst's format: k x scale = +-1.5 a, a midpoint."""
    src, scale, offset = c.tiles["src"], c.tiles["scale"], c.tiles["offset"]
    fd = scale.dtype.format
    r, cc = src.valid
    m = fd.man_bits
    j = rng.integers(0, 5, (r, 1), endpoint=True)
    o = rng.integers(0, 20, (r, 1), endpoint=True) + (0 if src.dtype.format.signed else 100)
    a = (rng.integers(0, max((1 << m) // 6, 1), (r, 1)) * 2 + 1) * 2.0 ** -m + 1
    src.bits[:r, :cc] = formats.encode(3 * 2 ** j * rng.choice([-1, 1], (r, cc)) + o, src.dtype.format)
    offset.bits[:r, :1] = formats.encode(o.astype(np.float64), fd)
    scale.bits[:r, :1] = formats.encode(a * 2.0 ** -(j + 1), fd)


def _window_fp_tie(c: _Call, rng) -> None:
    """TEXTRACT_FP/TINSERT_FP (f32 -> i8): src column j's quant word (fp[0, j] for both ops) has scale 2^e_j
    (19-bit float: exponent e_j + 127, mantissa 0), offset o_j and the signed bit; src = (k + 1/2) 2^-e_j,
    so src x scale + o_j = k + o_j + 1/2, inside [-128, 127]."""
    src, fp = c.tiles["src"], c.tiles["fp"]
    r, cc = src.valid
    e = rng.integers(-3, 3, fp.bits.shape[1], endpoint=True)
    o = rng.integers(0, 15, fp.bits.shape[1], endpoint=True)
    fp.bits[0, :] = ((e + 127).astype(np.uint64) << np.uint64(23)) | (o.astype(np.uint64) << np.uint64(37)) \
        | np.uint64(1 << 46)
    src.bits[:r, :cc] = formats.encode((rng.integers(-100, 100, (r, cc)) + 0.5) * 2.0 ** -e[:cc], src.dtype.format)


def _store_fp_tie(c: _Call, rng) -> None:
    """TSTORE_FP and TMOV_FP (f32 -> i8): as TEXTRACT_FP's ties, with one scale and offset for every quant word
    (TSTORE_FP: the simulator reads them by row for an acc tile, the NPUs by column; decision PTO150)."""
    src, fp = c.tiles["src"], c.tiles["fp"]
    r, cc = src.valid
    e, o = int(rng.integers(-3, 3, endpoint=True)), int(rng.integers(0, 15, endpoint=True))
    fp.bits[0, :] = np.uint64(((e + 127) << 23) | (o << 37) | (1 << 46))
    src.bits[:r, :cc] = formats.encode((rng.integers(-100, 100, (r, cc)) + 0.5) * 2.0 ** -e, src.dtype.format)


def _matmul_mx_tie(c: _Call, rng) -> None:
    """TMATMUL_MX (_ACC with C = 0, _BIAS with bias 0): row i of A holds a_i at k = 0 (group 0, scales 1),
    and b_i 1 and 1/2 at k = 32, 33 (group 1, scales 2^-12 x 2^-11); B's rows 0, 32, 33 are ones:
    C[i, j] = a_i + b_i 2^-23 + 2^-24 (signed per row), half an f32 ulp past a code, odd (b_i = 1) or even."""
    a, b, sa, sb = (c.tiles[k] for k in ("a", "b", "a_scale", "b_scale"))
    fa = a.dtype.format
    r, _ = a.valid
    sign = rng.choice([-1.0, 1.0], r)
    lead = (rng.integers(0, 1 << max(fa.man_bits - 1, 0), r) * 2 + 1) * 2.0 ** -fa.man_bits + 1
    rows = np.zeros(a.valid)
    rows[:, 0], rows[:, 32], rows[:, 33] = lead * sign, rng.integers(0, 1, r, endpoint=True) * sign, 0.5 * sign
    a.bits[:r, :64] = formats.encode(rows, fa)
    cols = np.zeros(b.valid)
    cols[[0, 32, 33]] = 1.0
    b.bits[: b.valid_rows, : b.valid_cols] = formats.encode(cols, b.dtype.format)
    fs = sa.dtype.format
    sa.bits[:, 0], sa.bits[:, 1] = formats.encode(np.array([1.0, 2.0 ** -12]), fs)
    sb.bits[0, :], sb.bits[1, :] = formats.encode(np.array([1.0, 2.0 ** -11]), fs)
    for name in ("c_in", "bias"):
        if name in c.tiles:
            c.tiles[name].bits[...] = 0


#: the ties of the ops that round once after a scale (decision V18)
_SCALED_TIE = {"dequant": _dequant_tie, "window_fp": _window_fp_tie, "store_fp": _store_fp_tie,
               "move_fp": _store_fp_tie, "matmul_mx": _matmul_mx_tie}


#: the issue-21 ops that round a sum or product inside a composite (decision V18): op -> the value of each
#: operand, with a = a code in [1, 4/3) with an odd last bit and h = half an ulp of 1, so each result is
#: a + h or -1.5 a (positive where a ReLU follows)
_TWO_STEP = {
    "taddsc": {"src0": "a", "scalar": "h", "src1": "0"}, "tsubsc": {"src0": "a", "scalar": "-h", "src1": "0"},
    "tsubrelu": {"src0": "a", "src1": "-h"}, "tlrelu": {"src": "-a", "scalar": "1.5"},
    "tprelu": {"src0": "-a", "src1": "1.5"}, "tmuladddst": {"src0": "a", "src1": "1", "dst": "h"},
    "tfusedmuladd": {"src0": "a", "dst": "1", "src1": "h"}, "tfusedmuladdrelu": {"src0": "a", "dst": "1", "src1": "h"},
    "tpairreducesum": {"src": "a,h"},            # each pair (src[2k], src[2k + 1]) = (a, h)
}


def _two_step_tie(op: str, c: _Call, sc, rng) -> np.ndarray:
    """Plant :data:`_TWO_STEP`'s operands over the region (a drawn per element); returns the scalar's code."""
    fmt = next(iter(c.tiles.values())).dtype.format
    m = fmt.man_bits
    r, cc = c.tiles["dst"].valid

    def lead(shape):
        return (rng.integers(0, max((1 << m) // 6, 1), shape) * 2 + 1) * 2.0 ** -m + 1
    value = {"0": lambda sh: np.zeros(sh), "1": lambda sh: np.ones(sh), "1.5": lambda sh: np.full(sh, 1.5),
             "h": lambda sh: np.full(sh, 2.0 ** -(m + 1)), "-h": lambda sh: np.full(sh, -(2.0 ** -(m + 1))),
             "a": lead, "-a": lambda sh: -lead(sh)}
    for name, what in _TWO_STEP[op].items():
        if name == "scalar":
            sc = formats.encode(value[what]((1,)), fmt).astype(np.uint64)
        elif what == "a,h":
            block = np.full((r, cc), 2.0 ** -(m + 1))
            block[:, 0::2] = lead((r, (cc + 1) // 2))
            c.tiles[name].bits[:r, :cc] = formats.encode(block, fmt)
        else:
            c.tiles[name].bits[:r, :cc] = formats.encode(value[what]((r, cc)), fmt)
    return sc


def _plant_rounding(op, sig, cls, c: _Call, sc, rng) -> np.ndarray:
    """Sources whose exact results are rounding ties or overflow; returns the scalar's code."""
    if cls == "tie" and op in _TWO_STEP:
        return _two_step_tie(op, c, sc, rng)
    if cls == "tie" and _tie_op(op, sig):
        _plant_reduce_tie(op, c, rng)
        if FAMILY[op] == "axpy":                  # dst + src x 1: the tie is dst + src
            return formats.encode(np.ones(1), get_dtype(c.scalar).format).astype(np.uint64)
        return sc
    if FAMILY[op] == "cvt":
        src, dst_fmt = c.tiles["src"], get_dtype(sig[1]).format
        fmt = src.dtype.format
        r, cc = src.valid
        if cls == "tie":
            x = tie_values(dst_fmt, rng, r * cc)
            codes = formats.encode(x, fmt)
            exact = formats.decode(codes, fmt) == x
            src.bits[:r, :cc] = np.where(exact, codes, formats.encode(np.full(x.shape, 0.5), fmt)).reshape(r, cc)
        else:
            src.bits[:r, :cc] = class_codes(fmt, "max_normal", rng, r * cc).reshape(r, cc)
        return sc
    kind = _arith(op)
    fmt = get_dtype(sig[0]).format
    main = c.tiles["src0"] if "src0" in c.tiles else c.tiles["src"]
    r, cc = main.valid
    m = fmt.man_bits
    if cls == "tie":
        # a in [1, 2) with an odd last mantissa bit; h = half an ulp of 1: a + h, a - (-h) and 1.5 a are ties
        mags = (rng.integers(0, 1 << max(m - 1, 0), (r, cc)) * 2 + 1) * 2.0 ** -m + 1
        main.bits[:r, :cc] = formats.encode(mags, fmt)
        other = {"add": 2.0 ** -(m + 1), "sub": -(2.0 ** -(m + 1)), "mul": 1.5}[kind]
    else:
        main.bits[:r, :cc] = formats.encode(np.full((r, cc), _range(fmt)), fmt)
        other = {"add": _range(fmt), "sub": -_range(fmt), "mul": 2.0}[kind]
    code = formats.encode(np.array([other]), fmt)[0]
    if "src1" in c.tiles:
        _fill(c.tiles["src1"], code)
        return sc
    return np.array([code], np.uint64)


def _measure_rounding(op, sig, c: _Call, sc) -> set[str]:
    """``tie`` / ``overflow`` where the exact results (float64, exact for these ops and dtypes) are ties
    or out of range; expand ops are measured only when their broadcast operand is one value."""
    fam = FAMILY[op]
    if fam == "cvt":
        src = c.tiles["src"]
        x = formats.decode(src.bits[: src.valid_rows, : src.valid_cols], src.dtype.format)
        dst = get_dtype(sig[1]).format
    elif _arith(op):
        main = c.tiles["src0"] if "src0" in c.tiles else c.tiles["src"]
        fmt = main.dtype.format
        r, cc = main.valid
        a = formats.decode(main.bits[:r, :cc], fmt)
        if fam == "scalar":
            b = formats.decode(sc.astype(fmt.dtype), fmt)[0]
        else:
            o = c.tiles["src1"]
            ob = formats.decode(o.bits[: o.valid_rows, : o.valid_cols], fmt)
            if fam != "binary" and not (ob == ob.flat[0]).all():
                return set()
            b = ob if fam == "binary" else ob.flat[0]
        with np.errstate(all="ignore"):
            x = {"add": a + b, "sub": a - b, "mul": a * b}[_arith(op)]
        dst = fmt
    else:
        return set()
    x = np.ravel(x)
    x = x[np.isfinite(x)]
    out = set()
    if x.size and tie_mask(x, dst).any():
        out.add("tie")
    lo, hi = (dst.int_min, dst.int_max) if dst.is_integer else (-_range(dst), _range(dst))
    if ((x > hi) | (x < lo)).any():
        out.add("overflow")
    return out


def run_one(op: str, config: dict, txn) -> dict[str, np.ndarray]:
    """One op call on fresh tiles from a transaction: every tile at full capacity by name, ``valid`` (each
    tile's valid region, in operand order) and ``scalar`` where the op takes one; returns ``<tile>_out``.

    The tiles are built as the generator builds them, for the region whose valid regions equal the
    transaction's (decision V10).
    """
    sig, target = tuple(config["dtype"]), config["target"]
    full = tuple(config["region"])
    valid = [tuple(int(x) for x in v) for v in np.asarray(txn["valid"]).reshape(-1, 2).tolist()]
    probe = _build(op, sig, *full, target)
    names = list(probe.tiles)
    c = None
    for vr, vc in dict.fromkeys([full, *valid]):
        try:
            cand = _build(op, sig, vr, vc, target)
        except TilesimError:                    # a region only another tile can have
            continue
        if [tuple(t.valid) for t in cand.tiles.values()] == valid:
            c = cand
            break
    if c is None:
        raise TilesimError(f"no {op} region gives the valid regions {valid}", instruction="tilesim.verify.reference",
                           operand="valid", rule="verify.model.valid", value=valid)
    for k in names:
        c.tiles[k].bits[...] = np.asarray(txn[k]).astype(c.tiles[k].dtype.lane)
    value = None
    if c.scalar is not None:
        sdt = get_dtype(c.scalar)
        value = np.asarray(txn["scalar"]).reshape(1).astype(sdt.lane).view(sdt.np)[0]
    with np.errstate(all="ignore"):
        c.call(value)
    return {f"{k}_out": c.tiles[k].bits.copy() for k in c.outputs}
