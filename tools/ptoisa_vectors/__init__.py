"""Golden vectors from pto-isa's CPU simulator (``__CPU_SIM``), and tilesim's agreement with them.

    python tools/ptoisa_vectors PTO_ISA_CHECKOUT [-o tests/pto/golden] [--cxx clang++-19] [--check]
                                 [--ops tdiv,texp] [--keep BUILD_DIR] [--jobs 2] [--bf16-cxx G++]
                                 [--gxx-ops trowsum]
    python tools/ptoisa_vectors [PTO_ISA_CHECKOUT] --check-only [-o tests/pto/golden]

(``python -m ptoisa_vectors`` with ``tools`` on ``PYTHONPATH`` is the same.) One module per op family
makes the cases (``convert``, ``reduce``, ``elementwise``... over the helpers of ``common``), ``families``
lists them in drawing order, ``driver`` builds and runs the C++ driver, ``bank`` stores and replays the
vectors, ``cli`` is the command line.

The script makes its own cases (inputs that hit ties, NaN at and after index 0,
+-0, +-Inf, subnormals, out-of-range conversions, odd and empty valid shapes,
ND/DN/boxed layouts, every dtype pair and TCVT mode the simulator compiles;
Acc, Scaling quant-word and MX scale tiles for TEXTRACT_FP/TINSERT_FP and
TMATMUL_MX, fp4 E2M1/E1M2 operands, 64-bit pre-quant scalars for TMOV,
TEXTRACT and TINSERT; custom pad words for bf16 TFILLPAD/TLOAD),
writes a C++ driver for them into a temporary folder, builds it against the
checkout's headers with clang (>= 17; Debian's ``clang-19`` works) using the
flags of pto-isa's own CPU test build (``tests/cpu/st/CMakeLists.txt``:
C++20, ``-O2``, ``-DNDEBUG``, ``-D__CPU_SIM``), runs it, and stores one
compact ``<op>.npz`` per op: the inputs, the reference's outputs and the
checkout's commit (format: ``tests/pto/ptoisa_golden.py``). ``--check``
replays them through tilesim (target ``cpu``) and prints the coverage table:
per tilesim op, how many cases agree bit for bit, the ops without vectors and
why, and (given the checkout) the simulator's entry points tilesim lacks.
Nothing of pto-isa's is copied: the driver is generated here and only
includes the checkout's public headers.

The driver is compiled in translation units of one op each (at most
``TU_KERNELS`` kernels), named by a hash of their text, the compiler and the
checkout, so a kept build folder (``--keep``) rebuilds only the units whose
kernels changed; ``--ops`` regenerates only those ops' files. Each family of
cases after the first five draws from its own generator, so adding one
changes no stored file.

bf16 cases (families ``*_bf16_cases``: the other families with their dtype
tables narrowed to bf16) need a real bfloat16: without C++23
``std::bfloat16_t`` the simulator aliases ``bfloat16_t`` to ``_Float16``
(PTO88), and Debian 12's clang 19 (libstdc++ 12, libc++ 19) has no
``<stdfloat>``. They are built only with ``--bf16-cxx``, a g++ >= 14 in C++23
with ``-DPTO_CPU_SIM_ENABLE_BF16=1 -DCPU_SIM_BFLOAT_ENABLED=1`` (pto-isa's
option ``PTO_CPU_SIM_ENABLE_BF16``), possibly run in a chroot whose view of
the checkout and of ``--keep`` has the same paths:

    python tools/ptoisa_vectors PTO_ISA_CHECKOUT --keep /srv/build --ops tcvt.bf16,tadd.bf16
                                 --bf16-cxx "chroot /srv/trixie g++-14"

and stored as ``<op>.bf16.npz`` with that compiler's version; the other files
stay clang's. ``--gxx-ops trowsum`` also builds an op's plain (not bf16) cases
with that g++ and stores them as ``<op>.gxx.npz``: the build a program with
bf16 runs as on ``cpu`` (PTO193), replayed on ``cpu`` with ``gxx``.
``--check`` shows the banks side by side.
"""

from .families import all_cases

__all__ = ["all_cases"]
