"""``tilesim check``: compare a device's dump with a golden vector set, bit for bit.

The dump is a directory holding, for each output of the golden, the hex file of the same name
(``dst.hex``), or ``<name>.npz``, or one ``vectors.npz`` (or a path to an ``.npz``) holding arrays
by operand name. Two codes match when their bits are equal, or when both are NaN and the operand's
``nan_any`` says the op does not define NaN payloads (decision V5).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich.table import Table

from ..errors import TilesimError
from . import lanes
from .hexfile import read_hex
from .vectorset import Operand, lane_dtype

__all__ = ["Golden", "Mismatch", "CheckResult", "load_golden", "load_dump", "check", "mismatch_table",
           "summary_table"]

_CMD = "tilesim check"


@dataclass
class Golden:
    """A golden vector set as read back from its directory."""

    path: Path
    manifest: dict
    operands: list[Operand]
    arrays: dict[str, np.ndarray]

    @property
    def count(self) -> int:
        return int(self.manifest["count"])

    @property
    def outputs(self) -> list[Operand]:
        return [o for o in self.operands if o.role == "output"]

    def tags(self, i: int) -> list[str]:
        return list(self.manifest["vectors"][i]["classes"])


def _err(detail: str, path, rule: str, **kw) -> TilesimError:
    return TilesimError(detail, instruction=_CMD, operand=str(path), rule=rule, **kw)


def load_golden(path) -> Golden:
    """Read ``manifest.json`` and ``vectors.npz`` of a golden directory.

    Raises:
        TilesimError: a missing or malformed manifest or npz (rules ``verify.golden.*``).
    """
    path = Path(path)
    mpath = path / "manifest.json"
    if not mpath.is_file():
        raise _err("not a golden vector directory: no manifest.json", path, "verify.golden.missing")
    try:
        manifest = json.loads(mpath.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TilesimError(f"manifest.json is not JSON: {e.msg if hasattr(e, 'msg') else e}", instruction=_CMD,
                           rule="verify.golden.json", source=str(mpath), line=getattr(e, "lineno", None)) from None
    for key in ("isa", "op", "count", "operands", "vectors", "outputs"):
        if key not in manifest:
            raise _err(f"manifest.json has no {key!r}", mpath, "verify.golden.manifest")
    operands = [Operand.from_manifest(d) for d in manifest["operands"]]
    npz = path / "vectors.npz"
    if not npz.is_file():
        raise _err("golden directory has no vectors.npz", path, "verify.golden.missing")
    with np.load(npz) as z:
        arrays = {o.name: z[o.name] for o in operands if o.name in z.files}
    for o in operands:
        if o.name not in arrays:
            raise _err(f"vectors.npz has no array {o.name!r}", npz, "verify.golden.npz")
    return Golden(path, manifest, operands, arrays)


def _from_npz(file: Path, o: Operand, count: int) -> np.ndarray:
    with np.load(file) as z:
        if o.name in z.files:
            a = z[o.name]
        elif len(z.files) == 1 and file.stem == o.name:
            a = z[z.files[0]]
        else:
            raise _err(f"no array {o.name!r} in it (it has {', '.join(z.files) or 'none'})", file,
                       "verify.dump.missing")
    if a.dtype.kind not in "ui":
        raise _err(f"array {o.name!r} is {a.dtype}; dumps hold bit patterns as integers", file,
                   "verify.dump.dtype", value=str(a.dtype))
    if a.size != count * o.size:
        raise _err(f"array {o.name!r} has {a.size} elements, the golden has {count} x {o.size}", file,
                   "verify.dump.shape", value=list(a.shape))
    flat = np.ascontiguousarray(a).reshape(-1)
    low = -(1 << (o.lane_bits - 1)) if a.dtype.kind == "i" else 0   # signed arrays may sign-extend a lane
    bad = np.nonzero((flat < low) | (flat.astype(np.uint64) >> np.uint64(o.lane_bits) > 0) & (flat >= 0))[0] \
        if o.lane_bits < 64 else np.zeros(0, int)
    if bad.size:
        raise _err(f"element {int(bad[0])} of {o.name!r} = {int(flat[bad[0]])} does not fit a "
                   f"{o.lane_bits}-bit lane", file, "verify.dump.width")
    bits = flat.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    if o.lane_bits < 64:
        bits &= np.uint64((1 << o.lane_bits) - 1)
    return bits.astype(lane_dtype(o.lane_bits))


def load_dump(dump, golden: Golden) -> dict[str, np.ndarray]:
    """Every output of ``golden`` from ``dump``, shaped like the golden's arrays.

    Raises:
        TilesimError: a missing file or array, a wrong shape or count (with file and line for hex).
    """
    dump = Path(dump)
    out = {}
    for o in golden.outputs:
        n = golden.count * o.size
        if dump.is_file() and dump.suffix == ".npz":
            flat = _from_npz(dump, o, golden.count)
        elif not dump.is_dir():
            raise _err("no such dump directory (or .npz file)", dump, "verify.dump.missing")
        elif (dump / o.file).is_file():
            flat = read_hex(dump / o.file, n, o.lane_bits, lane_dtype(o.lane_bits))
        elif (dump / f"{o.name}.npz").is_file():
            flat = _from_npz(dump / f"{o.name}.npz", o, golden.count)
        elif (dump / "vectors.npz").is_file():
            flat = _from_npz(dump / "vectors.npz", o, golden.count)
        else:
            raise _err(f"the dump has no {o.file} (nor {o.name}.npz, nor vectors.npz)", dump,
                       "verify.dump.missing", value=o.file)
        out[o.name] = flat.reshape(golden.count, *o.shape)
    return out


@dataclass(frozen=True)
class Mismatch:
    vector: int
    operand: str
    index: tuple[int, ...]
    expected: int
    got: int
    fmt: str
    lane_bits: int
    classes: tuple[str, ...]

    @property
    def ulp(self) -> int | None:
        return lanes.ulp_distance(self.expected, self.got, self.fmt)

    def value(self, code: int) -> str:
        v = float(lanes.values(np.array([code], lane_dtype(self.lane_bits)), self.fmt)[0])
        return f"{v:.9g}" if self.fmt != "bits" else str(code)


@dataclass
class CheckResult:
    golden: Golden
    count: int
    mismatches: list[Mismatch]               # every mismatching element, in vector order
    per_operand: dict[str, int]              # mismatching elements per output
    failing: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def per_class(self) -> dict[str, tuple[int, int, int]]:
        """class -> (vectors in the class, failing vectors, mismatching elements)."""
        total = Counter(c for i in range(self.count) for c in self.golden.tags(i))
        bad = Counter(c for i in self.failing for c in self.golden.tags(i))
        elems = Counter(c for m in self.mismatches for c in m.classes)
        return {c: (n, bad.get(c, 0), elems.get(c, 0)) for c, n in sorted(total.items())}

    def by_vector(self) -> dict[int, list[Mismatch]]:
        out: dict[int, list[Mismatch]] = {}
        for m in self.mismatches:
            out.setdefault(m.vector, []).append(m)
        return out


def check(golden_dir, dump) -> CheckResult:
    """Compare every output of the golden set at ``golden_dir`` with ``dump``."""
    golden = load_golden(golden_dir)
    got = load_dump(dump, golden)
    mismatches: list[Mismatch] = []
    per_operand = {}
    for o in golden.outputs:
        exp = golden.arrays[o.name].reshape(golden.count, -1)
        dev = got[o.name].reshape(golden.count, -1)
        equal = exp == dev
        if o.nan_any:
            equal |= lanes.nan_mask(exp, o.fmt) & lanes.nan_mask(dev, o.fmt)
        vec, flat = np.nonzero(~equal)
        per_operand[o.name] = int(vec.size)
        for v, f in zip(vec.tolist(), flat.tolist()):
            idx = tuple(int(i) for i in np.unravel_index(f, o.shape)) if o.shape else ()
            mismatches.append(Mismatch(v, o.name, idx, int(exp[v, f]), int(dev[v, f]), o.fmt, o.lane_bits,
                                       tuple(golden.tags(v))))
    mismatches.sort(key=lambda m: m.vector)
    failing = sorted({m.vector for m in mismatches})
    return CheckResult(golden, golden.count, mismatches, per_operand, failing)


def mismatch_table(result: CheckResult, max_report: int) -> Table:
    """The first ``max_report`` mismatches: vector, operand, index, expected/got (hex, value), ULP, classes."""
    shown = result.mismatches[:max_report]
    t = Table(title=f"mismatches (first {len(shown)} of {len(result.mismatches)})", title_justify="left")
    for col in ("vector", "operand", "index", "expected", "got", "ULP", "classes"):
        t.add_column(col, justify="right" if col in ("vector", "ULP") else "left")
    for m in shown:
        w = max(1, -(-m.lane_bits // 4))
        ulp = m.ulp
        t.add_row(str(m.vector), m.operand, ",".join(map(str, m.index)),
                  f"{m.expected:0{w}x} ({m.value(m.expected)})", f"{m.got:0{w}x} ({m.value(m.got)})",
                  "-" if ulp is None else str(ulp), " ".join(m.classes))
    return t


def summary_table(result: CheckResult) -> Table:
    """Mismatches per class: vectors in the class, failing vectors, mismatching elements."""
    t = Table(title="by class", title_justify="left")
    for col in ("class", "vectors", "failing", "elements"):
        t.add_column(col, justify="left" if col == "class" else "right")
    for c, (n, bad, elems) in result.per_class().items():
        style = "red" if bad else ""
        t.add_row(c, str(n), f"[{style}]{bad}[/]" if style else "0", str(elems))
    return t
