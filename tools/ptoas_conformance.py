"""Run tilesim on the PTOAS sample corpus and report how much of it works.

Usage: ``python tools/ptoas_conformance.py PTOAS_CHECKOUT [--only SUBSTR] [-v] [--timeout S]``

PTOAS_CHECKOUT is a local clone of https://github.com/hw-native-sys/PTOAS. The
corpus is every ``.pto`` file under its ``test/`` tree plus every IR string
(a triple-quoted ``module { ... func.func ...}``) in its Python samples. For
each program the script

1. parses it (``tilesim.pto.parse``);
2. classifies it: a *negative* test is one whose first ``RUN:`` line is
   ``not ptoas``, or pipes ptoas's stderr into FileCheck with CHECK lines
   that expect an ``error:``, or an IR string of a Python sample named
   ``*_invalid`` or passed to its ``expect_parse_error``; PTOAS must reject it;
3. runs every positive program once on its intended target (``--pto-arch`` of
   its RUN line, else the module's ``pto.target_arch``, else ``a2a3``) with
   random inputs: pointer arguments are sized from the tensor views made over
   them (as PTOAS's ``test/npu_validation/scripts/generate_testcase.py`` does),
   integer scalars get that script's defaults, except that a scalar which
   sets a tile's valid rows/cols gets the tile's extent (``valid_extents``);
4. where the program has a ``*_golden.py`` script, runs that script (from the
   checkout, in a scratch directory, with the ``main.cpp``/``outputs.txt``
   metadata it reads synthesised from the program's signature), runs tilesim
   on the inputs the script wrote, and compares every output with the
   script's golden bit for bit; a pair that differs shows how many elements,
   the largest difference and the largest distance in ulps, and, where it was
   traced (:data:`EXPLAINED`), "differs, explained" with the decision;
5. runs every negative program and records whether tilesim rejects it, with
   tilesim's rule id next to PTOAS's expected diagnostic.

It prints the counts, the first blocker of each file that fails (grouped),
the golden comparisons, and the negative tests. Nothing from the checkout is
copied; it needs the checkout, so it is not part of CI.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tilesim.errors import TilesimError
from tilesim.pto import parse
from tilesim.pto.text.interp import Interpreter
from tilesim.pto.text.types import memref_location, memref_shape, view_dtype

#: element types of pointer arguments -> the C host type PTOAS's generated main.cpp declares
HOST = {"f32": "float", "f16": "aclFloat16", "bf16": "bfloat16_t", "i8": "int8_t", "u8": "uint8_t",
        "i16": "int16_t", "u16": "uint16_t", "i32": "int32_t", "u32": "uint32_t", "i64": "int64_t",
        "u64": "uint64_t", "f64": "double", "i1": "bool"}
#: scalar argument types -> host type
SCALAR_HOST = {"index": "int32_t", "i32": "int32_t", "i64": "int64_t", "i16": "int16_t", "i8": "int8_t",
               "u32": "uint32_t", "i1": "bool", "f32": "float", "f16": "aclFloat16"}
ARCH = {"a3": "a2a3", "a2a3": "a2a3", "a5": "a5", "cpu": "cpu"}
SOC = {"a2a3": "Ascend910B1", "a5": "Ascend950", "cpu": "Ascend910B1"}
DEFAULT_COUNT = 32 * 32

#: tilesim rule -> what PTOAS's diagnostic (or, without one, the test's file name) says for the same reason
REASONS = {
    "pto.func.entry_void": r"must return void", "pto.func.recursive": r"recursive",
    "pto.mem.level3_addr": r"requires 'addr'", "pto.op.valid_match": r"compatible shapes",
    "pto.async.shape": r"1D GM memref", "pto.pipe.peer": r"complete peer init pair",
    "pto.pipe.local_addr": r"local_addr to come from", "pto.pipe.valid_shape": r"dynamic validShape",
    "pto.pipe.split": r"conflicting pipe split", "pto.pipe.nosplit": r"nosplit",
    "pto.view.result_shape": r"size_result_mismatch", "pto.mem.window": r"out_of_bounds|out of bounds",
    # per-target TEXTRACT/TINSERT rules and ops a target lacks (PTO43)
    "pto.op.layout": r"textract src/dst to use ND layout",
    "pto.op.dtype": r"(textract|tinsert) element types? to be|tgather src element type",
    "pto.parse.tile_buf.duplicate": r"duplicate \w+ in tile_buf compact syntax",
    "pto.parse.tile_buf.static_shape": r"expected static shape",
    "pto.parse.tile_buf.valid_dims": r"valid must have exactly two dims",
    "pto.tquant.offset": r"quantization (requires an|must not have an) offset operand",
    "pto.tquant.quant_type": r"expects dst element type u?i8 for INT8_",
    "pto.tstore.count": r"expects dst static element count",
    "pto.mem.reserve_manual": r"reserve_buffer with (explicit 'base' \()?auto = false",
    "pto.op.target": r"is only supported on", "pto.op.loc": r"supported src/dst loc pair|to use loc=|to be in the \w+ address space",
}


#: golden pairs traced element by element that differ for a known reason (docs/decisions.md): (dir prefix, stem) ->
#: (decision, cause). Each cause was checked by rerunning the golden with that one step done tilesim's way
#: (then every element matched).
EXPLAINED = {
    **{("Qwen3Decode", f"qwen3_decode_incore_{k}"): ("PTO44", "matmul: BLAS sgemm order vs the sequential fma chain")
       for k in (1, 2, 5, 7, 9, 12, 13, 15)},
    **{("Qwen3Decode", f"qwen3_decode_incore_{k}"): (
        "PTO44", "row sum: numpy pairwise vs sequential; TCVT rmode=ROUND ties: golden rounds half to even")
       for k in (0, 11)},
    ("Qwen3Decode", "qwen3_decode_incore_4"): ("PTO45", "golden binds cos/sin lo and hi to swapped arguments"),
}


def explained(case) -> tuple[str, str] | None:
    """The decision and cause recorded for a golden pair that is known to differ, or None."""
    return EXPLAINED.get((case.path.parent.name[:len("Qwen3Decode")], case.path.stem))


def ulp_distance(a: np.ndarray, b: np.ndarray, lane) -> np.ndarray:
    """|a - b| in units in the last place: the distance of the two codes on the ordered float line."""
    bits = 8 * np.dtype(lane).itemsize
    sign = 1 << (bits - 1)
    ai, bi = a.view(lane).astype(np.int64), b.view(lane).astype(np.int64)
    ai = np.where(ai & sign, sign - ai, ai)
    bi = np.where(bi & sign, sign - bi, bi)
    return np.abs(ai - bi)


@dataclass
class Case:
    name: str
    path: Path
    text: str
    negative: bool
    target: str
    level: str | None
    expect: str = ""
    golden: Path | None = None
    parsed: bool = False
    ran: bool = False
    blocker: str = ""
    outputs: dict = field(default_factory=dict)
    golden_result: str = ""
    reject: str = ""


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: int):
    def fire(*_):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# ----------------------------------------------------------------------------- corpus
def _run_lines(text: str) -> list[str]:
    return re.findall(r"//\s*RUN:\s*(.*)", text)


def _target_of(text: str, run: str) -> str:
    m = re.search(r"--pto-arch[= ](\w+)", run)
    if m:
        return ARCH.get(m.group(1), "a2a3")
    m = re.search(r'pto\.target_arch\s*=\s*"(\w+)"', text)
    return ARCH.get(m.group(1), "a2a3") if m else "a2a3"


def _expected(text: str) -> str:
    lines = re.findall(r"//\s*(?:CHECK|ERR|LV2ERR)[\w-]*:\s*(.*)", text)
    err = [x for x in lines if "error" in x.lower()]
    return (err or lines or [""])[0].strip()


def corpus(root: Path) -> list[Case]:
    test = root / "test"
    cases = []
    for p in sorted(test.rglob("*.pto")):
        text = p.read_text(errors="replace")
        runs = _run_lines(text)
        first = runs[0] if runs else ""
        # negative: `not ptoas`, or ptoas's stderr piped to FileCheck whose CHECK lines expect an error
        neg = first.lstrip().startswith("not ") or ("2>&1" in first and bool(
            re.search(r"//\s*CHECK[\w-]*:.*\berror:", text)))
        level = re.search(r"--pto-level[= ](level\d)", first)
        golden = p.with_name(p.stem + "_golden.py")
        cases.append(Case(str(p.relative_to(test)), p, text, neg, _target_of(text, first),
                          level.group(1) if level else None, _expected(text) if neg else "",
                          golden if golden.is_file() else None))
    for p in sorted(test.rglob("*.py")):
        if p.name.endswith(("_golden.py", "_compare.py")) or p.name == "validation_runtime.py":
            continue
        src = p.read_text(errors="replace")
        for k, m in enumerate(re.finditer(r'(?s)r?"""(.*?)"""', src)):
            body = m.group(1)
            if "func.func" not in body or "module" not in body:
                continue
            # an IR string handed to the sample's expect_parse_error(ctx, IR, needle, ...) must be rejected
            parse_error = "expect_parse_error(" in src[max(0, m.start() - 80): m.start()]
            needle = re.match(r'\s*,\s*"([^"]*)"', src[m.end():]) if parse_error else None
            cases.append(Case(f"{p.relative_to(test)}#{k}", p, body, p.stem.endswith("_invalid") or parse_error,
                              _target_of(body, ""), None, needle.group(1) if needle else p.stem))
    return cases


# ----------------------------------------------------------------------------- inputs
def _constants(text: str) -> dict:
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"%([\w.$-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:", text)}


def _value(tok: str, env: dict) -> int | None:
    tok = tok.strip()
    if re.fullmatch(r"-?\d+", tok):
        return int(tok)
    return env.get(tok.lstrip("%"))


def pointer_counts(text: str, env: dict) -> dict:
    """Elements each pointer argument needs: the largest extent of a tensor view made over it."""
    need: dict = {}
    pat = r"make_tensor_view\s+%([\w.$-]+)\s*,\s*shape\s*=\s*\[([^\]]*)\]\s*,\s*strides\s*=\s*\[([^\]]*)\]"
    for m in re.finditer(pat, text):
        shape = [_value(t, env) for t in m.group(2).split(",")]
        strides = [_value(t, env) for t in m.group(3).split(",")]
        if None in shape or None in strides:
            n = DEFAULT_COUNT
        else:
            n = 1 + sum((s - 1) * d for s, d in zip(shape, strides)) if all(shape) else 0
        need[m.group(1)] = max(need.get(m.group(1), 0), n)
    return need


def valid_extents(text: str) -> dict:
    """Scalar arguments that set a tile's valid rows/cols -> the smallest such tile extent.

    PTOAS's own hand-written validation mains run these kernels on whole tiles
    (e.g. ``test/samples/FFN/npu_validation/main.cpp`` passes 32, 32), while
    ``generate_testcase.py`` would pass 1, which breaks pto-isa's TLOAD check
    ``validCol == shape4`` against the kernels' static 32x32 windows.
    """
    alias = {m.group(1): m.group(2) for m in re.finditer(
        r"%([\w.$-]+)\s*=\s*arith\.(?:index_cast\w*|ext[su]i|trunci)\s+%([\w.$-]+)", text)}
    out: dict = {}
    for m in re.finditer(r"alloc_tile\b([^:\n]*):\s*!pto\.tile_buf<([^>]*)>", text):
        dims = dict(re.findall(r"\b(rows|cols)\s*=\s*(\d+)", m.group(2)))
        for key, dim in (("valid_row", "rows"), ("valid_col", "cols")):
            v = re.search(key + r"\s*=\s*%([\w.$-]+)", m.group(1))
            if v and dim in dims:
                name = v.group(1)
                while name in alias:
                    name = alias[name]
                out[name] = min(out.get(name, 1 << 30), int(dims[dim]))
    return out


def _scalar_defaults(root: Path) -> dict:
    """PTOAS's per-case overrides of integer scalar arguments (read from the checkout, not copied)."""
    script = root / "test/npu_validation/scripts/generate_testcase.py"
    m = re.search(r"(?s)CASE_INT_SCALAR_DEFAULTS\s*=\s*(\{.*?\n\})", script.read_text()) if script.is_file() else None
    if not m:
        return {}
    import ast
    return ast.literal_eval(m.group(1))


