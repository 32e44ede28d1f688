"""``tilesim demo`` section: the example programs of ``examples/tensix`` (two of ours, three tt-llk math
kernels in tt-llk's spelling), results as numbers against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.table import Table

from .. import formats
from .cli import parse_program, run_program
from .state import Machine

__all__ = ["demo", "EXAMPLES", "SFPU_KERNELS", "sfpu_kernel_errors", "sfpu_error_markdown"]

#: The example programs (in a source checkout, which ``pip install -e .`` uses).
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "tensix"


def _example(name: str, rounding: str = "hardware"):
    """Run an example on the numpy reference path (``jit=False``, the same bits: ``tests/tensix/test_fast_path.py``):
    these programs are a few dozen instructions, and compiling the numba kernels would take most of a cold demo."""
    path = EXAMPLES / name
    statements = parse_program(path.read_text(), str(path))
    arrays = {s.args[0]: s.args[1] for s in statements if s.kind == "array"}
    _, out = run_program(statements, {}, rounding, str(path), jit=False)
    return arrays, out


def _tf32(x: np.ndarray) -> np.ndarray:
    """What the unpacker makes of FP32 data for TF32: truncation of the low 13 mantissa bits."""
    return formats.decode(formats.encode(np.asarray(x, np.float64), "fp32") & np.uint32(0xFFFFE000), "tf32")


def _lofi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The same multiply with one fidelity phase (phase 0 only)."""
    m = Machine(jit=False).configure(ALU_FORMAT_SPEC_REG0_SrcA=4, ALU_FORMAT_SPEC_REG1_SrcB=4, ALU_ACC_CTRL_Fp32_enabled=1)
    m.unpack("srca", a, "FP32", out="TF32")
    m.unpack("srcb", b, "FP32", out="TF32")
    m.run(["TT_ZEROACC(3, 0, 0)", "TT_ELWMUL(3, 1, 0, 0, 0)"])
    return m.pack("FP32", rows=8).values


def _llk_kernels(console) -> None:
    """The three transcribed tt-llk kernels, each result against numpy's float64 result."""
    t = Table(show_header=True, header_style="bold", title="tt-llk Wormhole B0 math kernels (32x32 BF16 tiles)")
    for col in ("kernel", "instructions", "result", "tilesim", "numpy", "equal"):
        t.add_column(col)
    cases = (("llk_eltwise_binary.tt", (("sum", lambda a: a["a"] + a["b"]), ("difference", lambda a: a["a"] - a["b"]),
                                        ("product", lambda a: a["a"] * a["b"]))),
             ("llk_reduce.tt", (("max", lambda a: a["x"].max()), ("sum", lambda a: a["y"].sum()))),
             ("llk_matmul.tt", (("c", lambda a: a["a"] @ a["b"]),)))
    for name, results in cases:
        text = (EXAMPLES / name).read_text()
        count = sum(s.kind == "insn" for s in parse_program(text))
        arrays, out = _example(name)
        for key, ref in results:
            want = np.asarray(ref(arrays))
            have = out[key][0, 0] if want.ndim == 0 else out[key]
            shown = (f"{float(have):g}", f"{float(want):g}") if want.ndim == 0 else \
                (f"[0,0..2] {have[0, :3].tolist()}", f"{want[0, :3].tolist()}")
            t.add_row(name, str(count), key, *shown, "[green]yes[/]" if np.array_equal(have, want) else "[red]no[/]")
    console.print(t)


#: The transcribed tt-llk SFPU kernels: file, what tt-llk computes, and the float64 function it approximates.
SFPU_KERNELS = (
    ("llk_sfpu_exp.tt", "exp (`_sfpu_exp_21f_bf16_<true>`)", np.exp),
    ("llk_sfpu_reciprocal.tt", "reciprocal (`_sfpu_reciprocal_<2>`)", lambda x: 1 / x),
    ("llk_sfpu_lrelu.tt", "leaky ReLU, slope FP32(0.1) (`_calculate_lrelu_`)",
     lambda x: np.where(x < 0, x * float(np.float32(0.1)), x)),
)


