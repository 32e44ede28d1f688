"""Golden vectors from pto-isa's CPU simulator (``__CPU_SIM``), and tilesim's agreement with them.

    python tools/ptoisa_vectors.py PTO_ISA_CHECKOUT [-o tests/pto/golden] [--cxx clang++-19] [--check]
                                   [--ops tdiv,texp] [--keep BUILD_DIR] [--jobs 2] [--bf16-cxx G++]
    python tools/ptoisa_vectors.py [PTO_ISA_CHECKOUT] --check-only [-o tests/pto/golden]

The script makes its own cases (inputs that hit ties, NaN at and after index 0,
+-0, +-Inf, subnormals, out-of-range conversions, odd and empty valid shapes,
ND/DN/boxed layouts, every dtype pair and TCVT mode the simulator compiles;
Acc, Scaling quant-word and MX scale tiles for TEXTRACT_FP/TINSERT_FP and
TMATMUL_MX, fp4 E2M1/E1M2 operands, 64-bit pre-quant scalars for TMOV,
TEXTRACT and TINSERT; custom pad words for bf16 TFILLPAD/TLOAD),
writes a C++ driver for them into a temporary folder, builds it against the
checkout's headers with clang (>= 17; Debian's ``clang-19`` works) using the
flags of pto-isa's own CPU test build (``tests/cpu/st/CMakeLists.txt``:
C++20, ``-O2``, ``-DNDEBUG``, ``-D__CPU_SIM``), runs it, and stores one
compact ``<op>.npz`` per op: the inputs, the reference's outputs and the
checkout's commit (format: ``tests/pto/ptoisa_golden.py``). ``--check``
replays them through tilesim (target ``cpu``) and prints the coverage table:
per tilesim op, how many cases agree bit for bit, the ops without vectors and
why, and (given the checkout) the simulator's entry points tilesim lacks.
Nothing of pto-isa's is copied: the driver is generated here and only
includes the checkout's public headers.

The driver is compiled in translation units of one op each (at most
``TU_KERNELS`` kernels), named by a hash of their text, the compiler and the
checkout, so a kept build folder (``--keep``) rebuilds only the units whose
kernels changed; ``--ops`` regenerates only those ops' files. Each family of
cases after the first five draws from its own generator, so adding one
changes no stored file.

bf16 cases (families ``*_bf16_cases``: the other families with their dtype
tables narrowed to bf16) need a real bfloat16: without C++23
``std::bfloat16_t`` the simulator aliases ``bfloat16_t`` to ``_Float16``
(PTO88), and Debian 12's clang 19 (libstdc++ 12, libc++ 19) has no
``<stdfloat>``. They are built only with ``--bf16-cxx``, a g++ >= 14 in C++23
with ``-DPTO_CPU_SIM_ENABLE_BF16=1 -DCPU_SIM_BFLOAT_ENABLED=1`` (pto-isa's
option ``PTO_CPU_SIM_ENABLE_BF16``), possibly run in a chroot whose view of
the checkout and of ``--keep`` has the same paths:

    python tools/ptoisa_vectors.py PTO_ISA_CHECKOUT --keep /srv/build --ops tcvt.bf16,tadd.bf16
                                   --bf16-cxx "chroot /srv/trixie g++-14"

and stored as ``<op>.bf16.npz`` with that compiler's version; the other files
stay clang's. ``--check`` shows both banks side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tilesim.pto import Tile, get_dtype
from tilesim.pto.targets import CPU_CAST_FIRST

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CXX_TYPE = {"f32": "float", "f16": "half", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
            "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "bf16": "bfloat16_t"}
DTS = tuple(t for t in CXX_TYPE if t != "bf16")  # bf16 cases come from their own families (PTO88)
FLOATS = ("f32", "f16")
INTS = tuple(d for d in DTS if d not in FLOATS)
CXX_TYPE |= {"f8e4m3": "float8_e4m3_t", "f8e5m2": "float8_e5m2_t", "f8e8m0": "float8_e8m0_t",  # MX; not in DTS
             "f4e2m1": "float4_e2m1x2_t", "f4e1m2": "float4_e1m2x2_t"}
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

    @property
    def key(self) -> tuple:
        return self.call, self.specs

    @property
    def stem(self) -> str:
        """Its bank file's name: ``<op>``, or ``<op>.bf16`` when a tile is bf16 (built by ``--bf16-cxx``)."""
        return self.op + (".bf16" if any(s.dtype == "bf16" for s in self.specs) else "")

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


