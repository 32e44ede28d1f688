"""The architect's studies: sweeps over LLM shapes, formats and modes; plots; Dask execution.

- :class:`Sweep`, :func:`run`: the product of shapes (or :mod:`.presets` of
  LLM layers), formats, bOVF, RND, SAT, accumulation models, tiling policies
  and input distributions, one record per point (:data:`COLUMNS`).
- :func:`write`: ``results.csv``, PNG plots and ``report.md`` in a folder.
- :func:`connect`, :func:`blocked_gemm`: a Dask cluster for sweeps, and one
  large GEMM split by blocks of C.

The guide is ``docs/studies.md``; the choices are S1 onwards in ``docs/decisions.md``.
"""

from .cluster import blocked_gemm, connect
from .inputs import DISTRIBUTIONS, Tensors, generate, read_tensor, tensors
from .presets import LAYERS, MODELS, Shape, layers
from .report import write
from .sweep import COLUMNS, Point, Study, Sweep, evaluate, run

__all__ = [
    "COLUMNS", "DISTRIBUTIONS", "LAYERS", "MODELS", "Point", "Shape", "Study", "Sweep", "Tensors", "blocked_gemm",
    "connect", "evaluate", "generate", "layers", "read_tensor", "run", "tensors", "write",
]
