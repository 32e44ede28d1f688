"""Parse PTO program text into a small syntax tree (lark grammar: ``grammar.lark``).

Accepted: the PTOAS dialect (``module``, ``func.func``, ``pto.alloc_tile``,
``pto.make_tensor_view``, ``pto.partition_view``, every ``pto.<op>`` in DPS
``ins(...) outs(...)`` form, ``!pto.tile_buf<...>`` keyed and compact,
``arith.constant``, ``scf.for``, sync ops, ``//`` comments) and the PTO-AS
documentation forms (SSA ``%d = pto.op %a, %b : (T, T) -> T``, assembly
``%d = op %a : T -> T`` and ``op %d, %a : T``, ``#`` comments, ``#key=value``
attributes). Malformed text raises :class:`~tilesim.errors.ParseError` with
line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from fractions import Fraction
from importlib import resources

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ...errors import ParseError, TilesimError

__all__ = ["parse", "Program", "Func", "Stmt", "Operand", "TypeRef", "Shape"]


@dataclass(frozen=True)
class Shape:
    """``16x128xf32`` / ``?x?xf32`` / ``16x1``: dims (None for ``?``) and an optional element type."""

    dims: tuple
    elem: str | None = None


@dataclass
class TypeRef:
    """A type as written: ``name`` (``!pto.tile_buf``, ``f32``) and its ``<...>`` parameters, in order.

    Each parameter is ``(key, value)``; key is None for positional ones. Values
    are ints, ``"?"``, names, :class:`Shape`, ``"..."`` or nested TypeRefs.
    """

    name: str
    params: list = field(default_factory=list)
    line: int = 0
    column: int = 0

    @property
    def is_placeholder(self) -> bool:
        return any(v == "..." for _, v in self.params)

    def text(self) -> str:
        if not self.params:
            return self.name
        parts = []
        for k, v in self.params:
            s = v.text() if isinstance(v, TypeRef) else (
                "x".join("?" if d is None else str(d) for d in v.dims) + (f"x{v.elem}" if v.elem else "")
                if isinstance(v, Shape) else str(v))
            parts.append(f"{k}={s}" if k else s)
        return f"{self.name}<{', '.join(parts)}>"


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
    """One operation. ``kind`` says which form it was written in (dps, generic, alloc, ...)."""

    kind: str
    op: str
    results: list = field(default_factory=list)
    ins: list = field(default_factory=list)
    outs: list = field(default_factory=list)
    in_types: list = field(default_factory=list)
    out_types: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    body: list | None = None
    line: int = 0
    column: int = 0


@dataclass
class Func:
    name: str
    args: list
    body: list
    attrs: dict
    line: int = 0
    column: int = 0


@dataclass
class Program:
    """A parsed file: its functions, any statements outside functions, and module attributes."""

    funcs: list
    stmts: list
    attrs: dict
    source: str | None = None


@lru_cache(maxsize=None)
def _parser() -> Lark:
    text = resources.files(__package__).joinpath("grammar.lark").read_text()
    return Lark(text, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True)


def _number(tok: Token):
    s = str(tok)
    if tok.type == "INT":
        return int(s, 0) if "x" not in s.lower().lstrip("-") else (-int(s[1:], 16) if s.startswith("-") else int(s, 16))
    if tok.type == "FLOAT":
        low = s.lower().lstrip("-")
        if low in ("inf", "nan"):
            return float(s)
        return Fraction(s)
    if tok.type == "BOOL":
        return s == "true"
    if tok.type == "STRING":
        return s[1:-1]
    return s


def _shape(s: str) -> Shape:
    parts = s.split("x")
    elem = None
    if not (parts[-1].isdigit() or parts[-1] == "?"):
        elem = parts.pop()
    return Shape(tuple(None if p == "?" else int(p) for p in parts), elem)


class _Build(Transformer):
    """Parse tree -> syntax tree (positions from lark's meta)."""

    def __init__(self, source):
        super().__init__()
        self.source = source

    # --------------------------------------------------------------- leaves
    def _lit(self, tok):
        return Operand("literal", value=_number(tok), line=tok.line, column=tok.column)

    @v_args(meta=True)
    def start(self, meta, items):
        funcs, stmts, attrs = [], [], {}
        for it in items:
            if isinstance(it, Program):
                funcs += it.funcs
                stmts += it.stmts
                attrs.update(it.attrs)
            elif isinstance(it, Func):
                funcs.append(it)
            else:
                stmts.append(it)
        return Program(funcs, stmts, attrs, self.source)

    @v_args(meta=True)
    def module(self, meta, items):
        attrs = items[0] or {}
        inner = self.start(meta, [i for i in items[1:] if i is not None])
        inner.attrs = {**attrs, **inner.attrs}
        return inner

    @v_args(meta=True)
    def func(self, meta, items):
        name, *rest = items
        body = rest[-1]
        attrs = rest[-2] or {}
        args = [a for a in rest[:-3] if a is not None]
        return Func(str(name)[1:], args, body, attrs, meta.line, meta.column)

    def farg(self, items):
        return (str(items[0])[1:], items[1])

    def result_types(self, items):
        return [i for i in items if i is not None]

    def body(self, items):
        return list(items)

    @v_args(meta=True)
    def stmt(self, meta, items):
        results, st = items
        st.results = results or []
        st.line, st.column = meta.line, meta.column
        return st

    def results(self, items):
        return [str(v)[1:] for v in items]

    # ------------------------------------------------------------ operands
    def operands(self, items):
        out = []
        for it in items:
            if isinstance(it, Token):
                if it.type == "VALUE":
                    out.append(Operand("value", name=str(it)[1:], line=it.line, column=it.column))
                else:
                    out.append(self._lit(it))
            else:
                out.append(it)
        return out

    def indexed(self, items):
        v, *idx = items
        return Operand("indexed", name=str(v)[1:], indices=[self._index(i) for i in idx if i is not None],
                       line=v.line, column=v.column)

    def _index(self, t):
        return ("value", str(t)[1:]) if t.type == "VALUE" else ("int", int(str(t), 0))

    def vlist(self, items):
        return [self._index(i) for i in items if i is not None]

    # ---------------------------------------------------------------- types
    def dialect_type(self, items):
        name = items[0]
        params = [p for p in items[1:] if p is not None]
        return TypeRef(str(name), params, name.line, name.column)

    type_nested = dialect_type

    def builtin_type(self, items):
        return TypeRef(str(items[0]), [], items[0].line, items[0].column)

    def _tval(self, v):
        if isinstance(v, TypeRef):
            return v
        if v.type == "INT":
            return int(str(v), 0)
        if v.type == "SHAPE":
            return _shape(str(v))
        if v.type == "ELLIPSIS":
            return "..."
        return str(v)

    def kw_param(self, items):
        return (str(items[0]), self._tval(items[1]))

    def pos_param(self, items):
        return (None, self._tval(items[0]))

    def type_list(self, items):
        return list(items)

    def paren_types(self, items):
        return items[0] or []

    def signature(self, items):
        ins, outs = items
        ins = ins if isinstance(ins, list) else [ins]
        outs = outs if isinstance(outs, list) or outs is None else [outs]
        return ins, (outs or [])

    def hash_kv(self, items):
        k, v = str(items[0])[1:].split("=", 1)
        return (k, v)

    # ----------------------------------------------------------- attributes
    def attr_dict(self, items):
        return dict(i for i in items if i is not None)

    def attr_entry(self, items):
        key = str(items[0])
        key = key[1:-1] if key.startswith('"') else key
        return (key, self._attr(items[1]) if items[1] is not None else True)

    def attr_list(self, items):
        return [self._attr(i) for i in items if i is not None]

    def _attr(self, v):
        if isinstance(v, Token):
            if v.type in ("INT", "FLOAT", "BOOL", "STRING"):
                return _number(v)
            return str(v)
        return v

    # ----------------------------------------------------------------- ops
    def alloc(self, items):
        *kws, ty = items
        return Stmt("alloc", "pto.alloc_tile", out_types=[ty], extra={"kw": dict(kws)})

    def alloc_kw(self, items):
        return (str(items[0]), self._index(items[2]))

    def make_view(self, items):
        v, shape, strides, attrs, ty = items
        return Stmt("make_view", "pto.make_tensor_view", ins=[self._val(v)], out_types=[ty], attrs=attrs or {},
                    extra={"shape": shape, "strides": strides})

    def part_view(self, items):
        v, offsets, sizes, t_in, t_out = items
        return Stmt("part_view", "pto.partition_view", ins=[self._val(v)], in_types=[t_in], out_types=[t_out],
                    extra={"offsets": offsets, "sizes": sizes})

    def _val(self, tok):
        return Operand("value", name=str(tok)[1:], line=tok.line, column=tok.column)

    def constant(self, items):
        lit, ty = items
        return Stmt("constant", "arith.constant", ins=[self._lit(lit)], out_types=[ty] if ty else [],
                    extra={"hex": lit.type == "INT" and "0x" in str(lit).lower()})

    def ret(self, items):
        vals = [self._val(i) for i in items if isinstance(i, Token)]
        return Stmt("return", "return", ins=vals)

    def scf_for(self, items):
        var, lb, ub, step, body = items
        return Stmt("for", "scf.for", extra={"var": str(var)[1:], "bounds": [self._index(lb), self._index(ub),
                                                                          self._index(step)]}, body=body)

    def scf_yield(self, items):
        return Stmt("yield", "scf.yield")

    def section(self, items):
        return Stmt("section", str(items[0]), body=items[1])

    def tassign(self, items):
        v, where = items
        st = Stmt("tassign", "pto.tassign", ins=[self._val(v)])
        if isinstance(where, tuple):
            st.extra["addr"] = ("int", where[1])
        else:
            st.extra["addr"] = self._index(where)
        return st

    def tile_addr(self, items):
        return (str(items[0]), int(str(items[1]), 0))

    def set_valid(self, items):
        v, r, c, ty = items
        return Stmt("set_valid", "pto.set_validshape", ins=[self._val(v)],
                    extra={"valid": [self._index(r), self._index(c)]})

    def sync(self, items):
        return Stmt("sync", str(items[0]), extra={"args": [str(i) for i in items[1:]]})

    def dps(self, items):
        name, ins, in_attrs, in_types, outs, out_types, post_attrs = items
        return Stmt("dps", str(name), ins=ins or [], outs=outs or [], in_types=in_types or [],
                    out_types=out_types or [], attrs={**(in_attrs or {}), **(post_attrs or {})})

    def generic(self, items):
        name, ops, attrs, sig, *kvs = items
        ins_t, outs_t = sig
        return Stmt("generic", str(name), ins=ops or [], in_types=ins_t, out_types=outs_t,
                    attrs={**(attrs or {}), **dict(kvs)})


def parse(text: str, source: str | None = None) -> Program:
    """Parse program text.

    Raises:
        ParseError: malformed text, with line and column (rule ``pto.parse.syntax``).

    >>> p = parse("%dst = pto.trowmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>")
    >>> st = p.stmts[0]
    >>> st.op, st.results, [o.name for o in st.ins], len(st.in_types), st.out_types[0].is_placeholder
    ('pto.trowmax', ['dst'], ['src', 'tmp'], 2, True)
    """
    try:
        tree = _parser().parse(text)
        return _Build(source).transform(tree)
    except UnexpectedInput as e:
        raise _syntax_error(e, text, source) from None
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, TilesimError):
            raise orig
        raise ParseError(f"cannot read this: {orig}", instruction="pto.parse", rule="pto.parse.syntax",
                         source=source, line=getattr(e.obj, "meta", None) and e.obj.meta.line or 1,
                         column=1) from None


