"""The presets' layer shapes follow the models' published configurations.

The numbers below are transcribed here from each model's config.json on Hugging Face, independently of the
preset table, and the layer shapes are derived here from the standard decoder layer (q/k/v/o attention
projections with grouped-query attention, a gated MLP)."""

import pytest

from tilesim.errors import TilesimError
from tilesim.study import presets

# name: (hidden_size, intermediate_size, num_attention_heads, num_key_value_heads, head_dim)
PUBLISHED = {
    "llama-3-8b": (4096, 14336, 32, 8, 128),   # meta-llama/Meta-Llama-3-8B
    "llama-3-70b": (8192, 28672, 64, 8, 128),  # meta-llama/Meta-Llama-3-70B
    "mistral-7b": (4096, 14336, 32, 8, 128),   # mistralai/Mistral-7B-v0.1
    "qwen2.5-7b": (3584, 18944, 28, 4, 128),   # Qwen/Qwen2.5-7B
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
@pytest.mark.parametrize("tokens", [1, 16, 2048])
def test_layer_shapes(name, tokens):
    hidden, inter, heads, kv, d = PUBLISHED[name]
    want = {  # layer: (M, N, K) of x (M x K) . W^T, W (N x K) = nn.Linear(in=K, out=N)
        "q": (tokens, heads * d, hidden), "k": (tokens, kv * d, hidden), "v": (tokens, kv * d, hidden),
        "o": (tokens, hidden, heads * d), "gate": (tokens, inter, hidden), "up": (tokens, inter, hidden),
        "down": (tokens, hidden, inter),
    }
    got = {s.layer: (s.m, s.n, s.k) for s in presets.layers(name, tokens)}
    assert got == want
    mdl = presets.model(name)
    assert (mdl.hidden, mdl.intermediate, mdl.heads, mdl.kv_heads, mdl.d) == PUBLISHED[name]
    assert mdl.source.startswith("https://huggingface.co/") and mdl.source.endswith("/config.json")


def test_llama_3_8b_decode_layer():
    """Spot values: the shapes the issue's study runs (M = 16)."""
    shapes = [(s.layer, s.n, s.k) for s in presets.layers("Llama-3-8B", 16)]
    assert shapes == [("q", 4096, 4096), ("k", 1024, 4096), ("v", 1024, 4096), ("o", 4096, 4096),
                      ("gate", 14336, 4096), ("up", 14336, 4096), ("down", 4096, 14336)]
    assert [s.layer for s in presets.layers("llama_3_8b", 16, ("down", "q"))] == ["q", "down"]


def test_errors():
    with pytest.raises(TilesimError) as e:
        presets.model("gpt-5")
    assert e.value.rule == "study.preset" and "llama-3-8b" in str(e.value)
    with pytest.raises(TilesimError) as e:
        presets.layers("llama-3-8b", 16, ("qkv",))
    assert e.value.rule == "study.layer" and "gate" in str(e.value)
