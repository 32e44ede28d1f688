"""Module-level checks PTOAS's verifier makes before any code runs, over every function (run or not).

Each check is one rule a PTOAS negative test relies on (PTOAS ``lib/PTO/IR``
verifiers and passes; decision PTO34):

* ``pto.view.result_shape``: a ``partition_view`` with constant sizes must
  name those sizes in its static result type of the same rank.
* ``pto.pipe.valid_shape``: a ``tpop`` given valid_row/valid_col operands
  must have a dynamic (``?``) valid shape in its result type.
* ``pto.pipe.local_addr``: ``initialize_l2l_pipe`` without ``flag_base``
  takes its local address from ``reserve_buffer``/``import_reserved_buffer``.
* ``pto.pipe.peer``: a function whose pipe uses a reserved buffer needs its
  peer function (linked by ``peer_func``) to initialise its side too.
* ``pto.pipe.split``: the TPUSH/TPOP/TFREE of a peer group do not mix split 0 with split 1/2.
* ``pto.pipe.nosplit``: ``nosplit = false`` contradicts users with split 0.
* ``pto.async.shape``: ``tput_async``'s destination is a static 1-D GM memref.
* ``pto.op.target``: an op the target does not have (``Profile.absent_ops``, e.g.
  THISTOGRAM on A2A3), found before any tile is placed (PTO43).
* ``pto.op.dtype``: the compare form of TGATHER (two ``outs``) takes a src dtype the
  target's ``tgather_compare`` table lacks (PTO43).
* ``pto.op.loc``: TGET_SCALE_ADDR writes a ``scaling`` tile (pto-isa docs/isa/TGET_SCALE_ADDR.md).
* ``pto.tquant.quant_type`` / ``pto.tquant.offset``: TQUANT's dst dtype (i8 for INT8_SYM, u8 for INT8_ASYM)
  and its offset operand (INT8_ASYM only) agree with quant_type, checked before any tile is placed, in
  the order of PTOAS's TQuantOp verifier (PTOAS lib/PTO/IR/PTO.cpp).
* ``pto.tstore.count``: a TSTORE from a ``tile_buf`` with a static valid shape to a static
  ``partition_tensor_view`` stores as many elements as the view holds (PTOAS TStoreOp::verify; a
  1x1024 tile may still fill a 32x32 view).
* ``pto.mem.reserve_manual``: ``reserve_buffer`` with ``auto = false`` (a hand-given ``base``) only at
  level3, where nothing is planned; below it the planner places local memory (PTOAS PlanMemory, PTO66).
"""

from __future__ import annotations

import math

from ...errors import DtypeError, ParseError
from ..dtypes import get_dtype
from ..ops.quant import QUANT_DST, quant_type_name
from .parser import Program, Shape, Stmt, TypeRef
from .types import memref_location, memref_shape

__all__ = ["verify", "walk"]

_INITS = ("pto.initialize_l2l_pipe", "pto.aic_initialize_pipe", "pto.aiv_initialize_pipe",
          "pto.initialize_l2g2l_pipe")
_RESERVED = ("pto.reserve_buffer", "pto.import_reserved_buffer")
_SPLIT_USERS = ("pto.tpush", "pto.tpop", "pto.tfree", "pto.tpush_to_aiv", "pto.tpush_to_aic", "pto.tpop_from_aic",
                "pto.tpop_from_aiv", "pto.tfree_from_aic", "pto.tfree_from_aiv")


def walk(stmts):
    """Every statement of ``stmts``, depth first, regions included."""
    for st in stmts or []:
        yield st
        for r in st.regions:
            yield from walk(r)


def _err(program: Program, st, detail: str, rule: str) -> ParseError:
    return ParseError(detail, instruction=getattr(st, "op", None) or "pto.verify", rule=rule,
                      source=program.source, line=st.line or 1, column=st.column or 1)


def _operand_names(st: Stmt) -> list[str]:
    """Values an op names: its operands and those of a keyword operand group ``(k = %v : T, ...)``."""
    names = [o.name for o in st.ins if getattr(o, "kind", None) == "value"]
    syn = st.extra.get("syn")
    group = getattr(syn, "kw", {}).get("(") if syn is not None else None
    for tok in getattr(group, "items", []) or []:
        if getattr(tok, "type", None) == "VALUE":
            names.append(tok.text[1:])
    return names


