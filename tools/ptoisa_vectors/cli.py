from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import __doc__ as PACKAGE_DOC
from .bank import check, save, simulator_only
from .common import Case, ROOT
from .driver import Toolchain, build, find_cxx, kernel_name, run_driver
from .families import all_cases


def _generate(a, tc: Toolchain, cases: list[Case], work: Path, commit: str, suffix: str = "") -> None:
    """Build, run and store these cases with one toolchain (files ``<op><suffix>.npz``)."""
    keys, ops = [], []
    for c in cases:
        if c.key not in keys:
            keys.append(c.key)
            ops.append(c.op)
    work.mkdir(parents=True, exist_ok=True)
    print(f"{len(cases)} cases, {len(keys)} kernels; building in {work} with {tc.version}")
    exe, rejected = build(a.checkout, keys, ops, work, tc, a.jobs, tc.salt(commit))
    if rejected:
        print(f"{len(rejected)} kernels do not compile against this checkout; their cases are left out:")
        for call, specs in sorted(rejected, key=kernel_name):
            print("   ", call, " ".join(f"{s.role}:{s.dtype}:{s.blayout}" for s in specs))
    cases = [c for c in cases if c.key not in rejected]
    kept = [k for k in keys if k not in rejected]
    results = run_driver(exe, cases, {k: i for i, k in enumerate(kept)}, work, tc)
    save(cases, results, a.out, {"pto_isa_commit": commit, "compiler": tc.version, "flags": list(tc.flags),
                                 "seed": a.seed}, suffix)
    print(f"wrote {len({c.stem for c in cases})} files to {a.out}")


def main() -> None:
    ap = argparse.ArgumentParser(prog="ptoisa_vectors", description=PACKAGE_DOC.split("\n\n")[0])
    ap.add_argument("checkout", nargs="?", type=Path, help="a pto-isa checkout (hw-native-sys/pto-isa)")
    ap.add_argument("-o", "--out", type=Path, default=ROOT / "tests" / "pto" / "golden")
    ap.add_argument("--cxx", help="clang++ (>= 17) or g++ (>= 14) to build the driver with, maybe after a "
                    "wrapper (\"chroot DIR g++-14\")")
    ap.add_argument("--bf16-cxx", help="g++ (>= 14, C++23 std::bfloat16_t) for the bf16 cases, maybe after a "
                    "wrapper (\"chroot DIR g++-14\"); without it they are left out")
    ap.add_argument("--gxx-ops", help="comma-separated ops whose plain (not bf16) cases are also built with "
                    "--bf16-cxx's g++ and stored as <op>.gxx.npz: the whole-g++ build cpu models for a program "
                    "with bf16 (PTO193); without --ops only these files are made")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--seed", type=int, default=20260)
    ap.add_argument("--check", action="store_true", help="replay the vectors through tilesim afterwards")
    ap.add_argument("--check-only", action="store_true", help="only replay the stored vectors")
    ap.add_argument("-v", "--verbose", type=int, default=3, help="disagreements to show per op")
    ap.add_argument("--keep", type=Path, help="build in this folder and keep it")
    ap.add_argument("--ops", help="comma-separated files to (re)generate (tdiv, tcvt.bf16); the other stored "
                    "files stay as they are")
    a = ap.parse_args()
    if not a.check_only:
        if a.checkout is None:
            ap.error("give the pto-isa checkout")
        cases = all_cases(a.seed) if a.ops or not a.gxx_ops else []  # --gxx-ops alone: only the .gxx files
        if a.ops:
            want = set(a.ops.split(","))
            unknown = want - {c.stem for c in cases}
            if unknown:
                ap.error(f"no cases for {', '.join(sorted(unknown))}")
            cases = [c for c in cases if c.stem in want]
        bf16 = [c for c in cases if c.stem.endswith(".bf16")]
        if bf16 and not a.bf16_cxx:
            if a.ops:
                ap.error("bf16 files need --bf16-cxx")
            print(f"{len(bf16)} bf16 cases left out (give --bf16-cxx)")
        if a.bf16_cxx and not a.keep:
            ap.error("--bf16-cxx needs --keep (a build folder its wrapper sees at the same path)")
        commit = subprocess.run(["git", "-C", str(a.checkout), "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        work = a.keep or Path(tempfile.mkdtemp(prefix="ptoisa-"))
        plain = [c for c in cases if not c.stem.endswith(".bf16")]
        if plain:
            _generate(a, find_cxx(a.cxx), plain, work, commit)
        if bf16 and a.bf16_cxx:
            _generate(a, find_cxx(a.bf16_cxx, bf16=True), bf16, work / "bf16", commit)
        if a.gxx_ops:
            if not a.bf16_cxx:
                ap.error("--gxx-ops needs --bf16-cxx")
            want = set(a.gxx_ops.split(","))
            gxx = [c for c in all_cases(a.seed) if c.stem in want]
            if not gxx:
                ap.error(f"no plain cases for {a.gxx_ops}")
            _generate(a, find_cxx(a.bf16_cxx, bf16=True), gxx, work / "gxx", commit, ".gxx")
        if not a.keep:
            shutil.rmtree(work)
    if a.check or a.check_only:
        ok = check(a.out, a.verbose)
        if a.checkout is not None:
            only, textual = simulator_only(a.checkout)
            print(f"{len(textual)} entry points tilesim has with no tile result to store (.pto ops, tilesim.pto.pipe) "
                  f"(TGET_SCALE_ADDR re-points dst at src's bytes, PTO71): {', '.join(textual)}")
            print(f"{len(only)} entry points of the simulator that tilesim has no op for: {', '.join(only)}")
        sys.exit(0 if ok else 1)
