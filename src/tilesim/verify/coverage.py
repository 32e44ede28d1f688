"""Coverage: how many vectors hit each class, as ``coverage.json`` and as a table.

The count of a class is the number of vectors whose tags include it; every class that applies to
the op and configuration is listed, hit or not, so a zero is visible. ``cross`` crosses the
classes with the configuration values that matter for the ISA (``CROSS_KEYS``: AME Ft x RND x
SAT x bOVF, ...), so the records of several sets (``tilesim coverage DIR...``) merge into one
cross-coverage table: which class was hit under which rounding mode and saturation.
"""

from __future__ import annotations

from collections import Counter

from rich.table import Table

__all__ = ["record", "table", "CLASS_DOCS", "CROSS_KEYS", "cross", "merge", "cross_table"]

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


#: ISA -> the configuration values crossed with the classes
CROSS_KEYS = {
    "ame": ("ft", "rnd", "sat", "bovf", "tiling"),
    "pto": ("target", "dtype"),
    "tensix": ("style", "dst32", "rounding_model"),
    "formats": ("format", "rounding", "saturate"),
}


def _value(v):
    return ",".join(map(str, v)) if isinstance(v, list) else v


def cross(vs) -> dict:
    """Classes crossed with the set's configuration: ``keys`` and one bin per (op, class, values), counted in
    vectors (a vector counts once in each of its classes)."""
    keys = [k for k in CROSS_KEYS.get(vs.isa, ()) if k in vs.config]
    hits = Counter(t for tags in vs.tags for t in set(tags))
    values = {k: _value(vs.config[k]) for k in keys}
    bins = [{"op": f"{vs.isa} {vs.op}", "class": c, **values, "count": n} for c, n in sorted(hits.items())]
    return {"keys": ["op", "class", *keys], "bins": bins}


def record(vs) -> dict:
    """The coverage record of a :class:`~.vectorset.VectorSet`."""
    hits = Counter(t for tags in vs.tags for t in set(tags))
    names = list(vs.classes) + sorted(set(hits) - set(vs.classes))
    return {
        "isa": vs.isa, "op": vs.op, "count": vs.count, "min_per_class": vs.min_per_class,
        "classes": {c: hits.get(c, 0) for c in names},
        "required": list(vs.classes),
        "cross": cross(vs),
    }


def merge(crosses: list[dict]) -> dict:
    """One cross record from several (bins with the same values add up; keys are the union, in order)."""
    keys: list[str] = []
    for c in crosses:
        keys += [k for k in c["keys"] if k not in keys]
    total: Counter = Counter()
    for c in crosses:
        for b in c["bins"]:
            total[tuple(b.get(k) for k in keys)] += b["count"]
    bins = [{**dict(zip(keys, kv)), "count": n} for kv, n in sorted(total.items(), key=lambda x: tuple(map(str, x[0])))]
    return {"keys": keys, "bins": bins}


def cross_table(rec: dict, title: str = "cross coverage") -> Table:
    """A cross record as a table: one column per key, then the vector count."""
    t = Table(title=title, title_justify="left")
    for k in rec["keys"]:
        t.add_column(k)
    t.add_column("vectors", justify="right")
    for b in rec["bins"]:
        t.add_row(*("-" if b.get(k) is None else str(b[k]) for k in rec["keys"]), str(b["count"]))
    return t


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
