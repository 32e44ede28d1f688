"""Communication between blocks: TPUT, TGET (and their async forms), TNOTIFY, TWAIT, TTEST, TBROADCAST, TREDUCE,
and the collective TGATHER and TSCATTER.

pto-isa's ``docs/isa/comm`` instructions move data between the global
memory of ranks (NPUs). tilesim's ranks are the blocks of one run
(``tilesim run --blocks N``), and its global memory model is decision
PTO155: one global memory that every block addresses, so a "remote" address
is any view a block makes (for example at an offset of ``get_block_idx``).
Here each instruction is a function on numpy arrays of global memory (of any
shape; a view of a bigger array writes through):

* ``tput(dst, src, staging, atomic=)``, ``tget(dst, src, staging)``: copy
  ``src`` to ``dst`` element by element as bits; ``atomic="add"`` adds
  ``src`` to ``dst`` in the staging tile's dtype (its arithmetic on the
  target, as TSTORE's atomic add). The staging tile is checked as pto-isa's
  static asserts do and left unchanged (what the CPU simulator does; on an NPU
  it holds the last chunk, which the ISA does not define).
* ``tput_async``/``tget_async``: the same copy, complete when issued (PTO156).
* ``tnotify(signal, value, op=)``: ``set`` or ``atomic_add`` (int32, wrapping)
  on a one-element int32 signal.
* ``ttest(signal, cmp_value, cmp=)``: whether every element of the int32
  signal (tensor) compares true against ``cmp_value``; ``twait`` the same,
  but it waits: in a ``--blocks`` run the other blocks run until it holds;
  called alone, nothing else can change the signal, so a false condition is
  ``pto.comm.wait`` at once.
* ``tbroadcast(group, src, staging)``: copy ``src`` into every array of
  ``group``; ``treduce(group, dst, acc, recv, op=, root=)``: ``dst`` = the
  root's array combined with each other rank's in rank order (``sum``,
  ``max``, ``min``), through the two tiles by TLOAD, TADD/TMAX/TMIN and
  TSTORE, chunked to the tiles' valid shape as pto-isa does (PTO156).
* ``tgather(group, dst, staging)``: the root concatenates every rank's array
  along the row axis into ``dst``; ``tscatter(group, src, staging)`` the
  inverse (PTO184).
* The ping-pong forms: ``pong=`` a second staging tile for TPUT, TGET,
  TGATHER and TSCATTER, a second receive tile for TREDUCE (PTO185); the
  async forms' ``engine=`` (``sdma``, ``urma``, ``rdma``; PTO186).
"""

from __future__ import annotations

import numpy as np

from ..errors import DtypeError, GeometryError, StateError, TilesimError
from .targets import get_target
from .tile import Tile

__all__ = ["tput", "tget", "tput_async", "tget_async", "tnotify", "ttest", "twait", "tbroadcast", "treduce",
           "tgather", "tscatter", "DMA_ENGINES", "NOTIFY_OPS", "WAIT_CMPS", "REDUCE_OPS", "compare", "COMM_OPS"]

NOTIFY_OPS = ("set", "atomic_add")
#: TWAIT/TTEST comparisons (pto-isa ``comm::WaitCmp``): signal <cmp> value
WAIT_CMPS = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less,
             "le": np.less_equal}
REDUCE_OPS = {"sum": "tadd", "max": "tmax", "min": "tmin"}
#: TPUT_ASYNC/TGET_ASYNC's engines (pto-isa ``comm::DmaEngine``)
DMA_ENGINES = ("sdma", "urma", "rdma")
_I32 = (-(1 << 31), (1 << 31) - 1)


def _comm_error(inst: str, detail: str, operand: str, rule: str, value=None, cls=TilesimError):
    raise cls(detail, instruction=inst, operand=operand, rule=rule, value=value)


def _word(v) -> str:
    """``AtomicAdd``/``atomic_add``/``#pto.notify_op<AtomicAdd>`` -> ``atomic_add``; ``GE`` -> ``ge``."""
    s = str(v)
    if s.startswith("#") and "<" in s and s.endswith(">"):
        s = s[s.index("<") + 1: -1].strip().split()[-1]
    out = "".join("_" + c.lower() if c.isupper() and i and s[i - 1].islower() else c.lower()
                  for i, c in enumerate(s))
    return out.removeprefix("notify_").removeprefix("reduce_op_")


