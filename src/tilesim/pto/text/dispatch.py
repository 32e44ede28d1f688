"""How a DPS op's ``ins``/``outs``/attributes become a call of its function in :data:`~tilesim.pto.OPS`.

One rule for every op: the function's positional parameters (destination
first, as every op function is written) take ``outs`` then ``ins`` in order;
an attribute becomes the keyword argument of its snake_case name
(``cmpMode`` -> ``cmp_mode``, ``isBinary`` -> ``is_binary``); a PTOAS op whose
``ins`` holds an optional ``tmp`` tile (:data:`TMP_SLOT`) passes it as
``tmp=`` when the function takes one and drops it otherwise (decision PTO10:
tmp is never written). The few differences are data, below.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache

from ...errors import TilesimError
from ..tile import Tile

__all__ = ["call_op", "arrange", "TMP_SLOT", "ATTR_ALIASES", "IGNORED_ATTRS", "enum_word", "snake"]

#: position of the optional tmp tile within a PTOAS op's ins(...) (PTOAS PTOOps.td operand order)
TMP_SLOT = {
    **{op: 1 for op in ("trowsum", "trowmax", "trowmin", "trowprod", "tcolsum", "trowargmax", "trowargmin",
                        "tcolargmax", "tcolargmin", "trsqrt", "tcvt", "ttrans")},
    **{f"trowexpand{k}": 2 for k in ("div", "expdif", "max", "min", "mul", "sub")},
    "tsel": 3, "tsels": 2, "trem": 2, "trems": 2, "txor": 2, "txors": 2, "tprelu": 2, "tsort32": 2,
}
#: a second destination that the function takes by keyword (value+index arg reductions)
MULTI_OUT_KW = {op: "dst_val" for op in ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin")}
#: ops whose second ``outs`` operand is a keyword (TGATHER's compare form: outs(%dst, %cdst), PTO159)
SECOND_OUT_KW = {"tgather": "cdst"}
#: PTOAS attribute -> parameter name, where snake_case is not the name
ATTR_ALIASES = {"sat_mode": "sat", "atomicType": "atomic", "cmpMode": "cmp_mode", "outType": "out_dtype"}
#: ops whose global arrays a program's tensors fill one element a lane (fp4 unpacked, PTO153)
PACKED_ARRAYS = frozenset({"tload", "tstore"})
#: attributes that carry no semantics tilesim models (layout hints, MLIR bookkeeping)
IGNORED_ATTRS = frozenset({"operandSegmentSizes", "resultSegmentSizes", "layout", "inferred_layout",
                           "pto.inferred_layout"})


def snake(name: str) -> str:
    """``accToVecMode`` -> ``acc_to_vec_mode``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def enum_word(v):
    """``#pto<cmp lt>`` -> ``lt``; ``#pto.round_mode<CAST_RINT>`` -> ``CAST_RINT``; others unchanged."""
    if isinstance(v, str) and v.startswith("#") and "<" in v and v.endswith(">"):
        return v[v.index("<") + 1: -1].strip().split()[-1]
    return v


def _convert(param: str, v):
    v = enum_word(v)
    if param == "sat":
        return {"ON": True, "OFF": False}.get(str(v).upper(), v) if not isinstance(v, bool) else v
    if param == "cmp_mode":
        return str(v).lower()
    return v


@lru_cache(maxsize=None)
def _params(fn) -> tuple[tuple, frozenset, frozenset, tuple]:
    """(positional names, keyword names, required positional names, required keyword-only names) of an op
    function, ``target`` excluded."""
    pos, kw, req, req_kw = [], set(), set(), []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "target":
            continue
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            pos.append(p.name)
            kw.add(p.name)
            if p.default is p.empty:
                req.add(p.name)
        elif p.kind == p.KEYWORD_ONLY:
            kw.add(p.name)
            if p.default is p.empty:
                req_kw.append(p.name)
    return tuple(pos), frozenset(kw), frozenset(req), tuple(req_kw)


