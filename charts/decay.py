"""What the long-range decay page draws, cached: RoPE's decay bound and example scores against distance, the bound
for other bases, the pairs' wavelengths against the training length, and how linear, dynamic-NTK, YaRN and Llama 3
scaling stretch the frequencies and the decay, keyed by scalar inputs and the language.
"""

from typing import NamedTuple

import numpy as np
import torch

from charts import SHARED_ENTRIES
from figures.common import lines_figure
from figures.decay import (
    COLORS,
    LABEL_KEYS,
    METHODS,
    curves_figure,
    score_figure,
    wavelength_figure,
)
from figures.table import Table
from posenc.decay import (
    far_half_ones_score,
    full_turn_pairs,
    rope_wavelengths,
)
from posenc.fast import rope_decay_bound_by_blocks, rope_ones_score_by_blocks, rope_random_score_moments_by_blocks
from posenc.rope import rope_inv_freq
from posenc.rope_scaling import yarn_ramp
from ui.i18n import number, text
from ui.limits import LIMITS
from ui.live import spread_evenly
from ui.once import computed_once

LENGTHS = tuple(2**power for power in range(8, 18))  # 256 … 131 072 tokens
LIVE_POINTS = 128  # distances a live bound curve is drawn at, at most (send what is drawn: ~4 px apart)
PLOTTED_POINTS = 512  # distances a server-drawn curve is sent at, at most (about one per pixel of a wide chart)
COMPARED_BASES = (10000.0, 500000.0)  # the RoFormer / Llama 2 base and the Llama 3 base
KINDS = {"bound": "upper_bound", "ones": "ones_score"}  # decay curve -> catalog key of its name
CHART_KEYS = (*LABEL_KEYS, "base_chart_title", "base_curve", "extension_title_bound", "extension_title_ones")
CHART_KEYS += ("ones_score", "mark_training", "mark_target", "ratio_title", "ratio_axis")


def chart_words(lang: str) -> dict[str, str]:
    """Every word the charts show, in ``lang`` (catalog keys without the ``decay.`` prefix)."""
    return {key: text(lang, f"decay.{key}") for key in CHART_KEYS}


def span(max_distance: int) -> int:
    """Curves are computed up to the next power of two (≥ 256) and cut: a slider move stays a cache hit."""
    return max(256, 1 << (max_distance - 1).bit_length())


class ScoreCurves(NamedTuple):
    """The actual scores drawn beside the decay bound, each [R + 1] for r = 0 … R."""

    distance: np.ndarray  # r
    ones: np.ndarray  # q = k = all ones (posenc's rope_ones_score_at)
    mean: np.ndarray  # mean score over random q, k of the chosen similarity (exact: rope_random_score_moments)
    std: np.ndarray  # its standard deviation


@computed_once(maxsize=64)
def score_curves(dim: int, base: float, up_to: int, similarity: float) -> ScoreCurves:
    """The actual scores drawn beside the decay bound, r = 0 … up_to, computed by their equal fast forms in
    posenc.fast."""
    distances = torch.arange(up_to + 1)
    mean, std = rope_random_score_moments_by_blocks(dim, base, up_to, similarity)
    ones = rope_ones_score_by_blocks(distances, rope_inv_freq(dim, base, dtype=torch.float64))
    return ScoreCurves(distances.numpy(), ones.numpy(), mean.numpy(), std.numpy())


@computed_once(maxsize=64)
def decay_bound(dim: int, base: float, up_to: int) -> tuple:
    """(distances, bound): posenc's ``rope_decay_bound_at`` (by its equal fast form, without an [R, P] table)."""
    distances = torch.arange(up_to + 1)
    inv_freq = rope_inv_freq(dim, base, dtype=torch.float64)
    return distances.numpy(), rope_decay_bound_by_blocks(distances, inv_freq).numpy()


def live_distances(max_distance: int, log_x: bool, points: int = LIVE_POINTS) -> np.ndarray:
    """The distances a curve is drawn at: every one up to ``points``, else ``points`` of them spread evenly over
    0 … max_distance (log-spaced from 1 when the x axis is logarithmic)."""
    if max_distance < points or not log_x:
        return spread_evenly(0, max_distance, points)
    return np.unique(np.rint(np.geomspace(1, max_distance, points)).astype(np.int64))


