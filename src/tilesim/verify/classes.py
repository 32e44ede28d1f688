"""Directed stimulus classes: which vector is built for which class, and the checks on the result.

A generator lists the classes that apply to its op and configuration; :func:`plan` assigns the
first ``len(classes) * min_per_class`` vectors to them in turn and leaves the rest random. Tags
are then the directed class plus what the generator measures on the data (a NaN, a flag), so a
random vector that happens to hit a class counts too. :func:`finish` checks the guarantee.
"""

from __future__ import annotations

import numpy as np

from ..errors import TilesimError
from .coverage import CLASS_DOCS
from .schema import MAX_VECTORS

__all__ = ["plan", "finish", "check_counts", "check_total"]


def check_counts(n: int, min_per_class: int, seed: int = 0, instruction: str = "tilesim vectors") -> None:
    """``--n`` in 1..MAX_VECTORS, ``--min-per-class`` in 0..MAX_VECTORS, ``--seed`` in 0..2**64-1 (decision V16)."""
    for flag, v, lo, hi, rule in (("--n", n, 1, MAX_VECTORS, "verify.opt.n"),
                                  ("--min-per-class", min_per_class, 0, MAX_VECTORS, "verify.opt.min_per_class"),
                                  ("--seed", seed, 0, (1 << 64) - 1, "verify.opt.seed")):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not lo <= v <= hi:
            raise TilesimError(f"{flag} must be an integer in {lo}..{hi:,}", instruction=instruction, operand=flag,
                               rule=rule, value=v)


def check_total(classes: list[str], n: int, min_per_class: int, instruction: str = "tilesim vectors") -> None:
    """The set's count, ``max(n, classes x min_per_class)``, is at most MAX_VECTORS."""
    total = max(n, len(classes) * min_per_class)
    if total > MAX_VECTORS:
        raise TilesimError(f"{len(classes)} classes x --min-per-class {min_per_class} is {total:,} vectors, more "
                           f"than {MAX_VECTORS:,}", instruction=instruction, operand="--min-per-class",
                           rule="verify.opt.min_per_class", value=min_per_class)


def plan(classes: list[str], n: int, min_per_class: int, rng: np.random.Generator) -> list[str]:
    """The directed class of each vector (``random`` for the rest), in a shuffled order.

    The count is ``max(n, len(classes) * min_per_class)`` (decision V3).
    """
    unknown = [c for c in classes if c not in CLASS_DOCS]
    if unknown:
        raise AssertionError(f"undocumented classes {unknown}")
    check_total(classes, n, min_per_class)
    directed = [c for _ in range(min_per_class) for c in classes]
    out = directed + ["random"] * max(0, n - len(directed))
    rng.shuffle(out)
    return out


def finish(tags: list[list[str]], classes: list[str], min_per_class: int) -> list[list[str]]:
    """Sorted, unique tags without ``random`` where a class was hit; check every class has enough."""
    clean = []
    for t in tags:
        s = sorted(set(t) - {"random"})
        clean.append(s or ["random"])
    for c in classes:
        hit = sum(c in t for t in clean)
        if hit < min_per_class:
            raise AssertionError(f"class {c} was hit by {hit} vectors, fewer than {min_per_class}")
    return clean
