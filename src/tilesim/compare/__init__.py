"""One operation, three machines: ``tilesim compare``.

:func:`run` computes column max/argmax, the element-wise product or a GEMM
on the Tensix Matrix Unit (real instruction sequences), on PTO's targets, on
the AME GEMM runtime (gemm) and exactly, and returns one record per
configuration: what ran, the output format, how many elements differ from
the exact result rounded once, the largest ULP error and the relative error
(and for argmax, why indices differ). The guide is ``docs/compare.md``; the
choices are C1 onwards in ``docs/decisions.md``.
"""

from .core import COLUMNS, DTYPES, OPS, Comparison, evaluate, make_inputs, run

__all__ = ["COLUMNS", "DTYPES", "OPS", "Comparison", "evaluate", "make_inputs", "run"]
