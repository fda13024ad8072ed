"""What the sinusoidal page draws, cached: the PE table, its waves and wavelengths, PE·PEᵀ and one of its rows, the
shift matrix and its error, integer / normalised positions, word–position cosines and a learned table beside the
formula, keyed by scalar inputs and the language.

Figures are cached whole: building a Plotly figure costs more than its math, and a cached figure is shared by every
session. st.plotly_chart only reads a figure (it serialises a copy).
"""

import numpy as np
import streamlit as st
import torch

from figures import absolute as fig
from figures.common import SIGNED_COLORS
from posenc.absolute import (
    embedding_pe_cosines,
    integer_positions,
    normalized_positions,
    seeded_learned_embedding,
    sinusoid_dot_by_offset,
    sinusoid_inv_freq,
    sinusoid_offset_similarity,
    sinusoid_pair_columns,
    sinusoid_wavelengths,
    sinusoidal,
    sinusoidal_shift_matrix,
    sinusoidal_shift_residual,
    sinusoidal_similarity_row,
)
from ui.i18n import text
from ui.limits import LIMITS
from ui.live import live_dims, shared_sliders, typed

COSINE_DIMS = (2, 8, 32, 128, 512)  # the dimensions compared in "why add", plus the current dim


@st.cache_resource(max_entries=4)  # 16 MB at 4096 × 1024: shared read-only, not unpickled on every rerun
def _table(length: int, dim: int, base: float, layout: str):
    table = sinusoidal(length, dim, base, layout=layout).numpy()
    table.flags.writeable = False  # shared by every session: nobody may change it
    return table


def _labels(lang: str) -> dict[str, str]:
    """The figures' words in ``lang`` (called only when a cached figure is built, so the language is in its key)."""
    return {name: text(lang, f"sinusoidal.fig_{name}") for name in fig.LABEL_NAMES}


LIVE_MAX_DRAWN = 512  # positions or columns a live chart paints at most (static/live.js MAX_DRAWN)


def _live_chart(view: str, length: int, dim: int, base: float, lang: str, words: dict[str, str]) -> dict:
    """What both live charts of this page share: the three shared sliders, the colour scale and the words
    (``words``: title, x and y catalog keys of ``sinusoidal``)."""
    sliders = shared_sliders(lang, base=base, dim=dim, length=length)
    chart_words = {part: text(lang, f"sinusoidal.{key}") for part, key in words.items()}
    return {"view": view, "colorscale": SIGNED_COLORS, **sliders, "words": sliders["words"] | chart_words}


@st.cache_resource(max_entries=16)
def live_table(length: int, dim: int, base: float, layout: str, lang: str) -> dict:
    """What the live sinusoid table needs to follow its sliders in the browser: ω_i = base^(−2i/D) from posenc for
    every base of the base slider (at this dim) and for every dim of the dim slider (at this base); the browser
    draws PE(p, ·) = sin / cos(p·ω_i) (static/live.js ``sinusoidTable``). Any length needs no more data."""
    by_base = [sinusoid_inv_freq(dim, b).numpy() for b in LIMITS.base_options]  # [bases, D/2]
    by_dim = [sinusoid_inv_freq(d, base).numpy() for d in live_dims(dim)]  # ragged: d/2 each
    words = {"title": "live_table_title", "x": "fig_dimension", "y": "fig_position"}
    return {
        **_live_chart("sinusoid_table", length, dim, base, lang, words),
        "height": 480,
        "layout": layout,
        "arrays": {"omega_by_base": typed(np.concatenate(by_base)), "omega_by_dim": typed(np.concatenate(by_dim))},
        "offsets": {"omega_by_dim": np.cumsum([0] + [len(w) for w in by_dim])[:-1].tolist()},
    }