# The distances the live bound's max-distance slider moves over: 16 … 8 192, about 1.5× apart.
LIVE_MAX_DISTANCES = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192)


@computed_once(maxsize=SHARED_ENTRIES)
def live_bound(lang: str, dim: int, base: float, max_distance: int, log_x: bool) -> dict:
    """What the live bound chart needs (static/views/decay_bound.js): its sliders, words and settings. The browser
    computes RoFormer's bound (posenc's ``rope_decay_bound_at``, by its twin) at :func:`live_distances` for any base,
    dim and max distance, the sidebar's base and dim while their thumbs move: no curve is sent."""
    controls = {"base": {"values": list(LIMITS.base_options)},
                "dim": {"min": LIMITS.dim_min, "max": LIMITS.dim_max, "step": LIMITS.dim_step},
                "max_distance": {"values": list(LIVE_MAX_DISTANCES)}}  # fmt: skip
    words = {name: text(lang, f"shared.{name}_label") for name in ("base", "dim")}
    words |= {"max_distance": text(lang, "decay.max_distance_label"), "hint": text(lang, "common.live_hint")}
    words |= {part: text(lang, f"decay.{key}") for part, key in LIVE_BOUND_WORDS.items()}
    panel = {"kind": "lines", "x": "distances", "series": [{"y": "bound"}], "log_x": log_x}
    server = {"base": base, "dim": dim, "max_distance": max_distance}
    return {"view": "decay_bound", "controls": controls, "server": server, "arrays": {}, "points": LIVE_POINTS,
            "log_x": log_x, "height": 420, "words": words, "panels": [panel]}  # fmt: skip


LIVE_BOUND_WORDS = {"title": "live_bound_title", "x": "distance", "y": "upper_bound"}


# Built figures are cached by their scalar inputs (never mutated): a move rebuilds only the charts it changes. The
# language is one of them, and the charts' words are looked up from it, so a figure drawn in one language is never
# served to a student reading another (a str is hashed in microseconds; the dict of words would take a millisecond).
@computed_once(maxsize=SHARED_ENTRIES)
def score_chart(lang: str, dim: int, base: float, max_distance: int, similarity: float, log_x: bool):
    labels = chart_words(lang)
    curves = score_curves(dim, base, span(max_distance), similarity)
    drawn = live_distances(max_distance, log_x, PLOTTED_POINTS)
    return score_figure(*(curve[drawn] for curve in curves), labels, log_x)


@computed_once(maxsize=SHARED_ENTRIES)
def base_chart(lang: str, dim: int, base: float, max_distance: int, log_x: bool):
    labels = chart_words(lang)
    bases = dict.fromkeys((*COMPARED_BASES, base))  # the shared base joins the comparison if it is another one
    tables = {
        labels["base_curve"].format(base=f"{value:,.0f}"): decay_bound(dim, value, span(max_distance))
        for value in bases
    }
    drawn = live_distances(max_distance, log_x, PLOTTED_POINTS)
    bounds = {label: bound[drawn] for label, (_, bound) in tables.items()}
    distances = next(iter(tables.values()))[0][drawn]
    return curves_figure(distances, bounds, labels["base_chart_title"], labels["bound"], labels, log_x)


@computed_once(maxsize=SHARED_ENTRIES)
def wavelength_chart(lang: str, dim: int, base: float, train: int):
    labels = chart_words(lang)
    inv_freq = rope_inv_freq(dim, base)
    return wavelength_figure(rope_wavelengths(inv_freq), full_turn_pairs(inv_freq, train), train, labels)


