"""The ``.pto`` forms of the convolution and configuration ops (decision PTO187).

* ``!pto.conv_tile<LOC, NxC1xHxWxC0xT[, key=value ...]>``: a :class:`~tilesim.pto.conv.ConvTile`. The shape
  is the layout's dimensions (six, ``NxDxC1xHxWxC0``, for ``layout=NDC1HWC0``); the settings are the
  ConvTile's keyword arguments by name (``fmap_h=4``, ``pad_list=[1, 1, 0, 0]``, ``pad_value=-1.0``,
  ``transpose=true``). It is the operand the SET_* pages call an IMG2COL configuration tile (their
  ``!pto.fmatrix_config``, which neither pto-isa nor PTOAS defines). A function argument of this type is
  filled from an input array of the shape; ``pto.alloc_tile`` makes one of zeros.
* ``pto.setfmatrix``, ``pto.set_img2col_padding``, ``pto.set_img2col_rpt`` (``ins(%cfg)``),
  ``pto.set_quant_scalar`` (``ins(%s : f32) {outType = i8}``), ``pto.set_quant_vector`` (``ins(%fp)``) and
  ``pto.timg2col`` (``ins(%src[, %posM, %posK]) outs(%dst)``) call their :mod:`tilesim.pto` functions with the
  running block's registers; a ``mode = #pto<fmatrix_mode a_manual>`` attribute picks the bank.
* ``%e = pto.tprefetch_async ins(%src[, %workspace])``: global memory in, an event out (PTO142).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...errors import ParseError, TilesimError
from ..conv import BlockConfig, ConvTile
from ..ops import OPS
from ..ops.config import set_quant_scalar, set_quant_vector
from ..ops.img2col import set_img2col_padding, set_img2col_rpt, setfmatrix
from .parser import Shape, TypeRef
from .values import Opaque, PartView, Ptr, TensorView, kind_of

__all__ = ["CONV_TYPE", "CONFIG_OPS", "REGISTER_OPS", "PAGE_SPELLINGS", "conv_tile", "with_registers",
           "tprefetch_async"]

CONV_TYPE = "!pto.conv_tile"
#: the ops that write a block's configuration registers and no tile (not in :data:`~tilesim.pto.OPS`)
CONFIG_OPS = {f.__name__: f for f in (setfmatrix, set_img2col_padding, set_img2col_rpt, set_quant_scalar,
                                      set_quant_vector)}
#: ops that read or write the registers: the interpreter passes the running block's
REGISTER_OPS = frozenset({*CONFIG_OPS, "timg2col"})
#: op names as an ISA page spells them, where that is not PTOAS's lower case
PAGE_SPELLINGS = {"SETFMATRIX": "setfmatrix"}
_BOOLS = {"true": True, "false": False}


def _err(ty: TypeRef, detail: str) -> ParseError:
    return ParseError(detail, instruction="pto.type", operand=ty.text(), rule="pto.parse.conv_tile")


def _setting(ty: TypeRef, key: str, v):
    """A written setting as ConvTile takes it: lists as tuples, true/false as bools, a number exactly."""
    if isinstance(v, list):
        return tuple(_setting(ty, key, x) for x in v)
    if isinstance(v, str) and v in _BOOLS:
        return _BOOLS[v]
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return int(v)
        if Fraction(float(v)) != v:
            raise _err(ty, f"{key} = {float(v)!r} is not exactly a binary64 number; write one that is (it is then "
                           "rounded once to the tile's dtype)")
        return float(v)
    return v


def conv_tile(ty: TypeRef | None, source: str | None = None) -> ConvTile | None:
    """The ConvTile a ``!pto.conv_tile`` type describes (zeros); None for any other type.

    Raises:
        ParseError: ``pto.parse.conv_tile`` (the type's form), or ConvTile's own rules (``pto.convtile.*``,
            ``pto.tile.loc``), at the type's place in ``source``.
    """
    if ty is None or ty.name != CONV_TYPE:
        return None
    try:
        return _conv_tile(ty)
    except TilesimError as e:
        raise e.at(source=source, line=ty.line, column=ty.column) from None


def _conv_tile(ty: TypeRef) -> ConvTile:
    params = list(ty.params)
    if len(params) < 2 or params[0][0] is not None or params[1][0] is not None or not isinstance(
            params[1][1], Shape) or params[1][1].elem is None or None in params[1][1].dims:
        raise _err(ty, "a conv_tile type starts with a location and its static shape with the dtype "
                       "(e.g. !pto.conv_tile<mat, 1x1x4x4x16xf16>)")
    kw: dict = {}
    for k, v in params[2:]:
        if k is None:
            raise _err(ty, f"after the location and shape, a conv_tile type takes key=value settings, not {v!r}")
        if k in kw:
            raise _err(ty, f"duplicate {k}; give each setting once")
        kw[k] = _setting(ty, k, v)
    shape = params[1][1]
    return ConvTile(shape.elem, shape.dims, str(kw.pop("layout", "NC1HWC0")), loc=str(params[0][1]), **kw)


def with_registers(op: str, attrs: dict, registers: BlockConfig) -> dict:
    """An op's attributes with the running block's registers as ``config`` (which a program may not write)."""
    if "config" in attrs:
        raise TilesimError("the registers are the running block's; a program does not name them", instruction=op,
                           operand="config", rule="pto.interp.attr", value=attrs["config"])
    return {**attrs, "config": registers}


def _global(v, op: str, operand: str, contiguous: bool):
    """A global-memory operand as the numpy array of its elements (a view's elements in order)."""
    if isinstance(v, Ptr):
        return v.glob.lanes.view(v.glob.dtype.np)
    if isinstance(v, TensorView):
        v = v.window()
    if not isinstance(v, PartView):
        return v                                               # the op function names what it is
    idx = v.flat_index().ravel()
    if contiguous and idx.size and not np.array_equal(idx, np.arange(idx[0], idx[0] + idx.size)):
        raise TilesimError("src must be flat contiguous (a packed 1-D region); this view has gaps between its "
                           "rows", instruction=op, operand=operand, rule="pto.prefetch.contiguous",
                           value=v.sizes)
    g = v.view.ptr.glob
    return g.lanes[idx].view(g.dtype.np)


def tprefetch_async(it, st, env, frame) -> None:
    """``%e = pto.tprefetch_async ins(%src[, %workspace])``: :func:`tilesim.pto.tprefetch_async`'s checks on the
    view (and the workspace, a ``u8`` pointer or view); binds an event that ``pto.wait_async_event`` takes."""
    if st.outs or len(st.ins) not in (1, 2) or len(st.results) > 1:
        raise TilesimError(f"takes ins(%src[, %workspace]) and no outs, and gives at most one event; got "
                           f"{len(st.ins)} in ins, {len(st.outs)} in outs", instruction=st.op, operand="operands",
                           rule="pto.interp.operands", value=len(st.ins))
    vals = [it._get(env, o, st) for o in st.ins]
    src = _global(vals[0], st.op, "src", contiguous=True)
    ws = _global(vals[1], st.op, "workspace", contiguous=False) if len(vals) > 1 else None
    if len(vals) > 1 and not isinstance(ws, np.ndarray):
        raise TilesimError(f"workspace must be a u8 pointer or view, not {kind_of(vals[1])}", instruction=st.op,
                           operand="workspace", rule="pto.prefetch.workspace", value=kind_of(vals[1]))
    event = OPS["tprefetch_async"](src, ws, target=it.prof)
    if st.results:
        it._bind(env, st, [Opaque("event", {"done": True, "nbytes": event.nbytes})])
