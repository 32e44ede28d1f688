"""``python tools/ptoisa_vectors ...`` (the folder run as a script) or ``python -m ptoisa_vectors``."""

import sys
from pathlib import Path

if not __package__:  # run as a folder: make the package importable by its name
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ptoisa_vectors.cli import main  # noqa: E402

main()
