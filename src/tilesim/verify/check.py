"""``tilesim check``: compare a device's dump with a golden vector set, bit for bit.

The dump is a directory holding, for each output of the golden, the ``$readmemh`` file of the same
name (``dst.hex``) or ``$readmemb`` text (``dst.bin``), or ``<name>.npz``, or one ``vectors.npz`` (or a
path to an ``.npz``) holding arrays by operand name. Two codes match when their bits are equal, or when
both are NaN and the operand's ``nan_any`` says the op does not define NaN payloads (decision V5); a
dump word with X or Z digits is an ``x`` or ``z`` mismatch unless ``x_policy="ignore"`` (decision V14).
The golden directory is checked against :mod:`.schema` first (decision V15).
"""

from __future__ import annotations

import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich.table import Table

from ..errors import TilesimError
from . import lanes, schema
from .hexfile import RADIX, read_mem
from .vectorset import Operand, lane_dtype

__all__ = ["Golden", "Dump", "Mismatch", "CheckResult", "X_POLICIES", "load_golden", "load_dump", "check",
           "mismatch_table", "summary_table", "summary_line"]

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
    """Read ``manifest.json`` and ``vectors.npz`` of a golden directory, both checked against the schema.

    Raises:
        TilesimError: a missing file, or a manifest or array outside the schema of :mod:`.schema`
            (rules ``verify.golden.*``), naming the file and the field.
    """
    path = Path(path)
    mpath = path / "manifest.json"
    if not mpath.is_file():
        raise _err("not a golden vector directory: no manifest.json", path, "verify.golden.missing")
    manifest = schema.read_manifest(mpath)
    operands = [Operand.from_manifest(d) for d in manifest["operands"]]
    npz = path / "vectors.npz"
    if not npz.is_file():
        raise _err("golden directory has no vectors.npz", path, "verify.golden.missing")
    return Golden(path, manifest, operands, schema.read_arrays(npz, operands, manifest["count"]))


def _from_npz(file: Path, o: Operand, count: int) -> np.ndarray:
    try:
        with np.load(file, allow_pickle=False) as z:
            if o.name in z.files:
                a = z[o.name]
            elif len(z.files) == 1 and file.stem == o.name:
                a = z[z.files[0]]
            else:
                raise _err(f"no array {o.name!r} in it (it has {', '.join(z.files) or 'none'})", file,
                           "verify.dump.missing", value=o.name)
    except TilesimError:
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, KeyError) as e:
        raise _err(f"not a readable .npz: {str(e)[:80] or type(e).__name__}", file, "verify.dump.npz") from None
    if a.dtype.kind not in "ui":
        raise _err(f"array {o.name!r} is {a.dtype}; dumps hold bit patterns as integers", file,
                   "verify.dump.dtype", value=str(a.dtype))
    if a.size != count * o.size:
        raise _err(f"array {o.name!r} has {a.size} elements, the golden has {count} x {o.size}", file,
                   "verify.dump.shape", value=list(a.shape))
    flat = np.ascontiguousarray(a).reshape(-1)
    flat = flat.astype(flat.dtype.newbyteorder("="))             # big-endian files hold the same numbers
    # an element is a number: unsigned ones must fit the lane, signed ones are the lane's two's complement
    # value (-1 in any lane is all ones, whatever the array's width; decision V8)
    if flat.dtype.kind == "i":
        wide = flat.astype(np.int64)
        low = -(1 << (o.lane_bits - 1))
        high = (1 << o.lane_bits) - 1
        bad = np.flatnonzero((wide < low) | (wide > high)) if o.lane_bits < 64 else np.zeros(0, int)
        bits = wide.view(np.uint64)
    else:
        bits = flat.astype(np.uint64)
        bad = np.flatnonzero(bits >> np.uint64(o.lane_bits)) if o.lane_bits < 64 else np.zeros(0, int)
    if bad.size:
        raise _err(f"element {int(bad[0])} of {o.name!r} = {int(flat[bad[0]])} does not fit a "
                   f"{o.lane_bits}-bit lane", file, "verify.dump.width", value=int(flat[bad[0]]))
    if o.lane_bits < 64:
        bits = bits & np.uint64((1 << o.lane_bits) - 1)
    return bits