def _gm(inst: str, a, operand: str) -> np.ndarray:
    if not isinstance(a, np.ndarray):
        _comm_error(inst, "global memory must be a numpy array", operand, "pto.op.operand", type(a).__name__)
    if not a.flags.writeable and operand in ("dst", "signal"):
        _comm_error(inst, "the array is read-only", operand, "pto.op.operand", operand)
    return a


def _pair(inst: str, dst, src) -> tuple[np.ndarray, np.ndarray]:
    dst, src = _gm(inst, dst, "dst"), _gm(inst, src, "src")
    if dst.shape != src.shape:
        _comm_error(inst, f"dst {dst.shape} and src {src.shape} must have the same shape (the GlobalTensor shape is "
                    "the transfer size)", "src", "pto.comm.shape", src.shape, GeometryError)
    if dst.dtype.itemsize != src.dtype.itemsize:
        _comm_error(inst, f"dst has {dst.dtype.itemsize}-byte elements, src {src.dtype.itemsize}-byte ones; the two "
                    "GlobalTensors must share an element type", "src", "pto.mem.elem_size", str(src.dtype),
              DtypeError)
    return dst, src


def _staging(inst: str, t, gm: np.ndarray, operand: str = "staging", target=None) -> Tile:
    if not isinstance(t, Tile):
        _comm_error(inst, f"expected a Tile, got {type(t).__name__}", operand, "pto.op.operand", type(t).__name__)
    if t.loc != "vec":
        _comm_error(inst, f"the {operand} tile must be in the Unified Buffer (vec), not {t.loc}", operand, "pto.op.loc",
              t.loc)
    if t.dtype.size != gm.dtype.itemsize:
        _comm_error(inst, f"the {operand} tile's {t.dtype} must be the GlobalTensor's element type "
                    f"({gm.dtype.itemsize}-byte elements)", operand, "pto.mem.elem_size", str(t.dtype), DtypeError)
    return t


def _pong(inst: str, ping: Tile, pong, gm: np.ndarray, operand: str = "pong") -> Tile | None:
    """The ping-pong form's second tile: checked as the first, and of its dtype and shape (the pages: "the same
    type and dimensions", at another UB offset, so not the same tile)."""
    if pong is None:
        return None
    _staging(inst, pong, gm, operand)
    if pong is ping or pong.dtype != ping.dtype or (pong.rows, pong.cols) != (ping.rows, ping.cols):
        _comm_error(inst, f"the {operand} tile must be a second tile of the first one's type and dimensions "
                    f"({ping.dtype} {ping.rows}x{ping.cols})", operand, "pto.comm.pingpong",
                    "the same tile" if pong is ping else f"{pong.dtype} {pong.rows}x{pong.cols}")
    return pong


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _copy(inst: str, dst, src, *, atomic: str = "none", dt=None, target=None) -> np.ndarray:
    if atomic == "none":
        _bits(dst)[...] = _bits(src)
        return dst
    from . import numerics as nx
    p = get_target(target)
    _bits(dst)[...] = nx.binary("add", _bits(dst), _bits(src), dt, flush=p.flush_denormals, nan_mode=p.nan_mode,
                                instruction=inst, x86=p.x86_nans).view(_bits(dst).dtype)    # cpu: dst += src
    return dst


def tput(dst: np.ndarray, src: np.ndarray, staging: Tile, pong: Tile | None = None, *, atomic: str = "none",
         target=None) -> np.ndarray:
    """TPUT: write the local ``src`` to the remote ``dst`` through a UB staging tile; returns ``dst``.

    ``atomic``: ``none`` or ``add`` (pto-isa ``AtomicType``; ``atomic_add``/``AtomicAdd`` also read).
    ``pong``: the ping-pong form's second staging tile (``staging`` is the ping tile); the values are the same.
    Raises: ``pto.op.operand``, ``pto.comm.shape``, ``pto.mem.elem_size``, ``pto.op.loc``, ``pto.comm.atomic``,
    ``pto.comm.pingpong``.

    >>> import numpy as np
    >>> out = tput(np.zeros((1, 8), np.float32), np.ones((1, 8), np.float32), Tile("vec", "f32", 1, 8))
    >>> out.tolist()
    [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]
    """
    get_target(target)
    dst, src = _pair("TPUT", dst, src)
    t = _staging("TPUT", staging, src)
    _pong("TPUT", t, pong, src)
    a = _word(atomic).removeprefix("atomic_")
    if a not in ("none", "add"):
        _comm_error("TPUT", "atomic must be none or add (AtomicType AtomicNone/AtomicAdd)", "atomic", "pto.comm.atomic",
              atomic)
    return _copy("TPUT", dst, src, atomic=a, dt=t.dtype, target=target)


