"""Read each raw operation's items the way its syntax defines them (step two of :mod:`.parser`).

Most operations share one reader (:func:`read_items`): values and literals
are operands (``%v[%i, %j]`` an indexed one), ``word = item`` and
``word(...)``/``word [...]`` are keyword parts (``shape = [..]``,
``ins(...)``, ``sizes [..]``), ``{...}`` and ``<{...}>`` are attributes, bare
words and ``<...>`` are words (``slt``, ``<PIPE_ALL>``), a ``(...)`` right
after the name is an argument list, ``: T`` / ``: (T, T) -> T`` / ``: T to
T`` / ``-> T`` give the types, and ``{`` on its own line opens a region.
Operations whose syntax is not of that shape (``func.func``, ``scf.for``,
``scf.while``, ``pto.tassign``) have their own readers here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ...errors import ParseError
from .parser import Func, Group, Label, Named, Operand, Program, RawOp, Region, Shape, Stmt, Tok, TypeRef

__all__ = ["build_program", "read_items", "op_key", "Syn"]

_LITERALS = ("INT", "HEX", "FLOAT", "STRING")


def op_key(name: str) -> str:
    """``pto.tmatmul.acc`` -> ``tmatmul_acc``: the :data:`~tilesim.pto.OPS` key of a PTO op name."""
    base = name[4:] if name.startswith("pto.") else name
    return base.replace(".", "_")


def result_names(results) -> list[str]:
    """``%r:2`` names two results, referred to as ``%r#0`` and ``%r#1``; ``%r`` names one."""
    out = []
    for r in results:
        name, _, n = r.text[1:].partition(":")
        out += [f"{name}#{k}" for k in range(int(n))] if n else [name]
    return out


# ------------------------------------------------------------------ errors and positions
class _Ctx:
    """The text being read (for end-of-input positions) and its source name."""

    def __init__(self, text: str, source: str | None) -> None:
        self.text = text
        self.source = source
        self.lines = text.split("\n")

    def err(self, node, detail: str, rule: str = "pto.parse.syntax", operand=None) -> ParseError:
        line, col = _pos(node)
        return ParseError(detail, instruction="pto.parse" if rule == "pto.parse.syntax" else "pto.type",
                          operand=operand, rule=rule, source=self.source, line=line, column=col)

    def missing(self, raw: RawOp, what: str) -> ParseError:
        """``what`` was expected after the last item of ``raw``: at the end of the input, or of its line."""
        rest = "\n".join([self.lines[raw.end_line - 1][raw.end_column - 1:], *self.lines[raw.end_line:]])
        if not _strip_comments(rest).strip():
            line, col = len(self.lines), len(self.lines[-1]) + 1
            return ParseError(f"unexpected end of input; expected {what}", instruction="pto.parse",
                              rule="pto.parse.syntax", source=self.source, line=line, column=col)
        return ParseError(f"unexpected end of line; expected {what}", instruction="pto.parse", rule="pto.parse.syntax",
                          source=self.source, line=raw.end_line, column=raw.end_column)


def _strip_comments(s: str) -> str:
    out = []
    for ln in s.split("\n"):
        i = ln.find("//")
        ln = ln if i < 0 else ln[:i]
        if ln.lstrip().startswith("#") and not ln.lstrip().startswith("#pto"):
            ln = ""
        out.append(ln)
    return "\n".join(out)


def _pos(node) -> tuple[int, int]:
    if isinstance(node, (Tok, Group, Named, Region, RawOp)):
        return node.line, node.column
    if isinstance(node, Label):
        return node.name.line, node.name.column
    if isinstance(node, (list, tuple)) and node:
        return _pos(node[0])
    return 1, 1


def _show(node) -> str:
    if isinstance(node, Tok):
        return repr(node.text)
    if isinstance(node, Group):
        return repr(node.open)
    if isinstance(node, Named):
        return repr(node.head.text)
    if isinstance(node, Region):
        return "a region"
    return repr(str(node))


def render(node) -> str:
    """Source-like text of an item (attribute values are kept as this text)."""
    if isinstance(node, Tok):
        return node.text
    if isinstance(node, Named):
        return node.head.text + render(node.args)
    if isinstance(node, Group):
        close = {"(": ")", "[": "]", "<": ">", "{": "}"}[node.open]
        parts, prev = [], None
        for it in node.items:
            if isinstance(it, Tok) and it.type == "COMMA":
                parts.append(", ")
            else:
                if prev is not None and not (isinstance(prev, Tok) and prev.type == "COMMA"):
                    parts.append(" ")
                parts.append(render(it))
            prev = it
        return node.open + "".join(parts) + close
    if isinstance(node, Region):
        return "{...}"
    return str(node)


def split_commas(items: list) -> list[list]:
    """Top-level comma-separated parts (groups are single items, so their commas do not count)."""
    parts, cur = [], []
    for it in items:
        if isinstance(it, Tok) and it.type == "COMMA":
            parts.append(cur)
            cur = []
        else:
            cur.append(it)
    if cur or parts:
        parts.append(cur)
    return parts


def _is(node, type_: str, text: str | None = None) -> bool:
    return isinstance(node, Tok) and node.type == type_ and (text is None or node.text == text)


def _word(node, text: str) -> bool:
    return _is(node, "NAME", text)


