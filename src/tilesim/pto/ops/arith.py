"""More element arithmetic: TREM/TREMS, TFMOD/TFMODS, the partial ops TPARTADD/MUL/MAX/MIN, TAXPY, TADDC and its
kin (TSUBC, TADDSC, TSUBSC), TSUBRELU, TLRELU, TPRELU, TMULADDDST, TFUSEDMULADD, TFUSEDMULADDRELU and
TPAIRREDUCESUM (the last ones: decisions PTO123, PTO124, PTO126, PTO127).

Semantics of the pto-isa CPU reference (include/pto/cpu/ElementOp.h,
TBinSOps.hpp, TPartOp.hpp, ElementTileOp.h), on :mod:`tilesim.pto.numerics`:

* TREM ``dst = a rem b`` with the divisor's sign: ``r = fmod(a, b)`` (exact),
  then ``r + b`` (rounded once) when ``a >= 0`` and ``b >= 0`` differ and
  ``r != 0``; for integers that is floor modulo. A zero divisor (integer or
  float) is an error (rule ``pto.op.div_zero``): the reference asserts. On
  cpu, 32/64-bit INT_MIN rem -1 is one too (``pto.op.div_overflow``: x86's
  idiv traps; decision PTO72).
* TPART*: over dst's valid region, the op where both sources are valid, a
  copy of the one that is, 0 where neither is. Max/min follow TMAX/TMIN's
  NaN rule.
* TAXPY ``dst = dst + src * scalar``: the product rounded to src's dtype,
  then the sum rounded to dst's (two roundings; decision PTO60).
* TADDC ``dst = (src0 + src1) + src2``, each addition rounded.
"""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError
from .. import numerics as nx
from ..tile import Tile
from ..dtypes import get_dtype
from . import convert_cpu
from ._common import Op
from .elementwise import _scalar, _tile_scalar, _tile_tile, _vec_tiles, _x86_b_first

__all__ = ["trem", "trems", "tfmod", "tfmods", "tsubc", "taddsc", "tsubsc", "tsubrelu", "tlrelu", "tprelu",
           "tmuladddst", "tfusedmuladd", "tfusedmuladdrelu", "tpairreducesum", "tpartadd", "tpartmul", "tpartmax", "tpartmin", "taxpy",
           "taddc"]


def _operands(op: Op, a: np.ndarray, b: np.ndarray, dt) -> tuple:
    """(a, b) broadcast and flushed as the target reads them, and their values (float64, or exact integers)."""
    a, b = np.broadcast_arrays(a, b)
    if op.prof.flush_denormals and dt.is_float:
        a, b = nx.flush_bits(a, dt), nx.flush_bits(b, dt)
    if dt.is_float:
        with np.errstate(invalid="ignore"):
            return a, b, nx.as_f32(a, dt).astype(np.float64), nx.as_f32(b, dt).astype(np.float64)
    return a, b, nx.int_view(a, dt), nx.int_view(b, dt)


def _float_fmod(op: Op, a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray, dt) -> np.ndarray:
    """``fmod(x, y)`` (exact, so representable in dt) as dt lanes; on cpu with glibc's NaNs."""
    p = op.prof
    with np.errstate(invalid="ignore"):
        r = np.fmod(x, y)
    rb = nx.from_f64(r, dt, flush=p.flush_denormals)
    if p.x86_nans:  # glibc's fmod: (x * y) / (x * y) for NaN and invalid cases
        rb = nx.x86_nans(rb, a, b, dt)
        if dt.name == "bf16":  # g++'s build: of two NaNs the larger quieted payload, equal ones the positive (PTO78)
            q = dt.lane.type(1 << (dt.format.man_bits - 1))
            mag = dt.lane.type((1 << (dt.bits - 1)) - 1)
            qa, qb = a | q, b | q
            take_b = ((qb & mag) > (qa & mag)) | (((qb & mag) == (qa & mag)) & (qa > qb))
            both = nx.is_nan(a, dt) & nx.is_nan(b, dt)
            rb = np.where(both, np.where(take_b, qb, qa), rb)
    return rb


