"""Parse PTO program text into a syntax tree (lark grammar: ``grammar.lark``).

Two steps. The grammar reads the MLIR shape every accepted form shares: a
file is a list of operations ``[%r, ... =] name item*``, one per line, whose
items are values, literals, words, types, attributes, bracketed groups and
regions (:class:`RawOp`). Then :mod:`.forms` reads each operation's items the
way its syntax defines them (``ins(...) outs(...)``, ``scf.for %i = ...``,
``: (T, T) -> T`` ...) into a :class:`Stmt`.

Accepted: the PTOAS dialect (``module``, ``func.func`` with ``private``
declarations, ``func.call``, every ``pto.<op>`` in DPS ``ins(...) outs(...)``
form with attribute dicts anywhere PTOAS puts them, ``!pto.tile_buf<...>``
keyed and compact, ``memref<...>``, ``arith.*``, ``scf.for/if/while``, sync
ops, TPUSH/TPOP pipe ops), the MLIR generic form ``"pto.op"(%a) <{...}> :
(T) -> ()``, and the PTO-AS documentation forms (SSA ``%d = pto.op %a, %b :
(T, T) -> T``, assembly ``%d = op %a : T -> T`` and ``op %d, %a : T``, ``#``
comments, ``#key=value``). Malformed text raises
:class:`~tilesim.errors.ParseError` with line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ...errors import ParseError, TilesimError

__all__ = ["parse", "Program", "Func", "Stmt", "Operand", "TypeRef", "Shape", "RawOp", "Group", "Named", "Region",
           "Label", "Tok"]


# ------------------------------------------------------------ syntax: tokens and groups
@dataclass(frozen=True)
class Tok:
    """One token: ``type`` is its grammar terminal (VALUE, NAME, INT, COMMA ...)."""

    type: str
    text: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass
class Group:
    """A bracketed run of items: ``open`` is ``(``, ``[``, ``<`` or ``{`` (an attribute dict)."""

    open: str
    items: list
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass
class Named:
    """A word, ``#attr`` or ``!type`` directly followed by ``<...>``: ``memref<...>``, ``#pto<cmp lt>``."""

    head: Tok
    args: Group

    @property
    def line(self) -> int:
        return self.head.line

    @property
    def column(self) -> int:
        return self.head.column

    @property
    def end_line(self) -> int:
        return self.args.end_line

    @property
    def end_column(self) -> int:
        return self.args.end_column


@dataclass
class Region:
    """``{ op ... }``: a list of raw operations and block labels."""

    stmts: list
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0


@dataclass
class Label:
    """A block label ``^bb0(%x: T):`` inside a region."""

    name: Tok
    args: Group | None


@dataclass
class RawOp:
    """An operation before its items are read: ``results = name items``."""

    name: Tok
    results: list
    items: list
    line: int
    column: int
    end_line: int
    end_column: int


# ------------------------------------------------------------ the tree the interpreter runs
@dataclass(frozen=True)
class Shape:
    """``16x128xf32`` / ``?x?xf32`` / ``16x1``: dims (None for ``?``) and an optional element type."""

    dims: tuple
    elem: str | None = None


@dataclass
class TypeRef:
    """A type as written: ``name`` (``!pto.tile_buf``, ``memref``, ``f32``) and its ``<...>`` parameters, in order.

    Each parameter is ``(key, value)``; key is None for positional ones. Values
    are ints, ``"?"``, names, :class:`Shape`, ``"..."``, lists or nested TypeRefs.
    A type written as a bare ``<...>`` (``pto.subset``'s short form) has name ``""``.
    """

    name: str
    params: list = field(default_factory=list)
    line: int = 0
    column: int = 0

    @property
    def is_placeholder(self) -> bool:
        return any(v == "..." for _, v in self.params)

    def param(self, key: str, default=None):
        for k, v in self.params:
            if k == key:
                return v
        return default

    def text(self) -> str:
        if not self.params:
            return self.name
        parts = []
        for k, v in self.params:
            parts.append(f"{k}={_ptext(v)}" if k else _ptext(v))
        return f"{self.name}<{', '.join(parts)}>"


def _ptext(v) -> str:
    if isinstance(v, TypeRef):
        return v.text()
    if isinstance(v, Shape):
        return "x".join("?" if d is None else str(d) for d in v.dims) + (f"x{v.elem}" if v.elem else "")
    if isinstance(v, list):
        return "[" + ", ".join(_ptext(x) for x in v) + "]"
    if isinstance(v, Fraction) and v.denominator > 1 and Fraction(float(v)) == v:
        return repr(float(v))                              # as written (-1.5), not as a ratio
    return str(v)


@dataclass
class Operand:
    """An operand: an SSA value (``%x``), a value with indices (``%sv[%c0, %c0]``) or a literal."""

    kind: str            # value | indexed | literal
    name: str | None = None
    value: object = None  # literals: int, Fraction (exact decimal), bool or str
    indices: list = field(default_factory=list)
    line: int = 0
    column: int = 0


@dataclass
class Stmt:
    """One operation, read. ``kind`` says which form it was written in (dps, generic, alloc, for, ...).

    ``regions`` holds the nested statement lists (``body`` is the first);
    ``extra`` holds what a form reads beyond operands, types and attributes.
    """

    kind: str
    op: str
    results: list = field(default_factory=list)
    ins: list = field(default_factory=list)
    outs: list = field(default_factory=list)
    in_types: list = field(default_factory=list)
    out_types: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    regions: list = field(default_factory=list)
    line: int = 0
    column: int = 0

    @property
    def body(self) -> list | None:
        return self.regions[0] if self.regions else None


@dataclass
class Func:
    """``func.func``: name, arguments ``[(name, TypeRef)]``, result types, body (None for a declaration)."""

    name: str
    args: list
    body: list | None
    attrs: dict
    line: int = 0
    column: int = 0
    results: list = field(default_factory=list)
    private: bool = False


@dataclass
class Program:
    """A parsed file: its functions, any statements outside functions, and module attributes."""

    funcs: list
    stmts: list
    attrs: dict
    source: str | None = None

    def func(self, name: str) -> Func | None:
        for f in self.funcs:
            if f.name == name:
                return f
        return None


# ------------------------------------------------------------ layout: which newlines end an operation
_OPENERS = {"LPAR", "LSQB", "LT", "LBRACE"}
_CLOSERS = {"RPAR", "RSQB", "GT", "RBRACE"}
_CONT_AFTER = {"COMMA", "EQ", "COLON", "ARROW", "LPAR", "LSQB", "LT", "LBRACE"}
_CONT_BEFORE = {"COLON", "ARROW", "LPAR", "LBRACE", "LBRACE_R", "RPAR", "RSQB", "GT"}
#: words that continue the operation of the line before (``outs(...)`` on its own line, ``} else {`` ...)
CONT_WORDS = frozenset({"ins", "outs", "offsets", "sizes", "strides", "shape", "else", "do", "attributes",
                        "iter_args", "to", "step", "valid_row", "valid_col", "addr"})


class _Layout:
    """Lark post-lexer: drops the newlines that do not end an operation and marks region braces."""

    always_accept = ()

    def process(self, stream):
        toks = list(stream)
        region = self._region_braces(toks)
        stack: list[str] = []
        prev = None
        for i, t in enumerate(toks):
            if t.type == "_NL":
                if (stack and stack[-1] != "R") or prev is None or prev.type == "_NL":
                    continue
                nxt = next((u for u in toks[i + 1:] if u.type != "_NL"), None)
                if prev.type in _CONT_AFTER or (nxt is not None and (
                        nxt.type in _CONT_BEFORE or (nxt.type == "NAME" and nxt.value in CONT_WORDS))):
                    continue
                prev = t
                yield t
                continue
            if t.type == "LBRACE":
                if i in region:
                    t = Token.new_borrow_pos("LBRACE_R", "{", t)
                    stack.append("R")
                else:
                    stack.append("{")
            elif t.type in _OPENERS:
                stack.append(t.type)
            elif t.type in _CLOSERS and stack:
                stack.pop()
            prev = t
            yield t

    @staticmethod
    def _region_braces(toks) -> set:
        """Indices of the ``{`` that open regions: followed by a newline and not by ``key =``."""
        out = set()
        n = len(toks)
        for i, t in enumerate(toks):
            if t.type != "LBRACE":
                continue
            j = i + 1
            while j < n and toks[j].type == "_NL":
                j += 1
            if j == i + 1:
                continue
            if j + 1 < n and toks[j].type in ("NAME", "OPNAME", "STRING") and toks[j + 1].type == "EQ":
                continue
            out.add(i)
        return out


@lru_cache(maxsize=None)
def _parser() -> Lark:
    text = resources.files(__package__).joinpath("grammar.lark").read_text()
    return Lark(text, parser="lalr", lexer="basic", postlex=_Layout(), propagate_positions=True,
                maybe_placeholders=True)


def _tok(t: Token) -> Tok:
    return Tok(t.type, str(t), t.line, t.column, t.end_line or t.line, t.end_column or t.column)


class _Build(Transformer):
    """Parse tree -> raw operations, groups and tokens."""

    def start(self, items):
        return [i for i in items if i is not None]

    @v_args(meta=True)
    def op(self, meta, items):
        results, _eq, name, *rest = items
        name = _tok(name)
        rest = [_tok(i) if isinstance(i, Token) else i for i in rest]
        last = rest[-1] if rest else name
        end_line = getattr(last, "end_line", None) or name.end_line
        end_col = getattr(last, "end_column", None) or name.end_column
        start = results[0] if results else name
        return RawOp(name, results or [], rest, start.line, start.column, end_line, end_col)

    def results(self, items):
        return [_tok(t) for t in items if t.type == "VALUE"]

    def label(self, items):
        name, args, _colon = items
        return Label(_tok(name), args)

    def atom(self, items):
        return _tok(items[0])

    opword = atom

    def named(self, items):
        head, args = items
        return Named(_tok(head), args)

    @v_args(meta=True)
    def paren(self, meta, items):
        return self._mk("(", meta, items)

    @v_args(meta=True)
    def bracket(self, meta, items):
        return self._mk("[", meta, items)

    @v_args(meta=True)
    def angle(self, meta, items):
        return self._mk("<", meta, items)

    @v_args(meta=True)
    def brace(self, meta, items):
        return self._mk("{", meta, items)

    @staticmethod
    def _mk(open_, meta, items):
        inner = [i if not isinstance(i, Token) else _tok(i) for i in items[1:-1]]
        return Group(open_, inner, meta.line, meta.column, meta.end_line, meta.end_column)

    @v_args(meta=True)
    def region(self, meta, items):
        stmts = [i for i in items[1:-1] if i is not None and not isinstance(i, Token)]
        return Region(stmts, meta.line, meta.column, meta.end_line, meta.end_column)


def parse_raw(text: str, source: str | None = None) -> list:
    """The raw operations of ``text`` (step one; see the module docstring).

    Raises:
        ParseError: malformed text, with line and column (rule ``pto.parse.syntax``).
    """
    if not isinstance(text, str):
        raise ParseError(f"program text must be a string, not {type(text).__name__}", instruction="pto.parse",
                         rule="pto.parse.syntax", source=source, line=1, column=1)
    try:
        tree = _parser().parse(text)
        return _Build().transform(tree)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, source) from None
    except VisitError as e:
        if isinstance(e.orig_exc, TilesimError):
            raise e.orig_exc
        raise ParseError(f"cannot read this: {e.orig_exc}", instruction="pto.parse", rule="pto.parse.syntax",
                         source=source, line=1, column=1) from None
    except (LarkError, RecursionError) as e:
        raise ParseError(f"cannot read this: {type(e).__name__}", instruction="pto.parse", rule="pto.parse.syntax",
                         source=source, line=1, column=1) from None


def parse(text: str, source: str | None = None) -> Program:
    """Parse program text.

    Raises:
        ParseError: malformed text, with line and column (rule ``pto.parse.syntax``; ``pto.parse.type``
            for a malformed type).

    >>> p = parse("%dst = pto.trowmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>")
    >>> st = p.stmts[0]
    >>> st.op, st.results, [o.name for o in st.ins], len(st.in_types), st.out_types[0].is_placeholder
    ('pto.trowmax', ['dst'], ['src', 'tmp'], 2, True)
    """
    from .forms import build_program

    raw = parse_raw(text, source)
    return build_program(raw, text, source)


def _eof(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _syntax_error(e: UnexpectedInput, text: str, source: str | None) -> ParseError:
    line, col = getattr(e, "line", None), getattr(e, "column", None)
    at_end = isinstance(e, UnexpectedToken) and e.token.type == "$END"
    if isinstance(e, UnexpectedEOF) or at_end or line is None or line < 1:
        line, col = _eof(text)
        exp = sorted({_pretty(x) for x in (getattr(e, "expected", None) or ())})
        detail = "unexpected end of input" + (f"; expected {', '.join(exp[:8])}" if exp else "")
    elif isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        detail = f"unexpected character {ch!r}"
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        shown = "end of line" if tok.type == "_NL" else repr(str(tok))
        exp = sorted({_pretty(x) for x in (e.expected or ())})
        detail = f"unexpected {shown}" + (f"; expected {', '.join(exp[:8])}" + (" ..." if len(exp) > 8 else "")
                                          if exp else "")
    else:
        detail = str(e).splitlines()[0]
    return ParseError(detail, instruction="pto.parse", rule="pto.parse.syntax", source=source, line=line,
                      column=col)


_PRETTY = {"VALUE": "a %value", "NAME": "a name", "OPNAME": "an op name", "INT": "an integer", "HEX": "an integer",
           "FLOAT": "a number", "STRING": "a string", "DTYPE": "a !type", "SYMBOL": "an @symbol", "SHAPE": "a shape",
           "HASH": "an #attribute", "HASH_KV": "#key=value", "BLOCK": "a ^block", "_NL": "end of line",
           "$END": "end of input", "LBRACE_R": "'{'"}


def _pretty(term: str) -> str:
    """A terminal's name for error messages: the literal text of punctuation."""
    if term in _PRETTY:
        return _PRETTY[term]
    try:
        pat = _parser().get_terminal(term).pattern
    except (KeyError, AttributeError):
        return term.lower()
    return repr(pat.value) if pat.type == "str" else term.lower()
