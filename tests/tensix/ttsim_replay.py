"""Replaying ttsim's golden vectors (``golden/ttsim_wh.npz``, made by ``tools/ttsim_vectors.py``) on tilesim.

A case is an input state (one of a few stored base states, plus Config and ThreadConfig words,
bank ownership and RWCs) and one or more instruction words. ttsim's outcome is one of:

- ``ran``: the final state, stored as differences from the input state;
- ``stalled`` at instruction *k* (it would wait forever for a Src bank): tilesim must raise a
  ``tt.stall.*`` StateError at *k* and leave the state as ttsim has it;
- ``refused`` with an error category. ``UndefinedBehavior``, ``NonContractualBehavior`` and
  ``UnpredictableValueUsed`` say the program is outside the contract: tilesim must raise a
  TilesimError at the same instruction. The other categories say ttsim does not model the case;
  tilesim then follows the documents (decision TT8) and nothing is compared.

:data:`INTENDED` lists the differences that decisions explain; every other one is a failure.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilesim.errors import StateError, TilesimError
from tilesim.tensix import Machine
from tilesim.tensix.state import Client

MAGIC = 0x54545331
BASE = np.dtype([("srca", "<u4", (2, 64, 16)), ("srcb", "<u4", (2, 64, 16)), ("dst", "<u2", (1024, 16)),
                 ("valid", "u1", (1024,))])
CASE = np.dtype([("base", "<u4"), ("cfg", "<u4", (2, 3)), ("tcfg", "<u2", (3, 64)), ("banks", "<u4", (6,)),
                 ("rwc", "<u4", (3, 8)), ("insn_start", "<u4"), ("insn_count", "<u4")])
RESULT = np.dtype([("status", "<u4"), ("done", "<u4"), ("category", "<u4"), ("message", "S200"),
                   ("srca", "<u4", (2, 64, 16)), ("srcb", "<u4", (2, 64, 16)), ("dst", "<u2", (1024, 16)),
                   ("valid", "u1", (1024,)), ("banks", "<u4", (6,)), ("rwc", "<u4", (3, 8))])

#: ttsim's error categories (``TTSimErrorCategory``, in order; 0 = none).
CATEGORIES = ("", "UndefinedBehavior", "UnpredictableValueUsed", "NonContractualBehavior", "AssertionFailure",
              "MissingSpecification", "UntestedFunctionality", "UnimplementedFunctionality",
              "UnsupportedFunctionality", "SystemError", "ConfigurationError")
CONTRACT = frozenset({"UndefinedBehavior", "UnpredictableValueUsed", "NonContractualBehavior"})
RAN, ERROR, STALLED, SETUP_ERROR = 0, 1, 2, 3


def _reason(message: bytes) -> str:
    """ttsim's error as a short key: the function and the first field it names (``tensix_elwmul: dest_accum_en``)."""
    text = message.split(b"\0")[0].decode("ascii", "replace")
    head, _, rest = text.partition(": ")
    return f"{head}: {rest.split('=')[0].split(' ')[0]}" if rest else head