@dataclass
class Param:
    arg: str        # name in the program, without %
    cname: str      # v1, v2 ... (PTOAS's generated C names)
    kind: str       # ptr / tile / scalar
    dtype: str
    count: int = 0
    value: int | float = 1
    fixed: bool = False      # a memref: its size is its type's


def signature(case: Case, program, overrides: dict) -> tuple:
    fn = Interpreter(program, {}, case.target)._entry(None)
    env = _constants(case.text)
    extents = valid_extents(case.text)
    params = []
    for k, (name, ty) in enumerate(fn.args):
        cname = f"v{k + 1}"
        if ty.name == "!pto.ptr" or (ty.name == "memref" and memref_location(ty) is None):
            dt = view_dtype(ty) or memref_shape(ty).elem
            params.append(Param(name, cname, "ptr", dt))
        elif ty.name.startswith("!pto.tile") or ty.name == "memref":
            params.append(Param(name, cname, "tile", ""))
        else:
            v = overrides.get(case.path.stem, {}).get(cname, extents.get(name, 1))
            params.append(Param(name, cname, "scalar", ty.name, value=v if ty.name != "i1" else 1))
    env.update({p.arg: p.value for p in params if p.kind == "scalar"})
    counts = pointer_counts(case.text, env)
    for p in params:
        if p.kind == "ptr":
            ty = dict(fn.args)[p.arg]
            if ty.name == "memref":
                p.count, p.fixed = int(np.prod(memref_shape(ty).dims)), True
            else:
                p.count = counts.get(p.arg, DEFAULT_COUNT)
    return fn, params


