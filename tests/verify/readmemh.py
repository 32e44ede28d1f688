"""A $readmemh-style reader written for the tests (independent of tilesim.verify.hexfile).

IEEE 1364 §17.2.9: the file holds white-space separated hex numbers, ``_`` may appear inside a
number, and ``//`` and ``/* */`` comments are white space. Address records (``@hh``) are not used by
tilesim's files, so this reader refuses them.
"""

import re


def readmemh(path) -> list[int]:
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    out = []
    for tok in text.split():
        assert not tok.startswith("@"), "address records are not expected"
        out.append(int(tok.replace("_", ""), 16))
    return out


def data_line_numbers(path) -> list[int]:
    """1-based line numbers of the lines holding a datum (one datum per line in tilesim's files)."""
    nums = []
    for i, line in enumerate(open(path), 1):
        if line.split("//", 1)[0].strip():
            nums.append(i)
    return nums