def _num(tok: Tok):
    s = tok.text
    if tok.type in ("INT", "HEX"):
        neg = s.startswith("-")
        v = int(s.lstrip("-"), 16 if tok.type == "HEX" else 10)     # "08" is decimal 8, as in MLIR
        return -v if neg else v
    if tok.type == "FLOAT":
        low = s.lower().lstrip("-")
        if low in ("inf", "nan"):
            return float(s)
        return Fraction(s)
    if tok.type == "STRING":
        return s[1:-1]
    return s


def _shape(s: str) -> Shape:
    parts = s.split("x")
    elem = None
    if not (parts[-1].isdigit() or parts[-1] == "?"):
        elem = parts.pop()
    return Shape(tuple(None if p == "?" else int(p) for p in parts), elem)


# ------------------------------------------------------------------ types
class _Types:
    def __init__(self, ctx: _Ctx) -> None:
        self.ctx = ctx

    def one(self, node) -> TypeRef:
        """A single type: ``f32``, ``!pto.ptr<f32>``, ``memref<...>``, ``<32x64xf32, ...>``."""
        if isinstance(node, Tok) and node.type in ("NAME", "DTYPE", "SHAPE"):
            return TypeRef(node.text, [], node.line, node.column)
        if isinstance(node, Named) and node.head.type in ("NAME", "DTYPE"):
            return TypeRef(node.head.text, self.params(node.args), node.line, node.column)
        if isinstance(node, Group) and node.open == "<":
            return TypeRef("", self.params(node), node.line, node.column)
        raise self.ctx.err(node, f"unexpected {_show(node)}; expected a type")

    def seq(self, items: list) -> list[TypeRef]:
        """``T, T`` or ``(T, T)`` or ``()``: a list of types."""
        if len(items) == 1 and isinstance(items[0], Group) and items[0].open == "(":
            items = items[0].items
        out = []
        for part in split_commas(items):
            if not part:
                raise self.ctx.err(items[0] if items else None, "empty type in a type list")
            if len(part) > 1:
                raise self.ctx.err(part[1], f"unexpected {_show(part[1])}; expected ',' or the end of the types")
            out.append(self.one(part[0]))
        return out

    def signature(self, items: list) -> tuple[list, list]:
        """``T, T`` / ``(T, T) -> T`` / ``T -> (T, T)`` / ``T to T``: (input types, result types)."""
        for i, it in enumerate(items):
            if _is(it, "ARROW") or _word(it, "to"):
                return self.seq(items[:i]), self.seq(items[i + 1:])
        return self.seq(items), []

    def params(self, g: Group) -> list:
        out = []
        for part in split_commas(g.items):
            if not part:
                raise self.ctx.err(g, "empty parameter in '<...>'")
            head = part[0]
            if (len(part) >= 2 and isinstance(head, Tok) and head.type in ("NAME", "OPNAME")
                    and (_is(part[1], "EQ") or _is(part[1], "COLON"))):
                if len(part) == 2:
                    raise self.ctx.err(part[1], f"{head.text}{part[1].text} needs a value")
                if len(part) > 3:
                    raise self.ctx.err(part[3], f"unexpected {_show(part[3])}; expected ',' or '>'")
                out.append((head.text, self.value(part[2])))
            elif len(part) == 1:
                out.append((None, self.value(head)))
            else:
                raise self.ctx.err(part[1], f"unexpected {_show(part[1])}; expected ',' or '>'")
        return out

    def value(self, node):
        if isinstance(node, Tok):
            if node.type in ("INT", "HEX"):
                return _num(node)
            if node.type == "SHAPE":
                if not all(p.isdigit() or p == "?" for p in node.text.split("x")[:-1]):
                    raise self.ctx.err(node, f"malformed shape {node.text!r}; expected dims like 16x16xf32",
                                       "pto.parse.type")
                return _shape(node.text)
            if node.type == "QMARK":
                return "?"
            if node.type == "ELLIPSIS":
                return "..."
            if node.type in ("NAME", "HASH", "SYMBOL"):
                return node.text
            if node.type == "STRING":
                return node.text[1:-1]
            if node.type == "FLOAT":
                return _num(node)
            if node.type == "DTYPE":
                return TypeRef(node.text, [], node.line, node.column)
        if isinstance(node, Named):
            if node.head.type == "HASH":
                return render(node)
            return TypeRef(node.head.text, self.params(node.args), node.line, node.column)
        if isinstance(node, Group) and node.open == "[":
            return [self.value(p[0]) if len(p) == 1 else render(Group("(", p, 0, 0, 0, 0)) for p in
                    split_commas(node.items)]
        if isinstance(node, Group) and node.open == "<":
            return TypeRef("", self.params(node), node.line, node.column)
        raise self.ctx.err(node, f"unexpected {_show(node)} in a type")


# ------------------------------------------------------------------ attributes and operands
def attr_value(seq: list):
    """An attribute's value: numbers, strings and booleans as Python values, anything else as its text."""
    if len(seq) >= 1 and isinstance(seq[0], Tok) and seq[0].type in _LITERALS and (
            len(seq) == 1 or (len(seq) == 3 and _is(seq[1], "COLON"))):
        return _num(seq[0])
    if len(seq) == 1 and isinstance(seq[0], Tok) and seq[0].type == "NAME" and seq[0].text in ("true", "false"):
        return seq[0].text == "true"
    if len(seq) == 1 and isinstance(seq[0], Group) and seq[0].open == "[":
        return [attr_value(p) for p in split_commas(seq[0].items)]
    if len(seq) == 1:
        return render(seq[0])
    return " ".join(render(s) for s in seq)