def random_inputs(params: list, program, case: Case, rng) -> dict:
    from tilesim.pto.text.types import tile_spec
    from tilesim.pto.targets import get_target
    fn = Interpreter(program, {}, case.target)._entry(None)
    types = dict(fn.args)
    out = {}
    for p in params:
        if p.kind == "ptr":
            out[p.arg] = _random(p.dtype, (p.count,), rng)
        elif p.kind == "tile":
            spec = tile_spec(types[p.arg], get_target(case.target))
            shape = tuple(v if v is not None else d for v, d in zip(spec.valid, (spec.rows, spec.cols)))
            out[p.arg] = _random(spec.dtype, shape, rng)
        elif p.dtype in ("f32", "f16", "bf16"):
            out[p.arg] = 1.0
        elif p.dtype == "vector":          # e.g. TMRGSORT's executed-count list: zeros of its shape
            out[p.arg] = np.zeros(next(q.dims for _, q in types[p.arg].params if hasattr(q, "dims")), np.int64)
        else:
            out[p.arg] = int(p.value)
    return out


def _random(dtype: str, shape: tuple, rng) -> np.ndarray:
    from tilesim.pto.dtypes import get_dtype
    dt = get_dtype(dtype)
    if dt.is_float:
        from tilesim.pto.tile import to_bits
        return to_bits(rng.uniform(-1, 1, shape), dtype).view(dt.np).reshape(shape)
    info = np.iinfo(dt.np)
    lo, hi = max(info.min, -8), min(info.max, 8)
    return rng.integers(lo, hi, shape, endpoint=True).astype(dt.np)