def _rem(op: Op, a: np.ndarray, b: np.ndarray, dt) -> np.ndarray:
    a, b, x, y = _operands(op, a, b, dt)
    p = op.prof
    if np.any(y == 0) and not (dt.is_float and p.x86_nans):  # cpu: fmod's NaN (its assert is compiled out)
        raise SpecGapError("remainder by zero (the reference asserts)", instruction=op.inst, operand="divisor",
                           rule="pto.op.div_zero", value=0)
    if dt.is_int:
        nx.check_divisor(x, y, dt, op.inst, x86=p.x86_nans, what="remainder")
        r = np.mod(x, y)                          # C's % plus the divisor's sign = floor modulo
        return r.astype(dt.np).view(dt.lane) if dt.name != "u64" else r.view(np.uint64)
    rb = _float_fmod(op, a, b, x, y, dt)
    with np.errstate(invalid="ignore"):
        fix = ((x >= 0) != (y >= 0)) & (np.fmod(x, y) != 0)
    added = nx.binary("add", rb, b, dt, flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst,
                      x86=p.x86_nans)
    return np.where(fix, added, rb)


def trem(dst: Tile, src0: Tile, src1: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TREM: ``dst = src0 rem src1`` (the result takes the divisor's sign); tmp accepted, unused."""
    op = Op("trem", target)
    _tile_tile(op, dst, src0, src1, tmp)
    R, C = dst.valid
    dst.bits[:R, :C] = _rem(op, src0.bits[:R, :C], src1.bits[:R, :C], dst.dtype)
    return dst


def trems(dst: Tile, src: Tile, scalar, tmp: Tile | None = None, *, target=None) -> Tile:
    """TREMS: ``dst = src rem scalar`` (see :func:`trem`)."""
    op = Op("trems", target)
    s = _tile_scalar(op, dst, src, scalar, tmp)
    if tmp is not None and op.prof.x86_nans and not np.any(nx.as_key(s, dst.dtype)):
        # cpu: TREMS with tmp skips a zero (or -0) scalar, since its assert is compiled out; strict keeps it (PTO73)
        if op.prof.strict:
            raise SpecGapError("remainder by a zero scalar: the simulator's assert, compiled out, skips the op; "
                               "strict mode refuses it", instruction=op.inst, operand="scalar",
                               rule="pto.op.div_zero", value=0)
        return dst
    R, C = dst.valid
    dst.bits[:R, :C] = _rem(op, src.bits[:R, :C], s, dst.dtype)
    return dst


def tfmod(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TFMOD: ``dst = fmod(src0, src1)``, the remainder with the dividend's sign (exact; integers: C's ``%``).

    A zero divisor: on cpu a float one gives fmod's NaN (the simulator's assert is compiled out), an integer one
    traps there (SIGFPE), as does 32/64-bit INT_MIN % -1: refused (``pto.op.div_zero``, ``pto.op.div_overflow``,
    PTO72, PTO123). The NPUs refuse a zero divisor (docs/isa/TFMOD.md: target-defined).

    >>> from tilesim.pto import Tile
    >>> a, b, d = (Tile("vec", "f32", 1, 8, valid=(1, 3)) for _ in range(3))
    >>> a.values[0, :3], b.values[0, :3] = (7.5, -7.5, 7.5), (2, 2, -2)
    >>> tfmod(d, a, b).valid_values.tolist()
    [[1.5, -1.5, 1.5]]
    """
    op = Op("tfmod", target)
    _tile_tile(op, dst, src0, src1)
    R, C = dst.valid
    dst.bits[:R, :C] = _fmod(op, src0.bits[:R, :C], src1.bits[:R, :C], dst.dtype)
    return dst


def _fmod(op: Op, a: np.ndarray, b: np.ndarray, dt) -> np.ndarray:
    a, b, x, y = _operands(op, a, b, dt)
    if dt.is_int:
        nx.check_divisor(x, y, dt, op.inst, x86=op.prof.x86_nans, what="remainder")
        r = np.fmod(x, y)  # C's %: the dividend's sign
        return r.astype(dt.np).view(dt.lane) if dt.name != "u64" else r.view(np.uint64)
    if np.any(y == 0) and not op.prof.x86_nans:
        raise SpecGapError("fmod by zero is target-defined on the NPUs (docs/isa/TFMOD.md)", instruction=op.inst,
                           operand="divisor", rule="pto.op.div_zero", value=0)
    return _float_fmod(op, a, b, x, y, dt)


def tfmods(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TFMODS: ``dst = fmod(src, scalar)`` (integers: C's ``%``, truncating).

    A zero scalar: the simulator's TFMODS skips the op (its assert is compiled out), so cpu leaves dst as it
    was (strict refuses it); the NPUs refuse it (``pto.op.div_zero``). On cpu, 32/64-bit INT_MIN % -1 traps
    (``pto.op.div_overflow``, PTO72).
    """
    op = Op("tfmods", target)
    s = _tile_scalar(op, dst, src, scalar)
    dt = dst.dtype
    if not np.any(nx.as_key(s, dt)):
        if op.prof.x86_nans and not op.prof.strict:
            return dst
        raise SpecGapError("fmod by a zero scalar: the simulator skips the op, the NPUs leave it target-defined",
                           instruction=op.inst, operand="scalar", rule="pto.op.div_zero", value=0)
    R, C = dst.valid
    dst.bits[:R, :C] = _fmod(op, src.bits[:R, :C], s, dt)
    return dst


def _part(name: str, kind: str, dst: Tile, src0: Tile, src1: Tile, target) -> Tile:
    op = Op(name, target)
    _vec_tiles(op, [(dst, "dst"), (src0, "src0"), (src1, "src1")])
    op.same_dtype(dst, src0, "src0", "dst")
    op.same_dtype(dst, src1, "src1", "dst")
    op.dtypes(name, (dst.dtype,), ("dst",))
    R, C = dst.valid
    if R == 0 or C == 0:
        return dst
    r0, c0 = min(src0.valid_rows, R), min(src0.valid_cols, C)
    r1, c1 = min(src1.valid_rows, R), min(src1.valid_cols, C)
    out = np.zeros((R, C), dst.dtype.lane)
    out[:r0, :c0] = src0.bits[:r0, :c0]
    out[:r1, :c1] = src1.bits[:r1, :c1]
    rb, cb = min(r0, r1), min(c0, c1)
    p = op.prof
    out[:rb, :cb] = nx.binary(kind, src0.bits[:rb, :cb], src1.bits[:rb, :cb], dst.dtype, flush=p.flush_denormals,
                              nan_mode=p.nan_mode, instruction=op.inst, x86=p.x86_nans,
                              b_first=p.x86_nans and dst.dtype.name == "bf16" and kind in ("add", "mul"))
    dst.bits[:R, :C] = out
    return dst


def tpartadd(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TPARTADD: ``src0 + src1`` where both are valid, the valid one's value elsewhere, 0 outside both."""
    return _part("tpartadd", "add", dst, src0, src1, target)


def tpartmul(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TPARTMUL: ``src0 * src1`` where both are valid (see :func:`tpartadd`)."""
    return _part("tpartmul", "mul", dst, src0, src1, target)


def tpartmax(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TPARTMAX: ``max(src0, src1)`` where both are valid (see :func:`tpartadd`)."""
    return _part("tpartmax", "max", dst, src0, src1, target)


def tpartmin(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TPARTMIN: ``min(src0, src1)`` where both are valid (see :func:`tpartadd`)."""
    return _part("tpartmin", "min", dst, src0, src1, target)


def taxpy(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TAXPY: ``dst = dst + src * scalar`` (dst/src f16/f16, f32/f32 or f32/f16; the scalar in src's dtype)."""
    op = Op("taxpy", target)
    _vec_tiles(op, [(dst, "dst"), (src, "src")])
    op.dtypes("taxpy", (src.dtype, dst.dtype), ("src", "dst"))
    s = _scalar(op, scalar, src.dtype)
    op.valid_match(dst, src, "src", "dst")
    R, C = dst.valid
    p = op.prof
    kw = dict(flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst, x86=p.x86_nans)
    # cpu, f16 src: the loop runs down each column two rows a step with src first; with an odd row count the
    # last row, done alone, puts the scalar first (PTO73, read from the disassembly)
    last = p.x86_nans and src.dtype.name == "f16" and R % 2 and np.broadcast_to(np.arange(R)[:, None] == R - 1,
                                                                                  (R, C))
    prod = nx.binary("mul", src.bits[:R, :C], s, src.dtype, **kw, b_first=last)
    acc = dst.bits[:R, :C]
    if src.dtype.size > dst.dtype.size:  # cpu only: f16 dst + f32 product in f32, then cast to f16
        total = nx.binary("add", _to(acc, dst.dtype, src.dtype), prod, src.dtype, **kw)
        dst.bits[:R, :C] = _to(total, src.dtype, dst.dtype)
        return dst
    if src.dtype != dst.dtype:  # cpu: a C++ cast, NaN payloads kept (PTO83)
        prod = (_to(prod, src.dtype, dst.dtype) if p.x86_nans
                else nx.from_f32(nx.as_f32(prod, src.dtype), dst.dtype, flush=False))
    # x86: the product first; a bf16 sum (g++'s code, PTO78) puts dst first
    dst.bits[:R, :C] = nx.binary("add", acc, prod, dst.dtype, b_first=dst.dtype.name != "bf16", **kw)
    return dst


def taddc(dst: Tile, src0: Tile, src1: Tile, src2: Tile, *, target=None) -> Tile:
    """TADDC: ``dst = (src0 + src1) + src2``, each addition rounded to the dtype (integers wrap)."""
    return _carry("taddc", "add", dst, src0, src1, src2, target)


def tsubc(dst: Tile, src0: Tile, src1: Tile, src2: Tile, *, target=None) -> Tile:
    """TSUBC: ``dst = (src0 - src1) + src2``, each step rounded to the dtype (integers wrap; PTO124)."""
    return _carry("tsubc", "sub", dst, src0, src1, src2, target)


def taddsc(dst: Tile, src0: Tile, scalar, src1: Tile, *, target=None) -> Tile:
    """TADDSC: ``dst = (src0 + scalar) + src1``, each addition rounded to the dtype (PTO124)."""
    return _carry("taddsc", "add", dst, src0, scalar, src1, target)


def tsubsc(dst: Tile, src0: Tile, scalar, src1: Tile, *, target=None) -> Tile:
    """TSUBSC: ``dst = (src0 - scalar) + src1``, each step rounded to the dtype (PTO124)."""
    return _carry("tsubsc", "sub", dst, src0, scalar, src1, target)


def _carry(name: str, first: str, dst: Tile, src0: Tile, mid, src2: Tile, target) -> Tile:
    """``(src0 first mid) + src2``, ``mid`` a tile or a scalar (the simulator's ``...WithCarry_Impl`` loops)."""
    op = Op(name, target)
    scalar = not isinstance(mid, Tile)
    last = "src1" if scalar else "src2"
    named = [(dst, "dst"), (src0, "src0")] + ([] if scalar else [(mid, "src1")]) + [(src2, last)]
    _vec_tiles(op, named)
    for t, n in named[1:]:
        op.same_dtype(dst, t, n, "dst")
        op.valid_match(dst, t, n, "dst")
    op.dtypes(name, (dst.dtype,), ("dst",))
    R, C = dst.valid
    p = op.prof
    kw = dict(flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst, x86=p.x86_nans)
    dt = dst.dtype
    x = [src0.bits[:R, :C], _scalar(op, mid, dt) if scalar else mid.bits[:R, :C], src2.bits[:R, :C]]
    # x86 (PTO95): in TADDC's first add, src1's NaN wins over src0's in f16, and in the vector body (8 columns a
    # step) of f32 (TADDSC keeps src0 first, PTO124); f16 sums run in f32 and are rounded to f16 once, at the end
    b_first = first == "add" and not scalar and (
        dt.name == "f16" or (_x86_b_first("add", dst) if dt.name == "f32" else False))
    if first == "add" and scalar and dt.name == "f16" and p.x86_nans:  # TADDSC: the scalar first in the tail
        b_first = np.broadcast_to(np.arange(C)[None, :] >= C // 8 * 8, (R, C))  # (columns past 8k; PTO124)
    # TSUBC of a DN tile: src2 first in the second add (clang's column loop; PTO124)
    last_first = p.x86_nans and not scalar and first == "sub" and not dst.is_row_major and dst.slayout == "none_box"
    wide = get_dtype("f32") if p.x86_nans and dt.name in ("f16", "bf16") else dt
    if wide != dt:
        x = [_to(v, dt, wide) for v in x]
    s01 = nx.binary(first, x[0], x[1], wide, b_first=b_first, **kw)
    r = nx.binary("add", s01, x[2], wide, b_first=last_first, **kw)
    dst.bits[:R, :C] = r if wide == dt else _to(r, wide, dt)
    return dst


def _relu(bits: np.ndarray, dt) -> np.ndarray:
    """The simulator's ``ReLU``: ``v > 0 ? v : 0`` (NaN and -0 become +0)."""
    with np.errstate(invalid="ignore"):
        return np.where(nx.as_key(bits, dt) > 0, bits, dt.lane.type(0))


def tsubrelu(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TSUBRELU: ``dst = relu(src0 - src1)``: the difference rounded to the dtype, then ``v > 0 ? v : 0`` (so NaN
    and -0 give +0). Integers: 32/64-bit ones wrap first; on cpu 8- and 16-bit ones subtract in C++'s ``int``,
    so the exact difference goes through the ReLU and is then truncated to the dtype (PTO124)."""
    op = Op("tsubrelu", target)
    _tile_tile(op, dst, src0, src1)
    R, C = dst.valid
    p = op.prof
    dt = dst.dtype
    a, b = src0.bits[:R, :C], src1.bits[:R, :C]
    if dt.is_int and dt.bits < 32 and p.int_promotion:
        d = nx.int_view(a, dt) - nx.int_view(b, dt)
        dst.bits[:R, :C] = np.maximum(d, 0).astype(dt.np).view(dt.lane)
        return dst
    d = nx.binary("sub", a, b, dt, flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst,
                  x86=p.x86_nans)
    dst.bits[:R, :C] = _relu(d, dt)
    return dst


def _leaky(op: Op, x: np.ndarray, slope, dt, b_first=False) -> np.ndarray:
    """``x > 0 ? x : x * slope`` (NaN x: the product's NaN; on cpu ``b_first`` says where slope's NaN wins)."""
    p = op.prof
    prod = nx.binary("mul", x, slope, dt, flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst,
                     x86=p.x86_nans, b_first=b_first if p.x86_nans else False)
    with np.errstate(invalid="ignore"):
        pos = nx.as_key(nx.flush_bits(x, dt) if p.flush_denormals and dt.is_float else x, dt) > 0
    return np.where(pos, x, prod)


def tlrelu(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TLRELU: ``dst = src > 0 ? src : src * scalar`` (leaky ReLU with a scalar slope; PTO124)."""
    op = Op("tlrelu", target)
    s = _tile_scalar(op, dst, src, scalar)
    R, C = dst.valid
    # cpu (PTO124): the slope's NaN wins in f16, and in f32's scalar tail (columns past 8k); g++'s bf16: src's
    b_first = dst.dtype.name == "f16" or (dst.dtype.name == "f32"
                                          and np.broadcast_to(np.arange(C)[None, :] >= C // 8 * 8, (R, C)))
    dst.bits[:R, :C] = _leaky(op, src.bits[:R, :C], s, dst.dtype, b_first)
    return dst


def tprelu(dst: Tile, src0: Tile, src1: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TPRELU: ``dst = src0 > 0 ? src0 : src0 * src1`` (a slope per element; tmp, A2A3's mask scratch, is not
    written; PTO124)."""
    op = Op("tprelu", target)
    _tile_tile(op, dst, src0, src1, tmp)
    R, C = dst.valid
    # cpu: src1's NaN wins in clang's f16/f32 code, src0's in g++'s bf16 (PTO124)
    dst.bits[:R, :C] = _leaky(op, src0.bits[:R, :C], src1.bits[:R, :C], dst.dtype, dst.dtype.name != "bf16")
    return dst


def tmuladddst(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TMULADDDST: ``dst = src0 * src1 + dst``, the product rounded to the dtype, then the sum (PTO126)."""
    return _mul_add("tmuladddst", dst, src0, src1, target)


def tfusedmuladd(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TFUSEDMULADD: ``dst = src0 * dst + src1``, each step rounded (on cpu f16/bf16 in f32, rounded at the
    end; PTO126)."""
    return _mul_add("tfusedmuladd", dst, src0, src1, target)


def tfusedmuladdrelu(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TFUSEDMULADDRELU: ``dst = relu(src0 * dst + src1)``, each step rounded to the dtype, then
    ``v > 0 ? v : 0`` (PTO126)."""
    return _mul_add("tfusedmuladdrelu", dst, src0, src1, target)


def _mul_add(name: str, dst: Tile, src0: Tile, src1: Tile, target) -> Tile:
    op = Op(name, target)
    _tile_tile(op, dst, src0, src1)
    R, C = dst.valid
    p = op.prof
    dt = dst.dtype
    kw = dict(flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst, x86=p.x86_nans)
    a, b, d = src0.bits[:R, :C], src1.bits[:R, :C], dst.bits[:R, :C].copy()
    wide = get_dtype("f32") if p.x86_nans and dt.name in ("f16", "bf16") else dt  # cpu: C++ excess precision

    def add(x, y, b_first=False):
        """A sum rounded to dt: on cpu an f16/bf16 one is computed in f32, then rounded (PTO95)."""
        if wide == dt:
            return nx.binary("add", x, y, dt, b_first=b_first, **kw)
        return _to(nx.binary("add", _to(x, dt, wide), _to(y, dt, wide), wide, b_first=b_first, **kw), wide, dt)

    # cpu: which NaN of two a step keeps, read from the simulator's outputs (clang's f32/f16 code; PTO126)
    # (f32: dst first in the vector body, 8 along the inner index, src0 first in the tail; f16's TFUSEDMULADD
    # and g++'s bf16 TMULADDDST: dst first throughout)
    body = _x86_b_first("add", dst) if p.x86_nans and dt.name == "f32" else False
    if name == "tmuladddst":                       # product rounded (volatile in the simulator), then + dst
        r = add(nx.binary("mul", a, b, dt, **kw), d, b_first=True if p.x86_nans and dt.name == "bf16" else body)
    elif name == "tfusedmuladdrelu":               # both steps rounded to the dtype, then ReLU
        r = _relu(add(nx.binary("mul", a, d, dt, **kw), b), dt)
    else:                                          # one C++ expression: on cpu f16/bf16 all in f32
        x = [a, d, b] if wide == dt else [_to(v, dt, wide) for v in (a, d, b)]
        first = True if p.x86_nans and dt.name == "f16" else body
        r = nx.binary("add", nx.binary("mul", x[0], x[1], wide, b_first=first, **kw), x[2], wide, **kw)
        r = r if wide == dt else _to(r, wide, dt)
    dst.bits[:R, :C] = r
    return dst


def tpairreducesum(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TPAIRREDUCESUM: per row ``dst[k] = src[2k] + src[2k + 1]`` for ``k < ceil(vc / 2)`` (an odd last element
    plus +0), the rest of dst's valid row 0; src and dst share a valid shape with vc > 0 (PTO127).

    On cpu the simulator first zeroes all of dst's storage (``Profile.pairsum_zeroes_tile``), and an f16/bf16
    sum runs in f32 (PTO95).

    >>> from tilesim.pto import Tile
    >>> s, d = Tile("vec", "f32", 1, 8, valid=(1, 5)), Tile("vec", "f32", 1, 8, valid=(1, 5))
    >>> s.values[0, :5] = (1, 2, 3, 4, 5)
    >>> tpairreducesum(d, s).valid_values.tolist()
    [[3.0, 7.0, 5.0, 0.0, 0.0]]
    """
    op = Op("tpairreducesum", target)
    _vec_tiles(op, [(dst, "dst"), (src, "src")])
    op.same_dtype(dst, src, "src", "dst")
    op.dtypes("tpairreducesum", (dst.dtype,), ("dst",))
    op.valid_match(dst, src, "src", "dst")
    R, C = dst.valid
    if R and not C:
        op.fail("the valid columns must be at least 1 (the simulator's pair loop runs away on 0)", "dst",
                "pto.tpairreducesum.cols", C)
    p = op.prof
    dt = dst.dtype
    mid = (C + 1) // 2
    x = src.bits[:R, :C]
    even = x[:, 0::2]
    odd = np.zeros_like(even)
    odd[:, : C // 2] = x[:, 1::2]
    kw = dict(flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst, x86=p.x86_nans)
    wide = get_dtype("f32") if p.x86_nans and dt.name in ("f16", "bf16") else dt
    if wide == dt:
        # cpu f32: clang's loop over the first mid - 1 pairs adds 8 a step with the odd element first (its NaN
        # wins), the rest one by one, even first (read from the simulator's outputs, PTO127)
        body = np.arange(mid)[None, :] < (mid - 1) // 8 * 8 if p.x86_nans and dt.name == "f32" else False
        sums = nx.binary("add", even, odd, dt, b_first=np.broadcast_to(body, even.shape) if body is not False
                         else False, **kw)
    else:  # g++'s bf16 puts the odd element first, clang's f16 the even one
        sums = _to(nx.binary("add", _to(even, dt, wide), _to(odd, dt, wide), wide, b_first=dt.name == "bf16", **kw),
                   wide, dt)
    if p.pairsum_zeroes_tile:
        dst.bits[...] = 0
    dst.bits[:R, :C] = 0
    dst.bits[:R, :mid] = sums
    return dst


def _to(bits: np.ndarray, s, d) -> np.ndarray:
    """A C++ float cast between f16 and f32 (NaN payloads kept, PTO83)."""
    return convert_cpu.cast(np.asarray(bits, s.lane), s, d)[0]