def _attr_dict(ctx: _Ctx, g: Group) -> dict:
    out = {}
    for part in split_commas(g.items):
        if not part:
            continue
        key = part[0]
        if not (isinstance(key, Tok) and key.type in ("NAME", "OPNAME", "STRING")):
            raise ctx.err(key, f"unexpected {_show(key)}; expected an attribute name")
        name = key.text[1:-1] if key.type == "STRING" else key.text
        if len(part) == 1:
            out[name] = True
        elif _is(part[1], "EQ") and len(part) > 2:
            out[name] = attr_value(part[2:])
        else:
            raise ctx.err(part[1], f"unexpected {_show(part[1])}; expected '=' and a value")
    return out


def _operand(ctx: _Ctx, part: list, attrs: dict) -> Operand | None:
    """One operand of a list: ``%v``, ``%v[%i, %j]``, a literal; a trailing ``{attrs}`` goes to ``attrs``
    (None when the entry is only an attribute dict, as in ``ins(%src, {maskPattern = ...} : T)``)."""
    while part and isinstance(part[-1], Group) and part[-1].open == "{":
        attrs.update(_attr_dict(ctx, part.pop()))
    if not part:
        return None
    head = part[0]
    if _is(head, "VALUE"):
        if len(part) == 2 and isinstance(part[1], Group) and part[1].open == "[":
            return Operand("indexed", name=head.text[1:], indices=_indices(ctx, part[1]), line=head.line,
                           column=head.column)
        if len(part) == 1:
            return Operand("value", name=head.text[1:], line=head.line, column=head.column)
        raise ctx.err(part[1], f"unexpected {_show(part[1])}; expected ',' or ':'")
    if isinstance(head, Tok) and head.type in _LITERALS and len(part) == 1:
        return Operand("literal", value=_num(head), line=head.line, column=head.column)
    if _word(head, "true") or _word(head, "false"):
        return Operand("literal", value=head.text == "true", line=head.line, column=head.column)
    raise ctx.err(head, f"unexpected {_show(head)}; expected a %value or a literal")


def _indices(ctx: _Ctx, g: Group) -> list:
    """``[%i, 4]`` -> [("value", "i"), ("int", 4)]."""
    out = []
    for part in split_commas(g.items):
        if len(part) != 1:
            raise ctx.err(part[1] if len(part) > 1 else g, "an index is a %value or an integer")
        t = part[0]
        if _is(t, "VALUE"):
            out.append(("value", t.text[1:]))
        elif isinstance(t, Tok) and t.type in ("INT", "HEX"):
            out.append(("int", _num(t)))
        else:
            raise ctx.err(t, f"unexpected {_show(t)}; an index is a %value or an integer")
    return out


def _operand_list(ctx: _Ctx, items: list, attrs: dict, types: _Types) -> tuple[list, list]:
    """``%a, %b {attrs} : T, T`` (inside ``ins(...)``, ``outs(...)``, ``(...)`` argument lists)."""
    cut = next((i for i, it in enumerate(items) if _is(it, "COLON")), None)
    ops_items = items if cut is None else items[:cut]
    ops = [o for o in (_operand(ctx, list(p), attrs) for p in split_commas(ops_items) if p) if o is not None]
    if cut is None:
        return ops, []
    tys_items = list(items[cut + 1:])
    while tys_items and isinstance(tys_items[-1], Group) and tys_items[-1].open == "{":
        attrs.update(_attr_dict(ctx, tys_items.pop()))
    # per-operand types: "%a : T1, %b : T2"
    if any(_is(it, "COLON") for it in tys_items) or any(_is(it, "VALUE") for it in tys_items):
        return _typed_pairs(ctx, items, attrs, types)
    return ops, types.seq(tys_items)


def _typed_pairs(ctx: _Ctx, items: list, attrs: dict, types: _Types) -> tuple[list, list]:
    """``%a : T1, %b : T2`` (each operand with its own type)."""
    ops, tys = [], []
    for part in split_commas(items):
        cut = next((i for i, it in enumerate(part) if _is(it, "COLON")), None)
        if cut is None or cut + 2 != len(part):
            raise ctx.err(part[0] if part else None, "expected '%value : type'")
        ops.append(_operand(ctx, list(part[:cut]), attrs))
        tys.append(types.one(part[cut + 1]))
    return ops, tys


def _kw_operand_list(ctx: _Ctx, g: Group, types: _Types) -> dict:
    """``(name = %v : T, ...)`` -> {name: (Operand, TypeRef | None)} (pipe initialisation operands)."""
    out = {}
    for part in split_commas(g.items):
        if len(part) < 3 or not _is(part[0], "NAME") or not _is(part[1], "EQ"):
            raise ctx.err(part[0] if part else g, "expected 'name = %value : type'")
        rest = part[2:]
        ty = None
        if len(rest) == 3 and _is(rest[1], "COLON"):
            ty = types.one(rest[2])
            rest = rest[:1]
        out[part[0].text] = (_operand(ctx, list(rest), {}), ty)
    return out