@dataclass
class Dump:
    """A device's outputs: codes per output (X and Z bits as 0), the X and Z bits, and the outputs absent."""

    arrays: dict[str, np.ndarray]
    xbits: dict[str, np.ndarray]
    zbits: dict[str, np.ndarray]
    missing: list[str]


def _find(dump: Path, o: Operand):
    """The file holding output ``o`` in a dump directory and how to read it, or None."""
    for suffix, radix in RADIX.items():
        if (dump / f"{o.name}{suffix}").is_file():
            return dump / f"{o.name}{suffix}", radix
    for f in (dump / f"{o.name}.npz", dump / "vectors.npz"):
        if f.is_file():
            return f, None
    return None


def load_dump(dump, golden: Golden, only=None) -> Dump:
    """The outputs of ``golden`` (those named in ``only``, or all) from ``dump``, shaped like the golden's.

    An output that ``only`` leaves out may be absent; it is then listed in ``missing``.

    Raises:
        TilesimError: a missing file or array for a selected output, a wrong shape or count, a word
            wider than its lane (with file, line and column for hex).
    """
    dump = Path(dump)
    if not (dump.is_dir() or (dump.is_file() and dump.suffix == ".npz")):
        raise _err("no such dump directory (or .npz file)", dump, "verify.dump.missing")
    chosen = _select(golden, only)
    out = Dump({}, {}, {}, [])
    for o in golden.outputs:
        n = golden.count * o.size
        zero = np.zeros(n, np.uint64)
        xbits = zbits = zero
        if dump.is_file():
            if o.name not in chosen and not _has_array(dump, o):
                out.missing.append(o.name)
                continue
            flat = _from_npz(dump, o, golden.count)
        else:
            found = _find(dump, o)
            if found is None:
                if o.name not in chosen:
                    out.missing.append(o.name)
                    continue
                names = " or ".join(f"{o.name}{s}" for s in RADIX)
                raise _err(f"the dump has no {names} (nor {o.name}.npz, nor vectors.npz)", dump,
                           "verify.dump.missing", value=o.file)
            file, radix = found
            if radix is None:
                flat = _from_npz(file, o, golden.count)
            else:
                mem = read_mem(file, n, o.lane_bits, radix)
                flat, xbits, zbits = mem.values, mem.xbits, mem.zbits
        shape = (golden.count, *o.shape)
        out.arrays[o.name] = flat.astype(lane_dtype(o.lane_bits)).reshape(shape)
        out.xbits[o.name] = xbits.reshape(shape)
        out.zbits[o.name] = zbits.reshape(shape)
    return out


def _has_array(file: Path, o: Operand) -> bool:
    try:
        with np.load(file, allow_pickle=False) as z:
            return o.name in z.files or (len(z.files) == 1 and file.stem == o.name)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, KeyError):
        return True                                     # let _from_npz say what is wrong with it


def _select(golden: Golden, only) -> set[str]:
    """The output names ``only`` chooses (all outputs for None)."""
    names = [o.name for o in golden.outputs]
    if only is None:
        return set(names)
    chosen = [s.strip() for s in (only.split(",") if isinstance(only, str) else only)]
    unknown = [s for s in chosen if s not in names]
    if unknown or not chosen:
        raise TilesimError(f"--only takes output names of this golden set: {', '.join(names)}", instruction=_CMD,
                           operand="--only", rule="verify.opt.only", value=",".join(unknown) or "")
    return set(chosen)


#: How ``check`` treats dump words with X or Z bits: ``mismatch`` (each is an ``x`` or ``z`` mismatch)
#: or ``ignore`` (not compared; counted in the summary).
X_POLICIES = ("mismatch", "ignore")