@st.cache_resource(max_entries=16)
def live_similarity(length: int, dim: int, base: float, lang: str) -> dict:
    """What the live PE·PEᵀ needs: S[p, q] = s(q − p) with s(k) = Σ_i cos(k·ω_i) summed by posenc
    (``sinusoid_dot_by_offset``). Positions are drawn every ``stride`` (at most 512 of them), so for every base of
    the base slider and every dim of the dim slider s is sent at the offsets drawn, k = j·stride; for the length
    slider, s(k) for every k up to the longest length at this base and dim. The browser only picks entries
    (static/live.js ``sinusoidSimilarity``)."""
    stride = -(-length // LIVE_MAX_DRAWN)  # ⌈L / 512⌉
    drawn = np.arange(0, length, stride)  # the offsets between drawn positions, j·stride
    by_base = [sinusoid_dot_by_offset(drawn, dim, b).numpy() for b in LIMITS.base_options]  # [bases, n]
    by_dim = [sinusoid_dot_by_offset(drawn, d, base).numpy() for d in live_dims(dim)]  # [dims, n]
    every = sinusoid_dot_by_offset(np.arange(LIMITS.length_max), dim, base).numpy()  # [length_max]
    words = {"title": "live_similarity_title", "x": "fig_position_q", "y": "fig_position_p"}
    return {
        **_live_chart("sinusoid_similarity", length, dim, base, lang, words),
        "height": 520,
        "square": True,
        "arrays": {
            "sums_by_base": typed(np.concatenate(by_base), "f4"),
            "sums_by_dim": typed(np.concatenate(by_dim), "f4"),
            "sums_by_length": typed(every, "f4"),
        },
    }


@st.cache_resource(max_entries=16)
def waves_figure(length: int, dim: int, base: float, layout: str, columns: tuple[int, ...], lang: str):
    pairs = sinusoid_pair_columns(dim, layout).numpy()
    return fig.waves_figure(_table(length, dim, base, layout), columns, pairs, _labels(lang))


@st.cache_resource(max_entries=16)
def wavelength_figure(length: int, dim: int, base: float, lang: str):
    return fig.wavelength_figure(sinusoid_wavelengths(dim, base), length, _labels(lang))


@st.cache_resource(max_entries=16)
def similarity_row_figure(row: int, length: int, dim: int, base: float, lang: str):
    """The figure and the diagonal entry PE(p)·PE(p)."""
    dots = sinusoidal_similarity_row(row, length, dim, base).numpy()
    closed = sinusoid_offset_similarity(row, length, dim, base).numpy()
    return fig.similarity_row_figure(dots, closed, row, _labels(lang)), float(dots[row])


@st.cache_resource(max_entries=16)
def shift_figures(offset: int, length: int, dim: int, base: float, layout: str, lang: str):
    """The matrix figure, the residual figure and the largest residual."""
    matrix = sinusoidal_shift_matrix(offset, dim, base, layout).numpy()
    residual = sinusoidal_shift_residual(offset, length, dim, base, layout).numpy()
    pairs, labels = sinusoid_pair_columns(dim, layout).numpy(), _labels(lang)
    matrix_figure = fig.shift_matrix_figure(matrix, pairs, offset, labels)
    return matrix_figure, fig.shift_residual_figure(residual, offset, labels), residual.max()


@st.cache_resource(max_entries=16)
def naive_figure(short: int, length: int, dim: int, base: float, layout: str, lang: str):
    """The figure, the last integer position, and token 1's normalised position in the short and the long input."""
    integers = integer_positions(length)[:, 0].numpy()
    norm_short, norm_long = normalized_positions(short)[:, 0].numpy(), normalized_positions(length)[:, 0].numpy()
    pe_short, pairs = sinusoidal(short, dim, base, layout=layout).numpy(), sinusoid_pair_columns(dim, layout).numpy()
    pe_long = _table(length, dim, base, layout)
    figure = fig.naive_figure(integers, norm_short, norm_long, pe_short, pe_long, pairs, _labels(lang))
    return figure, integers[-1], norm_short[1], norm_long[1]


@st.cache_resource(max_entries=16)
def cosine_figure(length: int, dim: int, base: float, lang: str):
    dims = tuple(sorted({*COSINE_DIMS, dim}))
    cosines = embedding_pe_cosines(dims, samples=1500, max_position=length, base=base).numpy()
    return fig.cosine_histogram_figure(cosines, dims, _labels(lang))


@st.cache_resource(max_entries=4)  # a model: shared, not copied
def learned_embedding(max_len: int, dim: int):
    return seeded_learned_embedding(max_len, dim)


@st.cache_resource(max_entries=16)
def learned_figure(position: int, max_len: int, dim: int, base: float, layout: str, lang: str):
    """The figure and whether the table refused ``position`` (it has no row for it)."""
    try:
        learned = learned_embedding(max_len, dim)(torch.tensor([position]))[0].detach().numpy()
    except ValueError:  # the table's own message is English: the page says it in the student's language
        learned = None
    sine = sinusoidal(position + 1, dim, base, layout=layout)[-1].numpy()
    return fig.position_vector_figure(sine, learned, position, max_len, _labels(lang)), learned is None
