"""Self-checking gtests (``TEST``/``TEST_F`` with tiles filled by ``FillLinear``/``FillAll`` in main.cpp and
checked by loops): the adapter reads each test's tile types, fills and instruction call from main.cpp, runs
the instruction on tilesim and checks what the test's loops check, restated here per instruction."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Case, Row, count_tests, refusals

_TEST = re.compile(r"TEST(?:_F)?\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{(?: ([^\n]*)\}|(.*?)\n\})", re.S)
_USING = re.compile(r"using\s+(\w+)\s*=\s*Tile<TileType::Vec,\s*(\w+),\s*(\d+),\s*(\d+)"
                    r"(?:,\s*BLayout::(RowMajor|ColMajor),\s*(\d+),\s*(\d+))?>;")
#: cube tiles: ``Tile<TileType::Left, T, R, C, BLayout::X, VR, VC, SLayout::Y, fractal>``, ``TileAcc<T, R, C>`` ...
_CUBE = re.compile(r"using\s+(\w+)\s*=\s*Tile(?:<TileType::|)(Left|Right|Acc|Bias)(?:<|,\s*)(\w+),\s*(\d+),\s*(\d+)"
                   r"(?:,\s*BLayout::(\w+),\s*(\d+),\s*(\d+),\s*SLayout::(\w+),\s*(\d+))?>;")
#: pto_tile.hpp's defaults on cpu (TileLeft, TileRight, TileAcc; a plain Bias Tile): blayout, slayout, fractal
_CUBE_DEFAULT = {"Left": ("ColMajor", "RowMajor", 512), "Right": ("RowMajor", "ColMajor", 512),
                 "Acc": ("ColMajor", "RowMajor", 1024), "Bias": ("RowMajor", "NoneBox", 512)}
_LAYOUT = {"RowMajor": "row_major", "ColMajor": "col_major", "NoneBox": "none_box"}
_DECL = re.compile(r"^\s*(\w+)\s+(\w+)\s*;", re.M)
_FILL = re.compile(r"(FillLinear|FillAll)\((\w+)(?:,\s*(-?[\d.]+)f?)?\);")


def _tiles(body: str) -> dict[str, pto.Tile] | None:
    """The test's tiles (valid as declared), filled as main.cpp fills them; None if a type is unknown."""
    types = {k: v for k, *v in _USING.findall(body)}
    made = {}
    for typ, var in _DECL.findall(body):
        if typ not in types:
            continue
        t, r, c, lay, vr, vc = types[typ]
        if t not in CXX_DTYPES:
            return None
        made[var] = pto.Tile("vec", CXX_DTYPES[t], int(r), int(c), valid=(int(vr or r), int(vc or c)),
                             blayout="col_major" if lay == "ColMajor" else "row_major")
    cube = {k: v for k, *v in _CUBE.findall(body)}
    for typ, var in _DECL.findall(body):
        if typ in cube:
            loc, t, r, c, bl, vr, vc, sl, frac = cube[typ]
            bl, sl, frac = (bl, sl, int(frac)) if bl else _CUBE_DEFAULT[loc]
            made[var] = pto.Tile(loc.lower(), CXX_DTYPES[t], int(r), int(c), valid=(int(vr or r), int(vc or c)),
                                 blayout=_LAYOUT[bl], slayout=_LAYOUT[sl], fractal=frac)
    for fill, var, start in _FILL.findall(body):
        if var not in made:                         # a type the reader does not read: the check builds it
            continue
        t = made[var]
        if fill == "FillAll":
            t.values[...] = float(start) if "." in start else int(start)
        else:                                       # the valid region, row by row, start, start + 1, ...
            n = t.valid_rows * t.valid_cols
            t.valid_values[...] = (np.arange(n) + float(start or 1)).reshape(t.valid).astype(t.values.dtype)
    return made


def _textract_fp(body: str, made) -> bool | None:
    m = re.search(r"TEXTRACT_FP\((\w+),\s*(\w+),\s*(\w+),\s*(\d+),\s*(\d+)\);", body)
    if not m:
        return None
    dst, src, fp = (made[v] for v in m.groups()[:3])
    r0, c0 = int(m.group(4)), int(m.group(5))
    pto.textract_fp(dst, src, fp, r0, c0, target="cpu")
    vr, vc = dst.valid
    return bool((dst.valid_values == src.values[r0:r0 + vr, c0:c0 + vc]).all())  # the test's loop


