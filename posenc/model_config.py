"""A real model's RoPE, read from its Hugging Face ``config.json``: which frequencies it turns at, before and after
its ``rope_scaling``, and how far its context reaches.

Shape letters: H = head_dim (features per attention head), D = rotated features = int(H · partial_rotary_factor),
P = D/2 rotation pairs. Pair i turns at θ_i = rope_theta^(−2i/D) (the rotated part only: the other H − D features of
each head carry no position, as in GPT-NeoX's ``rotary_pct`` and Phi's ``partial_rotary_factor``).

The config keys are Hugging Face's (``transformers`` ``PretrainedConfig`` and ``modeling_rope_utils``), in both
spellings seen in published files: ``rope_scaling`` with ``type`` (older files) or ``rope_type``, and the
``rope_parameters`` dict of transformers ≥ 5; GPT-NeoX's ``rotary_pct`` and ``rotary_emb_base``. Keys this module
does not use are ignored. A value that is missing, of the wrong kind or out of range raises :class:`ConfigError`, a
``ValueError`` that names the key and says what was expected.

Sources: Su et al., "RoFormer", arXiv 2104.09864 §3.2; Black et al., "GPT-NeoX-20B", arXiv 2204.06745 §2.1.1
(rotary on 25% of each head); Peng et al., "YaRN", arXiv 2309.00071 §3.2 (wavelengths against the training
context); the scaling itself is :mod:`posenc.rope_scaling`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

import torch

from posenc.frequency_allocation import proportional_inv_freq
from posenc.rope import rope_inv_freq
from posenc.rope_scaling import ROPE_SCALING_METHODS, rope_scaled_inv_freq

ROPE_TYPES = ("default", *ROPE_SCALING_METHODS, "longrope", "proportional")  # "default": no scaling
GEMMA4_GLOBAL_HEAD_DIM = 512  # transformers' Gemma4TextConfig: global_head_dim when the config does not give it
MROPE_AXES = 3  # Qwen2-VL's M-RoPE: time, height, width

# Caps that keep one pasted config cheap for a classroom server; every published model is well inside them.
MAX_CONFIG_CHARS = 50_000  # a config.json is 1–10 kB; longer text is refused unread
MAX_HEAD_DIM = 1024  # features per head (published models: 64 … 256); at most 512 pairs are drawn
MAX_POSITIONS = 1 << 24  # 16.7 M tokens: above every published context window (10 M at most)
MAX_BASE = 10**12  # rope_theta (published: 10 000 … 10⁸)
MAX_FACTOR = 1024  # rope_scaling.factor (published: 2 … 64)

# Every problem a config can have: ConfigError.problem -> its English sentence ({field} is the key as written in
# config.json). The app shows the same sentences from its catalogs (locales/<lang>/model_rope.toml, error_<problem>).
PROBLEMS = {
    "too_long": "The text is longer than {limit:,} characters; a config.json is a few kilobytes.",
    "bad_json": "This is not valid JSON (line {line}, column {column}).",
    "not_object": "The config must be a JSON object: {{ … }} with keys such as hidden_size.",
    "missing": "`{field}` is missing: it is needed to know the rotated dimensions or the context length.",
    "missing_layers": "`{field}` is missing: the layer view needs the number of layers.",
    "not_number": "`{field}` must be a number.",
    "not_whole": "`{field}` must be a whole number.",
    "not_positive": "`{field}` must be greater than 0.",
    "too_large": "`{field}` must be at most {limit:,}.",
    "base_too_small": "`{field}` must be greater than 1 (the base of θ_i = base^(−2i/d); 10000 is usual).",
    "factor_below_one": (
        "`{field}` must be at least 1: the scale factor s (for linear, what every frequency is divided by; for yarn"
        " and llama3, what the slowest pairs' frequencies are divided by; for dynamic, how fast the base grows once a"
        " sequence outgrows the training length)."
    ),
    "not_fraction": "`{field}` must be more than 0 and at most 1: the share of each head that is rotated.",
    "not_divisible": "`{field}` must be divisible by `num_attention_heads` to give the head dimension.",
    "odd_rotary": "`{field}` gives {rotated} rotated features per head, an odd number: RoPE rotates pairs.",
    "too_few_rotary": "`{field}` leaves fewer than 2 rotated features per head: RoPE needs at least one pair.",
    "not_table": "`{field}` must be a JSON object ({{ … }}) or null.",
    "unsupported_type": (
        "`{field}` must be one of default, linear, dynamic, yarn, llama3, longrope, proportional, mrope."
    ),
    "not_bool": "`{field}` must be true or false.",
    "frequency_order": "`{field}` must be at least `low_freq_factor`.",
    "not_list": "`{field}` must be a list of {count} numbers, one per rotated pair.",
    "not_layer_list": "`{field}` must be a list of 0s and 1s, one per layer (1: the layer uses RoPE).",
    "not_layer_types": (
        "`{field}` must be a list of {layers} layer kinds: full_attention, sliding_attention or chunked_attention."
    ),
    "mrope_sum": "`{field}` must be 3 whole numbers (time, height, width) that add up to the {pairs} rotated pairs.",
}


class ConfigError(ValueError):
    """A config value that cannot be used: ``field`` (the key, dotted inside ``rope_scaling``), ``problem`` (a key of
    :data:`PROBLEMS`) and the sentence's other ``params``; ``str(error)`` is the English sentence."""

    def __init__(self, field: str, problem: str, **params):
        self.field, self.problem, self.params = field, problem, params
        super().__init__(PROBLEMS[problem].format(field=field, **params))


