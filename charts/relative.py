"""What the relative-positions page draws, cached: Shaw et al.'s index matrix and clipping curve, T5's bucket tables,
bucket curve and per-head bias, and ALiBi's slopes, bias lines and bias matrices, keyed by scalar inputs and the
language (``lang``: the figure words are looked up inside, so the cache key is one short string).

Built figures are cached too (building one costs milliseconds), keyed by the controls that shape them and by the
language, so a move rebuilds only the charts it changes. A cached figure is shared by every
session and is never modified.
"""

import streamlit as st

from figures import relative as fig
from posenc.relative import (
    alibi_bias,
    alibi_bias_per_offset,
    alibi_power_of_two_heads,
    alibi_slope_exponents,
    alibi_slopes,
    relative_offsets,
    shaw_clip_index,
    shaw_relative_index,
    t5_bias_per_offset,
    t5_bucket_ranges,
    t5_illustrative_bias,
    t5_max_exact,
    t5_relative_bucket,
)
from ui.i18n import text
from ui.once import computed_once


@computed_once
def figure_labels(lang: str) -> dict[str, str]:
    """Every word the figure builders draw, in ``lang`` (one shared dict per language: read it, never change it)."""
    return {name: text(lang, f"relative.{name}") for name in fig.LABELS}


@st.cache_data(max_entries=64)
def t5_tables(bidirectional: bool, num_buckets: int, max_distance: int):
    """Offsets ±2·max_distance, their buckets and the [B, 2] bucket ranges, as numpy."""
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    buckets = t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance)
    ranges = t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    return offsets.numpy(), buckets.numpy(), ranges.numpy()


@st.cache_resource(max_entries=16)
def shaw_figures(length: int, k: int, lang: str):
    labels = figure_labels(lang)
    offsets = relative_offsets(length - 1)
    matrix = fig.shaw_index_matrix(shaw_relative_index(fig.window_length(length), k), k, length, labels)
    return matrix, fig.shaw_index_curve(offsets, shaw_clip_index(offsets, k), k, labels)


@st.cache_resource(max_entries=16)
def t5_curve_figure(bidirectional: bool, num_buckets: int, max_distance: int, length: int, lang: str):
    labels = figure_labels(lang)
    offsets, buckets, _ = t5_tables(bidirectional, num_buckets, max_distance)
    max_exact = t5_max_exact(bidirectional, num_buckets)
    return fig.t5_bucket_curve(offsets, buckets, max_exact, max_distance, bidirectional, labels, length)


@st.cache_resource(max_entries=16)
def t5_bias_figure(bidirectional: bool, num_buckets: int, max_distance: int, heads: int, lang: str):
    labels = figure_labels(lang)
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    bias = t5_bias_per_offset(t5_illustrative_bias(heads, num_buckets, max_distance, bidirectional), offsets)
    return fig.t5_head_bias(offsets, bias.detach(), labels)


@st.cache_resource(max_entries=16)
def alibi_figures(length: int, heads: int, lang: str):
    """Slopes bar, bias lines over the past offsets, windowed [H, W, W] bias matrices, and the slopes note."""
    labels = figure_labels(lang)
    slopes, exponents, power = alibi_slopes(heads), alibi_slope_exponents(heads), alibi_power_of_two_heads(heads)
    offsets = relative_offsets(length - 1, past_only=True)
    lines = fig.alibi_bias_lines(offsets, alibi_bias_per_offset(offsets, heads), labels)
    matrices = fig.alibi_head_matrices(alibi_bias(fig.window_length(length), heads), slopes, length, labels)
    bar, note = fig.alibi_slopes_bar(slopes, exponents, power, labels), fig.alibi_slopes_note(exponents, power, labels)
    return bar, lines, matrices, note
