"""Every figure of issue 26's table against its bar, each peer timed in the same run. Run by hand, never in CI:

    python benchmarks/run.py                       # every section
    python benchmarks/run.py --only pto-small pto-large --rounds 9
    python benchmarks/run.py --large               # adds the 4096^3 bf16 GEMM's memory peak (a child process)
    python benchmarks/run.py --ptoas PTOAS_CHECKOUT  # adds PTOAS's qwen3_decode_incore_* kernels through tilesim run
    python benchmarks/run.py --only pto-loop --ptoas PTOAS --ptoas-bin PTOAS_BUILD/tools/ptoas/ptoas \\
        --ptoisa PTOISA --cxx "chroot TRIXIE g++-14"    # ... and on pto-isa's CPU simulator (tools/ptoas_cpusim.py)
    python benchmarks/run.py --only compare study --compare-shape 16x16x16 --study-shape 16x64x64  # a quick check

Sections: ``pto-small`` (one Python call at 16x16 f32), ``pto-large`` (256x1024 f32 on ``cpu`` against the numpy
equivalent), ``pto-loop`` (a ``.pto`` loop of one 16x16 TADD), ``tensix`` (a 1,000-instruction straight-line
program), ``gemm`` (AME 1024^3 against numpy float64 ``a @ b``), ``compare`` (``tilesim compare gemm --shape
256x256x256``, a child process), ``study`` (Llama-3-8B decode, 4 formats, in process).

Each figure runs ``--rounds`` rounds; in a round the peer and tilesim run back to back (a batch of calls each
for the per-call figures), so both sides of a ratio see the same load. The table gives the median and the
min-max over rounds. numpy's BLAS (threadpoolctl) is printed first; ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` are removed from this process's environment before numpy loads, so the peer runs at
full speed (they take effect only at load, which is why the script restarts itself without them).
"""

from __future__ import annotations

import os
import sys

_FORCED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(k in os.environ for k in _FORCED):  # OpenBLAS reads them once, when numpy loads: restart without them
    os.execve(sys.executable, [sys.executable, *sys.argv], {k: v for k, v in os.environ.items() if k not in _FORCED})

import argparse  # noqa: E402
import fnmatch  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from timing import gemm_memory  # noqa: E402  benchmarks/timing.py (the script's folder is on sys.path)

from tilesim import pto  # noqa: E402
from tilesim.pto import Tile  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("pto-small", "pto-large", "pto-loop", "tensix", "gemm", "compare", "study")


# ------------------------------------------------------------------- timing
def paired(fn, peer, rounds: int, calls: int = 1) -> tuple[list[float], list[float]]:
    """Per-call seconds of ``fn`` and of ``peer`` in each round: the peer's batch of ``calls`` then fn's, back
    to back (after one untimed call of each). ``peer`` may be None (then its list is empty)."""
    fn()
    if peer is not None:
        peer()
    t_fn, t_peer = [], []
    for _ in range(rounds):
        if peer is not None:
            t0 = time.perf_counter()
            for _ in range(calls):
                peer()
            t_peer.append((time.perf_counter() - t0) / calls)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t_fn.append((time.perf_counter() - t0) / calls)
    return t_fn, t_peer


def _spread(xs: list[float], scale: float, fmt: str = ".1f") -> str:
    xs = sorted(v * scale for v in xs)
    return f"{xs[len(xs) // 2]:{fmt}} ({xs[0]:{fmt}}-{xs[-1]:{fmt}})"


