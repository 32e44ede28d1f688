"""Layer shapes of well-known open LLMs, from their published configurations.

A decoder layer's linear projections are GEMMs ``x (M x K) . W^T``, with M the
tokens in flight: a decode step's batch (1 to a few dozen), or a prefill's
prompt length (thousands). From a model's ``config.json`` (hidden size H,
intermediate size I, attention heads h, key/value heads h_kv, head
dimension d, which is H / h unless the config names it):

====== ========== ==========
layer  K          N
====== ========== ==========
q      H          h x d
k, v   H          h_kv x d
o      h x d      H
gate   H          I
up     H          I
down   I          H
====== ========== ==========

>>> [(s.layer, s.m, s.n, s.k) for s in layers("llama-3-8b", 16)][:4]
[('q', 16, 4096, 4096), ('k', 16, 1024, 4096), ('v', 16, 1024, 4096), ('o', 16, 4096, 4096)]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TilesimError

__all__ = ["Model", "MODELS", "LAYERS", "Shape", "model", "layers"]


@dataclass(frozen=True)
class Model:
    """The fields of a model's published config that fix its layer shapes, and where they come from."""

    name: str
    hidden: int  # hidden_size
    intermediate: int  # intermediate_size
    heads: int  # num_attention_heads
    kv_heads: int  # num_key_value_heads
    source: str  # the config.json it was read from
    head_dim: int = 0  # head_dim when the config names it, else hidden / heads

    @property
    def d(self) -> int:
        return self.head_dim or self.hidden // self.heads


MODELS: tuple[Model, ...] = (
    Model("llama-3-8b", 4096, 14336, 32, 8,
          "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json"),
    Model("llama-3-70b", 8192, 28672, 64, 8,
          "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json"),
    Model("mistral-7b", 4096, 14336, 32, 8,
          "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json"),
    Model("qwen2.5-7b", 3584, 18944, 28, 4,
          "https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json"),
)

LAYERS: tuple[str, ...] = ("q", "k", "v", "o", "gate", "up", "down")


@dataclass(frozen=True)
class Shape:
    """A GEMM ``C (M x N) = A (M x K) x B (K x N)``, and the model layer it comes from (if any)."""

    m: int
    n: int
    k: int
    model: str = ""
    layer: str = ""

    @property
    def label(self) -> str:
        dims = f"{self.m}x{self.n}x{self.k}"
        return f"{self.layer} {dims}" if self.layer else dims


def model(name: str) -> Model:
    """A preset by name (case and ``_`` / ``-`` do not matter).

    Raises:
        TilesimError: no such preset (rule ``study.preset``); the message lists them.
    """
    key = name.strip().lower().replace("_", "-")
    for m in MODELS:
        if m.name == key:
            return m
    raise TilesimError(f"unknown model {name!r}; presets: " + ", ".join(m.name for m in MODELS),
                       instruction="study", operand="--model", rule="study.preset", value=name)


def layers(name: str, tokens: int, only: tuple[str, ...] = LAYERS) -> list[Shape]:
    """The projections ``only`` (default: all of :data:`LAYERS`) of a preset, with M = ``tokens``.

    Raises:
        TilesimError: an unknown preset (``study.preset``) or layer (``study.layer``).
    """
    mdl = model(name)
    for layer in only:
        if layer not in LAYERS:
            raise TilesimError(f"unknown layer {layer!r}; layers: " + ", ".join(LAYERS), instruction="study",
                               operand="--layer", rule="study.layer", value=layer)
    h, q, kv = mdl.hidden, mdl.heads * mdl.d, mdl.kv_heads * mdl.d
    kn = {"q": (h, q), "k": (h, kv), "v": (h, kv), "o": (q, h), "gate": (h, mdl.intermediate),
          "up": (h, mdl.intermediate), "down": (mdl.intermediate, h)}
    return [Shape(tokens, kn[x][1], kn[x][0], mdl.name, x) for x in LAYERS if x in only]