@dataclass(frozen=True)
class RopeConfig:
    """What a model's RoPE depends on, read from its config by :func:`rope_config_from_dict`."""

    head_dim: int  # features per attention head: head_dim, or hidden_size / num_attention_heads
    rotary_dim: int  # features rotated per head: int(head_dim · partial_rotary_factor), even
    base: float  # rope_theta (GPT-NeoX: rotary_emb_base); 10000 when absent, as transformers assumes
    max_position_embeddings: int  # the longest context the config declares
    training_length: int  # the context before scaling: original_max_position_embeddings, else max_position_embeddings
    rope_type: str = "default"  # one of ROPE_TYPES; "default" is plain RoPE
    factor: float = 1.0  # rope_scaling.factor: what θ_i is divided by (linear: every pair; yarn, llama3: the slow ones)
    beta_fast: float = 32.0  # yarn: pairs turning more often than this in the training context keep θ_i
    beta_slow: float = 1.0  # yarn: pairs turning less often than this get θ_i / factor
    low_freq_factor: float = 1.0  # llama3: wavelengths above training_length / low_freq_factor get θ_i / factor
    high_freq_factor: float = 4.0  # llama3: wavelengths below training_length / high_freq_factor keep θ_i
    attention_factor: float | None = None  # yarn: given in the config, else 0.1·ln(factor) + 1
    truncate: bool = True  # yarn: the ramp's ends rounded outwards to whole pairs (False: gpt-oss, left fractional)
    short_factor: tuple[float, ...] = ()  # longrope: pair i turns at θ_i / short_factor_i up to training_length
    long_factor: tuple[float, ...] = ()  # longrope: … and at θ_i / long_factor_i once a sequence is longer
    mscale: float | None = None  # yarn (DeepSeek): cos, sin × get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)
    mscale_all_dim: float | None = None  # yarn (DeepSeek): the softmax scale × get_mscale(s, mscale_all_dim)²
    layers: int = 0  # num_hidden_layers (0: not in the config)
    nope_layers: tuple[int, ...] = ()  # layers that apply no RoPE at all (no_rope_layers[l] == 0: SmolLM3, Llama 4)
    local_base: float | None = None  # Gemma 3: rope_local_base_freq of its sliding-window layers (plain RoPE)
    sliding_window: int = 0  # Gemma 3: the local layers' window (tokens)
    local_layers: tuple[int, ...] = ()  # Gemma 3: which layers are local (the others use base and the scaling)
    mrope_section: tuple[int, ...] = ()  # Qwen2-VL: how many pairs turn with the time, height, width position
    mrope_interleaved: bool = False  # Qwen3-VL: height and width on every third pair (posenc.mrope_axis_of_pairs)
    local_head_dim: int = 0  # Gemma 4: its sliding layers' head_dim (head_dim is then global_head_dim); 0: the same

    @property
    def pairs(self) -> int:
        """P = D/2 rotation pairs per head."""
        return self.rotary_dim // 2

    @property
    def local_rotary_dim(self) -> int:
        """Features rotated per head in the sliding-window layers (Gemma 3, 4): all of ``local_head_dim`` when it
        differs from the global head (Gemma 4), else ``rotary_dim``."""
        return self.local_head_dim or self.rotary_dim

    @property
    def is_scaled(self) -> bool:
        """Whether the frequencies change past training: any ``rope_type`` but default, and proportional with
        factor 1 (Gemma 4), which only sets which pairs turn."""
        return self.rope_type != "default" and not (self.rope_type == "proportional" and self.factor == 1)

    @property
    def extended_length(self) -> int:
        """The context the scaling is for: max_position_embeddings when it exceeds the training length, else
        factor · training_length.

        Hugging Face's convention for linear, dynamic and (Qwen's) YaRN configs keeps max_position_embeddings at the
        training length and lets the factor say how much longer the context becomes; Llama 3.1, most YaRN
        fine-tunes and Gemma 3 state the longer context as max_position_embeddings and the old one as
        original_max_position_embeddings: then max_position_embeddings is the context (Gemma 3 scales its
        32K-token pre-training by 8 but declares 128K).
        """
        if self.rope_type in ("default", "longrope") or self.max_position_embeddings > self.training_length:
            return max(self.max_position_embeddings, self.training_length)  # the config states the longer context
        return round(self.factor * self.training_length)


