"""What the KV-cache sections of "RoPE at inference time" draw, cached: scores of a query against keys cached with
other position ids or other frequencies (left padding, dynamic NTK, LongRoPE's short → long switch), and the error of
a cached chunk moved to a new offset by rotating its keys, with the cost of that against recomputing them.
"""

import math

import numpy as np
import streamlit as st
import torch

from charts import SHARED_ENTRIES
from charts.checkpoints import Question
from charts.model_rope import presets
from figures.common import lines_figure
from figures.decay import COLORS
from figures.inference import move_error_figure
from figures.table import Table
from posenc.kv_cache import (
    cached_scores,
    decoder_params,
    dynamic_ntk_cache_inv_freq,
    longrope_cache_inv_freq,
    move_cached_keys,
    recompute_flops,
    rerotate_keys,
    rerotation_flops,
)
from posenc.model_config import model_rope_inv_freq, rope_config_from_dict
from posenc.rope import apply_rope, rope_inv_freq
from posenc.rope_scaling import rope_scaled_inv_freq
from ui.i18n import number, text
from ui.live import spread_evenly
from ui.once import computed_once

PLOTTED_POINTS = 512  # distances a curve is sent at, at most (about one per pixel of a wide chart)
KV_CASES = ("padding", "dynamic", "longrope")
KV_TRAIN = 2048  # the dynamic case: training length …
KV_FACTOR = 2.0  # … and transformers' dynamic factor
KV_PROMPT = 2048  # … a prompt that fills the training length, prefilled in one pass (the original base) …
KV_QUERY = 4095  # … then decoded token by token up to the query's position: the base grew at every step past 2 048
KV_PADS = 64  # the padding case: pads the cache counted and the new token did not
KV_SHOWN = 512  # the nearest cached keys drawn in the padding case (distances 1 … 512: about one point per pixel)
LONGROPE_PRESET = "phi-3.5-mini"  # the LongRoPE case: Phi-3.5 mini's head (d = 96, base 10 000, L_orig = 4 096) …
LONGROPE_PROMPT = 2048  # … a prompt within L_orig, prefilled with the short factors …
LONGROPE_QUERY = 6143  # … decoded token by token past the switch at 4 096


@computed_once
def longrope_head():
    """Phi-3.5 mini's RoPE as its config.json gives it (posenc's RopeConfig: rotary_dim, base, training_length = L_orig,
    short_factor, long_factor)."""
    return rope_config_from_dict(presets()[LONGROPE_PRESET]["config"])


