"""Write the input arrays of the AME examples (deterministic; the .npy files are committed).

    python examples/ame/make_inputs.py
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2025_09_19)  # the proposal's date
    return {
        # INT8 activations and weights: 32 rows of K=16 (2x2: A0, A1 / B0, B1)
        "x_int8": rng.integers(-128, 128, (32, 16), dtype=np.int8),
        "w_int8": rng.integers(-128, 128, (32, 16), dtype=np.int8),
        # 64 rows (4x4: A0..A3 / B0..B3), large enough that INT16 sums saturate
        "x4_int8": rng.integers(-128, 128, (64, 16), dtype=np.int8),
        "w4_int8": rng.integers(-128, 128, (64, 16), dtype=np.int8),
        # real-valued data that mld rounds to FP8 E4M3 and BF16
        "x_real": rng.normal(0, 4, (32, 16)),
        "w_real": rng.normal(0, 4, (32, 16)),
    }


if __name__ == "__main__":
    for name, a in inputs().items():
        np.save(HERE / f"{name}.npy", a)
        print(f"wrote {name}.npy {a.shape} {a.dtype}")