def rope_config_from_json(text: str) -> RopeConfig:
    """:func:`rope_config_from_dict` of a ``config.json``'s text; invalid JSON raises :class:`ConfigError` too."""
    if len(text) > MAX_CONFIG_CHARS:
        raise ConfigError("config.json", "too_long", limit=MAX_CONFIG_CHARS)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError("config.json", "bad_json", line=error.lineno, column=error.colno) from None
    except (RecursionError, ValueError):  # nesting deeper than Python's stack; an integer of 4 300+ digits
        raise ConfigError("config.json", "bad_json", line=1, column=1) from None
    return rope_config_from_dict(data)


def rope_config_from_dict(config: Mapping) -> RopeConfig:
    """The RoPE of a model from its ``config.json`` (as a dict), checked; unknown keys are ignored.

    head_dim H = ``head_dim`` or ``hidden_size / num_attention_heads``; rotated D = int(H · ``partial_rotary_factor``
    or ``rotary_pct``, default 1); θ_i = ``rope_theta`` (or ``rotary_emb_base``)^(−2i/D); the scaling from
    ``rope_scaling`` (or ``rope_parameters``): ``rope_type`` or ``type`` in ROPE_TYPES and its own keys, as
    transformers' ``modeling_rope_utils`` reads them. The training length is ``original_max_position_embeddings``
    (the top-level key first, as transformers does, then the one in ``rope_scaling``), else
    ``max_position_embeddings``; dynamic NTK always measures from ``max_position_embeddings``, as transformers does.
    Raises: :class:`ConfigError` naming the key. Source: transformers ``modeling_rope_utils.py``.
    """
    if not isinstance(config, Mapping):
        raise ConfigError("config.json", "not_object")
    if isinstance(config.get("text_config"), Mapping):  # a multimodal model (Gemma 3, Llama 4): its language model
        config = {**config, **config["text_config"]}
    scaling_key = "rope_scaling" if config.get("rope_scaling") is not None else "rope_parameters"
    scaling = config.get(scaling_key)
    if scaling is None:
        scaling = {}
    if not isinstance(scaling, Mapping):
        raise ConfigError(scaling_key, "not_table")
    local_scaling = None
    if isinstance(scaling.get("full_attention"), Mapping):  # transformers ≥ 5 writes one block per layer type
        local_scaling, scaling_key = scaling.get("sliding_attention"), f"{scaling_key}.full_attention"
        scaling = scaling["full_attention"]

    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    type_key = f"{scaling_key}.{'rope_type' if 'rope_type' in scaling else 'type'}"
    rope_type = {"mrope": "default", "su": "longrope"}.get(rope_type, rope_type)  # Qwen2-VL's and Phi-3's old names
    if rope_type not in ROPE_TYPES:
        raise ConfigError(type_key, "unsupported_type")
    head_dim, local_head_dim = _head_dim(config), 0
    global_head_dim = _global_head_dim(config)
    if global_head_dim is not None and global_head_dim != head_dim:  # Gemma 4: the global layers' heads are wider
        head_dim, local_head_dim = global_head_dim, head_dim
    rotary_dim = _rotary_dim(config, scaling, scaling_key, head_dim, proportional=rope_type == "proportional")
    base = _base(config, scaling, scaling_key)
    max_positions = _whole(config, "max_position_embeddings", limit=MAX_POSITIONS)

    common = {"head_dim": head_dim, "rotary_dim": rotary_dim, "base": base, "max_position_embeddings": max_positions,
              "local_head_dim": local_head_dim}  # fmt: skip
    common |= _layers(config, scaling, scaling_key, rotary_dim, local_scaling)
    if rope_type == "proportional":  # Gemma 4's global layers: the first pairs at base^(−2i/H), the rest unrotated
        trained = _original_length(config, scaling, scaling_key) or max_positions
        factor = _factor(scaling, scaling_key) if scaling.get("factor") is not None else 1.0
        return RopeConfig(**common, training_length=trained, rope_type="proportional", factor=factor)
    if rope_type == "default":
        trained = _original_length(config, {}, scaling_key) or max_positions
        return RopeConfig(**common, training_length=trained)
    if rope_type == "longrope":
        return _longrope(config, scaling, scaling_key, common)
    if rope_type == "dynamic":  # transformers grows the base from max_position_embeddings, whatever else is given
        return RopeConfig(**common, training_length=max_positions, rope_type="dynamic",
                          factor=_factor(scaling, scaling_key))  # fmt: skip
    trained = _original_length(config, scaling, scaling_key) or max_positions
    if rope_type == "linear":
        return RopeConfig(**common, training_length=trained, rope_type="linear", factor=_factor(scaling, scaling_key))
    if rope_type == "llama3":
        low = _number(scaling, "low_freq_factor", scaling_key, required=True, limit=MAX_FACTOR)
        high = _number(scaling, "high_freq_factor", scaling_key, required=True, limit=MAX_FACTOR)
        if high < low:  # equal is a step, no blend band (Llama 4 Scout; transformers only warns)
            raise ConfigError(f"{scaling_key}.high_freq_factor", "frequency_order")
        factor = _factor(scaling, scaling_key)
        return RopeConfig(**common, training_length=trained, rope_type="llama3", factor=factor,
                          low_freq_factor=low, high_freq_factor=high)  # fmt: skip
    # yarn
    mscales = {key: _number(scaling, key, scaling_key, limit=100) if scaling.get(key) is not None else None
               for key in ("mscale", "mscale_all_dim")}  # fmt: skip
    truncate = scaling.get("truncate", True)  # gpt-oss: false, an unrounded ramp
    if not isinstance(truncate, bool):
        raise ConfigError(f"{scaling_key}.truncate", "not_bool")
    # a yarn config without a factor means max_position_embeddings / original (transformers)
    factor = _factor(scaling, scaling_key) if scaling.get("factor") is not None else max_positions / trained
    if factor < 1:
        raise ConfigError(f"{scaling_key}.original_max_position_embeddings", "too_large", limit=max_positions)
    if factor > MAX_FACTOR:
        raise ConfigError("max_position_embeddings", "too_large", limit=MAX_FACTOR * trained)
    attention = scaling.get("attention_factor")
    return RopeConfig(
        **common,
        training_length=trained,
        rope_type="yarn",
        factor=factor,
        beta_fast=_number(scaling, "beta_fast", scaling_key, default=32.0, limit=MAX_POSITIONS),
        beta_slow=_number(scaling, "beta_slow", scaling_key, default=1.0, limit=MAX_POSITIONS),
        attention_factor=None if attention is None else _number(scaling, "attention_factor", scaling_key, limit=100),
        truncate=truncate,
        **mscales,
    )