def compact(bases: np.ndarray, batch, results: np.ndarray) -> dict:
    """One batch of cases and ttsim's results as arrays: inputs, outcomes, and the state that ttsim
    left (for cases that ran or stalled) as differences from the input state."""
    n = len(batch)
    out = {k: [] for k in ("dd", "dv", "da", "db", "tc")}
    insn_pipe, insn_word, counts = [], [], []
    for i, (c, r) in enumerate(zip(batch, results)):
        for t, a in zip(*np.nonzero(c.tcfg)):
            out["tc"].append((i, t, a, c.tcfg[t, a]))
        insn_pipe += [p for p, _ in c.insns]
        insn_word += [w for _, w in c.insns]
        counts.append(len(c.insns))
        if r["status"] not in (RAN, STALLED):
            continue
        b = bases[c.base]
        for row in np.flatnonzero((r["dst"] != b["dst"]).any(axis=1)):
            out["dd"].append((i, row, r["dst"][row]))
        for row in np.flatnonzero(r["valid"] != b["valid"]):
            out["dv"].append((i, row))
        for key, name in (("da", "srca"), ("db", "srcb")):
            for bank, row in zip(*np.nonzero((r[name] != b[name]).any(axis=2))):
                out[key].append((i, bank, row, r[name][bank, row]))
    g = {
        "group": np.array([c.group for c in batch]), "base": np.array([c.base for c in batch], np.uint8),
        "cfg": np.array([c.cfg for c in batch], np.uint32).reshape(n, 2, 3),
        "banks": np.array([c.banks for c in batch], np.uint8).reshape(n, 6),
        "rwc": np.array([c.rwc for c in batch], np.uint16).reshape(n, 3, 8),
        "insn_count": np.array(counts, np.uint8), "insn_pipe": np.array(insn_pipe, np.uint8),
        "insn_word": np.array(insn_word, np.uint32),
        "status": results["status"].astype(np.uint8), "done": results["done"].astype(np.uint8),
        "category": results["category"].astype(np.uint8),
        "reason": np.array([_reason(m) if s in (ERROR, SETUP_ERROR) else "" for m, s in
                            zip(results["message"], results["status"])]),
        "out_banks": results["banks"].astype(np.uint8), "out_rwc": results["rwc"].astype(np.uint16),
    }
    tc = out["tc"]
    g.update(tc_case=np.array([x[0] for x in tc], np.uint32), tc_thread=np.array([x[1] for x in tc], np.uint8),
             tc_addr=np.array([x[2] for x in tc], np.uint8), tc_value=np.array([x[3] for x in tc], np.uint16))
    g.update(dd_case=np.array([x[0] for x in out["dd"]], np.uint32), dd_row=np.array([x[1] for x in out["dd"]], np.uint16),
             dd_val=np.array([x[2] for x in out["dd"]], np.uint16).reshape(-1, 16),
             dv_case=np.array([x[0] for x in out["dv"]], np.uint32), dv_row=np.array([x[1] for x in out["dv"]], np.uint16))
    for key in ("da", "db"):
        rows = out[key]
        g.update({f"{key}_case": np.array([x[0] for x in rows], np.uint32),
                  f"{key}_bank": np.array([x[1] for x in rows], np.uint8),
                  f"{key}_row": np.array([x[2] for x in rows], np.uint8),
                  f"{key}_val": np.array([x[3] for x in rows], np.uint32).reshape(-1, 16)})
    return g


_CASE_INDEXED = ("tc_case", "dd_case", "dv_case", "da_case", "db_case")


def merge(bases: np.ndarray, parts: list[dict], commit: str) -> dict:
    """The batches of :func:`compact` as one golden file's arrays."""
    out, offset = {}, 0
    for p in parts:
        for k, v in p.items():
            out.setdefault(k, []).append(v + offset if k in _CASE_INDEXED else v)
        offset += len(p["status"])
    merged = {k: np.concatenate(v) for k, v in out.items()}
    merged.update(base_srca=bases["srca"], base_srcb=bases["srcb"], base_dst=bases["dst"],
                  base_valid=bases["valid"].astype(bool), ttsim_commit=np.array(commit))
    return merged


@dataclass
class Golden:
    """A loaded golden file, with the per-case slices precomputed."""

    arrays: dict

    def __post_init__(self) -> None:
        a = self.arrays
        self.n = len(a["status"])
        self.insn_start = np.concatenate([[0], np.cumsum(a["insn_count"].astype(np.int64))])
        self.by_case = {k: _group(a[f"{k}_case"], self.n) for k in ("tc", "dd", "dv", "da", "db")}

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]


