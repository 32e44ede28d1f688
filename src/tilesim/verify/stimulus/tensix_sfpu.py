"""Tensix SFPU stimulus: one SFPU instruction per vector, with the SFPU state it reads and writes.

A vector is a fresh :class:`tilesim.tensix.state.Machine` (thread 0) with LReg0-7 (``lregs``,
32 lanes each; LReg8-15 hold their reset constants), the lane flags and their enable (``flags``,
``flags_enabled``), Config word 1 (``config``: the SrcB format and
``ALU_ACC_CTRL_SFPU_Fp32_enabled``) and the instruction word (``insn``); SFPLOAD and SFPSTORE
vectors also carry the Dst window, physical rows 0..31 (``dst``, ``dst_valid``; RWC.Dst is 0 and
the rest of Dst is 0 and valid). The PRNG starts at 0 (its reset). Outputs: the LRegs, flags and
enable after, and for SFPLOAD/SFPSTORE the Dst window after.

Fields are drawn from what the SFPU executes (:data:`tilesim.tensix.sfpu.common.MODELLED_MODS`);
a draw that tilesim refuses is drawn again. Operand lanes mix random FP32 codes with the value
classes of FP32 (NaN, Inf, zero, subnormal, smallest and largest normal) planted on some lanes.
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import TilesimError
from ...tensix import isa
from ...tensix.sfpu.common import DEFINED_BITS, MODELLED_MODS
from ...tensix.state import Machine
from ..classes import finish, plan
from ..vectorset import Operand, VectorSet
from .values import applicable, class_codes, measure, random_codes

__all__ = ["OPS", "OPTIONS", "generate", "run_one"]

#: Every SFPU instruction that executes, but SFPPOPC: a vector carries no condition stack to pop.
OPS = tuple(r.mnemonic.lower() for r in isa.SFPU_ROWS if r.status == "implemented" and r.mnemonic != "SFPPOPC")
OPTIONS = frozenset({"rounding_model", "dst32"})
WINDOW = 32
_DST_OPS = ("sfpload", "sfpstore")
_FP32 = formats.get("fp32")
#: Operations that read LRegs as FP32 (the others read bit patterns or integers).
_FLOAT_OPS = {"sfpmad", "sfpadd", "sfpmul", "sfpmuli", "sfpaddi", "sfplut", "sfplutfp32", "sfpstore", "sfpdivp2",
              "sfpexexp", "sfpexman", "sfpsetexp", "sfpsetman", "sfpsetsgn", "sfpabs", "sfp_stoch_rnd", "sfpswap",
              "sfpmov", "sfpsetcc", "sfplz", "sfpcast"}
#: Fields fixed by what the instruction requires (SFPADD's factor 1.0, SFPMUL's addend 0.0, ...).
_FIXED = {"SFPADD": {"lreg_src_a": 10}, "SFPMUL": {"lreg_src_c": 9}, "SFPSETCC": {"lreg_dest": 0},
          "SFPENCC": {"lreg_dest": 0}, "SFPCOMPC": {"lreg_dest": 0}, "SFPPUSHC": {"lreg_dest": 0},
          "SFPTRANSP": {"lreg_dest": 0}, "SFPCONFIG": {"config_dest": 15, "instr_mod1": 1}}


def _word(mnemonic: str, rng) -> int:
    row = isa.BY_MNEMONIC[mnemonic]
    f = {}
    for fld in row.fields:
        n = fld.name
        if n.startswith("lreg"):
            f[n] = int(rng.integers(0, 8))
        elif n.startswith("instr_mod"):
            f[n] = int(rng.choice(MODELLED_MODS.get(mnemonic, (0,))))
        elif n == "dest_reg_addr":
            f[n] = int(rng.integers(0, 8)) * 2
        elif n in ("imm16", "imm16_math", "imm12_math"):     # often 0 or small: most modes want that
            f[n] = int(rng.choice([0, int(rng.integers(0, 16)), int(rng.integers(0, 256)),
                                   int(rng.integers(0, 1 << fld.width))]))
        else:
            f[n] = 0
    f.update(_FIXED.get(mnemonic, {}))
    if mnemonic == "SFPMOV" and f["instr_mod1"] == 8:
        f["lreg_c"] = 9
    if mnemonic == "SFPCONFIG":
        f["imm16_math"] = int(rng.choice([0, 4, 0x100, 0x104]))
    return isa.make(mnemonic, **f).word() & (0xFF000000 | DEFINED_BITS[mnemonic])


def _lregs(rng, cls: str) -> np.ndarray:
    codes = random_codes(_FP32, rng, (8, 32)).astype(np.uint32)
    if cls in ("nan", "inf", "zero", "subnormal", "min_normal", "max_normal"):
        flat = codes.reshape(-1)
        k = int(rng.integers(4, 64, endpoint=True))
        flat[rng.choice(flat.size, k, replace=False)] = class_codes(_FP32, cls, rng, k)
    return codes


def generate(op: str, *, n: int, seed: int, min_per_class: int, rounding_model: str = "hardware",
             dst32: bool = True) -> VectorSet:
    """A vector set for one SFPU instruction (``op`` is its mnemonic in lower case)."""
    Machine(rounding_model)
    mnemonic = op.upper()
    rng = np.random.default_rng(seed)
    classes = applicable(_FP32) + (["undefined_dst"] if op == "sfpload" else [])
    order = plan(classes, n, min_per_class, rng)
    cols: dict[str, list] = {k: [] for k in ("lregs", "flags", "flags_enabled", "config", "insn", "dst", "dst_valid",
                                              "lregs_out", "flags_out", "flags_enabled_out", "dst_out",
                                              "dst_valid_out")}
    tags = []
    for cls in order:
        for _ in range(100):
            m = Machine(rounding_model)
            m.configure(0, ALU_ACC_CTRL_SFPU_Fp32_enabled=int(dst32), ALU_ACC_CTRL_Fp32_enabled=int(dst32),
                        ALU_FORMAT_SPEC_REG1_SrcB=int(rng.choice([5, 1])) if not dst32 else 5)
            s = m.sfpu
            s.lregs[:8] = _lregs(rng, cls)
            if op == "sfpconfig":
                s.lregs[0] = s.lregs[0, 0]
            if rng.random() < 0.5 and op not in ("sfpconfig",):
                s.flags[:] = rng.random(32) < 0.7
            m.dst[:WINDOW] = random_codes(formats.get("bf16"), rng, (WINDOW, 16)).astype(np.uint16)
            if cls == "undefined_dst":
                m.dst_valid[:WINDOW] = rng.random(WINDOW) < 0.5
            word = _word(mnemonic, rng)
            before = (s.lregs[:8].copy(), s.flags.copy(), s.flags_enabled, m.dst[:WINDOW].copy(),
                      m.dst_valid[:WINDOW].copy(), m.config[0].word(1))
            try:
                m.execute(word)
            except TilesimError:
                continue
            break
        else:
            raise AssertionError(f"no executable {mnemonic} word in 100 draws")
        t = {c for c, hit in measure(before[0].reshape(-1), _FP32).items() if c in classes and hit.any()}
        if cls == "undefined_dst" or not before[4].all():
            t.add("undefined_dst") if op == "sfpload" else None
        t.add(cls) if cls != "random" else None
        tags.append(sorted(t))
        for k, v in zip(("lregs", "flags", "flags_enabled", "dst", "dst_valid", "config"), before):
            cols[k].append(v)
        cols["insn"].append([word])
        cols["lregs_out"].append(s.lregs[:8].copy())
        cols["flags_out"].append(s.flags.copy())
        cols["flags_enabled_out"].append(s.flags_enabled)
        cols["dst_out"].append(m.dst[:WINDOW].copy())
        cols["dst_valid_out"].append(m.dst_valid[:WINDOW].copy())
    tags = finish(tags, classes, min_per_class)
    lane = "fp32" if op in _FLOAT_OPS else "bits"
    dst_kind = "bits"
    operands = [
        Operand("lregs", "input", (8, 32), 32, lane, doc="LReg0-7, 32 lanes each (lane 8r + c: row r, column c)"),
        Operand("flags", "input", (32,), 1, doc="each lane's condition flag"),
        Operand("flags_enabled", "input", (1,), 1, doc="whether the flags enable lanes"),
        Operand("config", "input", (1,), 32, doc="Config bank 0 word 1 (formats, ALU_ACC_CTRL_SFPU_Fp32_enabled)"),
        Operand("insn", "input", (1,), 32, doc="the instruction word"),
        Operand("lregs_out", "output", (8, 32), 32, lane, doc="LReg0-7 after"),
        Operand("flags_out", "output", (32,), 1, doc="the lane flags after"),
        Operand("flags_enabled_out", "output", (1,), 1, doc="the enable after"),
    ]
    if op in _DST_OPS:
        operands[4:4] = [Operand("dst", "input", (WINDOW, 16), 16, dst_kind, doc="Dst physical rows 0..31 (DstBits)"),
                         Operand("dst_valid", "input", (WINDOW,), 1, doc="valid flag of each Dst row in the window")]
        operands += [Operand("dst_out", "output", (WINDOW, 16), 16, dst_kind, doc="Dst rows 0..31 after"),
                     Operand("dst_valid_out", "output", (WINDOW,), 1, doc="valid flags after")]
    else:
        for k in ("dst", "dst_valid", "dst_out", "dst_valid_out"):
            del cols[k]
    dtypes = {"lregs": np.uint32, "flags": np.uint8, "flags_enabled": np.uint8, "config": np.uint32,
              "insn": np.uint32, "dst": np.uint16, "dst_valid": np.uint8, "lregs_out": np.uint32,
              "flags_out": np.uint8, "flags_enabled_out": np.uint8, "dst_out": np.uint16, "dst_valid_out": np.uint8}
    arrays = {k: np.array(v).astype(dtypes[k]).reshape(len(order), *next(o.shape for o in operands if o.name == k))
              for k, v in cols.items()}
    config = {"unit": "SFPU", "dst32": bool(dst32), "rounding_model": rounding_model, "thread": 0,
              "dst_window_rows": WINDOW if op in _DST_OPS else 0}
    return VectorSet("tensix", op, config, seed, operands, arrays, tags, classes, min_per_class)


def run_one(config: dict, txn) -> dict[str, np.ndarray]:
    """One SFPU instruction on a fresh machine from a transaction (the vector set's inputs by name):
    Config word 1, LReg0-7, the lane flags and their enable, the Dst window for SFPLOAD/SFPSTORE, and
    the instruction word; returns the outputs as :func:`generate` records them."""
    m = Machine(config["rounding_model"])
    m.config[0].set_word(1, int(np.asarray(txn["config"]).reshape(-1)[0]))
    s = m.sfpu
    s.lregs[:8] = np.asarray(txn["lregs"]).astype(np.uint32)
    s.flags[:] = np.asarray(txn["flags"]).astype(bool)
    s.flags_enabled = bool(np.asarray(txn["flags_enabled"]).reshape(-1)[0])
    if config.get("dst_window_rows"):
        m.dst[:WINDOW] = np.asarray(txn["dst"]).astype(np.uint16)
        m.dst_valid[:WINDOW] = np.asarray(txn["dst_valid"]).astype(bool)
    m.execute(int(np.asarray(txn["insn"]).reshape(-1)[0]))
    out = {"lregs_out": s.lregs[:8].copy(), "flags_out": s.flags.astype(np.uint8),
           "flags_enabled_out": np.array([s.flags_enabled], np.uint8)}
    if config.get("dst_window_rows"):
        out |= {"dst_out": m.dst[:WINDOW].copy(), "dst_valid_out": m.dst_valid[:WINDOW].astype(np.uint8)}
    return out
