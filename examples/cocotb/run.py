"""Build an example design with Icarus Verilog and run its cocotb testbench against tilesim.

    python examples/cocotb/run.py               # ame_mac_int8.v, the good build: passes
    python examples/cocotb/run.py --bug         # -DPLANTED_BUG_WRAP: the scoreboard fails it
    python examples/cocotb/run.py --design pipe # ame_mac_pipe.v: clocked, valid/ready, per-transaction scoreboard
    python examples/cocotb/run.py --design pipe --bug   # -DPLANTED_BUG_BETA: caught

Needs ``pip install -e '.[cocotb]'`` and ``iverilog`` on PATH (Debian: ``apt-get install iverilog``).
Everything it writes goes under ``--build`` (default ``examples/cocotb/build``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The vector set the design implements: ``tilesim vectors ame mmacc`` with these options.
VECTOR_OPTIONS = {"ft": "int8", "bovf": 0, "sat": 1, "tiling": "1x1", "k": 16, "m": 16}


#: design -> (Verilog file, top level, testbench module, planted-bug define)
DESIGNS = {"comb": ("ame_mac_int8.v", "ame_mac_int8", "tb_ame_mac", "PLANTED_BUG_WRAP"),
           "pipe": ("ame_mac_pipe.v", "ame_mac_pipe", "tb_ame_mac_pipe", "PLANTED_BUG_BETA")}


def run_pipe(build: Path, *, bug: bool = False, n: int = 40, seed: int = 1) -> tuple[int, int, Path]:
    """Build and simulate the pipelined design; returns (tests, failed tests, directory of coverage.json)."""
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    source, top, tb, define = DESIGNS["pipe"]
    build = Path(build).resolve()
    variant = "bug" if bug else "good"
    out = build / f"pipe_{variant}"
    runner = get_runner("icarus")
    runner.build(sources=[HERE / source], hdl_toplevel=top, defines={define: 1} if bug else {},
                 build_dir=build / f"sim_pipe_{variant}", always=True, timescale=("1ns", "1ps"))
    xml = build / f"results_pipe_{variant}.xml"
    try:
        runner.test(hdl_toplevel=top, test_module=tb, test_dir=HERE, build_dir=build / f"sim_pipe_{variant}",
                    results_xml=str(xml),
                    extra_env={"TILESIM_SEED": str(seed), "TILESIM_N": str(n), "TILESIM_OUT": str(out)})
    except SystemExit:          # under pytest the runner exits on a failing test; the results file tells
        pass
    tests, failed = get_results(xml)
    return tests, failed, out


def run(build: Path, *, bug: bool = False, n: int = 48, seed: int = 1) -> tuple[int, int, Path]:
    """Write vectors, build, simulate the combinational design; returns (tests, failed tests, dump directory)."""
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    from tilesim.verify.commands import make_vectors

    build = Path(build).resolve()
    golden = build / "golden"
    make_vectors("ame", "mmacc", n=n, seed=seed, **VECTOR_OPTIONS).write(golden)
    variant = "bug" if bug else "good"
    runner = get_runner("icarus")
    runner.build(sources=[HERE / "ame_mac_int8.v"], hdl_toplevel="ame_mac_int8",
                 defines={"PLANTED_BUG_WRAP": 1} if bug else {}, build_dir=build / f"sim_{variant}", always=True,
                 timescale=("1ns", "1ps"))
    dump = build / f"dump_{variant}"
    xml = build / f"results_{variant}.xml"
    try:
        runner.test(hdl_toplevel="ame_mac_int8", test_module="tb_ame_mac", test_dir=HERE,
                    build_dir=build / f"sim_{variant}", results_xml=str(xml),
                    extra_env={"TILESIM_GOLDEN": str(golden), "TILESIM_DUMP": str(dump)})
    except SystemExit:          # under pytest the runner exits on a failing test; the results file tells
        pass
    tests, failed = get_results(xml)
    return tests, failed, dump


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bug", action="store_true", help="build with the design's planted bug")
    ap.add_argument("--design", choices=sorted(DESIGNS), default="comb", help="comb (default) or pipe")
    ap.add_argument("--build", type=Path, default=HERE / "build", help="output directory")
    args = ap.parse_args()
    if args.design == "pipe":
        tests, failed, out = run_pipe(args.build, bug=args.bug)
        print(f"{tests - failed}/{tests} cocotb tests passed; coverage.json in {out}")
    else:
        tests, failed, dump = run(args.build, bug=args.bug)
        print(f"{tests - failed}/{tests} cocotb tests passed; device dump in {dump}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
