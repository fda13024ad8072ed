"""What the RoPE page draws, cached: one feature pair of q and k turning in the complex plane, the score under a
shift of both positions or the query's alone, every pair's clock hand and the layout experiment's score curves (live
charts: the browser computes them with posenc's twins, static/views/rope.js; the server sends only the page's seeded
q and k and the words), and the half / interleaved attention maps, keyed by scalar inputs and the language.
"""

from typing import NamedTuple

import numpy as np
import torch

from charts import SHARED_ENTRIES
from figures import rope as figs
from figures.common import ReadOnlyFigure, lines_figure
from figures.table import Table
from posenc._random import BLOCK_DIM, gaussian, leading_blocks, padded
from posenc.attention import attention_weights
from posenc.decay import rope_wavelengths
from posenc.fast import rope_signed_scores_by_phase
from posenc.rope import (
    ROPE_LAYOUTS,
    apply_rope,
    rope_convert_layout,
    rope_feature_pairs,
    rope_inv_freq,
    rope_offset_detector,
    rope_score_table,
    rope_scores_at,
)
from posenc.rope_variants import (
    hf_llama_permute,
    partial_rope_score_parts,
    partial_rotary_dim,
    rope_attention_output,
    rope_reflect_pairs,
)
from ui.i18n import text
from ui.limits import LIMITS
from ui.live import typed
from ui.once import computed_once

MAX_POSITION, SHIFT_STEP = 512, 4  # query and key positions 0 … 512; the shift moves over t = 0, 4, …, 512
POSITIONS = tuple(range(MAX_POSITION + 1))
SHIFTS = tuple(range(0, MAX_POSITION + 1, SHIFT_STEP))
ATTENTION_LENGTH = 48  # positions in the layout experiment (distances 0 … 47)
OFFSETS = tuple(range(17))  # how far back the trained head looks, r₀ = 0 … 16


def rope_frame_positions(start: int, count: int, step: int = 1) -> torch.Tensor:
    """Evenly spaced positions p_t = start + t·step for t = 0 … count − 1 (``step = 0`` repeats ``start``): the
    clock animation's frames, and "the query at r, the key at 0" of the layout experiment. Returns: [count] long."""
    return start + step * torch.arange(count)


