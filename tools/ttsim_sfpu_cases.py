"""The SFPU cases of ``tools/ttsim_vectors.py --sfpu``: random and directed, per instruction.

Each case is an input state (Config word 1, ThreadConfig of thread 0, RWC.Dst, LReg0-7, lane flags,
the enable, the PRNG, Dst rows 0..31) and 1 to 8 SFPU words. Operand data mixes special values
(signed zeros, denormals, Inf, NaNs, 1.0, the largest finite value, LUT boundaries), small integers
and floats of nearby magnitudes (cancellation and rounding in the FMA). Fields are mostly the values
ttsim models, sometimes any value (so refusals are compared too).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilesim.tensix import make
from tilesim.tensix.cli import parse_program, run_program
from tilesim.tensix.isa import SFPU_ROWS
from tilesim.tensix.regs import RegisterFile
from tilesim.tensix.sfpu.common import DEFINED_BITS, MODELLED_MODS

SPECIALS = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x00000001,
                     0x807FFFFF, 0x3F800000, 0xBF800000, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F000000,
                     0x3FC00000, 0x40000000, 0x40400000, 0x3F7FFFFF, 0x0000FFFF, 0x00008000, 0x7FFFFFFF, 0x4B000000,
                     0x477FE000, 0x47800000, 0x38800000, 0x387FC000], np.uint32)

#: instr_mod values ttsim models, per mnemonic (the rest are refused: picked 1 time in 12).
MODS = MODELLED_MODS
GROUP_CASES = 40
ROWS = {r.mnemonic: r for r in SFPU_ROWS}


def lane_values(rng, n: int) -> np.ndarray:
    """``n`` LReg values: specials, small integers, floats of a few nearby magnitudes, raw bits."""
    kind = rng.integers(0, 5, n)
    scale = 2.0 ** rng.integers(-3, 4)
    floats = (rng.standard_normal(n) * scale).astype(np.float32).view(np.uint32)
    with np.errstate(over="ignore"):     # some overflow to Inf, as intended
        wide = (rng.standard_normal(n) * 2.0 ** rng.integers(-140, 128, n)).astype(np.float32).view(np.uint32)
    out = np.select([kind == 0, kind == 1, kind == 2, kind == 3],
                    [rng.choice(SPECIALS, n), rng.integers(-40, 41, n).astype(np.int64) & 0xFFFFFFFF, floats, wide],
                    rng.integers(0, 1 << 32, n, dtype=np.uint64))
    return out.astype(np.uint32)


class SfpuCase:
    def __init__(self, rng, group: str, dst: bool) -> None:
        self.group = group
        fmt = int(rng.choice([0, 1, 5, 6, 7, 9, 15, 4] if rng.random() < 0.3 else [5, 1]))
        self.cfg1 = (fmt << 21) | (int(rng.random() < 0.5) << 30)
        tc = RegisterFile.thread_config()
        if rng.random() < 0.2:
            tc["DEST_TARGET_REG_CFG_MATH_Offset"] = int(rng.choice([4, 8, 16]))
        for i in range(4):
            if rng.random() < 0.3:
                tc[f"ADDR_MOD_DST_SEC{i}_DestIncr"] = int(rng.choice([2, 4, 8]))
        self.tcfg = np.array([tc.word(a) for a in range(64)], np.uint16)
        self.dst_rwc = int(rng.choice([0, 0, 2, 4, 8, 12]))
        self.cc = 0xFFFFFFFF if rng.random() < 0.6 else int(rng.integers(0, 1 << 32))
        self.cc_en = int(rng.random() < 0.9)
        self.prng_seed, self.seeded = 0, 0
        self.prng = np.zeros(32, np.uint32)
        if group in ("SFPMOV", "SFP_STOCH_RND", "CC"):
            self.prng = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
        # 128 values per case: LReg r and r + 4 share them, in another lane order (a compact bank)
        vals = lane_values(rng, 128)
        self.lregs = np.concatenate([vals, np.roll(vals, 37)]).reshape(8, 32)
        if rng.random() < 0.2:   # the same value on every lane (SFPCONFIG's source)
            self.lregs[0] = rng.choice([0, 4, 0x100, 0x104, int(rng.integers(0, 1 << 32))])
        self.dst = np.zeros((32, 16), np.uint16)
        self.valid = np.ones(32, np.uint8)
        if dst:
            self.dst = (lane_values(rng, 32 * 16) >> rng.choice([0, 16])).astype(np.uint16).reshape(32, 16)
            self.valid = (rng.random(32) > 0.1).astype(np.uint8)
        self.words: list[int] = []


def kernel_cases(examples: Path) -> list[SfpuCase]:
    """The transcribed tt-llk SFPU kernels (``examples/tensix/llk_sfpu_*.tt``): the state their
    directives set up (configuration, Dst data), then every instruction word of the program."""
    out = []
    for path in sorted(examples.glob("llk_sfpu_*.tt")):
        statements = parse_program(path.read_text(), str(path))
        first = next(i for i, s in enumerate(statements) if s.kind == "insn")
        m, _ = run_program(statements[:first], {}, "hardware", str(path))
        c = SfpuCase(np.random.default_rng(0), f"KERNEL {path.stem}", False)
        c.cfg1 = m.config[0].word(1)
        c.tcfg = np.array([m.thread_config[0].word(a) for a in range(64)], np.uint16)
        c.dst_rwc, c.cc, c.cc_en = 0, 0xFFFFFFFF, 1
        c.prng[:] = 0
        c.lregs = m.sfpu.lregs[:8].copy()
        c.dst, c.valid = m.dst[:32].copy(), m.dst_valid[:32].astype(np.uint8)
        c.words = [s.args[0].word() for s in statements[first:] if s.kind == "insn"]
        out.append(c)
    return out


def seed_cases(rng) -> list[SfpuCase]:
    """PRNG_SEED_Seed_Val written with a random seed, then PRNG reads (SFPMOV mode 8) and steps
    (SFP_STOCH_RND), some on a subset of lanes."""
    out = []
    for _ in range(20):
        c = SfpuCase(rng, "PRNG SEED", False)
        c.prng_seed, c.seeded, c.cc_en = int(rng.integers(0, 1 << 32)), 1, 1
        c.cc = 0xFFFFFFFF if rng.random() < 0.5 else int(rng.integers(0, 1 << 32))
        for _ in range(int(rng.integers(1, 5))):
            c.words.append(make("SFPMOV", lreg_c=9, lreg_dest=int(rng.integers(0, 8)), instr_mod1=8).word())
            if rng.random() < 0.5:
                c.words.append(make("SFP_STOCH_RND", lreg_src_c=1, lreg_dest=2, instr_mod1=1).word())
        out.append(c)
    return out


def _lreg(rng) -> int:
    return int(rng.integers(0, 8)) if rng.random() < 0.93 else int(rng.integers(8, 16))


def random_word(rng, mnemonic: str) -> int:
    """One word of ``mnemonic`` with mostly modelled field values."""
    row = ROWS[mnemonic]
    odd = rng.random() < 1 / 12
    f = {}
    for fld in row.fields:
        n = fld.name
        if n.startswith("lreg"):
            f[n] = _lreg(rng)
        elif n.startswith("instr_mod"):
            f[n] = int(rng.integers(0, 16)) if odd or mnemonic not in MODS else int(rng.choice(MODS[mnemonic]))
            if mnemonic not in MODS and not odd:
                f[n] = 0
        elif n == "dest_reg_addr":
            f[n] = int(rng.choice([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 28])) + int(odd and rng.random() < 0.5)
        elif n == "sfpu_addr_mode":
            f[n] = int(rng.integers(0, 4))
        elif n in ("imm16", "imm16_math"):
            f[n] = int(rng.choice([0x3F80, 0xBF80, 0x4000, 0x3E00, 0x0000, 0x7F80, 0x8000, 0x0001]) if rng.random() < 0.5
                       else rng.integers(0, 1 << 16))
        elif n == "config_dest":
            f[n] = int(rng.integers(0, 16))
        elif n == "imm12_math":
            f[n] = _imm12(rng, mnemonic, f.get("instr_mod1", 0), odd)
        else:
            f[n] = int(rng.integers(0, 1 << fld.width)) if odd else 0
    if mnemonic == "SFPMUL" and rng.random() < 0.9:
        f["lreg_src_c"] = 9
    if mnemonic == "SFPADD" and rng.random() < 0.9:
        f["lreg_src_a" if rng.random() < 0.5 else "lreg_src_b"] = 10
    if mnemonic == "SFPMOV" and f.get("instr_mod1") == 8:
        f["lreg_c"] = 9
    if mnemonic in ("SFPSETCC", "SFPENCC", "SFPCOMPC", "SFPPUSHC", "SFPPOPC", "SFPTRANSP") and not odd:
        f["lreg_dest"] = 0
    if mnemonic == "SFPCONFIG" and not odd and f["instr_mod1"] == 0:
        f["imm16_math"] = 0
    if mnemonic == "SFPCONFIG" and f["config_dest"] >= 11 and not odd:
        f["imm16_math"] = 0
        f["config_dest"] = 11 if f["instr_mod1"] else f["config_dest"]
    if mnemonic == "SFPCONFIG" and f["config_dest"] == 8 and not odd:
        f["instr_mod1"], f["imm16_math"] = 1, f["imm16_math"] & 0xFFF
    if mnemonic == "SFPCONFIG" and f["config_dest"] == 15 and f["instr_mod1"] == 1 and not odd:
        f["imm16_math"] = int(rng.choice([0, 4, 0x100, 0x104]))
    if mnemonic in ("SFPLOAD", "SFPSTORE", "SFPLOADI", "SFPLUT") and f.get("lreg_ind", 0) >= 12 and not odd:
        f["lreg_ind"] &= 7
    word = make(mnemonic, **f).word()
    return word if odd else word & (0xFF000000 | DEFINED_BITS[mnemonic])


def _imm12(rng, mnemonic: str, mod: int, odd: bool) -> int:
    if odd:
        return int(rng.integers(0, 1 << 12))
    if mnemonic == "SFPIADD":
        return int(rng.integers(0, 1 << 12)) if mod & 1 else 0
    if mnemonic == "SFPSHFT":
        return int(rng.choice([1, 2, 7, 31, 32, 0xFFF, 0xFF8, 0xFE1, 0x800, 0x7FF])) if mod & 1 else 0
    if mnemonic == "SFPDIVP2":
        return int(rng.integers(0, 0x80) if rng.random() < 0.5 else rng.integers(0xF80, 0x1000))
    if mnemonic == "SFPSETEXP":
        return int(rng.integers(0, 256)) if mod == 1 else 0
    if mnemonic == "SFPSETSGN":
        return int(rng.integers(0, 2)) if mod == 1 else 0
    if mnemonic == "SFPENCC":
        return int(rng.integers(0, 4)) if mod == 10 else 0
    if mnemonic == "SFPSHFT2":
        return int(rng.integers(0, 16)) if mod == 5 else 0
    return 0


_ALU = ["SFPMAD", "SFPADD", "SFPMUL", "SFPIADD", "SFPMOV", "SFPABS", "SFPAND", "SFPOR", "SFPXOR", "SFPNOT", "SFPLZ",
        "SFPEXEXP", "SFPSETSGN", "SFPSHFT", "SFPCAST", "SFPSWAP", "SFPLOADI"]
_CC = ["SFPSETCC", "SFPSETCC", "SFPPUSHC", "SFPPOPC", "SFPCOMPC", "SFPENCC", "SFPIADD", "SFPEXEXP", "SFPLZ"]


def sfpu_cases(rng) -> list[SfpuCase]:
    """Per instruction, :data:`GROUP_CASES` single-word cases (Dst-facing ones with Dst data); then
    sequences: condition-code paths (if/else/endif nests), load-compute-store, and template writes."""
    out = []
    for row in SFPU_ROWS:
        mem = row.mnemonic in ("SFPLOAD", "SFPSTORE", "SFPLOADMACRO")
        for _ in range(GROUP_CASES * (3 if mem or row.mnemonic in ("SFPMAD", "SFPADD", "SFPMUL") else 1)):
            c = SfpuCase(rng, row.mnemonic, mem)
            c.words.append(random_word(rng, row.mnemonic))
            out.append(c)
    for _ in range(300):
        c = SfpuCase(rng, "CC", False)
        c.cc, c.cc_en = 0xFFFFFFFF, 1
        for _ in range(int(rng.integers(2, 9))):
            c.words.append(random_word(rng, str(rng.choice(_CC + _ALU[:6]))))
        out.append(c)
    for _ in range(80):
        c = SfpuCase(rng, "STACK", False)
        c.cc, c.cc_en = 0xFFFFFFFF, 1
        depth = 0
        for _ in range(int(rng.integers(3, 12))):
            op = str(rng.choice(["SFPPUSHC", "SFPPOPC", "SFPSETCC", "SFPCOMPC", "SFPENCC", "SFPMOV"]))
            if op == "SFPPOPC" and depth == 0 and rng.random() < 0.9:
                op = "SFPPUSHC"
            depth += {"SFPPUSHC": 1, "SFPPOPC": -1}.get(op, 0)
            c.words.append(random_word(rng, op))
        c.words += [random_word(rng, "SFPPOPC")] * max(depth, 0)
        out.append(c)
    for _ in range(150):
        c = SfpuCase(rng, "LOAD-MAD-STORE", True)
        c.words += [random_word(rng, "SFPLOAD"), random_word(rng, "SFPLOAD"), random_word(rng, "SFPMAD"),
                    random_word(rng, str(rng.choice(_ALU))), random_word(rng, "SFPSTORE")]
        out.append(c)
    out += kernel_cases(Path(__file__).resolve().parents[1] / "examples" / "tensix")
    out += seed_cases(np.random.default_rng([11, 164]))
    for _ in range(60):
        c = SfpuCase(rng, "TEMPLATES", False)
        c.cc = 0xFFFFFFFF
        w = random_word(rng, str(rng.choice(_ALU[:12])))
        c.words += [(w & ~0xF0) | (int(rng.integers(12, 16)) << 4), random_word(rng, "SFPCONFIG")]
        out.append(c)
    return out
