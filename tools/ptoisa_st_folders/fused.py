"""TIMG2COL's self-checking gtests (a ConvTile filled by an expression of the loop indices, the SET_* ops and
TIMG2COL, checked against the test's own im2col reference; PTO140) and TADDDEQRELU's kernel (the scale of each
case in the kernel file's deqScaleArr, the tolerance a template argument; PTO143)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.errors import TilesimError

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import ints

_TEST_BODY = re.compile(r"\bTEST\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{(.*?)\n\}", re.S)
_CONV = re.compile(r"using\s+SrcTile\s*=\s*ConvTile<\s*TileType::Mat\s*,\s*(\w+)\s*,[^,]+,\s*Layout::(\w+)\s*,"
                   r"\s*ConvTileShape<([\d,\s]+)>\s*>")
_LEFT = re.compile(r"using\s+DstTile\s*=\s*TileLeft<\s*(\w+)\s*,([\d,\s]+)>")
_FILL = re.compile(r"src\.data\(\)\[Nc1hwc0Offset<SrcTile>\(([^)]*)\)\]\s*=\s*static_cast<\w+>\((.*)\);")
_LOOP = re.compile(r"for\s*\(\s*int\s+(\w+)\s*=\s*0\s*;\s*\1\s*<\s*(\d+)\s*;")
_LOOP_NAMES = re.compile(r"for\s*\(\s*int\s+(\w+)")
_SET = re.compile(r"src\.Set(\w+)\(([^;]*)\);")
_IMG2COL = re.compile(r"TIMG2COL<DstTile,\s*SrcTile,\s*SetFmatrixMode::FMATRIX_(\w+)>\(dst,\s*src,\s*(\d+),\s*(\d+)\)")
_CONV_SETTINGS = {"FmapH": "fmap_h", "FmapW": "fmap_w", "FilterH": "filter_h", "FilterW": "filter_w",
                  "StrideH": "stride_h", "StrideW": "stride_w", "DilationH": "dilation_h", "DilationW": "dilation_w",
                  "ChannelSize": "channel_size", "RepeatStride": "repeat_stride", "RepeatTime": "repeat_time",
                  "RepeatMode": "repeat_mode", "DstStride": "dst_stride"}


def _img2col_expected(conv, rows: int, cols: int, pm: int, pk: int, dst_shape) -> np.ndarray:
    """The gtest's own reference (its ``BuildExpected``): the im2col element of each valid (row, col), the pad
    value elsewhere in the valid region and 0 outside it (NC1HWC0)."""
    N, _, C1, H, W, C0 = conv.fmap_shape
    pl, pr, pt, pb = conv.pad_list
    oh = int((H + pt + pb - conv.dilation_h * (conv.filter_h - 1) - 1) / conv.stride_h) + 1
    ow = int((W + pl + pr - conv.dilation_w * (conv.filter_w - 1) - 1) / conv.stride_w) + 1
    want = np.zeros(dst_shape, conv.dtype.lane)
    fmap = conv.bits.reshape(N, C1, H, W, C0)
    for r in range(rows):
        n, rem = divmod(pm + r, oh * ow)
        y, x = divmod(rem, ow)
        for c in range(cols):
            k = pk + c
            c1, kh, kw = k // (C0 * conv.filter_h * conv.filter_w), *divmod(k % (C0 * conv.filter_h * conv.filter_w)
                                                                             // C0, conv.filter_w)
            ih, iw = y * conv.stride_h + kh * conv.dilation_h - pt, x * conv.stride_w + kw * conv.dilation_w - pl
            ok = n < N and 0 <= ih < H and 0 <= iw < W and c1 < C1
            want[r, c] = fmap[n, c1, ih, iw, k % C0] if ok else conv.pad_bits
    return want


def run_img2col(folder: Path, st: Path, verbose: bool) -> Row:
    """The TIMG2COL folder has no data: each TEST declares a ConvTile and a TileLeft, fills the feature map by
    an expression of its loop indices, sets the fields, runs SETFMATRIX / SET_IMG2COL_PADDING / SET_IMG2COL_RPT
    and TIMG2COL and compares every element of dst with its own reference; the same is done here."""
    row = Row(folder.name)
    for case, body in _TEST_BODY.findall((folder / "main.cpp").read_text()):
        row.cases += 1
        conv, left, fill, call = (rx.search(body) for rx in (_CONV, _LEFT, _FILL, _IMG2COL))
        sets = {k: v.strip() for k, v in _SET.findall(body)}
        pads = re.search(r"padList\[\]\s*=\s*\{([\d,\s]+)\}", body)
        if not (conv and left and fill and call and pads) or conv.group(2) != "NC1HWC0" \
                or conv.group(1) not in CXX_DTYPES or not re.fullmatch(r"[\w\s+*%()-]+", fill.group(2)) \
                or not set(re.findall(r"[A-Za-z_]\w*", fill.group(2))) <= set(_LOOP_NAMES.findall(body)):
            row.not_mapped += 1
            row.reasons.append(f"{case}: not the folder's form")
            continue
        dt = CXX_DTYPES[conv.group(1)]
        shape = tuple(int(v) for v in conv.group(3).split(","))
        r, c, vr, vc = (int(v) for v in left.group(2).split(","))
        kw = {_CONV_SETTINGS[k]: int(v) for k, v in sets.items() if k in _CONV_SETTINGS}
        pad = np.array([float(sets["PadValue"].rstrip("f"))]).astype(pto.get_dtype(dt).np)[0]
        src = pto.ConvTile(dt, shape, pad_list=tuple(int(v) for v in pads.group(1).split(",")), pad_value=pad, **kw)
        loops = dict(_LOOP.findall(body))
        grid = np.meshgrid(*(np.arange(int(n)) for n in loops.values()), indexing="ij")
        env = dict(zip(loops, grid))
        index = [env.get(a.strip(), int(a) if a.strip().isdigit() else None) for a in fill.group(1).split(",")]
        values = eval(fill.group(2), {"__builtins__": {}}, env)   # the test's arithmetic over its loop indices
        src.values[tuple(np.broadcast_to(i, grid[0].shape) for i in index)] = np.asarray(values).astype(
            src.dtype.np)
        mode = call.group(1).lower()
        cfg = pto.BlockConfig()
        dst = pto.Tile("left", dt, r, c, valid=(vr, vc), blayout="col_major", slayout="row_major")
        try:
            for op in (pto.setfmatrix, pto.set_img2col_padding, pto.set_img2col_rpt):
                op(src, mode=mode, config=cfg, target="cpu")
            pto.timg2col(dst, src, int(call.group(2)), int(call.group(3)), mode=mode, config=cfg, target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        want = _img2col_expected(src, vr, vc, int(call.group(2)), int(call.group(3)), (r, c))
        ok = bool((dst.bits == want).all())
        row.tally(case, ok, ok, verbose)
    return row


_DEQ_SCALES = re.compile(r"deqScaleArr\[\]\s*=\s*\{([^}]*)\}")


def run_adddeqrelu(folder: Path, st: Path, verbose: bool) -> Row:
    """TADDDEQRELU: ``runTAddDeqReluTest<caseId, ROW, VALIDROW, COL, VALIDCOL[, toleranceX1000 = 2]>``; i32
    src0/src1 from ``input0.bin``/``input1.bin``, the scale ``deqScaleArr[caseId - 1]`` of the kernel file, an
    f16 dst of VALIDROW x COL compared with ``golden.bin`` by ResultCmp at toleranceX1000 / 1000."""
    row = Row(folder.name)
    found = _DEQ_SCALES.search("".join(p.read_text() for p in folder.glob("*_kernel.cpp")))
    scales = [float(v.strip().rstrip("f")) for v in found.group(1).split(",") if v.strip()] if found else []

    def form(case) -> str | None:
        a = case.args
        if case.dir is None:
            return "gen_data.py made no data"
        if len(a) not in (5, 6) or not all(re.fullmatch(r"\d+", v) for v in a) or not 0 < int(a[0]) <= len(scales):
            return "not the folder's form"
        return None

    for case in each_case(folder, st, row, form, exempt=lambda c: True):   # only integers name its types
        a = ints(case.args)
        cid, _, vr, cols, vc = a[:5]
        case = dataclasses.replace(case, eps=(a[5] if len(a) == 6 else 2) / 1000, dtype="f16")
        with refusals(row, case):
            dst, src0, src1 = (pto.Tile("vec", dt, vr, cols, valid=(vr, vc)) for dt in ("f16", "i32", "i32"))
            for t, f in ((src0, "input0.bin"), (src1, "input1.bin")):
                t.bits[:, :vc] = case.read(f, "i32", vr, vc)
            pto.tadddeqrelu(dst, src0, src1, scales[cid - 1], target="cpu")
            score(row, case, verbose, (dst.valid_bits, case.read("golden.bin", "f16", vr, vc), "f16"))
    return row


ADAPTERS = {"timg2col": run_img2col, "tadddeqrelu": run_adddeqrelu}
