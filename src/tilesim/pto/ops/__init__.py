"""PTO ops, one module per family; every op is re-exported by :mod:`tilesim.pto`."""

from . import (addrelu, arith, bitwise, config, convert, debug, elementwise, expand, gather, gatherb, gemv, generate,
               gm_index, img2col, layout, matmul, matmul_mx, memory, move, partarg, permute, power, quant, quant_mx,
               reduce, scatter, sort, views)
from .addrelu import *  # noqa: F401,F403
from .arith import *  # noqa: F401,F403
from .bitwise import *  # noqa: F401,F403
from .config import *  # noqa: F401,F403
from .convert import *  # noqa: F401,F403
from .debug import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .expand import *  # noqa: F401,F403
from .gather import *  # noqa: F401,F403
from .gatherb import *  # noqa: F401,F403
from .gemv import *  # noqa: F401,F403
from .generate import *  # noqa: F401,F403
from .img2col import *  # noqa: F401,F403
from .gm_index import *  # noqa: F401,F403
from .layout import *  # noqa: F401,F403
from .matmul import *  # noqa: F401,F403
from .matmul_mx import *  # noqa: F401,F403
from .memory import *  # noqa: F401,F403
from .move import *  # noqa: F401,F403
from .partarg import *  # noqa: F401,F403
from .permute import *  # noqa: F401,F403
from .power import *  # noqa: F401,F403
from .quant import *  # noqa: F401,F403
from .quant_mx import *  # noqa: F401,F403
from .reduce import *  # noqa: F401,F403
from .scatter import *  # noqa: F401,F403
from .sort import *  # noqa: F401,F403
from .views import *  # noqa: F401,F403

__all__ = [*reduce.__all__, *expand.__all__, *elementwise.__all__, *convert.__all__, *memory.__all__,
           *matmul.__all__, *move.__all__, *layout.__all__, *debug.__all__,
           *gather.__all__, *generate.__all__, *sort.__all__, *arith.__all__,
           *quant.__all__, *matmul_mx.__all__, *bitwise.__all__,
           *permute.__all__, *partarg.__all__, *views.__all__, *gatherb.__all__, *img2col.__all__, *config.__all__,
           *addrelu.__all__, *quant_mx.__all__, *power.__all__, *scatter.__all__, *gm_index.__all__, *gemv.__all__]

#: every instruction function by lower-case name (what the .pto interpreter dispatches on; MGATHER/MSCATTER too)
OPS = {n: globals()[n] for n in __all__ if n.startswith(("t", "mgather", "mscatter")) and callable(globals()[n])}