def rope_example_qk(dim: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """The page's query and key: q, k ~ N(0, 1)^D, the first D features of two seeded vectors of the app's largest
    dim (posenc._random.leading_blocks), the same on every server: a larger dim adds features to the same q and k,
    so the browser can draw any dim from the largest ones (:func:`example_vectors_at_most`). Returns: (q [D], k [D])
    float64."""
    (both,) = leading_blocks(seed, ((2, padded(dim, BLOCK_DIM)),), ((2, dim),), (1.0,))
    return both[0], both[1]


@computed_once(maxsize=4)
def example_vectors_at_most(seed: int = 0) -> dict:
    """The page's q and k at the app's largest dim, as typed arrays: a figure that follows the store's dim draws
    from their first D features (static/views/rope_signs.js, rope_partial.js). Sent as float32, which loses nothing:
    they are float32 draws widened to float64 (posenc._random), and the views widen them back."""
    q, k = rope_example_qk(BLOCK_DIM, seed)
    return {"q": typed(q.numpy(), "f4"), "k": typed(k.numpy(), "f4")}


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
    right, converted, wrong = rope_layout_curves(dim, offset, length, base, trained)
    right_table, wrong_table = rope_layout_tables(dim, offset, length, base, trained)
    return RopeLayoutMixup(right, converted, wrong, right_table, wrong_table)


def rope_layout_tables(
    dim: int, offset: int, length: int, base: float = 10000.0, trained: str = "half"
) -> tuple[torch.Tensor, torch.Tensor]:
    """The two [L, L] score tables of :func:`rope_layout_mixup` (right: the trained layout; wrong: the other one on
    the same q, k), without its three curves."""
    other = ROPE_LAYOUTS[1 - ROPE_LAYOUTS.index(trained)]
    q, k = rope_offset_detector(dim, offset, base, trained)
    return rope_score_table(q, k, length, base, trained), rope_score_table(q, k, length, base, other)


class LayoutExperiment(NamedTuple):
    right_weights: np.ndarray  # attention of the head run with the pairing it was trained with, [L, L]
    wrong_weights: np.ndarray  # the same head run with the other pairing, [L, L]


@computed_once(maxsize=64)
def layout_experiment(dim: int, base: float, offset: int, trained: str) -> LayoutExperiment:
    """A head trained (with `trained` pairing) to look `offset` tokens back, run right and wrong: the two tables of
    :func:`rope_layout_tables` through a causal softmax (the mixup's curves, drawn by the browser, are not needed)."""
    right, wrong = rope_layout_tables(dim, offset, ATTENTION_LENGTH, base, trained)
    return LayoutExperiment(
        right_weights=attention_weights(right, causal=True).numpy(),
        wrong_weights=attention_weights(wrong, causal=True).numpy(),
    )


def words(lang: str, names: tuple[str, ...]) -> dict[str, str]:
    """The figure words ``names`` (keys of the rope catalog section) in ``lang``."""
    return {name: text(lang, f"rope.{name}") for name in names}


def live_words(lang: str, names: dict[str, str]) -> dict[str, str]:
    """Words of a live chart: part -> the rope catalog key's text in ``lang``."""
    return {part: text(lang, f"rope.{key}") for part, key in names.items()}


def bases_of_slider(base: float) -> list[float]:
    """The base slider's values: the shared base grid, with the current base if it lies off the grid."""
    return sorted({*LIMITS.base_options, base})


def live_pair(lang: str, dim: int, base: float, seed: int, pair: int, m: int, n: int) -> dict:
    """What the live complex-plane chart needs (static/views/rope.js): the page's q and k (at the largest dim) and the
    words. The browser computes θ_i, the turned pair, its angle and the score ⟨R_m q, R_n k⟩ with posenc's twins at
    any pair, m, n, base and dim, several moved at once included."""
    # the pair slider reaches the store's dim's last pair (static/live.js `upto`), hidden when there is one
    controls = {"pair": {"values": list(range(BLOCK_DIM // 2)), "upto": {"of": "dim", "per": 2}},
                "m": {"values": list(POSITIONS)}, "n": {"values": list(POSITIONS)},
                "base": {"values": bases_of_slider(base)}}  # fmt: skip
    names = {"pair": "pair_label", "m": "query_position", "n": "key_position", "title": "pair_title",
             "x": "real_axis", "y": "imag_axis", "path_q": "path_q", "path_k": "path_k", "arrow_q": "arrow_q",
             "arrow_k": "arrow_k"}  # fmt: skip
    chart_words = live_words(lang, names)
    chart_words |= {"base": text(lang, "shared.base_label"), "hint": text(lang, "common.live_hint")}
    return {
        "view": "rope",
        "picture": "pair",
        "controls": controls,
        "server": {"pair": pair, "m": m, "n": n, "base": base},
        "arrays": example_vectors_at_most(seed),  # the browser draws the dim's first features
        "follows": {"dim": dim},  # the sidebar's dim, while its thumb moves (static/live.js)
        "colors": {"q": figs.QUERY_COLOR, "k": figs.KEY_COLOR},
        "words": chart_words,
        "readouts": [text(lang, "rope.live_angle"), text(lang, "rope.live_score")],
        "height": 480,
    }


def live_shift(lang: str, dim: int, base: float, seed: int, pair: int, m: int, n: int, shift: int) -> dict:
    """What the live shift chart needs (static/views/rope.js): the page's q and k, the base and the pair chart's
    pair, and the words. The browser scores ⟨R_{m+t} q, R_{n+t} k⟩ and ⟨R_{m+t} q, R_n k⟩ at every shift t of the
    slider, and the pair's angle at (m, n) and (m + t, n + t), with posenc's twins."""
    names = {"m": "query_position", "n": "key_position", "shift": "shift_label", "title": "shift_title",
             "x": "shift_axis", "y": "score_axis", "both": "both_move", "query": "query_moves",
             "marker": "your_shift"}  # fmt: skip
    scores = {"score_before": "before", "score_after": "after", "score_query_only": "query_only"}
    readouts = [f"{text(lang, f'rope.{key}')} = {{{name}:4}}" for key, name in scores.items()]
    angles = ("angle_before", "angle_after")
    readouts += [f"{text(lang, f'rope.{name}', pair='{pair}')} = {{{name}:deg}}" for name in angles]  # as drawn
    return {
        "view": "rope",
        "picture": "shift",
        "controls": {"m": {"values": list(POSITIONS)}, "n": {"values": list(POSITIONS)},
                     "shift": {"values": list(SHIFTS)}},
        "server": {"m": m, "n": n, "shift": shift},
        "arrays": example_vectors_at_most(seed),  # the browser draws the dim's first features
        "follows": {"base": base, "dim": dim},  # the sidebar's, while its thumb moves (static/live.js)
        "pair": pair,
        "colors": {"q": figs.QUERY_COLOR, "k": figs.KEY_COLOR},
        "words": live_words(lang, names) | {"hint": text(lang, "common.live_hint")},
        "readouts": readouts,
        "height": 420,
    }  # fmt: skip


@computed_once(maxsize=SHARED_ENTRIES)
def layout_view(lang: str, dim: int, base: float, trained: str) -> dict:
    """The live layout curves (static/views/rope.js): the settings and the words. The browser computes the three
    curves of :func:`rope_layout_curves` over r = 0 … 47 at any offset r₀ of the slider with posenc's twins
    (rope_offset_detector, rope_convert_layout, rope_scores_at)."""
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
    return {"view": "rope", "picture": "layout", "controls": {"offset": {"values": list(OFFSETS)}}, "arrays": {},
            "follows": {"dim": dim, "base": base}, "trained": trained, "length": ATTENTION_LENGTH, "panels": [panel],
            "words": chart_words, "height": 420}  # fmt: skip


def live_layout(lang: str, dim: int, base: float, offset: int, trained: str) -> dict:
    """What the live layout curves need (:func:`layout_view`), the slider at ``offset``."""
    return layout_view(lang, dim, base, trained) | {"server": {"offset": offset}}


# The clock slider's positions: every fifth of the slider goes ten times further (0 … 99 by 1, 100 … 990 by 10, …,
# 100 000 … 1 000 000 by 10 000), so hand 0 turns a radian a step at first and the slowest hands turn by the end.
CLOCK_POSITIONS = (*range(0, 100), *range(100, 1000, 10), *range(1000, 10_000, 100), *range(10_000, 100_000, 1000),
                   *range(100_000, 1_000_001, 10_000))  # fmt: skip
CLOCK_PLAY_MS = 120  # ▶ steps the slider this often: 57° a step for hand 0 at first, as the animation did
CLOCK_TOP_PX, CLOCK_ROW_PX = 90, 88  # the clocks chart's height: its title and controls, then a row of dials


@computed_once(maxsize=SHARED_ENTRIES)
def clock_view(lang: str, dim: int, base: float) -> dict:
    """The live clocks (static/views/rope.js): the words and the dials' geometry; the browser turns hand i to
    e^{i·p·θ_i} at the slider's position p with posenc's twins (rope_inv_freq, rope_rotation_factors), on every
    pair's dial or on MAX_CLOCKS evenly spaced ones (then the note says so), at the sidebar's dim and base while
    its thumb moves. Everything but where the slider sits."""
    chart_words = {"position": text(lang, "rope.clock_position_label"), "title": text(lang, "rope.clock_title"),
                   "play": text(lang, "rope.play"), "pause": text(lang, "rope.pause"),
                   "hint": text(lang, "common.live_hint")}  # fmt: skip
    rows = -(-min(dim // 2, figs.MAX_CLOCKS) // figs.CLOCK_COLUMNS)
    return {
        "view": "rope",
        "picture": "clocks",
        "controls": {"position": {"values": list(CLOCK_POSITIONS), "play_ms": CLOCK_PLAY_MS}},
        "arrays": {},
        "follows": {"dim": dim, "base": base},  # the sidebar's, while its thumb moves (static/live.js)
        "dials": {
            "most": figs.MAX_CLOCKS,
            "columns": figs.CLOCK_COLUMNS,
            "row_spacing": figs.ROW_SPACING,
            "radius": figs.DIAL_RADIUS,
            "hand": figs.HAND_LENGTH,
            "top": CLOCK_TOP_PX,
            "row_height": CLOCK_ROW_PX,
        },
        "colors": {"q": figs.QUERY_COLOR, "dial": figs.DIAL_COLOR},
        "words": chart_words,
        "readouts": [{"when": "clipped", "text": text(lang, "rope.clock_note")}],  # {shown} of {total}, filled there
        "height": CLOCK_TOP_PX + CLOCK_ROW_PX * rows,
    }


def live_clocks(lang: str, dim: int, base: float, position: int) -> dict:
    """What the live clocks need (:func:`clock_view`), the slider at ``position``."""
    return clock_view(lang, dim, base) | {"server": {"position": position}}


@computed_once(maxsize=SHARED_ENTRIES)
def pairing_chart(lang: str, dim: int) -> ReadOnlyFigure:
    """Which features form each pair in the half and the interleaved layout."""
    pairs = {layout: rope_feature_pairs(dim, layout).numpy() for layout in ROPE_LAYOUTS}
    return figs.layout_pairing(pairs, words(lang, figs.PAIRING_LABELS))


def layout_attention_follow(dim: int, base: float, offset: int, trained: str) -> dict:
    """How the browser redraws :func:`layout_attention_chart` from the tab's store (static/views/
    rope_layout_attention.js): the dim and base it follows, the offset, the trained pairing and the window length."""
    data = {"offset": offset, "trained": trained, "length": ATTENTION_LENGTH}
    return {"view": "rope_layout_attention", "follows": {"dim": dim, "base": base}, "data": data}


@computed_once(maxsize=SHARED_ENTRIES)
def layout_attention_chart(lang: str, dim: int, base: float, offset: int, trained: str) -> ReadOnlyFigure:
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


@computed_once(maxsize=64)
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


@computed_once(maxsize=32)
def partial_chart(lang: str, dim: int, base: float, fraction: float) -> ReadOnlyFigure:
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


def partial_follow(dim: int, base: float, fraction: float) -> dict:
    """How the browser redraws :func:`partial_chart` from the tab's store (static/views/rope_partial.js): the page's
    q and k at the largest dim, the fraction and the distances drawn."""
    data = example_vectors_at_most() | {"fraction": fraction, "distances": PARTIAL_DISTANCES}
    return {"view": "rope_partial", "follows": {"dim": dim, "base": base}, "data": data}


@computed_once(maxsize=64)
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


@computed_once(maxsize=32)
def sign_chart(lang: str, dim: int, base: float) -> ReadOnlyFigure:
    """The page's q, k scored at (m + t, n + t) under each sign convention (posenc's rope_signed_scores, from its
    closed form in posenc/fast.py)."""
    q, k = rope_example_qk(dim)
    shifts = torch.arange(SIGN_SHIFTS + 1)
    m, n = SIGN_M + shifts, SIGN_N + shifts
    w = words(lang, ("sign_title", "shift_axis", "score_axis", "sign_plus", "sign_minus", "sign_reflected",
                     "sign_mixed"))  # fmt: skip
    reflected = rope_reflect_pairs(q), rope_reflect_pairs(k)

    def scores(signs, vectors=(q, k)):  # the score at every shift, with these signs (σ_q, σ_k)
        return rope_signed_scores_by_phase(*vectors, m, n, *signs, base)

    series = [
        {"name": w["sign_plus"], "y": scores((1, 1)), "color": figs.QUERY_COLOR},
        {"name": w["sign_minus"], "y": scores((-1, -1)), "color": figs.KEY_COLOR, "width": 5},
        {"name": w["sign_reflected"], "y": scores((1, 1), reflected), "color": "#2ca02c", "dash": "dash"},
        {"name": w["sign_mixed"], "y": scores((1, -1)), "color": figs.WRONG_COLOR, "width": 2},
    ]  # fmt: skip
    return lines_figure(shifts, series, w["sign_title"].format(m=SIGN_M, n=SIGN_N), w["shift_axis"], w["score_axis"])


def sign_follow(dim: int, base: float) -> dict:
    """How the browser redraws :func:`sign_chart` from the tab's store (static/views/rope_signs.js): the page's q
    and k at the largest dim, m, n and the shifts drawn."""
    data = example_vectors_at_most() | {"m": SIGN_M, "n": SIGN_N, "shifts": SIGN_SHIFTS}
    return {"view": "rope_signs", "follows": {"dim": dim, "base": base}, "data": data}


@computed_once(maxsize=64)
def llama_table(lang: str, base: float) -> Table:
    """The rotated query of :func:`llama_conversion`, one row per feature (its index names the row): Meta's
    (interleaved) beside Hugging Face's (half), 4 decimals."""
    data = llama_conversion(base)
    columns = ["", text(lang, "rope.llama_meta_row"), text(lang, "rope.llama_hf_row")]
    pairs = enumerate(zip(data["meta_q"], data["hf_q"], strict=True))
    rows = ([str(k), f"{meta:.4f}", f"{hf:.4f}"] for k, (meta, hf) in pairs)
    return Table.of(columns, rows, row_headers=True)


@computed_once(maxsize=64)
def values_table(lang: str, dim: int, base: float) -> Table:
    """:func:`values_example` as a table: one row with RoPE, one with no rotation."""
    data = values_example(dim, base)
    columns = [text(lang, f"rope.values_{key}") for key in ("column_case", "column_ab", "column_ba", "column_change")]
    rows = [[text(lang, f"rope.values_{name}"), *(f"{value:.4f}" for value in data[name])] for name in ("rope", "none")]
    return Table.of(columns, rows, row_headers=True)