# ------------------------------------------------------------------ the shared reader
@dataclass
class Syn:
    """What :func:`read_items` found in an operation's items."""

    operands: list = field(default_factory=list)
    words: list = field(default_factory=list)
    kw: dict = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)
    in_types: list = field(default_factory=list)
    out_types: list = field(default_factory=list)
    regions: list = field(default_factory=list)
    args: Group | None = None
    symbol: str | None = None
    has_sig: bool = False


def read_items(ctx: _Ctx, raw: RawOp, types: _Types) -> Syn:
    syn = Syn()
    items = raw.items
    n = len(items)
    i = 0
    while i < n:
        it = items[i]
        nxt = items[i + 1] if i + 1 < n else None
        if _is(it, "COLON") or _is(it, "ARROW"):
            j = i + 1
            while j < n and not _ends_types(items[j]):
                j += 1
            tail = list(items[i + 1:j])
            if not tail:
                raise ctx.missing(raw, "a type") if j >= n else ctx.err(items[j], f"unexpected {_show(items[j])}; "
                                                                        "expected a type")
            if _is(it, "ARROW"):
                syn.out_types = types.seq(tail)
            else:
                syn.in_types, syn.out_types = types.signature(tail)
            syn.has_sig = True
            i = j
            continue
        if isinstance(it, Region):
            syn.regions.append(it)
        elif isinstance(it, Group) and it.open == "{":
            syn.attrs.update(_attr_dict(ctx, it))
        elif isinstance(it, Group) and it.open == "<" and len(it.items) == 1 and isinstance(it.items[0], Group) \
                and it.items[0].open == "{":
            syn.attrs.update(_attr_dict(ctx, it.items[0]))     # <{properties}>
        elif _is(it, "NAME") and _is(nxt, "EQ"):
            if i + 2 >= n:
                raise ctx.missing(raw, f"a value for {it.text}")
            syn.kw[it.text] = items[i + 2]
            i += 3
            continue
        elif _is(it, "NAME") and isinstance(nxt, Group) and nxt.open in "([":
            syn.kw[it.text] = nxt
            i += 2
            continue
        elif _is(it, "VALUE") or (isinstance(it, Tok) and it.type in _LITERALS):
            part = [it]
            if isinstance(nxt, Group) and nxt.open == "[" and _is(it, "VALUE"):
                part.append(nxt)
                i += 1
            syn.operands.append(_operand(ctx, part, syn.attrs))
        elif isinstance(it, Group) and it.open == "(" and i == 0 or (isinstance(it, Group) and it.open == "("
                                                                     and i == 1 and _is(items[0], "SYMBOL")):
            syn.args = it
            ops, tys = _operand_list(ctx, it.items, syn.attrs, types) if not _named_args(it) else ([], [])
            syn.operands += ops
            syn.in_types += tys
        elif _is(it, "SYMBOL"):
            syn.symbol = it.text[1:]
        elif _is(it, "HASH_KV"):
            k, v = it.text[1:].split("=", 1)
            syn.attrs[k] = v
        elif _is(it, "NAME") or isinstance(it, (Named,)) or (isinstance(it, Group) and it.open in "<[") \
                or _is(it, "HASH"):
            syn.words.append(it)
        elif isinstance(it, Group) and it.open == "(":
            syn.kw.setdefault("(", it)
        elif not _is(it, "COMMA"):
            raise ctx.err(it, f"unexpected {_show(it)}")
        i += 1
    return syn


def _ends_types(node) -> bool:
    """Items that end a type signature: a region, an attribute dict, ``#k=v``, ``else``/``do``."""
    return (isinstance(node, Region) or _is(node, "HASH_KV") or (isinstance(node, Group) and node.open == "{")
            or _word(node, "else") or _word(node, "do"))


def _named_args(g: Group) -> bool:
    """``(name = %v : T, ...)``: a keyword operand list (pipe initialisation)."""
    return len(g.items) >= 2 and _is(g.items[0], "NAME") and _is(g.items[1], "EQ")


