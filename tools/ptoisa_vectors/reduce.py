from __future__ import annotations

from tilesim.pto.targets import CPU_CAST_FIRST

from .common import Case, DTS, Spec, aligned_cols, aligned_rows, line_values, scratch, sentinel


#: (src, dst) pairs each reduce accepts beyond same-dtype ones (CPU_SIM static_asserts; exact widenings elsewhere)
_WIDEN = [("f16", "f32"), ("i8", "i16"), ("i16", "i32"), ("i32", "i64"), ("u8", "u16"), ("u16", "u32"),
          ("u32", "u64"), ("u8", "i16"), ("i8", "f16"), ("u16", "f32"), ("i8", "i32")]
REDUCE_PAIRS = {
    "trowsum": [(t, t) for t in ("f32", "f16", "i32", "i16")] + [("f16", "f32"), ("i16", "i32")],
    "tcolsum": [("f32", "f32"), ("f16", "f16"), ("f16", "f32")],
    "tcolmax": [(t, t) for t in ("f32", "f16", "i8", "u8")] + [("f16", "f32")],
}
for _op in ("trowmax", "trowmin", "trowprod", "tcolmin", "tcolprod"):
    REDUCE_PAIRS[_op] = [(t, t) for t in DTS] + _WIDEN

ROW_SHAPES = [(8, 8, 61), (4, 3, 17), (2, 2, 64), (3, 3, 7), (1, 1, 1), (9, 9, 8), (16, 16, 33), (5, 5, 9),
               (4, 4, 0), (4, 0, 5)]
COL_SHAPES = [(32, 31, 29), (32, 32, 32), (32, 1, 7), (32, 5, 32), (32, 17, 1), (32, 0, 5), (32, 3, 0),
               (32, 9, 16)]


def reduce_cases(rng) -> list[Case]:
    cases = []
    for op, pairs in REDUCE_PAIRS.items():
        row = op.startswith("trow")
        up = op.upper()
        for s, d in pairs:
            shapes = ROW_SHAPES if row else COL_SHAPES
            for k, (R, vr, vc) in enumerate(shapes):
                src_dn = k == 1  # one shape with a DN source
                C = 64 if row else 32
                if src_dn:
                    R = aligned_rows(s, R)
                src = Spec("src", s, R, C, "col_major" if src_dn else "row_major")
                if row:
                    dst = (Spec("dst", d, aligned_rows(d, R), 1, "col_major") if k % 2 else
                           Spec("dst", d, R, aligned_cols(d, 1)))
                    dvalid = (vr, 1)
                else:
                    dst, dvalid = Spec("dst", d, 1, C), (1, vc)
                data = (line_values(rng, s, R, C) if row else line_values(rng, s, C, R).T.copy())
                specs, valid = [dst, src], {"dst": dvalid, "src": (vr, vc)}
                tiles = {"dst": sentinel(d, (dst.rows, dst.cols)), "src": data}
                if row:
                    specs.append(Spec("tmp", s, R, C, src.blayout))
                    valid["tmp"], tiles["tmp"] = (vr, vc), scratch(s, R, C)
                    call = f"{up}(dst, src, tmp);"
                else:
                    call = f"{up}(dst, src);"
                cases.append(Case(op, call, tuple(specs), valid, tiles))
                if op == "tcolsum" and k < 4:
                    specs2 = (dst, src, Spec("tmp", s, R, C))
                    v2 = dict(valid, tmp=(vr, vc))
                    t2 = dict(tiles, tmp=scratch(s, R, C))
                    for binary in (0, 1):
                        cases.append(Case(op, "TCOLSUM(dst, src, tmp, P[0] != 0);", specs2, v2, t2, (binary,),
                                          {"is_binary": bool(binary)}))
    return cases


