"""What the RoPE page draws, cached: one feature pair of q and k turning in the complex plane, the score under a
shift of both positions or the query's alone, and every pair's clock hand (live charts, drawn in the browser from
posenc's arrays), and the half / interleaved layout experiment, keyed by scalar inputs and the language.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st
import torch
from plotly.basedatatypes import BaseFigure

from charts import SHARED_ENTRIES
from figures import rope as figs
from figures.common import lines_figure
from posenc._random import gaussian
from posenc.attention import attention_weights
from posenc.decay import rope_wavelengths
from posenc.rope import (
    ROPE_LAYOUTS,
    apply_rope,
    rope_convert_layout,
    rope_feature_pairs,
    rope_inv_freq,
    rope_offset_detector,
    rope_score_table,
    rope_scores_at,
    to_complex_pairs,
)
from posenc.rope_variants import (
    hf_llama_permute,
    partial_rope_score_parts,
    rope_attention_output,
    rope_reflect_pairs,
    rope_signed_scores,
)
from ui.i18n import text
from ui.limits import LIMITS
from ui.live import sliced, typed
from ui.once import computed_once

MAX_POSITION, SHIFT_STEP = 512, 4  # query and key positions 0 … 512; the shift moves over t = 0, 4, …, 512
POSITIONS = tuple(range(MAX_POSITION + 1))
SHIFTS = tuple(range(0, MAX_POSITION + 1, SHIFT_STEP))
ATTENTION_LENGTH = 48  # positions in the layout experiment (distances 0 … 47)
OFFSETS = tuple(range(17))  # how far back the trained head looks, r₀ = 0 … 16
# The distances r = m − n a live chart picks the score at: m − n lies in −512 … 512 and m + t − n in −512 … 1024.
PAIR_DISTANCES = np.arange(-MAX_POSITION, MAX_POSITION + 1)
SHIFT_DISTANCES = np.arange(-MAX_POSITION, 2 * MAX_POSITION + 1)


def rope_frame_positions(start: int, count: int, step: int = 1) -> torch.Tensor:
    """Evenly spaced positions p_t = start + t·step for t = 0 … count − 1 (``step = 0`` repeats ``start``): the
    clock animation's frames, and "the query at r, the key at 0" of the layout experiment. Returns: [count] long."""
    return start + step * torch.arange(count)


