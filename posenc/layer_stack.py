"""A model's layers one by one, read from its ``config.json``: which attention each layer uses (full, a sliding window
or chunks), whether it applies RoPE (and with which base and scaling) or none (NoPE), whether Llama 4's attention
temperature tuning touches it, how far back a query can see, and what a longer context asks of the layer.

The fields are transformers' (configuration classes of Llama, Llama 4, Gemma 3, Gemma 4, SmolLM3, gpt-oss, Mistral):
``layer_types`` ("full_attention", "sliding_attention", "chunked_attention"), or, when a config leaves it out, the
list each configuration class builds: Gemma 3 and 4 make every ``sliding_window_pattern``-th layer (6) full and
the others sliding (Gemma 4 forces the last layer full); Llama 4 makes its RoPE layers chunked
(``attention_chunk_size``) and its NoPE layers full; SmolLM3 makes NoPE layers sliding only with
``use_sliding_window``; gpt-oss alternates sliding and full; Mistral with a ``sliding_window`` slides in every
layer; any other model attends fully everywhere. ``no_rope_layers`` (1: RoPE, 0: NoPE; Llama 4 and SmolLM3 default
to a NoPE layer every ``no_rope_layer_interval`` = 4 layers). The masks are transformers' ``masking_utils``: a
sliding window of W lets a query at m see keys n with 0 ≤ m − n < W; a chunk of C lets it see the keys of its own
chunk, ⌊n/C⌋ = ⌊m/C⌋, n ≤ m. Llama 4's temperature tuning multiplies the queries of its NoPE layers by
1 + attn_scale·ln(1 + ⌊(m + 1)/floor_scale⌋) (``Llama4TextAttention``; Nakanishi, "Scalable-Softmax Is Superior for
Attention", arXiv 2501.19399).

Sources: Meta, "The Llama 4 herd" (iRoPE: interleaved NoPE layers, 2025); Gemma Team, "Gemma 3 Technical Report",
arXiv 2503.19786 §2 (5 local layers of 1 024 tokens per global layer, bases 10 000 and 1 000 000); Hugging Face,
"SmolLM3" (NoPE in every 4th layer, 2025); OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (alternating banded
window of 128 tokens and full attention, 2025).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from posenc.decay import full_turn_pairs
from posenc.model_config import ConfigError, RopeConfig, _whole, model_rope_inv_freq, rope_config_from_dict
from posenc.rope import rope_inv_freq

ATTENTIONS = ("full", "sliding", "chunked")
# What a context longer than training asks of a layer (see extension_need)
NEEDS = ("nothing_window", "frequencies", "no_new_angles", "nope")


@dataclass(frozen=True)
class StackLayer:
    """One layer of a model, as far as positions go."""

    index: int  # counted from 0
    attention: str  # one of ATTENTIONS
    span: int  # sliding: the window W; chunked: the chunk C; full: 0 (no limit)
    rope: bool  # False: a NoPE layer (no rotation at all)
    base: float  # its RoPE base (0 for NoPE)
    rope_type: str  # the rope_type its frequencies come from ("default": unscaled), "none" for NoPE
    rotated_pairs: int  # pairs its RoPE rotates per head (0 for NoPE)
    head_dim: int  # features per head of this layer (Gemma 4's global layers are wider)
    temperature: bool  # Llama 4: its queries are scaled by 1 + attn_scale·ln(1 + ⌊(m + 1)/floor_scale⌋)

    @property
    def reach(self) -> int | None:
        """The largest distance m − n a query can see in this layer: W − 1 or C − 1, None when unbounded."""
        return None if self.attention == "full" else self.span - 1

    @property
    def kind(self) -> str:
        """The layer's kind for a legend: "<attention>_<rope|prope|nope>" (prope: proportional RoPE)."""
        position = "nope" if not self.rope else "prope" if self.rope_type == "proportional" else "rope"
        return f"{self.attention}_{position}"


def layer_stack(config: Mapping) -> tuple[StackLayer, ...]:
    """Every layer of the model whose ``config.json`` (a dict) is ``config``, in order.

    The RoPE of the full-attention layers is :func:`posenc.model_config.rope_config_from_dict`'s (base, scaling,
    rotated pairs); window layers of Gemma 3 and 4 use their own base (``rope_local_base_freq`` or the
    ``sliding_attention`` block), unscaled, over their own head; other window layers share the full layers' RoPE.
    Raises: :class:`posenc.model_config.ConfigError` naming the field (a config without ``num_hidden_layers`` names
    it: the stack needs the number of layers). Returns: one :class:`StackLayer` per layer.
    """
    rope = rope_config_from_dict(config)
    if isinstance(config.get("text_config"), Mapping):  # as rope_config_from_dict reads a multimodal config
        config = {**config, **config["text_config"]}
    if config.get("num_hidden_layers") is None:
        raise ConfigError("num_hidden_layers", "missing_layers")
    layers = _whole(config, "num_hidden_layers", limit=10_000)
    kinds = _layer_types(config, layers, rope)
    chunk = _span(config, "attention_chunk_size") if "chunked" in kinds else 0
    window = _span(config, "sliding_window") if "sliding" in kinds else 0
    tuning = config.get("attn_temperature_tuning", str(config.get("model_type", "")).startswith("llama4"))
    if not isinstance(tuning, bool | int | float):
        raise ConfigError("attn_temperature_tuning", "not_bool")
    is_llama4 = str(config.get("model_type", "")).startswith("llama4")
    stack = []
    for index, attention in enumerate(kinds):
        uses_rope = index not in rope.nope_layers
        local = attention != "full" and rope.local_base is not None  # Gemma 3, 4: the window layers' own RoPE
        if not uses_rope:
            base, rope_type, pairs = 0.0, "none", 0
        elif local:
            base, rope_type, pairs = rope.local_base, "default", rope.local_rotary_dim // 2
        else:
            base, rope_type, pairs = rope.base, rope.rope_type, rope.pairs
        head_dim = rope.local_head_dim if local and rope.local_head_dim else rope.head_dim
        span = {"full": 0, "sliding": window, "chunked": chunk}[attention]
        temperature = bool(is_llama4 and tuning and not uses_rope)  # Llama4TextAttention: NoPE layers only
        stack.append(StackLayer(index, attention, span, uses_rope, base, rope_type, pairs, head_dim, temperature))
    return tuple(stack)


