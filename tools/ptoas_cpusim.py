"""Time PTOAS sample kernels on tilesim and on pto-isa's CPU simulator, on the same inputs.

Usage::

    python tools/ptoas_cpusim.py PTOAS_CHECKOUT PTOISA_CHECKOUT --ptoas PTOAS_BINARY \\
        [--glob 'qwen3_decode_incore_*'] [--folder Qwen3DecodeA5] [--cxx 'chroot /srv/trixie g++-14'] \\
        [--work DIR] [--rounds N]

For each ``.pto`` file of the PTOAS checkout's ``test/`` tree matching ``--glob``, the script

1. makes seeded random inputs as ``tools/ptoas_conformance.py`` does (pointer sizes from the tensor views
   made over them, PTOAS's per-case scalar defaults), and times ``tilesim`` running the parsed kernel on its
   own target (``Interpreter(...).run()``, a fresh copy of the inputs each round; parsing is timed apart);
2. lowers the file with PTOAS's ``ptoas`` (``--pto-arch`` and ``--pto-level`` from its RUN line, else the
   module's target and level3 where tiles have addresses, as PTOAS's ``runop.sh`` runs the Qwen3 folders),
   and compiles the C++ it emits against
   the pto-isa checkout's CPU simulator (``-D__CPU_SIM``) into a driver that reads the same inputs, runs the
   kernel once per round on a fresh copy (only the kernel call is timed) and writes its pointer arguments;
3. prints both times per kernel (wall median and minimum over rounds, milliseconds), their ratio, the least
   process CPU time of each (which a loaded machine does not inflate), and whether tilesim's outputs on target
   ``cpu`` (the simulator's semantics) equal the simulator's bit for bit.

The kernels' bf16 arithmetic needs the simulator's ``PTO_CPU_SIM_ENABLE_BF16`` build (C++23
``std::bfloat16_t``, g++ >= 14, decision PTO88): pass such a compiler with ``--cxx``. Nothing from either
checkout is copied; it needs both checkouts and a built ptoas, so it is not part of CI.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import io
import re
import shlex
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ptoas_conformance as conf  # noqa: E402

from tilesim.pto import parse  # noqa: E402
from tilesim.pto.text.interp import InputSizeWarning, Interpreter  # noqa: E402

#: the C++ compiler flags of the simulator's bf16 build (tools/ptoisa_vectors' g++ flags, PTO88)
CXX_FLAGS = ["-std=c++23", "-O2", "-DNDEBUG", "-D__CPU_SIM", "-DPTO_CPU_SIM_ENABLE_BF16=1",
             "-DCPU_SIM_BFLOAT_ENABLED=1", "-include", "stdint.h", "-include", "stddef.h", "-pthread", "-w"]
#: tilesim dtype -> numpy dtype of the bytes the driver reads and writes
LANES = {"bf16": np.uint16}

_SIGNATURE = re.compile(r"__global__\s+AICORE\s+void\s+(\w+)\s*\(([^)]*)\)")


def ptoas_args(case) -> list[str]:
    """``--pto-arch``/``--pto-level`` for ptoas: the file's RUN line, else its target, at level3 where its tiles
    have addresses (ptoas takes ``alloc_tile addr = ...`` only there; PTOAS's ``runop.sh`` runs the Qwen3
    folders so), else level2."""
    run = (conf._run_lines(case.text) or [""])[0]
    arch = re.search(r"--pto-arch[= ](\w+)", run)
    level = re.search(r"--pto-level[= ](level\d)", run)
    arch = arch.group(1) if arch else {"a5": "a5"}.get(case.target, "a3")
    level = level.group(1) if level else "level3" if re.search(r"alloc_tile\s+addr\s*=", case.text) else "level2"
    return [f"--pto-arch={arch}", f"--pto-level={level}"]


def driver(kernel_cpp: str, params: list) -> str:
    """A main() around the emitted kernel: argv[1] the folder of inputs (v1.bin ...), argv[2] the rounds;
    prints the kernel's wall and process CPU nanoseconds, a line per round, and writes each pointer argument
    to vN.out.bin."""
    m = _SIGNATURE.search(kernel_cpp)
    if m is None:
        raise ValueError("no __global__ AICORE kernel in ptoas's output")
    name, cparams = m.group(1), [p.strip() for p in m.group(2).split(",") if p.strip()]
    if len(cparams) != len(params):
        raise ValueError(f"the kernel takes {len(cparams)} arguments; the program has {len(params)}")
    args, loads = [], []
    for k, (p, c) in enumerate(zip(params, cparams)):
        ctype = c.rsplit(None, 1)[0] if not c.endswith("*") else c
        if p.kind == "ptr":
            loads.append(f'    bufs.push_back(read(dir + "/{p.cname}.bin"));')
            args.append(f"reinterpret_cast<{ctype}>(work[{len(loads) - 1}].data())")
        else:
            args.append(f"static_cast<{ctype}>({p.value!r})")
    ptrs = [p for p in params if p.kind == "ptr"]
    writes = "\n".join(f'    write(dir + "/{p.cname}.out.bin", work[{k}]);' for k, p in enumerate(ptrs))
    return f"""{kernel_cpp}
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>
static std::vector<unsigned char> read(const std::string& path) {{
    std::ifstream f(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {{}});
}}
static void write(const std::string& path, const std::vector<unsigned char>& b) {{
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
}}
int main(int argc, char** argv) {{
    std::string dir = argv[1];
    int rounds = std::atoi(argv[2]);
    std::vector<std::vector<unsigned char>> bufs;
{chr(10).join(loads)}
    std::vector<std::vector<unsigned char>> work;
    for (int r = 0; r < rounds; ++r) {{
        work = bufs;
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        {name}({", ".join(args)});
        std::clock_t c1 = std::clock();
        auto t1 = std::chrono::steady_clock::now();
        std::printf("%lld %lld\\n", (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count(),
                    (long long)((c1 - c0) * (1000000000LL / CLOCKS_PER_SEC)));
    }}
{writes}
    return 0;
}}
"""


def _inputs(case, program, root: Path, seed: int = 0):
    """(params, inputs): the conformance tool's random inputs, each pointer sized to what the kernel reaches."""
    _, params = conf.signature(case, program, conf._scalar_defaults(root))
    base = {p.arg: p.count for p in params}
    for p in params:  # room for run-time offsets, then cut to what a run reached (as the conformance tool does)
        p.count += max(min(p.count, 1 << 20), 1 << 16) if p.kind == "ptr" and not p.fixed else 0
    inputs = conf.random_inputs(params, program, case, np.random.default_rng(seed))
    reach: dict = {}
    with warnings.catch_warnings():  # the padded inputs are longer than the views reach, on purpose
        warnings.simplefilter("ignore", InputSizeWarning)
        conf.run_tilesim(case, program, {k: np.copy(v) for k, v in inputs.items()}, 600, reach)
    for p in params:
        if p.kind == "ptr" and not p.fixed:
            p.count = max(base[p.arg], reach.get(p.arg, 0))
            inputs[p.arg] = inputs[p.arg][: p.count]
    return params, inputs


def time_tilesim(case, program, inputs: dict, target: str, rounds: int) -> tuple[list[float], list[float], dict]:
    """Wall and process CPU seconds per run (a fresh copy of the inputs each round, not timed, which the run
    writes in place as the simulator's driver does), and the last run's outputs."""
    walls, cpus, out = [], [], {}
    for _ in range(rounds):
        fresh = {k: np.copy(v) for k, v in inputs.items()}
        it = Interpreter(program, fresh, target, level=case.level, stdout=io.StringIO(), copy_inputs=False)
        t0, c0 = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            out = it.run()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return walls, cpus, out


def build(case, params, ptoas: str, ptoisa: Path, cxx: list[str], work: Path) -> Path:
    """ptoas's C++ for the case, wrapped in :func:`driver` and compiled (unless ``work`` holds a build of the
    same source); the executable's path."""
    work.mkdir(parents=True, exist_ok=True)
    kernel = work / "kernel.cpp"
    r = subprocess.run([ptoas, str(case.path), "-o", str(kernel), *ptoas_args(case)], capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError(f"ptoas failed: {r.stderr.strip()[-400:]}")
    src, exe = work / "driver.cpp", work / "driver"
    text = driver(kernel.read_text(), params)
    if exe.is_file() and src.is_file() and src.read_text() == text:  # built before from the same source
        return exe
    src.write_text(text)
    r = subprocess.run([*cxx, *CXX_FLAGS, "-I", str(ptoisa / "include"), str(src), "-o", str(exe)],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"compile failed: {r.stderr.strip()[:600]}")
    return exe


def run_cpusim(exe: Path, params, inputs: dict, rounds: int, prefix: list[str], work: Path):
    """Wall and process CPU seconds per kernel call, and the pointer arguments after the last round (by
    argument name)."""
    for p in params:
        if p.kind == "ptr":
            np.ascontiguousarray(inputs[p.arg]).tofile(work / f"{p.cname}.bin")
    r = subprocess.run([*prefix, str(exe), str(work), str(rounds)], capture_output=True, text=True, check=True)
    rows = [[int(v) * 1e-9 for v in line.split()] for line in r.stdout.splitlines() if line.strip()]
    out = {p.arg: np.fromfile(work / f"{p.cname}.out.bin", inputs[p.arg].dtype) for p in params if p.kind == "ptr"}
    return [w for w, _ in rows], [c for _, c in rows], out


def differences(tilesim_out: dict, cpusim_out: dict, inputs: dict) -> tuple[int, int]:
    """(elements that differ, the largest distance in ulps) between tilesim's pointer arguments after a run
    (those it did not write are its inputs) and the simulator's."""
    n, worst = 0, 0
    for k, b in cpusim_out.items():
        a = np.asarray(tilesim_out.get(k, inputs[k])).reshape(-1)
        lane = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
        av, bv = a.view(lane), b.reshape(-1).view(lane)
        d = np.flatnonzero(av != bv)
        n += d.size
        if d.size:
            worst = max(worst, int(conf.ulp_distance(av[d], bv[d], lane).max()))
    return n, worst


def _ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1e3:9.2f} ({min(xs) * 1e3:.2f})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ptoas_checkout", type=Path)
    ap.add_argument("ptoisa_checkout", type=Path)
    ap.add_argument("--ptoas", required=True, help="the ptoas binary built from the PTOAS checkout")
    ap.add_argument("--glob", default="qwen3_decode_incore_*", help="file stems to run")
    ap.add_argument("--folder", default="*", help="the files' folder names to run (e.g. Qwen3DecodeA5)")
    ap.add_argument("--cxx", default="g++-14", help="C++23 compiler command with std::bfloat16_t (may be a chroot)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/ptoas_cpusim"))
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    root = a.ptoas_checkout.resolve()
    cxx = shlex.split(a.cxx)
    prefix = cxx[:2] if cxx[0] == "chroot" else []  # run the driver where its libstdc++ is
    cases = sorted((c for c in conf.corpus(root) if not c.negative and c.path.suffix == ".pto"
                    and fnmatch.fnmatch(c.path.stem, a.glob) and fnmatch.fnmatch(c.path.parent.name, a.folder)),
                   key=lambda c: (c.path.parent.name, c.path.stem))
    print(f"PTOAS {conf._commit(root)}, pto-isa {conf._commit(a.ptoisa_checkout.resolve())}, {a.rounds} rounds; "
          "ms median (min); ratio of medians")
    print(f"{'kernel':26} {'folder':16} {'target':6} {'parse':>7} {'tilesim':>18} {'cpu sim':>18} {'ratio':>7}  "
          "process CPU (least) tilesim / cpu sim; tilesim on cpu against the simulator")
    for case in cases:
        try:
            t0 = time.perf_counter()
            program = parse(case.text, source=str(case.path))
            t_parse = time.perf_counter() - t0
            params, inputs = _inputs(case, program, root)
            t_ts, c_ts, _ = time_tilesim(case, program, inputs, case.target, a.rounds)
            _, _, on_cpu = time_tilesim(case, program, inputs, "cpu", 1)
            work = a.work / case.path.parent.name / case.path.stem
            exe = build(case, params, a.ptoas, a.ptoisa_checkout.absolute(), cxx, work)
            t_cs, c_cs, got = run_cpusim(exe, params, inputs, a.rounds, prefix, work)
            n_diff, worst = differences(on_cpu, got, inputs)
            print(f"{case.path.stem:26} {case.path.parent.name:16} {case.target:6} {t_parse * 1e3:7.1f} "
                  f"{_ms(t_ts):>18} {_ms(t_cs):>18} {statistics.median(t_ts) / statistics.median(t_cs):7.1f}  "
                  f"cpu {min(c_ts) * 1e3:.2f} / {min(c_cs) * 1e3:.2f} ms = {min(c_ts) / max(min(c_cs), 1e-9):.1f}x  "
                  f"{n_diff} elements differ" + (f" (at most {worst} ulp)" if n_diff else ""), flush=True)
        except Exception as e:  # noqa: BLE001 - a kernel that cannot be built or run is reported, not fatal
            why = str(e).splitlines()[0][:160] if str(e) else ""
            print(f"{case.path.stem:26} {case.path.parent.name:16} {type(e).__name__}: {why}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