def tget(dst: np.ndarray, src: np.ndarray, staging: Tile, pong: Tile | None = None, *, target=None) -> np.ndarray:
    """TGET: read the remote ``src`` into the local ``dst`` through a UB staging tile (and ``pong``, the
    ping-pong form's second one); returns ``dst``.

    Raises: ``pto.op.operand``, ``pto.comm.shape``, ``pto.mem.elem_size``, ``pto.op.loc``, ``pto.comm.pingpong``.
    """
    get_target(target)
    dst, src = _pair("TGET", dst, src)
    _pong("TGET", _staging("TGET", staging, src), pong, src)
    return _copy("TGET", dst, src)


def _engine(inst: str, engine, prof) -> str:
    e = str(engine).rsplit("::", 1)[-1].lower()
    if e not in DMA_ENGINES or e not in prof.dma_engines:
        allowed = " or ".join(k for k in DMA_ENGINES if k in prof.dma_engines)
        _comm_error(inst, f"engine must be {allowed} on {prof.name} (DmaEngine; URMA and RDMA are NPU_ARCH 3510's)",
                    "engine", "pto.comm.engine", engine)
    return e


def tput_async(dst: np.ndarray, src: np.ndarray, *, engine: str = "sdma", target=None) -> np.ndarray:
    """TPUT_ASYNC: TPUT by a DMA engine (``engine``: sdma, urma or rdma), with no staging tile; complete when
    issued (PTO156, PTO186). Returns ``dst``. Raises also ``pto.comm.engine``."""
    _engine("TPUT_ASYNC", engine, get_target(target))
    return _copy("TPUT_ASYNC", *_pair("TPUT_ASYNC", dst, src))


def tget_async(dst: np.ndarray, src: np.ndarray, *, engine: str = "sdma", target=None) -> np.ndarray:
    """TGET_ASYNC: TGET by a DMA engine (``engine``: sdma, urma or rdma), with no staging tile; complete when
    issued (PTO156, PTO186). Returns ``dst``. Raises also ``pto.comm.engine``."""
    _engine("TGET_ASYNC", engine, get_target(target))
    return _copy("TGET_ASYNC", *_pair("TGET_ASYNC", dst, src))


def _signal(inst: str, signal, one: bool) -> np.ndarray:
    s = _gm(inst, signal, "signal")
    if s.dtype != np.int32:
        _comm_error(inst, f"a signal is int32 (GlobalSignalData::DType), not {s.dtype}", "signal", "pto.comm.signal",
              str(s.dtype), DtypeError)
    if s.size == 0 or (one and s.size != 1):
        _comm_error(inst, f"the signal must be {'one int32 element' if one else 'at least one int32 element'}; it has "
                    f"{s.size}", "signal", "pto.comm.signal", s.size, GeometryError)
    return s


