"""Coverage: how many vectors hit each class, as ``coverage.json`` and as a table.

The count of a class is the number of vectors whose tags include it; every class that applies to
the op and configuration is listed, hit or not, so a zero is visible.
"""

from __future__ import annotations

from collections import Counter

from rich.table import Table

__all__ = ["record", "table", "CLASS_DOCS"]

#: Every class name the generators use, with what it means (docs/verification.md lists the same).
CLASS_DOCS = {
    "random": "no directed class: uniformly drawn codes",
    "nan": "a NaN among the inputs of an elementwise op (its position does not matter)",
    "nan_at_0": "a NaN at the first index the op reads (element 0, or the first in reduction order)",
    "nan_after_0": "a NaN at a later index only",
    "inf": "+Inf or -Inf among the inputs (Tensix: the IEEE Inf bit pattern, which the FPU reads as a number)",
    "zero": "+0 or -0 among the inputs",
    "subnormal": "subnormal inputs (Tensix: exponent-0 datums with a mantissa, which read as zero)",
    "min_normal": "the smallest normal value (or the smallest integer)",
    "max_normal": "the largest finite value (or the largest integer)",
    "tie": "an exact rounding tie: the exact result is halfway between two codes",
    "overflow": "the exact result is outside the result format's range",
    "saturation": "a result was clamped to the largest finite value",
    "argmax_tie": "two equal maxima (or minima) compete for an arg or ArgMax index",
    "undefined_dst": "Tensix Dst rows the instruction reads are marked undefined (ZEROACC)",
    "bank_flip": "Tensix: the Matrix Unit reads Src bank 1, or the instruction flips a bank",
    "guard_fallback": "AME: the guarded 4x4 falls back to 2x2",
    "broadcast": "Tensix: a SrcB row or column-0 broadcast",
    "fidelity_phase": "Tensix: a multiply in fidelity phase 1, 2 or 3 (phase 0 is the default)",
    "accumulate": "the result is added to an existing accumulator (AME beta = 0, Tensix DestAccumEn/AddDst)",
    "partial_valid": "PTO: a valid region smaller than the tile",
}


def record(vs) -> dict:
    """The coverage record of a :class:`~.vectorset.VectorSet`."""
    hits = Counter(t for tags in vs.tags for t in set(tags))
    names = list(vs.classes) + sorted(set(hits) - set(vs.classes))
    return {
        "isa": vs.isa, "op": vs.op, "count": vs.count, "min_per_class": vs.min_per_class,
        "classes": {c: hits.get(c, 0) for c in names},
        "required": list(vs.classes),
    }


def table(cov: dict) -> Table:
    """The coverage record as a rich table: class, vectors, share, and a mark under the minimum."""
    t = Table(title=f"coverage: {cov['isa']} {cov['op']}, {cov['count']} vectors", title_justify="left")
    t.add_column("class")
    t.add_column("vectors", justify="right")
    t.add_column("share", justify="right")
    t.add_column("")
    for c, n in cov["classes"].items():
        low = c in cov["required"] and n < cov["min_per_class"]
        t.add_row(c, str(n), f"{100 * n / max(cov['count'], 1):.0f}%", "[red]below minimum[/]" if low else "")
    return t
