from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tilesim.pto import Tile, get_dtype


ROOT = Path(__file__).resolve().parents[2]  # the repository (``check`` reads tests/pto/ptoisa_golden.py)
sys.path.insert(0, str(ROOT))

CXX_TYPE = {"f32": "float", "f16": "half", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
            "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "bf16": "bfloat16_t"}
DTS = tuple(t for t in CXX_TYPE if t != "bf16")  # bf16 cases come from their own families (PTO88)
FLOATS = ("f32", "f16")
INTS = tuple(d for d in DTS if d not in FLOATS)
CXX_TYPE |= {"f8e4m3": "float8_e4m3_t", "f8e5m2": "float8_e5m2_t", "f8e8m0": "float8_e8m0_t",  # MX; not in DTS
             "f4e2m1": "float4_e2m1x2_t", "f4e1m2": "float4_e1m2x2_t", "i4": "int4b_t"}
CXX_TYPE["hif8"] = "hifloat8_t"  # HiFloat8 (PTO182); not in DTS
ROUND_MODES = ("NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD")  # pto RoundMode 0..6
SAT = {"ON": 0, "OFF": 1}  # pto SaturationMode values
FLAGS = ["-std=c++20", "-O2", "-DNDEBUG", "-D__CPU_SIM", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong",
         "-include", "stdint.h", "-include", "stddef.h", "-pthread", "-w", "-ferror-limit=0"]
#: g++ >= 14: C++23 with std::bfloat16_t, as pto-isa's CPU tests build with PTO_CPU_SIM_ENABLE_BF16=ON
GXX_FLAGS = ["-std=c++23", "-O2", "-DNDEBUG", "-D__CPU_SIM", "-DPTO_CPU_SIM_ENABLE_BF16=1",
             "-DCPU_SIM_BFLOAT_ENABLED=1", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong", "-include", "stdint.h",
             "-include", "stddef.h", "-pthread", "-w"]
_BLAYOUT = {"row_major": "RowMajor", "col_major": "ColMajor"}
_SLAYOUT = {"none_box": "NoneBox", "row_major": "RowMajor", "col_major": "ColMajor"}


# ------------------------------------------------------------------ cases
@dataclass(frozen=True)
class Spec:
    """One tile of a kernel: its role name (also the C++ variable) and static type."""

    role: str
    dtype: str
    rows: int
    cols: int
    blayout: str = "row_major"
    slayout: str = "none_box"
    pad: str = "null"
    loc: str = "vec"
    fractal: int = 512
    cxx_loc: str = ""  # the C++ TileType where tilesim's loc differs (MX scale tiles: ScaleLeft in ``scaling``)

    def cxx(self) -> str:
        pad = (f"static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) | {self.pad[7:]}ULL)"
               if self.pad.startswith("custom:") else f"PadValue::{self.pad.capitalize()}")
        tail = ("" if (self.pad, self.fractal) == ("null", 512)
                else f", {self.fractal}" + ("" if self.pad == "null" else f", {pad}"))
        loc = self.cxx_loc or self.loc.capitalize()
        return (f"Tile<TileType::{loc}, {CXX_TYPE[self.dtype]}, {self.rows}, {self.cols}, "
                f"BLayout::{_BLAYOUT[self.blayout]}, DYNAMIC, DYNAMIC, SLayout::{_SLAYOUT[self.slayout]}{tail}>")

    def tile(self, valid) -> Tile:
        return Tile(self.loc, self.dtype, self.rows, self.cols, valid=valid, blayout=self.blayout,
                    slayout=self.slayout, fractal=self.fractal, pad=self.pad)

    def saved(self) -> dict:
        """The fields a stored case records beyond the defaults of a plain vec tile."""
        return {k: v for k, v in (("pad", self.pad), ("loc", self.loc), ("fractal", self.fractal))
                if v != {"pad": "null", "loc": "vec", "fractal": 512}[k]}


@dataclass
class Case:
    op: str
    call: str                         # C++ statement over the role names and P[i]
    specs: tuple[Spec, ...]
    valid: dict[str, tuple[int, int]]
    data: dict[str, np.ndarray]       # logical (rows, cols) lanes per role
    params: tuple[int, ...] = ()
    args: dict = field(default_factory=dict)
    suffix: str = ""                  # a second file of the op's cases (``.conv``: ConvTile forms)

    @property
    def key(self) -> tuple:
        return self.call, self.specs

    @property
    def stem(self) -> str:
        """Its bank file's name: ``<op>``, or ``<op>.bf16`` when a tile is bf16 (built by ``--bf16-cxx``)."""
        return self.op + self.suffix + (".bf16" if any(s.dtype == "bf16" for s in self.specs) else "")

    def storage(self, role: str) -> np.ndarray:
        s = next(s for s in self.specs if s.role == role)
        if s.loc == "gm":
            return np.ascontiguousarray(self.data[role]).ravel()
        t = s.tile(self.valid[role])
        t.bits[...] = self.data[role]
        return t.storage()


def lanes(dt: str, values) -> np.ndarray:
    """Lane codes of numbers (float64 or Python ints), rounded to nearest for floats."""
    d = get_dtype(dt)
    if dt in FLOATS:
        with np.errstate(over="ignore"):
            return np.asarray(values, np.float64).astype(d.np).view(d.lane)
    return np.array([int(v) for v in values], dtype=object).astype(d.np).view(d.lane)


def rand_lanes(rng, dt: str, shape) -> np.ndarray:
    """Uniformly random bit patterns (for what an op must not read or must leave alone)."""
    d = get_dtype(dt)
    return rng.integers(0, 1 << d.bits, size=shape, dtype=np.uint64).astype(d.lane)


F_SPECIAL = {
    "f32": [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001,
            0xFFA00001, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF],
    "f16": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E55, 0x7C01, 0xFD01, 0x0001, 0x83FF, 0x0400,
            0x7BFF, 0xFBFF],
    "bf16": [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC5, 0x7F81, 0xFFA1, 0x0001, 0x807F, 0x0080,
             0x7F7F, 0xFF7F],
}
#: the smallest subnormal of each float dtype
_TINY = {"f32": 2.0 ** -149, "f16": 2.0 ** -24, "bf16": 2.0 ** -133}
_F_NUMBERS = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 0.25, 0.75, -0.75, 1, -1, 100.4, -100.6, 127, 127.5, 128,
              128.5, -128, -128.5, -129, 255, 255.5, 256, 256.5, -0.3, 32767, 32767.5, 32768, -32768, -32768.5,
              -32769, 65504, 65519, 65520, 65535, 65535.5, 65536, -65536, -65520, 2147483520.0, 2.0 ** 31,
              -(2.0 ** 31), -(2.0 ** 31) - 256, 4294967040.0, 2.0 ** 32, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 1e20,
              -1e20, 3e38, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 2049, 2051, 2 ** -24, 2 ** -25, 3 * 2 ** -25, 2 ** -14,
              1.5 * 2 ** -15, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 16777217, 1e-40, -1e-45]