def _syntax_error(e: UnexpectedInput, text: str, source: str | None) -> ParseError:
    line, col = getattr(e, "line", None), getattr(e, "column", None)
    at_end = isinstance(e, UnexpectedToken) and e.token.type == "$END"
    if isinstance(e, UnexpectedEOF) or at_end or line is None or line < 1:
        lines = text.split("\n")
        line, col = len(lines), len(lines[-1]) + 1
        exp = sorted(_pretty(x) for x in (getattr(e, "expected", None) or ()))
        detail = "unexpected end of input" + (f"; expected {', '.join(exp[:8])}" if exp else "")
    elif isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        detail = f"unexpected character {ch!r}"
    elif isinstance(e, UnexpectedToken):
        tok = e.token
        shown = "end of input" if tok.type == "$END" else repr(str(tok))
        exp = sorted(_pretty(x) for x in (e.expected or ()))
        detail = f"unexpected {shown}" + (f"; expected {', '.join(exp[:8])}" + (" ..." if len(exp) > 8 else "")
                                          if exp else "")
    else:
        detail = str(e).splitlines()[0]
    return ParseError(detail, instruction="pto.parse", rule="pto.parse.syntax", source=source, line=line,
                      column=col)


_PRETTY = {"VALUE": "a %value", "NAME": "a name", "INT": "an integer", "FLOAT": "a number", "STRING": "a string",
           "DIALECT_TYPE": "a !type", "SYMBOL": "an @symbol", "SHAPE": "a shape", "HASH_ATTR": "an #attribute",
           "SYNC_OP": "a sync op", "SECTION": "a section", "$END": "end of input"}


def _pretty(term: str) -> str:
    """A terminal's name for error messages: the literal text of keywords and punctuation."""
    if term in _PRETTY:
        return _PRETTY[term]
    try:
        pat = _parser().get_terminal(term).pattern
    except KeyError:
        return term.lower()
    return repr(pat.value) if pat.type == "str" else term.lower()