class Report:
    """The printed table: one row per figure, with the bar and whether the median meets it."""

    def __init__(self) -> None:
        self.missed: list[str] = []

    def section(self, title: str, unit: str, peer: str) -> None:
        print(f"\n## {title}\n{'work':44} {'tilesim ' + unit + ' median (min-max)':>30} "
              f"{peer + ' median (min-max)':>28} {'ratio median (min-max)':>24} {'bar':>9}  met")

    def row(self, work: str, t_fn: list[float], t_peer: list[float], scale: float, bar: float, *,
            ratio_bar: bool) -> None:
        ratios = [a / b for a, b in zip(t_fn, t_peer)] if t_peer else []
        value = sorted(ratios)[len(ratios) // 2] if ratio_bar else sorted(t_fn)[len(t_fn) // 2] * scale
        met = value <= bar
        if not met:
            self.missed.append(work)
        print(f"{work:44} {_spread(t_fn, scale):>30} {_spread(t_peer, scale) if t_peer else '-':>28} "
              f"{_spread(ratios, 1, '.2f') if ratios else '-':>24} {('<= ' + format(bar, 'g') + ('x' if ratio_bar else '')):>9}"
              f"  {'yes' if met else 'NO'}", flush=True)


# ---------------------------------------------------------------- PTO ops
def _col(n: int) -> Tile:
    """An n x 1 col_major f32 tile: a reduce's row destination and a Mode 1 broadcast operand."""
    return Tile("vec", "f32", n, 1, blayout="col_major")


def small_ops(rep: Report, rounds: int) -> None:
    """One Python call of each op of the table at 16x16 f32 on ``cpu``; the peer ``np.add(a, b, out=b)``."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 16)).astype(np.float32)
    a, b, d = Tile.from_array(x), Tile.from_array(2 * x), Tile("vec", "f32", 16, 16)
    col, idx, half = _col(16), Tile("vec", "i32", 1, 16, valid=(1, 16)), Tile("vec", "f16", 16, 16)
    pto.trowmax(col, a, target="cpu")
    xa, xb = x.copy(), 2 * x
    ops = {
        "tadd": lambda: pto.tadd(d, a, b, target="cpu"),
        "tmul": lambda: pto.tmul(d, a, b, target="cpu"),
        "texp": lambda: pto.texp(d, a, target="cpu"),
        "trowmax": lambda: pto.trowmax(col, a, target="cpu"),
        "tcolargmax": lambda: pto.tcolargmax(idx, a, target="cpu"),
        "tcvt (f32 -> f16)": lambda: pto.tcvt(half, a, target="cpu"),
        "trowexpandsub": lambda: pto.trowexpandsub(d, a, col, target="cpu"),
    }
    rep.section("PTO op, 16x16 f32, one Python call (cpu)", "us", "np.add(a, b, out=b) us")
    for name, fn in ops.items():
        t_fn, t_peer = paired(fn, lambda: np.add(xa, xb, out=xb), rounds, calls=300)
        rep.row(name, t_fn, t_peer, 1e6, 8.0, ratio_bar=False)
    print(f"{'':44} process CPU us per call (min over rounds): "
          + ", ".join(f"{name.split()[0]} {cpu_seconds(fn, 300, rounds) * 1e6:.1f}" for name, fn in ops.items()))


def cpu_seconds(fn, calls: int, rounds: int) -> float:
    """Process CPU seconds per call of ``fn``, the least over rounds: on a loaded machine a figure that the
    other processes' share of the cores does not inflate (wall time does)."""
    best = float("inf")
    for _ in range(rounds):
        c0 = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - c0) / calls)
    return best