def arg_cases(rng) -> list[Case]:
    cases = []
    for op in ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin"):
        row = op.startswith("trow")
        up = op.upper()
        for s in DTS:
            for idx_dt in ("i32", "u32"):
                for with_val in (False, True):
                    for k, (R, vr, vc) in enumerate(ROW_SHAPES[:8] if row else COL_SHAPES):
                        if 0 in (vr, vc):
                            continue
                        C = 64 if row else 32
                        src_dn = (not row) and (not with_val) and k % 3 == 1  # col idx-only takes DN sources
                        if src_dn:
                            R = aligned_rows(s, R)
                        src = Spec("src", s, R, C, "col_major" if src_dn else "row_major")
                        if row:
                            dn = k % 2 == 1
                            mk = (lambda role, dt: Spec(role, dt, aligned_rows(dt, R), 1, "col_major") if dn
                                  else Spec(role, dt, R, aligned_cols(dt, 1)))
                            dvalid = (vr, 1)
                        else:
                            mk = (lambda role, dt: Spec(role, dt, 1, C))
                            dvalid = (1, vc)
                        data = line_values(rng, s, R, C) if row else line_values(rng, s, C, R).T.copy()
                        tmp = Spec("tmp", s, R, C, src.blayout)
                        specs = [mk("dst_idx", idx_dt), src, tmp]
                        valid = {"dst_idx": dvalid, "src": (vr, vc), "tmp": (vr, vc)}
                        tiles = {"dst_idx": sentinel(idx_dt, (specs[0].rows, specs[0].cols)), "src": data,
                                 "tmp": scratch(s, R, C)}
                        call = f"{up}(dst_idx, src, tmp);"
                        if with_val:
                            v = mk("dst_val", s)
                            specs.insert(0, v)
                            valid["dst_val"] = dvalid
                            tiles["dst_val"] = sentinel(s, (v.rows, v.cols))
                            call = f"{up}(dst_val, dst_idx, src, tmp);"
                        cases.append(Case(op, call, tuple(specs), valid, tiles))
    return cases


# ------------------------------------------------ mixred: row reduces into a dtype that is not a widening
def mixed_row_reduce_cases(rng) -> list[Case]:
    """TROWMAX/TROWMIN/TROWPROD of an ND source into each other dtype that is not an exact widening (those are in
    ``reduce_cases``): the simulator casts every element to dst's type first (PTO67); 9 lines, every kind of
    :func:`line_values` once, valid 9x29 of 9x32."""
    # every pair of clang's dtypes that is not an exact widening
    return [mixed_row_case(rng, op, s, d) for op in ("trowmax", "trowmin", "trowprod") for s, d in sorted(CPU_CAST_FIRST)]


_MIXED_R, _MIXED_C, _MIXED_VC = 9, 32, 29  # the mixed reduces' tiles: valid 9x29 of 9x32


def mixed_row_case(rng, op: str, s: str, d: str) -> Case:
    """One row reduce of an ND ``s`` source into ``d``: 9 lines, every kind of :func:`line_values` once."""
    R, C = _MIXED_R, _MIXED_C
    specs = (Spec("dst", d, R, aligned_cols(d, 1)), Spec("src", s, R, C), Spec("tmp", s, R, C))
    tiles = {"dst": sentinel(d, (R, aligned_cols(d, 1))), "src": line_values(rng, s, R, C),
             "tmp": scratch(s, R, C)}
    return Case(op, f"{op.upper()}(dst, src, tmp);", specs,
                {"dst": (R, 1), "src": (R, _MIXED_VC), "tmp": (R, _MIXED_VC)}, tiles)


def mixed_col_case(rng, op: str, s: str, d: str) -> Case:
    """One column reduce of an ``s`` source into ``d``: 32 columns, each a kind of :func:`line_values`."""
    R, C = _MIXED_R, _MIXED_C
    specs = (Spec("dst", d, 1, C), Spec("src", s, R, C))
    tiles = {"dst": sentinel(d, (1, C)), "src": line_values(rng, s, C, R).T.copy()}
    return Case(op, f"{op.upper()}(dst, src);", specs, {"dst": (1, _MIXED_VC), "src": (R, _MIXED_VC)}, tiles)


def mixed_col_reduce_cases(rng) -> list[Case]:
    """TCOLMIN/TCOLPROD into each dtype that is not an exact widening (PTO67): the simulator casts each element
    to dst's type, TCOLMIN comparing the source element with the running min in their common type; 32 columns,
    each a kind of :func:`line_values`, valid 9x29 of 9x32."""
    return [mixed_col_case(rng, op, s, d) for op in ("tcolmin", "tcolprod") for s, d in sorted(CPU_CAST_FIRST)]