def _tpartmul(body: str, made) -> bool | None:
    m = re.search(r"TPARTMUL\((\w+),\s*(\w+),\s*(\w+)\);", body)
    if not m:
        return None
    dst, a, b = (made[v] for v in m.groups())
    pto.tpartmul(dst, a, b, target="cpu")
    vr, vc = dst.valid
    small, big = (b, a) if b.valid_rows * b.valid_cols <= a.valid_rows * a.valid_cols else (a, b)
    want = big.values[:vr, :vc].astype(np.int64)
    sr, sc = small.valid
    want[:sr, :sc] = (a.values[:sr, :sc].astype(np.int64) * b.values[:sr, :sc]).astype(np.int32)
    return bool((dst.valid_values == want).all())                 # overlap: the product, else the other source


def _set_values(body: str, src: pto.Tile) -> bool:
    """Set main.cpp's ``const int values[R][C] = {...}`` into the top-left of src; False if it has none."""
    vals = re.search(r"values\[(\d+)\]\[(\d+)\]\s*=\s*\{(.*?)\};", body, re.S)
    if vals:
        r, c = int(vals.group(1)), int(vals.group(2))
        src.values[:r, :c] = np.array([int(v) for v in re.findall(r"-?\d+", vals.group(3))]).reshape(r, c)
    return vals is not None


def _expected(body: str, name: str) -> list[int] | None:
    """main.cpp's ``name[N] = {...}`` as integers."""
    exp = re.search(rf"\b{name}\[\d+\]\s*=\s*\{{(.*?)\}};", body, re.S)
    return [int(v) for v in re.findall(r"-?\d+", exp.group(1))] if exp else None


def _tcolprod(body: str, made) -> bool | None:
    """TCOLPROD of ``values[R][C]`` set into src's valid region; dst's valid row must be ``expected[C]``."""
    m = re.search(r"TCOLPROD\((\w+),\s*(\w+)\);", body)
    want = _expected(body, "expected")
    if not (m and want and _set_values(body, made[m.group(2)])):
        return None
    dst, src = made[m.group(1)], made[m.group(2)]
    pto.tcolprod(dst, src, target="cpu")
    return dst.valid_values[0].tolist() == want


def _reduce_idx(body: str, made) -> bool | None:
    """TROWARGMAX/MIN or TCOLARGMAX/MIN (dst, src, tmp) of ``values[R][C]`` set into src's valid region:
    each dst's valid indices, row by row, must be ``expectedMax`` / ``expectedMin``."""
    calls = re.findall(r"T(ROW|COL)ARG(MAX|MIN)\((\w+),\s*(\w+),\s*(\w+)\);", body)
    if not calls or not all(_set_values(body, made[src]) for *_, src, _ in calls):
        return None
    ok = True
    for axis, kind, dst, src, tmp in calls:
        want = _expected(body, f"expected{kind.title()}")
        if want is None:
            return None
        getattr(pto, f"t{axis.lower()}arg{kind.lower()}")(made[dst], made[src], made[tmp], target="cpu")
        ok &= made[dst].valid_values.ravel().tolist() == want
    return ok


