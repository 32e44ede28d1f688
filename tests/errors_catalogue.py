"""Build docs/errors.md from the source: every error category and every rule id, with where it is raised
and the message it gives. The page is generated, so it cannot go stale (tests/test_errors_docs.py checks it):

    python -m tests.errors_catalogue > docs/errors.md

Rule ids are found with ``ast``: a ``rule=`` keyword, or the argument in a helper's ``rule`` position
(``ln.error(col, detail, "ame.asm.tile")``); an f-string id (``tt.stall.{name}``) is shown with ``*``.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections import defaultdict
from pathlib import Path

from tilesim import errors

SRC = Path(__file__).resolve().parents[1] / "src" / "tilesim"
_RULE = re.compile(r"[a-z0-9_]+(\.[a-z0-9_*]+)+$")
_MESSAGE_PARAMS = ("detail", "msg", "message", "why")


def _text(node: ast.AST | None) -> str:
    """A message argument as it reads in the source: f-string fields become ``{...}``."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return "{" + ast.unparse(node) + "}"


def _rule(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _RULE.match(node.value):
        return node.value
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
        return text if _RULE.match(text) else None
    return None


def _name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _error_classes() -> set[str]:
    """Names of every TilesimError subclass in the package (``BadGeom`` included)."""
    import tilesim.ame, tilesim.pto, tilesim.tensix  # noqa: E401, F401  (register their error classes)

    seen, todo = set(), [errors.TilesimError]
    while todo:
        c = todo.pop()
        seen.add(c.__name__)
        todo += c.__subclasses__()
    return seen


def _helpers(trees) -> dict[str, list[tuple[int, int | None, str]]]:
    """Functions with a ``rule`` parameter: name -> [(rule position, message position, error class raised)], one
    entry per function of that name (``op.fail`` and the hex reader's ``fail`` put the rule in different places)."""
    out = defaultdict(list)
    classes = _error_classes()
    for tree in trees.values():
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            params = [a.arg for a in fn.args.args if a.arg != "self"]
            if "rule" not in params:
                continue
            msg = next((params.index(p) for p in _MESSAGE_PARAMS if p in params), None)
            raised = next((_name(c.func) for c in ast.walk(fn) if isinstance(c, ast.Call)
                           and _name(c.func) in classes), "")
            defaults = dict(zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults))
            if not raised and "cls" in defaults:  # raise cls(...), with a default class
                raised = _name(defaults["cls"])
            out[fn.name].append((params.index("rule"), msg, raised))
    return out


def _categories() -> list[type]:
    return [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, errors.TilesimError)]


def rules() -> dict[str, list[tuple[str, str, str]]]:
    """rule id -> [(error class, module, message as written)] for every place it is raised."""
    trees = {p: ast.parse(p.read_text()) for p in sorted(SRC.rglob("*.py"))}
    helpers = _helpers(trees)
    classes = _error_classes()
    found: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for path, tree in trees.items():
        module = "tilesim." + ".".join(path.relative_to(SRC).with_suffix("").parts)
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            name = _name(call.func)
            kw = {k.arg: k.value for k in call.keywords}
            rule, msg, cls = None, None, name if name in classes else ""
            if "rule" in kw:
                rule = _rule(kw["rule"])
                msg = call.args[0] if call.args else kw.get("detail")
            else:  # the first helper of that name whose rule position holds a rule id
                for pos, mpos, raised in helpers.get(name, ()):
                    rule = _rule(call.args[pos]) if pos < len(call.args) else None
                    if rule is not None:
                        cls = _name(kw["cls"]) if "cls" in kw else raised
                        msg = call.args[mpos] if mpos is not None and mpos < len(call.args) else None
                        break
            if rule is not None:
                found[rule].append((cls, module, " ".join(_text(msg).split())))
    return dict(sorted(found.items()))


def markdown() -> str:
    """The whole page."""
    out = ["# Errors", "",
           "Every error tilesim raises is a `TilesimError` (`tilesim.errors`) with the instruction, the",
           "operand, a stable **rule id**, the offending value and, for text, `file:line:column`. The",
           "command line prints it as one line (plus the source line and a caret for text files) and",
           "exits with status 2; `tilesim --debug ...` shows the traceback instead; anything else that",
           "escapes a command is a bug and says so (status 3). See the E entries of decisions.md.", "",
           "This page is generated from the source by `python -m tests.errors_catalogue > docs/errors.md`;",
           "a test fails when it is out of date.", "", "## Categories", "",
           "| class | category | also a | meaning |", "|---|---|---|---|"]
    for c in sorted(_categories(), key=lambda c: (c is not errors.TilesimError, c.__name__)):
        builtin = ", ".join(b.__name__ for b in c.__mro__[1:] if b.__module__ == "builtins" and b not in (
            Exception, BaseException, object))
        doc = (c.__doc__ or "").strip().splitlines()[0]
        out.append(f"| `{c.__name__}` | {c.category} | {builtin or '-'} | {doc} |")
    out += ["", "## Rule ids", "",
            "Each id with the class that raises it, where, and its message as written in the source",
            "(`{...}` is filled in with the actual values; a `*` in an id is a register or field name).", "",
            "| rule | class | raised in | message |", "|---|---|---|---|"]
    for rule, sites in rules().items():
        cls = next((c for c, _, _ in sites if c), "")
        mods = sorted({m for _, m, _ in sites})
        msg = next((m for _, _, m in sites if m), "").replace("|", "\\|")
        where = ", ".join(f"`{m}`" for m in mods[:2]) + (f" (+{len(mods) - 2})" if len(mods) > 2 else "")
        out.append(f"| `{rule}` | {f'`{cls}`' if cls else '-'} | {where} | {msg[:160]} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
