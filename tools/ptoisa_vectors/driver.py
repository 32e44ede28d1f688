from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tilesim.pto import get_dtype

from .common import CXX_TYPE, Case, FLAGS, FP4_TYPES, GXX_FLAGS, Spec


# --------------------------------------------------------------- the driver
_PRELUDE = r"""
#include <pto/pto-inst.hpp>
#include <cstdint>
#include <cstring>
#include <vector>
using namespace pto;
using KernelFn = void (*)(const int32_t*, const uint32_t*, const uint8_t*&, std::vector<uint8_t>&);
template <typename T> static void place(T& t, std::size_t& addr) {
    TASSIGN(t, addr);
    addr += sizeof(typename T::DType) * T::Numel;
    addr = (addr + 63) & ~std::size_t(63);
}
template <typename T> static void load(T& t, const uint8_t*& in) {
    std::memcpy(t.data(), in, sizeof(typename T::DType) * T::Numel);
    in += sizeof(typename T::DType) * T::Numel;
}
template <typename T> static void save(T& t, std::vector<uint8_t>& out) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data());
    out.insert(out.end(), p, p + sizeof(typename T::DType) * T::Numel);
}
"""

_MAIN = r"""
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
using KernelFn = void (*)(const int32_t*, const uint32_t*, const uint8_t*&, std::vector<uint8_t>&);
%(decls)s
int main(int argc, char** argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: driver IN OUT\n"); return 2; }
    std::vector<KernelFn> table(%(n)d, nullptr);
    %(regs)s
    std::FILE* f = std::fopen(argv[1], "rb");
    std::vector<uint8_t> buf;
    uint8_t chunk[1 << 16];
    std::size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
    std::fclose(f);
    std::vector<uint8_t> out;
    const uint8_t* p = buf.data();
    const uint8_t* end = p + buf.size();
    while (p < end) {
        uint32_t hdr[3];
        std::memcpy(hdr, p, sizeof hdr); p += sizeof hdr;           // kernel, n_params, n_valid
        std::vector<int32_t> P(hdr[1] + 1); std::vector<uint32_t> V(hdr[2] + 1);
        std::memcpy(P.data(), p, 4 * hdr[1]); p += 4 * hdr[1];
        std::memcpy(V.data(), p, 4 * hdr[2]); p += 4 * hdr[2];
        table[hdr[0]](P.data(), V.data(), p, out);
    }
    std::FILE* o = std::fopen(argv[2], "wb");
    std::fwrite(out.data(), 1, out.size(), o);
    std::fclose(o);
    return 0;
}
"""


def kernel_name(key: tuple) -> str:
    """A kernel's C++ name: a hash of its call and tile types, so an object file stays valid while its
    kernels do not change (adding cases to one op rebuilds only that op's translation units)."""
    call, specs = key
    text = call + "|" + "|".join(f"{s.role}={s.cxx()}" for s in specs)
    return "k_" + hashlib.sha1(text.encode()).hexdigest()[:16]


