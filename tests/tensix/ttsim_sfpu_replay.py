"""Replaying ttsim's SFPU golden vectors (``golden/ttsim_wh_sfpu.npz``, made by ``tools/ttsim_vectors.py --sfpu``).

A case sets Config word 1 (formats, ``ALU_ACC_CTRL_SFPU_Fp32_enabled``), ThreadConfig of thread 0,
RWC.Dst, LReg0-7, the lane flags and their enable, the PRNG (or a seed written to
``PRNG_SEED_Seed_Val``), and Dst rows 0..31 (the rest of Dst
is 0 and valid), then runs a few SFPU words on thread 0. ttsim either ran them all (its final
SFPU state and Dst rows are stored, as XOR differences from the input) or refused one (its error
category and message). As for the FPU bank (``ttsim_replay``): a refusal for undefined or
non-contractual behaviour must be a ``TilesimError`` at the same instruction, any other refusal
means ttsim does not model the case and tilesim must raise a ``TilesimError`` there too (the SFPU
follows ttsim's scope: decision TT35); cases that ran must agree bit for bit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilesim.errors import TilesimError
from tilesim.tensix import Machine

from .ttsim_replay import CATEGORIES, CONTRACT, _reason

SFPU_MAGIC = 0x54545332
SFPU_CASE = np.dtype([("cfg1", "<u4"), ("dst_rwc", "<u4"), ("cc", "<u4"), ("cc_en", "<u4"), ("prng_seed", "<u4"),
                      ("seeded", "<u4"), ("tcfg", "<u2", (64,)),
                      ("prng", "<u4", (32,)), ("lregs", "<u4", (8, 32)), ("dst", "<u2", (32, 16)),
                      ("valid", "u1", (32,)), ("insn_start", "<u4"), ("insn_count", "<u4")])
SFPU_RESULT = np.dtype([("status", "<u4"), ("done", "<u4"), ("category", "<u4"), ("message", "S200"),
                        ("lregs", "<u4", (16, 32)), ("cc", "<u4"), ("cc_en", "<u4"), ("cc_sp", "<u4"),
                        ("lane_config", "<u4"), ("misc", "<u4"), ("dst_rwc", "<u4"), ("templates", "<u4", (4,)),
                        ("sequences", "<u4", (4,)), ("prng", "<u4", (32,)), ("dst", "<u2", (32, 16)),
                        ("valid", "u1", (32,))])
#: Scalars of the SFPU state compared after a run.
SCALARS = ("cc", "cc_en", "cc_sp", "lane_config", "misc", "dst_rwc")


def bits_of(flags: np.ndarray) -> int:
    return int(np.packbits(np.asarray(flags, bool), bitorder="little").view("<u4")[0])


def flags_of(word: int) -> np.ndarray:
    return (int(word) >> np.arange(32) & 1).astype(bool)


def machine(case, jit: bool = True) -> Machine:
    """tilesim's machine in a case's input state."""
    m = Machine("hardware", jit=jit)
    m.config[0].set_word(1, int(case["cfg1"]))
    for a in np.flatnonzero(case["tcfg"]):
        m.thread_config[0].set_word(int(a), int(case["tcfg"][a]))
    m.rwc[0].dst = m.rwc[0].dst_cr = int(case["dst_rwc"])
    s = m.sfpu
    s.lregs[:8] = case["lregs"]
    s.prng[:] = case["prng"]
    if case["seeded"]:
        s.seed_prng(int(case["prng_seed"]))
    s.flags[:] = flags_of(case["cc"])
    s.flags_enabled = bool(case["cc_en"])
    m.dst[:32] = case["dst"]
    m.dst_valid[:32] = case["valid"].astype(bool)
    return m


def state(m: Machine) -> dict:
    s = m.sfpu
    return {"lregs": s.lregs, "cc": bits_of(s.flags), "cc_en": int(s.flags_enabled), "cc_sp": len(s.stack),
            "lane_config": s.lane_config, "misc": s.macro_misc, "dst_rwc": m.rwc[0].dst,
            "templates": list(s.templates), "sequences": list(s.sequences), "prng": s.prng, "dst": m.dst[:32],
            "valid": m.dst_valid[:32]}


def expected(g, i: int) -> dict:
    """ttsim's final state of case ``i`` (inputs XOR stored differences)."""
    lregs = np.zeros((16, 32), np.uint32)
    lregs[:8] = g["lregs"][i]
    lregs[8:] = g["const_lregs"]
    return {"lregs": lregs ^ g["x_lregs"][i], "cc": int(g["out_scalars"][i, 0]), "cc_en": int(g["out_scalars"][i, 1]),
            "cc_sp": int(g["out_scalars"][i, 2]), "lane_config": int(g["out_scalars"][i, 3]),
            "misc": int(g["out_scalars"][i, 4]), "dst_rwc": int(g["out_scalars"][i, 5]),
            "templates": [int(x) for x in g["templates"][i]], "sequences": [int(x) for x in g["sequences"][i]],
            "prng": g["prng"][i] ^ g["x_prng"][i], "dst": g["dst"][i] ^ g["x_dst"][i],
            "valid": g["valid"][i] ^ g["x_valid"][i]}