def rope_example_qk(dim: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """The page's query and key: q, k ~ N(0, 1)^D drawn from ``torch.Generator().manual_seed(seed)``, the same on
    every server. Returns: (q [D], k [D]) float64."""
    q, k = gaussian(torch.Generator().manual_seed(seed), 2, dim)
    return q, k


def pair_speed(dim: int, pair: int, base: float) -> tuple[float, float]:
    """Pair i's θ_i (radians per position) and its period 2π/θ_i (positions per full turn), for the caption."""
    theta = rope_inv_freq(dim, base, torch.float64)[pair : pair + 1]  # θ_i, [1]
    return theta.item(), rope_wavelengths(theta).item()


class RopeLayoutMixup(NamedTuple):
    """Scores of one trained head run three ways: ``right`` (its own layout), ``converted`` (features permuted,
    other layout: identical to right) and ``wrong`` (other layout, features not permuted).
    ``*_curve``: [L] score vs distance r = 0 … L−1; ``*_table``: [L, L] scores S[m, n]."""

    right_curve: torch.Tensor
    converted_curve: torch.Tensor
    wrong_curve: torch.Tensor
    right_table: torch.Tensor
    wrong_table: torch.Tensor


def rope_layout_curves(
    dim: int, offset: int, length: int, base: float = 10000.0, trained: str = "half"
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The three score curves of :func:`rope_layout_mixup` (right, converted, wrong), each [L] float64 over the
    distances r = 0 … L−1 (the query at r, the key at 0), without its two [L, L] tables."""
    other = ROPE_LAYOUTS[1 - ROPE_LAYOUTS.index(trained)]
    q, k = rope_offset_detector(dim, offset, base, trained)
    q_conv, k_conv = rope_convert_layout(q, trained, other), rope_convert_layout(k, trained, other)
    distance, zero = rope_frame_positions(0, length), rope_frame_positions(0, length, 0)  # q at r, k at 0
    return (
        rope_scores_at(q, k, distance, zero, base, trained),
        rope_scores_at(q_conv, k_conv, distance, zero, base, other),
        rope_scores_at(q, k, distance, zero, base, other),
    )


def rope_layout_mixup(
    dim: int, offset: int, length: int, base: float = 10000.0, trained: str = "half"
) -> RopeLayoutMixup:
    """What happens to a head trained with ``trained`` pairing (posenc's ``rope_offset_detector``) run with the other.

    right: s(r) = ⟨R_r q, R_0 k⟩ with the trained layout; converted: the same with q, k reordered by
    ``rope_convert_layout`` and the other layout (equal to right); wrong: the other layout on the unchanged q, k.
    Shapes: curves [L] float64 (r = 0 … L−1), tables [L, L] float64. Source: arXiv 2104.09864 §3.2; HF ``rotate_half``.
    """
    other = ROPE_LAYOUTS[1 - ROPE_LAYOUTS.index(trained)]
    q, k = rope_offset_detector(dim, offset, base, trained)
    right, converted, wrong = rope_layout_curves(dim, offset, length, base, trained)
    return RopeLayoutMixup(
        right_curve=right,
        converted_curve=converted,
        wrong_curve=wrong,
        right_table=rope_score_table(q, k, length, base, trained),
        wrong_table=rope_score_table(q, k, length, base, other),
    )


class LayoutExperiment(NamedTuple):
    right_weights: np.ndarray  # attention of the head run with the pairing it was trained with, [L, L]
    wrong_weights: np.ndarray  # the same head run with the other pairing, [L, L]


@st.cache_data(max_entries=64)
def layout_experiment(dim: int, base: float, offset: int, trained: str) -> LayoutExperiment:
    """A head trained (with `trained` pairing) to look `offset` tokens back, run right and wrong."""
    mix = rope_layout_mixup(dim, offset, ATTENTION_LENGTH, base, trained)
    return LayoutExperiment(
        right_weights=attention_weights(mix.right_table, causal=True).numpy(),
        wrong_weights=attention_weights(mix.wrong_table, causal=True).numpy(),
    )


def words(lang: str, names: tuple[str, ...]) -> dict[str, str]:
    """The figure words ``names`` (keys of the rope catalog section) in ``lang``."""
    return {name: text(lang, f"rope.{name}") for name in names}


def scores_by_distance(q: torch.Tensor, k: torch.Tensor, distances: np.ndarray, base: float) -> np.ndarray:
    """s(r) = ⟨R_m q, R_n k⟩ with m − n = r, from posenc (rope_scores_at at m = max(r, 0), n = max(−r, 0))."""
    r = torch.from_numpy(distances)
    return rope_scores_at(q, k, r.clamp(min=0), (-r).clamp(min=0), base).numpy()


def complex_pairs(x: torch.Tensor) -> dict[str, np.ndarray]:
    """x̃_i = x_i + i·x_{i+D/2} for every pair (posenc's half layout, as rope_pair_points reads it): real, imag."""
    z = to_complex_pairs(x.double()).numpy()
    return {"re": z.real, "im": z.imag}


@computed_once(maxsize=64)
def example_pairs(dim: int, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """q̃_i and k̃_i of the page's q, k (:func:`complex_pairs` of :func:`rope_example_qk`), drawn once per (dim, seed):
    the live pair and shift charts read them on every rerun."""
    q, k = rope_example_qk(dim, seed)
    return complex_pairs(q), complex_pairs(k)


def live_words(lang: str, names: dict[str, str]) -> dict[str, str]:
    """Words of a live chart: part -> the rope catalog key's text in ``lang``."""
    return {part: text(lang, f"rope.{key}") for part, key in names.items()}


@st.cache_resource(max_entries=SHARED_ENTRIES)
def example_scores(dim: int, base: float, seed: int, first: int, last: int) -> np.ndarray:
    """s(r) = ⟨R_m q, R_n k⟩ of the page's q, k for every distance r = first … last (posenc). Returns: [R] float32."""
    q, k = rope_example_qk(dim, seed)
    return scores_by_distance(q, k, np.arange(first, last + 1), base).astype(np.float32)


def bases_of_slider(base: float) -> list[float]:
    """The base slider's values: the shared base grid, with the current base if it lies off the grid."""
    return sorted({*LIMITS.base_options, base})


@computed_once(maxsize=256)
def theta_at_every_base(dim: int, pair: int, bases: tuple[float, ...]) -> list[float]:
    """θ_i = base^(−2i/D) of pair ``pair`` at each base of the base slider (posenc's rope_inv_freq)."""
    return [rope_inv_freq(dim, b, torch.float64)[pair].item() for b in bases]


@st.cache_resource(max_entries=64)
def score_at_every_base(dim: int, seed: int, distance: int, bases: tuple[float, ...]) -> np.ndarray:
    """s(r) of the page's q, k at one distance r = m − n, at each base of the base slider (posenc).
    Returns: [B] float32, entry b for ``bases[b]``."""
    q, k = rope_example_qk(dim, seed)
    return np.array([scores_by_distance(q, k, np.array([distance]), b)[0] for b in bases], dtype=np.float32)


@st.cache_resource(max_entries=SHARED_ENTRIES)
def pair_arrays(dim: int, base: float, seed: int) -> dict:
    """The arrays of the live complex-plane chart that hold for every pair and position: q̃_i, k̃_i and θ_i of every
    pair, and the score s(r) for every r = m − n the sliders reach, as typed arrays."""
    qp, kp = example_pairs(dim, seed)
    return {
        "q_re": typed(qp["re"]), "q_im": typed(qp["im"]), "k_re": typed(kp["re"]), "k_im": typed(kp["im"]),
        "theta": typed(rope_inv_freq(dim, base, torch.float64).numpy()),
        "scores": typed(example_scores(dim, base, seed, int(PAIR_DISTANCES[0]), int(PAIR_DISTANCES[-1])), "f4"),
    }  # fmt: skip


def live_pair(lang: str, dim: int, base: float, seed: int, pair: int, m: int, n: int) -> dict:
    """What the live complex-plane chart needs (static/views/rope.js): q̃_i, k̃_i of every pair and θ_i from posenc
    (every pair at this base, this pair at every base of the base slider); the browser turns them by e^{i·p·θ_i}.
    The score is a sum over pairs, so it comes from posenc: s(r) for every r = m − n at this base, and the score at
    (m, n) for every base of the base slider. Only that last one and this pair's θ_i at every base depend on where
    the sliders were let go: a release computes no more than those (and nothing for a distance seen before)."""
    bases = bases_of_slider(base)
    theta_by_base = theta_at_every_base(dim, pair, tuple(bases))
    score_by_base = score_at_every_base(dim, seed, m - n, tuple(bases))
    controls = {"m": {"values": list(POSITIONS)}, "n": {"values": list(POSITIONS)}, "base": {"values": bases}}
    if dim > 2:  # one pair only: nothing to choose
        controls = {"pair": {"values": list(range(dim // 2))}} | controls
    names = {"pair": "pair_label", "m": "query_position", "n": "key_position", "title": "pair_title",
             "x": "real_axis", "y": "imag_axis", "path_q": "path_q", "path_k": "path_k", "arrow_q": "arrow_q",
             "arrow_k": "arrow_k"}  # fmt: skip
    chart_words = live_words(lang, names)
    chart_words |= {"base": text(lang, "shared.base_label"), "hint": text(lang, "common.live_hint")}
    arrays = pair_arrays(dim, base, seed) | {
        "theta_by_base": typed(theta_by_base),
        "score_by_base": typed(score_by_base, "f4"),
    }
    return {
        "view": "rope",
        "picture": "pair",
        "controls": controls,
        "server": {"pair": pair, "m": m, "n": n, "base": base},
        "arrays": arrays,
        "first_distance": int(PAIR_DISTANCES[0]),
        "colors": {"q": figs.QUERY_COLOR, "k": figs.KEY_COLOR},
        "words": chart_words,
        "readouts": [text(lang, "rope.live_angle"), text(lang, "rope.live_score")],
        "height": 480,
    }


def live_shift(lang: str, dim: int, base: float, seed: int, pair: int, m: int, n: int, shift: int) -> dict:
    """What the live shift chart needs (static/views/rope.js): s(r) = ⟨R_m q, R_n k⟩ from posenc for every
    r = m + t − n the sliders reach; the browser picks s(m − n) (both moved by t) and s(m + t − n) (only q moved).
    Pair ``pair``'s q̃_i, k̃_i and θ_i for its angle at (m, n) and (m + t, n + t)."""
    qp, kp = example_pairs(dim, seed)
    theta = rope_inv_freq(dim, base, torch.float64)[pair].item()
    names = {"m": "query_position", "n": "key_position", "shift": "shift_label", "title": "shift_title",
             "x": "shift_axis", "y": "score_axis", "both": "both_move", "query": "query_moves",
             "marker": "your_shift"}  # fmt: skip
    scores = {"score_before": "before", "score_after": "after", "score_query_only": "query_only"}
    readouts = [f"{text(lang, f'rope.{key}')} = {{{name}:4}}" for key, name in scores.items()]
    angles = ("angle_before", "angle_after")
    readouts += [f"{text(lang, f'rope.{name}', pair=pair)} = {{{name}:deg}}" for name in angles]
    return {
        "view": "rope",
        "picture": "shift",
        "controls": {"m": {"values": list(POSITIONS)}, "n": {"values": list(POSITIONS)},
                     "shift": {"values": list(SHIFTS)}},
        "server": {"m": m, "n": n, "shift": shift},
        "arrays": {
            "one_pair": typed([qp["re"][pair], qp["im"][pair], kp["re"][pair], kp["im"][pair], theta]),
            "scores": typed(example_scores(dim, base, seed, int(SHIFT_DISTANCES[0]), int(SHIFT_DISTANCES[-1])), "f4"),
        },
        "first_distance": int(SHIFT_DISTANCES[0]),
        "colors": {"q": figs.QUERY_COLOR, "k": figs.KEY_COLOR},
        "words": live_words(lang, names) | {"hint": text(lang, "common.live_hint")},
        "readouts": readouts,
        "height": 420,
    }  # fmt: skip


def layout_curves_at_offsets(
    dim: int, offsets: tuple[int, ...], length: int, base: float = 10000.0, trained: str = "half"
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`rope_layout_curves` for several offsets at once: the same posenc steps (``rope_offset_detector``,
    ``rope_convert_layout``, ``apply_rope`` and the dot product of ``rope_scores_at``) with the offsets' queries
    stacked, so one rotation serves them all. Returns: (right, converted, wrong), each [offsets, L] float64."""
    other = ROPE_LAYOUTS[1 - ROPE_LAYOUTS.index(trained)]
    detectors = [rope_offset_detector(dim, offset, base, trained) for offset in offsets]
    q = torch.stack([pair[0] for pair in detectors]).double()  # [O, D]
    k = detectors[0][1].double()  # k̃_i = 1 for every offset, [D]
    distance, zero = rope_frame_positions(0, length), rope_frame_positions(0, length, 0)  # q at r, k at 0

    def scores(queries: torch.Tensor, key: torch.Tensor, layout: str) -> torch.Tensor:
        rotated_q = apply_rope(queries[:, None, :].expand(-1, length, -1), distance, base, layout)  # [O, L, D]
        rotated_k = apply_rope(key.expand(length, -1), zero, base, layout)  # [L, D]
        return (rotated_q * rotated_k).sum(dim=-1)  # [O, L]

    converted = scores(rope_convert_layout(q, trained, other), rope_convert_layout(k, trained, other), other)
    return scores(q, k, trained), converted, scores(q, k, other)


@computed_once(maxsize=8 * SHARED_ENTRIES)  # every offset's pictures, made together; 26 kB a setting
def layout_curves_every_offset(dim: int, base: float, trained: str) -> dict[int, dict[str, np.ndarray]]:
    """The three score curves of the layout experiment over r = 0 … 47, for every offset r₀ of the slider."""
    curves = layout_curves_at_offsets(dim, OFFSETS, ATTENTION_LENGTH, base, trained)
    right, converted, wrong = (curve.numpy() for curve in curves)
    return {offset: {"distances": np.arange(ATTENTION_LENGTH), "right": right[n], "converted": converted[n],
                     "wrong": wrong[n], "offset": np.array([offset])} for n, offset in enumerate(OFFSETS)}  # fmt: skip


def layout_curves(dim: int, base: float, offset: int, trained: str) -> dict[str, np.ndarray]:
    """The three score curves of the layout experiment (rope_layout_curves) over r = 0 … 47."""
    return layout_curves_every_offset(dim, base, trained)[offset]


@st.cache_resource(max_entries=SHARED_ENTRIES)
def layout_slices(lang: str, dim: int, base: float, trained: str) -> dict:
    """The live layout curves: :func:`layout_curves` for every offset r₀ = 0 … 16 (static/live.js ``slices``), with
    the slider at r₀ = 0: the browser picks the offset's row."""
    data = sliced({"offset": OFFSETS}, {"offset": 0}, lambda offset: layout_curves(dim, base, offset, trained))
    other = next(layout for layout in ROPE_LAYOUTS if layout != trained)
    name = {key: text(lang, f"rope.{key}", trained=trained, other=other)
            for key in ("curve_right", "curve_converted", "curve_wrong")}  # fmt: skip
    series = [
        {"y": "right", "name": name["curve_right"], "color": figs.QUERY_COLOR, "width": 5},
        {"y": "converted", "name": name["curve_converted"], "color": figs.KEY_COLOR, "width": 2, "dash": True},
        {"y": "wrong", "name": name["curve_wrong"], "color": figs.WRONG_COLOR, "width": 3},
    ]
    panel_words = live_words(lang, {"title": "curves_title", "x": "distance_axis", "y": "score_axis"})
    panel = {"kind": "lines", "x": "distances", "series": series, "marks": [{"x": "offset", "label": "r₀ = {offset}"}],
             "words": panel_words}  # fmt: skip
    chart_words = {"offset": text(lang, "rope.offset_label"), "hint": text(lang, "common.live_hint")}
    return data | {"panels": [panel], "words": chart_words, "height": 420}


def live_layout(lang: str, dim: int, base: float, offset: int, trained: str) -> dict:
    """What the live layout curves need: every offset's curves (:func:`layout_slices`), the slider at ``offset``."""
    return layout_slices(lang, dim, base, trained) | {"server": {"offset": offset}}


# The clock slider's positions: every fifth of the slider goes ten times further (0 … 99 by 1, 100 … 990 by 10, …,
# 100 000 … 1 000 000 by 10 000), so hand 0 turns a radian a step at first and the slowest hands turn by the end.
CLOCK_POSITIONS = (*range(0, 100), *range(100, 1000, 10), *range(1000, 10_000, 100), *range(10_000, 100_000, 1000),
                   *range(100_000, 1_000_001, 10_000))  # fmt: skip
CLOCK_PLAY_MS = 120  # ▶ steps the slider this often: 57° a step for hand 0 at first, as the animation did


def clock_pairs(dim: int) -> np.ndarray:
    """The pairs that get a dial: all D/2 of them, or MAX_CLOCKS evenly spaced ones, the first and last kept."""
    pairs = dim // 2
    return np.unique(np.round(np.linspace(0, pairs - 1, min(pairs, figs.MAX_CLOCKS))).astype(np.int64))


@st.cache_resource(max_entries=SHARED_ENTRIES)
def clock_view(lang: str, dim: int, base: float) -> dict:
    """The live clocks (static/views/rope.js): θ_i of every pair drawn, from posenc; the browser turns hand i to
    e^{i·p·θ_i} at the slider's position p. Everything but where the slider sits."""
    shown = clock_pairs(dim)
    theta = rope_inv_freq(dim, base, torch.float64).numpy()[shown]
    chart_words = {"position": text(lang, "rope.clock_position_label"), "title": text(lang, "rope.clock_title"),
                   "play": text(lang, "rope.play"), "pause": text(lang, "rope.pause"),
                   "hint": text(lang, "common.live_hint")}  # fmt: skip
    note = [] if len(shown) == dim // 2 else [text(lang, "rope.clock_note", shown=len(shown), total=dim // 2)]
    rows = -(-len(shown) // figs.CLOCK_COLUMNS)
    return {
        "view": "rope",
        "picture": "clocks",
        "controls": {"position": {"values": list(CLOCK_POSITIONS), "play_ms": CLOCK_PLAY_MS}},
        "arrays": {"theta": typed(theta), "pairs": typed(shown)},
        "dials": {
            "columns": figs.CLOCK_COLUMNS,
            "row_spacing": figs.ROW_SPACING,
            "radius": figs.DIAL_RADIUS,
            "hand": figs.HAND_LENGTH,
        },
        "colors": {"q": figs.QUERY_COLOR, "dial": figs.DIAL_COLOR},
        "words": chart_words,
        "readouts": note,
        "height": 90 + 88 * rows,
    }


def live_clocks(lang: str, dim: int, base: float, position: int) -> dict:
    """What the live clocks need (:func:`clock_view`), the slider at ``position``."""
    return clock_view(lang, dim, base) | {"server": {"position": position}}


@st.cache_resource(max_entries=SHARED_ENTRIES)
def pairing_chart(lang: str, dim: int) -> BaseFigure:
    """Which features form each pair in the half and the interleaved layout."""
    pairs = {layout: rope_feature_pairs(dim, layout).numpy() for layout in ROPE_LAYOUTS}
    return figs.layout_pairing(pairs, words(lang, figs.PAIRING_LABELS))


@st.cache_resource(max_entries=SHARED_ENTRIES)
def layout_attention_chart(lang: str, dim: int, base: float, offset: int, trained: str) -> BaseFigure:
    """The two attention patterns of the layout experiment: the head run with its own pairing and with the other."""
    data = layout_experiment(dim, base, offset, trained)
    other = next(layout for layout in ROPE_LAYOUTS if layout != trained)
    titles = [text(lang, f"rope.{key}", trained=trained, other=other) for key in ("run_right", "run_wrong")]
    return figs.layout_attention(data.right_weights, data.wrong_weights, *titles, words(lang, figs.ATTENTION_LABELS))


# ---- RoPE as real models use it: the Llama conversion, partial rotary, unrotated values, the sign convention ----

LLAMA_DIM, LLAMA_WIDTH, LLAMA_M, LLAMA_N = 8, 8, 5, 2  # one small head: 4 pairs, query at m = 5, key at n = 2
PARTIAL_FRACTIONS = (0.25, 0.4, 0.5, 1.0)  # GPT-NeoX and GPT-J 25 %, Phi-2 40 %, half, all (Llama)
PARTIAL_DISTANCES = 256  # the partial-rotary score is drawn for r = 0 … 256 (enough to see the rotated part wander)
SIGN_SHIFTS = 256  # the sign-convention scores are drawn at (m + t, n + t), t = 0 … 256
SIGN_M, SIGN_N = 5, 2


@st.cache_data(max_entries=64)
def llama_conversion(base: float) -> dict:
    """Meta's Llama and Hugging Face's port on one head (D = 8) with random W_q, W_k [D, C] and tokens x_m, x_n:
    Meta rotates W_q x interleaved, HF rotates W'_q x with rotate_half, W' = hf_llama_permute(W); scores at (5, 2)."""
    g = torch.Generator().manual_seed(0)
    w_q, w_k = gaussian(g, LLAMA_DIM, LLAMA_WIDTH), gaussian(g, LLAMA_DIM, LLAMA_WIDTH)  # [D, C] each
    x_m, x_n = gaussian(g, 2, LLAMA_WIDTH)  # [C] each
    hf_q, hf_k = hf_llama_permute(w_q, 1), hf_llama_permute(w_k, 1)
    where = torch.tensor([LLAMA_M]), torch.tensor([LLAMA_N])
    rows = hf_llama_permute(torch.arange(LLAMA_DIM, dtype=torch.float64)[:, None], 1)[:, 0]  # W' row j = W row …
    m_only = torch.tensor([LLAMA_M])
    return {
        "rows": rows.long().numpy(),
        "meta_q": apply_rope((w_q @ x_m)[None], m_only, base, "interleaved")[0].numpy(),  # R_m W_q x, interleaved
        "hf_q": apply_rope((hf_q @ x_m)[None], m_only, base, "half")[0].numpy(),  # R_m W'_q x, half
        "meta": rope_scores_at(w_q @ x_m, w_k @ x_n, *where, base, "interleaved").item(),
        "hf": rope_scores_at(hf_q @ x_m, hf_k @ x_n, *where, base, "half").item(),
        "wrong": rope_scores_at(w_q @ x_m, w_k @ x_n, *where, base, "half").item(),
    }


def partial_rotary_dim(dim: int, fraction: float) -> int:
    """The rotated features of a head: int(dim · fraction), rounded down to an even number, at least 2."""
    return max(2, int(dim * fraction) // 2 * 2)


@st.cache_resource(max_entries=32)
def partial_chart(lang: str, dim: int, base: float, fraction: float) -> BaseFigure:
    """Score of the page's q, k (seed 0) with only the first rotary_dim features rotated, split into its parts."""
    q, k = rope_example_qk(dim)
    distances = torch.arange(PARTIAL_DISTANCES + 1)
    rotated, passed = partial_rope_score_parts(q, k, partial_rotary_dim(dim, fraction), distances, base)
    w = words(lang, ("partial_title", "distance_axis", "score_axis", "partial_rotated", "partial_passed",
                     "partial_total"))  # fmt: skip
    series = [
        {"name": w["partial_total"], "y": rotated + passed, "color": figs.QUERY_COLOR, "width": 4},
        {"name": w["partial_rotated"], "y": rotated, "color": figs.KEY_COLOR, "width": 2},
        {"name": w["partial_passed"], "y": passed, "color": figs.WRONG_COLOR, "width": 2, "dash": "dash"},
    ]
    return lines_figure(distances, series, w["partial_title"], w["distance_axis"], w["score_axis"])


@st.cache_data(max_entries=64)
def values_example(dim: int, base: float) -> dict:
    """Tokens a, b, x, each with its own random query, key and value (N(0, 1), seed 1), in the orders [a, b, x] and
    [b, a, x]: the weight x puts on a in each order and the largest change of x's output, with RoPE (positions
    0, 1, 2) and with no rotation (every token at position 0). Returns {"rope" | "none": (on_a, on_a, change)}."""
    g = torch.Generator().manual_seed(1)
    q, k, v = (dict(zip("abx", gaussian(g, 3, size), strict=True)) for size in (dim, dim, 4))  # token -> [D]
    result = {}
    for name, positions in (("rope", torch.arange(3)), ("none", torch.zeros(3, dtype=torch.long))):
        runs = [rope_attention_output(*(torch.stack([part[t] for t in order]) for part in (q, k, v)), positions, base)
                for order in ("abx", "bax")]  # fmt: skip
        on_a = (runs[0][0][2, 0].item(), runs[1][0][2, 1].item())  # x's weight on a in each order
        change = (runs[0][1][2] - runs[1][1][2]).abs().max().item()  # x's output, max |difference|
        result[name] = (*on_a, change)
    return result


@st.cache_resource(max_entries=32)
def sign_chart(lang: str, dim: int, base: float) -> BaseFigure:
    """The page's q, k scored at (m + t, n + t) under each sign convention (posenc's rope_signed_scores)."""
    q, k = rope_example_qk(dim)
    shifts = torch.arange(SIGN_SHIFTS + 1)
    m, n = SIGN_M + shifts, SIGN_N + shifts
    w = words(lang, ("sign_title", "shift_axis", "score_axis", "sign_plus", "sign_minus", "sign_reflected",
                     "sign_mixed"))  # fmt: skip
    reflected = rope_reflect_pairs(q), rope_reflect_pairs(k)
    series = [
        {"name": w["sign_plus"], "y": rope_signed_scores(q, k, m, n, 1, 1, base), "color": figs.QUERY_COLOR},
        {"name": w["sign_minus"], "y": rope_signed_scores(q, k, m, n, -1, -1, base), "color": figs.KEY_COLOR,
         "width": 5},
        {"name": w["sign_reflected"], "y": rope_signed_scores(*reflected, m, n, 1, 1, base), "color": "#2ca02c",
         "dash": "dash"},
        {"name": w["sign_mixed"], "y": rope_signed_scores(q, k, m, n, 1, -1, base), "color": figs.WRONG_COLOR,
         "width": 2},
    ]  # fmt: skip
    return lines_figure(shifts, series, w["sign_title"].format(m=SIGN_M, n=SIGN_N), w["shift_axis"], w["score_axis"])


@st.cache_data(max_entries=64)
def llama_table(lang: str, base: float) -> pd.DataFrame:
    """The rotated query of :func:`llama_conversion`, Meta's (interleaved) above Hugging Face's (half), 4 decimals."""
    data = llama_conversion(base)
    rows = [text(lang, "rope.llama_meta_row"), text(lang, "rope.llama_hf_row")]
    return pd.DataFrame(np.round([data["meta_q"], data["hf_q"]], 4), index=rows, columns=map(str, range(LLAMA_DIM)))


@st.cache_data(max_entries=64)
def values_table(lang: str, dim: int, base: float) -> pd.DataFrame:
    """:func:`values_example` as a table: one row with RoPE, one with no rotation."""
    data = values_example(dim, base)
    columns = [text(lang, f"rope.values_{key}") for key in ("column_case", "column_ab", "column_ba", "column_change")]
    rows = [[text(lang, f"rope.values_{name}"), *(f"{value:.4f}" for value in data[name])] for name in ("rope", "none")]
    return pd.DataFrame(rows, columns=columns)