def kernel_source(key: tuple) -> str:
    call, specs = key
    lines = [f"void {kernel_name(key)}(const int32_t* P, const uint32_t* V, const uint8_t*& in, "
             "std::vector<uint8_t>& out) {", "    (void)P;", "    std::size_t addr = 0;"]
    for i, s in enumerate(specs):
        if s.loc == "gm":  # global memory: a plain array the call wraps in a GlobalTensor
            n = f"{s.rows * s.cols} * sizeof({CXX_TYPE[s.dtype]})"
            lines.append(f"    std::vector<{CXX_TYPE[s.dtype]}> {s.role}({s.rows * s.cols});")
            continue
        lines.append(f"    using T_{s.role} = {s.cxx()};")
        lines.append(f"    T_{s.role} {s.role}(V[{2 * i}], V[{2 * i + 1}]);")
        lines.append(f"    place({s.role}, addr);")
    for s in specs:
        if s.loc == "gm":
            n = f"{s.rows * s.cols} * sizeof({CXX_TYPE[s.dtype]})"
            lines.append(f"    std::memcpy({s.role}.data(), in, {n}); in += {n};")
        else:
            lines.append(f"    load({s.role}, in);")
    lines.append(f"    {call}")
    for s in specs:
        if not s.role.startswith("dst"):
            continue
        if s.loc == "gm":
            n = f"{s.rows * s.cols} * sizeof({CXX_TYPE[s.dtype]})"
            lines.append(f"    {{ auto* q = reinterpret_cast<const uint8_t*>({s.role}.data()); "
                         f"out.insert(out.end(), q, q + {n}); }}")
        else:
            lines.append(f"    save({s.role}, out);")
    lines.append("}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Toolchain:
    """A compiler, its flags, and the words it and the driver it builds run under (``chroot DIR``: the
    build folder and the checkout must then have the same paths inside)."""

    prefix: tuple[str, ...]
    cxx: str
    flags: tuple[str, ...]
    version: str

    def salt(self, commit: str) -> str:
        return "|".join([commit, self.version, *self.prefix, *self.flags])


def find_cxx(explicit: str | None, bf16: bool = False) -> Toolchain:
    """clang >= 17 (C++20), or g++ >= 14 (C++23, real std::bfloat16_t; the only choice for ``bf16``).
    ``explicit`` may start with a wrapper, e.g. ``chroot /srv/trixie g++-14``."""
    words = explicit.split() if explicit else []
    for cand in ([words[-1]] if words else ["clang++-19", "clang++-18", "clang++-17", "clang++"]):
        exe = shutil.which(cand) if not words[:-1] else cand
        if not exe:
            continue
        r = subprocess.run([*words[:-1], exe, "--version"], capture_output=True, text=True)
        first = (r.stdout.splitlines() or [""])[0]
        clang = re.search(r"clang version (\d+)", r.stdout)
        gnu = re.search(r"^g\+\+.* (\d+)\.\d+\.\d+", first)
        if clang and int(clang.group(1)) >= 17 and not bf16:
            return Toolchain(tuple(words[:-1]), exe, tuple(FLAGS), first)
        if gnu and int(gnu.group(1)) >= 14:
            return Toolchain(tuple(words[:-1]), exe, tuple(GXX_FLAGS), first)
    sys.exit("need g++ >= 14 (C++23 std::bfloat16_t) for bf16" if bf16 else
             "need clang >= 17 or g++ >= 14 (the headers use static_assert(false) in templates); "
             "try apt-get install clang-19")


#: kernels per translation unit (each unit parses the headers once; fewer kernels rebuild less)
TU_KERNELS = 24


def translation_units(keys: list[tuple], ops: list[str]) -> list[list[tuple]]:
    """The kernels grouped by op, then cut into units of at most :data:`TU_KERNELS` in name order."""
    by_op = defaultdict(list)
    for k, op in zip(keys, ops):
        by_op[op].append(k)
    units = []
    for op in sorted(by_op):
        ks = sorted(by_op[op], key=kernel_name)
        units += [ks[i: i + TU_KERNELS] for i in range(0, len(ks), TU_KERNELS)]
    return units


def _compile_unit(checkout: Path, keys: list[tuple], work: Path, tc: Toolchain, salt: str) -> tuple[Path, set]:
    """Compile one unit into ``work`` (cached under a hash of its text, the compiler and the checkout);
    returns the object and the kernels the headers reject at compile time (left out of the object)."""
    tag = hashlib.sha1((salt + _PRELUDE + "".join(kernel_source(k) for k in keys)).encode()).hexdigest()[:16]
    obj, stamp = work / f"u{tag}.o", work / f"u{tag}.json"
    if obj.exists() and stamp.exists():
        rej = set(json.loads(stamp.read_text()))
        return obj, {k for k in keys if kernel_name(k) in rej}
    rejected: set = set()
    while True:
        ids = [k for k in keys if k not in rejected]
        text, starts = _PRELUDE, {}
        for k in ids:
            starts[kernel_name(k)] = text.count("\n") + 1
            text += kernel_source(k) + "\n"
        src = work / f"u{tag}.cpp"
        src.write_text(text)
        r = subprocess.run(["nice", "-n", "10", *tc.prefix, tc.cxx, *tc.flags, "-I", str(checkout / "include"), "-c",
                            str(src), "-o", str(obj) + ".tmp"], capture_output=True, text=True)
        if not r.returncode:
            break
        lines = {int(m) for m in re.findall(rf"u{tag}\.cpp:(\d+):\d+", r.stderr)}
        bad = {max((k for k in ids if starts[kernel_name(k)] <= ln), key=lambda k: starts[kernel_name(k)],
                   default=None) for ln in lines}
        bad.discard(None)
        if not bad:
            raise RuntimeError(f"{src.name} failed to compile:\n{r.stderr[-6000:]}")
        rejected |= bad
    os.replace(str(obj) + ".tmp", obj)
    stamp.write_text(json.dumps(sorted(kernel_name(k) for k in rejected)))
    return obj, rejected


def build(checkout: Path, keys: list[tuple], ops: list[str], work: Path, tc: Toolchain, jobs: int,
          salt: str) -> tuple[Path, set]:
    """Compile the driver for these kernels; returns it and the kernels the headers reject.

    Units already compiled in ``work`` (``--keep``) for the same kernels, compiler and checkout are reused.
    """
    units = translation_units(keys, ops)
    rejected: set = set()
    with ThreadPoolExecutor(jobs) as ex:
        done = list(ex.map(lambda u: _compile_unit(checkout, u, work, tc, salt), units))
    for _, rej in done:
        rejected |= rej
    kept = [k for k in keys if k not in rejected]
    main = work / "main.cpp"
    main.write_text(_MAIN % {"n": len(kept),
                             "decls": "\n".join(f"void {kernel_name(k)}(const int32_t*, const uint32_t*, "
                                                "const uint8_t*&, std::vector<uint8_t>&);" for k in kept),
                             "regs": "\n    ".join(f"table[{i}] = &{kernel_name(k)};" for i, k in enumerate(kept))})
    exe = work / "driver"
    subprocess.run(["nice", "-n", "10", *tc.prefix, tc.cxx, *tc.flags, str(main), *(str(o) for o, _ in done),
                    "-pthread", "-o", str(exe)], check=True)
    return exe, rejected


def _driver_bytes(s: Spec, st: np.ndarray) -> bytes:
    """A tile's storage as the simulator holds it: an fp4 tile packs two codes a byte, element ``2j`` in the low
    nibble of byte ``j``, in the first half of its ``Numel`` bytes (include/pto/cpu/MXTypes.hpp)."""
    if s.dtype not in FP4_TYPES:
        return st.tobytes()
    packed = np.zeros(st.size, np.uint8)
    packed[: st.size // 2] = (st[0::2] & 0xF) | (st[1::2] << 4)
    return packed.tobytes()


def _unpacked(stored: np.ndarray) -> np.ndarray:
    """An fp4 tile's codes from the simulator's storage (the inverse of :func:`_driver_bytes`)."""
    half = stored[: stored.size // 2]
    codes = np.empty(stored.size, np.uint8)
    codes[0::2], codes[1::2] = half & 0xF, half >> 4
    return codes


def run_driver(exe: Path, cases: list[Case], kid: dict, work: Path, tc: Toolchain) -> list[dict[str, np.ndarray]]:
    blob = bytearray()
    for c in cases:
        valid = [v for s in c.specs for v in c.valid[s.role]]
        blob += np.array([kid[c.key], len(c.params), len(valid)], np.uint32).tobytes()
        blob += np.array(c.params, np.int32).tobytes() + np.array(valid, np.uint32).tobytes()
        for s in c.specs:
            blob += _driver_bytes(s, c.storage(s.role))
    (work / "in.bin").write_bytes(bytes(blob))
    subprocess.run([*tc.prefix, str(exe), str(work / "in.bin"), str(work / "out.bin")], check=True)
    out = np.fromfile(work / "out.bin", np.uint8)
    results, q = [], 0
    for c in cases:
        res = {}
        for s in c.specs:
            if s.role.startswith("dst"):
                n = s.rows * s.cols * get_dtype(s.dtype).size
                res[s.role] = (_unpacked(out[q: q + n]) if s.dtype in FP4_TYPES and s.loc != "gm"
                               else out[q: q + n].view(get_dtype(s.dtype).lane))
                q += n
        results.append(res)
    if q != out.size:
        raise RuntimeError("driver output has the wrong size")
    return results
