"""See inside a program: value traces and where two runs of it part (``tilesim diff``).

Each ISA's runner reports its executed statements as :class:`Step` records through an observer callback
(:mod:`tilesim.pto.trace`, :mod:`tilesim.tensix.trace`, :mod:`tilesim.ame.trace`); this package stores them
(:mod:`.steps`) and compares two runs (:mod:`.compare`) without knowing any ISA; :func:`trace` runs a program
of any ISA (by its file suffix) and returns its steps.
"""

from .compare import Difference, Element, differences, ulp_distance
from .steps import Filter, Step, Traced, Write, load, save
from .tracers import trace

__all__ = ["Difference", "Element", "Filter", "Step", "Traced", "Write", "differences", "load", "save", "trace", "ulp_distance"]
