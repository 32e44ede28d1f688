"""The AME assembly text: a small line-based syntax, its instruction table, and the assembler.

One instruction per line; ``#`` or ``;`` starts a comment; mnemonics and
names are case-insensitive. The table :data:`SYNTAX` lists every instruction
with its operand kinds; the parser, the docs table and the runner's dispatch
all come from it. Operand kinds:

- ``xreg``: a scalar register, ``x0``..``x31`` or an ABI name (``t0``, ``a1``...).
- ``tile``: a tile register, ``tr0``..``tr31``.
- ``csr``: ``mxcfg``, ``mxtile``, ``mxstatus`` (alias ``mx.status``) or an address.
- ``value``: an integer (``42``, ``0x7C0``, ``0b101``, ``-1``, ``1_000``), a scalar
  register (``csrw`` only), or a field expression ``Ft=fp8_e4m3 | RND=rtz``
  (fields of one CSR; values are numbers, format names, ``rne rup rdn rtz``,
  ``1x1 2x2 1x4 4x1``).
- ``imm``: an integer.
- ``array``: ``name[r0:r1, c0:c1]``, a block of a named 2-D array.
- ``format`` (optional last operand of ``mld``/``mst``): a format name or code.

Integers are decimal, ``0x`` hex or ``0b`` binary, with ``_`` between digits;
a decimal with a leading zero (``02``) is refused, since assemblers differ on
whether it is octal (docs/decisions.md E9).

Errors are :class:`~tilesim.errors.ParseError` with the line, the column and
what was expected.

>>> prog = assemble("li x1, Ft=int8 | bOVF=1\\ncsrw mxcfg, x1  # INT8->INT8\\nMMACC.T tr4, tr0, tr2, 0")
>>> [(i.mnemonic, i.args) for i in prog]
[('li', (1, 272)), ('csrw', ('mxcfg', ('x', 1))), ('mmacc.t', (4, 0, 2, 0))]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import formats
from ..errors import ParseError, TilesimError
from .csr import CSRS, Csr, csr as find_csr, rounding_code, tiling_mode
from .mmacc import imm_fields
from .regfile import N_TILES, ROWS

__all__ = ["Syntax", "SYNTAX", "Slice", "Instruction", "Program", "assemble", "XREGS", "markdown"]


@dataclass(frozen=True)
class Syntax:
    """One instruction's text form: mnemonic, operand kinds (``?`` = optional), summary."""

    mnemonic: str
    operands: tuple[str, ...]
    summary: str

    @property
    def template(self) -> str:
        ops = [f"[{o[:-1]}]" if o.endswith("?") else o for o in self.operands]
        return f"{self.mnemonic} " + ", ".join(ops)


SYNTAX: tuple[Syntax, ...] = (
    Syntax("li", ("xreg", "value"), "load an integer, or the CSR value of a field expression, into a register"),
    Syntax("csrw", ("csr", "value"), "write a CSR from a register, an integer or a field expression"),
    Syntax("csrr", ("xreg", "csr"), "read a CSR into a register"),
    Syntax("mmacc.t", ("tile", "tile", "tile", "imm?"), "C (+)= A x B^T; imm bit 0 = beta (default 0)"),
    Syntax("mmacc", ("tile", "tile", "tile", "imm"), "C (+)= op(A) x op(B); imm = beta + 2 bTR"),
    Syntax("mld", ("tile", "array", "format?"), "encode an array block into tiles (format default: Ft)"),
    Syntax("mst", ("tile", "array", "format?"), "decode tiles into an array block (format default: the accumulator)"),
)
_BY_MNEMONIC = {s.mnemonic: s for s in SYNTAX}

