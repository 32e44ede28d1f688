"""The Tensix side of ``tilesim compare``: real instruction sequences on a :class:`~tilesim.tensix.Machine`.

- :func:`gmpool`: column max and ArgMax by GMPOOL (ArgMax on, SrcB scale row
  1.0) over 16x16 blocks. Each strip of 16 columns starts with ZEROACC; every
  16-row block pools into its own 32-bit Dst row (4 apart), the rows are
  packed, and the block maxima are reduced on the host, the lowest block
  winning ties (decision C3). GMPOOL's index covers only rows 0..7 of a block.
- :func:`elwmul`: ELWMUL over 8x16 blocks at a fidelity (LoFi = phase 0 ..
  HiFi4 = phases 0..3), FP32 Dst; the phases step by AddrMod 1
  (FidelityIncr) and the last one clears the fidelity by AddrMod 2.
- :func:`mvmul_program`: ``C = A @ B`` as MVMUL over 16x16 tiles accumulating in
  FP32 Dst: for each strip of 16 columns of C and each K-slice of 16, SrcA
  holds the 16x16 tile of B and SrcB 64 rows of A at a time; each 8-row MVMUL
  (times the fidelity phases) adds into Dst, SrcB's row pointer stepping by
  AddrMod 2.
- :func:`mvmul`: the same instructions' results, computed as the batched MVMUL
  kernel (:func:`tilesim.tensix.fpu.matmul.matmul_kernel`) does: per K-slice and
  fidelity phase, every 8-row block of every strip at once. Each MVMUL reads
  only its own Dst rows, so the order across blocks does not change a bit;
  ``tests/compare/test_compare.py`` holds it equal to :func:`mvmul_program`.

- :func:`recip`, :func:`exp`: ``1 / x`` and ``exp(x)`` by tt-llk's SFPU kernels
  (:mod:`tilesim.tensix.sfpu.kernels`) on FP32 Dst: up to 512 rows of 16 at a time are unpacked as
  FP32, the kernel's step runs once per 4 rows x 8 columns (twice per 4 rows), and the rows are
  packed back unrounded.

Each returns ``(values, codes, instructions)``: float64 results, their codes
in the output format, and the instruction counts by mnemonic.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .. import formats
from ..errors import GeometryError, UnsupportedError
from ..tensix import Machine, make
from ..tensix.fpu.common import fpu_mode
from ..tensix.fpu.matmul import matmul_kernel
from ..tensix.fpu.pool import argmax_rows
from ..tensix.layouts import adj32, dst32_to_fp32
from ..tensix.unpack import convert, l1_encode

__all__ = ["FIDELITIES", "SRC_FORMATS", "gmpool", "elwmul", "mvmul", "mvmul_program", "recip", "exp", "check_shape"]

#: fidelity name -> phases run per multiply
FIDELITIES = {"LoFi": 1, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}
#: compare dtype -> (Tensix data format code, unpacker L1 format, its ``out=`` conversion)
SRC_FORMATS = {"bf16": (5, "BF16", None), "fp16": (1, "FP16", None), "fp32": (4, "FP32", "TF32")}
_DST32_ROWS = 512


def check_shape(op: str, shape: tuple[int, ...]) -> None:
    """Raise unless the Tensix kernels can take ``shape`` (rule ``compare.shape``, machine named)."""
    def fail(why: str):
        raise GeometryError(f"tensix cannot take {'x'.join(map(str, shape))} for {op}: {why}",
                            instruction="compare", operand="--shape", rule="compare.shape", value=shape)
    if op in ("colmax", "colargmax"):
        r, c = shape
        if r % 16 or c % 16:
            fail("GMPOOL pools 16x16 blocks, so rows and columns must be multiples of 16")
        if r // 16 * 4 > _DST32_ROWS:
            fail(f"one 32-bit Dst row per 16-row block: at most {_DST32_ROWS // 4 * 16} rows")
    elif op in ("recip", "exp"):
        r, c = shape
        if c % 16:
            fail("the SFPU reads Dst rows of 16, so columns must be a multiple of 16")
    elif op == "elwmul":
        r, c = shape
        if r % 8 or c % 16:
            fail("ELWMUL multiplies 8x16 blocks, so rows must be a multiple of 8 and columns of 16")
        if r > _DST32_ROWS:
            fail(f"a strip of 16 columns stays in 32-bit Dst: at most {_DST32_ROWS} rows")
    else:
        m, n, k = shape
        if m % 8 or n % 16 or k % 16:
            fail("MVMUL multiplies 8x16 by 16x16, so M must be a multiple of 8 and N and K of 16")
        if m > _DST32_ROWS:
            fail(f"a strip of C stays in 32-bit Dst: M at most {_DST32_ROWS}")


def _machine(dtype: str, rounding: str, **extra) -> Machine:
    code = SRC_FORMATS[dtype][0]
    return Machine(rounding).configure(ALU_FORMAT_SPEC_REG0_SrcA=code, ALU_FORMAT_SPEC_REG1_SrcB=code,
                                       ALU_ACC_CTRL_Fp32_enabled=1, **extra)


def _unpack(m: Machine, bank: str, values: np.ndarray, dtype: str) -> None:
    _, fmt, out = SRC_FORMATS[dtype]
    m.unpack(bank, values, fmt, **({"out": out} if out else {}))


def gmpool(x: np.ndarray, dtype: str, rounding: str = "hardware") -> tuple[np.ndarray, np.ndarray, np.ndarray, Counter]:
    """Column max and argmax of ``x`` (R x C) by GMPOOL; returns (max values, max codes, argmax, counts).

    The argmax is 16 * block + the row GMPOOL reports (0..7), or -1 where no SrcA row was reported.
    """
    if dtype != "bf16":
        why = ("keeps the maximum in a 32-bit Dst layout (the ArgMax style) that the packer has no conversion for"
               if dtype in SRC_FORMATS else "takes float SrcA formats and INT8, not unsigned integers")
        raise UnsupportedError(f"GMPOOL with ArgMax in {dtype} {why}; bf16 only", instruction="GMPOOL",
                               operand="dtype", rule="compare.tensix.gmpool", value=dtype)
    r, c = x.shape
    blocks = r // 16
    m = _machine(dtype, rounding)
    count: Counter = Counter()
    zeroacc = make("ZEROACC", Mode=3)
    pools = [make("GMPOOL", DstRow=4 * b, ArgMax=1, FlipSrcA=1, FlipSrcB=1) for b in range(blocks)]
    maxima = np.empty((blocks, c))
    codes = np.empty((blocks, c), np.uint64)
    index = np.empty((blocks, c), np.int64)
    ones = np.ones((1, 16))
    for s in range(0, c, 16):
        m.run([zeroacc])
        count["ZEROACC"] += 1
        for b in range(blocks):
            _unpack(m, "srca", x[16 * b:16 * b + 16, s:s + 16], dtype)
            _unpack(m, "srcb", ones, dtype)
            m.execute(pools[b])
        count["GMPOOL"] += blocks
        rows = 4 * np.arange(blocks)
        packed = m.pack("BF16", row=0, rows=4 * blocks, rounding=False)
        maxima[:, s:s + 16], codes[:, s:s + 16] = packed.values[rows], packed.codes[rows]
        index[:, s:s + 16] = argmax_rows(m.dst[adj32(rows) + 8])
    best = np.argmax(maxima, axis=0)  # first block of the largest maximum
    cols = np.arange(c)
    local = index[best, cols]
    return maxima[best, cols], codes[best, cols], np.where(local >= 0, 16 * best + local, -1), count


def elwmul(a: np.ndarray, b: np.ndarray, dtype: str, fidelity: str, rounding: str = "hardware"):
    """``a * b`` element-wise by ELWMUL into FP32 Dst; returns (values, codes, counts)."""
    r, c = a.shape
    phases = FIDELITIES[fidelity]
    m = _machine(dtype, rounding, ADDR_MOD_DST_SEC1_FidelityIncr=1, ADDR_MOD_DST_SEC2_FidelityClear=1)
    # AddrMod 1: next fidelity phase; 2 (the last phase, which hands both banks back): phase 0
    programs = [[make("ELWMUL", DstRow=8 * i, AddrMod=1)] * (phases - 1) +
                [make("ELWMUL", DstRow=8 * i, AddrMod=2, FlipSrcA=1, FlipSrcB=1)] for i in range(r // 8)]
    values, codes = np.empty((r, c)), np.empty((r, c), np.uint64)
    count: Counter = Counter()
    for s in range(0, c, 16):
        m.execute(make("ZEROACC", Mode=3))
        count["ZEROACC"] += 1
        for i, program in enumerate(programs):
            _unpack(m, "srca", a[8 * i:8 * i + 8, s:s + 16], dtype)
            _unpack(m, "srcb", b[8 * i:8 * i + 8, s:s + 16], dtype)
            m.run(program)
            count["ELWMUL"] += len(program)
        p = m.pack("FP32", row=0, rows=r)
        values[:, s:s + 16], codes[:, s:s + 16] = p.values, p.codes
    return values, codes, count


def mvmul(a: np.ndarray, b: np.ndarray, dtype: str, fidelity: str = "HiFi4", rounding: str = "hardware"):
    """``a @ b`` (M x K times K x N): :func:`mvmul_program`'s values, codes and counts, by the batched kernel."""
    (mm, k), n = a.shape, b.shape[1]
    phases = FIDELITIES[fidelity]
    m = _machine(dtype, rounding)
    mode = fpu_mode(m, 0, "MVMUL")
    _, fmt, out = SRC_FORMATS[dtype]
    srca = _datums(b, fmt, out).reshape(k // 16, 16, n // 16, 16).transpose(0, 2, 1, 3)  # (K-slice, strip, 16, 16)
    srcb = _datums(a, fmt, out).reshape(mm // 8, 8, k // 16, 16).transpose(2, 0, 1, 3)   # (K-slice, block, 8, 16)
    raw = np.zeros((n // 16, mm // 8, 8, 16), np.uint32)   # Dst after ZEROACC: every row undefined, read as 0
    valid = np.zeros(raw.shape[:-1], bool)
    for kk in range(k // 16):
        for phase in range(phases):
            raw = matmul_kernel(srca[kk][:, None], srcb[kk][None, :], raw, valid, mode, phase, rounding)
            valid[:] = True
    codes = dst32_to_fp32(raw).transpose(1, 2, 0, 3).reshape(mm, n).astype(np.uint64)
    count = Counter({"ZEROACC": n // 16, "MVMUL": (n // 16) * (k // 16) * (mm // 8) * phases})
    return formats.decode(codes, "fp32"), codes, count


def _datums(values: np.ndarray, fmt: str, out: str | None) -> np.ndarray:
    """Src datums of ``values`` as :func:`tilesim.tensix.unpack.unpack` makes them (L1 bits, then the unpacker's
    conversion)."""
    codes, _ = l1_encode(values, fmt)
    return convert(codes, fmt, to_dst=False, out=out)[0]


def mvmul_program(a: np.ndarray, b: np.ndarray, dtype: str, fidelity: str = "HiFi4", rounding: str = "hardware"):
    """``a @ b`` (M x K times K x N) by MVMUL over 16x16 tiles into FP32 Dst; returns (values, codes, counts)."""
    (mm, k), n = a.shape, b.shape[1]
    phases = FIDELITIES[fidelity]
    # AddrMod 1: next fidelity phase; 2: phase 0 and the next 8 SrcB rows; 3: phase 0 and SrcB row 0
    m = _machine(dtype, rounding, ADDR_MOD_DST_SEC1_FidelityIncr=1, ADDR_MOD_DST_SEC2_FidelityClear=1,
                 ADDR_MOD_AB_SEC2_SrcBIncr=8, ADDR_MOD_DST_SEC3_FidelityClear=1, ADDR_MOD_AB_SEC3_SrcBClear=1)
    chunks = [(r0, min(64, mm - r0)) for r0 in range(0, mm, 64)]  # SrcB holds 64 rows of A
    programs = []
    for ci, (r0, rows) in enumerate(chunks):
        prog = []
        for g in range(rows // 8):
            end = g == rows // 8 - 1  # the chunk's last rows: hand SrcB back (and SrcA after the last chunk)
            flips = {"FlipSrcB": int(end), "FlipSrcA": int(end and ci == len(chunks) - 1)}
            prog += [make("MVMUL", DstRow=r0 + 8 * g, AddrMod=1)] * (phases - 1)
            prog.append(make("MVMUL", DstRow=r0 + 8 * g, AddrMod=3 if end else 2, **flips))
        programs.append(prog)
    values, codes = np.empty((mm, n)), np.empty((mm, n), np.uint64)
    count: Counter = Counter()
    for s in range(0, n, 16):
        m.execute(make("ZEROACC", Mode=3))
        count["ZEROACC"] += 1
        for k0 in range(0, k, 16):
            _unpack(m, "srca", b[k0:k0 + 16, s:s + 16], dtype)
            for (r0, rows), program in zip(chunks, programs):
                _unpack(m, "srcb", a[r0:r0 + rows, k0:k0 + 16], dtype)
                m.run(program)
                count["MVMUL"] += len(program)
        p = m.pack("FP32", row=0, rows=mm)
        values[:, s:s + 16], codes[:, s:s + 16] = p.values, p.codes
    return values, codes, count


def recip(x: np.ndarray, dtype: str, rounding: str):
    """``1 / x`` by the SFPU reciprocal kernel, FP32 in and out (any dtype's values are exact in FP32)."""
    from ..tensix.sfpu.kernels import RECIPROCAL_INIT, RECIPROCAL_STEP
    return _sfpu_unary(x, rounding, RECIPROCAL_INIT, RECIPROCAL_STEP)


def exp(x: np.ndarray, dtype: str, rounding: str):
    """``exp(x)`` by the SFPU exp_21f kernel, FP32 in and out."""
    from ..tensix.sfpu.kernels import EXP_STEP
    return _sfpu_unary(x, rounding, (), EXP_STEP)


def _sfpu_unary(x: np.ndarray, rounding: str, init_text, step_text):
    """Run an SFPU kernel (``init_text`` once, ``step_text`` per 32 lanes) over ``x`` in FP32 Dst."""
    from ..tensix import parse
    init = [parse(t) for t in init_text]
    step = [parse(t) for t in step_text]
    flat = np.asarray(x, np.float64).reshape(-1, 16)
    out = np.empty((flat.shape[0], 16), np.uint32)
    count: Counter = Counter()
    m = Machine(rounding)
    m.configure(ALU_ACC_CTRL_Fp32_enabled=1, ALU_ACC_CTRL_SFPU_Fp32_enabled=1, ADDR_MOD_SET_Base=1)
    m.run(init)
    count.update(i.mnemonic for i in init)
    for start in range(0, flat.shape[0], _DST32_ROWS):
        block = flat[start:start + _DST32_ROWS]
        rows = -(-block.shape[0] // 4) * 4
        padded = np.ones((rows, 16))
        padded[:block.shape[0]] = block
        m.unpack("dst", padded, "FP32")
        m.rwc[0].dst = 0
        program = step * (rows // 2)
        m.run(program)
        count.update(i.mnemonic for i in program)
        out[start:start + block.shape[0]] = m.pack("FP32", rows=rows, dst32=True, rounding=False).codes[:block.shape[0]]
    codes = out.reshape(np.shape(x))
    return formats.decode(codes, "fp32"), codes, count
