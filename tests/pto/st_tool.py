"""tools/ptoisa_st.py loaded once as the module ``ptoisa_st`` (which puts tools/ on the path, so its adapters
import as ``ptoisa_st_folders``), and the made-up testcase folders the adapter tests run on."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def _load():
    if "ptoisa_st" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "ptoisa_st", Path(__file__).resolve().parents[2] / "tools" / "ptoisa_st.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["ptoisa_st"] = module
        spec.loader.exec_module(module)
    return sys.modules["ptoisa_st"]


st = _load()


def make_folder(tmp_path: Path, name: str, main: str, gen: str, kernel: str = "") -> Path:
    """A testcase folder ``name`` under ``tmp_path`` holding main.cpp, gen_data.py and, if given, the kernel."""
    out = tmp_path / name
    out.mkdir()
    (out / "main.cpp").write_text(main)
    (out / "gen_data.py").write_text(gen)
    if kernel:
        (out / f"{name}_kernel.cpp").write_text(kernel)
    return out
