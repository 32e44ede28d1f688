"""``$readmemh`` / ``$readmemb`` text: writing golden files, reading what a simulator dumps.

Writing puts one datum per line at its lane width, with ``//`` comments heading each vector.
Reading accepts everything IEEE 1364 §17.2.9 allows in a memory file: white-space separated
words (several on a line), ``_`` inside a word, ``//`` and ``/* */`` comments (across lines too),
address records ``@hhh`` (always hex) that move the load address, and ``x``/``X``/``z``/``Z``/``?``
digits. An X or Z digit is not an error: the word is read with those bits marked (decision V14),
so ``check`` reports it as an ``x`` or ``z`` mismatch. Everything else is refused with the file,
line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ParseError

__all__ = ["digits", "write_hex", "MemImage", "read_mem", "RADIX"]

#: file suffix -> radix of its words (``.hex`` for ``$readmemh``, ``.bin`` for ``$readmemb`` text)
RADIX = {".hex": 16, ".bin": 2}

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_TOKEN = re.compile(r"\S+")
_WORD = {16: re.compile(r"[0-9a-fA-FxXzZ?_]*[0-9a-fA-FxXzZ?][0-9a-fA-FxXzZ?_]*"),
         2: re.compile(r"[01xXzZ?_]*[01xXzZ?][01xXzZ?_]*")}
_ADDR = re.compile(r"@[0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*")
_UNKNOWN = re.compile(r"[xXzZ?]")


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


@dataclass(frozen=True)
class MemImage:
    """A memory read from a file: ``values`` (X and Z bits read as 0) and the bits that were X or Z."""

    values: np.ndarray        # uint64 per address
    xbits: np.ndarray         # uint64 per address: bits given as x
    zbits: np.ndarray         # uint64 per address: bits given as z or ?

    @property
    def x(self) -> np.ndarray:
        """Words with an X bit (a word with X and Z digits counts as X)."""
        return self.xbits != 0

    @property
    def z(self) -> np.ndarray:
        """Words with a Z bit and no X bit."""
        return (self.zbits != 0) & ~self.x


def _blank_comments(text: str) -> str:
    """Comments replaced by spaces, newlines kept, so positions still give line and column."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _mask(word: str, chars: str, radix: int) -> int:
    ones = "f" if radix == 16 else "1"
    return int("".join(ones if c in chars else "0" for c in word), radix)


_PLAIN = {16: re.compile(r"[0-9a-fA-F_\s]*"), 2: re.compile(r"[01_\s]*")}
_LONE_UNDERSCORES = re.compile(r"(?<!\S)_+(?!\S)")


def _fast(text: str, count: int, lane_bits: int, radix: int) -> MemImage | None:
    """Plain files (no addresses, no X/Z, every word in place and in range) in one pass; None for the rest,
    which the token-by-token reader reads or locates the error in."""
    if not _PLAIN[radix].fullmatch(text) or _LONE_UNDERSCORES.search(text):
        return None
    words = text.replace("_", "").split() if "_" in text else text.split()
    if len(words) != count:
        return None
    try:
        values = np.array([int(w, radix) for w in words], object if lane_bits > 63 else np.int64).astype(np.uint64)
    except OverflowError:                       # a word far wider than the lane: the reader says where
        return None
    if lane_bits < 64 and (values >> np.uint64(lane_bits)).any():
        return None
    zero = np.zeros(count, np.uint64)
    return MemImage(values, zero, zero.copy())


def read_mem(path: Path, count: int, lane_bits: int, radix: int = 16) -> MemImage:
    """Read a ``$readmemh`` (``radix`` 16) or ``$readmemb`` (2) file into ``count`` words of ``lane_bits``.

    Every address 0..count-1 must be written exactly once (in order, or placed by ``@`` records).

    Raises:
        ParseError: a token that is neither a word nor an address, an unterminated ``/*``
            (``verify.hex.syntax``); a word wider than the lane (``verify.hex.width``); an address
            past the end, written twice, or never written (``verify.hex.count``, ``verify.hex.address``),
            with the file, line and column.
    """
    src = str(path)
    raw = Path(path).read_text(errors="replace")
    text = _blank_comments(raw)
    lane = (1 << lane_bits) - 1

    def fail(detail: str, rule: str, pos: int, value) -> ParseError:
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return ParseError(detail, instruction="tilesim check", rule=rule, value=value, source=src, line=line,
                          column=col)

    opened = text.find("/*")
    if opened >= 0:
        raise fail("a /* comment is never closed", "verify.hex.syntax", opened, "/*")
    fast = _fast(text, count, lane_bits, radix)
    if fast is not None:
        return fast
    values = np.zeros(count, np.uint64)
    xbits = np.zeros(count, np.uint64)
    zbits = np.zeros(count, np.uint64)
    where = np.full(count, -1, np.int64)          # position of the word that wrote each address
    addr = 0
    word_re = _WORD[radix]
    for m in _TOKEN.finditer(text):
        tok, pos = m.group(), m.start()
        if tok.startswith("@"):
            if not _ADDR.fullmatch(tok):
                raise fail(f"{tok[:24]!r} is not an address record (@ and hex digits)", "verify.hex.syntax", pos,
                           tok[:24])
            addr = int(tok[1:].replace("_", ""), 16)
            continue
        if not word_re.fullmatch(tok):
            kind = "hex" if radix == 16 else "binary"
            raise fail(f"{tok[:24]!r} is not a {kind} word (digits, _, x, z)", "verify.hex.syntax", pos, tok[:24])
        word = tok.replace("_", "")
        known = int(_UNKNOWN.sub("0", word), radix)
        if known & ~lane:
            raise fail(f"{tok} does not fit a {lane_bits}-bit lane", "verify.hex.width", pos, tok)
        if addr >= count:
            raise fail(f"address {addr:#x} is past the {count} words the golden has", "verify.hex.count", pos,
                       addr)
        if where[addr] >= 0:
            first = text.count("\n", 0, int(where[addr])) + 1
            raise fail(f"address {addr:#x} is written twice (first on line {first})", "verify.hex.address", pos,
                       addr)
        where[addr] = pos
        values[addr] = known
        if _UNKNOWN.search(word):
            xbits[addr] = _mask(word, "xX", radix) & lane
            zbits[addr] = _mask(word, "zZ?", radix) & lane
        addr += 1
    missing = np.flatnonzero(where < 0)
    if missing.size:
        end = len(text.rstrip())
        raise fail(f"{count - missing.size} of the {count} words the golden has are written; the first missing "
                   f"is address {int(missing[0]):#x}", "verify.hex.count", end, int(count - missing.size))
    return MemImage(values, xbits, zbits)
