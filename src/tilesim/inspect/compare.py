"""Where two runs of one program part: compare their steps in order, knowing no ISA.

Two traces are walked side by side. The first step whose position differs (another line, op, loop iteration
or block) is a *control* difference; otherwise the first step whose writes differ (another set of names,
another shape, or other bits) is a *values* difference, shown by its first differing elements with both
values, both bit patterns and their ULP distance.

>>> import numpy as np
>>> a = [Step(0, "k", 1, "op", writes=[Write("t", np.array([[0x3F80, 0x4000]], np.uint16), "bf16")])]
>>> b = [Step(0, "k", 1, "op", writes=[Write("t", np.array([[0x3F80, 0x4001]], np.uint16), "bf16")])]
>>> d = differences(a, b)[0]
>>> d.write, d.count, d.elements[0].index, d.elements[0].ulp
('t', 1, (0, 1), 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import formats
from .steps import Step, Write

__all__ = ["Element", "Difference", "differences", "ulp_distance"]


@dataclass
class Element:
    """One differing element: its index in the named storage, both bit patterns, values and ULP distance."""

    index: tuple[int, ...]
    bits: tuple[int, int]
    values: tuple[float, float] | None
    ulp: int | None


@dataclass
class Difference:
    """The first (or one) step where two runs disagree.

    Fields:
        kind: ``values`` (same statement, other values), ``writes`` (other names or shapes written) or
            ``control`` (the runs reached different statements, or one ended first).
        a, b: the two steps (``None`` where a run had ended).
        write: the name whose values differ (``values``).
        count, total: differing elements and elements written under that name.
        elements: the first differing elements (at most ``limit``).
        reasons: why the machines differ here, where the ISA knows it (filled in by the caller).
    """

    kind: str
    a: Step | None
    b: Step | None
    write: str = ""
    fmt: str = ""
    count: int = 0
    total: int = 0
    elements: list[Element] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def step(self) -> Step:
        return self.a if self.a is not None else self.b  # type: ignore[return-value]


def differences(a: list[Step], b: list[Step], *, all: bool = False, limit: int = 5) -> list[Difference]:
    """The differing steps of two runs of one program: the first only, or with ``all`` every one.

    A control difference ends the walk (the steps after it no longer pair up).
    """
    out: list[Difference] = []
    for i in range(max(len(a), len(b))):
        sa, sb = (a[i] if i < len(a) else None), (b[i] if i < len(b) else None)
        if sa is None or sb is None or sa.position != sb.position:
            out.append(Difference("control", sa, sb))
            return out
        d = _step_difference(sa, sb, limit)
        if d is not None:
            out.append(d)
            if not all:
                return out
    return out


def _step_difference(sa: Step, sb: Step, limit: int) -> Difference | None:
    wa, wb = {w.name: w for w in sa.writes}, {w.name: w for w in sb.writes}
    if list(wa) != list(wb):
        return Difference("writes", sa, sb, write=", ".join(sorted(set(wa) ^ set(wb))))
    for name, x in wa.items():
        y = wb[name]
        if x.bits.shape != y.bits.shape or x.origin != y.origin:
            return Difference("writes", sa, sb, write=name)
        diff = np.asarray(x.bits) != np.asarray(y.bits)
        if diff.any():
            where = np.argwhere(diff)
            fmt = x.fmt if x.fmt == y.fmt else ""
            elems = [_element(x, y, tuple(int(k) for k in ix), fmt) for ix in where[:limit]]
            return Difference("values", sa, sb, write=name, fmt=fmt, count=int(diff.sum()), total=int(diff.size),
                              elements=elems)
    return None


def _element(x: Write, y: Write, ix: tuple[int, ...], fmt: str) -> Element:
    ba, bb = int(x.bits[ix]), int(y.bits[ix])
    origin = tuple(x.origin) + (0,) * (len(ix) - len(x.origin))
    index = tuple(o + i for o, i in zip(origin, ix))
    if not fmt:
        return Element(index, (ba, bb), None, None)
    va, vb = (float(v) for v in formats.decode(np.array([ba, bb], x.bits.dtype), fmt))
    return Element(index, (ba, bb), (va, vb), ulp_distance(ba, bb, fmt))


def ulp_distance(a: int, b: int, fmt: str) -> int | None:
    """How many representable values of ``fmt`` lie between two codes (integers: their difference);
    None when either is a NaN.

    >>> ulp_distance(0x3F80, 0x3F81, "bf16"), ulp_distance(0x8000, 0x0001, "bf16"), ulp_distance(0xFF, 1, "int8")
    (1, 1, 2)
    """
    f = formats.get(fmt)
    if f.is_float:
        if any(np.isnan(formats.decode(np.array([a, b], f.dtype), f))):
            return None
        return abs(_ordered(a, f) - _ordered(b, f))
    return abs(_int(a, f) - _int(b, f))


def _ordered(code: int, f: formats.Format) -> int:
    """A float code's rank among the format's values (+0 and -0 share rank 0)."""
    c = (code >> f.lane_shift) & f.code_mask
    if not f.signed:
        return c
    mag = c & f.mag_mask
    return -mag if c >> f.sign_bit & 1 else mag


def _int(code: int, f: formats.Format) -> int:
    c = (code >> f.lane_shift) & f.code_mask
    return c - (1 << f.bits) if f.signed and c >> f.sign_bit & 1 else c