_I_NUMBERS = [0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 2049, 2051, 4097, 32767, 32768, -32768, -32769, 65504,
              65519, 65520, 65535, 65536, 16777217, 16777219, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32 - 1,
              2 ** 53 + 1, 2 ** 62 + 2 ** 40 + 1, 2 ** 63 - 1, -(2 ** 63), 2 ** 63, 2 ** 63 + 2 ** 40 + 1,
              2 ** 64 - 1, -(2 ** 63) + 1, 2 ** 63 - 512, 2 ** 63 - 513]


def sentinel(dt: str, shape) -> np.ndarray:
    """A destination's contents before the op: 0xA5 bytes (a value no op here writes by chance), so the
    lanes an op must leave alone are checked, and the files compress."""
    return np.full(shape, 0xA5A5A5A5A5A5A5A5, np.uint64).astype(get_dtype(dt).lane)


def scratch(dt: str, rows: int, cols: int) -> np.ndarray:
    """A tmp tile's contents: zeros (the CPU simulator never reads tmp; zeros keep the files small)."""
    return np.zeros((rows, cols), get_dtype(dt).lane)


def conversion_pool(rng, dt: str, n: int) -> np.ndarray:
    """n source lanes: special values, range edges of every destination, ties, then random values."""
    d = get_dtype(dt)
    if dt in FLOATS:
        pool = list(F_SPECIAL[dt]) + list(lanes(dt, _F_NUMBERS)) + list(lanes(dt, [-v for v in _F_NUMBERS]))
        rnd = rng.integers(-1200, 1200, n) / 4.0
        wide = rng.standard_normal(n) * 2.0 ** rng.integers(-30, 40, n)
        pool += list(lanes(dt, rnd)) + list(lanes(dt, wide)) + list(rand_lanes(rng, dt, n))
    else:
        lo, hi = d.format.int_min, d.format.int_max
        vals = [v for v in _I_NUMBERS + [-v for v in _I_NUMBERS] if lo <= v <= hi]
        pool = list(lanes(dt, vals)) + list(rand_lanes(rng, dt, n))
    out = np.array(pool, d.lane)
    _, first = np.unique(out, return_index=True)
    out = out[np.sort(first)]
    return np.resize(out, n) if out.size < n else out[:n]


