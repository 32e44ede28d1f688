"""``$readmemh`` text: one datum per line at its lane width, ``//`` comments marking each vector.

Writing is one ``np.char`` pass per vector; reading accepts what ``$readmemh`` accepts for plain
data (hex digits, ``_`` separators, ``//`` and ``/* */`` comments on one line, blank lines) and
rejects the rest with the file and line: address records (``@``), ``x``/``z`` digits, a value
wider than the lane, and the wrong number of data lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import ParseError

__all__ = ["digits", "write_hex", "read_hex"]

_HEX = re.compile(r"[0-9a-fA-F_]+")


def digits(lane_bits: int) -> int:
    """Hex digits of one datum."""
    return max(1, -(-lane_bits // 4))


def write_hex(path: Path, data: np.ndarray, lane_bits: int, header: list[str], labels: list[str]) -> None:
    """Write ``data`` (vectors, ...) as hex lines; ``labels[i]`` heads vector i as a comment."""
    width = digits(lane_bits)
    flat = np.asarray(data).reshape(len(labels), -1)
    with open(path, "w") as f:
        f.writelines(f"// {h}\n" for h in header)
        for label, row in zip(labels, flat):
            f.write(f"// {label}\n")
            f.write("".join(f"{int(v):0{width}x}\n" for v in row.tolist()))


def read_hex(path: Path, count: int, lane_bits: int, dtype) -> np.ndarray:
    """Read exactly ``count`` data lines of at most ``lane_bits`` bits each.

    Raises:
        ParseError: a line that is not one hex datum (``verify.hex.syntax``), a datum wider than the lane
            (``verify.hex.width``), or another number of data lines than ``count`` (``verify.hex.count``),
            with the file and line.
    """
    src = str(path)
    out = np.zeros(count, np.uint64)
    n = 0
    last = 0
    with open(path, errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            text = re.sub(r"/\*.*?\*/", " ", line.split("//", 1)[0]).strip()
            if not text:
                continue
            if not _HEX.fullmatch(text) or text.strip("_") == "":
                what = "address records (@) are not supported" if text.startswith("@") else \
                    f"{text[:24]!r} is not one hex datum"
                raise ParseError(what, instruction="tilesim check", rule="verify.hex.syntax", value=text[:24],
                                 source=src, line=lineno, column=1)
            value = int(text.replace("_", ""), 16)
            if value >> lane_bits:
                raise ParseError(f"{text} does not fit a {lane_bits}-bit lane", instruction="tilesim check",
                                 rule="verify.hex.width", value=text, source=src, line=lineno, column=1)
            if n == count:
                raise ParseError(f"more than the {count} data lines the golden has", instruction="tilesim check",
                                 rule="verify.hex.count", value=count, source=src, line=lineno, column=1)
            out[n] = value
            n += 1
            last = lineno
    if n != count:
        raise ParseError(f"{n} data lines, the golden has {count}", instruction="tilesim check",
                         rule="verify.hex.count", value=n, source=src, line=max(last, 1))
    return out.astype(dtype)