def _aligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` on a 64-byte boundary. numpy's own buffers start at 16 bytes: its f32 log took 97-99 us
    on some placements of the same 256x1024 arrays and 108-132 us on others (decision PTO115), so the peers run
    on aligned arrays, at their best."""
    buf = np.empty(a.nbytes + 64, np.uint8)
    start = -buf.ctypes.data % 64
    out = buf[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _large_ops():
    """(name, tilesim call, numpy peer) for every element-wise, unary, reduce and expand op with a numpy
    equivalent, on 256x1024 f32 (positive inputs for log, sqrt, rsqrt)."""
    rng = np.random.default_rng(1)
    R, C = 256, 1024
    x, y = map(_aligned, rng.standard_normal((2, R, C)).astype(np.float32) * 4)
    p = _aligned(np.abs(x) + np.float32(0.5))
    tx, ty, tp, td = Tile.from_array(x), Tile.from_array(y), Tile.from_array(p), Tile("vec", "f32", R, C)
    out = _aligned(np.empty((R, C), np.float32))
    rcol, ccol = _col(R), Tile("vec", "f32", 1, C)  # the expands' broadcast operands (rv, cv)
    rdst, cdst = _col(R), Tile("vec", "f32", 1, C)  # the reduces' destinations (apart, so rv and cv stay)
    rv, cv = _aligned(x[:, :1]), _aligned(x[:1, :])
    rcol.bits[:, 0] = rv[:, 0].view(np.uint32)
    ccol.bits[0] = cv[0].view(np.uint32)
    ridx, cidx = Tile("vec", "i32", R, 8, valid=(R, 1)), Tile("vec", "i32", 1, C)
    cpu = {"target": "cpu"}
    ops = []
    for name, uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
                     ("max", np.maximum), ("min", np.minimum)):
        ops.append((f"t{name}", lambda f=getattr(pto, f"t{name}"): f(td, tx, ty, **cpu),
                    lambda uf=uf: uf(x, y, out=out)))
        ops.append((f"t{name}s", lambda f=getattr(pto, f"t{name}s"): f(td, tx, 1.5, **cpu),
                    lambda uf=uf: uf(x, np.float32(1.5), out=out)))
    for name, src, peer in (("exp", tx, lambda: np.exp(x, out=out)), ("log", tp, lambda: np.log(p, out=out)),
                            ("sqrt", tp, lambda: np.sqrt(p, out=out)),
                            ("rsqrt", tp, lambda: np.divide(1, np.sqrt(p, out=out), out=out)),
                            ("recip", tx, lambda: np.reciprocal(x, out=out)), ("abs", tx, lambda: np.abs(x, out=out)),
                            ("neg", tx, lambda: np.negative(x, out=out)),
                            ("relu", tx, lambda: np.maximum(x, 0, out=out))):
        ops.append((f"t{name}", lambda f=getattr(pto, f"t{name}"), s=src: f(td, s, **cpu), peer))
    for name, red in (("sum", np.sum), ("max", np.max), ("min", np.min), ("prod", np.prod)):
        ops.append((f"trow{name}", lambda f=getattr(pto, f"trow{name}"): f(rdst, tx, **cpu),
                    lambda red=red: red(x, axis=1)))
        ops.append((f"tcol{name}", lambda f=getattr(pto, f"tcol{name}"): f(cdst, tx, **cpu),
                    lambda red=red: red(x, axis=0)))
    for name, arg in (("argmax", np.argmax), ("argmin", np.argmin)):
        ops.append((f"trow{name}", lambda f=getattr(pto, f"trow{name}"): f(ridx, tx, **cpu),
                    lambda arg=arg: arg(x, axis=1)))
        ops.append((f"tcol{name}", lambda f=getattr(pto, f"tcol{name}"): f(cidx, tx, **cpu),
                    lambda arg=arg: arg(x, axis=0)))
    ops.append(("trowexpand", lambda: pto.trowexpand(td, tx, **cpu), lambda: np.copyto(out, x[:, :1])))
    ops.append(("tcolexpand", lambda: pto.tcolexpand(td, tx, **cpu), lambda: np.copyto(out, x[:1, :])))
    for name, uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
                     ("max", np.maximum), ("min", np.minimum)):
        ops.append((f"trowexpand{name}", lambda f=getattr(pto, f"trowexpand{name}"): f(td, tx, rcol, **cpu),
                    lambda uf=uf: uf(x, rv, out=out)))
        ops.append((f"tcolexpand{name}", lambda f=getattr(pto, f"tcolexpand{name}"): f(td, tx, ccol, **cpu),
                    lambda uf=uf: uf(x, cv, out=out)))
    ops.append(("trowexpandexpdif", lambda: pto.trowexpandexpdif(td, tx, rcol, **cpu),
                lambda: np.exp(np.subtract(x, rv, out=out), out=out)))
    return ops


def large_ops(rep: Report, rounds: int) -> None:
    rep.section("PTO op on 256x1024 f32 (cpu) against the numpy equivalent", "us", "numpy us")
    for name, fn, peer in _large_ops():
        t_fn, t_peer = paired(fn, peer, rounds, calls=2)
        rep.row(name, t_fn, t_peer, 1e6, 1.5, ratio_bar=True)


def _tadd_loop(n: int) -> str:
    t = "!pto.tile_buf<vec, 16x16xf32>"
    return (f"module {{\n  func.func @loop() attributes {{pto.entry}} {{\n"
            f"    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
            f"    %n = arith.constant {n} : index\n"
            f"    %a = pto.alloc_tile : {t}\n    %b = pto.alloc_tile : {t}\n    %c = pto.alloc_tile : {t}\n"
            f"    scf.for %i = %c0 to %n step %c1 {{\n      pto.tadd ins(%a, %b : {t}, {t}) outs(%c : {t})\n    }}\n"
            f"    return\n  }}\n}}\n")


def pto_loop(rep: Report, rounds: int) -> None:
    """A ``.pto`` loop of one 16x16 TADD statement: (time of N iterations - time of none) / N, per statement."""
    n = 2000
    full, empty = _tadd_loop(n), _tadd_loop(0)
    t_full, t_empty = paired(lambda: pto.run_text(full, target="cpu"), lambda: pto.run_text(empty, target="cpu"),
                             rounds)
    per = [(a - b) / n for a, b in zip(t_full, t_empty)]
    rep.section(".pto loop (cpu), per statement", "us", "-")
    rep.row("16x16 tadd loop statement", per, [], 1e6, 12.0, ratio_bar=False)
    cpu = (cpu_seconds(lambda: pto.run_text(full, target="cpu"), 1, rounds)
           - cpu_seconds(lambda: pto.run_text(empty, target="cpu"), 1, rounds)) / n
    print(f"{'':44} process CPU us per statement (least full run - least empty run): {cpu * 1e6:.1f}")


# ----------------------------------------------------------------- Tensix
def tensix(rep: Report, rounds: int) -> None:
    """``Machine.run`` on a 1,000-word straight-line program mixing ELWMUL, ELWADD, MVMUL and GMPOOL (BF16 into
    FP32 Dst), per instruction; ttsim's 3.8 us is the bar (issue 10's measurement of ttsim)."""
    from tilesim.tensix import Machine, make
    rng = np.random.default_rng(0)
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5, ALU_ACC_CTRL_Fp32_enabled=1)
    m.unpack("srca", rng.standard_normal((64, 16)).astype(np.float32), "BF16")
    m.unpack("srcb", rng.standard_normal((64, 16)).astype(np.float32), "BF16")
    mix = [make(name).word() for name in ("ELWMUL", "ELWADD", "MVMUL", "GMPOOL")]
    words = [mix[i % 4] for i in range(1000)]
    m.run(words)   # the program kernel loaded from numba's cache, the words decoded: not counted below
    c0 = time.thread_time()
    t_fn, _ = paired(lambda: m.run(words), None, rounds)
    cpu = (time.thread_time() - c0) / (len(t_fn) + 1) / 1000
    rep.section("Tensix Machine.run, 1,000-instruction straight-line program", "us/insn", "-")
    rep.row("ELWMUL/ELWADD/MVMUL/GMPOOL mix", [t / 1000 for t in t_fn], [], 1e6, 3.8, ratio_bar=False)
    print(f"{'':44} thread CPU time per instruction: {cpu * 1e6:.1f} us (wall counts waiting for a core on a "
          "loaded machine)")


# ------------------------------------------------------------------- AME
def gemm(rep: Report, rounds: int, size: int = 1024) -> None:
    """AME GEMM size^3 (``--gemm-size``) in each issue format against numpy float64 ``a @ b``."""
    from tilesim.ame.gemm import gemm as ame_gemm
    rng = np.random.default_rng(0)
    rep.section(f"AME GEMM {size}^3 against numpy float64 a @ b", "ms", "numpy ms")
    for name, ft, bar in (("int8 -> int16", "int8", 2.0), ("fp8_e4m3 -> fp16", "fp8_e4m3", 10.0),
                          ("bf16 -> fp32", "bf16", 10.0)):
        a, b = rng.standard_normal((2, size, size))
        if ft == "int8":
            a, b = np.clip(np.round(a * 30), -128, 127), np.clip(np.round(b * 30), -128, 127)
        ame_gemm(a[:16, :32], b[:32, :16], ft=ft, quantize=True)  # the codec's tables, built once
        t_fn, t_peer = paired(lambda: ame_gemm(a, b, ft=ft, quantize=True), lambda: a @ b, max(3, rounds // 3))
        rep.row(name, t_fn, t_peer, 1e3, bar, ratio_bar=True)



# ---------------------------------------------------------- compare, study
def compare(rep: Report, rounds: int, shape: str = "256x256x256") -> None:
    """``tilesim compare gemm --shape 256x256x256`` (``--compare-shape``) as a user runs it: a child process
    (``python -m tilesim.cli``), start-up included; a run that prints no table is an error, not a figure."""
    cmd = [sys.executable, "-m", "tilesim.cli", "compare", "gemm", "--shape", shape]

    def once() -> None:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        if "gemm" not in out:
            raise RuntimeError(f"{' '.join(cmd[1:])} printed no table: {out[:200]!r}")

    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t_fn, _ = paired(once, None, max(1, rounds // 5))
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime) / (len(t_fn) + 1)
    rep.section("tilesim compare", "s", "-")
    rep.row(f"compare gemm --shape {shape}", t_fn, [], 1, 15.0, ratio_bar=False)
    print(f"{'':44} child CPU time per run: {cpu:.1f} s (wall counts waiting for a core on a loaded machine)")


def _cli(*argv: str) -> None:
    """``tilesim ARGV`` in this process, its output discarded (an error if it printed nothing)."""
    import contextlib
    import io

    from tilesim.cli import main as cli_main
    saved = sys.argv
    sys.argv = ["tilesim", *argv]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            cli_main()
    except SystemExit as e:
        if e.code:
            raise
    finally:
        sys.argv = saved
    if not out.getvalue().strip():
        raise RuntimeError(f"tilesim {' '.join(argv)} printed nothing")


def study(rep: Report, rounds: int, shape: str | None = None) -> None:
    """The Llama-3-8B decode study of docs/studies.md (M = 16, four formats), in process (the CLI's own path);
    ``--study-shape MxNxK`` runs that one shape in its place (a quick check of the section)."""
    what = ("-s", shape) if shape else ("-m", "llama-3-8b", "-t", "16")
    args = ("study", *what, "-f", "int8", "-f", "fp8_e4m3", "-f", "fp8_e5m2", "-f", "bf16", "--output-format", "csv")
    c0 = time.process_time()
    t_fn, _ = paired(lambda: _cli(*args), None, max(1, rounds // 5))  # after one untimed run
    cpu = (time.process_time() - c0) / (len(t_fn) + 1)
    rep.section(f"{'Study ' + shape if shape else 'Llama-3-8B decode study'}, 4 formats, in process", "s", "-")
    rep.row(f"study {' '.join(what)}, 4 formats", t_fn, [], 1, 60.0, ratio_bar=False)
    print(f"{'':44} process CPU time per run: {cpu:.1f} s")


def qwen3(checkout: Path, rounds: int, ptoas: str | None = None, ptoisa: Path | None = None,
          cxx: str = "g++-14") -> None:
    """PTOAS's ``qwen3_decode_incore_*`` kernels run by tilesim on their own target, on seeded random inputs
    (``tools/ptoas_cpusim.py``); with a built ``ptoas`` and a pto-isa checkout, the same kernels lowered by
    ptoas and compiled for pto-isa's CPU simulator, timed on the same inputs (only the kernel call)."""
    import shlex
    sys.path.insert(0, str(ROOT / "tools"))
    import ptoas_cpusim as harness
    from ptoas_conformance import corpus
    cases = sorted((c for c in corpus(checkout.resolve()) if fnmatch.fnmatch(c.path.stem, "qwen3_decode_incore_*")
                    and c.path.suffix == ".pto"),
                   key=lambda c: (c.path.parent.name, int(c.path.stem.rsplit("_", 1)[1])))
    cxx_cmd = shlex.split(cxx)
    print(f"\n## PTOAS qwen3 decode kernels ({len(cases)} files): tilesim (its target) and pto-isa's CPU simulator, ms")
    print(f"{'kernel (folder, target)':40} {'tilesim median (min-max)':>26} {'cpu sim median (min-max)':>26} "
          f"{'ratio':>8}  process CPU ms (least): tilesim / cpu sim")
    for case in cases:
        name = f"{case.path.stem} ({case.path.parent.name}, {case.target})"
        try:
            program = pto.parse(case.text, source=str(case.path))
            params, inputs = harness._inputs(case, program, checkout.resolve())
            t_fn, c_fn, _ = harness.time_tilesim(case, program, inputs, case.target, rounds)
            peer, ratio, cpu = "-", "", f"{min(c_fn) * 1e3:.1f}"
            if ptoas and ptoisa:
                work = Path("/tmp/ptoas_cpusim") / case.path.parent.name / case.path.stem
                exe = harness.build(case, params, ptoas, ptoisa.absolute(), cxx_cmd, work)  # as given: a chroot's path
                t_peer, c_peer, _ = harness.run_cpusim(exe, params, inputs, rounds,
                                                       cxx_cmd[:2] if cxx_cmd[0] == "chroot" else [], work)
                peer = _spread(t_peer, 1e3, ".2f")
                ratio = f"{sorted(t_fn)[len(t_fn) // 2] / sorted(t_peer)[len(t_peer) // 2]:.1f}x"
                cpu += f" / {min(c_peer) * 1e3:.2f} = {min(c_fn) / max(min(c_peer), 1e-9):.1f}x"
        except Exception as e:  # a kernel that cannot run or build is reported, not timed
            print(f"{name:40} {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200])
            continue
        print(f"{name:40} {_spread(t_fn, 1e3, '.2f'):>26} {peer:>26} {ratio:>8}  {cpu}", flush=True)


def blas() -> str:
    from threadpoolctl import threadpool_info
    return "; ".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')} kernel, {i['num_threads']} threads"
                     for i in threadpool_info() if i["user_api"] == "blas")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--gemm-size", type=int, default=1024, help="M = N = K of the gemm section")
    ap.add_argument("--compare-shape", default="256x256x256", help="MxNxK of the compare section")
    ap.add_argument("--study-shape", help="MxNxK: the study section on this shape in place of Llama-3-8B's layers")
    ap.add_argument("--large", action="store_true", help="also the 4096^3 bf16 GEMM's memory peak")
    ap.add_argument("--ptoas", type=Path, help="a PTOAS checkout: time its qwen3_decode_incore_* kernels")
    ap.add_argument("--ptoas-bin", help="a ptoas built from that checkout: also time the kernels on pto-isa's CPU "
                                        "simulator (with --ptoisa)")
    ap.add_argument("--ptoisa", type=Path, help="a pto-isa checkout (its CPU simulator's headers)")
    ap.add_argument("--cxx", default="g++-14", help="C++23 compiler with std::bfloat16_t for the CPU simulator "
                                                    "(may be 'chroot DIR g++-14')")
    args = ap.parse_args()
    np.seterr(all="ignore")  # the peers' overflow warnings (tilesim's ops set their own error state)
    print(f"numpy {np.__version__}; BLAS: {blas()}; load average {os.getloadavg()[0]:.2f}")
    rep = Report()
    jobs = {"pto-small": small_ops, "pto-large": large_ops, "pto-loop": pto_loop, "tensix": tensix,
            "gemm": lambda rep, rounds: gemm(rep, rounds, args.gemm_size),
            "compare": lambda rep, rounds: compare(rep, rounds, args.compare_shape),
            "study": lambda rep, rounds: study(rep, rounds, args.study_shape)}
    for name in args.only:
        jobs[name](rep, args.rounds)
    if args.large:
        gemm_memory()
    if args.ptoas:
        qwen3(args.ptoas, args.rounds, args.ptoas_bin, args.ptoisa, args.cxx)
    print(f"\nmax resident memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
    print(f"bars missed: {len(rep.missed)}" + (f" ({', '.join(rep.missed)})" if rep.missed else ""))


if __name__ == "__main__":
    main()
