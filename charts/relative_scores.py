"""What the Transformer-XL, DeBERTa and NoPE page draws, cached: the attention-score terms of Transformer-XL (and of
input + PE) with their diagonal spread, DeBERTa's δ and its three terms, NoPE's attention over identical tokens and
what a position can read from it, and the first decoder step of the toy model trained without positions, keyed by
scalar inputs and the language.
"""

import numpy as np
import streamlit as st

from charts import SHARED_ENTRIES
from charts.extrapolation import results as extrapolation_results
from charts.toy_model import shipped_metrics
from figures import relative_scores as fig
from figures.common import UNSIGNED_COLORS
from posenc.deberta import deberta_illustration
from posenc.fast import nope_drawn_both_ways, xl_illustration_view_by_vocabulary
from posenc.nope import causal_first_token_weight
from posenc.relative import relative_offsets
from posenc.toy.model import shipped_checkpoint
from posenc.transformer_xl import diagonal_spread
from ui.i18n import text
from ui.live import spread_evenly, typed
from ui.once import computed_once
from ui.toy_training import answer_alone

XL_VIEWS = ("relative", "absolute")  # Transformer-XL's R_{i−j}, or the input + PE's absolute U_i and U_j
XL_TERMS = {
    "relative": ("term_a", "xl_term_b", "xl_term_c", "xl_term_d"),
    "absolute": ("term_a", "abs_term_b", "abs_term_c", "abs_term_d"),
}
DEBERTA_TERMS = ("deberta_term_c2c", "deberta_term_c2p", "deberta_term_p2c")


@computed_once(maxsize=64)
def xl_tables(window: int, dim: int, base: float, view: str):
    """One decomposition, as :func:`posenc.transformer_xl.xl_illustration` makes it (computed with its faster form,
    posenc/fast.py, for the shown view only): 4 terms + sum as numpy [W, W], and the diagonal spread of each term."""
    scores = xl_illustration_view_by_vocabulary(view, window, dim, base)
    return [part[0].numpy() for part in (*scores.terms(), scores.total)], [diagonal_spread(p) for p in scores.terms()]


@computed_once(maxsize=64)
def deberta_tables(window: int, dim: int, k: int):
    scores = deberta_illustration(window, dim, k)
    return [part[0].numpy() for part in (*scores.terms(), scores.total)]


@computed_once(maxsize=64)
def nope_tables(length: int, dim: int, distinct_first: bool, gap: float):
    """Causal, then bidirectional: the drawn window of the weights [W, W], their first column [L] (the weight on
    the first token) and each output's distance from the last [L], as numpy: those of
    :func:`posenc.nope.nope_identical_tokens`, causal and not, from its structure (posenc/fast.py), never its full
    [L, L] weights."""
    demos = nope_drawn_both_ways(length, dim, distinct_first, gap, fig.window_length(length))
    return [(d.window.numpy(), d.first.numpy(), d.distance.numpy()) for d in demos]


@st.cache_resource(show_spinner=False, max_entries=1)
def no_pe_model():
    return shipped_checkpoint("none")


@st.cache_data(show_spinner=False, max_entries=16)
def toy_decoder_maps(example: str):
    result = answer_alone(no_pe_model(), example)
    return [m.numpy() for m in result.decoder_self], result.target_tokens, result.text, result.expression.result


def start_weight_gap(layer_maps) -> float:
    """How far one decoder layer's weight on <s> strays from the even share: max over heads and steps t of
    |α_t0 − 1/(t + 1)|. ``layer_maps``: [H, T, T] (one entry of ``toy_decoder_maps``)."""
    on_start = np.asarray(layer_maps)[:, :, 0]  # [H, T]: column 0 is the key <s>
    return float(np.abs(on_start - 1 / np.arange(1, on_start.shape[1] + 1)).max())


def figure_labels(lang: str) -> dict:
    """The words every figure builder of this page reads, in ``lang``."""
    return {key: text(lang, f"relative_scores.{key}") for key in fig.LABEL_KEYS}


def xl_charts(lang: str, length: int, dim: int, base: float, view: str, own: bool):
    """The XL term grid and the diagonal spread of each term (a, b, c, d)."""
    parts, spreads = xl_tables(fig.window_length(length), dim, base, view)
    names = [text(lang, f"relative_scores.{term}") for term in XL_TERMS[view]]
    panels = [*zip(names, parts[:4], strict=True), (text(lang, "relative_scores.sum_logit"), parts[4])]
    title = text(lang, "relative_scores.xl_grid_title", view=text(lang, f"relative_scores.xl_short_{view}"))
    return fig.score_grid(panels, title, length, figure_labels(lang), cols=3, shared_scale=not own), spreads


DEBERTA_KS = tuple(range(1, 65))  # the k slider: every k from 1 to 64
DEBERTA_NEAR = 64  # every offset |i − j| ≤ 64 is drawn: δ bends at −k and k − 1, within it for every k
DEBERTA_FAR_POINTS = 24  # offsets drawn on each side beyond it, spread out to ±(length − 1) (δ is flat there)
DEBERTA_COLOR = "#636efa"


def deberta_offsets(length: int) -> np.ndarray:
    """The offsets r = i − j the δ curve is drawn at: every one within ±64 (±(length − 1) when shorter), then
    DEBERTA_FAR_POINTS + 1 spread evenly out to the page's largest offset on each side. Returns: [R] int64."""
    span = fig.offset_span(length)
    near = min(span, DEBERTA_NEAR)
    far = spread_evenly(near, span, DEBERTA_FAR_POINTS + 1)[1:] if span > near else np.arange(0)
    return np.concatenate([-far[::-1], relative_offsets(near).numpy(), far])


