"""TPRINT's folder: self-checking gtests that fill a tile in main.cpp, capture TPRINT's output and look for
substrings in it. The adapter reads each test's tile types, element assignments, captured TPRINT calls
(format and tile) and ``EXPECT_NE(out.find("..."), npos)`` checks, and runs them on tilesim's TPRINT."""

from __future__ import annotations

import re
from pathlib import Path

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Case, Row, count_tests, refusals

_TEST = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{(.*?)\n\}", re.S)
_USING = re.compile(r"using\s+(\w+)\s*=\s*Tile<TileType::Vec,\s*(\w+),\s*(\d+),\s*(\d+)>;")
_DECL = re.compile(r"^\s*(\w+)\s+(\w+)\s*;", re.M)
_SET = re.compile(r"(\w+)\.data\(\)\[(\d+)\]\s*=\s*(?:static_cast<\w+>\()?\s*(-?[\d.]+)f?\)?\s*;")
_CAPTURE = re.compile(r"std::string\s+(\w+)\s*=\s*CaptureStdout\(\[&\]\(\)\s*\{\s*TPRINT(?:<PrintFormat::(\w+)>)?"
                      r"\((\w+)(?:,\s*\w+)?\);")
_EXPECT = re.compile(r"EXPECT_NE\((\w+)\.find\(\"([^\"]*)\"\),\s*std::string::npos\)")


def run_tprint(folder: Path, st: Path, verbose: bool) -> Row:
    """Each TEST_F: its tiles (unassigned elements zero), the captured TPRINTs, and every expected substring
    found in tilesim's text; a test with a form the adapter does not read is not mapped."""
    main = (folder / "main.cpp").read_text()
    row = Row(folder.name, cases=count_tests(main))
    tests = _TEST.findall(main)
    row.not_mapped += row.cases - len(tests)
    for name, body in tests:
        types = {k: (CXX_DTYPES.get(t), int(r), int(c)) for k, t, r, c in _USING.findall(body)}
        tiles = {var: typ for typ, var in _DECL.findall(body) if typ in types}
        captures, expects = _CAPTURE.findall(body), _EXPECT.findall(body)
        if not captures or not expects or any(types[t][0] is None for t in tiles.values()):
            row.not_mapped += 1
            row.reasons.append(f"{name}: not a form the adapter reads")
            continue
        case = Case(name, [], folder, 0.0, None)
        with refusals(row, case):
            made = {var: pto.Tile("vec", *types[typ]) for var, typ in tiles.items()}
            for var, i, v in _SET.findall(body):
                t = made[var]
                t.values.reshape(-1)[int(i)] = float(v) if "." in v else int(v)
            text = {out: pto.tprint(made[var], fmt=(fmt or "Width8_Precision4").lower(), out=_Silent(),
                                    target="cpu") for out, fmt, var in captures}
            missing = [(out, s) for out, s in expects if s not in text[out]]
            row.passed += not missing
            row.failed += bool(missing)
            if verbose and missing:
                row.reasons.append(f"{name}: {missing[0][1]!r} not in {missing[0][0]}")
    return row


class _Silent:
    """A stream that keeps nothing (TPRINT's text is returned)."""

    def write(self, s: str) -> int:
        return len(s)


ADAPTERS = {"tprint": run_tprint}