@dataclass(frozen=True)
class Mismatch:
    """One element that differs. ``kind`` is ``bits`` (both defined, different), ``x`` or ``z`` (the dump's
    word had X or Z bits, ``xbits``/``zbits``). ``pair`` is the (expected, got) other half of a 32-bit
    Tensix Dst datum for ``tt.dst32rows`` lanes, so the value shown is the datum's."""

    vector: int
    operand: str
    index: tuple[int, ...]
    expected: int
    got: int
    fmt: str
    lane_bits: int
    classes: tuple[str, ...]
    kind: str = "bits"
    xbits: int = 0
    zbits: int = 0
    flags: tuple[str, ...] = ()
    pair: tuple[int, int] | None = None

    def _datum(self, code: int, which: int) -> tuple[int, str]:
        """The code and lane kind whose value a report shows (a whole Dst32 datum for its halves)."""
        if self.pair is None:
            return code, self.fmt
        return lanes.dst32_datum(code, self.pair[which], self.index), lanes.dst32_kind(self.fmt)

    @property
    def ulp(self) -> int | None:
        """Steps between the two values in the format's order; None where it means nothing (flags, bits,
        NaN, X or Z)."""
        if self.kind != "bits" or not lanes.numeric(self.fmt) or self.flags:
            return None
        (e, kind), (g, _) = self._datum(self.expected, 0), self._datum(self.got, 1)
        return lanes.ulp_distance(e, g, kind)

    def value(self, code: int, which: int = 0) -> str:
        """The code in the engineer's terms: flag names, or the number it holds in its format."""
        if self.flags:
            return lanes.flag_names(code, self.flags)
        if self.fmt == "bits":
            return str(code)
        c, kind = self._datum(code, which)
        v = float(lanes.values(np.array([c], np.uint64), kind)[0])
        return f"{v:.9g}"

    def shown(self, which: int) -> str:
        """Expected (``which`` 0) or got (1) as ``hex (value)``; X and Z digits as x and z."""
        w = max(1, -(-self.lane_bits // 4))
        code = self.expected if which == 0 else self.got
        if which == 1 and self.kind != "bits":
            return lanes.hex_xz(code, self.xbits, self.zbits, w) + f" ({self.kind.upper()})"
        return f"{code:0{w}x} ({self.value(code, which)})"


@dataclass
class CheckResult:
    golden: Golden
    count: int
    mismatches: list[Mismatch]               # every mismatching element, in vector order
    per_operand: dict[str, int]              # mismatching elements per checked output
    failing: list[int] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)     # outputs not selected and absent from the dump
    skipped: list[str] = field(default_factory=list)     # outputs not selected (present or not)
    ignored: dict[str, int] = field(default_factory=dict)   # X/Z elements not compared (--x-policy ignore)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def per_kind(self) -> dict[str, int]:
        """Mismatching elements by kind: ``bits``, ``x``, ``z``."""
        return dict(Counter(m.kind for m in self.mismatches))

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


def check(golden_dir, dump, *, only=None, x_policy: str = "mismatch") -> CheckResult:
    """Compare the outputs of the golden set at ``golden_dir`` (those in ``only``, or all) with ``dump``.

    Raises:
        TilesimError: a bad golden or dump (rules ``verify.golden.*``, ``verify.dump.*``, ``verify.hex.*``),
            an ``only`` naming no output (``verify.opt.only``) or an unknown ``x_policy`` (``verify.opt.x_policy``).
    """
    if x_policy not in X_POLICIES:
        raise TilesimError(f"--x-policy takes {' or '.join(X_POLICIES)}", instruction=_CMD, operand="--x-policy",
                           rule="verify.opt.x_policy", value=x_policy)
    golden = golden_dir if isinstance(golden_dir, Golden) else load_golden(golden_dir)
    chosen = _select(golden, only)
    got = load_dump(dump, golden, only)
    mismatches: list[Mismatch] = []
    per_operand, ignored = {}, {}
    for o in golden.outputs:
        if o.name not in chosen:
            continue
        exp = golden.arrays[o.name].reshape(golden.count, -1)
        dev = got.arrays[o.name].reshape(golden.count, -1)
        xb = got.xbits[o.name].reshape(golden.count, -1)
        zb = got.zbits[o.name].reshape(golden.count, -1)
        unknown = (xb != 0) | (zb != 0)
        equal = exp == dev
        if o.nan_any:
            equal |= lanes.nan_mask(exp, o.fmt) & lanes.nan_mask(dev, o.fmt)
        if x_policy == "ignore":
            ignored[o.name] = int(unknown.sum())
            bad = ~equal & ~unknown
        else:
            bad = ~equal | unknown
        vec, flat = np.nonzero(bad)
        per_operand[o.name] = int(vec.size)
        dst32 = o.fmt.startswith("tt.dst32rows.")
        for v, f in zip(vec.tolist(), flat.tolist()):
            idx = tuple(int(i) for i in np.unravel_index(f, o.shape)) if o.shape else ()
            kind = "x" if xb[v, f] else "z" if zb[v, f] else "bits"
            pair = None
            if dst32:
                p = lanes.dst32_partner(f, o.shape)
                pair = (int(exp[v, p]), int(dev[v, p]))
            mismatches.append(Mismatch(v, o.name, idx, int(exp[v, f]), int(dev[v, f]), o.fmt, o.lane_bits,
                                       tuple(golden.tags(v)), kind, int(xb[v, f]), int(zb[v, f]), o.flags, pair))
    mismatches.sort(key=lambda m: m.vector)
    failing = sorted({m.vector for m in mismatches})
    skipped = [o.name for o in golden.outputs if o.name not in chosen]
    return CheckResult(golden, golden.count, mismatches, per_operand, failing, got.missing, skipped, ignored)


def mismatch_table(result: CheckResult, max_report: int) -> Table:
    """The first ``max_report`` mismatches: vector, operand, index, expected/got (hex and value or flag names),
    the kind (bits, x, z), ULP (only where some shown mismatch has one), classes."""
    shown = result.mismatches[:max_report]
    ulps = [m.ulp for m in shown]
    cols = ["vector", "operand", "index", "expected", "got", "kind"] + \
        (["ULP"] if any(u is not None for u in ulps) else []) + ["classes"]
    t = Table(title=f"mismatches (first {len(shown)} of {len(result.mismatches)})", title_justify="left")
    for col in cols:
        t.add_column(col, justify="right" if col in ("vector", "ULP") else "left")
    for m, ulp in zip(shown, ulps):
        row = [str(m.vector), m.operand, ",".join(map(str, m.index)), m.shown(0), m.shown(1), m.kind]
        if "ULP" in cols:
            row.append("-" if ulp is None else str(ulp))
        t.add_row(*row, " ".join(m.classes))
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


def summary_line(result: CheckResult) -> str:
    """``PASS``/``FAIL``, vectors that match, mismatching elements per output (with X and Z counts), and the
    outputs not checked."""
    m = result.golden.manifest
    kinds = Counter((x.operand, x.kind) for x in result.mismatches)
    parts = []
    for name, n in result.per_operand.items():
        xz = ", ".join(f"{k} {kinds[(name, k)]}" for k in ("x", "z") if kinds[(name, k)])
        ign = f", {result.ignored[name]} X/Z ignored" if result.ignored.get(name) else ""
        parts.append(f"{name} {n}" + (f" ({xz})" if xz else "") + ign)
    verdict = "[green]PASS[/]" if result.ok else "[red]FAIL[/]"
    text = (f"{verdict} {m['isa']} {m['op']}: {result.count - len(result.failing)}/{result.count} vectors match; "
            f"mismatching elements: {', '.join(parts)}")
    if result.skipped:
        text += "; not checked: " + ", ".join(n + (" (missing from the dump)" if n in result.missing else "")
                                             for n in result.skipped)
    return text
