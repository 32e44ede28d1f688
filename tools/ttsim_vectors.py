#!/usr/bin/env python3
"""Golden vectors for tilesim's Tensix ``hardware`` model from tenstorrent/ttsim, and the agreement count.

Usage::

    python tools/ttsim_vectors.py TTSIM_CHECKOUT [-o tests/tensix/golden] [--seed 11]

``TTSIM_CHECKOUT`` is a local clone of https://github.com/tenstorrent/ttsim. The tool

1. builds its Wormhole objects with the checkout's own ``make.py`` (``src/_out/release_wh``);
2. compiles ``tools/ttsim_driver.cpp`` (ours) against them: it loads a machine state, runs a
   few instructions through ttsim's ``tensix_decode_and_execute`` and dumps the state;
3. generates the cases (:func:`cases`): ELWMUL/ELWADD/ELWSUB/MVMUL/GAPOOL/GMPOOL/ZEROACC/MOVB2A,
   the moves, and bank-flip sequences, over every SrcA x SrcB format code, 32-bit Dst, INT8
   math, ``Zero_Flag_disabled_src``, fidelity phases, broadcasts, ArgMax, address modes,
   threads and offsets, on data with directed values (exponent 0 with and without mantissa,
   +-0, the top exponents, 1.0, ties) and random ones;
4. stores the inputs, ttsim's outputs (as differences from the input state) and the ttsim
   commit in ``ttsim_wh.npz`` (tests/tensix/test_ttsim_golden.py replays it in CI);
5. replays them through tilesim and prints the agreement per instruction.

With ``--sfpu`` it does the same for the SFPU (cases in ``tools/ttsim_sfpu_cases.py``: every
SFPU instruction, random and directed, condition-code sequences, load-compute-store chains) and
writes ``ttsim_wh_sfpu.npz`` (tests/tensix/test_ttsim_sfpu_golden.py replays it).

Nothing of ttsim's is stored: only our inputs and its results.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.tensix.ttsim_replay import (BASE, CASE, MAGIC, RESULT, compact, load, merge, replay,  # noqa: E402
                                       summary_table)
from tests.tensix.ttsim_sfpu_replay import SFPU_CASE, SFPU_MAGIC, SFPU_RESULT  # noqa: E402
from tests.tensix import ttsim_sfpu_replay  # noqa: E402
from tilesim.tensix import make  # noqa: E402
from tilesim.tensix.regs import RegisterFile  # noqa: E402

DRIVER = Path(__file__).with_name("ttsim_driver.cpp")
OBJECTS = ("tensix", "sim", "tile", "fma", "rv32", "libttsim")
FLAGS = ["-std=c++20", "-O2", "-fno-exceptions", "-fno-rtti", "-DTT_ARCH_VERSION=0", "-DNUM_CHIPS=1",
         "-DNUM_MMIO_CHIPS=1"]


def build(checkout: Path, work: Path) -> Path:
    """Build ttsim's Wormhole objects and our driver; returns the driver's path."""
    src = checkout / "src"
    subprocess.run([sys.executable, str(checkout / "make.py"), "_out/release_wh/libttsim.so"], cwd=src,
                   check=True, stdout=subprocess.DEVNULL)
    out = src / "_out" / "release_wh"
    exe = work / "ttsim_driver"
    arch = ["-march=x86-64-v3"] if subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout.strip() \
        == "x86_64" else []
    subprocess.run(["g++", *FLAGS, *arch, f"-I{src}", f"-I{src / '_out' / 'wh'}", str(DRIVER),
                    *(str(out / f"{o}.o") for o in OBJECTS), "-o", str(exe)], check=True)
    return exe


# -- data ---------------------------------------------------------------------------------------

def src_datum(sign, man, exp):
    return ((np.asarray(sign, np.uint32) & 1) << 18) | ((np.asarray(man, np.uint32) & 0x3FF) << 8) | \
        (np.asarray(exp, np.uint32) & 0xFF)


def src_rows(rng, n, style: str) -> np.ndarray:
    """``n`` rows of 16 Src datums: moderate, wide, special, tie-prone, 1.0 and (FP16) bad rows."""
    rows = np.zeros((n, 16), np.uint32)
    top = 255 if style == "wide" else 31
    mid = (118, 136) if style == "wide" else (9, 21)
    one = 127 if style == "wide" else 15
    for i in range(n):
        kind = rng.choice(["moderate", "moderate", "wide", "special", "ties", "ties", "one", "bad"],
                          p=[.26, .15, .15, .17, .13, .08, .05, .01])
        sign = rng.integers(0, 2, 16)
        man = rng.integers(0, 1024, 16)
        if style == "int8":
            mag = np.where(rng.random(16) < 0.5, rng.integers(0, 128, 16), rng.integers(0, 1024, 16))
            if kind == "special":
                mag = rng.choice([0, 1, 127, 128, 255, 1023], 16)
            exp = np.where(mag != 0, 16, 0)
            if kind in ("wide", "bad"):   # exponents that are not the INT8 overlay's
                exp = rng.choice([0, 16, 1, 255, 127], 16)
            rows[i] = src_datum(sign, mag, exp)
            continue
        if kind == "moderate":
            exp = rng.integers(*mid, 16)
        elif kind == "wide":
            exp = rng.integers(0, top + 1, 16)
        elif kind == "special":
            exp = rng.choice([0, 0, 1, top - 1, top, one], 16)
            man = rng.choice([0, 0, 1, 0x3FF, 0x200, 0x3F8], 16)
        elif kind == "ties":
            exp = rng.integers(mid[0] + 4, mid[0] + 8, 16)
            man = rng.choice([0, 0x200, 0x100, 0x300, 0x080, 0x008, 0x018, 0x3F8, 0x3FF], 16)
        elif kind == "one":
            exp, man, sign = np.full(16, one), np.zeros(16, int), np.zeros(16, int)
        else:  # bad: FP16 datums with exponent bits [7:5] set; ordinary wide rows otherwise
            exp = rng.integers(0, 256, 16)
        rows[i] = src_datum(sign, man, exp)
    return rows


def dst_rows(rng, n, style: str) -> np.ndarray:
    """``n`` Dst16 rows (for 32-bit data, pairs of rows hold high and low halves)."""
    out = np.zeros((n, 16), np.uint16)
    for i in range(n):
        kind = rng.choice(["moderate", "wide", "special"], p=[.6, .25, .15])
        sign = rng.integers(0, 2, 16)
        if kind == "wide":
            out[i] = rng.integers(0, 1 << 16, 16)
        elif kind == "special":
            out[i] = rng.choice([0, 0x8000, 0x00FF, 0x7FFF, 0xFFFF, 0x0001, 0x7F00, 0x001F, 0x7FE0], 16)
        elif style == "fp16":
            out[i] = (sign << 15) | (rng.integers(0, 1024, 16) << 5) | rng.integers(8, 22, 16)
        elif style == "int8":
            out[i] = (sign << 15) | rng.integers(0, 1 << 15, 16)
        else:
            out[i] = (sign << 15) | (rng.integers(0, 128, 16) << 8) | rng.integers(112, 142, 16)
    return out


def base_state(rng, style: str) -> np.ndarray:
    """One input state: both banks of SrcA/SrcB, Dst and its valid flags. Every bank's SrcB rows
    0 and 32 are 1.0 (GMPOOL's only scale ttsim models)."""
    b = np.zeros((), BASE)
    b["srca"] = src_rows(rng, 128, style).reshape(2, 64, 16)
    srcb = src_rows(rng, 128, style).reshape(2, 64, 16)
    if style != "int8":
        srcb[:, [0, 32]] = src_datum(0, 0, 127 if style == "wide" else 15)
    b["srcb"] = srcb
    b["dst"] = dst_rows(rng, 1024, style)
    b["valid"] = rng.random(1024) < 0.85
    return b


STYLES = ("wide", "fp16", "int8")


# -- cases --------------------------------------------------------------------------------------

@dataclass
class Case:
    group: str
    base: int
    cfg: np.ndarray = field(default_factory=lambda: np.zeros((2, 3), np.uint32))
    tcfg: np.ndarray = field(default_factory=lambda: np.zeros((3, 64), np.uint16))
    banks: list = field(default_factory=lambda: [0, 0, 1, 1, 1, 1])
    rwc: np.ndarray = field(default_factory=lambda: np.zeros((3, 8), np.uint32))
    insns: list = field(default_factory=list)

    def config(self, bank: int, **fields: int) -> None:
        rf = RegisterFile.config()
        for a in range(3):
            rf.set_word(a, int(self.cfg[bank, a]))
        for k, v in fields.items():
            rf[k] = v
        self.cfg[bank] = [rf.word(a) for a in range(3)]

    def thread_config(self, thread: int, **fields: int) -> None:
        rf = RegisterFile.thread_config()
        for a in range(64):
            if self.tcfg[thread, a]:
                rf.set_word(a, int(self.tcfg[thread, a]))
        for k, v in fields.items():
            rf[k] = v
        self.tcfg[thread] = [rf.word(a) for a in range(64)]

    def add(self, thread: int, word: int) -> None:
        self.insns.append((thread, int(word)))


#: (SrcA code, SrcB code, INT8 math) that ttsim models, per instruction family.
MODELLED = {
    "elw": [(a, b, 0) for a in (0, 4, 5, 6, 7, 15) for b in (0, 4, 5, 6, 7, 8, 9, 15)]
    + [(1, 1, 0), (10, 10, 0)] * 6 + [(14, 14, 1), (14, 15, 1)] * 6,
    "matmul": [(a, b, 0) for a in (0, 4, 5, 6, 7) for b in (0, 4, 5, 6, 7, 9)] + [(1, 1, 0), (10, 10, 0)] * 5
    + [(14, 14, 1)] * 8,
    "gmpool": [(a, b, 0) for a in (0, 4, 5, 6, 7) for b in (0, 4, 5, 6, 7)],
}


def style_of(a_fmt: int, int8: bool) -> int:
    return 2 if int8 else (1 if a_fmt in (1, 10, 2, 3, 11, 14) else 0)


def random_addr_mods(rng, c: Case, t: int, align: int) -> None:
    """Random ADDR_MOD sections (mostly aligned increments), bias and set-base bits."""
    fields = {}
    for i in range(8):
        p = f"ADDR_MOD_AB_SEC{i}_"
        fields[p + "SrcAIncr"] = int(rng.choice([0, 0, align, 2 * align, 16, 32, int(rng.integers(0, 64))]))
        fields[p + "SrcBIncr"] = int(rng.choice([0, 0, 8, 16, 32, int(rng.integers(0, 64))]))
        fields[p + "SrcACR"], fields[p + "SrcBCR"] = (int(x) for x in rng.random(2) < 0.2)
        fields[p + "SrcAClear"], fields[p + "SrcBClear"] = (int(x) for x in rng.random(2) < 0.2)
        d = f"ADDR_MOD_DST_SEC{i}_"
        fields[d + "DestIncr"] = int(rng.choice([0, 8, 16, 4, int(rng.integers(0, 1024))]))
        mode = rng.choice(["inc", "cr", "clear", "ctocr", "ctocr+cr"], p=[.5, .2, .15, .12, .03])
        fields[d + "DestCR"] = int(mode in ("cr", "ctocr+cr"))
        fields[d + "DestClear"] = int(mode == "clear")
        fields[d + "DestCToCR"] = int(mode.startswith("ctocr"))
        fields[d + "FidelityIncr"] = int(rng.integers(0, 4))
        fields[d + "FidelityClear"] = int(rng.random() < 0.2)
        b = f"ADDR_MOD_BIAS_SEC{i}_"
        fields[b + "BiasIncr"] = int(rng.choice([0, 0, 0, 1, 1, 1, 1, 2]))
        fields[b + "BiasClear"] = int(rng.random() < 0.05)
    fields["ADDR_MOD_SET_Base"] = int(rng.random() < 0.15)
    c.thread_config(t, **fields)


def random_rwc(rng, c: Case, t: int, a_align: int, b_align: int, dst_align: int) -> None:
    """The thread's RWCs, mostly aligned as ttsim requires; other threads' are random."""
    for th in range(3):
        c.rwc[th] = [rng.integers(0, 64), rng.integers(0, 64), rng.integers(0, 64), rng.integers(0, 64),
                     rng.integers(0, 1024), rng.integers(0, 1024), rng.integers(0, 2), rng.integers(0, 4)]
    aligned = rng.random() < 0.97
    c.rwc[t, 0] = rng.integers(0, 64 // a_align) * a_align if aligned else rng.integers(0, 64)
    c.rwc[t, 2] = rng.integers(0, 64 // b_align) * b_align if aligned else rng.integers(0, 64)
    c.rwc[t, 4] = rng.integers(0, 512 // dst_align) * dst_align if aligned else rng.integers(0, 1024)
    c.rwc[t, 6] = int(rng.random() < 0.2)


def setup(rng, c: Case, *, a_fmt: int, b_fmt: int, fp32: int, int8: int, zflag: int, a_align=8, b_align=8,
          dst_align=8) -> int:
    """A random machine for one arithmetic instruction; returns the thread."""
    t = int(rng.integers(0, 3))
    bank = int(rng.integers(0, 2))
    c.thread_config(t, CFG_STATE_ID_StateID=bank, FIDELITY_BASE_Phase=int(rng.integers(0, 4)),
                    DEST_TARGET_REG_CFG_MATH_Offset=int(rng.choice([0, 0, 64, 256, 512, 8 * int(rng.integers(0, 8))])),
                    CLR_DVALID_SrcA_Disable=int(rng.random() < 0.3), CLR_DVALID_SrcB_Disable=int(rng.random() < 0.3))
    random_addr_mods(rng, c, t, a_align)
    c.config(bank, ALU_FORMAT_SPEC_REG0_SrcA=a_fmt, ALU_FORMAT_SPEC_REG1_SrcB=b_fmt, ALU_ACC_CTRL_Fp32_enabled=fp32,
             ALU_ACC_CTRL_INT8_math_enabled=int8, ALU_ACC_CTRL_Zero_Flag_disabled_src=zflag,
             ALU_ACC_CTRL_Zero_Flag_disabled_dst=int(rng.random() < 0.2))
    c.config(1 - bank, ALU_FORMAT_SPEC_REG0_SrcA=int(rng.integers(0, 16)),
             ALU_FORMAT_SPEC_REG1_SrcB=int(rng.integers(0, 16)), ALU_ACC_CTRL_Fp32_enabled=int(rng.integers(0, 2)))
    random_rwc(rng, c, t, a_align, b_align, dst_align)
    ma, mb = (int(x) for x in rng.integers(0, 2, 2))
    c.banks = [ma, mb, int(rng.integers(0, 2)), int(rng.integers(0, 2)),
               (1 << ma) | int(rng.integers(0, 4)), (1 << mb) | int(rng.integers(0, 4))]
    if rng.random() < 0.03:   # a bank the Matrix Unit does not own: the instruction waits
        c.banks[4 + int(rng.integers(0, 2))] = 0
    return t


def fmt_combos(rng, family: str, n_random: int):
    """Every SrcA x SrcB code, 32-bit Dst, INT8 math and flush flag once, then ``n_random`` draws
    from the combinations ttsim models."""
    for a in range(16):
        for b in range(16):
            for fp32 in (0, 1):
                for int8 in (0, 1):
                    yield a, b, fp32, int8, int(rng.random() < 0.25)
    modelled = MODELLED[family]
    for _ in range(n_random):
        a, b, int8 = modelled[int(rng.integers(0, len(modelled)))]
        yield a, b, int(rng.integers(0, 2)), int8, int(rng.random() < 0.3)


def elw_cases(rng, op: str, n_random: int):
    for a, b, fp32, int8, zflag in fmt_combos(rng, "elw", n_random):
        c = Case(op, style_of(a, int8))
        t = setup(rng, c, a_fmt=a, b_fmt=b, fp32=fp32, int8=int8, zflag=zflag)
        if op != "ELWMUL" and rng.random() < 0.85:   # ELWADD/ELWSUB are contractual in phase 0 only
            c.rwc[t, 7] = 0
            c.thread_config(t, FIDELITY_BASE_Phase=0)
        extra = {"DestAccumEn": int(rng.random() < 0.05)} if op == "ELWMUL" else {"AddDst": int(rng.integers(0, 2))}
        c.add(t, make(op, DstRow=8 * int(rng.integers(0, 4)) if rng.random() < 0.95 else int(rng.integers(0, 1024)),
                      AddrMod=int(rng.integers(0, 4)), BroadcastSrcBCol0=int(rng.random() < 0.25),
                      BroadcastSrcBRow=int(rng.random() < 0.25), FlipSrcA=int(rng.random() < 0.2),
                      FlipSrcB=int(rng.random() < 0.2), **extra).word())
        yield c


def matmul_cases(rng, op: str, n_random: int):
    rows = 4 if op == "GAPOOL" else 8
    for a, b, fp32, int8, zflag in fmt_combos(rng, "matmul", n_random):
        c = Case(op, style_of(a, int8))
        t = setup(rng, c, a_fmt=a, b_fmt=b, fp32=fp32, int8=int8, zflag=zflag if rng.random() < 0.2 else 0,
                  a_align=16, dst_align=rows)
        mod = {"InstrMod19": int(rng.random() < 0.95)} if op == "GAPOOL" else \
            {"BroadcastSrcBRow": int(rng.random() < 0.05)}
        c.add(t, make(op, DstRow=rows * int(rng.integers(0, 4)), AddrMod=int(rng.integers(0, 4)),
                      FlipSrcA=int(rng.random() < 0.2), FlipSrcB=int(rng.random() < 0.2), **mod).word())
        yield c


def gmpool_cases(rng, n_random: int):
    for a, b, fp32, int8, zflag in fmt_combos(rng, "gmpool", n_random):
        c = Case("GMPOOL", style_of(a, int8))
        t = setup(rng, c, a_fmt=a, b_fmt=b, fp32=fp32, int8=int8, zflag=zflag, a_align=16, dst_align=4)
        if rng.random() < 0.9:
            c.rwc[t, 2] = int(rng.choice([0, 32]))   # SrcB rows of 1.0
        c.add(t, make("GMPOOL", DstRow=4 * int(rng.integers(0, 8)), AddrMod=int(rng.integers(0, 4)),
                      InstrMod19=int(rng.random() < 0.95), ArgMax=int(rng.random() < 0.1),
                      FlipSrcA=int(rng.random() < 0.2), FlipSrcB=int(rng.random() < 0.2)).word())
        yield c


def zeroacc_cases(rng, n: int):
    for _ in range(n):
        c = Case("ZEROACC", int(rng.integers(0, 3)))
        t = setup(rng, c, a_fmt=5, b_fmt=5, fp32=int(rng.integers(0, 2)), int8=int(rng.random() < 0.15), zflag=0,
                  dst_align=1)
        mode = int(rng.integers(0, 4))
        imm = int(rng.choice([0, 1, 2, 31, 63, 255, 256, 1023, int(rng.integers(0, 1024))]))
        c.add(t, make("ZEROACC", Mode=mode, UseDst32b=int(rng.random() < 0.3), Imm10=imm,
                      AddrMod=int(rng.integers(0, 4)), Revert=int(rng.random() < 0.03)).word())
        yield c


def movb2a_cases(rng, n: int):
    for _ in range(n):
        a = int(rng.choice((0, 1, 4, 5, 6, 7, 10, 14)))
        c = Case("MOVB2A", style_of(a, False))
        t = setup(rng, c, a_fmt=a, b_fmt=a, fp32=int(rng.integers(0, 2)), int8=0, zflag=int(rng.random() < 0.4),
                  a_align=4, b_align=4)
        room_a, room_b = (max((64 - int(c.rwc[t, k])) // 4, 1) for k in (0, 2))
        c.add(t, make("MOVB2A", SrcARow=4 * int(rng.integers(0, room_a)) if rng.random() < 0.95 else int(rng.integers(0, 64)),
                      SrcBRow=4 * int(rng.integers(0, room_b)) if rng.random() < 0.95 else int(rng.integers(0, 64)),
                      Move4Rows=int(rng.random() < 0.95), AddrMod=int(rng.integers(0, 4))).word()
              | (int(rng.random() < 0.05) << 12))   # bit 12: no field (decodes as an error)
        yield c


def move_cases(rng, op: str, n: int):
    """MOVA2D / MOVB2D / MOVD2A / MOVD2B, mostly in the row counts and alignments ttsim models."""
    step = 8 if op == "MOVA2D" else 4
    for _ in range(n):
        a = int(rng.choice((0, 1, 4, 5, 6, 7, 8, 10, 15)))
        c = Case(op, style_of(a, False))
        t = setup(rng, c, a_fmt=a, b_fmt=a if rng.random() < 0.8 else int(rng.choice((1, 4, 5))),
                  fp32=int(rng.integers(0, 2)), int8=int(rng.random() < 0.1), zflag=int(rng.random() < 0.3),
                  a_align=step, b_align=step, dst_align=step)
        src_room = (64 - int(c.rwc[t, 0 if op == "MOVA2D" else 2])) // step
        fields = dict(DstRow=step * int(rng.integers(0, 8)) if rng.random() < 0.95 else int(rng.integers(0, 1024)),
                      SrcRow=step * int(rng.integers(0, max(src_room, 1))) if rng.random() < 0.95
                      else int(rng.integers(0, 64)), AddrMod=int(rng.integers(0, 4)),
                      UseDst32bLo=int(rng.random() < 0.2))
        if op == "MOVA2D":
            fields["Move8Rows"] = int(rng.random() < 0.95)
        elif op == "MOVB2D":
            mod = int(rng.choice([2, 3, 4, 5])) if rng.random() < 0.95 else int(rng.integers(0, 8))
            fields.update(BroadcastCol0=mod & 1, Broadcast1RowTo8=mod >> 1 & 1, Move4Rows=mod >> 2 & 1)
        else:
            fields["Move4Rows"] = int(rng.random() < (0.95 if op == "MOVD2A" else 0.6))
        c.add(t, make(op, **fields).word())
        yield c


def misc_cases(rng, n: int):
    """TRNSPSRCB, ZEROSRC, SETRWC and INCRWC on random states."""
    for _ in range(n):
        op = str(rng.choice(["TRNSPSRCB", "ZEROSRC", "SETRWC", "INCRWC"]))
        c = Case(op, int(rng.integers(0, 3)))
        t = setup(rng, c, a_fmt=5, b_fmt=5, fp32=0, int8=0, zflag=0)
        if op == "ZEROSRC":
            both = int(rng.integers(0, 2))
            w = make(op, ClearSrcA=int(both or rng.integers(0, 2)), ClearSrcB=int(both or rng.integers(0, 2)),
                     BothBanks=both, SingleBankMatrixUnit=int(not both or rng.random() < 0.1),
                     NegativeInfSrcA=int(rng.random() < 0.05)).word()
        elif op == "SETRWC":
            sets = {f: int(rng.integers(0, 2)) for f in ("SrcA", "SrcB", "Dst", "Fidelity")}
            w = make(op, **sets, SrcACr=sets["SrcA"] & int(rng.integers(0, 2)),
                     SrcBCr=sets["SrcB"] & int(rng.integers(0, 2)), DstCr=int(rng.integers(0, 2)),
                     FlipSrcA=int(rng.random() < 0.2), FlipSrcB=int(rng.random() < 0.2),
                     DstCtoCr=int(rng.random() < 0.05), SrcAVal=int(rng.integers(0, 16)),
                     SrcBVal=int(rng.integers(0, 16)), DstVal=int(rng.integers(0, 16))).word()
        elif op == "INCRWC":
            w = make(op, SrcAInc=int(rng.integers(0, 16)), SrcBInc=int(rng.integers(0, 16)),
                     DstInc=int(rng.integers(0, 16)), SrcACr=int(rng.random() < 0.05), SrcBCr=int(rng.random() < 0.05),
                     DstCr=int(rng.random() < 0.5)).word()
        else:
            w = make(op).word()
        c.add(t, w)
        yield c


def flip_cases(rng, n: int):
    """Sequences of bank hand-overs: SETDVALID, CLEARDVALID, SETRWC and arithmetic with flip bits."""
    for _ in range(n):
        c = Case("FLIPS", 0)
        t = setup(rng, c, a_fmt=5, b_fmt=5, fp32=0, int8=0, zflag=0, a_align=16)
        c.rwc[t, 2] = int(rng.choice([0, 32]))
        c.rwc[t, 7] = 0
        c.thread_config(t, FIDELITY_BASE_Phase=0)
        for _ in range(int(rng.integers(2, 7))):
            op = str(rng.choice(["SETDVALID", "CLEARDVALID", "SETRWC", "ELWADD", "GMPOOL", "MVMUL"]))
            flips = dict(FlipSrcA=int(rng.integers(0, 2)), FlipSrcB=int(rng.integers(0, 2)))
            if op == "SETDVALID":
                w = make(op, FlipSrcA=int(rng.integers(0, 2)), FlipSrcB=int(rng.random() < 0.9))
            elif op == "CLEARDVALID":
                w = make(op, KeepReadingSameSrc=int(rng.random() < 0.1), Reset=int(rng.random() < 0.02), **flips)
            elif op == "SETRWC":
                w = make(op, SrcA=1, SrcB=1, **flips)
            elif op == "GMPOOL":
                w = make(op, InstrMod19=1, **flips)
            else:
                w = make(op, **flips)
            c.add(t, w.word())
        yield c


def cases(rng) -> list[Case]:
    out = []
    for op in ("ELWMUL", "ELWADD", "ELWSUB"):
        out += elw_cases(rng, op, 700)
    for op in ("MVMUL", "GAPOOL"):
        out += matmul_cases(rng, op, 400)
    out += gmpool_cases(rng, 600)
    out += zeroacc_cases(rng, 400)
    out += movb2a_cases(rng, 300)
    for op in ("MOVA2D", "MOVB2D", "MOVD2A", "MOVD2B"):
        out += move_cases(rng, op, 250)
    out += misc_cases(rng, 400)
    out += flip_cases(rng, 600)
    return out


# -- running ------------------------------------------------------------------------------------

def run(exe: Path, bases: np.ndarray, batch: list[Case], work: Path, timed: bool = False):
    """ttsim's results for ``batch``; with ``timed``, also its nanoseconds per instruction executed
    (benchmarks/bench_tensix.py uses it to time ttsim in the same run)."""
    recs = np.zeros(len(batch), CASE)
    insns = []
    for i, c in enumerate(batch):
        recs[i]["base"] = c.base
        recs[i]["cfg"] = c.cfg
        recs[i]["tcfg"] = c.tcfg
        recs[i]["banks"] = c.banks
        recs[i]["rwc"] = c.rwc
        recs[i]["insn_start"] = len(insns)
        recs[i]["insn_count"] = len(c.insns)
        insns += c.insns
    return _drive(exe, work, "", (MAGIC, len(bases), len(batch), len(insns)),
                  (bases, recs, np.array(insns, "<u4").reshape(-1, 2)), RESULT, timed)


def run_sfpu(exe: Path, batch, work: Path, timed: bool = False):
    """ttsim's results for a batch of :class:`ttsim_sfpu_cases.SfpuCase`; with ``timed``, also its
    nanoseconds per instruction executed."""
    recs = np.zeros(len(batch), SFPU_CASE)
    words = []
    for i, c in enumerate(batch):
        for k in ("cfg1", "dst_rwc", "cc", "cc_en", "prng_seed", "seeded", "tcfg", "prng", "lregs", "dst", "valid"):
            recs[i][k] = getattr(c, k)
        recs[i]["insn_start"], recs[i]["insn_count"] = len(words), len(c.words)
        words += c.words
    return _drive(exe, work, "sfpu_", (SFPU_MAGIC, 0, len(batch), len(words)),
                  (recs, np.array([(0, w) for w in words], "<u4")), SFPU_RESULT, timed)


def _drive(exe: Path, work: Path, prefix: str, header, arrays, result, timed: bool):
    """Write the driver's input file (``header`` words, then each array's bytes), run the driver, and read
    its ``result`` records; with ``timed``, also the nanoseconds per instruction it reports."""
    inp, out = work / f"{prefix}in.bin", work / f"{prefix}out.bin"
    with open(inp, "wb") as f:
        f.write(np.array(header, "<u4").tobytes())
        for a in arrays:
            f.write(a.tobytes())
    env = dict(os.environ, TTSIM_DRIVER_TIMING="1") if timed else None
    done = subprocess.run([str(exe), str(inp), str(out)], check=True, env=env, stderr=subprocess.PIPE, text=True)
    results = np.fromfile(out, result)
    if not timed:
        return results
    ns, count = (int(x) for x in done.stderr.split("timing ")[-1].split()[:2])
    return results, ns / max(count, 1)


def store_sfpu(batch, results: np.ndarray, commit: str, path: Path) -> None:
    """Inputs, words and ttsim's outcome; final state as XOR differences from the input (mostly 0)."""
    from ttsim_sfpu_cases import SfpuCase  # noqa: F401 - the records' type
    const = results["lregs"][0, 8:] if len(results) else np.zeros((8, 32), np.uint32)
    lregs_in = np.zeros((len(batch), 16, 32), np.uint32)
    lregs_in[:, :8] = [c.lregs for c in batch]
    lregs_in[:, 8:] = const
    arrays = {
        "ttsim_commit": np.array(commit), "group": np.array([c.group for c in batch]),
        "cfg1": np.array([c.cfg1 for c in batch], np.uint32), "dst_rwc": np.array([c.dst_rwc for c in batch], np.uint32),
        "cc": np.array([c.cc for c in batch], np.uint32), "cc_en": np.array([c.cc_en for c in batch], np.uint32),
        "prng_seed": np.array([c.prng_seed for c in batch], np.uint32),
        "seeded": np.array([c.seeded for c in batch], np.uint32),
        "tcfg": np.array([c.tcfg for c in batch], np.uint16), "prng": np.array([c.prng for c in batch], np.uint32),
        "lregs": np.array([c.lregs for c in batch], np.uint32), "dst": np.array([c.dst for c in batch], np.uint16),
        "valid": np.array([c.valid for c in batch], np.uint8), "const_lregs": const,
        "insn_count": np.array([len(c.words) for c in batch], np.uint32),
        "insn_word": np.array([w for c in batch for w in c.words], np.uint32),
        "status": results["status"], "done": results["done"], "category": results["category"],
        "message": results["message"], "x_lregs": results["lregs"] ^ lregs_in,
        "out_scalars": np.stack([results[k] for k in ttsim_sfpu_replay.SCALARS], axis=1).astype(np.uint32),
        "templates": results["templates"], "sequences": results["sequences"],
        "x_prng": results["prng"] ^ np.array([c.prng for c in batch], np.uint32),
        "x_dst": results["dst"] ^ np.array([c.dst for c in batch], np.uint16),
        "x_valid": results["valid"] ^ np.array([c.valid for c in batch], np.uint8),
    }
    np.savez_compressed(path, **arrays)


def main_sfpu(checkout: Path, out_dir: Path, seed: int, commit: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from ttsim_sfpu_cases import sfpu_cases
    batch = sfpu_cases(np.random.default_rng(seed))
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(checkout, Path(tmp))
        results = run_sfpu(exe, batch, Path(tmp))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "ttsim_wh_sfpu.npz"
    store_sfpu(batch, results, commit, path)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB): {len(batch)} cases, ttsim {commit[:12]}")
    print(ttsim_sfpu_replay.summary(ttsim_sfpu_replay.replay(ttsim_sfpu_replay.load(path))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path, help="a clone of github.com/tenstorrent/ttsim")
    ap.add_argument("-o", "--out", type=Path, default=ROOT / "tests" / "tensix" / "golden")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--sfpu", action="store_true", help="the SFPU bank (ttsim_wh_sfpu.npz) instead of the FPU's")
    args = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(args.checkout), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    if args.sfpu:
        main_sfpu(args.checkout, args.out, args.seed, commit)
        return
    rng = np.random.default_rng(args.seed)
    bases = np.stack([base_state(rng, s) for s in STYLES])
    all_cases = cases(rng)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        exe = build(args.checkout, work)
        results = []
        for start in range(0, len(all_cases), 1000):
            batch = all_cases[start:start + 1000]
            results.append(compact(bases, batch, run(exe, bases, batch, work)))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "ttsim_wh.npz"
    np.savez_compressed(path, **merge(bases, results, commit))
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB): {len(all_cases)} cases, ttsim {commit[:12]}")
    print(summary_table(replay(load(path))))


if __name__ == "__main__":
    main()
