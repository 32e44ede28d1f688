"""On-chip buffers and TASSIGN.

Each tile location lives in one buffer (vec -> UB, mat -> L1, left -> L0A,
right -> L0B, acc -> L0C, bias -> BT, scaling -> FB) whose capacity depends on
the target (pto-isa ``buffer_limits.hpp``, spec §2). ``tassign(tile, addr)``
binds a tile to a byte offset in its buffer after the checks pto-isa makes at
compile time for ``TASSIGN<Addr>`` and CPU_SIM makes at run time:
the buffer exists (SA-0351), the tile fits it (SA-0352), the tile ends inside
it (SA-0353), and the address is 32-byte aligned (SA-0354).
"""

from __future__ import annotations

from ..errors import GeometryError
from .targets import LOCATIONS, Profile, get_target
from .tile import Tile

__all__ = ["tassign", "capacity", "buffer_of", "overlaps"]


def buffer_of(loc: str) -> str:
    """The buffer name (UB, L1, L0A ...) a tile location lives in."""
    return LOCATIONS[loc]


def capacity(loc: str, target: "str | Profile | None" = None) -> int | None:
    """Bytes of the buffer that holds ``loc`` tiles on ``target`` (None: no such buffer)."""
    return get_target(target).capacities.get(loc)


def tassign(tile: Tile, addr: int, *, target: "str | Profile | None" = None) -> Tile:
    """Bind ``tile`` to byte offset ``addr`` within its location's buffer.

    Raises:
        GeometryError: rule ``pto.mem.space`` (the target has no buffer for the location),
            ``pto.mem.size`` (the tile is larger than the buffer), ``pto.mem.bounds``
            (addr + size passes the end, or addr < 0), ``pto.mem.align`` (addr not 32-byte aligned).

    >>> t = tassign(Tile("vec", "f32", 16, 256), 0x1000, target="a2a3")
    >>> hex(t.addr)
    '0x1000'
    """
    prof = get_target(target)
    cap = prof.capacities.get(tile.loc)
    op = "TASSIGN"
    where = f"{buffer_of(tile.loc)} on {prof.name}"
    if cap is None:
        raise GeometryError(f"target {prof.name} has no {buffer_of(tile.loc)} buffer for {tile.loc} tiles",
                            instruction=op, operand="tile", rule="pto.mem.space", value=tile.loc)
    if not isinstance(addr, int) or isinstance(addr, bool):
        raise GeometryError("the address must be an integer byte offset", instruction=op, operand="addr",
                            rule="pto.mem.bounds", value=addr)
    if tile.nbytes > cap:
        raise GeometryError(f"a {tile.nbytes}-byte tile does not fit the {cap}-byte {where}", instruction=op,
                            operand="tile", rule="pto.mem.size", value=tile.nbytes)
    if addr < 0 or addr + tile.nbytes > cap:
        raise GeometryError(f"bytes [{addr:#x}, {addr + tile.nbytes:#x}) leave the {cap}-byte {where}",
                            instruction=op, operand="addr", rule="pto.mem.bounds", value=addr)
    if addr % prof.align:
        raise GeometryError(f"{addr:#x} is not {prof.align}-byte aligned", instruction=op, operand="addr",
                            rule="pto.mem.align", value=addr)
    tile.addr = addr
    return tile


def overlaps(tiles: list[Tile]) -> list[tuple[Tile, Tile]]:
    """Pairs of assigned tiles in the same buffer whose byte ranges overlap (undefined unless aliased)."""
    placed = sorted((t for t in tiles if t.addr is not None), key=lambda t: (buffer_of(t.loc), t.addr))
    out = []
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            if buffer_of(b.loc) != buffer_of(a.loc) or b.addr >= a.addr + a.nbytes:
                break
            out.append((a, b))
    return out
