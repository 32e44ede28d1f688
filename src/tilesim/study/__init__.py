"""The architect's studies: sweeps over LLM shapes, formats and modes; plots; Dask execution.

- :class:`Sweep`, :func:`run`: the product of shapes (or :mod:`.presets` of
  LLM layers), formats, bOVF, RND, SAT, accumulation models, tiling policies
  and input distributions, one record per point (:data:`COLUMNS`).
- :func:`quantize_blocks`: block-scaled inputs (OCP MX E8M0 scales, or E4M3 ones), with the shares of
  clipped and flushed elements; the sweep's ``block_scales`` axis uses it.
- :func:`write`: ``results.csv``, PNG plots and ``report.md`` in a folder.
- :func:`connect`, :func:`blocked_gemm`: a Dask cluster for sweeps, and one
  large GEMM split by blocks of C.

The guide is ``docs/studies.md``; the choices are S1 onwards in ``docs/decisions.md``.
"""

from .blockscale import quantize_blocks
from .cluster import blocked_gemm, connect
from .inputs import DISTRIBUTIONS, Tensors, generate, read_tensor, tensors
from .presets import LAYERS, MODELS, Shape, layers
from .report import write
from .sweep import COLUMNS, Point, Study, Sweep, evaluate, run

__all__ = [
    "COLUMNS", "DISTRIBUTIONS", "LAYERS", "MODELS", "Point", "Shape", "Study", "Sweep", "Tensors", "blocked_gemm",
    "connect", "evaluate", "generate", "layers", "quantize_blocks", "read_tensor", "run", "tensors", "write",
]