def _int_attr(st: Stmt, key: str):
    v = st.attrs.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def verify(program: Program, prof=None, level: str | None = None) -> None:
    """Raise the first rule any function of ``program`` breaks (see the module docstring).

    prof: the target profile the program will run on (its ``absent_ops``), or None.
    level: the PTOAS level it runs at (``"level3"``: no memory planning), or None (planned).
    """
    consts: dict = {}
    funcs = {f.name: f for f in program.funcs if f.body is not None}
    for f in funcs.values():
        defs = {}
        for st in walk(f.body):
            for r in st.results:
                defs[r] = st
            if st.kind == "constant" and st.ins and getattr(st.ins[0], "kind", None) == "literal":
                for r in st.results:
                    consts[r] = st.ins[0].value
        for st in walk(f.body):
            _check_stmt(program, st, defs, consts)
            if level != "level3" and st.op == "pto.reserve_buffer" and st.attrs.get("auto", True) is False:
                raise _err(program, st, "cannot use pto.reserve_buffer with auto = false (explicit 'base') when "
                                        "local memory still requires PlanMemory allocation: set auto = true and "
                                        "omit base, or run at level3", "pto.mem.reserve_manual")
            if prof is not None:
                _check_target(program, st, prof)
    _check_peers(program, funcs)


def _check_stmt(program: Program, st: Stmt, defs: dict, consts: dict) -> None:
    if st.kind == "part_view" and st.out_types:
        ty: TypeRef = st.out_types[0]
        shape = next((v for _, v in ty.params if hasattr(v, "dims")), None)
        sizes = [_const(o, consts) for o in st.extra.get("sizes", [])]
        if shape is not None and None not in sizes and all(d is not None for d in shape.dims) \
                and len(shape.dims) == len(sizes) and list(shape.dims) != sizes:     # PTOAS skips other ranks
            raise _err(program, st, f"sizes {sizes} do not match the result type {ty.text()}",
                       "pto.view.result_shape")
    if st.op in ("pto.tpop", "pto.tpop_from_aic", "pto.tpop_from_aiv") and st.ins and st.out_types:
        v = (st.out_types[0].param("v_row"), st.out_types[0].param("v_col"))
        if st.out_types[0].name == "!pto.tile_buf" and v != ("?", "?") and v != (-1, -1):
            raise _err(program, st, "with valid_row/valid_col operands the result tile needs a dynamic valid shape "
                                    "(v_row=?, v_col=?)", "pto.pipe.valid_shape")
    if st.op == "pto.initialize_l2l_pipe" and "flag_base" not in st.attrs:
        for n in _operand_names(st):
            d = defs.get(n)
            if d is None or d.op not in _RESERVED:
                raise _err(program, st, f"the local address %{n} must come from pto.reserve_buffer or "
                                        "pto.import_reserved_buffer when flag_base is not given",
                           "pto.pipe.local_addr")
    if st.op == "pto.tquant":
        _check_tquant(program, st)
    if st.op == "pto.tstore" and st.in_types and st.out_types:
        _check_tstore(program, st)
    if st.op == "pto.tput_async" and st.in_types:
        ty = st.in_types[0]
        if ty.name == "memref" and memref_location(ty) is None:
            dims = memref_shape(ty).dims
            if len(dims) != 1 or None in dims:
                raise _err(program, st, f"the destination {ty.text()} must be a static 1-D GM memref",
                           "pto.async.shape")


def _check_tquant(program: Program, st: Stmt) -> None:
    qt = quant_type_name(st.attrs.get("quant_type", 0))
    if qt is None or not st.out_types:
        return                                   # the run reports a bad quant_type
    dt = _dtype_of(st.out_types[0])
    if dt is not None and dt != QUANT_DST[qt]:
        raise _err(program, st, f"expects dst element type {QUANT_DST[qt]} for {qt} quantization, not {dt}",
                   "pto.tquant.quant_type")
    if (len(st.ins) == 3) != (qt == "INT8_ASYM"):
        raise _err(program, st, f"{qt} quantization requires an offset operand (ins(src, fp, offset))"
                   if qt == "INT8_ASYM" else f"{qt} quantization must not have an offset operand (ins(src, fp))",
                   "pto.tquant.offset")


def _valid_dims(ty: TypeRef) -> tuple | None:
    """The valid shape a written tile_buf type names (None entries where it says ``?``), or None (other types)."""
    if ty.name != "!pto.tile_buf" or not ty.params:
        return None
    if ty.params[0][0] == "loc":
        return tuple(None if v in ("?", -1) else v for v in (ty.param("v_row"), ty.param("v_col")))
    valid = ty.param("valid")
    shape = valid if isinstance(valid, Shape) else ty.params[1][1] if len(ty.params) > 1 else None
    return tuple(shape.dims) if isinstance(shape, Shape) else None