def line_values(rng, dt: str, n_lines: int, length: int) -> np.ndarray:
    """(n_lines, length) lanes for reductions: each line has a kind (ties, NaN first/later, zeros, inf...)."""
    d = get_dtype(dt)
    out = np.empty((n_lines, length), d.lane)
    for i in range(n_lines):
        kind = i % 9
        if dt in FLOATS:
            small = rng.integers(-4, 5, length).astype(np.float64)
            line = lanes(dt, small if kind != 5 else rng.standard_normal(length) * 2.0 ** rng.integers(-20, 20, length))
            nan = lanes(dt, [np.nan])[0]
            if kind == 1:
                line[0] = F_SPECIAL[dt][6]                          # NaN with a payload at index 0
            elif kind == 2 and length > 2:
                line[rng.integers(1, length, 2)] = [nan, F_SPECIAL[dt][5]]  # NaNs after index 0
            elif kind == 3:
                line = lanes(dt, np.where(rng.random(length) < 0.5, -0.0, 0.0))
            elif kind == 4:
                line[rng.integers(0, length, 3)] = lanes(dt, [np.inf, -np.inf, np.inf])
            elif kind == 6:
                line = lanes(dt, rng.integers(1, 40, length) * _TINY[dt]
                             * rng.choice([-1, 1], length))
            elif kind == 7:
                line = np.array(rng.choice(F_SPECIAL[dt][4:9], length), d.lane)
            elif kind == 8:
                line[0] = F_SPECIAL[dt][1]                          # -0 first, then +0 later
                line[1:] = lanes(dt, np.where(rng.random(length - 1) < 0.3, 0.0, -1.0))
            out[i] = line
        else:
            lo, hi = d.format.int_min, d.format.int_max
            if kind in (0, 1, 2):
                v = rng.integers(max(lo, -4), min(hi, 4), length, endpoint=True)
                out[i] = lanes(dt, v)
            elif kind == 3:
                out[i] = lanes(dt, [(lo, hi, 0)[j] for j in rng.integers(0, 3, length)])
            else:
                out[i] = rand_lanes(rng, dt, length)
    return out