def base_follow(lang: str, dim: int, base: float, max_distance: int, log_x: bool) -> dict:
    """How the browser redraws :func:`base_chart` while the sidebar's dim or base moves (``ui.figure.figure_chart``'s
    ``follow``): the view static/views/decay_bases.js, with the twins of posenc's ``rope_inv_freq`` and
    ``rope_decay_bound_at`` at the distances drawn here."""
    data = {"compared": list(COMPARED_BASES), "max_distance": max_distance, "log_x": log_x, "points": PLOTTED_POINTS,
            "curve": text(lang, "decay.base_curve"), "colors": list(COLORS)}  # fmt: skip
    return {"view": "decay_bases", "follows": {"dim": dim, "base": base}, "data": data}


def score_follow(dim: int, base: float, max_distance: int, similarity: float, log_x: bool) -> dict:
    """How the browser redraws :func:`score_chart` while the sidebar's dim or base moves: the view
    static/views/decay_scores.js, with the twins of posenc's ``rope_ones_score_at`` and ``rope_random_score_moments``
    at the distances drawn here; ρ, the max distance and the axis are the section's own."""
    data = {"max_distance": max_distance, "log_x": log_x, "points": PLOTTED_POINTS, "similarity": similarity}
    return {"view": "decay_scores", "follows": {"dim": dim, "base": base}, "data": data}


def wavelength_follow(lang: str, dim: int, base: float, train: int) -> dict:
    """How the browser redraws :func:`wavelength_chart` while the sidebar's dim or base moves: the view
    static/views/decay_wavelengths.js, with the twins of posenc's ``rope_wavelengths`` and ``full_turn_pairs``."""
    data = {"train": train, "turned": text(lang, "decay.turned"), "never_turned": text(lang, "decay.never_turned")}
    return {"view": "decay_wavelengths", "follows": {"dim": dim, "base": base}, "data": data}


EXTENSION_FACTORS = (1, 2, 4, 8, 16, 32)  # s = target / training length (Llama 3.1: 8, from 8 192 tokens)
EXTENSION_POINTS = 128  # distances or pairs a live extension curve is drawn at, at most (send what is drawn)


@computed_once(maxsize=SHARED_ENTRIES)
def live_extension(lang: str, dim: int, base: float, kind: str, train: int, factor: float) -> dict:
    """What the live context-extension chart needs (static/views/decay_extension.js): its sliders (training length,
    factor), the words and the panels. The browser computes every method's θ'_i/θ_i against λ_i = 2π/θ_i at
    EXTENSION_POINTS pairs and its decay curve (the twins of posenc's ``rope_context_extension`` and
    ``rope_extension_decay``) at any training length and factor, and at the sidebar's dim and base, which it follows
    while their thumbs move: no curve is sent."""
    controls = {"train": {"values": list(LENGTHS[:-2])}, "factor": {"values": list(EXTENSION_FACTORS)}}
    data = {"view": "decay_extension", "controls": controls, "server": {"train": train, "factor": factor},
            "follows": {"dim": dim, "base": base}, "arrays": {}, "kind": kind, "points": EXTENSION_POINTS,
            "methods": list(METHODS)}  # fmt: skip
    labels = chart_words(lang)
    words = {"train": text(lang, "decay.ext_train_label"), "factor": text(lang, "decay.ext_factor_label")}
    words["hint"] = text(lang, "common.live_hint")
    marks = [{"x": "train_length", "label": labels["mark_training"]}, {"x": "target", "label": labels["mark_target"]}]

    def lines(prefix: str) -> list[dict]:
        return [{"y": f"{prefix}_{method}", "name": labels[f"method_{method}"], "color": COLORS[k],
                 "dash": method == "original"} for k, method in enumerate(METHODS)]  # fmt: skip

    ratio_words = {"title": labels["ratio_title"], "x": labels["wavelength_axis"], "y": labels["ratio_axis"]}
    decay_words = {"title": labels[f"extension_title_{kind}"], "x": labels["distance"], "y": labels[KINDS[kind]]}
    ratio = {"kind": "lines", "x": "wavelength", "series": lines("ratio"), "log_x": True, "log_y": True,
             "y_max": 1.0, "marks": marks, "words": ratio_words}  # fmt: skip
    decay = {"kind": "lines", "x": "distances", "series": lines("decay"), "log_x": True, "marks": marks,
             "words": decay_words}  # fmt: skip
    readout = text(lang, "decay.extension_readout")
    return data | {"height": 460, "words": words, "panels": [ratio, decay], "readouts": [readout]}