@computed_once(maxsize=SHARED_ENTRIES)
def deberta_view(lang: str, length: int) -> dict:
    """The live δ chart for every k of its slider (static/views/deberta.js), without where the slider sits: the
    browser evaluates posenc's δ(r) = clamp(r + k, 0, 2k − 1) over the window's cells and the curve's offsets."""
    labels = figure_labels(lang)
    words = {"k": text(lang, "relative_scores.deberta_k_label"), "hint": text(lang, "common.live_hint")}
    matrix_words = {"title": labels["delta_matrix_title"], "x": labels["key_position_j"],
                    "y": labels["query_position_i"]}  # fmt: skip
    curve_words = {"title": labels["delta_curve_title"], "x": labels["offset_axis"], "y": labels["row_delta"]}
    return {
        "view": "deberta",
        "controls": {"k": {"values": list(DEBERTA_KS)}},
        "arrays": {"offsets": typed(deberta_offsets(length), "f4")},
        "window": fig.window_length(length),
        "colorscale": UNSIGNED_COLORS,
        "color": DEBERTA_COLOR,
        "words": words,
        "matrix_words": matrix_words,
        "curve_words": curve_words,
        "readouts": [text(lang, "relative_scores.deberta_live_readout")],
        "height": 420,
    }


def deberta_live(lang: str, length: int, k: int) -> dict:
    """What the live δ chart needs (:func:`deberta_view`), the slider at ``k``."""
    return deberta_view(lang, length) | {"server": {"k": k}}


def deberta_chart(lang: str, length: int, dim: int, k: int):
    parts = deberta_tables(fig.window_length(length), dim, k)
    names = [text(lang, f"relative_scores.{term}") for term in DEBERTA_TERMS]
    panels = [*zip(names, parts[:3], strict=True), (text(lang, "relative_scores.deberta_sum_logit"), parts[3])]
    return fig.score_grid(panels, text(lang, "relative_scores.deberta_grid_title"), length, figure_labels(lang))


def nope_charts(lang: str, length: int, dim: int, distinct: bool, gap: float):
    """NoPE's attention weights (causal, bidirectional) and what a position can read from them."""
    n = fig.nope_length(length)
    (causal_w, _, _), (both_w, _, _) = nope_tables(n, dim, distinct, gap)
    attention = fig.nope_attention_pair(causal_w, both_w, length, figure_labels(lang))  # its note names the length
    return attention, nope_signal(lang, n, dim, distinct, gap)


@computed_once(maxsize=SHARED_ENTRIES)
def nope_signal(lang: str, n: int, dim: int, distinct: bool, gap: float):
    """The curves over the ``n`` computed positions: the same for every length from NOPE_MAX_LENGTH on, so a move
    of the length there builds only the attention pair (whose note names the length)."""
    (_, causal_first, causal_d), (_, both_first, both_d) = nope_tables(n, dim, distinct, gap)
    closed = causal_first_token_weight(n, gap) if distinct else None  # the closed form needs a distinct first token
    return fig.nope_position_signal(causal_first, both_first, closed, causal_d, both_d, figure_labels(lang))


def toy_chart(lang: str, example: str, layer: int):
    maps, tokens, _, _ = toy_decoder_maps(example)
    reference = causal_first_token_weight(len(tokens))
    return fig.toy_first_step_weight(maps[layer - 1], tokens, reference, layer, figure_labels(lang))


CHARTS = {"xl": xl_charts, "deberta": deberta_chart, "nope": nope_charts, "toy": toy_chart}


# Built figures are cached by their scalar inputs and the language (never the figure of another language), so a
# move rebuilds only the charts it changes. One cache for all five kinds, under one size limit. A cached figure is
# shared by every session: it is never modified.
@computed_once(maxsize=4 * SHARED_ENTRIES)  # five kinds of chart
def chart(name: str, lang: str, *args):
    """``CHARTS[name](lang, *args)``, cached."""
    return CHARTS[name](lang, *args)


# the shipped file's numbers: read once (a cache_data copy of the file took ~2 ms)
@st.cache_resource(show_spinner=False, max_entries=1)
def length_evidence() -> tuple[int, int, dict] | None:
    """The "train short, test long" measurements the comparison table quotes: (training length, longest evaluated
    length, {pe: (loss at the one, loss at the other)}), read from assets/toy/extrapolation.json; None without it.
    Shared read-only."""
    return fig.length_evidence(extrapolation_results())


@st.cache_resource(show_spinner=False, max_entries=3)
def comparison_table(lang: str):
    """Every family of the app in one table (a figures.table.Table, shared read-only), in ``lang``, with the toy
    models' numbers: the arithmetic models' accuracy (assets/toy/*.json) and the language models' loss past their
    training length (assets/toy/extrapolation.json)."""
    words = {key: text(lang, f"relative_scores.{key}") for key in fig.comparison_label_keys()}
    return fig.comparison_table(shipped_metrics(), words, extrapolation_results())


@st.cache_resource(show_spinner=False, max_entries=3)
def comparison_parts(lang: str) -> dict:
    """:func:`comparison_table` in ``lang`` as the page shows it, in two tables (shared read-only)."""
    return fig.comparison_parts(comparison_table(lang))
