"""On-chip buffers, tile placement and TASSIGN.

Each tile location lives in one buffer (vec -> UB, mat -> L1, left -> L0A,
right -> L0B, acc -> L0C, bias -> BT, scaling -> FB) whose capacity depends on
the target (pto-isa ``buffer_limits.hpp``). A :class:`Memory` holds one
byte array per buffer; :meth:`Memory.place` puts a tile at a byte address
(the tile becomes a view of those bytes, so overlapping tiles alias, each
reading the bytes in its own dtype and layout) or, with no address, at the
lowest address where it overlaps no live tile. ``tassign(tile, addr)``
makes the checks pto-isa makes at compile time for ``TASSIGN<Addr>`` and
CPU_SIM at run time: the buffer exists (SA-0351), the tile fits it (SA-0352),
the tile ends inside it (SA-0353), and the address is 32-byte aligned
(SA-0354); with ``memory=`` it also places the tile there. On ``cpu`` the
tile need only end inside it up to its valid region's last element, as
the simulator's TASSIGN bounds it (:func:`footprint`, PTO176).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import GeometryError
from .targets import LOCATIONS, Profile, get_target
from .tile import Tile

__all__ = ["tassign", "capacity", "buffer_of", "overlaps", "footprint", "sim_profile", "Memory"]


def buffer_of(loc: str) -> str:
    """The buffer name (UB, L1, L0A ...) a tile location lives in."""
    return LOCATIONS[loc]


def capacity(loc: str, target: "str | Profile | None" = None) -> int | None:
    """Bytes of the buffer that holds ``loc`` tiles on ``target`` (None: no such buffer)."""
    return get_target(target).capacities.get(loc)


def _is_sim(prof: Profile) -> bool:
    return prof.name.split("+")[0] == "cpu"


@lru_cache(maxsize=None)
def sim_profile(arch: str) -> Profile:
    """The ``cpu`` profile with the buffer sizes of ``arch`` (``a2a3``, ``a5``): the simulator after
    ``NPU_MEMORY_INIT(NPUArch::A2A3)`` and the like.

    >>> sim_profile("a2a3").capacities["acc"]
    131072
    """
    return get_target("cpu").with_(name=f"cpu+{arch}", capacities=get_target(arch).capacities)


def footprint(tile: Tile, target: "str | Profile | None" = None) -> int:
    """Bytes from a tile's address that TASSIGN bounds by the buffer's end: on an NPU the whole tile
    (SA-0353); on ``cpu`` up to the valid region's last element, ``(offset(vr-1, vc-1) + 1) * sizeof``, as
    the simulator's windowed TASSIGN (pto-isa ae6e95d6; PTO176), or the whole tile where the valid region is
    empty or the layout Nn (no such offset there).

    >>> strip = Tile("acc", "i32", 128, 256, valid=(16, 256), blayout="col_major", slayout="row_major",
    ...              fractal=1024)
    >>> footprint(strip, "a2a3"), footprint(strip, "cpu")
    (131072, 123904)
    """
    prof = get_target(target)
    if not _is_sim(prof) or tile.layout == "Nn" or 0 in tile.valid or tile.span != tile.nbytes:
        return tile.span
    r, c = tile.valid
    return (int(tile.offsets(r - 1, c - 1)) + 1) * tile.dtype.size


def tassign(tile: Tile, addr: int, *, target: "str | Profile | None" = None, memory: "Memory | None" = None,
            name: str | None = None) -> Tile:
    """Bind ``tile`` to byte offset ``addr`` within its location's buffer (in ``memory``, when given).

    Raises:
        GeometryError: rule ``pto.mem.space`` (the target has no buffer for the location),
            ``pto.mem.size`` (the tile is larger than the buffer), ``pto.mem.bounds``
            (addr + size passes the end, or addr < 0), ``pto.mem.align`` (addr not 32-byte aligned).

    >>> t = tassign(Tile("vec", "f32", 16, 256), 0x1000, target="a2a3")
    >>> hex(t.addr)
    '0x1000'
    """
    prof = memory.prof if memory is not None else get_target(target)
    _check_place(tile, addr, prof, "TASSIGN", name)
    if memory is not None:
        return memory.place(tile, addr, name=name)
    tile.addr = addr
    return tile


def _who(tile: Tile, name: str | None) -> str:
    return f"%{name} ({tile.describe()})" if name else tile.describe()


def _check_place(tile: Tile, addr: int, prof: Profile, op: str, name: str | None = None) -> None:
    cap = prof.capacities.get(tile.loc)
    where = f"{buffer_of(tile.loc)} on {prof.name}"
    operand = f"%{name}" if name else "tile"
    if cap is None:
        raise GeometryError(f"target {prof.name} has no {buffer_of(tile.loc)} buffer for {tile.loc} tiles",
                            instruction=op, operand=operand, rule="pto.mem.space", value=tile.loc)
    if not isinstance(addr, (int, np.integer)) or isinstance(addr, bool):
        raise GeometryError("the address must be an integer byte offset", instruction=op, operand="addr",
                            rule="pto.mem.bounds", value=addr)
    if tile.span > cap:
        raise GeometryError(f"{_who(tile, name)} takes {tile.span} bytes; the {where} holds {cap}", instruction=op,
                            operand=operand, rule="pto.mem.size", value=tile.span)
    reach = footprint(tile, prof)
    if addr < 0 or addr + reach > cap:
        what = "covers" if reach == tile.span else "reaches, to its valid region's last element,"
        raise GeometryError(f"{_who(tile, name)} at {addr:#x} {what} bytes [{addr:#x}, {addr + reach:#x}), "
                            f"past the end of the {cap}-byte ({cap:#x}) {where}; it fits at {cap - reach:#x} "
                            "or below", instruction=op, operand="addr", rule="pto.mem.bounds", value=addr)
    if addr % prof.align:
        raise GeometryError(f"{_who(tile, name)} at {addr:#x}: addresses must be {prof.align}-byte aligned "
                            f"(the nearest are {addr - addr % prof.align:#x} and "
                            f"{addr - addr % prof.align + prof.align:#x})", instruction=op, operand="addr",
                            rule="pto.mem.align", value=addr)


class Memory:
    """The on-chip buffers of one core on one target: a zeroed byte array per buffer, and the live tiles.

    >>> m = Memory("a2a3")
    >>> a = m.place(Tile("vec", "f32", 8, 8), 0x100)
    >>> b = m.place(Tile("vec", "u32", 8, 8), 0x100)          # the same bytes, read as u32
    >>> a.values[0, 0] = 1.0
    >>> hex(int(b.bits[0, 0]))
    '0x3f800000'
    >>> hex(m.place(Tile("vec", "f32", 8, 8)).addr)           # auto placement skips the live bytes
    '0x0'
    """

    def __init__(self, target: "str | Profile | None" = None) -> None:
        self.prof = get_target(target)
        # on cpu a windowed tile's static span may pass the buffer's end: those bytes are a zeroed tail that is
        # not the buffer, and ops refuse such a tile (pto.mem.overhang, PTO176)
        tail = 2 if _is_sim(self.prof) else 1
        self._backing = {buffer_of(loc): np.zeros(tail * cap, np.uint8) for loc, cap in self.prof.capacities.items()}
        self.data = {buf: b[: b.size // 2] if tail == 2 else b for buf, b in self._backing.items()}
        self.live: dict[str, list] = {b: [] for b in self.data}

    def place(self, tile: Tile, addr: int | None = None, *, name: str | None = None, op: str = "pto.alloc_tile"
              ) -> Tile:
        """Put ``tile`` at byte ``addr`` of its buffer, or (None) at the lowest free aligned address.

        Raises:
            GeometryError: ``pto.mem.space``/``size``/``bounds``/``align`` (as :func:`tassign`), or
                ``pto.mem.capacity``: no free range is large enough for an auto-placed tile.
        """
        buf = buffer_of(tile.loc)
        if addr is None:
            _check_place(tile, 0, self.prof, op, name)
            addr = self._first_fit(tile, buf, name, op)
        else:
            _check_place(tile, int(addr), self.prof, op, name)
        self.release(tile)
        tile.bind(self._backing[buf], int(addr))
        tile.addr = int(addr)
        tile.overhang = max(0, int(addr) + tile.span - self.data[buf].size)
        tile._rekey()
        self.live[buf].append((int(addr), int(addr) + tile.span, tile, name))
        return tile

    def relive(self, tile: Tile, name: str | None = None) -> Tile:
        """Make a placed tile live again at its own address, as :meth:`place` would at the same address, without
        its checks (they read only the tile's type, valid region and address, which have not changed): the
        interpreter's bound loop bodies reuse a tile so (decision PTO116)."""
        self.release(tile)
        self.live[buffer_of(tile.loc)].append((tile.addr, tile.addr + tile.span, tile, name))
        return tile

    def release(self, tile: Tile) -> None:
        """The tile's bytes may be reused by auto placement (the tile keeps viewing them)."""
        for buf, ranges in self.live.items():
            self.live[buf] = [r for r in ranges if r[2] is not tile]

    def live_tiles(self, loc: str) -> list:
        """``(start, end, tile, name)`` of the live tiles in ``loc``'s buffer, by address."""
        return sorted(self.live.get(buffer_of(loc), []), key=lambda r: r[0])

    def _first_fit(self, tile: Tile, buf: str, name: str | None, op: str) -> int:
        align = self.prof.align
        cap = self.data[buf].size
        at = 0
        for start, end, _, _ in sorted(self.live[buf], key=lambda r: r[0]):
            if start - at >= tile.span:
                return at
            at = max(at, -(-end // align) * align)
        if cap - at >= tile.span:
            return at
        ranges = sorted(self.live[buf], key=lambda r: r[0])
        used = sum(e - s for s, e, _, _ in ranges)
        shown = ", ".join(f"{'%' + n if n else t.describe()} {e - s} B at {s:#x}" for s, e, t, n in ranges[:6])
        raise GeometryError(
            f"{_who(tile, name)} needs {tile.span} bytes; the {cap}-byte {buf} on {self.prof.name} has "
            f"{len(ranges)} live tiles using {used} bytes ({shown}{' ...' if len(ranges) > 6 else ''}) and no free "
            f"range of {tile.span} bytes", instruction=op, operand=f"%{name}" if name else "tile",
            rule="pto.mem.capacity", value=(tile.span, used, cap))


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
