"""TQUANT (INT8_SYM / INT8_ASYM) and TRANDOM (pto-isa include/pto/cpu/TQuant.hpp, TRandom.hpp).

TQUANT: per row i, ``s = float(fp[min(i, fp.vr - 1), 0])`` and, for ASYM,
``z = float(offset[min(i, offset.vr - 1), 0])``; each f32 element becomes
``clamp(rint(x * s), -128, 127)`` (i8, SYM) or ``clamp(rint(x * s + z), 0,
255)`` (u8, ASYM): float32 products and sums, each rounded once (no fused
multiply-add; decision PTO61), ``rint`` ties to even; a NaN gives 0.

TDEQUANT: ``dst = (float(src) - offset) * scale`` per element, the
difference and the product each rounded to f32 (pto-isa
include/pto/npu/a2a3/TDequant.hpp: vadds of -offset, then vmuls; A5: vsub,
vmul). src is i8/i16, dst/scale/offset f32. Row i's parameters are column 0
of row i on a2a3/a5 (a per-row scalar load / BRC_B32 broadcast) and column
``min(c, P - 1)`` on cpu, P = max(1, scale's valid cols), as the CPU loop
reads them (decision PTO38). On cpu src is cast to dst's type first and the
expression runs in f32 (an f16 dst rounds once, at the end), or in integers
for an integer dst, as the simulator's C++ does (PTO71).

TRANDOM: the Philox-4x32 counter-based generator. For row r and 256-column
chunk l, lane k (0..63) runs ``rounds`` rounds on the 128-bit counter
``counter + (r * chunks + l) * cols / 4 + k`` with the key (adding
0x9E3779B9 / 0xBB67AE85 per round) and its four output words go to columns
``256 l + 64 q + k`` (q = 0..3) of that row.
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..dtypes import get_dtype
from ..tile import Tile
from . import convert_cpu
from ._common import Op

__all__ = ["tquant", "tdequant", "trandom", "QUANT_TYPES", "quant_type_name"]

QUANT_TYPES = {"int8sym": "INT8_SYM", "int8asym": "INT8_ASYM", "0": "INT8_SYM", "1": "INT8_ASYM"}
#: the dst dtype each quant type writes
QUANT_DST = {"INT8_SYM": "i8", "INT8_ASYM": "u8"}


def quant_type_name(quant_type) -> str | None:
    """INT8_SYM / INT8_ASYM for a quant_type as written (``#pto<quant_type INT8_ASYM>``, ``int8_asym``, 1); else None."""
    key = str(quant_type).strip()
    if key.startswith("#") and "<" in key:
        key = key[key.index("<") + 1: key.rindex(">")].split()[-1]
    return QUANT_TYPES.get(key.lower().replace("_", ""))
_U32 = np.uint64(0xFFFFFFFF)


def _param(op: Op, t: Tile, operand: str, rows: int) -> np.ndarray:
    """Column 0 of a parameter tile as float32, one value per src row (the last valid row repeats)."""
    op.tile(t, operand)
    if t.valid_rows < 1 or t.valid_cols < 1 or t.dtype.size == 1 and t.dtype.is_float:
        op.fail("needs at least one valid element of a 16/32-bit float or an integer dtype", operand,
                "pto.tquant.param", t.describe())
    col = t.bits[np.minimum(np.arange(rows), t.valid_rows - 1), 0]
    if t.dtype.is_float:
        return nx.as_f32(col, t.dtype).astype(np.float32)
    return nx.int_view(col, t.dtype).astype(np.float32)


def tquant(dst: Tile, src: Tile, fp: Tile, offset: Tile | None = None, *, quant_type=None, target=None) -> Tile:
    """TQUANT: f32 src -> i8 (INT8_SYM: scale fp) or u8 (INT8_ASYM: scale fp, zero point ``offset``).

    quant_type defaults to INT8_ASYM when an offset is given, else INT8_SYM.
    Rules: ``pto.tquant.quant_type`` (dst dtype), ``pto.tquant.offset`` (offset
    missing or extra), ``pto.op.dtype`` (src not f32), ``pto.op.valid_match``.
    """
    op = Op("tquant", target)
    op.tile(dst, "dst")
    op.tile(src, "src")
    qt = "INT8_ASYM" if quant_type is None and offset is not None else "INT8_SYM"
    if quant_type is not None:
        qt = quant_type_name(quant_type)
        if qt is None:
            op.fail("quant_type must be INT8_SYM or INT8_ASYM", "quant_type", "pto.tquant.quant_type", quant_type,
                    TilesimError)
    asym = qt == "INT8_ASYM"
    if src.dtype.name != "f32":
        op.fail(f"src must be f32, not {src.dtype}", "src", "pto.op.dtype", str(src.dtype), DtypeError)
    want = QUANT_DST[qt]
    if dst.dtype.name != want:
        op.fail(f"{qt} writes {want}, dst is {dst.dtype}", "dst", "pto.tquant.quant_type", str(dst.dtype),
                DtypeError)
    if asym != (offset is not None):
        op.fail(f"{qt} {'requires' if asym else 'takes no'} offset operand", "offset", "pto.tquant.offset", qt,
                TilesimError)
    op.valid_match(src, dst, "dst", "src")
    R, C = src.valid
    scale = _param(op, fp, "fp", R)[:, None]
    with np.errstate(all="ignore"):
        x = (nx.as_f32(src.bits[:R, :C], src.dtype) * scale).astype(np.float32)
        if asym:
            x = (x + _param(op, offset, "offset", R)[:, None]).astype(np.float32)
        r = np.clip(np.rint(x), 0 if asym else -128, 255 if asym else 127)
    nan = np.isnan(r)
    # NaN: the simulator's static_cast of a NaN float is undefined; clang's x86-64 code gives 0x80 for i8, 0 for u8
    nan_lane = -128 if op.prof.x86_nans and not asym else 0
    dst.bits[:R, :C] = np.where(nan, nan_lane, r).astype(np.int64).astype(dst.dtype.np).view(dst.dtype.lane)
    if op.prof.cvt_cpu_model:  # cpu: mark those lanes (and refuse them under strict), as TCVT does (PTO82)
        convert_cpu.refuse_undefined(op, nan, src.bits[:R, :C], src.dtype, dst.dtype)
        dst.mark_undefined((slice(0, R), slice(0, C)), nan)
    return dst


def _philox(words: list[np.ndarray], key: tuple[int, int], rounds: int) -> list[np.ndarray]:
    c0, c1, c2, c3 = words
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(rounds):
        m0 = c0 * np.uint64(0xD2511F53)
        m1 = c2 * np.uint64(0xCD9E8D57)
        c0, c1, c2, c3 = ((m1 >> np.uint64(32)) ^ c1 ^ k0, m1 & _U32, (m0 >> np.uint64(32)) ^ c3 ^ k1, m0 & _U32)
        k0 = (k0 + np.uint64(0x9E3779B9)) & _U32
        k1 = (k1 + np.uint64(0xBB67AE85)) & _U32
    return [c0, c1, c2, c3]


def tdequant(dst: Tile, src: Tile, scale: Tile, offset: Tile, *, target=None) -> Tile:
    """TDEQUANT: ``dst = (src - offset) * scale`` with per-row f32 parameters (see the module docstring)."""
    op = Op("tdequant", target)
    for t, n in ((dst, "dst"), (src, "src"), (scale, "scale"), (offset, "offset")):
        op.tile(t, n)
    for t, n in ((dst, "dst"), (src, "src")):
        op.layout(t, n, ("ROW_MAJOR",), "a row_major block layout")
    op.dtypes("tdequant", (src.dtype, dst.dtype), ("src", "dst"))
    for t, n in ((scale, "scale"), (offset, "offset")):
        if t.dtype != dst.dtype:
            op.fail(f"must have dst's dtype {dst.dtype}, not {t.dtype}", n, "pto.op.same_dtype", str(t.dtype),
                    DtypeError)
        if t.valid_rows != dst.valid_rows:
            op.fail(f"needs one parameter row per dst row: {t.valid_rows} valid rows, dst has {dst.valid_rows}", n,
                    "pto.op.rows_match", (dst.valid_rows, t.valid_rows))
    op.valid_match(dst, src, "src", "dst")
    R, C = dst.valid
    if op.prof.name == "cpu":
        cols = np.minimum(np.arange(C), max(1, scale.valid_cols) - 1)
    else:
        cols = np.zeros(C, np.int64)
    p = op.prof
    off, sc = offset.bits[:R][:, cols], scale.bits[:R][:, cols]
    if dst.dtype.is_int:  # cpu only (its table): integer arithmetic, exact in wrapping uint64, dst's low bits
        x = convert_cpu.cast(src.bits[:R, :C], src.dtype, dst.dtype)[0]
        u = [nx.int_view(v, dst.dtype).astype(np.int64).astype(np.uint64) for v in (x, off, sc)]
        with np.errstate(over="ignore"):
            r = (u[0] - u[1]) * u[2]
        dst.bits[:R, :C] = (r & np.uint64((1 << 8 * dst.dtype.size) - 1)).astype(dst.bits.dtype)
        return dst
    if p.x86_nans:  # cpu: one expression over f32 (f16 runs in f32, rounded once at the end), x86 NaNs (PTO71)
        f32 = get_dtype("f32")
        x = convert_cpu.cast(src.bits[:R, :C], src.dtype, dst.dtype)[0]
        x, off, sc = (convert_cpu.cast(v, dst.dtype, f32)[0] for v in (x, off, sc))
        kw = dict(instruction=op.inst, x86=True)
        r = nx.binary("mul", nx.binary("sub", x, off, f32, **kw), sc, f32, **kw)
        dst.bits[:R, :C] = convert_cpu.cast(r, f32, dst.dtype)[0]
        return dst
    x = nx.from_f64(nx.int_view(src.bits[:R, :C], src.dtype).astype(np.float64), dst.dtype, flush=False)
    kw = dict(flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst)
    diff = nx.binary("sub", x, off, dst.dtype, **kw)
    dst.bits[:R, :C] = nx.binary("mul", diff, sc, dst.dtype, **kw)
    return dst


def _word(op: Op, v, operand: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not -(1 << 31) <= v < (1 << 32):
        op.fail("must be a 32-bit integer", operand, "pto.trandom.operand", v, TilesimError)
    return int(v) & 0xFFFFFFFF


def trandom(dst: Tile, key0, key1, counter0, counter1, counter2, counter3, *, rounds: int = 10,
            target=None) -> Tile:
    """TRANDOM: fill dst's valid region (i32/u32, row-major) with Philox-4x32 output (7 or 10 rounds)."""
    op = Op("trandom", target)
    op.tile(dst, "dst")
    if dst.dtype.name not in ("i32", "u32"):
        op.fail(f"dst must be i32 or u32, not {dst.dtype}", "dst", "pto.op.dtype", str(dst.dtype), DtypeError)
    op.layout(dst, "dst", ("ROW_MAJOR",), "a row_major block layout")
    if str(rounds).strip() not in ("7", "10"):
        op.fail("rounds must be 7 or 10", "rounds", "pto.trandom.rounds", rounds, TilesimError)
    key = (_word(op, key0, "key0"), _word(op, key1, "key1"))
    ctr = [_word(op, c, f"counter{i}") for i, c in enumerate((counter0, counter1, counter2, counter3))]
    rounds = int(str(rounds).strip())
    base = sum(c << (32 * i) for i, c in enumerate(ctr))
    R, C = dst.valid
    chunks = -(-C // 256)
    step = dst.cols // 4
    # one 128-bit counter per (row, chunk, lane)
    counters = [(base + (r * chunks + chunk) * step + lane) % (1 << 128)
                for r in range(R) for chunk in range(chunks) for lane in range(64)]
    words = [np.array([(c >> (32 * i)) & 0xFFFFFFFF for c in counters], np.uint64) for i in range(4)]
    out = np.stack(_philox(words, key, rounds), axis=-1).reshape(R, chunks, 64, 4)
    cols = out.transpose(0, 1, 3, 2).reshape(R, chunks * 256)     # column 256 l + 64 q + k
    dst.bits[:R, :C] = cols[:, :C].astype(np.uint32)
    return dst