_ABI = ("zero ra sp gp tp t0 t1 t2 s0 s1 a0 a1 a2 a3 a4 a5 a6 a7 s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 t3 t4 t5 t6").split()
XREGS: dict[str, int] = {**{f"x{i}": i for i in range(32)}, **{n: i for i, n in enumerate(_ABI)}, "fp": 8}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>[#;].*)
  | (?P<num>-?(?:0[xX][0-9A-Fa-f_]+|0[bB][01_]+)(?![\w.]))
  | (?P<dim>\d+[xX×]\d+(?![\w.]))
  | (?P<dec>-?\d[\d_]*(?![\w.]))
  | (?P<name>[A-Za-z_][\w.]*)
  | (?P<punct>[,\[\]:|=])
  | (?P<bad>-?\d[\w.]*)
""", re.X)


@dataclass(frozen=True)
class _Tok:
    kind: str  # num, dim, name, punct, end
    text: str
    col: int

    def shown(self) -> str:
        return "end of line" if self.kind == "end" else repr(self.text)


@dataclass(frozen=True)
class Slice:
    """A block ``name[r0:r1, c0:c1]`` of a named array."""

    name: str
    r0: int
    r1: int
    c0: int
    c1: int

    @property
    def shape(self) -> tuple[int, int]:
        return self.r1 - self.r0, self.c1 - self.c0

    def __str__(self) -> str:
        return f"{self.name}[{self.r0}:{self.r1}, {self.c0}:{self.c1}]"


@dataclass(frozen=True)
class Instruction:
    """One assembled line: mnemonic, operand values, and where it came from."""

    mnemonic: str
    args: tuple
    line: int
    column: int
    arg_columns: tuple[int, ...]
    text: str
    source: str = "<input>"


@dataclass(frozen=True)
class Program:
    """An assembled program: its instructions in order."""

    instructions: tuple[Instruction, ...]
    source: str = "<input>"

    def __iter__(self):
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self.instructions)


_XLEN_MIN, _XLEN_MAX = -(1 << 63), (1 << 64) - 1  # a value li or csrw takes: RV64's signed or unsigned range


def _literal(text: str, fail=None) -> int:
    """The value of an integer token; ``fail(why)`` builds the error for a malformed one."""
    digits = text.lstrip("-")
    why = None
    if re.match(r"0\d", digits):
        why = f"leading zeros are not allowed in {text!r}: write {text[:-len(digits)] + digits.lstrip('0_') or '0'}" \
              " (decimal), or 0x/0b for hex/binary"
    elif "__" in digits or digits.endswith("_") or digits[2:3] == "_" and digits[:2].lower() in ("0x", "0b"):
        why = f"malformed number {text!r}: '_' goes only between digits"
    if why is None:
        try:
            return int(text, 0)
        except ValueError:
            why = f"malformed number {text!r}"
    raise (fail or ValueError)(why)


class _Line:
    """Tokens of one line and a cursor, with error helpers."""

    def __init__(self, text: str, line: int, source: str) -> None:
        self.line, self.source, self.toks, self.i = line, source, [], 0
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise self.error(pos + 1, f"unexpected character {text[pos]!r}", "ame.asm.char", text[pos])
            if m.lastgroup == "bad":
                raise self.error(pos + 1, f"malformed number {m.group()!r}", "ame.asm.number", m.group())
            if m.lastgroup in ("num", "dec"):
                _literal(m.group(), lambda why: self.error(pos + 1, why, "ame.asm.literal", m.group()))
            if m.lastgroup not in ("ws", "comment"):
                kind = "num" if m.lastgroup == "dec" else m.lastgroup
                self.toks.append(_Tok(kind, m.group(), pos + 1))
            pos = m.end()
        last = self.toks[-1] if self.toks else None
        self.toks.append(_Tok("end", "", last.col + len(last.text) if last else 1))

    def error(self, col: int, detail: str, rule: str, value=None, operand: str | None = None) -> ParseError:
        return ParseError(detail, source=self.source, line=self.line, column=col, rule=rule, value=value,
                          operand=operand)

    def peek(self, ahead: int = 0) -> _Tok:
        return self.toks[min(self.i + ahead, len(self.toks) - 1)]

    def take(self) -> _Tok:
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text: str, what: str) -> _Tok:
        t = self.take()
        if t.text != text:
            raise self.error(t.col, f"expected {what}, found {t.shown()}", "ame.asm.expected", t.text)
        return t

    def number(self, what: str = "an integer") -> tuple[int, int]:
        t = self.take()
        if t.kind != "num":
            raise self.error(t.col, f"expected {what}, found {t.shown()}", "ame.asm.number", t.text)
        return _literal(t.text), t.col


def _xreg(ln: _Line) -> int:
    t = ln.take()
    if t.kind != "name" or t.text.lower() not in XREGS:
        raise ln.error(t.col, f"expected a scalar register (x0..x31 or an ABI name), found {t.shown()}",
                       "ame.asm.xreg", t.text)
    return XREGS[t.text.lower()]


_TILE = re.compile(r"tr(\d+)$", re.I)


def _tile(ln: _Line) -> int:
    t = ln.take()
    m = _TILE.match(t.text) if t.kind == "name" else None
    if m is None:
        raise ln.error(t.col, f"expected a tile register tr0..tr{N_TILES - 1}, found {t.shown()}",
                       "ame.asm.tile", t.text)
    n = int(m.group(1))
    if n >= N_TILES:
        raise ln.error(t.col, f"tile register {t.text} does not exist (tr0..tr{N_TILES - 1})", "ame.asm.tile", n)
    return n


def _csr(ln: _Line) -> str:
    t = ln.take()
    key: str | int = t.text if t.kind == "name" else (_literal(t.text) if t.kind == "num" else t.text)
    try:
        return find_csr(key).name
    except TilesimError:
        raise ln.error(t.col, "expected a CSR (" + ", ".join(f"{c.name} or {c.address:#x}" for c in CSRS)
                       + f"), found {t.shown()}", "ame.asm.csr", t.text) from None


_FIELDS = {f.label.lower(): (c, f) for c in CSRS for f in c.fields}


def _field_value(ln: _Line, c: Csr, fname: str, t: _Tok) -> int:
    """A field value token as the field's integer."""
    try:
        if fname == "ft" and t.kind == "name":
            fmt = formats.get(t.text)
            if not fmt.ame_codes:
                raise ValueError(f"{fmt.name} has no FormatType code")
            return fmt.ame_codes[0]
        if fname == "rnd" and t.kind == "name":
            return rounding_code(t.text)
        if fname == "tiling" and t.kind in ("dim", "name"):
            return tiling_mode(t.text).code
        if t.kind == "num":
            v = _literal(t.text)
            c.pack(**{fname: v})  # checks the width
            return v
        raise ValueError("not a value")
    except (TilesimError, ValueError) as e:
        detail = e.detail if isinstance(e, TilesimError) else str(e)
        raise ln.error(t.col, f"bad value {t.text!r} for {c.name}.{c.field(fname).label}: {detail}",
                       "ame.asm.value", t.text, operand=c.field(fname).label) from None


def _fields(ln: _Line, want: Csr | None) -> tuple[Csr, int]:
    """``Name=value | Name=value ...``: the CSR the fields belong to and its value."""
    csr_, value, seen = want, 0, set()
    while True:
        t = ln.take()
        if t.kind != "name" or t.text.lower() not in _FIELDS:
            known = ", ".join(f.label for c in ([want] if want else CSRS) for f in c.fields)
            raise ln.error(t.col, f"expected a field name ({known}), found {t.shown()}", "ame.asm.field", t.text)
        c, f = _FIELDS[t.text.lower()]
        if csr_ is not None and c is not csr_:
            raise ln.error(t.col, f"field {f.label} belongs to {c.name}, not {csr_.name}", "ame.asm.field", t.text)
        if f.name in seen:
            raise ln.error(t.col, f"field {f.label} is given twice", "ame.asm.field", t.text)
        csr_ = c
        seen.add(f.name)
        ln.expect("=", f"'=' after {f.label}")
        value |= _field_value(ln, c, f.name, ln.take()) << f.lo
        if ln.peek().text != "|":
            return csr_, value
        ln.take()


def _value(ln: _Line, want: Csr | None, allow_reg: bool):
    """An integer, a field expression, or (``allow_reg``) a register: ``int`` or ``("x", n)``."""
    t = ln.peek()
    if t.kind == "num":
        return ln.number()[0]
    if t.kind == "name" and (ln.peek(1).text == "=" or t.text.lower() in _FIELDS):
        return _fields(ln, want)[1]
    if allow_reg and t.kind == "name" and t.text.lower() in XREGS:
        return ("x", _xreg(ln))
    what = "an integer, a register or a field expression" if allow_reg else "an integer or a field expression"
    raise ln.error(t.col, f"expected {what}, found {t.shown()}", "ame.asm.value", t.text)


def _array(ln: _Line) -> Slice:
    t = ln.take()
    if t.kind != "name":
        raise ln.error(t.col, f"expected an array block like x[0:16, 0:16], found {t.shown()}", "ame.asm.slice",
                       t.text)
    ln.expect("[", f"'[' after {t.text}")
    r0, c_r0 = ln.number("a row start")
    ln.expect(":", "':' in the row range")
    r1, _ = ln.number("a row end")
    ln.expect(",", "',' between the row and column ranges")
    c0, c_c0 = ln.number("a column start")
    ln.expect(":", "':' in the column range")
    c1, _ = ln.number("a column end")
    ln.expect("]", "']' to close the block")
    if not 0 <= r0 < r1 or r1 - r0 > ROWS:
        raise ln.error(c_r0, f"rows {r0}:{r1} must be a non-empty range of at most {ROWS}", "ame.asm.slice",
                       (r0, r1))
    if not 0 <= c0 < c1:
        raise ln.error(c_c0, f"columns {c0}:{c1} must be a non-empty range", "ame.asm.slice", (c0, c1))
    return Slice(t.text, r0, r1, c0, c1)


def _format(ln: _Line) -> str:
    t = ln.take()
    try:
        return formats.get(_literal(t.text) if t.kind == "num" else t.text).name
    except (TilesimError, ValueError):
        raise ln.error(t.col, f"expected a format name or code, found {t.shown()}", "ame.asm.format",
                       t.text) from None


def _parse_line(text: str, line: int, source: str) -> Instruction | None:
    ln = _Line(text, line, source)
    head = ln.take()
    if head.kind == "end":
        return None
    if head.kind != "name" or head.text.lower() not in _BY_MNEMONIC:
        raise ln.error(head.col, f"expected a mnemonic ({', '.join(s.mnemonic for s in SYNTAX)}), found "
                       f"{head.shown()}", "ame.asm.mnemonic", head.text)
    syn = _BY_MNEMONIC[head.text.lower()]
    args, cols = [], []
    for n, kind in enumerate(syn.operands):
        optional = kind.endswith("?")
        kind = kind.rstrip("?")
        if n:
            if optional and ln.peek().kind == "end":
                break
            ln.expect(",", f"',' before operand {n + 1} ({kind}) of {syn.mnemonic}")
        cols.append(ln.peek().col)
        if ln.peek().kind == "end":
            raise ln.error(ln.peek().col, f"expected operand {n + 1} ({kind}) of {syn.template}, found end of line",
                           "ame.asm.expected", "")
        if kind == "xreg":
            args.append(_xreg(ln))
        elif kind == "tile":
            args.append(_tile(ln))
        elif kind == "csr":
            args.append(_csr(ln))
        elif kind == "value":
            want = find_csr(args[0]) if syn.mnemonic == "csrw" else None
            args.append(_value(ln, want, allow_reg=syn.mnemonic == "csrw"))
            if isinstance(args[-1], int) and not _XLEN_MIN <= args[-1] <= _XLEN_MAX:
                raise ln.error(cols[-1], f"{args[-1]} does not fit a 64-bit register ({_XLEN_MIN}..{_XLEN_MAX}, "
                                         "signed or unsigned)", "ame.asm.range", args[-1])
        elif kind == "imm":
            imm, col = ln.number("an immediate")
            try:
                imm_fields(imm, "MMACC.T" if syn.mnemonic == "mmacc.t" else "MMACC")
            except TilesimError as e:
                raise ln.error(col, e.detail, "ame.asm.imm", imm, operand="imm") from None
            args.append(imm)
        elif kind == "array":
            args.append(_array(ln))
        else:  # format
            args.append(_format(ln))
    end = ln.take()
    if end.kind != "end":
        raise ln.error(end.col, f"expected end of line after {syn.template}, found {end.shown()}",
                       "ame.asm.expected", end.text)
    if syn.mnemonic == "mmacc.t" and len(args) == 3:
        args.append(0)
    return Instruction(syn.mnemonic, tuple(args), line, head.col, tuple(cols), text.strip(), source)


def assemble(text: str, source: str = "<input>") -> Program:
    """Assemble program text.

    Raises:
        ParseError: the first malformed line, with line, column, rule and what was expected.
    """
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        ins = _parse_line(line, n, source)
        if ins is not None:
            out.append(ins)
    return Program(tuple(out), source)


def markdown() -> str:
    """The instruction table as Markdown, for docs/ame.md (a test keeps the page in step)."""
    rows = ["| syntax | does |", "|---|---|"]
    rows += [f"| `{s.template}` | {s.summary} |" for s in SYNTAX]
    return "\n".join(rows) + "\n"