def _check_tstore(program: Program, st: Stmt) -> None:
    valid, dst = _valid_dims(st.in_types[0]), st.out_types[0]
    shape = next((v for _, v in dst.params if isinstance(v, Shape)), None)
    if dst.name != "!pto.partition_tensor_view" or not valid or shape is None:
        return
    counts = [math.prod(d) if d and all(isinstance(x, int) and x > 0 for x in d) else None
              for d in (shape.dims, valid)]
    if None not in counts and counts[0] != counts[1]:
        raise _err(program, st, f"expects dst static element count ({counts[0]}, {dst.text()}) to match src "
                                f"valid_shape static element count ({counts[1]}, valid {'x'.join(map(str, valid))})",
                   "pto.tstore.count")


def _dtype_of(ty) -> str | None:
    """The dtype a written tile_buf or local memref type names, or None (other types; spellings the run reports)."""
    if ty is not None and ty.name == "memref" and ty.params and isinstance(ty.params[0][1], Shape):
        dt = ty.params[0][1].elem
    else:
        dt = ty.param("dtype") if ty is not None and ty.name == "!pto.tile_buf" else None
    try:
        return get_dtype(dt).name if isinstance(dt, str) else None
    except DtypeError:
        return None


def _check_target(program: Program, st: Stmt, prof) -> None:
    """Static per-target rules read from the op's written types (PTO43)."""
    if st.op and st.op.removeprefix("pto.") in prof.absent_ops:
        raise _err(program, st, f"{st.op} is not available on target {prof.name}", "pto.op.target")
    if st.op == "pto.tgather" and len(st.outs) == 2 and st.in_types:
        dt = _dtype_of(st.in_types[0])
        allowed = sorted(s[0] for s in prof.dtypes["tgather_compare"])
        if dt is not None and dt not in allowed:
            raise _err(program, st, f"the compare form of TGATHER on {prof.name} takes a src of "
                                    f"{', '.join(allowed)}, not {dt}", "pto.op.dtype")
    if st.op == "pto.tget_scale_addr" and st.out_types and st.out_types[0].name == "!pto.tile_buf":
        loc = st.out_types[0].param("loc")
        if loc != "scaling":
            raise _err(program, st, f"TGET_SCALE_ADDR writes a scaling tile, not a {loc} tile", "pto.op.loc")


def _const(o, consts: dict):
    if isinstance(o, tuple):
        return o[1] if o[0] == "int" else consts.get(o[1])
    if getattr(o, "kind", None) == "literal":
        return o.value
    return consts.get(getattr(o, "name", None))


def _check_peers(program: Program, funcs: dict) -> None:
    peers: dict[str, set] = {n: set() for n in funcs}
    inits: dict[str, list] = {n: [] for n in funcs}
    splits: dict[str, list] = {n: [] for n in funcs}
    for name, f in funcs.items():
        for st in walk(f.body):
            peer = st.attrs.get("peer_func")
            if isinstance(peer, str) and peer.lstrip("@") in funcs:
                peers[name].add(peer.lstrip("@"))
                peers[peer.lstrip("@")].add(name)
            if st.op in _INITS:
                inits[name].append(st)
            if st.op in _SPLIT_USERS and _int_attr(st, "split") is not None:
                splits[name].append(st)
    for name, f in funcs.items():
        for st in inits[name]:
            uses_reserved = any(s.op in _RESERVED for s in walk(f.body))
            missing = [p for p in sorted(peers[name]) if not inits[p]]
            if uses_reserved and missing:
                raise _err(program, st, f"the pipe's peer @{missing[0]} has no pipe initialisation (a complete "
                                        "peer init pair is needed with reserved buffers)", "pto.pipe.peer")
            group = [name, *sorted(peers[name])]
            users = [s for g in group for s in splits[g]]
            if st.attrs.get("nosplit") is False and any(_int_attr(s, "split") == 0 for s in users):
                raise _err(program, st, "nosplit = false, but TPUSH/TPOP users of this pipe use split = 0",
                           "pto.pipe.nosplit")
            used = sorted({_int_attr(s, "split") for s in users})
            if 0 in used and len(used) > 1:
                raise _err(program, st, f"the peer functions use splits {used}: split 0 (whole tiles) cannot be "
                                        "mixed with split 1/2 on one pipe", "pto.pipe.split")