@dataclass(frozen=True)
class Verdict:
    index: int
    group: str
    verdict: str   # agree | refused-both | differ
    detail: str = ""


def load(path: Path) -> dict:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def _case(g, i: int):
    return {k: g[k][i] for k in ("cfg1", "dst_rwc", "cc", "cc_en", "prng_seed", "seeded", "tcfg", "prng", "lregs",
                                 "dst", "valid")}


def replay_one(g, i: int, starts, jit: bool = True) -> Verdict:
    group = str(g["group"][i])
    words = g["insn_word"][starts[i]:starts[i + 1]]
    m = machine(_case(g, i), jit)
    status, done = int(g["status"][i]), int(g["done"][i])
    for k, w in enumerate(words):
        try:
            m.execute(int(w))
        except TilesimError as e:
            if status == 1 and k == done:
                return Verdict(i, group, "refused-both", f"{CATEGORIES[int(g['category'][i])]}: {e.rule}")
            return Verdict(i, group, "differ", f"tilesim refused word {k} ({int(w):#010x}): {e}")
        except Exception as e:  # noqa: BLE001 - a traceback instead of a TilesimError is itself a failure
            return Verdict(i, group, "differ", f"{type(e).__name__} at word {k}: {e}")
        if status == 1 and k == done:
            return Verdict(i, group, "differ", f"ttsim refused word {k} ({int(w):#010x}): "
                           f"{CATEGORIES[int(g['category'][i])]} {_reason(g['message'][i])}")
    want, got = expected(g, i), state(m)
    bad = [k for k in want if not np.array_equal(np.asarray(want[k]), np.asarray(got[k]))]
    if bad:
        k = bad[0]
        w, v = np.asarray(want[k]), np.asarray(got[k])
        where = np.argwhere(w != v)[:3].tolist() if w.shape else ""
        return Verdict(i, group, "differ", f"{bad}: first at {where}: ttsim {w[tuple(where[0])] if where else w} "
                       f"tilesim {v[tuple(where[0])] if where else v}")
    return Verdict(i, group, "agree")


def replay(g, jit: bool = True) -> list[Verdict]:
    """Every case, on the numba kernels (``jit``) or on the numpy reference path."""
    starts = np.concatenate([[0], np.cumsum(g["insn_count"].astype(np.int64))])
    return [replay_one(g, i, starts, jit) for i in range(len(g["status"]))]


def summary(verdicts: list[Verdict]) -> str:
    """Agreement per group, as a Markdown table."""
    by = Counter((v.group, v.verdict) for v in verdicts)
    groups = sorted({v.group for v in verdicts})
    lines = ["| Group | agree | refused by both | differ |", "|---|---|---|---|"]
    for gname in groups:
        lines.append(f"| {gname} | {by[gname, 'agree']} | {by[gname, 'refused-both']} | {by[gname, 'differ']} |")
    tot = Counter(v.verdict for v in verdicts)
    lines.append(f"| all | {tot['agree']} | {tot['refused-both']} | {tot['differ']} |")
    return "\n".join(lines)


__all__ = ["SFPU_MAGIC", "SFPU_CASE", "SFPU_RESULT", "machine", "replay", "summary", "load", "CONTRACT"]