@lru_cache(maxsize=None)
def _variadic(fn) -> bool:
    """Whether ``fn`` takes ``*operands`` (an op with several operand forms, e.g. TMRGSORT)."""
    return any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values())


def _fail(op: str, detail: str, operand: str, value=None, rule: str = "pto.interp.operands") -> TilesimError:
    return TilesimError(detail, instruction=op.upper(), operand=operand, rule=rule, value=value)


def call_op(name: str, fn, outs: list, ins: list, attrs: dict, target):
    """Call ``fn`` (the op ``name``'s function) with DPS operands and attributes.

    Raises:
        TilesimError: the operand count does not fit the op (``pto.interp.operands``), or an attribute
            the op does not take (``pto.interp.attr``).
    """
    slot = TMP_SLOT.get(name)
    tmp_tile = slot is not None and slot < len(ins) and isinstance(ins[slot], Tile)
    order, kw_slots, kw = arrange(name, fn, len(outs), len(ins), tmp_tile, attrs)
    operands = [*outs, *ins]
    return fn(*[operands[i] for i in order], **kw, **{p: operands[i] for p, i in kw_slots}, target=target)


def arrange(name: str, fn, n_outs: int, n_ins: int, tmp_tile: bool, attrs: dict) -> tuple[list, list, dict]:
    """How :func:`call_op` passes ``n_outs`` outs then ``n_ins`` ins (``tmp_tile``: the op's tmp slot holds a
    tile) and ``attrs`` to ``fn``: (operand indices of the positional arguments, (keyword, operand index)
    pairs, converted attribute keywords). It depends on nothing else, so a prepared statement keeps it.

    Raises:
        TilesimError: as :func:`call_op`.
    """
    pos, kws, req, req_kw = _params(fn)
    kw: dict = {"packed": False} if name in PACKED_ARRAYS else {}
    for key, v in attrs.items():
        if key in IGNORED_ATTRS:
            continue
        param = ATTR_ALIASES.get(key, snake(key))
        if param not in kws:
            raise _fail(name, f"attribute {key} is not one tilesim's {name.upper()} takes (it takes "
                              f"{', '.join(sorted(kws - set(pos))) or 'none'})", key, v, "pto.interp.attr")
        kw[param] = _convert(param, v)
    for param in req_kw:
        if param not in kw:
            written = next((a for a, p in ATTR_ALIASES.items() if p == param), param)
            raise _fail(name, f"needs the attribute {written} ({{{written} = ...}})", written, None,
                        "pto.interp.attr")
    outs, ins = list(range(n_outs)), list(range(n_outs, n_outs + n_ins))
    kw_slots = []
    if name in MULTI_OUT_KW and len(outs) == 2:
        kw_slots.append((MULTI_OUT_KW[name], outs.pop(0)))
    if name in SECOND_OUT_KW and len(outs) == 2:
        kw_slots.append((SECOND_OUT_KW[name], outs.pop(1)))
    taken = set(kw) | {p for p, _ in kw_slots}
    free = [p for p in pos if p not in taken]
    slot = TMP_SLOT.get(name)
    if tmp_tile and len(outs) + len(ins) > len([p for p in free if p != "tmp"]):
        tmp = ins.pop(slot)
        if "tmp" in kws and "tmp" not in taken:
            kw_slots.append(("tmp", tmp))
            taken.add("tmp")
        free = [p for p in free if p not in taken]
    args = outs + ins
    if len(args) > len(free) and not _variadic(fn):
        raise _fail(name, f"takes {len(free)} operands ({', '.join(free)}), got {len(args)} "
                          f"({len(outs)} in outs, {len(ins)} in ins)", "operands", len(args))
    missing = [p for p in free[len(args):] if p in req]
    if missing:
        raise _fail(name, f"needs {len(free)} operands ({', '.join(free)}); {', '.join(missing)} "
                          f"{'is' if len(missing) == 1 else 'are'} missing", missing[0], len(args))
    return args, kw_slots, kw