def _group(case: np.ndarray, n: int) -> list[np.ndarray]:
    order = np.argsort(case, kind="stable")
    bounds = np.searchsorted(case[order], np.arange(n + 1))
    return [order[bounds[i]:bounds[i + 1]] for i in range(n)]


def load(path: Path) -> Golden:
    with np.load(path) as f:
        return Golden({k: f[k] for k in f.files})


def machine(g: Golden, i: int) -> Machine:
    """tilesim's machine in case ``i``'s input state."""
    m = Machine("hardware")
    b = int(g["base"][i])
    m.srca[:] = g["base_srca"][b]
    m.srcb[:] = g["base_srcb"][b]
    m.dst[:] = g["base_dst"][b]
    m.dst_valid[:] = g["base_valid"][b]
    for bank in range(2):
        for addr in range(3):
            m.config[bank].set_word(addr, int(g["cfg"][i, bank, addr]))
    for j in g.by_case["tc"][i]:
        m.thread_config[int(g["tc_thread"][j])].set_word(int(g["tc_addr"][j]), int(g["tc_value"][j]))
    _set_banks(m, g["banks"][i])
    for t in range(3):
        r = m.rwc[t]
        (r.srca, r.srca_cr, r.srcb, r.srcb_cr, r.dst, r.dst_cr, r.extra_addr_mod_bit,
         r.fidelity) = (int(x) for x in g["rwc"][i, t])
    return m


def _set_banks(m: Machine, banks) -> None:
    m.srca_bank, m.srcb_bank = int(banks[0]), int(banks[1])
    m.unpacker_bank = [int(banks[2]), int(banks[3])]
    m.srca_client = [Client.MATRIX_UNIT if banks[4] >> k & 1 else Client.UNPACKERS for k in range(2)]
    m.srcb_client = [Client.MATRIX_UNIT if banks[5] >> k & 1 else Client.UNPACKERS for k in range(2)]


def _banks(m: Machine) -> list[int]:
    def mask(clients):
        return sum(1 << k for k, c in enumerate(clients) if c is Client.MATRIX_UNIT)
    return [m.srca_bank, m.srcb_bank, *m.unpacker_bank, mask(m.srca_client), mask(m.srcb_client)]


def expected_state(g: Golden, i: int) -> dict:
    """The state ttsim left in case ``i`` (input state plus stored differences)."""
    b = int(g["base"][i])
    dst, valid = g["base_dst"][b].copy(), g["base_valid"][b].copy()
    srca, srcb = g["base_srca"][b].copy(), g["base_srcb"][b].copy()
    for j in g.by_case["dd"][i]:
        dst[g["dd_row"][j]] = g["dd_val"][j]
    for j in g.by_case["dv"][i]:
        valid[g["dv_row"][j]] = ~valid[g["dv_row"][j]]
    for key, arr in (("da", srca), ("db", srcb)):
        for j in g.by_case[key][i]:
            arr[g[f"{key}_bank"][j], g[f"{key}_row"][j]] = g[f"{key}_val"][j]
    return {"dst": dst, "dst_valid": valid, "srca": srca, "srcb": srcb,
            "banks": [int(x) for x in g["out_banks"][i]], "rwc": g["out_rwc"][i].astype(int).tolist()}


def tilesim_state(m: Machine) -> dict:
    return {"dst": m.dst, "dst_valid": m.dst_valid, "srca": m.srca, "srcb": m.srcb, "banks": _banks(m),
            "rwc": [[r.srca, r.srca_cr, r.srcb, r.srcb_cr, r.dst, r.dst_cr, r.extra_addr_mod_bit, r.fidelity]
                    for r in m.rwc]}


def state_differences(want: dict, have: dict) -> list[str]:
    out = []
    for k in ("dst", "dst_valid", "srca", "srcb"):
        diff = np.argwhere(np.asarray(want[k]) != np.asarray(have[k]))
        if diff.size:
            out.append(f"{k} differs at {diff[:3].tolist()} ({len(diff)} places)")
    for k in ("banks", "rwc"):
        if want[k] != have[k]:
            out.append(f"{k}: ttsim {want[k]} tilesim {have[k]}")
    return out


