"""What the "Your model's RoPE" page draws, cached: the shipped presets (public config.json values), and for one
model's RoPE (a :class:`posenc.model_config.RopeConfig`) its wavelengths, counts and decay bound before and after its
scaling, keyed by the config and the language.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import streamlit as st
import torch

from charts.checkpoints import Question
from figures.model_rope import LABEL_KEYS, bound_figure, wavelength_figure
from posenc.decay import distance_grid, full_turn_pairs, rope_decay_bound_at, rope_wavelengths
from posenc.model_config import RopeConfig, beyond_training_angles, model_rope_inv_freq, softmax_scale_factor
from posenc.rope import rope_inv_freq
from ui.i18n import catalog, text
from ui.once import computed_once

PRESETS_FILE = Path(__file__).resolve().parents[1] / "assets" / "model_configs.json"
DEFAULT_PRESET = "llama-3.1-8b"
BOUND_POINTS = 256  # distances the decay bound is drawn at (0, then spaced evenly on the log axis)


@computed_once
def presets() -> dict[str, dict]:
    """The shipped models by id: {"name", "source" (the Hugging Face repository), "config" (its config.json's RoPE
    values)}, in the file's order."""
    entries = json.loads(PRESETS_FILE.read_text(encoding="utf-8"))["presets"]
    return {entry["id"]: {key: entry[key] for key in ("name", "source", "config")} for entry in entries}


def preset_name(lang: str, key: str) -> str:
    """A preset's name in ``lang``: the catalog's (model_rope.preset_names, where the name carries a description),
    else the file's (a bare model name reads the same in every language)."""
    return catalog(lang).get(f"model_rope.preset_names.{key}") or presets()[key]["name"]


def preset_source(lang: str, key: str) -> str:
    """Where a preset's values come from, in ``lang``: its Hugging Face repository, with the catalog's note on it
    (model_rope.source_notes) where the file's source carries one."""
    source = presets()[key]["source"]
    note = catalog(lang).get(f"model_rope.source_notes.{key}")
    if note is None:
        return source
    return text(lang, "model_rope.source_with_note", repo=source.split(" (")[0], note=note)


def chart_words(lang: str) -> dict[str, str]:
    """Every word the charts show, in ``lang`` (catalog keys without the ``model_rope.`` prefix)."""
    return {key: text(lang, f"model_rope.{key}") for key in LABEL_KEYS}


@st.cache_data(show_spinner=False, max_entries=64)
def model_picture(config: RopeConfig) -> dict:
    """Everything the page shows of one model's RoPE, from posenc: θ_i and θ'_i (``model_rope_inv_freq``; dynamic
    NTK read at the extended length), their wavelengths (``rope_wavelengths``), which pairs turn fully within
    training (``full_turn_pairs``), which meet angles never seen in training at the extended length without and with
    scaling (``beyond_training_angles``), and RoFormer's bound (``rope_decay_bound_at``) before and after, the latter
    times the attention factor squared."""
    train, extended = config.training_length, config.extended_length
    original, _ = model_rope_inv_freq(config, scaled=False, dtype=torch.float64)
    scaled, attention = model_rope_inv_freq(config, seq_len=extended, dtype=torch.float64)
    distances = distance_grid(extended, BOUND_POINTS)
    return {
        "wavelength": rope_wavelengths(original).numpy(),
        "scaled_wavelength": rope_wavelengths(scaled).numpy(),
        "completes": full_turn_pairs(original, train).numpy(),
        "beyond_before": int(beyond_training_angles(original, train, original, extended).sum()),
        "beyond_after": int(beyond_training_angles(original, train, scaled, extended).sum()),
        "attention": attention,
        "distances": distances.numpy(),
        "bound_before": rope_decay_bound_at(distances, original).numpy(),
        "bound_after": (rope_decay_bound_at(distances, scaled) * attention**2).numpy(),
    }


@st.cache_resource(show_spinner=False, max_entries=16)
def wavelength_chart(lang: str, config: RopeConfig):
    picture = model_picture(config)
    labels = chart_words(lang)
    after = picture["scaled_wavelength"] if config.is_scaled else None
    return wavelength_figure(picture["wavelength"], after, picture["completes"], config.training_length,
                             config.extended_length, labels)  # fmt: skip


@st.cache_resource(show_spinner=False, max_entries=16)
def bound_chart(lang: str, config: RopeConfig):
    picture = model_picture(config)
    after = picture["bound_after"] if config.is_scaled else None
    return bound_figure(picture["distances"], picture["bound_before"], after, config.training_length,
                        config.extended_length, chart_words(lang))  # fmt: skip


def summary_counts(config: RopeConfig) -> dict[str, int | float]:
    """The numbers the page's sentences quote: pairs, pairs that turn fully in training and those that do not, pairs
    beyond the trained angles at the extended length without and with scaling, the attention factor, and how many
    times slower the slowest pair turns at the extended length (θ_(P−1)/θ'_(P−1)), its wavelength before scaling."""
    picture = model_picture(config)
    full = int(np.count_nonzero(picture["completes"]))
    slowdown = float(picture["scaled_wavelength"][-1] / picture["wavelength"][-1])  # λ'/λ = θ/θ'
    local_full = 0
    if config.local_base is not None:  # Gemma 3's local layers: plain RoPE at their own base, within their window
        window = config.sliding_window or config.training_length
        local_freq = rope_inv_freq(config.local_rotary_dim, config.local_base, torch.float64)  # all of its own head
        local_full = int(full_turn_pairs(local_freq, window).sum())
    return {"pairs": config.pairs, "full": full, "never": config.pairs - full, "attention": picture["attention"],
            "before": picture["beyond_before"], "after": picture["beyond_after"], "slowdown": slowdown,
            "softmax": softmax_scale_factor(config), "local_full": local_full,
            "slowest": float(picture["wavelength"][-1])}  # fmt: skip


def chunked_rope(config: RopeConfig) -> bool:
    """Whether the config is Llama 4's: llama3 scaling with low_freq_factor = high_freq_factor (a step, no blend
    band), whose RoPE layers attend within chunks of ``training_length`` (original_max_position_embeddings, 8 192),
    so no query in them meets a distance of that length, at any context length."""
    return config.rope_type == "llama3" and config.low_freq_factor == config.high_freq_factor


def model_turning_pairs(config: RopeConfig) -> Question:
    """How many of the model's P rotated pairs make at least one full turn within its training context, at the
    frequencies it really uses before scaling (``model_rope_inv_freq``: base^(−2i/D), or base^(−2i/H) for
    proportional RoPE). Choices (distinct): the true count, none, half and all. Facts (numbers): the count, P, the
    length, its longest distance and the d of the formula (H for proportional RoPE, else D)."""
    inv_freq, _ = model_rope_inv_freq(config, scaled=False, dtype=torch.float64)
    pairs, train = config.pairs, config.training_length
    count = int(full_turn_pairs(inv_freq, train).sum())
    d = config.head_dim if config.rope_type == "proportional" else config.rotary_dim  # the d of θ_i = base^(−2i/d)
    facts = {"count": count, "pairs": pairs, "train": train, "longest": train - 1, "d": d}
    return Question(tuple(sorted({count, 0, pairs // 2, pairs})), count, facts)
