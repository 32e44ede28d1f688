"""Random machine states for the oracle comparisons: every data-type combination of the seeds'
tables, random offsets, RWCs, address modes, threads and undefined Dst rows."""

from __future__ import annotations

import numpy as np

from tilesim.tensix import Machine
from tilesim.tensix.regs import THREAD_CONFIG_FIELDS
from tilesim.tensix.state import Client

from . import oracle

BF16_CODES = (0, 5, 6, 7, 15, 8, 9)
FP16_CODES = (1, 10, 2, 3, 11, 14)

#: (name, config fields) for each row of the ELWMUL/GMPOOL data-type tables (plus the FP16A_FORCE path).
COMBOS = (
    "bf16_dst16", "bf16_dst32", "tf32_dst16", "tf32_dst32", "fp16_dst16", "fp16_dst32", "int8", "fp16_force",
)


def datums(rng: np.random.Generator, style: str, shape, *, garbage: float = 0.03, exp_lo: int = 100,
           exp_hi: int = 150, zero_exp: float = 0.06) -> np.ndarray:
    """Src datums of ``style``: mostly moderate exponents, some exponent-0 datums (whatever their
    mantissa) and extremes, a few random 19-bit words."""
    n = int(np.prod(shape))
    sign = rng.integers(0, 2, n)
    if style == "INT8":
        mag = rng.integers(0, 1024, n)
        mag = np.where(rng.random(n) < 0.5, mag & 0xFF, mag)
        exp = np.where(mag != 0, 16, 0)
        man = mag
    elif style == "FP16":
        exp = rng.integers(1, 32, n)
        exp = np.where(rng.random(n) < 0.7, rng.integers(10, 20, n), exp)
        man = rng.integers(0, 1024, n)
    else:
        exp = np.where(rng.random(n) < 0.8, rng.integers(exp_lo, exp_hi, n), rng.integers(1, 256, n))
        man = rng.integers(0, 1024, n)
        if style == "BF16":
            man = man & 0x3F8
    exp = np.where(rng.random(n) < zero_exp, 0, exp)
    d = (sign << 18) | (man << 8) | exp
    d = np.where(rng.random(n) < garbage, rng.integers(0, 1 << 19, n), d)
    return d.astype(np.uint32).reshape(shape)


def configure(m: Machine, rng: np.random.Generator, combo: str, bank: int) -> str:
    """Set ``m.config[bank]`` for a combo; returns the Src style of the data to generate."""
    c = m.config[bank]
    if combo == "int8":
        c["ALU_ACC_CTRL_INT8_math_enabled"] = 1
        c["ALU_FORMAT_SPEC_REG0_SrcA"] = 14
        c["ALU_FORMAT_SPEC_REG1_SrcB"] = 14
        return "INT8"
    if combo == "fp16_force":
        return "FP16"
    style, width = combo.split("_")
    codes = {"bf16": BF16_CODES, "tf32": (4,), "fp16": FP16_CODES}[style]
    code = int(rng.choice(codes))
    if rng.random() < 0.2:  # the override register instead of REG0
        c["ALU_FORMAT_SPEC_REG_SrcA_override"] = 1
        c["ALU_FORMAT_SPEC_REG_SrcA_val"] = code
        c["ALU_FORMAT_SPEC_REG0_SrcA"] = int(rng.integers(0, 12))
    else:
        c["ALU_FORMAT_SPEC_REG0_SrcA"] = code
    c["ALU_FORMAT_SPEC_REG1_SrcB"] = int(rng.choice((4, 5))) if style != "fp16" else code
    c["ALU_ACC_CTRL_Fp32_enabled"] = int(width == "dst32")
    return style.upper()


def random_machine(rng: np.random.Generator, combo: str, rounding: str = "doc", *, thread: int | None = None,
                   addr_mods: bool = True, offsets: bool = True):
    """A machine ready for one arithmetic instruction on ``thread``: returns (machine, thread, style)."""
    m = Machine(rounding)
    t = int(rng.integers(0, 3)) if thread is None else thread
    bank = int(rng.integers(0, 2))
    tc = m.thread_config[t]
    tc["CFG_STATE_ID_StateID"] = bank
    style = configure(m, rng, combo, bank)
    configure(m, rng, "bf16_dst32", 1 - bank)  # the other bank must not matter
    if combo == "fp16_force":
        tc["FP16A_FORCE_Enable"] = 1
    if offsets:
        tc["DEST_TARGET_REG_CFG_MATH_Offset"] = int(rng.choice((0, 512, int(rng.integers(0, 4096)))))
        m.config[bank]["DEST_REGW_BASE_Base"] = int(rng.choice((0, 0, int(rng.integers(0, 1 << 16)))))
        tc["FIDELITY_BASE_Phase"] = int(rng.integers(0, 4))
        r = m.rwc[t]
        r.srca, r.srcb, r.dst = (int(x) for x in rng.integers(0, 1 << 10, 3))
        r.srca_cr, r.srcb_cr, r.dst_cr = (int(x) for x in rng.integers(0, 1 << 10, 3))
        r.fidelity, r.extra_addr_mod_bit = int(rng.integers(0, 4)), int(rng.integers(0, 2))
        tc["ADDR_MOD_SET_Base"] = int(rng.random() < 0.2)
    if addr_mods:
        for f in THREAD_CONFIG_FIELDS:
            if f.name.startswith("ADDR_MOD_") and rng.random() < 0.3:
                tc[f.name] = int(rng.integers(0, 1 << f.width))
        tc["CLR_DVALID_SrcA_Disable"] = int(rng.random() < 0.3)
        tc["CLR_DVALID_SrcB_Disable"] = int(rng.random() < 0.3)
    m.srca[:] = datums(rng, style, m.srca.shape)
    m.srcb[:] = datums(rng, style, m.srcb.shape)
    m.dst[:] = rng.integers(0, 1 << 16, m.dst.shape, dtype=np.uint16)
    if style != "INT8":  # keep most Dst data in range so that sums are interesting
        m.dst[:] = _dst_like(rng, m.dst.shape, style)
    m.dst_valid[:] = rng.random(1024) < 0.8
    m.srca_bank, m.srcb_bank = (int(x) for x in rng.integers(0, 2, 2))
    m.srca_client[m.srca_bank] = Client.MATRIX_UNIT
    m.srcb_client[m.srcb_bank] = Client.MATRIX_UNIT
    return m, t, style


def _dst_like(rng, shape, style):
    n = int(np.prod(shape))
    sign = rng.integers(0, 2, n)
    if style == "FP16":
        v = (sign << 15) | (rng.integers(0, 1024, n) << 5) | rng.integers(8, 22, n)
    else:
        v = (sign << 15) | (rng.integers(0, 128, n) << 8) | rng.integers(110, 145, n)
    v = np.where(rng.random(n) < 0.05, rng.integers(0, 1 << 16, n), v)
    return v.astype(np.uint16).reshape(shape)


def assert_same(m: Machine, o: oracle.OState) -> None:
    """The machine's state equals the oracle's, bit for bit."""
    got = oracle.snapshot(m)
    want = oracle.as_machine_view(o)
    have = oracle.as_machine_view(got)
    for key in want:
        if key == "bits":
            diff = np.argwhere(np.array(have[key]) != np.array(want[key]))
            assert diff.size == 0, (f"Dst differs at {diff[:5].tolist()}: got "
                                    f"{[hex(have[key][r][c]) for r, c in diff[:5]]} want "
                                    f"{[hex(want[key][r][c]) for r, c in diff[:5]]}")
        else:
            assert have[key] == want[key], key
