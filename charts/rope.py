"""What the RoPE page draws, cached: one feature pair of q and k turning over the animation frames, the score under
a shift of both positions or the query's alone, every pair's clock hand, and the half / interleaved layout experiment,
keyed by scalar inputs and the language.
"""

import streamlit as st
import torch
from plotly.basedatatypes import BaseFigure

from figures import rope as figs
from posenc.attention import attention_weights
from posenc.rope import (
    ROPE_LAYOUTS,
    rope_example_qk,
    rope_feature_pairs,
    rope_frame_positions,
    rope_inv_freq,
    rope_layout_mixup,
    rope_layout_permutation,
    rope_pair_angles_at,
    rope_pair_points,
    rope_pair_timing,
    rope_rotation_factors,
    rope_scores_at,
)
from ui.i18n import text

PAIR_FRAMES, CLOCK_FRAMES = 36, 36  # frames travel inside the figure and are re-sent on every rerun: keep them few
MAX_POSITION, SHIFT_POINTS, SHIFT_STEP = 512, 129, 4  # the shift chart covers t = 0, 4, …, 512
ATTENTION_LENGTH = 48  # positions in the layout experiment (distances 0 … 47)
FRAME_KEYS = ("q_points", "k_points", "q_positions", "k_positions", "angles")


@st.cache_data(max_entries=64)
def pair_frames(dim: int, base: float, seed: int, pair: int, m: int, n: int) -> dict:
    """One pair of q (at m + t·step) and k (at n + t·step) for every animation frame t."""
    timing = rope_pair_timing(dim, pair, base, PAIR_FRAMES)
    q, k = rope_example_qk(dim, seed)
    q_pos, k_pos = rope_frame_positions(m, PAIR_FRAMES, timing.step), rope_frame_positions(n, PAIR_FRAMES, timing.step)
    return {
        "q_points": rope_pair_points(q, q_pos, pair, base).numpy(),
        "k_points": rope_pair_points(k, k_pos, pair, base).numpy(),
        "q_positions": q_pos.numpy(),
        "k_positions": k_pos.numpy(),
        "angles": rope_pair_angles_at(q, k, q_pos, k_pos, pair, base).numpy(),
        "timing": timing,
    }


@st.cache_data(max_entries=64)
def shift_data(dim: int, base: float, seed: int, pair: int, m: int, n: int, s: int) -> dict:
    """Scores and pair-i angles at (m, n), (m + s, n + s) and (m + s, n); score curves over shifts."""
    q, k = rope_example_qk(dim, seed)
    q_moved, k_moved = rope_frame_positions(m, 2, s), rope_frame_positions(n, 2, s)  # [m, m + s], [n, n + s]
    q_path = rope_frame_positions(m, SHIFT_POINTS, SHIFT_STEP)  # m + t, t = 0, 4, …
    k_path = rope_frame_positions(n, SHIFT_POINTS, SHIFT_STEP)
    return {
        "both": rope_scores_at(q, k, q_moved, k_moved, base).numpy(),
        "query_only": rope_scores_at(q, k, q_moved, rope_frame_positions(n, 2, 0), base).numpy(),
        "angles": rope_pair_angles_at(q, k, q_moved, k_moved, pair, base).numpy(),
        "shifts": rope_frame_positions(0, SHIFT_POINTS, SHIFT_STEP).numpy(),
        "both_curve": rope_scores_at(q, k, q_path, k_path, base).numpy(),
        "query_curve": rope_scores_at(q, k, q_path, rope_frame_positions(n, SHIFT_POINTS, 0), base).numpy(),
    }


@st.cache_data(max_entries=64)
def clock_frames(dim: int, base: float, start: int, step: int) -> dict:
    """e^{i·p·θ_i} for every pair at the animation's positions p = start, start + step, …"""
    positions, thetas = rope_frame_positions(start, CLOCK_FRAMES, step), rope_inv_freq(dim, base, torch.float64)
    return {"factors": rope_rotation_factors(positions, thetas).numpy(), "positions": positions.numpy(),
            "thetas": thetas.numpy()}  # fmt: skip


@st.cache_data(max_entries=64)
def layout_experiment(dim: int, base: float, offset: int, trained: str) -> dict:
    """A head trained (with `trained` pairing) to look `offset` tokens back, run right, converted and wrong."""
    mix = rope_layout_mixup(dim, offset, ATTENTION_LENGTH, base, trained)
    return {
        **{name: value.numpy() for name, value in mix._asdict().items()},
        "right_weights": attention_weights(mix.right_table, causal=True).numpy(),
        "wrong_weights": attention_weights(mix.wrong_table, causal=True).numpy(),
        "pairs": {layout: rope_feature_pairs(dim, layout).numpy() for layout in ROPE_LAYOUTS},
        "perm": rope_layout_permutation(dim).numpy(),
    }


def words(lang: str, names: tuple[str, ...]) -> dict[str, str]:
    """The figure words ``names`` (keys of the rope catalog section) in ``lang``."""
    return {name: text(lang, f"rope.{name}") for name in names}


# Built figures are cached too (keyed by the scalar inputs): building Plotly frames costs far more than the math.
# A cached figure is shared by every session and is never changed after it is built. Its words are part of it, so
# the language is part of every key: a Korean student never gets the English figure another session cached.
@st.cache_resource(max_entries=16)
def pair_chart(lang: str, dim: int, base: float, seed: int, pair: int, m: int, n: int) -> BaseFigure:
    data = pair_frames(dim, base, seed, pair, m, n)
    return figs.pair_animation(*(data[key] for key in FRAME_KEYS), pair, words(lang, figs.PAIR_LABELS))


@st.cache_resource(max_entries=16)
def shift_chart(lang: str, dim: int, base: float, seed: int, pair: int, m: int, n: int, s: int) -> BaseFigure:
    data = shift_data(dim, base, seed, pair, m, n, s)
    labels = words(lang, figs.SHIFT_LABELS)
    return figs.shift_scores(data["shifts"], data["both_curve"], data["query_curve"], s, data["both"][1], labels)


@st.cache_resource(max_entries=16)
def clock_chart(lang: str, dim: int, base: float, start: int, step: int) -> BaseFigure:
    data = clock_frames(dim, base, start, step)
    return figs.clock_hands(data["factors"], data["positions"], data["thetas"], words(lang, figs.CLOCK_LABELS))


@st.cache_resource(max_entries=16)
def layout_charts(
    lang: str, dim: int, base: float, offset: int, trained: str
) -> tuple[BaseFigure, BaseFigure, BaseFigure]:
    """The pairing chart, the three score curves and the two attention patterns of the layout experiment."""
    data = layout_experiment(dim, base, offset, trained)
    other = next(layout for layout in ROPE_LAYOUTS if layout != trained)
    names = {key: text(lang, f"rope.{key}", trained=trained, other=other)
             for key in ("curve_right", "curve_converted", "curve_wrong", "run_right", "run_wrong")}  # fmt: skip
    curves = {
        names["curve_right"]: data["right_curve"],
        names["curve_converted"]: data["converted_curve"],
        names["curve_wrong"]: data["wrong_curve"],
    }
    weights, titles = (data["right_weights"], data["wrong_weights"]), (names["run_right"], names["run_wrong"])
    return (
        figs.layout_pairing(data["pairs"], words(lang, figs.PAIRING_LABELS)),
        figs.layout_score_curves(range(ATTENTION_LENGTH), curves, offset, words(lang, figs.CURVES_LABELS)),
        figs.layout_attention(*weights, *titles, words(lang, figs.ATTENTION_LABELS)),
    )
