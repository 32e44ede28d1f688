"""The RISC-V AME MAC proposal (trustfarm, v0.14_1) as a machine that runs.

- :class:`Core`: 32 tiles x 256 bytes, the CSRs ``mxcfg`` (0x7C0), ``mxtile``
  (0x7C1), ``mxstatus`` (0x7C2), and ``MMACC.T`` / ``MMACC``.
- :func:`mxcfg`, :func:`mxtile`: CSR values from named fields.
- :func:`assemble`, :func:`run_program`: the AME assembly text and its runner.
- :mod:`~tilesim.ame.cost`: MACs, tiles and modeled cycles per instruction.

The user guide is ``docs/ame.md``; the choices the proposal leaves open are
``docs/decisions.md`` AME1 onwards.
"""

from .accum import ACCUMULATORS, accumulator
from .asm import Program, assemble
from .core import Core
from .cost import Cost, THROUGHPUTS
from .csr import CSRS, MXCFG, MXSTATUS, MXTILE, mxcfg, mxtile
from .models import MODELS
from .mmacc import BadGeom, Executed
from .runner import RunResult, run_program

__all__ = [
    "ACCUMULATORS", "BadGeom", "CSRS", "Core", "Cost", "Executed", "MODELS", "MXCFG", "MXSTATUS", "MXTILE",
    "Program", "RunResult", "THROUGHPUTS", "accumulator", "assemble", "mxcfg", "mxtile", "run_program",
]
