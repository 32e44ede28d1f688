"""A $readmemh-style reader written for the tests (independent of tilesim.verify.hexfile).

IEEE 1364 §17.2.9: the file holds white-space separated hex numbers, ``_`` may appear inside a
number, ``//`` and ``/* */`` comments are white space, and an address record ``@hh`` (hex) sets the
address of the next word. X and Z digits are not read here.
"""

import re


def readmemh(path) -> list[int]:
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    mem, addr = {}, 0
    for tok in text.split():
        if tok.startswith("@"):
            addr = int(tok[1:].replace("_", ""), 16)
            continue
        mem[addr] = int(tok.replace("_", ""), 16)
        addr += 1
    return [mem[a] for a in range(len(mem))]


def data_line_numbers(path) -> list[int]:
    """1-based line numbers of the lines holding a datum (one datum per line in tilesim's files)."""
    nums = []
    for i, line in enumerate(open(path), 1):
        if line.split("//", 1)[0].strip():
            nums.append(i)
    return nums