_F_SPECIAL = {
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


def _sentinel(dt: str, shape) -> np.ndarray:
    """A destination's contents before the op: 0xA5 bytes (a value no op here writes by chance), so the
    lanes an op must leave alone are checked, and the files compress."""
    return np.full(shape, 0xA5A5A5A5A5A5A5A5, np.uint64).astype(get_dtype(dt).lane)


def _scratch(dt: str, rows: int, cols: int) -> np.ndarray:
    """A tmp tile's contents: zeros (the CPU simulator never reads tmp; zeros keep the files small)."""
    return np.zeros((rows, cols), get_dtype(dt).lane)


def conversion_pool(rng, dt: str, n: int) -> np.ndarray:
    """n source lanes: special values, range edges of every destination, ties, then random values."""
    d = get_dtype(dt)
    if dt in FLOATS:
        pool = list(_F_SPECIAL[dt]) + list(lanes(dt, _F_NUMBERS)) + list(lanes(dt, [-v for v in _F_NUMBERS]))
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
                line[0] = _F_SPECIAL[dt][6]                          # NaN with a payload at index 0
            elif kind == 2 and length > 2:
                line[rng.integers(1, length, 2)] = [nan, _F_SPECIAL[dt][5]]  # NaNs after index 0
            elif kind == 3:
                line = lanes(dt, np.where(rng.random(length) < 0.5, -0.0, 0.0))
            elif kind == 4:
                line[rng.integers(0, length, 3)] = lanes(dt, [np.inf, -np.inf, np.inf])
            elif kind == 6:
                line = lanes(dt, rng.integers(1, 40, length) * _TINY[dt]
                             * rng.choice([-1, 1], length))
            elif kind == 7:
                line = np.array(rng.choice(_F_SPECIAL[dt][4:9], length), d.lane)
            elif kind == 8:
                line[0] = _F_SPECIAL[dt][1]                          # -0 first, then +0 later
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
def _aligned_cols(dt: str, n: int) -> int:
    per = 32 // get_dtype(dt).size
    return -(-n // per) * per


def _aligned_rows(dt: str, n: int) -> int:
    return _aligned_cols(dt, n)


#: the dtype pairs TCVT is tried with in DN and boxed layouts
TCVT_LAYOUT_PAIRS = (("f32", "i32"), ("f16", "f32"), ("f32", "f16"), ("i32", "f32"), ("f16", "i8"))


def tcvt_cases(rng) -> list[Case]:
    cases = []
    R, C = 8, 32
    for s in DTS:
        pool = conversion_pool(rng, s, R * C).reshape(R, C)
        for d in DTS:
            modes = ROUND_MODES if s in FLOATS else ("RINT", "FLOOR")
            for mode in modes:
                for sat in ((None, "OFF", "ON") if mode == "RINT" else ("OFF", "ON")):
                    src, dst = Spec("src", s, R, C), Spec("dst", d, R, C)
                    call = ("TCVT(dst, src, (RoundMode)P[0]);" if sat is None
                            else "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);")
                    params = (ROUND_MODES.index(mode),) + (() if sat is None else (SAT[sat],))
                    cases.append(Case("tcvt", call, (dst, src), {"dst": (R, C - 1), "src": (R, C - 1)},
                                      {"dst": _sentinel(d, (R, C)), "src": pool}, params,
                                      {"rmode": mode, "sat": None if sat is None else sat == "ON"}))
    # other layouts: DN and boxed tiles, odd valid shapes
    for s, d in TCVT_LAYOUT_PAIRS:
        for bl, sl in (("col_major", "none_box"), ("col_major", "row_major"), ("row_major", "col_major")):
            rows = 32
            src, dst = Spec("src", s, rows, 32, bl, sl), Spec("dst", d, rows, 32, bl, sl)
            pool = conversion_pool(rng, s, rows * 32).reshape(rows, 32)
            cases.append(Case("tcvt", "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);", (dst, src),
                              {"dst": (29, 7), "src": (29, 7)}, {"dst": _sentinel(d, (rows, 32)), "src": pool},
                              (ROUND_MODES.index("ROUND"), SAT["OFF"]), {"rmode": "ROUND", "sat": False}))
    return cases


#: (src, dst) pairs each reduce accepts beyond same-dtype ones (CPU_SIM static_asserts; exact widenings elsewhere)
_WIDEN = [("f16", "f32"), ("i8", "i16"), ("i16", "i32"), ("i32", "i64"), ("u8", "u16"), ("u16", "u32"),
          ("u32", "u64"), ("u8", "i16"), ("i8", "f16"), ("u16", "f32"), ("i8", "i32")]
_REDUCE_PAIRS = {
    "trowsum": [(t, t) for t in ("f32", "f16", "i32", "i16")] + [("f16", "f32"), ("i16", "i32")],
    "tcolsum": [("f32", "f32"), ("f16", "f16"), ("f16", "f32")],
    "tcolmax": [(t, t) for t in ("f32", "f16", "i8", "u8")] + [("f16", "f32")],
}
for _op in ("trowmax", "trowmin", "trowprod", "tcolmin", "tcolprod"):
    _REDUCE_PAIRS[_op] = [(t, t) for t in DTS] + _WIDEN

_ROW_SHAPES = [(8, 8, 61), (4, 3, 17), (2, 2, 64), (3, 3, 7), (1, 1, 1), (9, 9, 8), (16, 16, 33), (5, 5, 9),
               (4, 4, 0), (4, 0, 5)]
_COL_SHAPES = [(32, 31, 29), (32, 32, 32), (32, 1, 7), (32, 5, 32), (32, 17, 1), (32, 0, 5), (32, 3, 0),
               (32, 9, 16)]


def reduce_cases(rng) -> list[Case]:
    cases = []
    for op, pairs in _REDUCE_PAIRS.items():
        row = op.startswith("trow")
        up = op.upper()
        for s, d in pairs:
            shapes = _ROW_SHAPES if row else _COL_SHAPES
            for k, (R, vr, vc) in enumerate(shapes):
                src_dn = k == 1  # one shape with a DN source
                C = 64 if row else 32
                if src_dn:
                    R = _aligned_rows(s, R)
                src = Spec("src", s, R, C, "col_major" if src_dn else "row_major")
                if row:
                    dst = (Spec("dst", d, _aligned_rows(d, R), 1, "col_major") if k % 2 else
                           Spec("dst", d, R, _aligned_cols(d, 1)))
                    dvalid = (vr, 1)
                else:
                    dst, dvalid = Spec("dst", d, 1, C), (1, vc)
                data = (line_values(rng, s, R, C) if row else line_values(rng, s, C, R).T.copy())
                specs, valid = [dst, src], {"dst": dvalid, "src": (vr, vc)}
                tiles = {"dst": _sentinel(d, (dst.rows, dst.cols)), "src": data}
                if row:
                    specs.append(Spec("tmp", s, R, C, src.blayout))
                    valid["tmp"], tiles["tmp"] = (vr, vc), _scratch(s, R, C)
                    call = f"{up}(dst, src, tmp);"
                else:
                    call = f"{up}(dst, src);"
                cases.append(Case(op, call, tuple(specs), valid, tiles))
                if op == "tcolsum" and k < 4:
                    specs2 = (dst, src, Spec("tmp", s, R, C))
                    v2 = dict(valid, tmp=(vr, vc))
                    t2 = dict(tiles, tmp=_scratch(s, R, C))
                    for binary in (0, 1):
                        cases.append(Case(op, "TCOLSUM(dst, src, tmp, P[0] != 0);", specs2, v2, t2, (binary,),
                                          {"is_binary": bool(binary)}))
    return cases


def arg_cases(rng) -> list[Case]:
    cases = []
    for op in ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin"):
        row = op.startswith("trow")
        up = op.upper()
        for s in DTS:
            for idx_dt in ("i32", "u32"):
                for with_val in (False, True):
                    for k, (R, vr, vc) in enumerate(_ROW_SHAPES[:8] if row else _COL_SHAPES):
                        if 0 in (vr, vc):
                            continue
                        C = 64 if row else 32
                        src_dn = (not row) and (not with_val) and k % 3 == 1  # col idx-only takes DN sources
                        if src_dn:
                            R = _aligned_rows(s, R)
                        src = Spec("src", s, R, C, "col_major" if src_dn else "row_major")
                        if row:
                            dn = k % 2 == 1
                            mk = (lambda role, dt: Spec(role, dt, _aligned_rows(dt, R), 1, "col_major") if dn
                                  else Spec(role, dt, R, _aligned_cols(dt, 1)))
                            dvalid = (vr, 1)
                        else:
                            mk = (lambda role, dt: Spec(role, dt, 1, C))
                            dvalid = (1, vc)
                        data = line_values(rng, s, R, C) if row else line_values(rng, s, C, R).T.copy()
                        tmp = Spec("tmp", s, R, C, src.blayout)
                        specs = [mk("dst_idx", idx_dt), src, tmp]
                        valid = {"dst_idx": dvalid, "src": (vr, vc), "tmp": (vr, vc)}
                        tiles = {"dst_idx": _sentinel(idx_dt, (specs[0].rows, specs[0].cols)), "src": data,
                                 "tmp": _scratch(s, R, C)}
                        call = f"{up}(dst_idx, src, tmp);"
                        if with_val:
                            v = mk("dst_val", s)
                            specs.insert(0, v)
                            valid["dst_val"] = dvalid
                            tiles["dst_val"] = _sentinel(s, (v.rows, v.cols))
                            call = f"{up}(dst_val, dst_idx, src, tmp);"
                        cases.append(Case(op, call, tuple(specs), valid, tiles))
    return cases


def expand_cases(rng) -> list[Case]:
    cases = []
    for op in ("trowexpand", "tcolexpand"):
        row = op == "trowexpand"
        for s in DTS:
            for d in DTS:
                layouts = (("row_major", "row_major"), ("col_major", "row_major"), ("row_major", "col_major"),
                           ("col_major", "col_major")) if s == d else (("row_major", "row_major"),)
                for sl, dl in layouts:
                    R, C = 32, 32
                    vr, vc = (29, 13) if dl == "row_major" else (13, 29)
                    dst = Spec("dst", d, R, C, dl)
                    if row:
                        src = (Spec("src", s, R, 1, "col_major") if sl == "col_major" else
                               Spec("src", s, R, _aligned_cols(s, 1)))
                        svalid = (vr, 1)
                        data = conversion_pool(rng, s, src.rows * src.cols).reshape(src.rows, src.cols)
                    else:
                        src = Spec("src", s, R if sl == "col_major" else 2, C, sl)
                        svalid = (1, vc)
                        data = conversion_pool(rng, s, src.rows * src.cols).reshape(src.rows, src.cols)
                    cases.append(Case(op, f"{op.upper()}(dst, src);", (dst, src), {"dst": (vr, vc), "src": svalid},
                                      {"dst": _sentinel(d, (R, C)), "src": data}))
            # empty destination region
            dst, src = Spec("dst", s, 8, 32), Spec("src", s, 8, 32)
            cases.append(Case(op, f"{op.upper()}(dst, src);", (dst, src), {"dst": (0, 5), "src": (3, 1)},
                              {"dst": _sentinel(s, (8, 32)), "src": rand_lanes(rng, s, (8, 32))}))
    return cases


def _pair_operands(rng, dt: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two lane vectors whose pairs cover special x special and random values."""
    if dt in FLOATS:
        sp = np.array(_F_SPECIAL[dt] + list(lanes(dt, [1, -1, 2.5, 65504, 1e-30, 3e38])), get_dtype(dt).lane)
        a, b = np.meshgrid(sp, sp)
        a, b = a.ravel(), b.ravel()
    else:
        d = get_dtype(dt)
        sp = lanes(dt, [d.format.int_min, d.format.int_max, 0, 1, d.format.int_max // 2 + 1])
        a, b = (x.ravel() for x in np.meshgrid(sp, sp))
    ra, rb = conversion_pool(rng, dt, n), conversion_pool(rng, dt, n)[::-1]
    return np.resize(np.concatenate([a, ra]), n), np.resize(np.concatenate([b, rb]), n)


def binary_cases(rng) -> list[Case]:
    cases = []
    for op in ("tadd", "tsub", "tmul", "tmax", "tmin"):
        for dt in DTS:
            for bl in ("row_major", "col_major"):
                R = C = 32
                vr, vc = (31, 29) if bl == "row_major" else (29, 31)
                a, b = _pair_operands(rng, dt, R * C)
                specs = tuple(Spec(r, dt, R, C, bl) for r in ("dst", "src0", "src1"))
                cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs,
                                  {r: (vr, vc) for r in ("dst", "src0", "src1")},
                                  {"dst": _sentinel(dt, (R, C)), "src0": a.reshape(R, C),
                                   "src1": b.reshape(R, C)}))
    return cases


def _tiles3(op: str, call: str, dt: str, roles: tuple[str, ...], data: dict, valid, bl="row_major",
            params=(), args=None, R=32, C=32) -> Case:
    """A case whose tiles all have one dtype, shape and layout; ``dst`` starts as the sentinel."""
    specs = tuple(Spec(r, dt, R, C, bl) for r in roles)
    return Case(op, call, specs, {r: valid for r in roles}, {"dst": _sentinel(dt, (R, C)), **data}, params,
                args or {})


def _safe_divisors(dt: str, b: np.ndarray) -> np.ndarray:
    """Integer divisors without 0 and -1: the simulator's integer ``/`` and ``%`` trap (SIGFPE) on x / 0 and
    INT_MIN / -1 (undefined in C++), so those lanes are replaced by 3."""
    if dt in FLOATS:
        return b
    v = b.view(get_dtype(dt).np)
    return np.where((v == 0) | (v == -1) if dt[0] == "i" else v == 0, lanes(dt, [3])[0], b).astype(b.dtype)


#: TDIV's dtypes; the layouts each binary op is tried in
TDIV_DTS = DTS


def tdiv_cases(rng) -> list[Case]:
    cases = []
    for dt in DTS:
        for bl in (("row_major", "col_major") if dt in FLOATS else ("row_major",)):
            a, b = _pair_operands(rng, dt, 32 * 32)
            vr, vc = (31, 29) if bl == "row_major" else (29, 31)
            cases.append(_tiles3("tdiv", "TDIV(dst, src0, src1);", dt, ("dst", "src0", "src1"),
                                 {"src0": a.reshape(32, 32), "src1": _safe_divisors(dt, b).reshape(32, 32)},
                                 (vr, vc), bl))
    return cases


#: unary ops and the dtypes tried (what either side accepts; the compiler and tilesim say the rest)
UNARY = {"texp": FLOATS, "tlog": FLOATS, "tsqrt": FLOATS, "trsqrt": FLOATS, "trecip": FLOATS,
         "tabs": FLOATS + ("i8", "i16", "i32", "i64"), "tneg": FLOATS + ("i8", "i16", "i32", "i64"),
         "trelu": FLOATS + ("i16", "i32")}


def unary_pool(rng, dt: str, n: int) -> np.ndarray:
    """Specials, ties and range edges, then values spread over every binade (so exp/log/sqrt see their whole
    domain), then random codes."""
    if dt not in FLOATS:
        return conversion_pool(rng, dt, n)
    d = get_dtype(dt)
    pool = conversion_pool(rng, dt, n // 2)
    spread = np.sort(rng.integers(0, 1 << d.bits, n - pool.size, dtype=np.uint64)).astype(d.lane)
    return np.concatenate([pool, spread])


def unary_cases(rng) -> list[Case]:
    cases = []
    for op, dts in UNARY.items():
        for dt in dts:
            for bl in (("row_major", "col_major") if dt == "f32" else ("row_major",)):
                x = unary_pool(rng, dt, 32 * 32)
                vr, vc = (32, 32) if bl == "row_major" else (29, 31)
                cases.append(_tiles3(op, f"{op.upper()}(dst, src);", dt, ("dst", "src"),
                                     {"src": x.reshape(32, 32)}, (vr, vc), bl))
    for op in ("texp", "tlog", "tsqrt", "trsqrt", "trecip"):  # every f16 code once
        cases.append(_tiles3(op, f"{op.upper()}(dst, src);", "f16", ("dst", "src"),
                             {"src": np.arange(1 << 16, dtype=np.uint16).reshape(256, 256)}, (256, 256),
                             R=256, C=256))
    return cases


SCALAR_OPS = ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins")


def scalar_values(dt: str) -> list[int]:
    """Scalar codes for the tile-scalar ops: specials, ones, range edges."""
    d = get_dtype(dt)
    if dt in FLOATS:
        sp = _F_SPECIAL[dt]
        return [sp[0], sp[1], sp[2], sp[4], sp[6], sp[9]] + [int(v) for v in lanes(dt, [1, -2.5, 3e38, 1e-3])]
    return [int(v) for v in lanes(dt, sorted({0, 1, 3, d.format.int_max, d.format.int_min, -1 if d.format.int_min
                                              else 2, d.format.int_max // 3}))]


def scalar_cases(rng) -> list[Case]:
    cases = []
    pools = {dt: unary_pool(rng, dt, 16 * 32).reshape(16, 32) for dt in DTS}  # one source per dtype: compresses
    for op in SCALAR_OPS:
        for dt in DTS:
            n8 = get_dtype(dt).size == 8
            for first in ((False, True) if op == "tdivs" else (False,)):
                call = ("typename T_dst::DType sc; std::memcpy(&sc, P, sizeof sc); "
                        + (f"{op.upper()}(dst, sc, src);" if first else f"{op.upper()}(dst, src, sc);"))
                for k, sc in enumerate(scalar_values(dt)):
                    x = pools[dt]
                    if op == "tdivs" and dt not in FLOATS:
                        if first:
                            x = _safe_divisors(dt, x)
                        elif int(np.array(sc, get_dtype(dt).lane).view(get_dtype(dt).np)) in (0, -1):
                            continue
                    params = (sc & 0xFFFFFFFF, sc >> 32) if n8 else (sc,)
                    params = tuple(int(np.uint32(p).view(np.int32)) for p in params)
                    vr, vc = ((16, 32), (15, 29), (1, 1), (16, 7))[k % 4]
                    cases.append(_tiles3(op, call, dt, ("dst", "src"), {"src": x}, (vr, vc), params=params,
                                         args={"scalar": int(sc), **({"scalar_first": True} if first else {})},
                                         R=16))
    return cases


EXPAND_KINDS = ("add", "sub", "mul", "div", "max", "min", "expdif")
#: dtypes tried for the expand-binary ops (the simulator compiles f32/f16, 16/32-bit ints, u8 for mul)
EXPAND_DTS = ("f32", "f16", "i32", "i16", "u32", "u16", "u8", "i8")


def expand_binary_cases(rng) -> list[Case]:
    """TROWEXPAND<op> in its three forms (src1 col_major one column; src1 row_major 32 bytes a row; src0 the
    broadcast one) and TCOLEXPAND<op> (src1 one row), over odd valid shapes."""
    cases = []
    R, C, vr, vc = 32, 32, 29, 13
    for kind in EXPAND_KINDS:
        for dt in EXPAND_DTS:
            per = 32 // get_dtype(dt).size
            full, other = _pair_operands(rng, dt, R * C)
            full, other = full.reshape(R, C), other.reshape(R, C)
            forms = (("dn", "rm", "swap") if dt == "f32" else ("dn", "rm") if dt == "f16" else ("dn",))
            for form in forms:
                bc = (Spec("b", dt, R, 1, "col_major") if form in ("dn", "swap") else Spec("b", dt, R, per))
                bvalid = (vr, 1 if form != "rm" else per)
                bdata = other[:, :bc.cols].copy()
                if kind == "div" and form != "swap":
                    bdata = _safe_divisors(dt, bdata)
                fdata = _safe_divisors(dt, full) if kind == "div" and form == "swap" else full
                s0, s1 = (("src0", bc, bdata), ("src1", Spec("f", dt, R, C), fdata)) if form == "swap" else \
                    (("src0", Spec("f", dt, R, C), fdata), ("src1", bc, bdata))
                specs = (Spec("dst", dt, R, C),) + tuple(Spec(r, dt, sp.rows, sp.cols, sp.blayout)
                                                         for r, sp, _ in (s0, s1))
                valid = {"dst": (vr, vc), s0[0]: (vr, vc) if s0[1].role == "f" else bvalid,
                         s1[0]: (vr, vc) if s1[1].role == "f" else bvalid}
                cases.append(Case(f"trowexpand{kind}", f"TROWEXPAND{kind.upper()}(dst, src0, src1);", specs, valid,
                                  {"dst": _sentinel(dt, (R, C)), s0[0]: s0[2], s1[0]: s1[2]}))
            row = other[:1].copy()
            if kind == "div":
                row = _safe_divisors(dt, row)
            specs = (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, 1, C))
            cases.append(Case(f"tcolexpand{kind}", f"TCOLEXPAND{kind.upper()}(dst, src0, src1);", specs,
                              {"dst": (vr, vc), "src0": (vr, vc), "src1": (1, vc)},
                              {"dst": _sentinel(dt, (R, C)), "src0": full, "src1": row}))
    return cases


CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")  # pto CmpMode 0..5
#: (src dtype, mask dtype) pairs tried for TCMP/TCMPS; data dtypes for TSEL/TSELS/TEXPANDS
CMP_PAIRS = [(d, "u32") for d in ("f32", "f16", "i32", "u32", "i16", "u16", "i8", "u8")] + \
    [(d, "u8") for d in ("f32", "f16", "i32", "i16", "u16")]
SEL_DTS = DTS


def _scalar_params(dt: str, code: int) -> tuple[int, ...]:
    """A scalar's lane code as the int32 words the driver copies into a ``DType`` (two for 8-byte types)."""
    words = (code & 0xFFFFFFFF, code >> 32) if get_dtype(dt).size == 8 else (code,)
    return tuple(int(np.uint32(w).view(np.int32)) for w in words)


_SCALAR_DECL = "typename T_dst::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "


def _near_pairs(rng, dt: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Operand pairs for compares: specials against specials, and b equal to a in about a third of lanes."""
    a, b = _pair_operands(rng, dt, n)
    return a, np.where(rng.random(n) < 0.35, a, b).astype(a.dtype)


def compare_select_cases(rng) -> list[Case]:
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    for sdt, mdt in CMP_PAIRS:
        a, b = (x.reshape(R, C) for x in _near_pairs(rng, sdt, R * C))
        words = -(-vc // get_dtype(mdt).bits)
        mcols = _aligned_cols(mdt, words)
        src = lambda role: Spec(role, sdt, R, C)
        dst = Spec("dst", mdt, R, mcols)
        for mode in range(len(CMP_MODES)):
            cases.append(Case("tcmp", "TCMP(dst, src0, src1, (CmpMode)P[0]);", (dst, src("src0"), src("src1")),
                              {"dst": (vr, words), "src0": (vr, vc), "src1": (vr, vc)},
                              {"dst": _sentinel(mdt, (R, mcols)), "src0": a, "src1": b}, (mode,),
                              {"cmp_mode": CMP_MODES[mode]}))
        # TCMPS with a scalar; the simulator packs bytes over the source's full width, so dst is as wide
        sdst = Spec("dst", mdt, R, C)
        call = ("typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "
                "TCMPS(dst, src, sc, (CmpMode)P[0]);")
        for k, code in enumerate([int(a[0, 3]), int(a[2, 5]), int(lanes(sdt, [1])[0])]):
            for mode in range(len(CMP_MODES)):
                dvalid = ((vr, -(-vc // 8)), (R, C), (3, 7))[(k + mode) % 3]
                cases.append(Case("tcmps", call, (sdst, src("src")), {"dst": dvalid, "src": (vr, vc)},
                                  {"dst": _sentinel(mdt, (R, C)), "src": a}, (mode,) + _scalar_params(sdt, code),
                                  {"cmp_mode": CMP_MODES[mode], "scalar": code}))
    for dt in SEL_DTS:
        a, b = (x.reshape(R, C) for x in _pair_operands(rng, dt, R * C))
        for mdt in ("u8", "u32"):
            mcols = _aligned_cols(mdt, 8)
            mask = rand_lanes(rng, mdt, (R, mcols))
            mvalid = (R, 4)  # 64 mask elements: TSEL on cpu reads 8 bits of each, as one stream (PTO94)
            specs = (Spec("dst", dt, R, C), Spec("mask", mdt, R, mcols), Spec("src0", dt, R, C),
                     Spec("src1", dt, R, C), Spec("tmp", dt, R, C))
            cases.append(Case("tsel", "TSEL(dst, mask, src0, src1, tmp);", specs,
                              {"dst": (vr, vc), "mask": mvalid, "src0": (vr, vc), "src1": (vr, vc), "tmp": (vr, vc)},
                              {"dst": _sentinel(dt, (R, C)), "mask": mask, "src0": a, "src1": b,
                               "tmp": _scratch(dt, R, C)}))
            specs = (Spec("dst", dt, R, C), Spec("mask", mdt, R, mcols), Spec("src", dt, R, C), Spec("tmp", dt, R, C))
            code = int(b[1, 1])
            cases.append(Case("tsels", _SCALAR_DECL + "TSELS(dst, mask, src, tmp, sc);", specs,
                              {"dst": (vr, vc), "mask": (R, mcols), "src": (vr, vc), "tmp": (vr, vc)},
                              {"dst": _sentinel(dt, (R, C)), "mask": mask, "src": a, "tmp": _scratch(dt, R, C)},
                              (0,) + _scalar_params(dt, code), {"scalar": code}))
        for code in (int(a[0, 0]), int(a[0, 6])):
            cases.append(Case("texpands", _SCALAR_DECL + "TEXPANDS(dst, sc);", (Spec("dst", dt, R, C),),
                              {"dst": (vr, vc)}, {"dst": _sentinel(dt, (R, C))}, (0,) + _scalar_params(dt, code),
                              {"scalar": code}))
    return cases


PART_DTS = ("f32", "f16", "i32", "i16", "i8", "u8", "u16", "u32")
AXPY_PAIRS = (("f32", "f32"), ("f16", "f16"), ("f16", "f32"), ("f32", "f16"))


def arith_more_cases(rng) -> list[Case]:
    """TREM/TREMS, TPARTADD/MUL/MAX/MIN (sources with other valid shapes than dst), TAXPY and TADDC."""
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in _pair_operands(rng, dt, R * C))
        b = _safe_divisors(dt, b)
        four = ("dst", "src0", "src1", "tmp")
        cases.append(_tiles3("trem", "TREM(dst, src0, src1, tmp);", dt, four,
                             {"src0": a, "src1": b, "tmp": _scratch(dt, R, C)}, (vr, vc), R=R))
        for code in scalar_values(dt):
            v = np.array(code, get_dtype(dt).lane).view(get_dtype(dt).np)
            if v == 0 or (dt[0] == "i" and v == -1):
                continue
            cases.append(_tiles3("trems", _SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                                 {"src": a, "tmp": _scratch(dt, R, C)}, (vr, vc),
                                 params=(0,) + _scalar_params(dt, code),
                                 args={"scalar": code}, R=R))
        c = conversion_pool(rng, dt, R * C).reshape(R, C)
        cases.append(_tiles3("taddc", "TADDC(dst, src0, src1, src2);", dt, ("dst", "src0", "src1", "src2"),
                             {"src0": a, "src1": b, "src2": c}, (vr, vc), R=R))
    for op in ("tpartadd", "tpartmul", "tpartmax", "tpartmin"):
        for dt in PART_DTS:
            a, b = (x.reshape(R, C) for x in _pair_operands(rng, dt, R * C))
            specs = tuple(Spec(r, dt, R, C) for r in ("dst", "src0", "src1"))
            for v0, v1 in (((vr, vc), (vr, vc)), ((vr, vc - 6), (vr - 4, vc)), ((vr - 2, vc), (vr, 3))):
                cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs,
                                  {"dst": (vr, vc), "src0": v0, "src1": v1},
                                  {"dst": _sentinel(dt, (R, C)), "src0": a, "src1": b}))
    for sdt, ddt in AXPY_PAIRS:
        x = unary_pool(rng, sdt, R * C).reshape(R, C)
        y = unary_pool(rng, ddt, R * C).reshape(R, C)
        specs = (Spec("dst", ddt, R, C), Spec("src", sdt, R, C))
        call = "typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); TAXPY(dst, src, sc);"
        for code in scalar_values(sdt)[:6]:
            cases.append(Case("taxpy", call, specs, {"dst": (vr, vc), "src": (vr, vc)}, {"dst": y, "src": x},
                              (0,) + _scalar_params(sdt, code), {"scalar": code}))
    return cases


GATHER_PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")
#: (src, dst) dtypes of the mask-pattern TGATHER
GATHER_MASK_PAIRS = (("f32", "f32"), ("f16", "f16"), ("f32", "i32"), ("u8", "i8"))


def gather_cases(rng) -> list[Case]:
    """TGATHER by an index tile (in and out of range, both index dtypes) and by each mask pattern, both axes."""
    cases = []
    R, C = 16, 32
    for dt in DTS:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        for idt in (("i32", "u32") if dt == "f32" else ("i32",)):
            k = rng.integers(-40, R * C + 40, (R, 32)).astype(np.int64)
            k[0, :4] = [0, R * C - 1, R * C, -1]
            idx = (k if idt == "i32" else k % (1 << 32)).astype(get_dtype(idt).np).view(get_dtype(idt).lane)
            specs = (Spec("dst", dt, R, C), Spec("src", dt, R, C), Spec("indices", idt, R, 32), Spec("tmp", dt, R, C))
            cases.append(Case("tgather", "TGATHER(dst, src, indices, tmp);", specs,
                              {"dst": (15, 29), "src": (R, C), "indices": (15, 29), "tmp": (R, C)},
                              {"dst": _sentinel(dt, (R, C)), "src": src, "indices": idx, "tmp": _scratch(dt, R, C)}))
    for dt, ddt in GATHER_MASK_PAIRS:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        for pat in GATHER_PATTERNS:
            call = f"TGATHER<T_dst, T_src, MaskPattern::{pat}>(dst, src);"
            specs = (Spec("dst", ddt, R, C), Spec("src", dt, R, C))
            cases.append(Case("tgather", call, specs, {"dst": (R, C), "src": (13, 29)},
                              {"dst": _sentinel(ddt, (R, C)), "src": src}, (), {"mask_pattern": pat}))
            n = sum(1 for r in range(13) if _selects(pat, r))
            call = f"TGATHER<T_dst, T_src, MaskPattern::{pat}, GatherAxis::GATHER_COL>(dst, src);"
            specs = (Spec("dst", ddt, n, C), Spec("src", dt, R, C))
            cases.append(Case("tgather", call, specs, {"dst": (n, 29), "src": (13, 29)},
                              {"dst": _sentinel(ddt, (n, C)), "src": src}, (), {"mask_pattern": pat, "axis": "col"}))
    return cases


def _selects(pat: str, i: int) -> bool:
    """Whether mask pattern ``pat`` (P0101 ...) keeps element ``i``: read right to left, period its length."""
    if pat == "P1111":
        return True
    period = 2 if pat in ("P0101", "P1010") else 4
    return pat[1:][::-1][:period][i % period] == "1"


CONCAT_DTS = ("f32", "f16", "i32", "i16", "i8", "u32", "u16", "u8", "i64")


def concat_cases(rng) -> list[Case]:
    """TCONCAT (two sources side by side) over every dtype the simulator takes, odd widths, a DN case."""
    cases = []
    R = 16
    for dt in CONCAT_DTS:
        for bl in (("row_major", "col_major") if dt == "f32" else ("row_major",)):
            a, b = (conversion_pool(rng, dt, R * 32).reshape(R, 32) for _ in range(2))
            specs = (Spec("dst", dt, R, 64, bl), Spec("src0", dt, R, 32, bl), Spec("src1", dt, R, 32, bl))
            for c0, c1 in ((13, 29), (32, 32), (0, 7)):
                cases.append(Case("tconcat", "TCONCAT(dst, src0, src1);", specs,
                                  {"dst": (15, c0 + c1), "src0": (15, c0), "src1": (15, c1)},
                                  {"dst": _sentinel(dt, (R, 64)), "src0": a, "src1": b}))
    return cases


FILLPAD_DTS = ("f32", "f16", "i32", "i16", "i8", "u8", "u16", "u32")
#: (op, dtype, pad) beyond TFILLPAD's max and min pads of FILLPAD_DTS
FILLPAD_MORE = (("tfillpad", "f32", "zero"), ("tfillpad", "i8", "zero"), ("tfillpad_inplace", "f32", "min"),
                ("tfillpad_inplace", "i32", "max"),
                *(("tfillpad_expand", dt, "max") for dt in ("f32", "f16", "i16", "u8")))


def fillpad_cases(rng) -> list[Case]:
    """TFILLPAD (every dtype size, each pad value), TFILLPAD_EXPAND (a larger dst) and TFILLPAD_INPLACE."""
    cases = []
    R, C = 16, 32
    plan = [("tfillpad", dt, pad) for dt in FILLPAD_DTS for pad in ("max", "min")]
    plan += list(FILLPAD_MORE)
    for op, dt, pad in plan:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        dr, dc = (R + 8, C + 32) if op == "tfillpad_expand" else (R, C)
        specs = (Spec("dst", dt, dr, dc, pad=pad), Spec("src", dt, R, C))
        for vr, vc in ((13, 29), (R, C), (1, 1)):
            cases.append(Case(op, f"{op.upper()}(dst, src);", specs, {"dst": (dr, dc), "src": (vr, vc)},
                              {"dst": _sentinel(dt, (dr, dc)), "src": src}))
    return cases


SORT_DTS = ("f32", "f16", "i32", "i16")


def sort_cases(rng) -> list[Case]:
    """TSORT32: 32-element blocks by score, descending, ties by index; ties, +-0, +-Inf, a partial last block.
    No NaN scores: the simulator's comparator is then no strict weak order (std::stable_sort is undefined)."""
    cases = []
    R, C = 4, 64
    for dt in SORT_DTS:
        per = 8 // get_dtype(dt).size
        dcols = _aligned_cols(dt, 2 * 32 + 32 * per)
        for k in range(3):
            if k == 0:
                src = lanes(dt, rng.integers(-3, 4, R * C))
            elif dt in FLOATS:
                vals = rng.choice([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 2.5], R * C)
                src = lanes(dt, np.where(rng.random(R * C) < 0.5, vals, rng.standard_normal(R * C) * 100))
            else:
                src = rand_lanes(rng, dt, R * C)
            idx = rng.permutation(1 << 16)[: R * C].astype(np.uint32)
            specs = (Spec("dst", dt, R, dcols), Spec("src", dt, R, C), Spec("idx", "u32", R, C))
            vr, vc = ((3, 61), (4, 64), (2, 32))[k]
            cases.append(Case("tsort32", "TSORT32(dst, src, idx);", specs,
                              {"dst": (R, dcols), "src": (vr, vc), "idx": (vr, vc)},
                              {"dst": _sentinel(dt, (R, dcols)), "src": src.reshape(R, C), "idx": idx.reshape(R, C)}))
    return cases


MATMUL_TYPES = (("f32", "f32"), ("f16", "f32"), ("i8", "i32"))  # (a/b, c); bf16: matmul_bf16_cases


def matmul_cases(rng) -> list[Case]:
    """TMATMUL, TMATMUL_ACC, TMATMUL_BIAS: Left (col_major/row_major boxes) x Right (row_major/col_major boxes)
    -> Acc (col_major/row_major, 1024-byte boxes), odd valid M, K, N; products that cancel, NaN and Inf."""
    cases = []
    M, K, N = 32, 64, 32
    for ab, c in MATMUL_TYPES:
        left = Spec("a", ab, M, K, "col_major", "row_major", loc="left")
        right = Spec("b", ab, K, N, "row_major", "col_major", loc="right")
        acc = Spec("dst", c, M, N, "col_major", "row_major", loc="acc", fractal=1024)
        for vm, vk, vn in ((29, 61, 31), (32, 64, 32), (1, 1, 1)):
            if ab in FLOATS:
                a = lanes(ab, rng.integers(-8, 9, M * K) * 2.0 ** rng.integers(-6, 7, M * K)).reshape(M, K)
                b = lanes(ab, rng.standard_normal(K * N) * 2.0 ** rng.integers(-8, 9, K * N)).reshape(K, N)
                if vm == 29:
                    a[0, 3], b[5, 2] = lanes(ab, [np.inf])[0], _F_SPECIAL[ab][6]
            else:
                a, b = rand_lanes(rng, ab, (M, K)), rand_lanes(rng, ab, (K, N))
            valid = {"dst": (vm, vn), "a": (vm, vk), "b": (vk, vn)}
            data = {"dst": _sentinel(c, (M, N)), "a": a, "b": b}
            cases.append(Case("tmatmul", "TMATMUL(dst, a, b);", (acc, left, right), valid, data))
            c_in = Spec("c_in", c, M, N, "col_major", "row_major", loc="acc", fractal=1024)
            cin = conversion_pool(rng, c, M * N).reshape(M, N) if c == "i32" else \
                lanes(c, rng.standard_normal(M * N) * 64).reshape(M, N)
            cases.append(Case("tmatmul_acc", "TMATMUL_ACC(dst, c_in, a, b);", (acc, c_in, left, right),
                              dict(valid, c_in=(vm, vn)), dict(data, c_in=cin)))
            bias = Spec("bias", c, 1, N, loc="bias")
            cases.append(Case("tmatmul_bias", "TMATMUL_BIAS(dst, a, b, bias);", (acc, left, right, bias),
                              dict(valid, bias=(1, vn)), dict(data, bias=cin[:1].copy())))
    return cases


# ------------------------------------------------------------ bf16 families
BF16 = "bf16"


def _bf16_family(name: str, suffix: str = "", **tables):
    """The family ``name`` with the module's dtype tables set to ``tables`` (and bf16 a float), keeping the cases
    with a bf16 tile: the same kinds of values (ties, NaN payloads, subnormals, range edges) in bf16. These cases
    are built by the ``--bf16-cxx`` toolchain, the only one with a real ``std::bfloat16_t`` (PTO88). ``suffix``
    names a second narrowing of one family (its own generator)."""
    def cases(rng) -> list[Case]:
        saved = {k: globals()[k] for k in ("FLOATS", *tables)}
        globals().update(FLOATS=FLOATS + (BF16,), **tables)
        try:
            return [c for c in globals()[name](rng) if c.stem.endswith(".bf16")]
        finally:
            globals().update(saved)
    cases.__name__ = name.replace("_cases", f"_bf16{suffix}_cases")
    cases.__doc__ = f"{name} in bf16 ({', '.join(tables)} narrowed)"
    return cases


_ONLY = (BF16,)
#: the reduces with no dtype static_assert in the simulator (any pair compiles), and their exact widenings into
#: bf16 beside bf16 -> f32 (the mixed pairs cpu takes, PTO91; the others are refused there, PTO46)
BF16_REDUCE_FREE = ("trowmax", "trowmin", "trowprod", "tcolmin", "tcolprod")
BF16_REDUCE_MIXED = [("i8", BF16), ("u8", BF16)]


def _every_code(ops) -> list[Case]:
    """Every bf16 code once through each unary op of ``ops`` (a 256 x 256 tile)."""
    codes = np.arange(1 << 16, dtype=np.uint16).reshape(256, 256)
    return [_tiles3(op, f"{op.upper()}(dst, src);", BF16, ("dst", "src"), {"src": codes}, (256, 256), R=256, C=256)
            for op in ops]


def every_code_bf16_cases(rng) -> list[Case]:
    """Every bf16 code once through TEXP and TLOG."""
    return _every_code(("texp", "tlog"))


def every_code_root_bf16_cases(rng) -> list[Case]:
    """Every bf16 code once through TSQRT and TRECIP (TRSQRT: the simulator refuses bf16, PTO79)."""
    return _every_code(("tsqrt", "trecip"))


#: custom pad words (pto-isa's ``PadValueCustom``): bf16 -1.0, a NaN with a payload, the smallest subnormal, and
#: the f32 word of 1.5 (``PadValueCustom(1.5f)``), whose low 16 bits a bf16 tile takes: +0
BF16_CUSTOM_PADS = ("custom:0xbf80", "custom:0x7fc1", "custom:0x0001", "custom:0x3fc00000")


def fillpad_custom_bf16_cases(rng) -> list[Case]:
    """TFILLPAD/_EXPAND/_INPLACE with custom pads, and TLOAD into a tile with one (the simulator pads it with 0)."""
    saved = globals()["FLOATS"]
    globals()["FLOATS"] = FLOATS + (BF16,)
    try:
        cases = []
        R, C = 16, 32
        src = conversion_pool(rng, BF16, R * C).reshape(R, C)
        for op, pad in zip(("tfillpad", "tfillpad", "tfillpad_expand", "tfillpad_inplace"), BF16_CUSTOM_PADS):
            dr, dc = (R + 8, C + 32) if op == "tfillpad_expand" else (R, C)
            specs = (Spec("dst", BF16, dr, dc, pad=pad), Spec("src", BF16, R, C))
            for vr, vc in ((13, 29), (1, 1)):
                cases.append(Case(op, f"{op.upper()}(dst, src);", specs, {"dst": (dr, dc), "src": (vr, vc)},
                                  {"dst": _sentinel(BF16, (dr, dc)), "src": src}))
        g = conversion_pool(rng, BF16, 40 * 48).reshape(40, 48)
        glob = (f"GlobalTensor<bfloat16_t, Shape<1, 1, 1, 29, 37>, Stride<1, 1, 1, 48, 1>> g(gm.data() + {3 * 48 + 5});"
                " TLOAD(dst, g);")
        cases.append(Case("tload", glob, (Spec("dst", BF16, 32, 64, pad=BF16_CUSTOM_PADS[0]),
                                          Spec("gm", BF16, 40, 48, loc="gm")), {"dst": (29, 37), "gm": (29, 37)},
                          {"dst": _sentinel(BF16, (32, 64)), "gm": g}, (), {"offset": [3, 5]}))
        return cases
    finally:
        globals()["FLOATS"] = saved


#: the data dtypes of compare_select_layout_cases (bf16 only: clang's dtypes keep compare_select_cases' row-major)
CMP_LAYOUT_DTS = _ONLY


def compare_select_layout_cases(rng) -> list[Case]:
    """TCMP/TCMPS/TSEL/TSELS with the data tiles DN, or boxed (row_major boxes in DN blocks, col_major boxes in
    ND blocks), odd valid shapes; the masks stay ND (u32 for TCMP, u32/u8 otherwise)."""
    cases = []
    R, C = 32, 32
    for dt in CMP_LAYOUT_DTS:
        for bl, sl in (("col_major", "none_box"), ("col_major", "row_major"), ("row_major", "col_major")):
            a, b = (x.reshape(R, C) for x in _near_pairs(rng, dt, R * C))
            data = lambda role: Spec(role, dt, R, C, bl, sl)
            for vr, vc in ((29, 7), (1, 1), (R, C)):
                words = -(-vc // 32)
                dst = Spec("dst", "u32", R, _aligned_cols("u32", words))
                for mode in range(len(CMP_MODES)):
                    cases.append(Case("tcmp", "TCMP(dst, src0, src1, (CmpMode)P[0]);", (dst, data("src0"),
                                      data("src1")), {"dst": (vr, words), "src0": (vr, vc), "src1": (vr, vc)},
                                      {"dst": _sentinel("u32", (R, dst.cols)), "src0": a, "src1": b}, (mode,),
                                      {"cmp_mode": CMP_MODES[mode]}))
                for mdt in ("u32", "u8"):
                    code = int(a[vr // 2, vc // 2])
                    cases.append(Case("tcmps", _SCALAR_DECL.replace("T_dst", "T_src") + "TCMPS(dst, src, sc, "
                                      "(CmpMode)P[0]);", (Spec("dst", mdt, R, C), data("src")),
                                      {"dst": (vr, -(-vc // 8)), "src": (vr, vc)},
                                      {"dst": _sentinel(mdt, (R, C)), "src": a},
                                      (vr % len(CMP_MODES),) + _scalar_params(dt, code),
                                      {"cmp_mode": CMP_MODES[vr % len(CMP_MODES)], "scalar": code}))
                    mcols = _aligned_cols(mdt, 8)
                    mask = rand_lanes(rng, mdt, (R, mcols))
                    cases.append(Case("tsel", "TSEL(dst, mask, src0, src1, tmp);",
                                      (data("dst"), Spec("mask", mdt, R, mcols), data("src0"), data("src1"),
                                       data("tmp")),
                                      {"dst": (vr, vc), "mask": (R, 4), "src0": (vr, vc), "src1": (vr, vc),
                                       "tmp": (vr, vc)},
                                      {"dst": _sentinel(dt, (R, C)), "mask": mask, "src0": a, "src1": b,
                                       "tmp": _scratch(dt, R, C)}))
                    code = int(b[1, 1])
                    cases.append(Case("tsels", _SCALAR_DECL + "TSELS(dst, mask, src, tmp, sc);",
                                      (data("dst"), Spec("mask", mdt, R, mcols), data("src"), data("tmp")),
                                      {"dst": (vr, vc), "mask": (R, mcols), "src": (vr, vc), "tmp": (vr, vc)},
                                      {"dst": _sentinel(dt, (R, C)), "mask": mask, "src": a,
                                       "tmp": _scratch(dt, R, C)}, (0,) + _scalar_params(dt, code), {"scalar": code}))
    return cases


# mixred: the five unchecked reduces between bf16 and each other dtype, exact widenings aside (PTO67)
BF16_MIXED_PAIRS = [(a, b) for o in ("f16", "f32", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
                    for a, b in ((BF16, o), (o, BF16)) if (a, b) not in BF16_REDUCE_MIXED + [(BF16, "f32")]]


def bf16_mixed_reduce_cases(rng) -> list[Case]:
    """:func:`mixed_row_reduce_cases` and :func:`mixed_col_reduce_cases` for the pairs with bf16 (the g++ build
    rejects some; the harness lists them)."""
    return [(_mixed_row_case if op.startswith("trow") else _mixed_col_case)(rng, op, s, d)
            for op in BF16_REDUCE_FREE for s, d in BF16_MIXED_PAIRS]


BF16_FAMILIES = (
    _bf16_family("tcvt_cases", DTS=DTS + _ONLY, TCVT_LAYOUT_PAIRS=(("f32", BF16), (BF16, "f32"), (BF16, "i32"))),
    _bf16_family("reduce_cases", _REDUCE_PAIRS={op: [(BF16, BF16), (BF16, "f32")] for op in _REDUCE_PAIRS}),
    _bf16_family("arg_cases", DTS=_ONLY),
    _bf16_family("expand_cases", DTS=DTS + _ONLY),
    _bf16_family("binary_cases", DTS=_ONLY),
    _bf16_family("tdiv_cases", DTS=_ONLY),
    _bf16_family("unary_cases", UNARY={op: _ONLY for op in UNARY}),
    every_code_bf16_cases,
    _bf16_family("scalar_cases", DTS=_ONLY),
    _bf16_family("expand_binary_cases", EXPAND_DTS=_ONLY),
    _bf16_family("compare_select_cases", CMP_PAIRS=[(BF16, "u32"), (BF16, "u8")], SEL_DTS=_ONLY),
    _bf16_family("arith_more_cases", DTS=_ONLY, PART_DTS=_ONLY,
                 AXPY_PAIRS=((BF16, BF16), (BF16, "f32"), ("f32", BF16))),
    _bf16_family("gather_cases", DTS=_ONLY, GATHER_MASK_PAIRS=((BF16, BF16),)),
    _bf16_family("fillpad_cases", FILLPAD_DTS=_ONLY,
                 FILLPAD_MORE=(("tfillpad", BF16, "zero"), ("tfillpad_inplace", BF16, "min"),
                               ("tfillpad_expand", BF16, "max"))),
    _bf16_family("sort_cases", SORT_DTS=_ONLY),
    _bf16_family("matmul_cases", MATMUL_TYPES=((BF16, "f32"),)),
    _bf16_family("memory_cases", MEMORY_DTS=_ONLY, PREFETCH_DTS=((BF16, 48),)),
    _bf16_family("move_cases", MOVE_HALF=BF16),
    _bf16_family("concat_cases", CONCAT_DTS=_ONLY),
    # bf16b: the rest of what the g++ build compiles
    _bf16_family("reduce_cases", "_mixed", _REDUCE_PAIRS={op: BF16_REDUCE_MIXED for op in BF16_REDUCE_FREE},
                 _ROW_SHAPES=_ROW_SHAPES[:3], _COL_SHAPES=_COL_SHAPES[:3]),
    _bf16_family("compare_select_layout_cases", CMP_LAYOUT_DTS=_ONLY),
    every_code_root_bf16_cases,
    fillpad_custom_bf16_cases,
)


MEMORY_DTS = ("f32", "f16", "i8", "i64", "u16")
PREFETCH_DTS = (("f32", 32), ("f16", 48), ("i8", 64))  # (dtype, global columns)


def memory_cases(rng) -> list[Case]:
    """TLOAD and TSTORE between a 2-D global array (a window at an offset, row stride the array's width) and
    vec tiles, ND and DN, every element size."""
    cases = []
    GR, GC = 40, 48
    for dt in MEMORY_DTS:
        g = conversion_pool(rng, dt, GR * GC).reshape(GR, GC)
        t = conversion_pool(rng, dt, 32 * 64).reshape(32, 64)
        for bl, (wr, wc), (r0, c0) in (("row_major", (29, 37), (3, 5)), ("row_major", (32, 48), (0, 0)),
                                        ("col_major", (13, 7), (20, 40))):
            glob = (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {GC}, 1>> "
                    f"g({{gm}}.data() + {r0 * GC + c0});")
            tile = Spec("dst", dt, 32, 64, bl) if bl == "row_major" else Spec("dst", dt, 64, 32, bl)
            gm = Spec("gm", dt, GR, GC, loc="gm")
            cases.append(Case("tload", glob.format(gm="gm") + " TLOAD(dst, g);", (tile, gm),
                              {"dst": (wr, wc), "gm": (wr, wc)},
                              {"dst": _sentinel(dt, (tile.rows, tile.cols)), "gm": g}, (), {"offset": [r0, c0]}))
            src = Spec("src", dt, tile.rows, tile.cols, bl)
            cases.append(Case("tstore", glob.format(gm="dst_gm") + " TSTORE(g, src);",
                              (Spec("dst_gm", dt, GR, GC, loc="gm"), src), {"dst_gm": (wr, wc), "src": (wr, wc)},
                              {"dst_gm": g, "src": t if bl == "row_major" else t.reshape(64, 32)}, (),
                              {"offset": [r0, c0]}))
    for dt, gc in PREFETCH_DTS:
        g = conversion_pool(rng, dt, 16 * gc).reshape(16, gc)
        call = (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, 16, {gc}>, Stride<1, 1, 1, {gc}, 1>> g(gm.data()); "
                "TPREFETCH(dst, g);")
        cases.append(Case("tprefetch", call, (Spec("dst", dt, 16, 32), Spec("gm", dt, 16, gc, loc="gm")),
                          {"dst": (13, 29), "gm": (16, gc)}, {"dst": _sentinel(dt, (16, 32)), "gm": g}))
    return cases


def _box(role, dt, rows, cols, kind, **kw) -> Spec:
    """A cube-side tile: ``nz`` (col_major blocks of row_major boxes: Mat, Left), ``zn`` (row_major blocks of
    col_major boxes: Right), ``acc`` (nz with 1024-byte boxes)."""
    bl, sl = {"nz": ("col_major", "row_major"), "zn": ("row_major", "col_major"),
              "acc": ("col_major", "row_major")}[kind]
    return Spec(role, dt, rows, cols, bl, sl, fractal=1024 if kind == "acc" else 512, **kw)


#: the 16-bit float of the move cases (Mat/Left/Right tiles, the Acc f32 -> 16-bit casts)
MOVE_HALF = "f16"


def move_cases(rng) -> list[Case]:
    """TMOV (vec layouts, Mat -> Left/Right, Acc -> Vec/Mat with f32 -> f16), TEXTRACT (Mat -> Left/Right at
    an offset, Acc -> Vec) and TINSERT (Vec/Acc -> Mat at an offset)."""
    cases = []
    R, C = 32, 64
    pool = {dt: conversion_pool(rng, dt, R * C).reshape(R, C) for dt in ("f32", MOVE_HALF, "i8", "i32")}
    movs = [(Spec("dst", "f32", R, C, "col_major"), Spec("src", "f32", R, C)),
            (Spec("dst", MOVE_HALF, R, C), Spec("src", MOVE_HALF, R, C)),
            (_box("dst", MOVE_HALF, R, C, "nz", loc="left"), _box("src", MOVE_HALF, R, C, "nz", loc="mat")),
            (_box("dst", MOVE_HALF, R, C, "zn", loc="right"), _box("src", MOVE_HALF, R, C, "zn", loc="mat")),
            (_box("dst", "i8", R, C, "nz", loc="left"), _box("src", "i8", R, C, "nz", loc="mat")),
            (Spec("dst", "f32", R, C), _box("src", "f32", R, C, "acc", loc="acc")),
            (Spec("dst", MOVE_HALF, R, C), _box("src", "f32", R, C, "acc", loc="acc")),
            (_box("dst", MOVE_HALF, R, C, "nz", loc="mat"), _box("src", "f32", R, C, "acc", loc="acc"))]
    for dst, src in movs:
        for v in ((R, C), (29, 48)):
            cases.append(Case("tmov", "TMOV(dst, src);", (dst, src), {"dst": v, "src": v},
                              {"dst": _sentinel(dst.dtype, (R, C)), "src": pool[src.dtype]}))
    for dst, src in movs[2:4] + movs[5:7]:
        small = Spec(dst.role, dst.dtype, 16, 32, dst.blayout, dst.slayout, loc=dst.loc, fractal=dst.fractal)
        for r0, c0 in ((0, 0), (16, 32), (8, 16)):
            cases.append(Case("textract", "TEXTRACT(dst, src, (uint16_t)P[0], (uint16_t)P[1]);", (small, src),
                              {"dst": (16, 32), "src": (R, C)},
                              {"dst": _sentinel(dst.dtype, (16, 32)), "src": pool[src.dtype]}, (r0, c0),
                              {"index_row": r0, "index_col": c0}))
    for dst, src in ((_box("dst", MOVE_HALF, R, C, "nz", loc="mat"), Spec("src", MOVE_HALF, 16, 32)),
                     (_box("dst", MOVE_HALF, R, C, "nz", loc="mat"), _box("src", "f32", 16, 32, "acc", loc="acc"))):
        for r0, c0 in ((0, 0), (16, 32), (8, 16)):
            cases.append(Case("tinsert", "TINSERT(dst, src, (uint16_t)P[0], (uint16_t)P[1]);", (dst, src),
                              {"dst": (R, C), "src": (16, 32)},
                              {"dst": pool[MOVE_HALF], "src": pool[src.dtype][:16, :32].copy()}, (r0, c0),
                              {"index_row": r0, "index_col": c0}))
    return cases


# ---- fixpipe vector-quant moves and MX matmul (TEXTRACT_FP, TINSERT_FP, TMATMUL_MX)
#: (acc dtype, destination dtype) of the _FP forms: the six vector-quant modes of pto-isa
#: include/pto/cpu/common.hpp (``GetVectorPreQuantMode``), then pairs with no vector mode (plain casts there)
FP_PAIRS = (("f32", "i8"), ("f32", "u8"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"), ("i32", "i16"),
            ("f32", "f32"), ("f32", "f16"), ("i32", "i32"), ("i32", "f32"), ("f32", "i32"), ("f32", "i16"))


def quant_word_pool(rng, n: int) -> np.ndarray:
    """n vector-quant words (u64): the 19-bit scale at bits 13..31 (sign, 8-bit exponent, 10-bit mantissa) with
    exponents near 127 and at 0, 1, 254, 255; the 9-bit offset at 37..45; the sign bit 46; the shift at 32..35;
    random bits elsewhere (which the op must ignore)."""
    exp = np.where(rng.random(n) < 0.8, rng.integers(118, 136, n), rng.choice([0, 1, 254, 255], n))
    man = np.where(rng.random(n) < 0.5, 0, rng.integers(0, 1024, n))
    at = np.arange(0, n, 5)[:, None] + [0, 1, 2]  # every window of columns meets: 1.0, the zero scale, Inf
    man[at], exp[at] = 0, [127, 0, 255]
    m1 = (rng.integers(0, 2, n) << 18) | (exp << 10) | man
    m1[at[:, :2]] &= (1 << 18) - 1
    noise = rng.integers(0, 1 << 63, n, dtype=np.uint64) & np.uint64(~((0x7FFFF << 13) | (0x7FFF << 32)) & (2**64 - 1))
    fields = (m1.astype(np.uint64) << np.uint64(13)) | (rng.integers(0, 16, n).astype(np.uint64) << np.uint64(32)) \
        | (np.where(rng.random(n) < 0.5, 0, rng.integers(0, 512, n)).astype(np.uint64) << np.uint64(37)) \
        | (rng.integers(0, 2, n).astype(np.uint64) << np.uint64(46))
    return fields | noise


def _fp_source(rng, dt: str, n: int) -> np.ndarray:
    """Accumulator lanes: f32 specials, ties and range edges; i32 edges, small values and random codes."""
    if dt == "f32":
        return conversion_pool(rng, dt, n)
    small = lanes(dt, rng.integers(-300, 300, n))
    return np.where(rng.random(n) < 0.5, small, conversion_pool(rng, dt, n)).astype(small.dtype)


def fp_move_cases(rng) -> list[Case]:
    """TEXTRACT_FP (Acc -> Vec, Acc -> Mat Nz, a window at an offset) and TINSERT_FP (Acc -> Mat Nz / Vec at an
    offset) with a Scaling tile of u64 quant words, each dtype pair, with and without ReLU."""
    cases = []
    R, C, r, c = 32, 64, 16, 32
    for sdt, ddt in FP_PAIRS:
        src_big = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = quant_word_pool(rng, C)
        fp = Spec("fp", "u64", 1, C, loc="scaling")
        for relu in (0, 1):
            tmpl = ("{op}<T_dst, T_src, T_fp, ReluPreMode::" + ("NormalRelu" if relu else "NoRelu")
                    + ">(dst, src, fp, (uint16_t)P[0], (uint16_t)P[1]);")
            acc = _box("src", sdt, R, C, "acc", loc="acc")
            for dst, (r0, c0), v in ((Spec("dst", ddt, r, c), (3, 5), (13, 29)),
                                     (_box("dst", ddt, r, c, "nz", loc="mat"), (15, 16), (16, 32))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                cases.append(Case("textract_fp", tmpl.format(op="TEXTRACT_FP"), (dst, acc, fp),
                                  {"dst": v, "src": (R - 1, C - 3), "fp": (1, C)},
                                  {"dst": _sentinel(ddt, (r, c)), "src": src_big, "fp": words[None, :]}, (r0, c0),
                                  {"index_row": r0, "index_col": c0, "relu_pre_mode": bool(relu)}))
            small = _box("src", sdt, r, c, "acc", loc="acc")
            for dst, (r0, c0), v in ((_box("dst", ddt, R, C, "nz", loc="mat"), (16, 32), (16, 32)),
                                     (Spec("dst", ddt, R, C), (3, 30), (13, 29))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                cases.append(Case("tinsert_fp", tmpl.format(op="TINSERT_FP"), (dst, small, fp),
                                  {"dst": (R, C), "src": v, "fp": (1, c)},
                                  {"dst": _sentinel(ddt, (R, C)), "src": src_big[:r, :c].copy(),
                                   "fp": words[None, :]}, (r0, c0),
                                  {"index_row": r0, "index_col": c0, "relu_pre_mode": bool(relu)}))
    # fp tiles of other dtypes: the simulator converts each element to uint64 by value (i64 and u32 as bits;
    # f32 holding the scale field only, whole numbers below 2**32, exact in float)
    for sdt, ddt in (("f32", "u8"), ("i32", "f16")):
        src_big = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = quant_word_pool(rng, C)
        for fdt in ("i64", "u32", "f32"):
            if fdt == "i64":
                fwords = words.view(np.uint64)
            elif fdt == "u32":
                fwords = (words & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            else:
                fwords = lanes("f32", (words & np.uint64(0xFFFFE000)).astype(np.float64))
            fp = Spec("fp", fdt, 1, C, loc="scaling")
            call = "TEXTRACT_FP<T_dst, T_src, T_fp, ReluPreMode::NoRelu>(dst, src, fp, (uint16_t)P[0], (uint16_t)P[1]);"
            cases.append(Case("textract_fp", call, (Spec("dst", ddt, r, c), _box("src", sdt, R, C, "acc", loc="acc"),
                                                    fp),
                              {"dst": (13, 29), "src": (R - 1, C - 3), "fp": (1, C)},
                              {"dst": _sentinel(ddt, (r, c)), "src": src_big, "fp": fwords[None, :]}, (3, 5),
                              {"index_row": 3, "index_col": 5, "relu_pre_mode": False}))
    return cases


#: MX element formats the simulator's TMATMUL_MX takes: the fp8 pairs and fp4 E2M1 (its E1M2 has bias 1 there,
#: a format tilesim lacks: PTO76)
MX_PAIRS = (("f8e4m3", "f8e4m3"), ("f8e4m3", "f8e5m2"), ("f8e5m2", "f8e4m3"), ("f8e5m2", "f8e5m2"),
            ("f4e2m1", "f4e2m1"))
FP4_TYPES = ("f4e2m1", "f4e1m2")


def _mx_elements(rng, dt: str, shape, kind: int) -> np.ndarray:
    """fp8 codes: small values (sums that cancel and tie), every code, or extremes (NaN/Inf codes, max, subnormals)."""
    n = int(np.prod(shape))
    if dt in FP4_TYPES:  # small magnitudes, every code, or the extremes +-6 and +-0.5 mixed in
        codes = rng.integers(0, 16, n) if kind == 1 else rng.choice([1, 2, 3, 9, 10, 11], n)
        if kind == 2:
            codes = np.where(rng.random(n) < 0.4, rng.choice([0x7, 0xF, 0x8, 0x1, 0x0], n), codes)
        return codes.astype(np.uint8).reshape(shape)
    codes = rng.integers(0, 256, n).astype(np.uint8)
    if kind == 0:  # exponents near the bias: small magnitudes whose sums cancel
        bias = 7 if dt == "f8e4m3" else 15
        mbits = 3 if dt == "f8e4m3" else 2
        e = rng.integers(bias - 2, bias + 3, n)
        codes = ((rng.integers(0, 2, n) << 7) | (e << mbits) | rng.integers(0, 1 << mbits, n)).astype(np.uint8)
    elif kind == 2:  # extremes
        ext = [0x7F, 0xFF, 0x7E, 0xFE, 0x00, 0x80, 0x01, 0x81, 0x7C, 0xFC, 0x7B, 0x03]
        codes = np.where(rng.random(n) < 0.4, rng.choice(ext, n), codes).astype(np.uint8)
    return codes.reshape(shape)


def _mx_scales(rng, shape, kind: int) -> np.ndarray:
    """E8M0 codes: near 127, or the extremes 0x00 (2**-127), 0xFF, 0xFE, 0x01 mixed in."""
    s = rng.integers(120, 135, shape).astype(np.uint8)
    if kind == 2:
        s = np.where(rng.random(shape) < 0.5, rng.choice([0x00, 0xFF, 0xFE, 0x01, 0x7F], shape), s).astype(np.uint8)
    elif kind == 1:
        s = rng.integers(0, 256, shape).astype(np.uint8)
    return s


def _mx_overload_cases(rng, pairs) -> list[Case]:
    """TMATMUL_MX, _ACC and _BIAS cases for each (a, b) element pair with E8M0 scales, four valid shapes."""
    cases = []
    M, K, N = 16, 128, 16
    G = K // 32
    for at, bt in pairs:
        left = Spec("a", at, M, K, "col_major", "row_major", loc="left")
        right = Spec("b", bt, K, N, "row_major", "col_major", loc="right")
        acc = _box("dst", "f32", M, N, "acc", loc="acc")
        sa = Spec("a_scale", "f8e8m0", M, G, "row_major", "row_major", loc="scaling", fractal=32, cxx_loc="ScaleLeft")
        sb = Spec("b_scale", "f8e8m0", G, N, "col_major", "col_major", loc="scaling", fractal=32,
                  cxx_loc="ScaleRight")
        for kind, (vm, vk, vn) in enumerate(((13, 93, 11), (16, 128, 16), (9, 64, 5), (1, 1, 1))):
            kind = min(kind, 2)
            a, b = _mx_elements(rng, at, (M, K), kind), _mx_elements(rng, bt, (K, N), kind)
            s0, s1 = _mx_scales(rng, (M, G), kind), _mx_scales(rng, (G, N), kind)
            gv = -(-vk // 32)
            valid = {"dst": (vm, vn), "a": (vm, vk), "a_scale": (vm, gv), "b": (vk, vn), "b_scale": (gv, vn)}
            data = {"dst": _sentinel("f32", (M, N)), "a": a, "a_scale": s0, "b": b, "b_scale": s1}
            cases.append(Case("tmatmul_mx", "TMATMUL_MX(dst, a, a_scale, b, b_scale);", (sa, sb, acc, left, right),
                              valid, data))
            c_in = _box("c_in", "f32", M, N, "acc", loc="acc")
            cin = lanes("f32", rng.standard_normal(M * N) * 64).reshape(M, N)
            if kind == 2:
                cin[0, :4] = lanes("f32", [np.nan, np.inf, -np.inf, -0.0])
            cases.append(Case("tmatmul_mx_acc", "TMATMUL_MX(dst, c_in, a, a_scale, b, b_scale);",
                              (sa, sb, acc, c_in, left, right), dict(valid, c_in=(vm, vn)), dict(data, c_in=cin)))
            bias = Spec("bias", "f32", 1, N, loc="bias")
            cases.append(Case("tmatmul_mx_bias", "TMATMUL_MX(dst, a, a_scale, b, b_scale, bias);",
                              (sa, sb, acc, left, right, bias), dict(valid, bias=(1, vn)),
                              dict(data, bias=cin[:1].copy())))
    return cases


def matmul_mx_cases(rng) -> list[Case]:
    """TMATMUL_MX in its three overloads (plain, with c_in, with a bias row): every fp8 pair, E8M0 scale tiles
    (ScaleLeft Zz and ScaleRight Nn boxes of 32 bytes), odd valid M, K, N; small codes, every code, extremes.
    The scale tiles come first: the driver places tiles one after another, and the simulator's scale
    regions (L0A_MX, L0B_MX) hold only 4 KB."""
    M, K, N = 16, 128, 16
    G = K // 32
    cases = _mx_overload_cases(rng, MX_PAIRS)
    for sdt in ("f16", "f32"):  # float scales: their product is rounded to the scale type, and may overflow
        at, bt = MX_PAIRS[1]
        left = Spec("a", at, M, K, "col_major", "row_major", loc="left")
        right = Spec("b", bt, K, N, "row_major", "col_major", loc="right")
        acc = _box("dst", "f32", M, N, "acc", loc="acc")
        sa = Spec("a_scale", sdt, M, G, "row_major", "row_major", loc="scaling", fractal=32, cxx_loc="ScaleLeft")
        sb = Spec("b_scale", sdt, G, N, "col_major", "col_major", loc="scaling", fractal=32,
                  cxx_loc="ScaleRight")
        for kind, (vm, vk, vn) in ((0, (13, 93, 11)), (2, (16, 128, 16))):
            sc = [0.5, 1.5, 3.0, 0.1, -2.5, 300.0, 1000.0, 6e-5, 65504.0, 1 / 3]
            s0, s1 = (lanes(sdt, rng.choice(sc, shape) * (rng.standard_normal(shape) if sdt == "f32" else 1))
                      for shape in ((M, G), (G, N)))
            gv = -(-vk // 32)
            cases.append(Case("tmatmul_mx", "TMATMUL_MX(dst, a, a_scale, b, b_scale);", (sa, sb, acc, left, right),
                              {"dst": (vm, vn), "a": (vm, vk), "a_scale": (vm, gv), "b": (vk, vn), "b_scale": (gv, vn)},
                              {"dst": _sentinel("f32", (M, N)), "a": _mx_elements(rng, at, (M, K), kind),
                               "a_scale": s0, "b": _mx_elements(rng, bt, (K, N), kind), "b_scale": s1}))
    return cases


# ---- scalar pre-quant forms (TMOV, TEXTRACT, TINSERT with a 64-bit quant word)
#: (acc dtype, destination dtype): the scalar-quant modes of pto-isa include/pto/cpu/common.hpp
#: (``GetScalarPreQuantMode``; bf16 left out, PTO88), then pairs with none (plain casts there)
SCALAR_QUANT_PAIRS = (("f32", "i8"), ("f32", "u8"), ("f32", "f16"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"),
                      ("i32", "i16"), ("f32", "f32"), ("i32", "i32"), ("i32", "f32"), ("f32", "i32"))
#: the 64-bit scalar from two int32 params (low word first)
_SCALAR_WORD = "((uint64_t)(uint32_t)P[1] << 32 | (uint32_t)P[0])"


def scalar_word_pool(rng, n: int) -> np.ndarray:
    """n scalar quant words (u64): an f32 scale in bits 0..31 (1.0, 0.5, +-0, +-Inf, NaN, a subnormal, odd
    values), the shift at 32..35, the 9-bit offset at 37..45, the sign bit 46, random bits elsewhere."""
    scales = lanes("f32", [1.0, 0.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 1 / 3, -2.0, 255.5, 1e30, 0.0625,
                           -0.75, 3.0, 65504.0])
    low = rng.choice(scales, n).astype(np.uint64)
    fields = low | (rng.integers(0, 16, n).astype(np.uint64) << np.uint64(32)) \
        | (np.where(rng.random(n) < 0.5, 0, rng.integers(0, 512, n)).astype(np.uint64) << np.uint64(37)) \
        | (rng.integers(0, 2, n).astype(np.uint64) << np.uint64(46))
    noise = rng.integers(0, 1 << 63, n, dtype=np.uint64) & np.uint64(~(0x7FFF << 32) & (2**64 - 1) & ~0xFFFFFFFF)
    return fields | noise


def _word_params(w) -> tuple[int, int]:
    lo, hi = int(w) & 0xFFFFFFFF, int(w) >> 32
    return tuple(int(np.uint32(x).view(np.int32)) for x in (lo, hi))


def scalar_quant_cases(rng) -> list[Case]:
    """TMOV, TEXTRACT and TINSERT with a pre-quant scalar, each dtype pair, with and without ReLU. The
    simulator's TMOV ignores the scalar; TEXTRACT/TINSERT quantise with it. Windows keep the columns within
    the quant vector the simulator fills (dst's valid columns from index_col 0; src's valid rows)."""
    cases = []
    R, C, r, c = 32, 64, 16, 32
    for sdt, ddt in SCALAR_QUANT_PAIRS:
        src_big = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = scalar_word_pool(rng, 10)
        for relu in (0, 1):
            mode = "NormalRelu" if relu else "NoRelu"
            acc = _box("src", sdt, R, C, "acc", loc="acc")
            call = f"TMOV<T_dst, T_src, ReluPreMode::{mode}>(dst, src, {_SCALAR_WORD});"
            w = words[relu]
            cases.append(Case("tmov", call, (Spec("dst", ddt, R, C), acc), {"dst": (29, 61), "src": (29, 61)},
                              {"dst": _sentinel(ddt, (R, C)), "src": src_big}, _word_params(w),
                              {"pre_quant_scalar": int(w), "relu_pre_mode": bool(relu)}))
            tmpl = ("{op}<T_dst, T_src, ReluPreMode::" + mode + ">(dst, src, " + _SCALAR_WORD
                    + ", (uint16_t)P[2], (uint16_t)P[3]);")
            for k, (dst, (r0, c0), v) in enumerate(((Spec("dst", ddt, r, c), (3, 0), (13, 29)),
                                                    (_box("dst", ddt, r, c, "nz", loc="mat"), (15, 0), (16, 32)))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                w = words[2 + 2 * relu + k]
                cases.append(Case("textract", tmpl.format(op="TEXTRACT"), (dst, acc),
                                  {"dst": v, "src": (R - 1, C - 3)},
                                  {"dst": _sentinel(ddt, (r, c)), "src": src_big}, _word_params(w) + (r0, c0),
                                  {"index_row": r0, "index_col": c0, "pre_quant_scalar": int(w),
                                   "relu_pre_mode": bool(relu)}))
            small = _box("src", sdt, R, R, "acc", loc="acc")
            for k, (dst, (r0, c0), v) in enumerate(((_box("dst", ddt, R, C, "nz", loc="mat"), (0, 32), (32, 32)),
                                                    (Spec("dst", ddt, R, C), (3, 30), (29, 27)))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                w = words[6 + 2 * relu + k]
                cases.append(Case("tinsert", tmpl.format(op="TINSERT"), (dst, small),
                                  {"dst": (R, C), "src": v},
                                  {"dst": _sentinel(ddt, (R, C)), "src": src_big[:R, :R].copy()},
                                  _word_params(w) + (r0, c0),
                                  {"index_row": r0, "index_col": c0, "pre_quant_scalar": int(w),
                                   "relu_pre_mode": bool(relu)}))
    return cases


#: the simulator's fp4 pairs with its E1M2 (bias 1; tilesim dtype ``f4e1m2``, PTO48)
MX_E1M2_PAIRS = (("f4e1m2", "f4e1m2"), ("f4e1m2", "f4e2m1"), ("f4e2m1", "f4e1m2"))


def matmul_mx_e1m2_cases(rng) -> list[Case]:
    """TMATMUL_MX, _ACC and _BIAS with E1M2 operands (with E1M2 or E2M1), as the E2M1 pair is covered."""
    return _mx_overload_cases(rng, MX_E1M2_PAIRS)


def random_histogram_cases(rng) -> list[Case]:
    """TRANDOM (Philox 4x32, 7 and 10 rounds, keys and counters from the params, odd valid widths) and
    THISTOGRAM (every byte of u16/u32 sources, idx filters that match and that do not)."""
    cases = []
    for dt in ("u32", "i32"):
        for rounds in (7, 10):
            call = (f"TRandomKey key = {{(uint32_t)P[0], (uint32_t)P[1]}}; TRandomCounter ctr = {{(uint32_t)P[2], "
                    f"(uint32_t)P[3], (uint32_t)P[4], (uint32_t)P[5]}}; TRANDOM<{rounds}>(dst, key, ctr);")
            for k, valid in enumerate(((16, 32), (5, 13), (1, 4))):
                words = [int(w) for w in rng.integers(0, 1 << 32, 6, dtype=np.uint64)]
                if k == 2:
                    words[2:] = [0xFFFFFFFF] * 4  # counter carries
                cases.append(Case("trandom", call, (Spec("dst", dt, 16, 32),), {"dst": valid},
                                  {"dst": _sentinel(dt, (16, 32))},
                                  tuple(int(np.uint32(w).view(np.int32)) for w in words),
                                  {"key0": words[0], "key1": words[1], "counter0": words[2], "counter1": words[3],
                                   "counter2": words[4], "counter3": words[5], "rounds": rounds}))
    for sdt, nbytes in (("u16", 2), ("u32", 4)):
        for byte in range(nbytes):
            src = rng.integers(0, 1 << 16, (8, 64)).astype(np.uint64)
            src = (src | (src << 16)).astype(get_dtype(sdt).np).view(get_dtype(sdt).lane) if sdt == "u32" else \
                src.astype(np.uint16)
            src[:, :20] &= get_dtype(sdt).lane.type(0xFF0F)  # some rows share high bytes with idx
            idx = np.zeros((8, 32), np.uint8)
            idx[:, 0] = rng.integers(0, 256, 8)
            idx[::2, 0] = (src[::2, 0] >> (8 * (nbytes - 1))).astype(np.uint8)
            idx[:, 1] = (src[:, 0] >> 8).astype(np.uint8) if nbytes == 4 else 0
            call = f"THISTOGRAM<HistByte::BYTE_{byte}>(dst, src, idx);"
            specs = (Spec("dst", "u32", 8, 256), Spec("src", sdt, 8, 64), Spec("idx", "u8", 8, 32))
            cases.append(Case("thistogram", call, specs, {"dst": (7, 256), "src": (7, 61), "idx": (7, 32)},
                              {"dst": _sentinel("u32", (8, 256)), "src": src, "idx": idx}, (), {"byte": byte}))
    return cases


def quant_cases(rng) -> list[Case]:
    """TQUANT INT8_SYM (f32 -> i8) and INT8_ASYM (f32 -> u8 with a zero point): ties, range edges, NaN, +-Inf;
    the scale and zero point are one value per row."""
    cases = []
    R, C = 16, 32
    x = lanes("f32", np.concatenate([[np.nan, np.inf, -np.inf, 127.5, -128.5, 255.5, -0.5, 0.5, 1e30, -1e30,
                                      126.5, 2.5, -2.5, 0.0, -0.0, 3.5], rng.integers(-600, 600, R * C - 16) / 4.0]
                                    )).reshape(R, C)
    scale = lanes("f32", np.where(rng.random(R * 8) < 0.5, 1.0, rng.choice([0.5, 2.0, 0.1, 3.0], R * 8))).reshape(R, 8)
    zero = lanes("f32", rng.integers(-10, 140, R * 8).astype(np.float64)).reshape(R, 8)
    for qt, ddt in (("INT8_SYM", "i8"), ("INT8_ASYM", "u8")):
        specs = [Spec("dst", ddt, R, C), Spec("src", "f32", R, C), Spec("fp", "f32", R, 8)]
        data = {"dst": _sentinel(ddt, (R, C)), "src": x, "fp": scale}
        valid = {"dst": (15, 29), "src": (15, 29), "fp": (R, 1)}
        call = f"TQUANT<QuantType::{qt}>(dst, src, fp);"
        if qt == "INT8_ASYM":
            specs.append(Spec("offset", "f32", R, 8))
            data["offset"], valid["offset"] = zero, (R, 1)
            call = f"TQUANT<QuantType::{qt}>(dst, src, fp, &offset);"
        cases.append(Case("tquant", call, tuple(specs), valid, data, (), {"quant_type": qt}))
    return cases


# ------------------------------------------------ newcov: generators, TDEQUANT, TMRGSORT, layouts
#: TCI's dtypes on the simulator (no dtype check; bf16 left out, PTO88); TTRI's (its static_assert)
TCI_DTS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32")
TTRI_DTS = ("i32", "i16", "u32", "u16", "f16", "f32")


def _tci_starts(dt: str) -> list[tuple[int, int]]:
    """(start code, descending) pairs: small, negative and range-edge starts, and starts that wrap (defined in
    C++ for types narrower than int and unsigned ones; for i32/i64 signed overflow, undefined, which tilesim
    marks, PTO71)."""
    d = get_dtype(dt)
    if dt in FLOATS:
        sp = _F_SPECIAL[dt]
        vals = [0.0, 1.5, -3.25, 100.0, 2040.0, 65472.0, 16777200.0, 1e30]
        codes = [int(c) for c in lanes(dt, vals)] + [sp[1], sp[2], sp[3], sp[6], sp[9]]
        return [(c, k % 2) for k, c in enumerate(codes)] + [(sp[1], 1), (int(lanes(dt, [65472.0])[0]), 0)]
    lo, hi = d.format.int_min, d.format.int_max
    vals = [(0, 0), (7, 1), (hi - 70, 0), (lo + 70, 1), (-5 if lo else 5, 0), (hi - 3, 0), (lo + 3, 1), (hi, 0),
            (lo, 1)]
    return [(int(lanes(dt, [v])[0]), desc) for v, desc in vals]


def generator_cases(rng) -> list[Case]:
    """TCI (every dtype, ascending and descending, starts that wrap, +-0, +-Inf, NaN, f16 rounding; odd valid
    widths) and TTRI (lower and upper, diagonals on and off the tile, 1-row, 1-column and empty valid shapes)."""
    cases = []
    for dt in TCI_DTS:
        C = 64
        for k, (code, desc) in enumerate(_tci_starts(dt)):
            call = _SCALAR_DECL + f"TCI<T_dst, typename T_dst::DType, {desc}>(dst, sc);"
            cases.append(Case("tci", call, (Spec("dst", dt, 1, C),), {"dst": (1, (C, 37, 1, 0, 61)[k % 5])},
                              {"dst": _sentinel(dt, (1, C))}, (0,) + _scalar_params(dt, code),
                              {"scalar": code, "descending": desc}))
    R, C = 16, 32
    shapes = ((13, 29), (16, 32), (1, 1), (16, 1), (1, 32), (0, 7))
    for dt in TTRI_DTS:
        for upper in (0, 1):
            for k, diag in enumerate((-40, -3, 0, 1, 5, 40)):
                cases.append(Case("ttri", f"TTRI<T_dst, {upper}>(dst, P[0]);", (Spec("dst", dt, R, C),),
                                  {"dst": shapes[(k + upper) % len(shapes)]}, {"dst": _sentinel(dt, (R, C))},
                                  (diag,), {"diagonal": diag, "upper_or_lower": upper}))
    return cases


#: (src, dst) dtypes tried for TDEQUANT (the CPU loop casts through dst's type; the compiler says the rest)
DEQUANT_PAIRS = (("i8", "f32"), ("i16", "f32"), ("i32", "f32"), ("u8", "f32"), ("i16", "f16"), ("f16", "f32"),
                 ("u16", "f32"), ("u32", "f32"), ("f32", "f32"), ("i8", "f16"), ("u8", "f16"), ("u16", "f16"),
                 ("f16", "f16"), ("i32", "f16"), ("u32", "f16"), ("f32", "f16"), ("i64", "f32"), ("u64", "f32"),
                 ("i64", "f16"), ("i16", "i16"), ("i8", "i16"), ("u8", "u8"), ("i32", "u32"), ("i16", "i8"),
                 ("u16", "u32"))


def dequant_cases(rng) -> list[Case]:
    """TDEQUANT ``(src - offset) * scale`` with per-row parameters of one or several valid columns (the CPU loop
    reads column ``min(c, P - 1)``); scales and offsets with +-0, +-Inf, NaN, subnormals, range edges."""
    cases = []
    R, C = 16, 32
    for sdt, ddt in DEQUANT_PAIRS:
        src = conversion_pool(rng, sdt, R * C).reshape(R, C)
        pc = _aligned_cols(ddt, 5)
        if ddt in FLOATS:
            scale = lanes(ddt, rng.choice([1.0, 0.5, -2.0, 0.1, 3e-3, 1e30], R * pc)).reshape(R, pc)
            offset = lanes(ddt, rng.integers(-130, 130, R * pc).astype(np.float64)).reshape(R, pc)
            sp = _F_SPECIAL[ddt]
            scale[1, :3], scale[2, 0], scale[3, 0] = sp[6], sp[2], sp[1]
            offset[4, :2], offset[5, 0] = [sp[4], sp[3]], sp[9]
        else:  # integer dst: the whole expression in integers, wrapping on the store
            scale, offset = (conversion_pool(rng, ddt, R * pc).reshape(R, pc) for _ in range(2))
        specs = (Spec("dst", ddt, R, C), Spec("src", sdt, R, C), Spec("scale", ddt, R, pc), Spec("offset", ddt, R, pc))
        for (vr, vc), pcols in (((15, 29), 1), ((16, 32), 5), ((1, 1), 1), ((16, 7), 3), ((3, 0), 1)):
            cases.append(Case("tdequant", "TDEQUANT(dst, src, scale, offset);", specs,
                              {"dst": (vr, vc), "src": (vr, vc), "scale": (vr, pcols), "offset": (vr, pcols)},
                              {"dst": _sentinel(ddt, (R, C)), "src": src, "scale": scale, "offset": offset}))
    return cases


def _records(rng, dt: str, n: int, kind: int) -> np.ndarray:
    """n 8-byte (value, index) records as lanes, values descending: small integers with ties (kind 0), with
    +-Inf, +-0 and a NaN (kind 1), or random values (kind 2); the index lanes are random."""
    k = 8 // get_dtype(dt).size
    if dt not in FLOATS:  # integer records: ties, range ends, random values, descending
        d = get_dtype(dt)
        pool = lanes(dt, [d.format.int_max, d.format.int_min, 0, 1, -1 if d.format.int_min else 2, 5, 5])
        vals = np.concatenate([pool, rand_lanes(rng, dt, n)])[:n] if kind else rand_lanes(rng, dt, n)
        order = np.argsort(vals.view(d.np), kind="stable")[::-1]
        rec = rand_lanes(rng, dt, (n, k))
        rec[:, 0] = vals[order]
        return rec.reshape(-1)
    if kind == 0:
        v = np.sort(rng.integers(-3, 4, n).astype(np.float64))[::-1]
    elif kind == 1:
        v = np.sort(rng.choice([np.inf, 2.5, 1.0, 0.0, -1.0, -np.inf], n))[::-1]
    else:
        v = np.sort(rng.standard_normal(n) * 100)[::-1]
    vals = lanes(dt, v)
    if kind == 1 and n > 2:
        zeros = np.flatnonzero(v == 0)
        vals[zeros[::2]] = _F_SPECIAL[dt][1]              # -0 and +0 tie
        vals[n // 2] = _F_SPECIAL[dt][6]                  # a NaN inside the list
    rec = rand_lanes(rng, dt, (n, k))
    rec[:, 0] = vals
    return rec.reshape(-1)


def mrgsort_cases(rng) -> list[Case]:
    """TMRGSORT: 2, 3 and 4 lists (f32, f16) with ties across lists, NaN heads, empty and truncated lists, a
    dst shorter than the input, with and without ``exhausted`` (the counts go to ``dst_ex``); the block form
    over one and two groups of four blocks."""
    cases = []
    for dt in FLOATS:
        k = 8 // get_dtype(dt).size
        C = 16 * k
        plans = [((5, 16), 0), ((16, 16), 1), ((0, 7), 2), ((3, 9, 4), 0), ((16, 1, 2), 1), ((6, 6, 6, 6), 0),
                 ((2, 16, 0, 11), 1), ((9, 4, 13, 1), 2)]
        for lens, kind in plans:
            n = len(lens)
            srcs = [_records(rng, dt, C // k, kind).reshape(1, C) for _ in range(n)]
            if kind == 0 and n > 2:
                srcs[2][0, 0] = _F_SPECIAL[dt][6]         # a NaN head in a later list never wins
            if kind == 1:
                srcs[0][0, 0] = _F_SPECIAL[dt][4]         # a NaN head in list 0 wins at once
            total = sum(lens) * k
            for exh in (0, 1):
                room = total if exh else max(total - 3 * k, 0)
                specs = (Spec("dst", dt, 1, 4 * C), Spec("dst_ex", "u16", 1, 16), Spec("tmp", dt, 1, 4 * C),
                         *[Spec(f"src{i}", dt, 1, C) for i in range(n)])
                roles = ", ".join(f"src{i}" for i in range(n))
                types = ", ".join(f"T_src{i}" for i in range(n))
                call = (f"MrgSortExecutedNumList ex{{}}; TMRGSORT<T_dst, T_tmp, {types}, {str(bool(exh)).lower()}>"
                        f"(dst, ex, tmp, {roles}); uint16_t e4[4] = {{ex.mrgSortList0, ex.mrgSortList1, "
                        "ex.mrgSortList2, ex.mrgSortList3}; std::memcpy(dst_ex.data(), e4, sizeof e4);")
                valid = {"dst": (1, room + (exh and k > 1)), "dst_ex": (1, 16), "tmp": (1, 4 * C),
                         **{f"src{i}": (1, ln * k + (i == 1 and k > 1 and ln < 16)) for i, ln in enumerate(lens)}}
                data = {"dst": _sentinel(dt, (1, 4 * C)), "dst_ex": _sentinel("u16", (1, 16)),
                        "tmp": _scratch(dt, 1, 4 * C), **{f"src{i}": s for i, s in enumerate(srcs)}}
                cases.append(Case("tmrgsort", call, specs, valid, data, (), {"exhausted": bool(exh)}))
        for groups, kind in ((1, 0), (2, 1), (1, 2)):
            W = 256 * groups
            blocks = [_records(rng, dt, 64 // k, (kind + b) % 3) for b in range(4 * groups)]
            src = np.concatenate(blocks).reshape(1, W)
            specs = (Spec("dst", dt, 1, W + 64), Spec("src", dt, 1, W))
            cases.append(Case("tmrgsort", "TMRGSORT(dst, src, (uint32_t)P[0]);", specs,
                              {"dst": (1, W), "src": (1, W)}, {"dst": _sentinel(dt, (1, W + 64)), "src": src},
                              (64,), {"block_len": 64}))
        # what only the simulator takes: other block lengths, dst's valid width deciding the groups, src's
        # valid width ignored, a block_len of no whole records (nothing written)
        for blen, dv, sv in ((32, 256, 256), (16, 200, 64), (48, 192, 192), (2 * k + 2, 256, 100), (k + 1, 256, 256)):
            n = max(blen // k, 1)
            src = np.concatenate([_records(rng, dt, n, b % 3) for b in range(-(-256 // (n * k)))])[:256]
            specs = (Spec("dst", dt, 1, 256), Spec("src", dt, 1, 256))
            cases.append(Case("tmrgsort", "TMRGSORT(dst, src, (uint32_t)P[0]);", specs,
                              {"dst": (1, dv), "src": (1, sv)}, {"dst": _sentinel(dt, (1, 256)),
                                                               "src": src.reshape(1, 256)}, (blen,),
                              {"block_len": blen}))
    for dt in ("i32", "u16", "i8", "i64", "u32"):  # integer records: only the simulator takes them (PTO71)
        k = 8 // get_dtype(dt).size
        C = _aligned_cols(dt, 16 * k)
        for lens, kind in (((5, 16), 1), ((3, 9, 4), 0), ((6, 6, 6, 6), 1)):
            n = len(lens)
            srcs = [_records(rng, dt, C // k, kind).reshape(1, C) for _ in range(n)]
            total = sum(lens) * k
            specs = (Spec("dst", dt, 1, 4 * C), Spec("dst_ex", "u16", 1, 16), Spec("tmp", dt, 1, 4 * C),
                     *[Spec(f"src{i}", dt, 1, C) for i in range(n)])
            call = (f"MrgSortExecutedNumList ex{{}}; TMRGSORT<T_dst, T_tmp, {', '.join(f'T_src{i}' for i in range(n))}, "
                    f"false>(dst, ex, tmp, {', '.join(f'src{i}' for i in range(n))}); uint16_t e4[4] = "
                    "{ex.mrgSortList0, ex.mrgSortList1, ex.mrgSortList2, ex.mrgSortList3}; "
                    "std::memcpy(dst_ex.data(), e4, sizeof e4);")
            cases.append(Case("tmrgsort", call, specs,
                              {"dst": (1, total), "dst_ex": (1, 16), "tmp": (1, 4 * C),
                               **{f"src{i}": (1, ln * k) for i, ln in enumerate(lens)}},
                              {"dst": _sentinel(dt, (1, 4 * C)), "dst_ex": _sentinel("u16", (1, 16)),
                               "tmp": _scratch(dt, 1, 4 * C), **{f"src{i}": x for i, x in enumerate(srcs)}},
                              (), {"exhausted": False}))
        W = _aligned_cols(dt, 4 * 64)
        src = np.concatenate([_records(rng, dt, 64 // k, b % 2) for b in range(4)]).reshape(1, 256)
        cases.append(Case("tmrgsort", "TMRGSORT(dst, src, (uint32_t)P[0]);", (Spec("dst", dt, 1, W), Spec("src", dt, 1, W)),
                          {"dst": (1, 256), "src": (1, 256)},
                          {"dst": _sentinel(dt, (1, W)), "src": np.pad(src, ((0, 0), (0, W - 256)))}, (64,),
                          {"block_len": 64}))
    return cases


def div_overflow_cases(rng) -> list[Case]:
    """INT_MIN / -1 and INT_MIN rem -1 of i8/i16, which C++ computes in int (so they wrap on the store) in
    TDIV, TDIVS (both forms), TREM, TREMS and the expand divisions. The 32/64-bit ones trap (SIGFPE) in the
    simulator, so they have no vectors: tilesim refuses them on cpu (PTO72)."""
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    for dt in ("i8", "i16"):
        lo, m1 = (int(v) for v in lanes(dt, [get_dtype(dt).format.int_min, -1]))
        a, b = (x.reshape(R, C) for x in _pair_operands(rng, dt, R * C))
        b = _safe_divisors(dt, b)
        a[::2, ::3], b[:, 1::4] = lo, m1                 # INT_MIN over -1 in many lanes, -1 elsewhere too
        three = ("dst", "src0", "src1")
        cases.append(_tiles3("tdiv", "TDIV(dst, src0, src1);", dt, three, {"src0": a, "src1": b}, (vr, vc), R=R))
        cases.append(_tiles3("trem", "TREM(dst, src0, src1, tmp);", dt, three + ("tmp",),
                             {"src0": a, "src1": b, "tmp": _scratch(dt, R, C)}, (vr, vc), R=R))
        cases.append(_tiles3("tdivs", _SCALAR_DECL + "TDIVS(dst, src, sc);", dt, ("dst", "src"), {"src": a},
                             (vr, vc), params=(0,) + _scalar_params(dt, m1), args={"scalar": m1}, R=R))
        cases.append(_tiles3("tdivs", _SCALAR_DECL + "TDIVS(dst, sc, src);", dt, ("dst", "src"), {"src": b},
                             (vr, vc), params=(0,) + _scalar_params(dt, lo), args={"scalar": lo, "scalar_first": True},
                             R=R))
        cases.append(_tiles3("trems", _SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                             {"src": a, "tmp": _scratch(dt, R, C)}, (vr, vc), params=(0,) + _scalar_params(dt, m1),
                             args={"scalar": m1}, R=R))
        col = Spec("src1", dt, _aligned_rows(dt, R), 1, "col_major")
        cases.append(Case("trowexpanddiv", "TROWEXPANDDIV(dst, src0, src1);",
                          (Spec("dst", dt, R, C), Spec("src0", dt, R, C), col),
                          {"dst": (vr, vc), "src0": (vr, vc), "src1": (vr, 1)},
                          {"dst": _sentinel(dt, (R, C)), "src0": a,
                           "src1": np.resize(np.array([m1, 3, m1], a.dtype), (col.rows, 1))}))
        cases.append(Case("tcolexpanddiv", "TCOLEXPANDDIV(dst, src0, src1);",
                          (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, 1, C)),
                          {"dst": (vr, vc), "src0": (vr, vc), "src1": (1, vc)},
                          {"dst": _sentinel(dt, (R, C)), "src0": a, "src1": b[1:2].copy()}))
    for dt, code in (("i32", 0), ("u16", 0), ("i8", 0), ("f32", 0), ("f32", 0x80000000), ("f16", 0x8000)):
        x = conversion_pool(rng, dt, R * C).reshape(R, C)     # TREMS with tmp skips a zero scalar (PTO73)
        cases.append(_tiles3("trems", _SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                             {"src": x, "tmp": _scratch(dt, R, C)}, (vr, vc), params=(0,) + _scalar_params(dt, code),
                             args={"scalar": code}, R=R))
    return cases


#: layouts and valid shapes the first families left out: (block layout, rows, cols, valid)
_EDGE_SHAPES = (("row_major", 16, 32, (1, 29)), ("row_major", 16, 32, (13, 1)), ("row_major", 16, 32, (0, 5)),
                ("col_major", 32, 16, (29, 13)), ("col_major", 32, 16, (1, 13)), ("col_major", 32, 16, (29, 1)))


def _edge_shape(dt: str, k: int) -> tuple[str, int, int, tuple[int, int]]:
    """The k-th edge shape, its tile widened so 1-byte DN columns and ND rows stay 32-byte aligned."""
    bl, R, C, v = _EDGE_SHAPES[k % len(_EDGE_SHAPES)]
    per = 32 // get_dtype(dt).size
    return bl, max(R, per), max(C, per), v


def _valid_only(x: np.ndarray, valid: tuple[int, int]) -> np.ndarray:
    """x with the lanes outside the valid region zeroed (no op reads them; zeros keep the files small)."""
    out = np.zeros_like(x)
    out[: valid[0], : valid[1]] = x[: valid[0], : valid[1]]
    return out


def layout_cases(rng) -> list[Case]:
    """The element-wise ops on the layouts and shapes their first families left out: TADD/TSUB/TMUL/TDIV/TMAX/TMIN,
    the tile-scalar ops and TREMS, the unary ops, TREM/TADDC/TPART* on DN (col_major) tiles, a 1-row, a 1-column
    and an empty valid region, every dtype the first families tried."""
    cases = []
    for op in ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin"):
        for dt in DTS:
            for k in (0, 1, 2, 4, 5):  # binary_cases has DN tiles already, so the edge shapes only
                bl, R, C, v = _edge_shape(dt, k)
                a, b = (_valid_only(x.reshape(R, C), v) for x in _pair_operands(rng, dt, R * C))
                if op == "tdiv":
                    b = _safe_divisors(dt, b)
                cases.append(_tiles3(op, f"{op.upper()}(dst, src0, src1);", dt, ("dst", "src0", "src1"),
                                     {"src0": a, "src1": b}, v, bl, R=R, C=C))
    for op in SCALAR_OPS + ("trems",):
        for dt in DTS:
            codes = scalar_values(dt)
            for k in range(len(_EDGE_SHAPES)):
                bl, R, C, v = _edge_shape(dt, k)
                code = codes[(2 * k + 1) % len(codes)]
                x = _valid_only(unary_pool(rng, dt, R * C).reshape(R, C), v)
                if op in ("tdivs", "trems") and dt not in FLOATS and \
                        int(np.array(code, get_dtype(dt).lane).view(get_dtype(dt).np)) in (0, -1):
                    code = int(lanes(dt, [3])[0])
                if op == "trems":
                    cases.append(_tiles3(op, _SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                                         {"src": x, "tmp": _scratch(dt, R, C)}, v, bl,
                                         params=(0,) + _scalar_params(dt, code), args={"scalar": code}, R=R, C=C))
                else:
                    cases.append(_tiles3(op, _SCALAR_DECL + f"{op.upper()}(dst, src, sc);", dt, ("dst", "src"),
                                         {"src": x}, v, bl, params=(0,) + _scalar_params(dt, code),
                                         args={"scalar": code}, R=R, C=C))
    for op, dts in UNARY.items():
        for dt in dts:
            for k in range(len(_EDGE_SHAPES)):
                bl, R, C, v = _edge_shape(dt, k)
                cases.append(_tiles3(op, f"{op.upper()}(dst, src);", dt, ("dst", "src"),
                                     {"src": _valid_only(unary_pool(rng, dt, R * C).reshape(R, C), v)}, v, bl,
                                     R=R, C=C))
    for dt in DTS:
        for k in (3, 5):
            bl, R, C, v = _edge_shape(dt, k)
            a, b = (_valid_only(x.reshape(R, C), v) for x in _pair_operands(rng, dt, R * C))
            cases.append(_tiles3("trem", "TREM(dst, src0, src1, tmp);", dt, ("dst", "src0", "src1", "tmp"),
                                 {"src0": a, "src1": _safe_divisors(dt, b), "tmp": _scratch(dt, R, C)}, v, bl,
                                 R=R, C=C))
            cases.append(_tiles3("taddc", "TADDC(dst, src0, src1, src2);", dt, ("dst", "src0", "src1", "src2"),
                                 {"src0": a, "src1": b,
                                  "src2": _valid_only(conversion_pool(rng, dt, R * C).reshape(R, C), v)}, v,
                                 bl, R=R, C=C))
    for op in ("tpartadd", "tpartmul", "tpartmax", "tpartmin"):
        for dt in PART_DTS:
            bl, R, C, _ = _edge_shape(dt, 3)
            a, b = (x.reshape(R, C) for x in _pair_operands(rng, dt, R * C))
            specs = tuple(Spec(r, dt, R, C, bl) for r in ("dst", "src0", "src1"))
            cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs,
                              {"dst": (29, 13), "src0": (29, 13), "src1": (17, 13)},
                              {"dst": _sentinel(dt, (R, C)), "src0": a, "src1": b}))
    snan = (0x7C01 + np.arange(16 * 64) % 0x1FF) | (np.arange(16 * 64) % 2 << 15)  # f16 signaling NaNs, +-
    for op in ("tneg", "tabs", "trelu"):                 # where the x86 code quiets them: vector body or tail
        for bl, R, C, v in (("row_major", 16, 64, (3, 45)), ("col_major", 64, 16, (45, 3))):
            cases.append(_tiles3(op, f"{op.upper()}(dst, src);", "f16", ("dst", "src"),
                                 {"src": snan.astype(np.uint16).reshape(R, C)}, v, bl, R=R, C=C))
    for dt in FLOATS:                                    # NaN tile x NaN scalar: whose payload, body and tail
        nans = snan.astype(np.uint16) if dt == "f16" else (0x7F800001 + np.arange(16 * 64) * 0x111) | \
            (np.arange(16 * 64) % 3 == 0) << 22 | (np.arange(16 * 64) % 2 << 31)
        code = _F_SPECIAL[dt][6]
        for op in SCALAR_OPS:
            cases.append(_tiles3(op, _SCALAR_DECL + f"{op.upper()}(dst, src, sc);", dt, ("dst", "src"),
                                 {"src": nans.astype(get_dtype(dt).lane).reshape(16, 64)}, (3, 45),
                                 params=(0,) + _scalar_params(dt, code), args={"scalar": code}, R=16, C=64))
    return cases


def cmp_layout_cases(rng) -> list[Case]:
    """TCMP, TCMPS, TSEL, TSELS and TEXPANDS with DN (col_major) data tiles, and TEXPANDS over a 1-row, a
    1-column and an empty valid region: the compare family had row-major tiles only."""
    cases = []
    R, C, vr, vc = 32, 32, 29, 13
    for sdt in ("f32", "f16", "i32", "i16", "u8"):
        a, b = (_valid_only(x.reshape(R, C), (vr, vc)) for x in _near_pairs(rng, sdt, R * C))
        src = lambda role: Spec(role, sdt, R, C, "col_major")
        words = -(-vc // 8)
        for mode in (0, 2, 5):
            cases.append(Case("tcmp", "TCMP(dst, src0, src1, (CmpMode)P[0]);",
                              (Spec("dst", "u8", R, 32), src("src0"), src("src1")),
                              {"dst": (vr, words), "src0": (vr, vc), "src1": (vr, vc)},
                              {"dst": _sentinel("u8", (R, 32)), "src0": a, "src1": b}, (mode,),
                              {"cmp_mode": CMP_MODES[mode]}))
            code = int(a[2, 5])
            cases.append(Case("tcmps", "typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "
                              "TCMPS(dst, src, sc, (CmpMode)P[0]);", (Spec("dst", "u8", R, C), src("src")),
                              {"dst": (vr, words), "src": (vr, vc)}, {"dst": _sentinel("u8", (R, C)), "src": a},
                              (mode,) + _scalar_params(sdt, code), {"cmp_mode": CMP_MODES[mode], "scalar": code}))
    for dt in ("f32", "f16", "i32", "i8", "u16", "i64"):
        per = 32 // get_dtype(dt).size
        Rd = max(R, per)
        a, b = (_valid_only(x.reshape(Rd, C), (vr, vc)) for x in _pair_operands(rng, dt, Rd * C))
        mask = rand_lanes(rng, "u8", (Rd, 32))
        dn = lambda role: Spec(role, dt, Rd, C, "col_major")
        cases.append(Case("tsel", "TSEL(dst, mask, src0, src1, tmp);",
                          (dn("dst"), Spec("mask", "u8", Rd, 32), dn("src0"), dn("src1"), dn("tmp")),
                          {"dst": (vr, vc), "mask": (vr, 32), "src0": (vr, vc), "src1": (vr, vc), "tmp": (vr, vc)},
                          {"dst": _sentinel(dt, (Rd, C)), "mask": mask, "src0": a, "src1": b,
                           "tmp": _scratch(dt, Rd, C)}))
        code = int(b[1, 1])
        cases.append(Case("tsels", _SCALAR_DECL + "TSELS(dst, mask, src, tmp, sc);",
                          (dn("dst"), Spec("mask", "u8", Rd, 32), dn("src"), dn("tmp")),
                          {"dst": (vr, vc), "mask": (vr, 32), "src": (vr, vc), "tmp": (vr, vc)},
                          {"dst": _sentinel(dt, (Rd, C)), "mask": mask, "src": a, "tmp": _scratch(dt, Rd, C)},
                          (0,) + _scalar_params(dt, code), {"scalar": code}))
        for k in range(len(_EDGE_SHAPES)):
            bl, r, c, v = _edge_shape(dt, k)
            code = int(a[0, k])
            cases.append(Case("texpands", _SCALAR_DECL + "TEXPANDS(dst, sc);", (Spec("dst", dt, r, c, bl),),
                              {"dst": v}, {"dst": _sentinel(dt, (r, c))}, (0,) + _scalar_params(dt, code),
                              {"scalar": code}))
    return cases


def boxed_expand_cases(rng) -> list[Case]:
    """Element-wise ops on boxed (nz / zn) vec tiles, and the expand-binary ops over a 1-row, a 1-column and an
    empty valid region (their family used one 29x13 shape)."""
    cases = []
    R, C, v = 32, 32, (29, 21)
    for dt in ("f32", "f16", "i32"):
        for kind in ("nz", "zn"):
            specs = lambda roles: tuple(_box(r, dt, R, C, kind) for r in roles)
            a, b = (_valid_only(x.reshape(R, C), v) for x in _pair_operands(rng, dt, R * C))
            for op in ("tadd", "tmul", "tmax", "tsub"):
                cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs(("dst", "src0", "src1")),
                                  {r: v for r in ("dst", "src0", "src1")}, {"dst": _sentinel(dt, (R, C)),
                                                                           "src0": a, "src1": b}))
            for op in ("tabs", "tneg") + (("texp", "tsqrt") if dt in FLOATS else ()):
                cases.append(Case(op, f"{op.upper()}(dst, src);", specs(("dst", "src")), {"dst": v, "src": v},
                                  {"dst": _sentinel(dt, (R, C)), "src": a}))
            code = int(b[3, 3])
            for op in ("tsubs", "tmins") + (("tadds", "tmuls") if kind == "zn" else ()):  # the latter: row-major
                cases.append(Case(op, _SCALAR_DECL + f"{op.upper()}(dst, src, sc);", specs(("dst", "src")),
                                  {"dst": v, "src": v}, {"dst": _sentinel(dt, (R, C)), "src": a},
                                  (0,) + _scalar_params(dt, code), {"scalar": code}))
    R, C = 16, 32
    for kind in ("add", "mul", "max", "div"):
        for dt in ("f32", "f16", "i32", "i16"):
            full, other = (x.reshape(R, C) for x in _pair_operands(rng, dt, R * C))
            if kind == "div":
                other = _safe_divisors(dt, other)
            rows = _aligned_rows(dt, R)
            for vr, vc in ((1, 29), (13, 1), (0, 5)):
                col = np.zeros((rows, 1), full.dtype)
                col[:R, 0] = other[:, 0]
                cases.append(Case(f"trowexpand{kind}", f"TROWEXPAND{kind.upper()}(dst, src0, src1);",
                                  (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, rows, 1, "col_major")),
                                  {"dst": (vr, vc), "src0": (vr, vc), "src1": (vr, 1)},
                                  {"dst": _sentinel(dt, (R, C)), "src0": _valid_only(full, (vr, vc)), "src1": col}))
                cases.append(Case(f"tcolexpand{kind}", f"TCOLEXPAND{kind.upper()}(dst, src0, src1);",
                                  (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, 1, C)),
                                  {"dst": (vr, vc), "src0": (vr, vc), "src1": (1, vc)},
                                  {"dst": _sentinel(dt, (R, C)), "src0": _valid_only(full, (vr, vc)),
                                   "src1": other[:1].copy()}))
    return cases


def misc_edge_cases(rng) -> list[Case]:
    """The remaining narrow families on DN tiles and edge shapes: TAXPY, TQUANT (a 1-row, a 1-column, an empty
    region; several parameter columns), TSORT32 (one row, one block), TCONCAT and TGATHER (index form) on DN and
    1-row tiles, TFILLPAD from a DN source."""
    cases = []
    for sdt, ddt in AXPY_PAIRS:
        for k in range(len(_EDGE_SHAPES)):
            bl, R, C, v = _edge_shape(sdt, k)
            x = _valid_only(unary_pool(rng, sdt, R * C).reshape(R, C), v)
            y = _valid_only(unary_pool(rng, ddt, R * C).reshape(R, C), v)
            code = scalar_values(sdt)[(k + 3) % 6]
            cases.append(Case("taxpy", "typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "
                              "TAXPY(dst, src, sc);", (Spec("dst", ddt, R, C, bl), Spec("src", sdt, R, C, bl)),
                              {"dst": v, "src": v}, {"dst": y, "src": x}, (0,) + _scalar_params(sdt, code),
                              {"scalar": code}))
    R, C = 16, 32
    x = lanes("f32", rng.integers(-600, 600, R * C) / 4.0).reshape(R, C)
    scale = lanes("f32", rng.choice([1.0, 0.5, 2.0, 0.1], R * 8)).reshape(R, 8)
    zero = lanes("f32", rng.integers(-10, 140, R * 8).astype(np.float64)).reshape(R, 8)
    for (vr, vc), pc in (((1, 29), 1), ((16, 1), 1), ((0, 5), 1), ((15, 29), 5), ((16, 32), 8)):
        for qt, ddt in (("INT8_SYM", "i8"), ("INT8_ASYM", "u8")):
            specs = [Spec("dst", ddt, R, C), Spec("src", "f32", R, C), Spec("fp", "f32", R, 8)]
            data = {"dst": _sentinel(ddt, (R, C)), "src": x, "fp": scale}
            valid = {"dst": (vr, vc), "src": (vr, vc), "fp": (max(vr, 1), pc)}
            call = f"TQUANT<QuantType::{qt}>(dst, src, fp);"
            if qt == "INT8_ASYM":
                specs.append(Spec("offset", "f32", R, 8))
                data["offset"], valid["offset"] = zero, (max(vr, 1), pc)
                call = f"TQUANT<QuantType::{qt}>(dst, src, fp, &offset);"
            cases.append(Case("tquant", call, tuple(specs), valid, data, (), {"quant_type": qt}))
    for dt in ("f32", "f16"):
        per = 8 // get_dtype(dt).size
        dcols = _aligned_cols(dt, 2 * 32 + 32 * per)
        src = lanes(dt, rng.integers(-3, 4, 4 * 64)).reshape(4, 64)
        idx = rng.permutation(1 << 16)[:256].astype(np.uint32).reshape(4, 64)
        for vr, vc in ((1, 32), (1, 5), (4, 1)):
            cases.append(Case("tsort32", "TSORT32(dst, src, idx);",
                              (Spec("dst", dt, 4, dcols), Spec("src", dt, 4, 64), Spec("idx", "u32", 4, 64)),
                              {"dst": (4, dcols), "src": (vr, vc), "idx": (vr, vc)},
                              {"dst": _sentinel(dt, (4, dcols)), "src": src, "idx": idx}))
    for dt in ("f32", "i16", "u8"):
        per = 32 // get_dtype(dt).size
        Rd = max(16, per)
        a, b = (conversion_pool(rng, dt, Rd * 32).reshape(Rd, 32) for _ in range(2))
        for bl in ("col_major", "row_major"):
            specs = (Spec("dst", dt, Rd, 64, bl), Spec("src0", dt, Rd, 32, bl), Spec("src1", dt, Rd, 32, bl))
            for vr, c0, c1 in ((1, 13, 29), (15, 1, 0)):
                cases.append(Case("tconcat", "TCONCAT(dst, src0, src1);", specs,
                                  {"dst": (vr, c0 + c1), "src0": (vr, c0), "src1": (vr, c1)},
                                  {"dst": _sentinel(dt, (Rd, 64)), "src0": a, "src1": b}))
    for dt in ("f32", "i16"):
        src = conversion_pool(rng, dt, 16 * 32).reshape(16, 32)
        k = rng.integers(-8, 16 * 32 + 8, (16, 32)).astype(np.int32)
        for bl, (vr, vc) in (("col_major", (13, 29)), ("row_major", (1, 29)), ("row_major", (13, 1))):
            specs = (Spec("dst", dt, 16, 32, bl), Spec("src", dt, 16, 32, bl), Spec("indices", "i32", 16, 32, bl),
                     Spec("tmp", dt, 16, 32, bl))
            cases.append(Case("tgather", "TGATHER(dst, src, indices, tmp);", specs,
                              {"dst": (vr, vc), "src": (16, 32), "indices": (vr, vc), "tmp": (16, 32)},
                              {"dst": _sentinel(dt, (16, 32)), "src": src, "indices": k.view(np.uint32),
                               "tmp": _scratch(dt, 16, 32)}))
    for dt in ("f32", "i16"):
        src = conversion_pool(rng, dt, 32 * 16).reshape(32, 16)
        for bl in ("col_major",):
            specs = (Spec("dst", dt, 32, 16, bl, pad="max"), Spec("src", dt, 32, 16, bl))
            for vr, vc in ((29, 13), (1, 16), (32, 1)):
                cases.append(Case("tfillpad", "TFILLPAD(dst, src);", specs, {"dst": (32, 16), "src": (vr, vc)},
                                  {"dst": _sentinel(dt, (32, 16)), "src": src}))
    return cases


# ------------------------------------------------ mixred: row reduces into a dtype that is not a widening
def mixed_row_reduce_cases(rng) -> list[Case]:
    """TROWMAX/TROWMIN/TROWPROD of an ND source into each other dtype that is not an exact widening (those are in
    ``reduce_cases``): the simulator casts every element to dst's type first (PTO67); 9 lines, every kind of
    :func:`line_values` once, valid 9x29 of 9x32."""
    # every pair of clang's dtypes that is not an exact widening
    return [_mixed_row_case(rng, op, s, d) for op in ("trowmax", "trowmin", "trowprod") for s, d in sorted(CPU_CAST_FIRST)]


_MIXED_R, _MIXED_C, _MIXED_VC = 9, 32, 29  # the mixed reduces' tiles: valid 9x29 of 9x32


def _mixed_row_case(rng, op: str, s: str, d: str) -> Case:
    """One row reduce of an ND ``s`` source into ``d``: 9 lines, every kind of :func:`line_values` once."""
    R, C = _MIXED_R, _MIXED_C
    specs = (Spec("dst", d, R, _aligned_cols(d, 1)), Spec("src", s, R, C), Spec("tmp", s, R, C))
    tiles = {"dst": _sentinel(d, (R, _aligned_cols(d, 1))), "src": line_values(rng, s, R, C),
             "tmp": _scratch(s, R, C)}
    return Case(op, f"{op.upper()}(dst, src, tmp);", specs,
                {"dst": (R, 1), "src": (R, _MIXED_VC), "tmp": (R, _MIXED_VC)}, tiles)


def _mixed_col_case(rng, op: str, s: str, d: str) -> Case:
    """One column reduce of an ``s`` source into ``d``: 32 columns, each a kind of :func:`line_values`."""
    R, C = _MIXED_R, _MIXED_C
    specs = (Spec("dst", d, 1, C), Spec("src", s, R, C))
    tiles = {"dst": _sentinel(d, (1, C)), "src": line_values(rng, s, C, R).T.copy()}
    return Case(op, f"{op.upper()}(dst, src);", specs, {"dst": (1, _MIXED_VC), "src": (R, _MIXED_VC)}, tiles)


def mixed_col_reduce_cases(rng) -> list[Case]:
    """TCOLMIN/TCOLPROD into each dtype that is not an exact widening (PTO67): the simulator casts each element
    to dst's type, TCOLMIN comparing the source element with the running min in their common type; 32 columns,
    each a kind of :func:`line_values`, valid 9x29 of 9x32."""
    return [_mixed_col_case(rng, op, s, d) for op in ("tcolmin", "tcolprod") for s, d in sorted(CPU_CAST_FIRST)]


#: the first bank's families, drawn in this order from one generator seeded with ``--seed``
FAMILIES = (tcvt_cases, reduce_cases, arg_cases, expand_cases, binary_cases)
#: later families, each from its own generator (seed, crc32 of its name), so adding one changes no other
MORE_FAMILIES = (tdiv_cases, unary_cases, scalar_cases, expand_binary_cases, compare_select_cases,
                 arith_more_cases, gather_cases, concat_cases, fillpad_cases,
                 sort_cases, matmul_cases, memory_cases, move_cases,
                 random_histogram_cases, quant_cases)
MORE_FAMILIES += (fp_move_cases, matmul_mx_cases)
MORE_FAMILIES += BF16_FAMILIES
MORE_FAMILIES += (generator_cases, dequant_cases, mrgsort_cases, div_overflow_cases, layout_cases,  # newcov
                  cmp_layout_cases, boxed_expand_cases, misc_edge_cases)
MORE_FAMILIES += (mixed_row_reduce_cases, mixed_col_reduce_cases, _bf16_family("bf16_mixed_reduce_cases"))
MORE_FAMILIES += (scalar_quant_cases, matmul_mx_e1m2_cases)


def all_cases(seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = [c for fam in FAMILIES for c in fam(rng)]
    for fam in MORE_FAMILIES:
        cases += fam(np.random.default_rng([seed, zlib.crc32(fam.__name__.encode())]))
    return cases


# --------------------------------------------------------------- the driver
_PRELUDE = r"""
#include <pto/pto-inst.hpp>
#include <cstdint>
#include <cstring>
#include <vector>
using namespace pto;
using KernelFn = void (*)(const int32_t*, const uint32_t*, const uint8_t*&, std::vector<uint8_t>&);
template <typename T> static void place(T& t, std::size_t& addr) {
    TASSIGN(t, addr);
    addr += sizeof(typename T::DType) * T::Numel;
    addr = (addr + 63) & ~std::size_t(63);
}
template <typename T> static void load(T& t, const uint8_t*& in) {
    std::memcpy(t.data(), in, sizeof(typename T::DType) * T::Numel);
    in += sizeof(typename T::DType) * T::Numel;
}
template <typename T> static void save(T& t, std::vector<uint8_t>& out) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data());
    out.insert(out.end(), p, p + sizeof(typename T::DType) * T::Numel);
}
"""

_MAIN = r"""
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
using KernelFn = void (*)(const int32_t*, const uint32_t*, const uint8_t*&, std::vector<uint8_t>&);
%(decls)s
int main(int argc, char** argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: driver IN OUT\n"); return 2; }
    std::vector<KernelFn> table(%(n)d, nullptr);
    %(regs)s
    std::FILE* f = std::fopen(argv[1], "rb");
    std::vector<uint8_t> buf;
    uint8_t chunk[1 << 16];
    std::size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
    std::fclose(f);
    std::vector<uint8_t> out;
    const uint8_t* p = buf.data();
    const uint8_t* end = p + buf.size();
    while (p < end) {
        uint32_t hdr[3];
        std::memcpy(hdr, p, sizeof hdr); p += sizeof hdr;           // kernel, n_params, n_valid
        std::vector<int32_t> P(hdr[1] + 1); std::vector<uint32_t> V(hdr[2] + 1);
        std::memcpy(P.data(), p, 4 * hdr[1]); p += 4 * hdr[1];
        std::memcpy(V.data(), p, 4 * hdr[2]); p += 4 * hdr[2];
        table[hdr[0]](P.data(), V.data(), p, out);
    }
    std::FILE* o = std::fopen(argv[2], "wb");
    std::fwrite(out.data(), 1, out.size(), o);
    std::fclose(o);
    return 0;
}
"""


def kernel_name(key: tuple) -> str:
    """A kernel's C++ name: a hash of its call and tile types, so an object file stays valid while its
    kernels do not change (adding cases to one op rebuilds only that op's translation units)."""
    call, specs = key
    text = call + "|" + "|".join(f"{s.role}={s.cxx()}" for s in specs)
    return "k_" + hashlib.sha1(text.encode()).hexdigest()[:16]


def kernel_source(key: tuple) -> str:
    call, specs = key
    lines = [f"void {kernel_name(key)}(const int32_t* P, const uint32_t* V, const uint8_t*& in, "
             "std::vector<uint8_t>& out) {", "    (void)P;", "    std::size_t addr = 0;"]
    for i, s in enumerate(specs):
        if s.loc == "gm":  # global memory: a plain array the call wraps in a GlobalTensor
            n = f"{s.rows * s.cols} * sizeof({CXX_TYPE[s.dtype]})"
            lines.append(f"    std::vector<{CXX_TYPE[s.dtype]}> {s.role}({s.rows * s.cols});")
            continue
        lines.append(f"    using T_{s.role} = {s.cxx()};")
        lines.append(f"    T_{s.role} {s.role}(V[{2 * i}], V[{2 * i + 1}]);")
        lines.append(f"    place({s.role}, addr);")
    for s in specs:
        if s.loc == "gm":
            n = f"{s.rows * s.cols} * sizeof({CXX_TYPE[s.dtype]})"
            lines.append(f"    std::memcpy({s.role}.data(), in, {n}); in += {n};")
        else:
            lines.append(f"    load({s.role}, in);")
    lines.append(f"    {call}")
    for s in specs:
        if not s.role.startswith("dst"):
            continue
        if s.loc == "gm":
            n = f"{s.rows * s.cols} * sizeof({CXX_TYPE[s.dtype]})"
            lines.append(f"    {{ auto* q = reinterpret_cast<const uint8_t*>({s.role}.data()); "
                         f"out.insert(out.end(), q, q + {n}); }}")
        else:
            lines.append(f"    save({s.role}, out);")
    lines.append("}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Toolchain:
    """A compiler, its flags, and the words it and the driver it builds run under (``chroot DIR``: the
    build folder and the checkout must then have the same paths inside)."""

    prefix: tuple[str, ...]
    cxx: str
    flags: tuple[str, ...]
    version: str

    def salt(self, commit: str) -> str:
        return "|".join([commit, self.version, *self.prefix, *self.flags])


def find_cxx(explicit: str | None, bf16: bool = False) -> Toolchain:
    """clang >= 17 (C++20), or g++ >= 14 (C++23, real std::bfloat16_t; the only choice for ``bf16``).
    ``explicit`` may start with a wrapper, e.g. ``chroot /srv/trixie g++-14``."""
    words = explicit.split() if explicit else []
    for cand in ([words[-1]] if words else ["clang++-19", "clang++-18", "clang++-17", "clang++"]):
        exe = shutil.which(cand) if not words[:-1] else cand
        if not exe:
            continue
        r = subprocess.run([*words[:-1], exe, "--version"], capture_output=True, text=True)
        first = (r.stdout.splitlines() or [""])[0]
        clang = re.search(r"clang version (\d+)", r.stdout)
        gnu = re.search(r"^g\+\+.* (\d+)\.\d+\.\d+", first)
        if clang and int(clang.group(1)) >= 17 and not bf16:
            return Toolchain(tuple(words[:-1]), exe, tuple(FLAGS), first)
        if gnu and int(gnu.group(1)) >= 14:
            return Toolchain(tuple(words[:-1]), exe, tuple(GXX_FLAGS), first)
    sys.exit("need g++ >= 14 (C++23 std::bfloat16_t) for bf16" if bf16 else
             "need clang >= 17 or g++ >= 14 (the headers use static_assert(false) in templates); "
             "try apt-get install clang-19")


#: kernels per translation unit (each unit parses the headers once; fewer kernels rebuild less)
TU_KERNELS = 24


def translation_units(keys: list[tuple], ops: list[str]) -> list[list[tuple]]:
    """The kernels grouped by op, then cut into units of at most :data:`TU_KERNELS` in name order."""
    by_op = defaultdict(list)
    for k, op in zip(keys, ops):
        by_op[op].append(k)
    units = []
    for op in sorted(by_op):
        ks = sorted(by_op[op], key=kernel_name)
        units += [ks[i: i + TU_KERNELS] for i in range(0, len(ks), TU_KERNELS)]
    return units


def _compile_unit(checkout: Path, keys: list[tuple], work: Path, tc: Toolchain, salt: str) -> tuple[Path, set]:
    """Compile one unit into ``work`` (cached under a hash of its text, the compiler and the checkout);
    returns the object and the kernels the headers reject at compile time (left out of the object)."""
    tag = hashlib.sha1((salt + _PRELUDE + "".join(kernel_source(k) for k in keys)).encode()).hexdigest()[:16]
    obj, stamp = work / f"u{tag}.o", work / f"u{tag}.json"
    if obj.exists() and stamp.exists():
        rej = set(json.loads(stamp.read_text()))
        return obj, {k for k in keys if kernel_name(k) in rej}
    rejected: set = set()
    while True:
        ids = [k for k in keys if k not in rejected]
        text, starts = _PRELUDE, {}
        for k in ids:
            starts[kernel_name(k)] = text.count("\n") + 1
            text += kernel_source(k) + "\n"
        src = work / f"u{tag}.cpp"
        src.write_text(text)
        r = subprocess.run(["nice", "-n", "10", *tc.prefix, tc.cxx, *tc.flags, "-I", str(checkout / "include"), "-c",
                            str(src), "-o", str(obj) + ".tmp"], capture_output=True, text=True)
        if not r.returncode:
            break
        lines = {int(m) for m in re.findall(rf"u{tag}\.cpp:(\d+):\d+", r.stderr)}
        bad = {max((k for k in ids if starts[kernel_name(k)] <= ln), key=lambda k: starts[kernel_name(k)],
                   default=None) for ln in lines}
        bad.discard(None)
        if not bad:
            raise RuntimeError(f"{src.name} failed to compile:\n{r.stderr[-6000:]}")
        rejected |= bad
    os.replace(str(obj) + ".tmp", obj)
    stamp.write_text(json.dumps(sorted(kernel_name(k) for k in rejected)))
    return obj, rejected


def build(checkout: Path, keys: list[tuple], ops: list[str], work: Path, tc: Toolchain, jobs: int,
          salt: str) -> tuple[Path, set]:
    """Compile the driver for these kernels; returns it and the kernels the headers reject.

    Units already compiled in ``work`` (``--keep``) for the same kernels, compiler and checkout are reused.
    """
    units = translation_units(keys, ops)
    rejected: set = set()
    with ThreadPoolExecutor(jobs) as ex:
        done = list(ex.map(lambda u: _compile_unit(checkout, u, work, tc, salt), units))
    for _, rej in done:
        rejected |= rej
    kept = [k for k in keys if k not in rejected]
    main = work / "main.cpp"
    main.write_text(_MAIN % {"n": len(kept),
                             "decls": "\n".join(f"void {kernel_name(k)}(const int32_t*, const uint32_t*, "
                                                "const uint8_t*&, std::vector<uint8_t>&);" for k in kept),
                             "regs": "\n    ".join(f"table[{i}] = &{kernel_name(k)};" for i, k in enumerate(kept))})
    exe = work / "driver"
    subprocess.run(["nice", "-n", "10", *tc.prefix, tc.cxx, *tc.flags, str(main), *(str(o) for o, _ in done),
                    "-pthread", "-o", str(exe)], check=True)
    return exe, rejected


def _driver_bytes(s: Spec, st: np.ndarray) -> bytes:
    """A tile's storage as the simulator holds it: an fp4 tile packs two codes a byte, element ``2j`` in the low
    nibble of byte ``j``, in the first half of its ``Numel`` bytes (include/pto/cpu/MXTypes.hpp)."""
    if s.dtype not in FP4_TYPES:
        return st.tobytes()
    packed = np.zeros(st.size, np.uint8)
    packed[: st.size // 2] = (st[0::2] & 0xF) | (st[1::2] << 4)
    return packed.tobytes()


def run_driver(exe: Path, cases: list[Case], kid: dict, work: Path, tc: Toolchain) -> list[dict[str, np.ndarray]]:
    blob = bytearray()
    for c in cases:
        valid = [v for s in c.specs for v in c.valid[s.role]]
        blob += np.array([kid[c.key], len(c.params), len(valid)], np.uint32).tobytes()
        blob += np.array(c.params, np.int32).tobytes() + np.array(valid, np.uint32).tobytes()
        for s in c.specs:
            blob += _driver_bytes(s, c.storage(s.role))
    (work / "in.bin").write_bytes(bytes(blob))
    subprocess.run([*tc.prefix, str(exe), str(work / "in.bin"), str(work / "out.bin")], check=True)
    out = np.fromfile(work / "out.bin", np.uint8)
    results, q = [], 0
    for c in cases:
        res = {}
        for s in c.specs:
            if s.role.startswith("dst"):
                n = s.rows * s.cols * get_dtype(s.dtype).size
                res[s.role] = out[q: q + n].view(get_dtype(s.dtype).lane)
                q += n
        results.append(res)
    if q != out.size:
        raise RuntimeError("driver output has the wrong size")
    return results


def save(cases: list[Case], results, out_dir: Path, meta: dict) -> None:
    by_op = defaultdict(list)
    for c, r in zip(cases, results):
        by_op[c.stem].append((c, r))
    out_dir.mkdir(parents=True, exist_ok=True)
    for op, items in by_op.items():
        specs, ins, outs = [], [], []
        for c, r in items:
            specs.append({"tiles": [dict(role=s.role, dtype=s.dtype, rows=s.rows, cols=s.cols, blayout=s.blayout,
                                         slayout=s.slayout, valid=list(c.valid[s.role]), **s.saved())
                                    for s in c.specs],
                          "args": c.args})
            ins += [c.storage(s.role).view(np.uint8) for s in c.specs]
            outs += [r[s.role].view(np.uint8) for s in c.specs if s.role.startswith("dst")]
        np.savez_compressed(out_dir / f"{op}.npz", cases=json.dumps(specs), meta=json.dumps(meta),
                            inputs=np.concatenate(ins), outputs=np.concatenate(outs))


#: tilesim ops on target cpu with no golden vectors yet, and why (the coverage table prints these)
NOT_IN_BANK = {
    "tpack": "pto-isa has no TPACK (no PTO_INST entry point, no include/pto/cpu implementation)",
    "tprint": "prints; no tile result",
}


def check(out_dir: Path, verbose: int) -> bool:
    """Replay every stored case on target cpu and print the coverage table: per tilesim op, the cases and
    how many agree bit for bit (NaN payloads included, PTO91) apart from lanes tilesim marks undefined, clang's
    bank and the bf16 one (g++, PTO88) side by side; ops without vectors are listed with the reason."""
    from tilesim.pto import OPS
    from tests.pto import ptoisa_golden as g
    total = Counter()
    stored = defaultdict(dict)  # op -> {"": clang's file, "bf16": g++'s}
    for p in sorted(out_dir.glob("*.npz")):
        stored[g.op_of(p)]["bf16" if p.name.endswith(".bf16.npz") else ""] = p
    print(f"{'op':18} {'cases':>6} {'exact':>6} {'bf16':>6} {'exact':>6}")
    for op in sorted(set(OPS) | set(stored)):
        if op not in stored:
            print(f"{op:18} {'-':>6} {'-':>6} {'-':>6} {'-':>6}   not in the bank: {NOT_IN_BANK.get(op, '?')}")
            continue
        row = f"{op:18}"
        for kind in ("", "bf16"):
            if kind not in stored[op]:
                row += f" {'-':>6} {'-':>6}"
                continue
            _, cases = g.load(stored[op][kind])
            exact = shown = loose = 0
            for c in cases:
                good, why = g.replay(c, undefined_may_differ=True)
                exact += good
                loose += bool(good and why)
                if not good and shown < verbose:
                    print(f"   {c.label}: {why}")
                    shown += 1
            total.update({f"cases{kind}": len(cases), f"exact{kind}": exact, "loose": loose})
            row += f" {len(cases):6} {exact:6}" + ("*" if loose else "")
        print(row)
    print(f"{'total':18} {total['cases']:6} {total['exact']:6} {total['casesbf16']:6} {total['exactbf16']:6}   "
          f"({len(stored)} of {len(OPS)} ops in the bank)")
    if total["loose"]:
        print(f"* {total['loose']} of the agreeing cases differ only in lanes tilesim marks undefined (C++ "
              "undefined behaviour, issue 11; PTO67)")
    return total["exact"] + total["exactbf16"] == total["cases"] + total["casesbf16"]


def text_level_ops() -> set[str]:
    """tilesim's ``.pto`` ops that are no tile computation of :data:`tilesim.pto.OPS` (TGET_SCALE_ADDR,
    TASSIGN, TRESHAPE, the pipe ops...), as upper-case instruction names."""
    from tilesim.pto.text.forms import _FORMS
    from tilesim.pto.text.interp import _SPECIAL
    return {op.removeprefix("pto.").upper() for op in (*_FORMS, *_SPECIAL) if op.startswith("pto.")}


def simulator_only(checkout: Path) -> tuple[list[str], list[str]]:
    """The checkout's instruction entry points (``PTO_INST``): those tilesim has no op for, and those it has
    as text-level ops only (they move no data a golden vector could hold)."""
    from tilesim.pto import OPS
    text = (checkout / "include" / "pto" / "common" / "pto_instr.hpp").read_text()
    names = set(re.findall(r"PTO_INST\s+(?:RecordEvent|comm::AsyncEvent|void|std::enable_if_t<[^>]*>+)\s+"
                           r"([A-Z][A-Z0-9_]+)\s*\(", text))
    missing = {n for n in names if n.lower() not in OPS}
    textual = missing & text_level_ops()
    return sorted(missing - textual), sorted(textual)


def _generate(a, tc: Toolchain, cases: list[Case], work: Path, commit: str) -> None:
    """Build, run and store these cases with one toolchain."""
    keys, ops = [], []
    for c in cases:
        if c.key not in keys:
            keys.append(c.key)
            ops.append(c.op)
    work.mkdir(parents=True, exist_ok=True)
    print(f"{len(cases)} cases, {len(keys)} kernels; building in {work} with {tc.version}")
    exe, rejected = build(a.checkout, keys, ops, work, tc, a.jobs, tc.salt(commit))
    if rejected:
        print(f"{len(rejected)} kernels do not compile against this checkout; their cases are left out:")
        for call, specs in sorted(rejected, key=kernel_name):
            print("   ", call, " ".join(f"{s.role}:{s.dtype}:{s.blayout}" for s in specs))
    cases = [c for c in cases if c.key not in rejected]
    kept = [k for k in keys if k not in rejected]
    results = run_driver(exe, cases, {k: i for i, k in enumerate(kept)}, work, tc)
    save(cases, results, a.out, {"pto_isa_commit": commit, "compiler": tc.version, "flags": list(tc.flags),
                                 "seed": a.seed})
    print(f"wrote {len({c.stem for c in cases})} files to {a.out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", nargs="?", type=Path, help="a pto-isa checkout (hw-native-sys/pto-isa)")
    ap.add_argument("-o", "--out", type=Path, default=ROOT / "tests" / "pto" / "golden")
    ap.add_argument("--cxx", help="clang++ (>= 17) or g++ (>= 14) to build the driver with, maybe after a "
                    "wrapper (\"chroot DIR g++-14\")")
    ap.add_argument("--bf16-cxx", help="g++ (>= 14, C++23 std::bfloat16_t) for the bf16 cases, maybe after a "
                    "wrapper (\"chroot DIR g++-14\"); without it they are left out")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--seed", type=int, default=20260)
    ap.add_argument("--check", action="store_true", help="replay the vectors through tilesim afterwards")
    ap.add_argument("--check-only", action="store_true", help="only replay the stored vectors")
    ap.add_argument("-v", "--verbose", type=int, default=3, help="disagreements to show per op")
    ap.add_argument("--keep", type=Path, help="build in this folder and keep it")
    ap.add_argument("--ops", help="comma-separated files to (re)generate (tdiv, tcvt.bf16); the other stored "
                    "files stay as they are")
    a = ap.parse_args()
    if not a.check_only:
        if a.checkout is None:
            ap.error("give the pto-isa checkout")
        cases = all_cases(a.seed)
        if a.ops:
            want = set(a.ops.split(","))
            unknown = want - {c.stem for c in cases}
            if unknown:
                ap.error(f"no cases for {', '.join(sorted(unknown))}")
            cases = [c for c in cases if c.stem in want]
        bf16 = [c for c in cases if c.stem.endswith(".bf16")]
        if bf16 and not a.bf16_cxx:
            if a.ops:
                ap.error("bf16 files need --bf16-cxx")
            print(f"{len(bf16)} bf16 cases left out (give --bf16-cxx)")
        if a.bf16_cxx and not a.keep:
            ap.error("--bf16-cxx needs --keep (a build folder its wrapper sees at the same path)")
        commit = subprocess.run(["git", "-C", str(a.checkout), "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        work = a.keep or Path(tempfile.mkdtemp(prefix="ptoisa-"))
        plain = [c for c in cases if not c.stem.endswith(".bf16")]
        if plain:
            _generate(a, find_cxx(a.cxx), plain, work, commit)
        if bf16 and a.bf16_cxx:
            _generate(a, find_cxx(a.bf16_cxx, bf16=True), bf16, work / "bf16", commit)
        if not a.keep:
            shutil.rmtree(work)
    if a.check or a.check_only:
        ok = check(a.out, a.verbose)
        if a.checkout is not None:
            only, textual = simulator_only(a.checkout)
            print(f"{len(textual)} entry points tilesim has as .pto ops only, with no tile result to store "
                  f"(TGET_SCALE_ADDR re-points dst at src's bytes, PTO71): {', '.join(textual)}")
            print(f"{len(only)} entry points of the simulator that tilesim has no op for: {', '.join(only)}")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
