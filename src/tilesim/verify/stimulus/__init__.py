"""Stimulus generators, one module per ISA.

Each module has ``OPS`` (the op names it knows), ``OPTIONS`` (the op options it takes, by Python
name) and ``generate(op, *, n, seed, min_per_class, **options) -> VectorSet``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ...errors import TilesimError

__all__ = ["GENERATORS", "generator"]

#: ISA name -> module
GENERATORS = {
    "tensix": "tilesim.verify.stimulus.tensix_all",
    "pto": "tilesim.verify.stimulus.pto",
    "ame": "tilesim.verify.stimulus.ame",
    "formats": "tilesim.verify.stimulus.formats",
}


def generator(isa: str) -> ModuleType:
    """The generator module of an ISA.

    Raises:
        TilesimError: an unknown ISA (rule ``verify.isa``), listing the known ones.
    """
    name = GENERATORS.get(str(isa).lower())
    if name is None:
        raise TilesimError(f"unknown ISA; known: {', '.join(GENERATORS)}", instruction="tilesim vectors",
                           operand="ISA", rule="verify.isa", value=isa)
    return importlib.import_module(name)
