from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from .common import Case


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
    "taddreluconv": "the simulator has no TADDRELUCONV (PTO144)",
    "tsubreluconv": "the simulator has no TSUBRELUCONV (PTO144)",
    "tprefetch_async": "writes nothing (the simulator returns an empty event, PTO142)",
}


def check(out_dir: Path, verbose: int) -> bool:
    """Replay every stored case on target cpu and print the coverage table: per tilesim op, the cases and
    how many agree bit for bit (NaN payloads included, PTO91) apart from lanes tilesim marks undefined, clang's
    bank and the bf16 one (g++, PTO88) side by side; ops without vectors are listed with the reason."""
    from tilesim.pto import OPS
    from tilesim.pto import __all__ as pto_all
    from tilesim.pto.comm import COMM_OPS
    from tests.pto import ptoisa_golden as g
    OPS = {**OPS, **COMM_OPS}
    total = Counter()
    stored = defaultdict(dict)  # op -> {"": clang's files (<op>.npz, <op>.conv.npz), "bf16": g++'s}
    for p in sorted(out_dir.glob("*.npz")):
        stored[g.op_of(p)].setdefault("bf16" if p.name.endswith(".bf16.npz") else "", []).append(p)
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
            cases = [c for p in stored[op][kind] for c in g.load(p)[1]]
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
    as .pto statements or as functions outside ``OPS`` only (pipes, configuration registers: they move no
    data a golden vector could hold)."""
    from tilesim.pto import OPS
    from tilesim.pto import __all__ as pto_all
    text = (checkout / "include" / "pto" / "common" / "pto_instr.hpp").read_text()
    names = set(re.findall(r"PTO_INST\s+(?:RecordEvent|comm::AsyncEvent|void|std::enable_if_t<[^>]*>+)\s+"
                           r"([A-Z][A-Z0-9_]+)\s*\(", text))
    missing = {n for n in names if n.lower() not in OPS}
    textual = missing & (text_level_ops() | {n.upper() for n in pto_all})
    return sorted(missing - textual), sorted(textual)
