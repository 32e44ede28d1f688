"""Value traces of ``.tt`` programs: one :class:`~tilesim.inspect.Step` per instruction or data directive.

Each step records what changed in the Matrix Unit and the SFPU, compared with the machine before it:

- Dst, by 16-row physical block: with 16-bit Dst as BF16 or FP16 codes (``dst rows R-R+15``), with 32-bit
  Dst as the FP32 or INT32 codes of the block's 8 rows (``dst32 rows R-R+7``), as the thread's
  configuration reads them at that step; ``dst_valid`` when a valid flag changed;
- SrcA and SrcB rows by bank and 16-row block (``srca[0] rows 0-15``), as codes of the format the
  Matrix Unit reads them in (TT40);
- each SFPU LReg that changed (``lreg3``, FP32 codes of its 32 lanes as 4 rows of 8) and the lane flags;
- each register-window counter that changed (``rwc.t0.dst``);
- the codes a ``.pack`` wrote (``pack NAME``).

``.thread``, ``.config`` and ``.array`` lines make no step. The block of a step is its thread.

>>> from tilesim.tensix.trace import trace_file
>>> out, steps = trace_file("examples/tensix/elwmul_hifi4.tt")
>>> [s.op for s in steps][:3], steps[3].writes[0].name
(['.unpack', '.unpack', 'TT_ZEROACC'], 'dst32 rows 0-7')
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import formats
from ..errors import TilesimError
from ..inspect.steps import Filter, Step, Traced, Write
from .cli import parse_program, run_program
from .fpu.common import fpu_mode
from .layouts import dst16_to_bf16, dst16_to_fp16, dst32_to_fp32, dst32_to_int, src_read_int8
from .state import Machine

__all__ = ["observer", "trace_file", "explain", "default_rounding"]

_BLOCK = 16
_STEP_KINDS = ("insn", "unpack", "pack", "argmax")


def _mode(m, thread: int):
    try:
        return fpu_mode(m, thread, "trace")
    except TilesimError:  # a SrcA code that names no format: show raw codes
        return None


def _src_view(mode, reg: str) -> str:
    """How the Matrix Unit reads SrcA or SrcB under ``mode``: ``tf32``, ``bf16``, ``fp16``, ``int8`` (TT40)."""
    if mode is None:
        return ""
    if mode.style in ("FP16", "INT8"):
        return mode.style.lower()
    return "tf32" if (mode.a_man if reg == "srca" else mode.b_man) == 10 else "bf16"


def _src_codes(d: np.ndarray, view: str) -> tuple[np.ndarray, str]:
    """Src datums as codes of the format that reads them (TT40); raw datums when there is none."""
    x = np.asarray(d).astype(np.uint32)
    sign, man, exp = (x >> 18) & 1, (x >> 8) & 0x3FF, x & 0xFF
    if view in ("tf32", "bf16"):
        tf32 = (sign << 18) | (exp << 10) | man
        return (tf32 << 13, "tf32") if view == "tf32" else ((tf32 >> 3).astype(np.uint16), "bf16")
    if view == "fp16":
        return ((sign << 15) | ((exp & 0x1F) << 10) | man).astype(np.uint16), "fp16"
    if view == "int8":  # sign-magnitude with a 10-bit magnitude: as int16, as ReadSrcInt8 reads it
        return src_read_int8(x).astype(np.int16).view(np.uint16), "int16"
    return x, ""


def _dst_writes(m, thread: int, rows: np.ndarray) -> list[Write]:
    mode, out = _mode(m, thread), []
    style = mode.dst_style if mode is not None else ""
    for p0 in np.unique(rows // _BLOCK) * _BLOCK:
        block = m.dst[p0:p0 + _BLOCK]
        if style == "FP32":
            words = (block[:8].astype(np.uint32) << 16) | block[8:]
            r0 = int(p0) // 2
            out.append(Write(f"dst32 rows {r0}-{r0 + 7}", dst32_to_fp32(words).astype(np.uint32), "fp32", (r0, 0)))
        elif style == "INT32":  # sign-magnitude words as two's complement int32 codes (TT40)
            words = (block[:8].astype(np.uint32) << 16) | block[8:]
            r0 = int(p0) // 2
            code = dst32_to_int(words).astype(np.int32).view(np.uint32)
            out.append(Write(f"dst32 rows {r0}-{r0 + 7}", code, "int32", (r0, 0)))
        elif style:
            conv, fmt = (dst16_to_fp16, "fp16") if style == "FP16" else (dst16_to_bf16, "bf16")
            out.append(Write(f"dst rows {p0}-{p0 + 15}", conv(block).astype(np.uint16), fmt, (int(p0), 0)))
        else:
            out.append(Write(f"dst rows {p0}-{p0 + 15}", block.copy(), "", (int(p0), 0)))
    return out


def _snapshot(m) -> dict:
    return {"srca": m.srca.copy(), "srcb": m.srcb.copy(), "dst": m.dst.copy(), "valid": m.dst_valid.copy(),
            "rwc": [r.as_dict() for r in m.rwc], "lregs": m.sfpu.lregs.copy(), "flags": m.sfpu.flags.copy()}


def _sfpu_writes(before: dict, now: dict) -> list[Write]:
    """Each LReg that changed, as FP32 codes by lane (4 rows of 8), and the lane flags when one changed."""
    out = [Write(f"lreg{r}", now["lregs"][r].reshape(4, 8).copy(), "fp32")
           for r in np.flatnonzero((now["lregs"] != before["lregs"]).any(axis=1))]
    if (now["flags"] != before["flags"]).any():
        out.append(Write("lane flags", now["flags"].astype(np.uint8).reshape(4, 8)))
    return out


def observer(steps: list[Step], source: str, keep: Filter | None = None):
    """An ``observe`` callback for :func:`~tilesim.tensix.cli.run_program` that appends Steps to ``steps``."""
    last: dict = {"state": _snapshot(Machine())}  # the reset state (TT3) is the same in both models
    count = [0]

    def seen(s, m, thread: int, outputs: dict) -> None:
        before, now = last["state"], _snapshot(m)
        last["state"] = now
        if s.kind not in _STEP_KINDS:
            return
        op = s.text.split("(")[0].split()[0] if s.kind == "insn" else "." + s.kind
        step = Step(count[0], source, s.line, op, (), thread)
        count[0] += 1
        if keep is not None and not keep.keeps(step):
            return
        rows = np.flatnonzero((now["dst"] != before["dst"]).any(axis=1) | (now["valid"] != before["valid"]))
        step.writes += _dst_writes(m, thread, rows)
        if (now["valid"] != before["valid"]).any():
            step.writes.append(Write("dst_valid", now["valid"].astype(np.uint8)[None, :]))
        mode = _mode(m, thread)
        for reg in ("srca", "srcb"):
            view = _src_view(mode, reg)
            for bank in range(2):
                changed = np.flatnonzero((now[reg][bank] != before[reg][bank]).any(axis=1))
                for r0 in np.unique(changed // _BLOCK) * _BLOCK:
                    codes, fmt = _src_codes(now[reg][bank][r0:r0 + _BLOCK], view)
                    step.writes.append(Write(f"{reg}[{bank}] rows {r0}-{r0 + 15}", codes, fmt, (int(r0), 0)))
        step.writes += _sfpu_writes(before, now)
        for t, (a, b) in enumerate(zip(before["rwc"], now["rwc"])):
            step.writes += [Write(f"rwc.t{t}.{k}", np.array([[v]], np.uint32)) for k, v in b.items() if a[k] != v]
        if s.kind == "pack":
            name, fmt = s.args[0], s.args[1]
            step.writes.append(Write(f"pack {name}", np.atleast_2d(outputs[name + "_bits"]).copy(), _fmt(fmt)))
        steps.append(step)

    return seen


def _fmt(name: str) -> str:
    try:
        return formats.get(str(name).lower()).name
    except TilesimError:
        return ""


def trace_file(path, inputs: dict | None = None, *, rounding_model: str = "hardware",
               keep: Filter | None = None) -> Traced:
    """Run a ``.tt`` file as ``tilesim run`` does; return ``Traced(outputs, steps)``."""
    path = Path(path)
    statements = parse_program(path.read_text(), source=str(path))
    steps: list[Step] = []
    _, outputs = run_program(statements, dict(inputs or {}), rounding_model, str(path),
                             observe=observer(steps, str(path), keep))
    return Traced(outputs, steps)


def default_rounding(path) -> str:
    """The rounding model a run takes when none is given (TT2)."""
    return "hardware"


def explain(op: str, a: dict, b: dict, dtypes: tuple = ()) -> list[str]:
    """Why two runs' values differ at instruction ``op``, given their options (rounding_model); Tensix steps
    carry no ``dtypes``.

    >>> explain("TT_GMPOOL", {"rounding_model": "hardware"}, {"rounding_model": "doc"})
    ['TT7: GMPOOL compares strictly in hardware and with >= in doc, which moves only the ArgMax index']
    """
    ra, rb = a.get("rounding_model") or "hardware", b.get("rounding_model") or "hardware"
    if ra == rb:
        return []
    if "GMPOOL" in op.upper():
        return ["TT7: GMPOOL compares strictly in hardware and with >= in doc, which moves only the ArgMax index"]
    if op.upper().split("_", 1)[-1].startswith("SFP"):
        return ["TT34: the SFPU's multiply-add is Wormhole's FMA model (fma_model_wh) in hardware and one IEEE "
                "rounding to nearest even in doc"]
    return ["TT2: hardware aligns every term to the largest exponent (shifted-out bits rounded half up) and rounds "
            "half away from zero, as ttsim does; doc computes in IEEE binary32 float and rounds to nearest even "
            "(TT5)"]