def _longrope(config: Mapping, scaling: Mapping, scaling_key: str, common: dict) -> RopeConfig:
    """LongRoPE (Phi-3, Phi-3.5, MiniCPM): one factor per pair for short and for long sequences."""
    trained = _original_length(config, scaling, scaling_key) or common["max_position_embeddings"]
    pairs = common["rotary_dim"] // 2
    lists = {key: _factor_list(scaling, key, scaling_key, pairs) for key in ("short_factor", "long_factor")}
    if scaling.get("factor") is not None:
        factor = _number(scaling, "factor", scaling_key, limit=MAX_FACTOR)
    else:  # transformers: the ratio of the two context lengths
        factor = common["max_position_embeddings"] / trained
    attention = scaling.get("attention_factor")
    attention = None if attention is None else _number(scaling, "attention_factor", scaling_key, limit=100)
    return RopeConfig(**common, training_length=trained, rope_type="longrope", factor=factor,
                      attention_factor=attention, **lists)  # fmt: skip


def _factor_list(scaling: Mapping, key: str, scaling_key: str, pairs: int) -> tuple[float, ...]:
    values = scaling.get(key)
    name = f"{scaling_key}.{key}"
    if not isinstance(values, list) or len(values) != pairs:
        raise ConfigError(name, "not_list", count=pairs)
    return tuple(_number({key: value}, key, scaling_key, limit=MAX_FACTOR) for value in values)