@dataclass(frozen=True)
class Verdict:
    """One case's outcome: ``agree``, ``intended`` (``decision`` says why), ``ttsim-limit`` (ttsim
    refused for want of a model; ``detail`` says what tilesim did) or ``differ``."""

    index: int
    group: str
    verdict: str
    detail: str = ""
    decision: str = ""


def _intended(g: Golden, i: int, err: TilesimError | None, at: int | None) -> str:
    """The decision that explains a difference in case ``i``, or ''."""
    reason = str(g["reason"][i])
    for decision, group, ttsim_reason in INTENDED:
        if g["group"][i] == group and reason.startswith(ttsim_reason):
            return decision
    return ""


#: (decision, case group, ttsim's refusal) for the differences that decisions explain.
INTENDED: tuple[tuple[str, str, str], ...] = (
    # The pages' syntax passes ``true`` for ELWMUL bit 21; ttsim calls it NonContractual; tilesim ignores it.
    ("TT9", "ELWMUL", "tensix_elw_op: dest_accum_en"),
)


def judge(g: Golden, i: int) -> Verdict:
    group, status = str(g["group"][i]), int(g["status"][i])
    category = CATEGORIES[int(g["category"][i])]
    m = machine(g, i)
    lo, hi = g.insn_start[i], g.insn_start[i + 1]
    err, at = None, None
    for k, (pipe, word) in enumerate(zip(g["insn_pipe"][lo:hi], g["insn_word"][lo:hi])):
        try:
            m.execute(int(word), thread=int(pipe))
        except TilesimError as e:
            err, at = e, k
            break
    done = int(g["done"][i])
    tilesim_did = "ran" if err is None else f"raised {err.rule} at {at}"
    if status in (ERROR, SETUP_ERROR) and category not in CONTRACT:
        return Verdict(i, group, "ttsim-limit", f"{category} {g['reason'][i]}; tilesim {tilesim_did}")
    if status in (ERROR, SETUP_ERROR):
        ok = err is not None and at == done
        why = f"ttsim {category} ({g['reason'][i]}) at {done}; tilesim {tilesim_did}"
    elif status == STALLED:
        ok = isinstance(err, StateError) and (err.rule or "").startswith("tt.stall") and at == done
        why = f"ttsim stalls at {done}; tilesim {tilesim_did}"
        if ok:
            diffs = state_differences(expected_state(g, i), tilesim_state(m))
            ok, why = not diffs, "; ".join(diffs)
    else:
        ok = err is None
        why = f"ttsim ran; tilesim {tilesim_did}"
        if ok:
            diffs = state_differences(expected_state(g, i), tilesim_state(m))
            ok, why = not diffs, "; ".join(diffs)
    if ok:
        return Verdict(i, group, "agree")
    decision = _intended(g, i, err, at)
    return Verdict(i, group, "intended" if decision else "differ", why, decision)


def replay(g: Golden) -> list[Verdict]:
    return [judge(g, i) for i in range(g.n)]


def summary_table(verdicts: list[Verdict]) -> str:
    """Cases per group: total, ttsim ran/stalled/refused, agreement."""
    groups = sorted({v.group for v in verdicts})
    lines = ["| group | cases | agree | intended | ttsim does not model | differ |", "|---|---|---|---|---|---|"]
    for grp in groups + ["all"]:
        sel = (lambda v: True) if grp == "all" else (lambda v, grp=grp: v.group == grp)
        c = Counter(v.verdict for v in verdicts if sel(v))
        lines.append(f"| {grp} | {sum(c.values())} | {c['agree']} | {c['intended']} | {c['ttsim-limit']} | "
                     f"{c['differ']} |")
    return "\n".join(lines)