def _thistogram(body: str, made) -> bool | None:
    """THISTOGRAM<HistByte::BYTE_b> of u16 rows ``row0``, ``row1`` with ``idx`` bytes set in main.cpp: each
    dst row must be the cumulative count of the rows' high bytes (BYTE_1), or of the low bytes of the values
    whose high byte is the row's idx (BYTE_0), the test's ReferenceHistogram restated."""
    m = re.search(r"THISTOGRAM<HistByte::BYTE_(\d)>\((\w+),\s*(\w+),\s*(\w+)\);", body)
    rows = dict(re.findall(r"std::vector<uint16_t>\s+(row\d)\s*=\s*\{(.*?)\};", body, re.S))
    if not m or not rows:
        return None
    byte, (dst, src, idx) = int(m.group(1)), (made[v] for v in m.groups()[1:])
    values = [[int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]+", rows[f"row{r}"])] for r in range(len(rows))]
    for r, vals in enumerate(values):
        src.bits[r, : len(vals)] = vals
    idx.bits[:, 0] = 0
    for i, v in re.findall(r"\w+\.data\(\)\[(\d+)\]\s*=\s*(0x[0-9a-fA-F]+)u;", body):
        idx.bits[int(i), 0] = int(v, 16)
    pto.thistogram(dst, src, idx, byte=byte, target="cpu")
    for r in range(len(values)):
        full = src.bits[r].astype(np.int64)                      # every column of the row, zeros included
        hi, lo = full >> 8, full & 0xFF
        keys = hi if byte == 1 else lo[hi == int(idx.bits[r, 0])]
        if dst.bits[r, :256].tolist() != np.cumsum(np.bincount(keys, minlength=256)).tolist():
            return False
    return True


def float_eq(got: np.ndarray, want: np.ndarray) -> bool:
    """gtest's EXPECT_FLOAT_EQ on f32 arrays: every pair within 4 ulps (+0 equals -0), a NaN equal to nothing."""
    g, w = (np.asarray(v, np.float32).view(np.int32).astype(np.int64) for v in (got, want))
    g, w = (np.where(v < 0, -(v & 0x7FFFFFFF), v) for v in (g, w))           # sign-magnitude -> a number line
    return bool(((np.abs(g - w) <= 4) & ~np.isnan(got) & ~np.isnan(want)).all())


#: the values main.cpp's ``SetValue(tile, r, c, EXPR)`` loops write, by EXPR (r, c: the loop's row and column)
_SET = {"static_cast<float>(r + c + 1)": lambda r, c: r + c + 1,
        "static_cast<float>((r == c) ? 1.5f : 0.5f)": lambda r, c: np.where(r == c, 1.5, 0.5),
        "static_cast<float>((r == c) ? 2.0f : 1.0f)": lambda r, c: np.where(r == c, 2.0, 1.0),
        "static_cast<float>(c)": lambda r, c: c + 0 * r}
_SET_AT = re.compile(r"^\s*SetValue\((\w+), (r|0), c, (.+)\);$", re.M)
_MATMUL = re.compile(r"\b(TMATMUL|TMATMUL_ACC|TGEMV|TGEMV_ACC|TGEMV_BIAS)\(([\w, ]+)\);")


def _tmatmul_layout(body: str, made) -> bool | None:
    """TMATMUL/TGEMV and their ACC/BIAS forms on Left/Right/Acc tiles main.cpp declares, filled by its
    ``SetValue`` loops (over lhs's valid region, or row 0 of a bias); each dst, every element, must equal (4 ulps)
    the test's ComputeExpected: acc (or 0) plus the f32 products summed in k order, plus bias[c]."""
    sets = _SET_AT.findall(body)
    calls = _MATMUL.findall(body)
    if not sets or not calls or any(e not in _SET for *_, e in sets):
        return None
    lhs_valid = made[calls[0][1].split(",")[1].strip()].valid
    for var, r0, expr in sets:
        t = made[var]
        rows, cols = (1, t.valid_cols) if r0 == "0" else lhs_valid
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        t.values[:rows, :cols] = _SET[expr](r, c)
    ok = True
    for op, args in calls:
        dst, *srcs = (made[a.strip()] for a in args.split(","))
        getattr(pto, op.lower())(dst, *srcs, target="cpu")
        acc = srcs.pop(0) if op.endswith("_ACC") else None
        lhs, rhs, *bias = srcs
        m, k, n = lhs.valid_rows, lhs.valid_cols, rhs.valid_cols
        want = np.zeros(dst.values.shape, np.float32)
        if acc is not None:
            want[:m, :n] = acc.values[:m, :n]
        for i in range(k):
            want[:m, :n] += lhs.values[:m, i:i + 1].astype(np.float32) * rhs.values[i, :n].astype(np.float32)
        if bias:
            want[:m, :n] += bias[0].values[0, :n]
        ok &= float_eq(dst.values, want)
    return ok


CHECKS = {"textract": _textract_fp, "tpartmul": _tpartmul, "tcolprod": _tcolprod, "thistogram": _thistogram,
          "tcolreduceidx": _reduce_idx, "trowreduceidx": _reduce_idx, "tmatmul_layout": _tmatmul_layout}


def run_selfcheck(folder: Path, st: Path, verbose: bool, row: Row | None = None, names=None, check=None) -> Row:
    """Each test of the folder (or, with ``names``, those tests only, counted into ``row``) that calls the
    folder's instruction in the form its check (``check``, else the folder's in :data:`CHECKS`) reads; others
    are not mapped. A test's body is its block, or the one line of ``TEST(S, n) { call(); }``."""
    main = (folder / "main.cpp").read_text()
    if row is None:
        row = Row(folder.name, cases=count_tests(main))
    check = check or CHECKS[folder.name]
    for name, line, block in _TEST.findall(main):
        body = line or block
        if names is not None and name not in names:
            continue
        case = Case(name, [], folder, 0.0, None)
        with refusals(row, case):
            try:
                made = _tiles(body)
                ok = check(body, made) if made is not None else None
            except (KeyError, ValueError):                      # a tile or value the adapter did not read
                ok = None
            if ok is None:
                row.not_mapped += 1
                row.reasons.append(f"{name}: not a form the adapter reads")
                continue
            row.passed, row.failed, row.exact = row.passed + ok, row.failed + (not ok), row.exact + ok
            if verbose and not ok:
                row.reasons.append(f"{name}: fails")
    return row


ADAPTERS = {"tpartmul": run_selfcheck, "tcolprod": run_selfcheck, "thistogram": run_selfcheck,
            "tcolreduceidx": run_selfcheck, "trowreduceidx": run_selfcheck, "tmatmul_layout": run_selfcheck}