# ------------------------------------------------------------ op families
def aligned_cols(dt: str, n: int) -> int:
    per = 32 // get_dtype(dt).size
    return -(-n // per) * per


def aligned_rows(dt: str, n: int) -> int:
    return aligned_cols(dt, n)


def pair_operands(rng, dt: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two lane vectors whose pairs cover special x special and random values."""
    if dt in FLOATS:
        sp = np.array(F_SPECIAL[dt] + list(lanes(dt, [1, -1, 2.5, 65504, 1e-30, 3e38])), get_dtype(dt).lane)
        a, b = np.meshgrid(sp, sp)
        a, b = a.ravel(), b.ravel()
    else:
        d = get_dtype(dt)
        sp = lanes(dt, [d.format.int_min, d.format.int_max, 0, 1, d.format.int_max // 2 + 1])
        a, b = (x.ravel() for x in np.meshgrid(sp, sp))
    ra, rb = conversion_pool(rng, dt, n), conversion_pool(rng, dt, n)[::-1]
    return np.resize(np.concatenate([a, ra]), n), np.resize(np.concatenate([b, rb]), n)


def tiles3(op: str, call: str, dt: str, roles: tuple[str, ...], data: dict, valid, bl="row_major",
            params=(), args=None, R=32, C=32) -> Case:
    """A case whose tiles all have one dtype, shape and layout; ``dst`` starts as the sentinel."""
    specs = tuple(Spec(r, dt, R, C, bl) for r in roles)
    return Case(op, call, specs, {r: valid for r in roles}, {"dst": sentinel(dt, (R, C)), **data}, params,
                args or {})


def safe_divisors(dt: str, b: np.ndarray) -> np.ndarray:
    """Integer divisors without 0 and -1: the simulator's integer ``/`` and ``%`` trap (SIGFPE) on x / 0 and
    INT_MIN / -1 (undefined in C++), so those lanes are replaced by 3."""
    if dt in FLOATS:
        return b
    v = b.view(get_dtype(dt).np)
    return np.where((v == 0) | (v == -1) if dt[0] == "i" else v == 0, lanes(dt, [3])[0], b).astype(b.dtype)


def unary_pool(rng, dt: str, n: int) -> np.ndarray:
    """Specials, ties and range edges, then values spread over every binade (so exp/log/sqrt see their whole
    domain), then random codes."""
    if dt not in FLOATS:
        return conversion_pool(rng, dt, n)
    d = get_dtype(dt)
    pool = conversion_pool(rng, dt, n // 2)
    spread = np.sort(rng.integers(0, 1 << d.bits, n - pool.size, dtype=np.uint64)).astype(d.lane)
    return np.concatenate([pool, spread])


def scalar_values(dt: str) -> list[int]:
    """Scalar codes for the tile-scalar ops: specials, ones, range edges."""
    d = get_dtype(dt)
    if dt in FLOATS:
        sp = F_SPECIAL[dt]
        return [sp[0], sp[1], sp[2], sp[4], sp[6], sp[9]] + [int(v) for v in lanes(dt, [1, -2.5, 3e38, 1e-3])]
    return [int(v) for v in lanes(dt, sorted({0, 1, 3, d.format.int_max, d.format.int_min, -1 if d.format.int_min
                                              else 2, d.format.int_max // 3}))]


def scalar_params(dt: str, code: int) -> tuple[int, ...]:
    """A scalar's lane code as the int32 words the driver copies into a ``DType`` (two for 8-byte types)."""
    words = (code & 0xFFFFFFFF, code >> 32) if get_dtype(dt).size == 8 else (code,)
    return tuple(int(np.uint32(w).view(np.int32)) for w in words)


SCALAR_DECL = "typename T_dst::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "


def near_pairs(rng, dt: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Operand pairs for compares: specials against specials, and b equal to a in about a third of lanes."""
    a, b = pair_operands(rng, dt, n)
    return a, np.where(rng.random(n) < 0.35, a, b).astype(a.dtype)


# ------------------------------------------------------------ bf16 families
BF16 = "bf16"


ONLY = (BF16,)


FP4_TYPES = ("f4e2m1", "f4e1m2")


@contextmanager
def narrowed(**tables):
    """Set module-level tables (``FLOATS``, ``DTS``, a family's dtype list...) in every module of this package
    that has them, for the families run inside; the bf16 families are the other families run so."""
    mods = [m for n, m in list(sys.modules.items()) if n == __package__ or n.startswith(__package__ + ".")]
    saved = [(m, k, getattr(m, k)) for k in tables for m in mods if hasattr(m, k)]
    unknown = set(tables) - {k for _, k, _ in saved}
    if unknown:
        raise NameError(f"no table {', '.join(sorted(unknown))} in {__package__}")
    try:
        for m, k, _ in saved:
            setattr(m, k, tables[k])
        yield
    finally:
        for m, k, v in saved:
            setattr(m, k, v)
