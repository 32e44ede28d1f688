"""tilesim: a bit-exact simulator of AI-accelerator tile instructions.

Packages: :mod:`tilesim.formats` (every number format), and one package per ISA.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