# ---- Raising the base (continued pre-training) and YaRN's ramp ----

RAISED_BASE_DIM = 128  # the head dimension of every model in the table
# (catalog key of the model's name, its RoPE base, the context length it was (further) pre-trained at)
RAISED_BASES = (
    ("raised_llama2", 10000.0, 4096),  # Llama 2 (Touvron et al. 2023)
    ("raised_code_llama", 1000000.0, 16384),  # Code Llama: base 10⁶, fine-tuned at 16 384 (arXiv 2308.12950 §2.4)
    ("raised_llama2_long", 500000.0, 32768),  # Llama 2 Long: "adjusted base frequency" (Xiong et al., arXiv 2309.16039)
    ("raised_llama3", 500000.0, 8192),  # Llama 3: base 500 000, pre-trained at 8 192
)


@computed_once(maxsize=8)
def raised_base_table(lang: str) -> Table:
    """One row per model of :data:`RAISED_BASES` (d = 128; its name heads the row): its base and context, its longest
    wavelength, how many pairs turn fully within the context (posenc's ``full_turn_pairs``), and the far-half
    all-ones score with its base and with 10 000."""
    rows = []
    ten_thousand = rope_inv_freq(RAISED_BASE_DIM, 10000.0, dtype=torch.float64)  # the base every row compares with
    for name, base, length in RAISED_BASES:
        inv_freq = rope_inv_freq(RAISED_BASE_DIM, base, dtype=torch.float64)
        rows.append([
            text(lang, f"decay.{name}"), number(lang, base, ".0f"), number(lang, length),
            number(lang, rope_wavelengths(inv_freq)[-1].item(), ".0f"),
            f"{int(full_turn_pairs(inv_freq, length).sum())} / {RAISED_BASE_DIM // 2}",
            f"{far_half_ones_score(inv_freq, length):.1f}", f"{far_half_ones_score(ten_thousand, length):.1f}",
        ])  # fmt: skip
    columns = [text(lang, f"decay.raised_column_{key}") for key in RAISED_COLUMNS]
    return Table.of(columns, rows, row_headers=True)


RAISED_COLUMNS = ("model", "base", "context", "longest", "turned", "far_score", "far_score_10k")


RAMP_LINES = (("huggingface", 4, "solid"), ("unrounded", 2, "dash"), ("paper", 2, "dot"))  # form, width, dash


def ramp_follow(dim: int, base: float, train: int) -> dict:
    """How the browser redraws :func:`yarn_ramp_chart` while the sidebar's dim or base moves: the view
    static/views/decay_ramp.js, with the twin of posenc's ``yarn_ramp`` in each of its forms; the training length is
    the section's own slider."""
    data = {"train": train, "forms": [form for form, _, _ in RAMP_LINES]}
    return {"view": "decay_ramp", "follows": {"dim": dim, "base": base}, "data": data}


@computed_once(maxsize=SHARED_ENTRIES)
def yarn_ramp_chart(lang: str, dim: int, base: float, train: int):
    """YaRN's interpolation weight of every pair as Hugging Face computes it (rounded ends), unrounded, and as the
    paper writes it (posenc's ``yarn_ramp``), for a training context of ``train`` tokens."""
    words = {key: text(lang, f"decay.{key}") for key in ("ramp_title", "pair_axis", "ramp_axis")}
    series = [
        {"name": text(lang, f"decay.ramp_{form}"), "y": yarn_ramp(dim, base, train, form=form), "color": COLORS[k],
         "width": width, "dash": dash, "mode": "lines+markers" if form == "huggingface" else "lines"}
        for k, (form, width, dash) in enumerate(RAMP_LINES)
    ]  # fmt: skip
    title = words["ramp_title"].format(train=number(lang, train))
    return lines_figure(np.arange(dim // 2), series, title, words["pair_axis"], words["ramp_axis"], height=420)