def _layers(config: Mapping, scaling: Mapping, scaling_key: str, rotary_dim: int, local_scaling) -> dict:
    """What differs between layers: NoPE layers (``no_rope_layers``, as SmolLM3 and Llama 4 default it), Gemma 3's
    local layers (``rope_local_base_freq``, ``sliding_window``, ``layer_types`` or ``sliding_window_pattern``), and
    Qwen2-VL's ``mrope_section``. Returns RopeConfig fields."""
    out: dict = {}
    layers = _whole(config, "num_hidden_layers", limit=10_000) if config.get("num_hidden_layers") is not None else 0
    out["layers"] = layers
    flags = config.get("no_rope_layers")
    if not flags and config.get("model_type") in ("smollm3", "llama4", "llama4_text") and layers:
        interval = _whole(config, "no_rope_layer_interval", limit=10_000) if config.get(
            "no_rope_layer_interval") is not None else 4  # fmt: skip
        flags = [int((layer + 1) % interval != 0) for layer in range(layers)]
    if flags:
        if (not isinstance(flags, list) or any(flag not in (0, 1) or isinstance(flag, float) for flag in flags)
                or (layers and len(flags) != layers)):  # fmt: skip
            raise ConfigError("no_rope_layers", "not_layer_list")
        out["nope_layers"] = tuple(layer for layer, flag in enumerate(flags) if flag == 0)
        out["layers"] = layers or len(flags)
    local_base = config.get("rope_local_base_freq")
    if isinstance(local_scaling, Mapping) and local_scaling.get("rope_theta") is not None:
        local_base = _base(local_scaling, {}, "")
    elif local_base is not None:
        local_base = _number(config, "rope_local_base_freq", limit=MAX_BASE)
        if local_base <= 1:
            raise ConfigError("rope_local_base_freq", "base_too_small")
    if local_base is not None:
        out["local_base"] = local_base
        if config.get("sliding_window") is not None:
            out["sliding_window"] = _whole(config, "sliding_window", limit=MAX_POSITIONS)
        kinds = config.get("layer_types")
        if isinstance(kinds, list):
            out["local_layers"] = tuple(layer for layer, kind in enumerate(kinds) if kind == "sliding_attention")
        elif layers:
            pattern = _whole(config, "sliding_window_pattern", limit=10_000) if config.get(
                "sliding_window_pattern") is not None else 6  # fmt: skip
            out["local_layers"] = tuple(layer for layer in range(layers) if (layer + 1) % pattern)
    section = scaling.get("mrope_section")
    if section is not None:
        pairs = rotary_dim // 2
        parts_ok = isinstance(section, list) and all(type(part) is int and part >= 0 for part in section)
        if not parts_ok or len(section) != MROPE_AXES or sum(section) != pairs:
            raise ConfigError(f"{scaling_key}.mrope_section", "mrope_sum", pairs=pairs)
        out["mrope_section"] = tuple(section)
        # Qwen3-VL's config says mrope_interleaved: true; transformers' Qwen3-VL code interleaves whatever it says
        interleaved = scaling.get("mrope_interleaved", str(config.get("model_type", "")).startswith("qwen3_vl"))
        if not isinstance(interleaved, bool):
            raise ConfigError(f"{scaling_key}.mrope_interleaved", "not_bool")
        out["mrope_interleaved"] = interleaved
    return out


def rope_config_to_dict(config: RopeConfig) -> dict:
    """The smallest ``config.json`` (Hugging Face keys) that :func:`rope_config_from_dict` reads back as ``config``:
    what a shared link carries. Keys: head_dim, partial_rotary_factor (when not 1), rope_theta,
    max_position_embeddings, original_max_position_embeddings (when it differs), rope_scaling (when scaled)."""
    if config.rope_type == "proportional":
        return _proportional_dict(config)
    out: dict = {"head_dim": config.head_dim}
    if config.rotary_dim != config.head_dim:
        share = config.rotary_dim / config.head_dim
        if int(config.head_dim * share) != config.rotary_dim:  # 71 · (28/71) = 27.999…: aim at the middle, D + ½
            share = (config.rotary_dim + 0.5) / config.head_dim
        out["partial_rotary_factor"] = share
    out |= {"rope_theta": config.base, "max_position_embeddings": config.max_position_embeddings}
    if config.rope_type == "default":
        if config.training_length != config.max_position_embeddings:
            out["original_max_position_embeddings"] = config.training_length
        return out | _layer_fields(config, None)
    scaling: dict = {"rope_type": config.rope_type, "factor": config.factor}
    if config.rope_type != "dynamic":
        scaling["original_max_position_embeddings"] = config.training_length
    if config.rope_type == "llama3":
        scaling |= {"low_freq_factor": config.low_freq_factor, "high_freq_factor": config.high_freq_factor}
    if config.rope_type == "yarn":
        scaling |= {"beta_fast": config.beta_fast, "beta_slow": config.beta_slow}
        scaling |= {key: getattr(config, key) for key in ("mscale", "mscale_all_dim") if getattr(config, key)}
        if not config.truncate:
            scaling["truncate"] = False
    if config.rope_type == "longrope":
        scaling |= {"short_factor": list(config.short_factor), "long_factor": list(config.long_factor)}
    if config.attention_factor is not None:
        scaling["attention_factor"] = config.attention_factor
    return out | {"rope_scaling": scaling} | _layer_fields(config, scaling)