def run_tilesim(case: Case, program, inputs: dict, timeout: int, reach: dict | None = None) -> dict:
    """Outputs of one run; ``reach`` receives how many elements of each pointer the kernel touched."""
    it = Interpreter(program, inputs, case.target, level=case.level, stdout=io.StringIO())   # tprint text
    with _deadline(timeout), contextlib.redirect_stdout(io.StringIO()):
        out = it.run()
    if reach is not None:
        reach.update({n: g.reach for n, g in it.globals.items()})
    return out


# ----------------------------------------------------------------------------- golden
def golden(case: Case, root: Path, program, params: list, outputs: list, timeout: int) -> str:
    """Run the case's golden script on synthesised metadata; compare tilesim's outputs with its golden."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        lines = []
        for p in params:
            if p.kind == "ptr":
                host = HOST[p.dtype]
                lines += [f"    size_t elemCount_{p.cname} = {p.count};",
                          f"    size_t fileSize_{p.cname} = elemCount_{p.cname} * sizeof({host});"]
        for p in params:
            if p.kind == "scalar":
                lines.append(f"    {SCALAR_HOST.get(p.dtype, 'int32_t')} {p.cname} = {int(p.value)};")
        for p in params:
            if p.kind == "ptr":
                lines.append(f'    ReadFile("./{p.cname}.bin", fileSize_{p.cname}, {p.cname}Host, fileSize_{p.cname});')
        (d / "main.cpp").write_text("\n".join(lines) + "\n")
        by_arg = {p.arg: p for p in params}
        outs = [by_arg[a].cname for a in outputs if a in by_arg]
        (d / "outputs.txt").write_text("\n".join(outs) + "\n")
        env = dict(os.environ, SOC_VERSION=SOC[case.target],
                   PYTHONPATH=os.pathsep.join([str(case.golden.parent), str(root / "test/samples")]))
        try:
            r = subprocess.run([sys.executable, str(case.golden)], cwd=d, env=env, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return "golden script timed out"
        if r.returncode:
            return "golden script failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:100]
        from tilesim.pto.dtypes import get_dtype
        inputs = {}
        for p in params:
            if p.kind == "ptr":
                inputs[p.arg] = np.fromfile(d / f"{p.cname}.bin", get_dtype(p.dtype).np)
            elif p.kind == "scalar":
                inputs[p.arg] = p.value if p.dtype not in ("f32", "f16") else 1.0
        try:
            got = run_tilesim(case, program, inputs, timeout)
        except _Timeout:
            return "tilesim timed out on the golden inputs"
        except TilesimError as e:
            return f"tilesim failed on the golden inputs: {e.rule}"
        verdicts = []
        for a in outputs:
            p = by_arg[a]
            dt = get_dtype(p.dtype)
            want = np.fromfile(d / f"golden_{p.cname}.bin", dt.lane)
            have = np.asarray(got[a]).reshape(-1).view(dt.lane)
            if have.size != want.size:
                verdicts.append(f"{p.cname}: size {have.size} vs {want.size}")
                continue
            bad = np.flatnonzero(have != want)
            if not bad.size:
                verdicts.append(f"{p.cname}: bit-exact")
            else:
                hv = have.view(dt.np).astype(np.float64)
                wv = want.view(dt.np).astype(np.float64)
                err = np.nanmax(np.abs(hv - wv)[bad]) if dt.is_float else int(np.max(np.abs(hv - wv)))
                ulp = f", max {int(ulp_distance(have, want, dt.lane)[bad].max())} ulp" if dt.is_float else ""
                verdicts.append(f"{p.cname}: {bad.size}/{want.size} differ (max |diff| {err:.3g}{ulp})")
        return "; ".join(verdicts) or "no outputs"


# ----------------------------------------------------------------------------- main
def _first_line(e: BaseException) -> str:
    if isinstance(e, TilesimError):
        return f"{e.rule}: {str(e.detail)[:90]}"
    return f"{type(e).__name__}: {str(e)[:90]}"


def _group(msg: str) -> str:
    """A blocker grouped by kind (the op or rule it names)."""
    m = re.search(r"unsupported operation '([^']+)'", msg)
    if m:
        return f"op {m.group(1)}"
    return msg.split(":")[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--only", default="")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--golden-timeout", type=int, default=600, help="seconds for one golden script")
    ap.add_argument("--no-golden", action="store_true")
    a = ap.parse_args(argv)
    root = a.checkout.resolve()
    if not (root / "test").is_dir():
        print(f"error: {a.checkout} is not a PTOAS checkout (it has no test/ folder)", file=sys.stderr)
        return 2
    overrides = _scalar_defaults(root)
    rng = np.random.default_rng(0)
    cases = [c for c in corpus(root) if a.only in c.name]
    for c in cases:
        try:
            prog = parse(c.text, source=c.name)
            c.parsed = True
        except TilesimError as e:
            c.blocker = "parse: " + _first_line(e)
            if c.negative:
                c.reject = f"parse {e.rule}"
            continue
        except Exception as e:  # noqa: BLE001 - a crash is what we count
            c.blocker = "CRASH parse: " + _first_line(e)
            continue
        try:
            _, params = signature(c, prog, overrides)
            base = {p.arg: p.count for p in params}
            for p in params:        # room for offsets the views do not show (run-time rows, PTO26)
                p.count += max(min(p.count, 1 << 20), 1 << 16) if p.kind == "ptr" and not p.fixed else 0
            inputs = random_inputs(params, prog, c, rng)
            reach: dict = {}
            got = run_tilesim(c, prog, inputs, a.timeout, reach)
            for p in params:
                if p.kind == "ptr" and not p.fixed:
                    p.count = max(base[p.arg], reach.get(p.arg, 0))
            c.ran = True
            c.outputs = got
        except _Timeout:
            c.blocker = "run: timed out"
            continue
        except TilesimError as e:
            c.blocker = "run: " + _first_line(e)
            if c.negative:
                c.reject = f"run {e.rule}"
            continue
        except Exception as e:  # noqa: BLE001
            c.blocker = "CRASH run: " + _first_line(e)
            continue
        if c.golden is not None and not a.no_golden:
            written = [p.arg for p in params if p.kind == "ptr" and p.arg in got]
            c.golden_result = golden(c, root, prog, params, written, a.golden_timeout)
        if a.verbose:
            print(f"{c.name}: ok {c.golden_result}", file=sys.stderr)

    pos = [c for c in cases if not c.negative]
    neg = [c for c in cases if c.negative]
    print(f"PTOAS checkout: {root} ({_commit(root)})")
    print(f"programs: {len(cases)} ({sum(c.path.suffix == '.pto' for c in cases)} .pto files, "
          f"{sum(c.path.suffix == '.py' for c in cases)} IR strings in Python samples); "
          f"{len(pos)} positive, {len(neg)} negative")
    print(f"parsed:   {sum(c.parsed for c in cases)}/{len(cases)} (positive {sum(c.parsed for c in pos)}/{len(pos)})")
    print(f"ran:      {sum(c.ran for c in pos)}/{len(pos)} positive programs on their target")
    gold = [c for c in pos if c.golden is not None]
    exact = [c for c in gold if c.golden_result and all(v.endswith("bit-exact") for v in c.golden_result.split("; "))]
    differ = [c for c in gold if c.golden_result and c not in exact and " differ (" in c.golden_result]
    known = [c for c in differ if explained(c)]
    print(f"golden:   {len(exact)} bit-exact of {sum(bool(c.golden_result) for c in gold)} compared "
          f"({len(gold)} positive programs have a golden script); {len(known)} differ, explained; "
          f"{len(differ) - len(known)} differ, unexplained")
    right = [c for c in neg if c.reject and re.search(REASONS.get(c.reject.split()[-1], "$^"), c.expect)]
    print(f"negative: {sum(bool(c.reject) for c in neg)}/{len(neg)} rejected, {len(right)} for PTOAS's reason")
    crashes = [c for c in cases if c.blocker.startswith("CRASH")]
    print(f"crashes (not TilesimError): {len(crashes)}")
    print("\nfirst blocker of positive programs that do not run:")
    groups = collections.Counter(_group(c.blocker.split(": ", 1)[1]) for c in pos if not c.ran)
    for g, n in groups.most_common():
        print(f"  {n:4d}  {g}")
    if a.verbose:
        for c in pos:
            if not c.ran:
                print(f"  {c.name}: {c.blocker}")
    print("\ngolden comparisons:")
    for c in gold:
        if c.golden_result:
            why = explained(c) if c in differ else None
            note = f"  [differs, explained: {why[0]}: {why[1]}]" if why else ""
            print(f"  {c.name}: {c.golden_result}{note}")
    print("\nnegative tests (tilesim's rule | PTOAS's expected diagnostic):")
    for c in neg:
        verdict = "REJECTED" if c in right else "rejected (other reason)" if c.reject else "accepted"
        print(f"  {verdict} {c.name}: {c.reject or '-'} | {c.expect[:100]}")
    for c in crashes:
        print(f"  CRASH {c.name}: {c.blocker}")
    return 0


def _commit(root: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True
                              ).stdout.strip()[:12]
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