# ------------------------------------------------------------------ per-form builders
class _Builder:
    def __init__(self, ctx: _Ctx) -> None:
        self.ctx = ctx
        self.types = _Types(ctx)

    # ------------------------------------------------------------- structure
    def stmts(self, region: Region | list) -> list:
        stmts = region.stmts if isinstance(region, Region) else region
        out = []
        for s in stmts:
            if isinstance(s, Label):
                out.append(self.label(s))
            else:
                out.append(self.stmt(s))
        return out

    def label(self, lab: Label) -> Stmt:
        args = []
        if lab.args is not None:
            for part in split_commas(lab.args.items):
                if len(part) != 3 or not _is(part[0], "VALUE") or not _is(part[1], "COLON"):
                    raise self.ctx.err(part[0] if part else lab.args, "a block argument is '%name : type'")
                args.append((part[0].text[1:], self.types.one(part[2])))
        return Stmt("label", lab.name.text, extra={"args": args}, line=lab.name.line, column=lab.name.column)

    def stmt(self, raw: RawOp) -> Stmt:
        name = raw.name.text
        if raw.name.type == "STRING":
            return self.quoted(raw)
        fn = _FORMS.get(name)
        st = fn(self, raw) if fn is not None else self.generic(raw)
        st.results = result_names(raw.results)
        st.line, st.column = raw.line, raw.column
        st.extra.setdefault("end", (raw.end_line, raw.end_column))
        return st

    def module(self, raw: RawOp, prog: Program) -> None:
        syn = read_items(self.ctx, raw, self.types)
        prog.attrs.update(syn.attrs)
        if "attributes" in syn.kw:
            kwv = syn.kw["attributes"]
            if not (isinstance(kwv, Group) and kwv.open == "{"):
                raise self.ctx.err(kwv, "module attributes are a {...} dictionary")
            prog.attrs.update(_attr_dict(self.ctx, kwv))
        for w in syn.words:
            if not _word(w, "attributes"):
                raise self.ctx.err(w, f"unexpected {_show(w)} in a module header")
        if len(syn.regions) != 1:
            raise self.ctx.missing(raw, "'{' and the module body")
        self.top(syn.regions[0].stmts, prog)

    def top(self, stmts: list, prog: Program) -> None:
        for s in stmts:
            if isinstance(s, RawOp) and s.name.text in ("module", "builtin.module"):
                self.module(s, prog)
            elif isinstance(s, RawOp) and s.name.text == "func.func":
                prog.funcs.append(self.func(s))
            elif isinstance(s, Label):
                raise self.ctx.err(s, "a block label outside a region")
            else:
                prog.stmts.append(self.stmt(s))

    def func(self, raw: RawOp) -> Func:
        items = list(raw.items)
        private = False
        while items and _is(items[0], "NAME") and items[0].text in ("private", "public", "nested"):
            private = private or items[0].text == "private"
            items.pop(0)
        if not items or not _is(items[0], "SYMBOL"):
            if not items:
                raise self.ctx.missing(raw, "an @symbol")
            raise self.ctx.err(items[0], f"unexpected {_show(items[0])}; expected an @symbol")
        name = items.pop(0).text[1:]
        if not items or not (isinstance(items[0], Group) and items[0].open == "("):
            if not items:
                raise self.ctx.missing(raw, "'(' and the arguments")
            raise self.ctx.err(items[0], f"unexpected {_show(items[0])}; expected '('")
        arg_group = items.pop(0)
        args = self.func_args(arg_group)
        results: list = []
        attrs: dict = {}
        body = None
        while items:
            it = items.pop(0)
            if _is(it, "ARROW"):
                if not items:
                    raise self.ctx.missing(raw, "result types")
                res = items.pop(0)
                results = self.types.seq([res])
            elif _word(it, "attributes"):
                if not items or not (isinstance(items[0], Group) and items[0].open == "{"):
                    raise self.ctx.err(items[0] if items else it, "attributes are a {...} dictionary")
                attrs.update(_attr_dict(self.ctx, items.pop(0)))
            elif isinstance(it, Region):
                body = self.stmts(it)
            elif isinstance(it, Group) and it.open == "{" and not it.items:
                body = []
            else:
                raise self.ctx.err(it, f"unexpected {_show(it)} in a func.func header")
        if body is None and not private:
            raise self.ctx.missing(raw, "'{' and the function body (only a private func.func may be a declaration)")
        return Func(name, args, body, attrs, raw.line, raw.column, results, private)

    def func_args(self, g: Group) -> list:
        args = []
        for k, part in enumerate(split_commas(g.items)):
            if not part:
                raise self.ctx.err(g, "empty argument")
            while part and isinstance(part[-1], Group) and part[-1].open == "{":
                part = part[:-1]          # argument attributes are not modelled
            if _is(part[0], "VALUE"):
                if len(part) != 3 or not _is(part[1], "COLON"):
                    raise self.ctx.err(part[1] if len(part) > 1 else part[0], "an argument is '%name: type'")
                args.append((part[0].text[1:], self.types.one(part[2])))
            elif len(part) == 1:
                args.append((f"arg{k}", self.types.one(part[0])))
            else:
                raise self.ctx.err(part[1], f"unexpected {_show(part[1])} in an argument")
        return args

    # ------------------------------------------------------------- generic forms
    def generic(self, raw: RawOp) -> Stmt:
        """DPS ``ins(...) outs(...)``, SSA/assembly ``%d = op %a, %b : T``, and every other op."""
        from ..ops import OPS

        syn = read_items(self.ctx, raw, self.types)
        name = raw.name.text
        attrs = dict(syn.attrs)
        if "ins" in syn.kw or "outs" in syn.kw:
            ins, in_t, outs, out_t = [], [], [], []
            for key, ops, tys in (("ins", ins, in_t), ("outs", outs, out_t)):
                g = syn.kw.pop(key, None)
                if g is None:
                    continue
                if not (isinstance(g, Group) and g.open == "("):
                    raise self.ctx.err(g, f"{key} takes a (...) list")
                o, t = _operand_list(self.ctx, g.items, attrs, self.types)
                if t and len(t) != len(o):
                    raise self.ctx.err(g, f"{key}(...) lists {len(o)} operands and {len(t)} types")
                ops += o
                tys += t
            return Stmt("dps", name, ins=syn.operands + ins, outs=outs, in_types=in_t or syn.in_types,
                        out_types=out_t or syn.out_types, attrs=attrs, regions=[self.stmts(r) for r in syn.regions],
                        extra={"syn": syn})
        if op_key(name) in OPS and not syn.has_sig and (raw.results or syn.operands):
            raise self.ctx.missing(raw, "':' and the operand types")
        return Stmt("generic", name, ins=syn.operands, in_types=syn.in_types, out_types=syn.out_types, attrs=attrs,
                    regions=[self.stmts(r) for r in syn.regions], extra={"syn": syn})

    def quoted(self, raw: RawOp) -> Stmt:
        """The MLIR generic form ``"pto.op"(%a, %b) <{props}> {attrs} : (T, T) -> (R)``."""
        syn = read_items(self.ctx, raw, self.types)
        name = raw.name.text[1:-1]
        if syn.args is None:
            raise self.ctx.err(raw.name, "the generic form needs its '(...)' operand list")
        if not syn.has_sig:
            raise self.ctx.missing(raw, "':' and the function type")
        st = Stmt("quoted", name, ins=syn.operands, in_types=syn.in_types, out_types=syn.out_types, attrs=syn.attrs,
                  regions=[self.stmts(r) for r in syn.regions], extra={"syn": syn})
        st.results = result_names(raw.results)
        st.line, st.column = raw.line, raw.column
        st.extra["end"] = (raw.end_line, raw.end_column)
        return st

    def syn(self, raw: RawOp) -> Syn:
        return read_items(self.ctx, raw, self.types)

    # ------------------------------------------------------------- specific forms
    def constant(self, raw: RawOp) -> Stmt:
        items = list(raw.items)
        if not items:
            raise self.ctx.missing(raw, "a literal")
        head = items[0]
        extra: dict = {}
        if isinstance(head, Tok) and head.type in _LITERALS:
            lit = Operand("literal", value=_num(head), line=head.line, column=head.column)
            extra["hex"] = head.type == "HEX"
        elif isinstance(head, Tok) and head.type in ("NAME",) and head.text in ("true", "false"):
            lit = Operand("literal", value=head.text == "true", line=head.line, column=head.column)
        elif isinstance(head, Named) and head.head.text == "dense":
            vals = head.args.items
            lit = Operand("literal", value=self.dense(vals), line=head.line, column=head.column)
            extra["dense"] = True
        else:
            raise self.ctx.err(head, f"unexpected {_show(head)}; expected a literal")
        rest = items[1:]
        out_t = []
        if rest:
            if not _is(rest[0], "COLON") or len(rest) != 2:
                raise self.ctx.err(rest[0] if not _is(rest[0], "COLON") or len(rest) < 3 else rest[2],
                                   f"unexpected {_show(rest[0] if not _is(rest[0], 'COLON') else rest[-1])}; "
                                   "expected ': type'")
            out_t = [self.types.one(rest[1])]
        return Stmt("constant", "arith.constant", ins=[lit], out_types=out_t, extra=extra)

    def dense(self, items: list):
        if len(items) == 1 and isinstance(items[0], Group) and items[0].open == "[":
            items = items[0].items
            vals = []
            for p in split_commas(items):
                if len(p) != 1 or not (isinstance(p[0], Tok) and p[0].type in _LITERALS):
                    raise self.ctx.err(p[0] if p else None, "dense<[...]> holds numbers")
                vals.append(_num(p[0]))
            return vals
        if len(items) == 1 and isinstance(items[0], Tok) and items[0].type in _LITERALS:
            return _num(items[0])
        raise self.ctx.err(items[0] if items else None, "dense<...> holds a number or a [list]")

    def scf_for(self, raw: RawOp) -> Stmt:
        it = list(raw.items)
        want = [("VALUE", None), ("EQ", None), (None, None), ("NAME", "to"), (None, None), ("NAME", "step"),
                (None, None)]
        if len(it) < len(want):
            raise self.ctx.missing(raw, "'%i = %lb to %ub step %s'")
        for (ty, text), node in zip(want, it):
            if ty is not None and not _is(node, ty, text):
                raise self.ctx.err(node, f"unexpected {_show(node)}; expected {text or ty.lower()} in "
                                         "'scf.for %i = %lb to %ub step %s'")
        bounds = [self._index(it[k]) for k in (2, 4, 6)]
        rest = it[7:]
        iter_args, res_types = [], []
        regions = []
        k = 0
        while k < len(rest):
            node = rest[k]
            if _word(node, "iter_args") and k + 1 < len(rest) and isinstance(rest[k + 1], Group):
                for part in split_commas(rest[k + 1].items):
                    if len(part) != 3 or not _is(part[0], "VALUE") or not _is(part[1], "EQ"):
                        raise self.ctx.err(part[0] if part else rest[k + 1], "iter_args are '%acc = %init'")
                    iter_args.append((part[0].text[1:], _operand(self.ctx, [part[2]], {})))
                k += 2
                continue
            if _is(node, "ARROW") and k + 1 < len(rest):
                res_types = self.types.seq([rest[k + 1]])
                k += 2
                continue
            if _is(node, "COLON") and k + 1 < len(rest):
                k += 2            # the induction variable's type (index or an integer)
                continue
            if isinstance(node, Region):
                regions.append(self.stmts(node))
            else:
                raise self.ctx.err(node, f"unexpected {_show(node)} in scf.for")
            k += 1
        if len(regions) != 1:
            raise self.ctx.missing(raw, "'{' and the loop body")
        return Stmt("for", "scf.for", out_types=res_types, regions=regions,
                    extra={"var": it[0].text[1:], "bounds": bounds, "iter_args": iter_args})

    def _index(self, node):
        if _is(node, "VALUE"):
            return ("value", node.text[1:])
        if isinstance(node, Tok) and node.type in ("INT", "HEX"):
            return ("int", _num(node))
        raise self.ctx.err(node, f"unexpected {_show(node)}; expected a %value or an integer")

    def scf_if(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if len(syn.operands) != 1:
            raise self.ctx.err(raw.name, "scf.if takes one i1 condition")
        words = [w for w in syn.words if not _word(w, "else")]
        if words:
            raise self.ctx.err(words[0], f"unexpected {_show(words[0])} in scf.if")
        if not 1 <= len(syn.regions) <= 2:
            raise self.ctx.missing(raw, "'{' and the then-region")
        return Stmt("if", "scf.if", ins=syn.operands, out_types=syn.out_types,
                    regions=[self.stmts(r) for r in syn.regions])

    def scf_while(self, raw: RawOp) -> Stmt:
        items = list(raw.items)
        if not items or not (isinstance(items[0], Group) and items[0].open == "("):
            raise self.ctx.err(items[0] if items else raw.name, "scf.while starts with '(%arg = %init, ...)'")
        inits = []
        for part in split_commas(items[0].items):
            if len(part) != 3 or not _is(part[0], "VALUE") or not _is(part[1], "EQ"):
                raise self.ctx.err(part[0] if part else items[0], "scf.while arguments are '%arg = %init'")
            inits.append((part[0].text[1:], _operand(self.ctx, [part[2]], {})))
        regions = [self.stmts(r) for r in items if isinstance(r, Region)]
        if len(regions) != 2:
            raise self.ctx.missing(raw, "the before and after regions ('{...} do {...}')")
        sig = [r for r in items[1:] if not isinstance(r, Region) and not _word(r, "do")]
        in_t, out_t = ([], [])
        if sig:
            if not _is(sig[0], "COLON"):
                raise self.ctx.err(sig[0], f"unexpected {_show(sig[0])} in scf.while")
            in_t, out_t = self.types.signature(sig[1:])
        return Stmt("while", "scf.while", in_types=in_t, out_types=out_t, regions=regions, extra={"inits": inits})

    def scf_condition(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if syn.args is None or not syn.operands:
            raise self.ctx.err(raw.name, "scf.condition(%cond) takes an i1 condition")
        return Stmt("condition", "scf.condition", ins=syn.operands, in_types=syn.in_types)

    def yield_(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        return Stmt("yield", raw.name.text, ins=syn.operands, in_types=syn.in_types)

    def ret(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        return Stmt("return", "return", ins=syn.operands, in_types=syn.in_types)

    def call(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if syn.symbol is None:
            raise self.ctx.err(raw.name, "func.call needs an @callee")
        if syn.args is None:
            raise self.ctx.missing(raw, "'(' and the call's operands")
        return Stmt("call", "func.call", ins=syn.operands, in_types=syn.in_types, out_types=syn.out_types,
                    extra={"callee": syn.symbol})

    def alloc(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        kw = {}
        for k, v in syn.kw.items():
            if k not in ("valid_row", "valid_col", "addr"):
                raise self.ctx.err(v, f"unknown pto.alloc_tile operand {k!r}; operands are valid_row, valid_col, addr")
            kw[k] = self._index(v)
        if syn.operands or syn.words:
            bad = (syn.words or [None])[0]
            raise self.ctx.err(bad if bad is not None else raw.name,
                               "pto.alloc_tile takes only valid_row =, valid_col = and addr =")
        if len(syn.out_types) + len(syn.in_types) != 1:
            raise self.ctx.missing(raw, "': !pto.tile_buf<...>'")
        return Stmt("alloc", "pto.alloc_tile", out_types=syn.in_types or syn.out_types, attrs=syn.attrs,
                    extra={"kw": kw})

    def _vlist(self, raw: RawOp, syn: Syn, key: str) -> list:
        g = syn.kw.get(key)
        if g is None:
            raise self.ctx.missing(raw, f"{key} = [...]")
        if not (isinstance(g, Group) and g.open == "["):
            raise self.ctx.err(g, f"{key} is a [...] list")
        return [self._index(p[0]) if len(p) == 1 else self._bad_index(p) for p in split_commas(g.items)]

    def _bad_index(self, part):
        raise self.ctx.err(part[0] if part else None, "a list entry is a %value or an integer")

    def make_view(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if len(syn.operands) != 1:
            raise self.ctx.err(raw.name, "pto.make_tensor_view takes one pointer operand")
        return Stmt("make_view", "pto.make_tensor_view", ins=syn.operands, out_types=syn.in_types + syn.out_types,
                    attrs=syn.attrs, extra={"shape": self._vlist(raw, syn, "shape"),
                                            "strides": self._vlist(raw, syn, "strides")})

    def part_view(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if len(syn.operands) != 1:
            raise self.ctx.err(raw.name, f"{raw.name.text} takes one view operand")
        return Stmt("part_view", raw.name.text, ins=syn.operands, in_types=syn.in_types, out_types=syn.out_types,
                    attrs=syn.attrs, extra={"offsets": self._vlist(raw, syn, "offsets"),
                                            "sizes": self._vlist(raw, syn, "sizes")})

    def subset(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if len(syn.operands) != 1 or syn.operands[0].kind != "indexed":
            raise self.ctx.err(raw.name, "pto.subset takes %tile[%row, %col] sizes [R, C]")
        return Stmt("subset", "pto.subset", ins=syn.operands, in_types=syn.in_types, out_types=syn.out_types,
                    attrs=syn.attrs, extra={"sizes": self._vlist(raw, syn, "sizes")})

    def tassign(self, raw: RawOp) -> Stmt:
        it = list(raw.items)
        if len(it) < 3 or not _is(it[0], "VALUE") or not _is(it[1], "COMMA"):
            raise self.ctx.err(it[0] if it else raw.name, "pto.tassign takes '%tile, @tile(addr)' or '%tile, %addr'")
        st = Stmt("tassign", "pto.tassign", ins=[_operand(self.ctx, [it[0]], {})])
        where = it[2]
        if _is(where, "SYMBOL") and len(it) >= 4 and isinstance(it[3], Group) and it[3].open == "(":
            inner = it[3].items
            if len(inner) != 1 or not (isinstance(inner[0], Tok) and inner[0].type in ("INT", "HEX")):
                raise self.ctx.err(it[3], "@tile(...) takes an integer address")
            st.extra["addr"] = ("int", _num(inner[0]))
            rest = it[4:]
        else:
            st.extra["addr"] = self._index(where)
            rest = it[3:]
        if rest and _is(rest[0], "COLON"):
            st.in_types, st.out_types = self.types.signature(rest[1:])
        elif rest:
            raise self.ctx.err(rest[0], f"unexpected {_show(rest[0])} in pto.tassign")
        return st

    def set_valid(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if len(syn.operands) != 3:
            raise self.ctx.err(raw.name, "pto.set_validshape takes %tile, %rows, %cols")
        return Stmt("set_valid", "pto.set_validshape", ins=syn.operands[:1], in_types=syn.in_types,
                    extra={"valid": [self._operand_index(o) for o in syn.operands[1:]]})

    def _operand_index(self, o: Operand):
        if o.kind == "value":
            return ("value", o.name)
        if o.kind == "literal" and isinstance(o.value, int) and not isinstance(o.value, bool):
            return ("int", o.value)
        raise self.ctx.err(o, "expected a %value or an integer")

    def memref_alloc(self, raw: RawOp) -> Stmt:
        syn = self.syn(raw)
        if len(syn.in_types) + len(syn.out_types) != 1:
            raise self.ctx.missing(raw, "': memref<...>'")
        return Stmt("memref_alloc", raw.name.text, ins=syn.operands, out_types=syn.in_types + syn.out_types,
                    attrs=syn.attrs)


    def reinterpret(self, raw: RawOp) -> Stmt:
        """``memref.reinterpret_cast %m to offset: [o], sizes: [..], strides: [..] {attrs} : T to T``."""
        it = list(raw.items)
        if len(it) < 2 or not _is(it[0], "VALUE") or not _word(it[1], "to"):
            raise self.ctx.err(it[0] if it else raw.name, "expected '%memref to offset: [...], sizes: [...], "
                                                          "strides: [...]'")
        parts: dict = {}
        k = 2
        while k + 2 < len(it) and _is(it[k], "NAME") and _is(it[k + 1], "COLON"):
            g = it[k + 2]
            if not (isinstance(g, Group) and g.open == "["):
                raise self.ctx.err(g, f"{it[k].text}: takes a [...] list")
            parts[it[k].text] = [self._index(p[0]) if len(p) == 1 else self._bad_index(p) for p in
                                 split_commas(g.items)]
            k += 3
            if k < len(it) and _is(it[k], "COMMA"):
                k += 1
        attrs: dict = {}
        while k < len(it) and isinstance(it[k], Group) and it[k].open == "{":
            attrs.update(_attr_dict(self.ctx, it[k]))
            k += 1
        if k >= len(it) or not _is(it[k], "COLON"):
            raise self.ctx.missing(raw, "': T to T'") if k >= len(it) else self.ctx.err(
                it[k], f"unexpected {_show(it[k])}; expected ':'")
        in_t, out_t = self.types.signature(it[k + 1:])
        missing = [p for p in ("offset", "sizes", "strides") if p not in parts]
        if missing:
            raise self.ctx.err(raw.name, f"memref.reinterpret_cast needs {', '.join(missing)}")
        return Stmt("reinterpret", raw.name.text, ins=[_operand(self.ctx, [it[0]], {})], in_types=in_t,
                    out_types=out_t, attrs=attrs, extra=parts)


_FORMS = {
    "memref.reinterpret_cast": _Builder.reinterpret,
    "arith.constant": _Builder.constant,
    "scf.for": _Builder.scf_for,
    "scf.if": _Builder.scf_if,
    "scf.while": _Builder.scf_while,
    "scf.condition": _Builder.scf_condition,
    "scf.yield": _Builder.yield_,
    "return": _Builder.ret,
    "func.return": _Builder.ret,
    "func.call": _Builder.call, "call": _Builder.call,          # MLIR prints func.call as call inside func.func
    "pto.alloc_tile": _Builder.alloc,
    "pto.make_tensor_view": _Builder.make_view,
    "pto.partition_view": _Builder.part_view,
    "pto.subview": _Builder.part_view,
    "pto.subset": _Builder.subset,
    "pto.tassign": _Builder.tassign,
    "pto.set_validshape": _Builder.set_valid,
    "memref.alloc": _Builder.memref_alloc,
}


def build_program(raw: list, text: str, source: str | None) -> Program:
    """Raw operations -> a :class:`Program` (functions, loose statements, module attributes)."""
    b = _Builder(_Ctx(text, source))
    prog = Program([], [], {}, source)
    b.top(raw, prog)
    return prog