def _proportional_dict(config: RopeConfig) -> dict:
    """:func:`rope_config_to_dict` for proportional RoPE, in Gemma 4's form: ``rope_parameters`` per layer type (the
    global layers' ``proportional`` block, the sliding layers' plain one), ``global_head_dim`` when it differs."""
    share = config.rotary_dim / config.head_dim
    if 2 * int(share * config.head_dim // 2) != config.rotary_dim:  # aim between two roundings
        share = (config.rotary_dim + 1) / config.head_dim
    full = {"rope_type": "proportional", "rope_theta": config.base, "partial_rotary_factor": share}
    if config.factor != 1:
        full["factor"] = config.factor
    out: dict = {"head_dim": config.local_head_dim or config.head_dim}
    if config.local_head_dim:
        out["global_head_dim"] = config.head_dim
    out["max_position_embeddings"] = config.max_position_embeddings
    if config.training_length != config.max_position_embeddings:
        out["original_max_position_embeddings"] = config.training_length
    parameters = full
    if config.local_base is not None:
        parameters = {"full_attention": full, "sliding_attention": {"rope_type": "default",
                                                                    "rope_theta": config.local_base}}  # fmt: skip
    return out | {"rope_parameters": parameters} | _layer_fields(config, None)


def _layer_fields(config: RopeConfig, scaling: dict | None) -> dict:
    """The per-layer keys of :func:`rope_config_to_dict`: num_hidden_layers, no_rope_layers, Gemma 3's local layers,
    mrope_section (inside ``scaling``, created when needed)."""
    out: dict = {}
    if config.layers:
        out["num_hidden_layers"] = config.layers
    if config.nope_layers:
        out["no_rope_layers"] = [int(layer not in config.nope_layers) for layer in range(config.layers)]
    if config.local_base is not None:
        out["rope_local_base_freq"] = config.local_base
        if config.sliding_window:
            out["sliding_window"] = config.sliding_window
        if config.layers:
            out["layer_types"] = ["sliding_attention" if layer in config.local_layers else "full_attention"
                                  for layer in range(config.layers)]  # fmt: skip
    if config.mrope_section:
        out["rope_scaling"] = (scaling or {"rope_type": "default"}) | {"mrope_section": list(config.mrope_section)}
        if config.mrope_interleaved:
            out["rope_scaling"]["mrope_interleaved"] = True
    return out


def model_rope_inv_freq(
    config: RopeConfig, scaled: bool = True, seq_len: int | None = None, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, float]:
    """The frequencies a model turns its pairs at: θ_i = base^(−2i/D), then its scaling θ'_i (when ``scaled``).

    Dynamic NTK depends on the current length: ``seq_len`` (below the training length it changes nothing; None means
    the training length, as transformers does at load time). Proportional RoPE (Gemma 4): θ_i = base^(−2i/H) for the
    P rotated pairs, the head's other pairs unrotated (not returned). Returns: (inv_freq [P], attention_factor), the
    factor that multiplies cos and sin (so every logit by its square). Source: :func:`posenc.rope_scaled_inv_freq`,
    :func:`posenc.frequency_allocation.proportional_inv_freq`.
    """
    if config.rope_type == "proportional":  # θ_i = base^(−2i/H) over the whole head, the first P pairs; / factor
        share = config.rotary_dim / config.head_dim
        freq = proportional_inv_freq(config.head_dim, config.base, share, config.factor if scaled else 1.0, dtype)
        return freq[: config.pairs], 1.0
    if not scaled or config.rope_type == "default":
        return rope_inv_freq(config.rotary_dim, config.base, dtype=dtype), 1.0
    if config.rope_type == "longrope":  # θ_i / factor_i, the long list once the sequence outgrows training
        long = seq_len is not None and seq_len > config.training_length
        factors = torch.tensor(config.long_factor if long else config.short_factor, dtype=torch.float64)
        inv_freq = rope_inv_freq(config.rotary_dim, config.base, dtype=torch.float64) / factors
        return inv_freq.to(dtype), longrope_attention_factor(config)
    inv_freq, attention_factor = rope_scaled_inv_freq(
        config.rotary_dim,
        config.base,
        config.rope_type,
        config.factor,
        original_max_position=config.training_length,
        seq_len=seq_len,
        beta_fast=config.beta_fast,
        beta_slow=config.beta_slow,
        low_freq_factor=config.low_freq_factor,
        high_freq_factor=config.high_freq_factor,
        dtype=dtype,
        yarn_ramp_form="huggingface" if config.truncate else "unrounded",
    )
    if config.attention_factor is not None:
        return inv_freq, config.attention_factor
    if config.rope_type == "yarn" and config.mscale and config.mscale_all_dim:  # DeepSeek
        return inv_freq, _yarn_mscale(config.factor, config.mscale) / _yarn_mscale(config.factor, config.mscale_all_dim)
    return inv_freq, attention_factor


def _yarn_mscale(factor: float, mscale: float = 1.0) -> float:
    """YaRN's √(1/t) with DeepSeek's weight: 0.1·mscale·ln(s) + 1 (1 when s ≤ 1)."""
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def longrope_attention_factor(config: RopeConfig) -> float:
    """LongRoPE's factor on cos and sin: the config's ``attention_factor``, else √(1 + ln s / ln L_train) (1 when
    s ≤ 1), s = factor (max_position_embeddings / original_max_position_embeddings when not given). Source:
    transformers ``_compute_longrope_parameters``."""
    if config.attention_factor is not None:
        return config.attention_factor
    if config.factor <= 1:
        return 1.0
    return math.sqrt(1 + math.log(config.factor) / math.log(config.training_length))


def softmax_scale_factor(config: RopeConfig) -> float:
    """What a model multiplies its softmax scale 1/√d by, besides the factor on cos and sin: DeepSeek's YaRN models
    by (0.1·mscale_all_dim·ln s + 1)², every other model by 1. Source: transformers ``modeling_deepseek_v3``
    (``yarn_apply_mscale``)."""
    if config.rope_type == "yarn" and config.mscale_all_dim:
        return _yarn_mscale(config.factor, config.mscale_all_dim) ** 2
    return 1.0


def beyond_training_angles(trained_freq: torch.Tensor, training_length: int, freq: torch.Tensor, length: int):
    """Pairs that meet angles never seen in training: they never made a full turn in the training context,
    (L_train − 1)·θ_i < 2π, and a context of ``length`` tokens takes them past the trained range of positions
    [0, L_train): (L − 1)·θ'_i ≥ L_train·θ_i.

    A pair that turned fully in training has seen every angle; one that did not has seen only an arc of its circle.
    Plain RoPE leaves that arc one token past the training length; interpolation by s maps positions 0 … s·L_train − 1
    to m/s < L_train, inside it. Shapes: trained_freq [P] (θ_i), freq [P] (θ'_i, the same or scaled) -> [P] bool.
    Source: arXiv 2309.00071 §3.2.
    """
    trained_freq, freq = trained_freq.to(torch.float64), freq.to(torch.float64)
    never_full = (training_length - 1) * trained_freq < 2 * math.pi  # only an arc of the circle seen in training
    # the position reached, in the angle's units: past L_train·θ_i lies an angle no trained position had
    return never_full & ((length - 1) * freq >= training_length * trained_freq)


def _head_dim(config: Mapping) -> int:
    if config.get("qk_rope_head_dim") is not None:  # DeepSeek's MLA: qk_nope_head_dim + qk_rope_head_dim per head
        nope = _whole(config, "qk_nope_head_dim", limit=MAX_HEAD_DIM) if config.get("qk_nope_head_dim") else 0
        return nope + _whole(config, "qk_rope_head_dim", limit=MAX_HEAD_DIM)
    if config.get("head_dim") is not None:
        return _whole(config, "head_dim", limit=MAX_HEAD_DIM)
    hidden = _whole(config, "hidden_size", limit=MAX_HEAD_DIM * 4096)
    heads = _whole(config, "num_attention_heads", limit=4096)
    if hidden % heads:
        raise ConfigError("hidden_size", "not_divisible")
    if hidden // heads > MAX_HEAD_DIM:
        raise ConfigError("hidden_size", "too_large", limit=MAX_HEAD_DIM * heads)
    return hidden // heads


def _global_head_dim(config: Mapping) -> int | None:
    """Gemma 4's ``global_head_dim``: the head size of its full-attention layers (transformers' default 512 for a
    gemma4 config without it); None for every other model."""
    if config.get("global_head_dim") is not None:
        return _whole(config, "global_head_dim", limit=MAX_HEAD_DIM)
    if str(config.get("model_type", "")).startswith("gemma4"):
        return GEMMA4_GLOBAL_HEAD_DIM
    return None


def _rotary_dim(config: Mapping, scaling: Mapping, scaling_key: str, head_dim: int, proportional: bool = False) -> int:
    for where, key in ((config, "partial_rotary_factor"), (config, "rotary_pct"), (scaling, "partial_rotary_factor")):
        if where.get(key) is not None:
            name = key if where is config else f"{scaling_key}.{key}"
            share = _number(where, key, "" if where is config else scaling_key)
            if not 0 < share <= 1:
                raise ConfigError(name, "not_fraction")
            break
    else:
        name, share = "head_dim" if config.get("head_dim") is not None else "hidden_size", 1.0
        if config.get("qk_rope_head_dim") is not None:  # DeepSeek: only the qk_rope_head_dim features are rotated
            name, share = "qk_rope_head_dim", config["qk_rope_head_dim"] / head_dim
    # transformers' rounding: int(), not round() (DeepSeek names its rotated features directly); proportional RoPE
    # rotates int(p·H // 2) pairs
    if proportional:
        rotated = 2 * int(share * head_dim // 2)
    elif name == "qk_rope_head_dim":
        rotated = round(head_dim * share)
    else:
        rotated = int(head_dim * share)
    if rotated < 2:
        raise ConfigError(name, "too_few_rotary")
    if rotated % 2:
        raise ConfigError(name, "odd_rotary", rotated=rotated)
    return rotated


def _base(config: Mapping, scaling: Mapping, scaling_key: str) -> float:
    for where, key in ((config, "rope_theta"), (config, "rotary_emb_base"), (scaling, "rope_theta")):
        if where.get(key) is not None:
            name = key if where is config else f"{scaling_key}.{key}"
            base = _number(where, key, "" if where is config else scaling_key, limit=MAX_BASE)
            if base <= 1:
                raise ConfigError(name, "base_too_small")
            return base
    return 10000.0


def _factor(scaling: Mapping, scaling_key: str) -> float:
    factor = _number(scaling, "factor", scaling_key, required=True, limit=MAX_FACTOR)
    if factor < 1:
        raise ConfigError(f"{scaling_key}.factor", "factor_below_one")
    return factor


def _original_length(config: Mapping, scaling: Mapping, scaling_key: str) -> int | None:
    if config.get("original_max_position_embeddings") is not None:
        return _whole(config, "original_max_position_embeddings", limit=MAX_POSITIONS)
    if scaling.get("original_max_position_embeddings") is not None:
        return _whole(scaling, "original_max_position_embeddings", limit=MAX_POSITIONS, prefix=scaling_key)
    return None


def _number(
    where: Mapping, key: str, prefix: str = "", required: bool = False, default: float = 1.0, limit: float = 1e12
) -> float:
    """A positive number up to ``limit`` from ``where[key]`` (JSON numbers only: no text, no true/false)."""
    name = f"{prefix}.{key}" if prefix else key
    value = where.get(key)
    if value is None:
        if required:
            raise ConfigError(name, "missing")
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(name, "not_number")
    if isinstance(value, float) and not math.isfinite(value):  # NaN, Infinity, 1e999
        raise ConfigError(name, "not_number")
    if value <= 0:
        raise ConfigError(name, "not_positive")
    if value > limit:  # compared before float(): a 400-digit integer does not fit a float
        raise ConfigError(name, "too_large", limit=int(limit))
    return float(value)


def _whole(where: Mapping, key: str, limit: int, prefix: str = "") -> int:
    """A whole number 1 … limit from ``where[key]`` (8192 or 8192.0)."""
    name = f"{prefix}.{key}" if prefix else key
    value = _number(where, key, prefix, required=True, limit=limit)
    if not value.is_integer():
        raise ConfigError(name, "not_whole")
    return int(value)
