"""``tilesim demo`` section: small comparisons where the machines disagree."""

from __future__ import annotations

from .cli import compare_command

__all__ = ["demo"]


def demo(console) -> None:
    """colargmax (ties, GMPOOL's 8-row window) and elwmul (fidelity phases) in bf16, gemm in fp16."""
    for op, dtype, shape in (("colargmax", "bf16", "64x32"), ("elwmul", "bf16", "16x32"), ("gemm", "fp16", "16x32x32")):
        compare_command(console, op, dtype=dtype, shape=shape, seed=0, csv=None, plot=None)
        console.print()