def _i32(inst: str, v, operand: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not _I32[0] <= v <= _I32[1]:
        _comm_error(inst, "the value is an int32", operand, "pto.comm.value", v)
    return int(v)


def tnotify(signal: np.ndarray, value: int, *, op: str = "set", target=None) -> np.ndarray:
    """TNOTIFY: ``signal = value`` (``set``) or ``signal += value`` (``atomic_add``, wrapping); returns ``signal``.

    Raises: ``pto.comm.signal`` (not one int32 element), ``pto.comm.value``, ``pto.comm.notify_op``.

    >>> import numpy as np
    >>> tnotify(np.array([2147483647], np.int32), 1, op="atomic_add").tolist()
    [-2147483648]
    """
    get_target(target)
    s = _signal("TNOTIFY", signal, one=True)
    v = _i32("TNOTIFY", value, "value")
    o = _word(op)
    if o not in NOTIFY_OPS:
        _comm_error("TNOTIFY", "op must be set or atomic_add (NotifyOp Set/AtomicAdd)", "op", "pto.comm.notify_op", op)
    with np.errstate(over="ignore"):
        s[...] = np.int32(v) if o == "set" else (s.astype(np.int64) + v).astype(np.uint32).view(np.int32)
    return s


def _cmp(inst: str, cmp) -> str:
    c = _word(cmp)
    if c not in WAIT_CMPS:
        _comm_error(inst, "cmp must be one of " + ", ".join(WAIT_CMPS) + " (WaitCmp)", "cmp", "pto.comm.cmp", cmp)
    return c


def compare(signal: np.ndarray, cmp_value: int, cmp: str) -> bool:
    """Whether every element of ``signal`` compares true (``cmp`` a checked :data:`WAIT_CMPS` key)."""
    return bool(WAIT_CMPS[cmp](signal, np.int32(cmp_value)).all())


def ttest(signal: np.ndarray, cmp_value: int, *, cmp: str = "eq", target=None) -> bool:
    """TTEST: whether every element of the int32 ``signal`` satisfies ``signal <cmp> cmp_value`` (no wait).

    Raises: ``pto.comm.signal``, ``pto.comm.value``, ``pto.comm.cmp``.
    """
    get_target(target)
    s = _signal("TTEST", signal, one=False)
    return compare(s, _i32("TTEST", cmp_value, "cmp_value"), _cmp("TTEST", cmp))


def twait(signal: np.ndarray, cmp_value: int, *, cmp: str = "eq", target=None) -> None:
    """TWAIT: wait until every element of ``signal`` satisfies ``signal <cmp> cmp_value``.

    Called alone nothing else can change the signal, so a false condition raises ``pto.comm.wait``
    (StateError) rather than waiting for ever; in a ``.pto`` run of several blocks the others run meanwhile.
    Raises: ``pto.comm.signal``, ``pto.comm.value``, ``pto.comm.cmp``, ``pto.comm.wait``.
    """
    get_target(target)
    s = _signal("TWAIT", signal, one=False)
    v, c = _i32("TWAIT", cmp_value, "cmp_value"), _cmp("TWAIT", cmp)
    if not compare(s, v, c):
        raise wait_error("TWAIT", s, v, c, "nothing else runs that could change it")


def wait_error(inst: str, s: np.ndarray, v: int, c: str, why: str, name: str = "the signal", **where) -> StateError:
    """``pto.comm.wait``: a TWAIT whose condition can never hold (hardware would spin for ever)."""
    vals = np.unique(s)
    held = ", ".join(map(str, vals[:4].tolist())) + (", ..." if vals.size > 4 else "")
    return StateError(f"{name} holds {held} and the wait needs every element {c} {v}; {why}, so it would wait "
                      "for ever", instruction=inst, operand="signal", rule="pto.comm.wait", value=f"{c} {v}", **where)


def _group(inst: str, group, operand: str = "group") -> list[np.ndarray]:
    if not isinstance(group, (list, tuple)) or not group:
        _comm_error(inst, "the parallel group is a non-empty list of arrays, one per rank", operand, "pto.comm.group",
              type(group).__name__)
    return [_gm(inst, g, f"{operand}[{i}]") for i, g in enumerate(group)]


def tbroadcast(group, src: np.ndarray, staging: Tile, *, target=None) -> list:
    """TBROADCAST: copy ``src`` into every rank's array of ``group``; returns ``group``.

    Raises: ``pto.comm.group``, ``pto.op.operand``, ``pto.comm.shape``, ``pto.mem.elem_size``, ``pto.op.loc``.
    """
    get_target(target)
    members = _group("TBROADCAST", group)
    for m in members:
        _pair("TBROADCAST", m, src)
    _staging("TBROADCAST", staging, src)
    for m in members:
        _copy("TBROADCAST", m, src)
    return group


def treduce(group, dst: np.ndarray, acc: Tile, recv: Tile, pong: Tile | None = None, *, op: str = "sum",
            root: int = 0, target=None) -> np.ndarray:
    """TREDUCE: ``dst`` = ``group[root]`` combined with every other rank's array in rank order; returns ``dst``.

    The arrays are 2-D (or 5-D with outer dimensions of 1); the tiles, of the arrays' element type, hold one
    chunk of the tiles' valid shape (partial chunks at the edges shrink the tiles' valid region). With
    ``pong`` (the ping-pong form: ``recv`` is the ping tile) the other ranks' chunks load into ``recv`` and
    ``pong`` in turn, the same values in the same order (PTO185). Raises:
    ``pto.comm.group``, ``pto.comm.shape``, ``pto.mem.elem_size``, ``pto.op.loc``, ``pto.comm.reduce_op``,
    ``pto.comm.root``, ``pto.comm.pingpong``, and TADD/TMAX/TMIN's own dtype checks.
    """
    from .ops import OPS, tload, tstore
    prof = get_target(target)
    members = _group("TREDUCE", group)
    o = _word(op)
    if o not in REDUCE_OPS:
        _comm_error("TREDUCE", "op must be sum, max or min (ReduceOp)", "op", "pto.comm.reduce_op", op)
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < len(members):
        _comm_error("TREDUCE", f"root must be a rank of the group, 0..{len(members) - 1}", "root", "pto.comm.root",
                    root)
    for m in members:
        _pair("TREDUCE", dst, m)
    shape = dst.shape
    if dst.ndim not in (2, 5) or (dst.ndim == 5 and shape[:3] != (1, 1, 1)):
        _comm_error("TREDUCE", "the arrays are 2-D (rows, columns) or 5-D with outer dimensions 1", "dst",
              "pto.comm.shape", shape, GeometryError)
    _staging("TREDUCE", acc, dst, "acc")
    _staging("TREDUCE", recv, dst, "recv")
    if acc.dtype != recv.dtype:
        _comm_error("TREDUCE", f"acc is {acc.dtype}, recv {recv.dtype}; both are the data's element type", "recv",
              "pto.op.same_dtype", str(recv.dtype), DtypeError)
    _pong("TREDUCE", recv, pong, dst)
    recvs = (recv,) if pong is None else (recv, pong)
    g2 = [m.reshape(m.shape[-2:]) for m in members]
    d2 = dst.reshape(shape[-2:])
    R, C = d2.shape
    vr, vc = acc.valid
    step_r, step_c = (min(vr, recv.valid_rows), min(vc, recv.valid_cols))
    if step_r == 0 or step_c == 0:
        _comm_error("TREDUCE", "the tiles' valid region is empty", "acc", "pto.op.valid_nonzero", acc.valid)
    fn = OPS[REDUCE_OPS[o]]
    keep = [(t, t.valid) for t in (acc, *recvs)]
    others = [r for r in range(len(g2)) if r != root]
    try:
        for r0 in range(0, R, step_r):
            for c0 in range(0, C, step_c):
                n = (min(step_r, R - r0), min(step_c, C - c0))
                for t, _ in keep:
                    t.set_valid(*n)
                tload(acc, g2[root], offset=(r0, c0), target=prof)
                for i, r in enumerate(others):          # ping-pong: remote i arrives in ping (even) or pong
                    t = recvs[i % len(recvs)]
                    tload(t, g2[r], offset=(r0, c0), target=prof)
                    fn(acc, acc, t, target=prof)
                tstore(d2, acc, offset=(r0, c0), target=prof)
    finally:
        for t, v in keep:
            t.set_valid(*v)
    return dst


def _rows_of(inst: str, a: np.ndarray, operand: str) -> np.ndarray:
    if a.ndim < 2:
        _comm_error(inst, "a GlobalTensor here has rows and columns (2-D, or 5-D as pto-isa's shapes)", operand,
                    "pto.comm.shape", a.shape, GeometryError)
    return a


def _collective(inst: str, group, whole: np.ndarray, whole_name: str, staging: Tile, pong, root) -> list:
    """The checks TGATHER and TSCATTER share; returns the group's arrays. Every rank's array has the first
    one's shape (the simulator reads rank 0's shape and strides for all); ``whole`` has their outer dims and
    columns and at least N x their rows (rows beyond are left alone, as the pages say)."""
    members = _group(inst, group)
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < len(members):
        _comm_error(inst, f"root must be a rank of the group, 0..{len(members) - 1}", "root", "pto.comm.root", root)
    _rows_of(inst, whole, whole_name)
    first = _rows_of(inst, members[0], "group[0]")
    for i, m in enumerate(members):
        if m.shape != first.shape:
            _comm_error(inst, f"group[{i}] is {m.shape}, group[0] {first.shape}; every rank's GlobalTensor has one "
                        "shape", f"group[{i}]", "pto.comm.shape", m.shape, GeometryError)
        if m.dtype.itemsize != whole.dtype.itemsize:
            _comm_error(inst, f"group[{i}] has {m.dtype.itemsize}-byte elements, {whole_name} "
                        f"{whole.dtype.itemsize}-byte ones; they share an element type", f"group[{i}]",
                        "pto.mem.elem_size", str(m.dtype), DtypeError)
    n, h = len(members), first.shape[-2]
    want = (*first.shape[:-2], n * h, first.shape[-1])
    if (whole.ndim != first.ndim or whole.shape[:-2] != first.shape[:-2] or whole.shape[-1] != first.shape[-1]
            or whole.shape[-2] < n * h):
        _comm_error(inst, f"{whole_name} {whole.shape} must have the ranks' outer dimensions and columns and at "
                    f"least {n} x {h} rows: {want} (or more rows)", whole_name, "pto.comm.shape", whole.shape,
                    GeometryError)
    _pong(inst, _staging(inst, staging, whole), pong, whole)
    return members


def tgather(group, dst: np.ndarray, staging: Tile, pong: Tile | None = None, *, root: int = 0,
            target=None) -> np.ndarray:
    """TGATHER (the collective of ``docs/isa/comm``): the root writes rank r's array to rows ``r*H .. r*H + H``
    of ``dst`` (each rank's array ``(..., H, W)``, ``dst`` ``(..., >= N*H, W)``), as bits; returns ``dst``.

    ``staging`` (and ``pong``, the ping-pong form's second tile) are the UB tiles of the GM-UB-GM path, checked
    and left unchanged, as the CPU simulator leaves them (PTO184). Raises: ``pto.comm.group``,
    ``pto.comm.root``, ``pto.comm.shape``, ``pto.mem.elem_size``, ``pto.op.loc``, ``pto.comm.pingpong``.

    >>> import numpy as np
    >>> ranks = [np.full((1, 4), r, np.int32) for r in range(3)]
    >>> tgather(ranks, np.zeros((3, 4), np.int32), Tile("vec", "i32", 1, 8))[:, 0].tolist()
    [0, 1, 2]
    """
    get_target(target)
    dst = _gm("TGATHER", dst, "dst")
    members = _collective("TGATHER", group, dst, "dst", staging, pong, root)
    h = members[0].shape[-2]
    for r, m in enumerate(members):
        _bits(dst)[..., r * h:(r + 1) * h, :] = _bits(m)
    return dst


def tscatter(group, src: np.ndarray, staging: Tile, pong: Tile | None = None, *, root: int = 0,
             target=None) -> list:
    """TSCATTER (the collective of ``docs/isa/comm``): the root writes rows ``r*H .. r*H + H`` of ``src`` to
    rank r's array (each ``(..., H, W)``), as bits; returns ``group``. The inverse of :func:`tgather`, with its
    checks and tiles (PTO184).
    """
    get_target(target)
    src = _gm("TSCATTER", src, "src")
    members = _collective("TSCATTER", group, src, "src", staging, pong, root)
    for i, m in enumerate(members):
        if not m.flags.writeable:
            _comm_error("TSCATTER", "the array is read-only", f"group[{i}]", "pto.op.operand", f"group[{i}]")
    h = members[0].shape[-2]
    for r, m in enumerate(members):
        _bits(m)[...] = _bits(src)[..., r * h:(r + 1) * h, :]
    return group


#: the communication instructions by lower-case name; the collective TGATHER/TSCATTER as ``comm_tgather`` and
#: ``comm_tscatter``, apart from the tile ops of those names
COMM_OPS = {**{n: globals()[n] for n in ("tput", "tget", "tput_async", "tget_async", "tnotify", "ttest", "twait",
                                         "tbroadcast", "treduce")}, "comm_tgather": tgather, "comm_tscatter": tscatter}