def extension_need(layer: StackLayer, rope: RopeConfig) -> str:
    """What reading a context longer than training (``rope.training_length``) asks of ``layer`` (one of
    :data:`NEEDS`):

    "nothing_window": a window or chunk no longer than the training context: its RoPE sees only distances below
    the span, all of which it saw in training (the cache holds at most the span); "frequencies": full attention with
    RoPE pairs that never make a full turn in training, (L_train − 1)·θ_i < 2π: past L_train they reach angles never
    seen, which is what rope_scaling changes; "no_new_angles": full attention whose every rotated pair turns fully in
    training (proportional RoPE's fast pairs; its other pairs are not rotated), so no angle is new; "nope": full
    attention without RoPE: nothing to rescale, but each query spreads over more keys (the softmax flattens), which
    Llama 4's temperature tuning counters.
    """
    if layer.attention != "full" and layer.span <= rope.training_length:
        return "nothing_window"
    if not layer.rope:
        return "nope"
    inv_freq = _layer_inv_freq(layer, rope)
    return "no_new_angles" if bool(full_turn_pairs(inv_freq, rope.training_length).all()) else "frequencies"


def temperature_scale(position: int, floor_scale: int = 8192, attn_scale: float = 0.1) -> float:
    """Llama 4's factor on the queries of its NoPE layers at position m: 1 + attn_scale·ln(1 + ⌊(m + 1)/floor_scale⌋).
    Source: transformers ``Llama4TextAttention`` (``attn_temperature_tuning``)."""
    return 1.0 + attn_scale * math.log1p((position + 1) // floor_scale)


def _layer_inv_freq(layer: StackLayer, rope: RopeConfig):
    """The unscaled frequencies of a RoPE layer: a window layer's own base over its pairs, else the model's."""
    if layer.base != rope.base or layer.rotated_pairs != rope.pairs:
        return rope_inv_freq(2 * layer.rotated_pairs, layer.base)
    return model_rope_inv_freq(rope, scaled=False)[0]


def _layer_types(config: Mapping, layers: int, rope: RopeConfig) -> list[str]:
    """transformers' ``layer_types`` of the config, without the "_attention" suffix, or the list its configuration
    class builds when the config leaves it out."""
    model_type = str(config.get("model_type", ""))
    given = config.get("layer_types")
    if given is not None:
        names = {f"{kind}_attention": kind for kind in ATTENTIONS}
        if not isinstance(given, list) or len(given) != layers or any(kind not in names for kind in given):
            raise ConfigError("layer_types", "not_layer_types", layers=layers)
        return [names[kind] for kind in given]
    if model_type.startswith(("gemma3", "gemma4")):
        pattern = _whole(config, "sliding_window_pattern", limit=10_000) if config.get(
            "sliding_window_pattern") is not None else 6  # fmt: skip
        kinds = ["sliding" if (index + 1) % pattern else "full" for index in range(layers)]
        if model_type.startswith("gemma4"):
            kinds[-1] = "full"  # Gemma4TextConfig forces the last layer to full attention
        return kinds
    if model_type.startswith("llama4"):
        chunked = config.get("attention_chunk_size", 8192) is not None
        return ["full" if index in rope.nope_layers or not chunked else "chunked" for index in range(layers)]
    if model_type == "smollm3":
        sliding = bool(config.get("use_sliding_window")) and config.get("sliding_window") is not None
        return ["sliding" if sliding and index in rope.nope_layers else "full" for index in range(layers)]
    if model_type == "gpt_oss":
        return ["sliding" if (index + 1) % 2 else "full" for index in range(layers)]
    if model_type == "mistral" and config.get("sliding_window") is not None:
        return ["sliding"] * layers
    return ["full"] * layers


def _span(config: Mapping, key: str) -> int:
    """A window's or chunk's length in tokens (Llama 4's chunk defaults to 8 192, as its config class does)."""
    if key == "attention_chunk_size" and config.get(key) is None:
        return 8192
    return _whole(config, key, limit=1 << 24)