@computed_once(maxsize=1)
def kv_longrope_scores() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The LongRoPE cache as transformers' rotary embedding fills it in a forward loop (no cache reset): the query at
    LONGROPE_QUERY, with the long factors, against every cached key (q = k = all ones), keys written by passes no
    longer than L_orig with the short factors (posenc's ``longrope_cache_inv_freq``), and as recomputing everything
    (one pass, long factors) scores them. Returns: distances m − n, recomputed, cached; each [LONGROPE_QUERY], nearest
    key first."""
    head = longrope_head()
    positions = torch.arange(LONGROPE_QUERY - 1, -1, -1)
    per_key = longrope_cache_inv_freq(head.rotary_dim, head.base, head.short_factor, head.long_factor,
                                      head.training_length, LONGROPE_PROMPT, positions)  # fmt: skip
    long, _ = model_rope_inv_freq(head, seq_len=LONGROPE_QUERY + 1, dtype=torch.float64)
    ones = torch.ones(head.rotary_dim, dtype=torch.float64)
    keys = ones.expand(LONGROPE_QUERY, head.rotary_dim)
    right = cached_scores(ones, keys, LONGROPE_QUERY, positions, long, long)
    cached = cached_scores(ones, keys, LONGROPE_QUERY, positions, long, per_key)
    return LONGROPE_QUERY - positions, right, cached


@computed_once(maxsize=64)
def kv_dynamic_scores(dim: int, base: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The dynamic-NTK cache as transformers fills it: the query at KV_QUERY against every cached key (q = k = all
    ones), each key rotated with the base of the step that cached it (posenc's ``dynamic_ntk_cache_inv_freq``: the
    prompt's KV_PROMPT keys with the original one), and as recomputing everything with the query's base would score
    them. Returns: distances m − n, recomputed, cached; each [KV_QUERY], nearest key first."""
    positions = torch.arange(KV_QUERY - 1, -1, -1)  # n = m − 1 … 0
    now, _ = rope_scaled_inv_freq(dim, base, "dynamic", KV_FACTOR, KV_TRAIN, seq_len=KV_QUERY + 1,
                                  dtype=torch.float64)  # the query's step: length m + 1  # fmt: skip
    per_key = dynamic_ntk_cache_inv_freq(dim, base, KV_FACTOR, KV_TRAIN, KV_PROMPT, positions)  # [N, D/2]
    ones = torch.ones(dim, dtype=torch.float64)
    keys = ones.expand(KV_QUERY, dim)
    right = cached_scores(ones, keys, KV_QUERY, positions, now, now)
    cached = cached_scores(ones, keys, KV_QUERY, positions, now, per_key)
    return KV_QUERY - positions, right, cached


@st.cache_resource(show_spinner=False, max_entries=SHARED_ENTRIES)
def kv_cache_chart(lang: str, dim: int, base: float, case: str):
    """Scores of the query against its cached keys (q = k = all ones), as recomputed and as a cache gives them
    (posenc's ``cached_scores``): the KV_SHOWN nearest with position ids off by KV_PADS, or every key of a cache filled
    by prefill and decoding under dynamic NTK (:func:`kv_dynamic_scores`) or LongRoPE (:func:`kv_longrope_scores`),
    PLOTTED_POINTS distances drawn."""
    if case == "padding":
        theta = rope_inv_freq(dim, base, dtype=torch.float64)
        ones = torch.ones(dim, dtype=torch.float64)
        keys = ones.expand(KV_SHOWN, dim)
        positions = torch.arange(KV_QUERY - 1, KV_QUERY - KV_SHOWN - 1, -1)  # nearest first
        right = cached_scores(ones, keys, KV_QUERY, positions, theta, theta)
        wrong = cached_scores(ones, keys, KV_QUERY, positions + KV_PADS, theta, theta)  # keys counted the pads
        distance = (KV_QUERY - positions).numpy()
    else:
        distances, right, wrong = kv_dynamic_scores(dim, base) if case == "dynamic" else kv_longrope_scores()
        drawn = spread_evenly(0, len(distances) - 1, PLOTTED_POINTS)  # indices into the nearest-first arrays
        distance, right, wrong = distances.numpy()[drawn], right[drawn], wrong[drawn]
    if case == "longrope":
        numbers = {"query": LONGROPE_QUERY, "train": longrope_head().training_length, "prompt": LONGROPE_PROMPT}
    else:
        numbers = {"query": KV_QUERY, "train": KV_TRAIN, "prompt": KV_PROMPT}
    facts = {key: number(lang, value) for key, value in numbers.items()} | {"pads": KV_PADS}
    series = [
        {"name": text(lang, "inference.kv_right"), "y": right.numpy(), "color": COLORS[0], "width": 3},
        {"name": text(lang, f"inference.kv_wrong_{case}", **facts), "y": wrong.numpy(), "color": COLORS[1],
         "width": 2, "dash": "dot"},
    ]  # fmt: skip
    title = text(lang, f"inference.kv_title_{case}", **facts)
    return lines_figure(distance, series, title, text(lang, "inference.distance"), text(lang, "inference.ones_score"))


@computed_once(maxsize=64)
def kv_question(dim: int, base: float) -> Question:
    """Dynamic NTK grows the base while the cache fills: do the cached keys keep their rotation? Choices:
    "rerotated", "kept" (right: transformers stores rotated keys), "unrotated". Facts: the all-ones score at
    distance 1 and at the distance where the cache is farthest from recomputing, recomputed and from the cache
    (:func:`kv_dynamic_scores`); the lengths and distances as numbers (``ui.i18n.shown_values``)."""
    distances, right, cached = kv_dynamic_scores(dim, base)
    far = int((cached - right).abs().argmax())
    facts = {"train": KV_TRAIN, "query": KV_QUERY, "prompt": KV_PROMPT,
             "near_right": f"{right[0].item():.1f}", "near_wrong": f"{cached[0].item():.1f}",
             "far": int(distances[far].item()), "right": f"{right[far].item():.1f}",
             "wrong": f"{cached[far].item():.1f}"}  # fmt: skip
    return Question(("rerotated", "kept", "unrotated"), "kept", facts)


# ---- Serving: a cached chunk moved to a new offset ----

MOVE_CHUNK = 512  # a chunk cached alone at positions 0 … 511 (within every training length: the original θ) …
MOVE_SHIFTS = tuple(sorted({round(value) for value in np.geomspace(1, 65536, 49)}))  # … reused Δ positions on
MOVE_FACTOR = 32.0  # YaRN's and dynamic NTK's s (Phi-3.5 mini's 131 072 / 4 096)
MOVE_KINDS = ("default", "yarn", "dynamic", "longrope", "full")  # curve -> catalog key move_<kind>


def move_frequencies(kind: str, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(θ the chunk was cached with, alone; θ' of a text ``length`` tokens long) on Phi-3.5 mini's head, for each way
    of scaling: plain RoPE and YaRN do not depend on the length, dynamic NTK grows its base past L_train, LongRoPE
    switches to its long factors past L_orig. float64 [D/2] each."""
    head = longrope_head()
    dim, base, train = head.rotary_dim, head.base, head.training_length
    if kind == "longrope":
        return (model_rope_inv_freq(head, seq_len=MOVE_CHUNK, dtype=torch.float64)[0],
                model_rope_inv_freq(head, seq_len=length, dtype=torch.float64)[0])  # fmt: skip
    if kind == "default":
        theta = rope_inv_freq(dim, base, dtype=torch.float64)
        return theta, theta
    cached, _ = rope_scaled_inv_freq(dim, base, kind, MOVE_FACTOR, train, seq_len=MOVE_CHUNK, dtype=torch.float64)
    now, _ = rope_scaled_inv_freq(dim, base, kind, MOVE_FACTOR, train, seq_len=length, dtype=torch.float64)
    return cached, now


@computed_once(maxsize=1)
def move_errors() -> dict[str, np.ndarray]:
    """For every Δ of MOVE_SHIFTS: the chunk's keys (seeded random q, k, one per feature) rotated in float32 at 0 … C−1
    with the θ of a pass over the chunk alone, then moved to Δ … Δ+C−1 in float32, scored by the query right after
    them against the same keys rotated there in float64 with the θ' of the new text (length Δ + C + 1): the largest
    |score error|. "default", "yarn", "dynamic", "longrope": moved by R_Δ(θ') (posenc's ``rerotate_keys``); "full":
    dynamic NTK and LongRoPE moved pair by pair, (p + Δ)·θ'_i − p·θ_i (``move_cached_keys``), the larger error of
    the two."""
    head = longrope_head()
    generator = torch.Generator().manual_seed(0)
    query = torch.randn(head.rotary_dim, generator=generator, dtype=torch.float64)
    keys = torch.randn(MOVE_CHUNK, head.rotary_dim, generator=generator, dtype=torch.float64)
    positions = torch.arange(MOVE_CHUNK)
    errors = {kind: [] for kind in MOVE_KINDS}
    cached = {}  # kind -> (θ of the chunk alone, its keys rotated with it in float32, as a cache holds them)
    for kind in MOVE_KINDS[:-1]:
        theta, _ = move_frequencies(kind, MOVE_CHUNK)
        cached[kind] = theta, apply_rope(keys.float(), positions, inv_freq=theta)
    for shift in MOVE_SHIFTS:
        end = shift + MOVE_CHUNK  # the query's position
        full = 0.0
        for kind, (cached_with, cached_keys) in cached.items():
            _, now = move_frequencies(kind, end + 1)
            rotated_query = apply_rope(query[None], torch.tensor([end]), inv_freq=now)[0]
            right = apply_rope(keys, positions + shift, inv_freq=now) @ rotated_query
            moved = rerotate_keys(cached_keys, shift, now).double() @ rotated_query
            errors[kind].append((moved - right).abs().max().item())
            if kind in ("dynamic", "longrope"):
                exact = move_cached_keys(cached_keys, positions, positions + shift, cached_with, now).double()
                full = max(full, (exact @ rotated_query - right).abs().max().item())
        errors["full"].append(full)
    return {"shifts": np.array(MOVE_SHIFTS)} | {kind: np.array(values) for kind, values in errors.items()}


@st.cache_resource(show_spinner=False, max_entries=SHARED_ENTRIES)
def move_chart(lang: str):
    """:func:`move_errors` drawn: one curve per way of moving the chunk, and the Δ from which the new text is longer
    than Phi-3.5 mini's L_orig marked."""
    errors = move_errors()
    curves = {text(lang, f"inference.move_{kind}", factor=f"{MOVE_FACTOR:g}"): errors[kind] for kind in MOVE_KINDS}
    train = longrope_head().training_length
    labels = {key: text(lang, f"inference.{key}") for key in ("move_axis_x", "move_axis_y")}
    labels["mark"] = text(lang, "inference.move_mark", train=number(lang, train))
    labels["at"] = str(train - MOVE_CHUNK - 1)  # the Δ past which the text (Δ + C + 1 tokens) outgrows L_train
    title = text(lang, "inference.move_title", chunk=number(lang, MOVE_CHUNK))
    return move_error_figure(errors["shifts"], curves, title, labels)


# (catalog key of the name, hidden size, layers, query heads, key-value heads, head dim, MLP width), from config.json
SERVED_MODELS = (
    ("move_model_llama", 4096, 32, 32, 8, 128, 14336),  # meta-llama/Llama-3.1-8B
    ("move_model_phi", 3072, 32, 32, 32, 96, 8192),  # microsoft/Phi-3.5-mini-instruct
)
SERVED_CHUNK, SERVED_PREFIX = 1000, 10_000  # a 1 000-token chunk placed after 10 000 tokens
MOVE_COLUMNS = ("model", "move", "recompute", "ratio")
COST_UNITS = (("move", 1e6, ".0f"), ("recompute", 1e12, ".1f"), ("ratio", 1, ".0f"))  # shown in M, T FLOPs and ×


def move_costs(name_key: str, hidden: int, layers: int, heads: int, kv_heads: int, head_dim: int, mlp: int) -> dict:
    """FLOPs to move SERVED_CHUNK tokens' keys (posenc's ``rerotation_flops``) and to recompute them by a forward pass
    over the chunk after SERVED_PREFIX tokens (``recompute_flops``, each token attending to the prefix and half the
    chunk on average)."""
    params = decoder_params(hidden, layers, heads, kv_heads, head_dim, mlp)
    move = rerotation_flops(SERVED_CHUNK, layers, kv_heads, head_dim)
    recompute = recompute_flops(SERVED_CHUNK, params, layers, heads * head_dim, SERVED_PREFIX + SERVED_CHUNK / 2)
    return {"name": name_key, "move": move, "recompute": recompute, "ratio": recompute / move}


@st.cache_data(show_spinner=False, max_entries=8)
def move_cost_table(lang: str) -> Table:
    """One row per model of SERVED_MODELS (its name heads the row): the two costs of :func:`move_costs` and their
    ratio."""
    rows = []
    for model in SERVED_MODELS:
        cost = move_costs(*model)
        move, recompute, ratio = (number(lang, cost[key] / unit, spec) for key, unit, spec in COST_UNITS)
        rows.append([text(lang, f"inference.{cost['name']}"), f"{move} M", f"{recompute} T", f"{ratio}×"])
    columns = [text(lang, f"inference.move_column_{key}", chunk=number(lang, SERVED_CHUNK)) for key in MOVE_COLUMNS]
    return Table.of(columns, rows, row_headers=True)


@computed_once(maxsize=1)
def move_question() -> Question:
    """A chunk cached at 0 … C−1 is reused after a prefix of SERVED_PREFIX tokens, plain RoPE: what must happen to
    its cached keys? Choices: "nothing" (RoPE is relative: wrong, the query is SERVED_PREFIX further on), "rotate"
    (right: R_Δ), "recompute" (works, at the cost ratio of :func:`move_costs` for Llama 3.1 8B). Facts: numbers
    (``ui.i18n.shown_values``)."""
    cost = move_costs(*SERVED_MODELS[0])
    facts = {"chunk": SERVED_CHUNK, "last": SERVED_CHUNK - 1, "prefix": SERVED_PREFIX,
             "end": SERVED_PREFIX + SERVED_CHUNK - 1, "ratio": round(cost["ratio"])}  # fmt: skip
    return Question(("nothing", "rotate", "recompute"), "rotate", facts)


@computed_once(maxsize=1)
def longrope_facts() -> dict[str, int | str]:
    """The numbers the LongRoPE notice quotes, from :func:`kv_longrope_scores`: the keys written after the switch
    (exact), and the all-ones score at the last key written before it, recomputed and as cached (text); the lengths
    and positions whole numbers, for ``ui.i18n.shown_values``."""
    distances, right, cached = kv_longrope_scores()
    train = longrope_head().training_length
    last_short = int((distances == LONGROPE_QUERY - (train - 1)).nonzero()[0, 0])  # the key at train − 1
    return {"train": train, "at": train - 1, "after": LONGROPE_QUERY - train,
            "right": f"{right[last_short].item():.1f}", "wrong": f"{cached[last_short].item():.1f}"}  # fmt: skip


@computed_once(maxsize=1)
def move_facts() -> dict[str, int | str]:
    """The numbers the moving notices quote: the largest error of a move by R(Δ) for plain RoPE and YaRN, the range of
    dynamic NTK's and LongRoPE's past the training length (text), and the cost ratio for each served model and the
    lengths (whole numbers, for ``ui.i18n.shown_values``)."""
    errors = move_errors()
    past = errors["shifts"] + MOVE_CHUNK + 1 > longrope_head().training_length
    stale = np.concatenate([errors[kind][past] for kind in ("dynamic", "longrope")])
    exact = max(errors[kind].max() for kind in ("default", "yarn", "full"))
    ratios = {name: round(move_costs(name, *sizes)["ratio"]) for name, *sizes in SERVED_MODELS}
    exponent = math.floor(math.log10(exact))
    mantissa = math.ceil(exact / 10**exponent - 1e-9)  # one digit, rounded up: the notice says "stays below" it
    mantissa, exponent = (1, exponent + 1) if mantissa == 10 else (mantissa, exponent)
    power = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return {"exact": f"{mantissa}·10{power}", "low": f"{stale.min():.0f}", "high": f"{stale.max():.0f}",
            "llama": ratios["move_model_llama"], "phi": ratios["move_model_phi"], "chunk": SERVED_CHUNK,
            "prefix": SERVED_PREFIX, "context": SERVED_PREFIX + SERVED_CHUNK // 2}  # fmt: skip
