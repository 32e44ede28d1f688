"""Why a testcase folder is not mapped, where no adapter can be written (or not yet): folders that test the
simulator's own machinery rather than an instruction, gtests whose data and checks are C++ code, and kernels
that need an instruction tilesim lacks."""

from __future__ import annotations

#: self-checking gtests (``TEST``, data and expectations written in main.cpp, no gen_data.py data)
_SELF = ("self-checking gtests (data and checks are C++ in main.cpp, no gen_data.py); {op} is checked bit for "
         "bit by the pto-isa bank (tests/pto/golden/{op}.npz)")

NOT_MAPPED = {
    "tassign": "not an instruction test: the simulator's tile storage (TASSIGN aliasing one buffer, Acc "
               "windows); tilesim's Python tiles own their storage, addresses exist only in .pto programs",
    "setgetval": "not an instruction test: the Tile class's SetValue/GetValue accessors",
    "ttrace": "not an instruction test: the simulator's trace recorder (PTO_CPU_SIM_TRACE_MODE)",
    "hashfind": "a kernel of several instructions (TEXPANDS, TXOR, TSHR, TMULS, MGATHER ...): no adapter yet",
    "tpack": "main.cpp calls TPACK, which pto-isa 3186c381 does not define (no PTO_INST entry point, no "
             "include/pto/cpu implementation): the test does not build",
    "tquant": _SELF.format(op="tquant") + "; its MX forms by tests/pto/golden/tquant_mx.npz (PTO145)",
    "tquant_dn": _SELF.format(op="tquant_mx") + " (TQUANT_DN is its grp_axis=0 form, PTO145)",
    **{f: f"{op} of a ConvTile (NC1HWC0/FRACTAL_Z layouts): tilesim's ConvTile feeds TIMG2COL only (PTO140)"
       for f, op in (("textract_conv", "TEXTRACT"), ("tloadconv", "TLOAD"), ("tstore_conv", "TSTORE"),
                     ("ttrans_conv", "TTRANS"))},
    "tpushpop_vc": "vector-to-cube pushes of split halves from two vector subblocks (tilesim's Python pipes run one)",
    "tpushpop_vc_nosplit": "vector-to-cube pushes from two vector subblocks (tilesim's Python pipes run one)",
    "tpushpop_fixpipe": "TPUSH with a FixpipeParams TConfig (a quantising push) is not modelled",
    "tpush_a3": "a cube/vector kernel of many instructions around TPUSH/TPOP (no adapter yet)",
    "tpush_a5": "a cube/vector kernel of many instructions around TPUSH/TPOP (no adapter yet)",
}