def sfpu_kernel_errors() -> list[tuple[str, str, int, float, float, float]]:
    """Per SFPU kernel: (file, kernel, instructions, median and largest relative error against numpy
    float64 on its 16x16 input, largest error in FP32 ulps of the float64 result)."""
    rows = []
    for name, what, ref in SFPU_KERNELS:
        text = (EXAMPLES / name).read_text()
        count = sum(s.kind == "insn" for s in parse_program(text))
        arrays, out = _example(name)
        x = arrays["x"].astype(np.float32).astype(np.float64)
        want, have = ref(x), out["y_bits"].view(np.float32).astype(np.float64)
        rel = np.abs(have - want) / np.abs(want)
        ulp = np.abs(have - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
        rows.append((name, what, count, float(np.median(rel)), float(rel.max()), float(ulp.max())))
    return rows


def sfpu_error_markdown() -> str:
    """The error table of docs/tensix.md (a test keeps the page equal to it)."""
    lines = ["| File | tt-llk kernel | Instructions | Median relative error | Largest relative error | "
             "Largest error (FP32 ulps) |", "|---|---|---|---|---|---|"]
    for name, what, count, med, worst, ulps in sfpu_kernel_errors():
        lines.append(f"| `examples/tensix/{name}` | {what} | {count} | {med:.2e} | {worst:.2e} | {ulps:.1f} |")
    return "\n".join(lines)


def _sfpu_kernels(console) -> None:
    t = Table(show_header=True, header_style="bold", title="tt-llk Wormhole B0 SFPU kernels (one 16x16 FP32 face) "
              "against numpy float64")
    for col in ("kernel", "instructions", "median rel. error", "largest rel. error", "largest (FP32 ulps)"):
        t.add_column(col, justify="left" if col == "kernel" else "right")
    for _, what, count, med, worst, ulps in sfpu_kernel_errors():
        t.add_row(what.split(" (")[0], str(count), f"{med:.2e}", f"{worst:.2e}", f"{ulps:.1f}")
    console.print(t)


def demo(console) -> None:
    """GMPOOL with ArgMax over a 16x16 block; ELWMUL at HiFi4 against LoFi and the exact product; the
    tt-llk kernels."""
    if not EXAMPLES.is_dir():
        console.print(f"[yellow]examples not found at {EXAMPLES} (the demo runs from a source checkout)[/]")
        return
    console.print("[bold]GMPOOL with ArgMax[/] (examples/tensix/gmpool_argmax.tt): column maxima of a 16x16 BF16 "
                  "block, and the row (0..7) of the largest of the first eight rows")
    arrays, out = _example("gmpool_argmax.tt")
    a = arrays["a"]
    t = Table(show_header=True, header_style="bold")
    t.add_column("column", style="dim")
    for j in range(16):
        t.add_column(str(j), justify="right")
    t.add_row("max", *(f"{v:g}" for v in out["max"][0]))
    t.add_row("row of max", *(str(int(v)) for v in out["row_of_max"][0]))
    t.add_row("numpy max", *(f"{v:g}" for v in a.max(axis=0)), style="green")
    t.add_row("numpy argmax of rows 0-7", *(str(v) for v in a[:8].argmax(axis=0)), style="green")
    console.print(t)

    console.print("\n[bold]ELWMUL at HiFi4[/] (examples/tensix/elwmul_hifi4.tt): TF32 x TF32 accumulated in FP32 "
                  "Dst over four fidelity phases")
    arrays, hifi = _example("elwmul_hifi4.tt")
    _, doc = _example("elwmul_hifi4.tt", "doc")
    a, b = _tf32(arrays["a"]), _tf32(arrays["b"])
    exact = a * b                                   # exact: two 11-bit significands fit float64
    lofi = _lofi(arrays["a"], arrays["b"])
    t = Table(show_header=True, header_style="bold")
    for col in ("element", "a (TF32)", "b (TF32)", "a*b exact", "LoFi (phase 0)", "HiFi4 hardware", "HiFi4 doc"):
        t.add_column(col, justify="right")
    for j in range(6):
        t.add_row(f"[0,{j}]", f"{a[0, j]:.8g}", f"{b[0, j]:.8g}", f"{exact[0, j]:.10g}", f"{lofi[0, j]:.10g}",
                  f"{hifi['product'][0, j]:.10g}", f"{doc['product'][0, j]:.10g}")
    console.print(t)

    def worst(x):
        return np.max(np.abs(x - exact) / np.abs(exact))

    console.print(f"  largest relative error over the 8x16 block: LoFi {worst(lofi):.1e}, HiFi4 "
                  f"{worst(hifi['product']):.1e} (no phase uses SrcA's last mantissa bit); the hardware and doc "
                  f"models differ in {int(np.sum(hifi['product_bits'] != doc['product_bits']))} of 128 results")

    console.print("\n[bold]tt-llk math kernels[/] (examples/tensix/llk_*.tt): eltwise binary (ELWADD/ELWSUB/ELWMUL), "
                  "reduce (GMPOOL/GAPOOL with MOVB2A) and matmul (MVMUL), as tt-llk issues them")
    _llk_kernels(console)

    console.print("\n[bold]tt-llk SFPU kernels[/] (examples/tensix/llk_sfpu_*.tt): exp, reciprocal and leaky ReLU "
                  "on the SFPU (SFPLOAD, SFPMAD, SFPSWAP, condition codes, SFPSTORE), bit-exact against ttsim's model")
    _sfpu_kernels(console)
