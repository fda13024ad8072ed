"""What the sinusoidal page draws, cached: the PE table, its waves and wavelengths, PE·PEᵀ and one of its rows, the
shift matrix and its error, integer / normalised positions, word–position cosines and a learned table beside the
formula, keyed by scalar inputs and the language.

Figures are cached whole: building a Plotly figure costs more than its math, and a cached figure is shared by every
session. st.plotly_chart only reads a figure (it serialises a copy).
"""

import numpy as np
import torch

from charts import SHARED_ENTRIES, cosine_table
from figures import absolute as fig
from figures.common import SIGNED_COLORS, wrapped
from posenc.absolute import (
    seeded_learned_embedding,
    sinusoid_pair_columns,
    sinusoid_wavelengths,
    sinusoidal_shift_matrix,
)
from posenc.fast import (
    sinusoid_offset_similarity_by_blocks,
    sinusoidal_columns,
    sinusoidal_row_by_blocks,
    sinusoidal_shift_residual_by_pairs,
    sinusoidal_similarity_row_by_blocks,
)
from ui.i18n import text
from ui.live import live_dims, shared_sliders, sliced
from ui.once import computed_once

SHIFT_LATEX = (  # PE(p + k) as M_k · PE(p), one pair
    r"\begin{pmatrix}\sin((p+k)\omega_i)\\ \cos((p+k)\omega_i)\end{pmatrix} = "
    r"\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}"
    r"\begin{pmatrix}\sin p\omega_i\\ \cos p\omega_i\end{pmatrix}"
)


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


@computed_once(maxsize=SHARED_ENTRIES)
def live_table(length: int, dim: int, base: float, layout: str, lang: str) -> dict:
    """What the live sinusoid table needs to follow its sliders in the browser: its sliders, words and layout. The
    browser computes ω_i = base^(−2i/D) itself (static/twins.js ``sinusoidInvFreq``, held to posenc's
    ``sinusoid_inv_freq`` by tests/test_twins.py) and draws PE(p, ·) = sin / cos(p·ω_i): no numbers are sent."""
    words = {"title": "live_table_title", "x": "fig_dimension", "y": "fig_position"}
    return {**_live_chart("sinusoid_table", length, dim, base, lang, words), "height": 480, "layout": layout,
            "arrays": {}}  # fmt: skip


@computed_once(maxsize=SHARED_ENTRIES)
def live_similarity(length: int, dim: int, base: float, lang: str) -> dict:
    """What the live PE·PEᵀ needs: its sliders and words. The browser sums S[p, q] = s(q − p), s(k) = Σ_i cos(k·ω_i)
    itself (static/twins.js ``sinusoidDotByOffset``, held to posenc's ``sinusoid_dot_by_offset``): no numbers are
    sent, and any base, dim and length is drawn, two moved at once included."""
    words = {"title": "live_similarity_title", "x": "fig_position_q", "y": "fig_position_p"}
    return {**_live_chart("sinusoid_similarity", length, dim, base, lang, words), "height": 520, "square": True,
            "arrays": {}}  # fmt: skip


@computed_once(maxsize=SHARED_ENTRIES)
def waves_figure(length: int, dim: int, base: float, layout: str, columns: tuple[int, ...], lang: str):
    """The chosen columns of posenc's ``sinusoidal`` table (its equal fast form, only those columns: L·C entries
    instead of L·D)."""
    pairs = sinusoid_pair_columns(dim, layout).numpy()
    waves = sinusoidal_columns(length, dim, columns, base, layout).numpy()  # [L, C]
    return fig.waves_figure(waves, columns, pairs, _labels(lang))


@computed_once(maxsize=SHARED_ENTRIES)
def wavelength_figure(length: int, dim: int, base: float, lang: str):
    return fig.wavelength_figure(sinusoid_wavelengths(dim, base), length, _labels(lang))


def waves_follow(length: int, dim: int, base: float, layout: str, columns: tuple[int, ...], lang: str) -> dict:
    """How the browser redraws :func:`waves_figure` while the sidebar's length, dim or base moves
    (``ui.figure.figure_chart``'s ``follow``): the view static/views/sinusoid_waves.js computes the chosen columns
    with the twin of posenc's ``sinusoidal`` and names them from the catalog's template."""
    data = {"columns": list(columns), "layout": layout, "column_label": text(lang, "sinusoidal.fig_column")}
    return {"view": "sinusoid_waves", "follows": {"length": length, "dim": dim, "base": base}, "data": data}


def wavelength_follow(length: int, dim: int, base: float, lang: str) -> dict:
    """How the browser redraws :func:`wavelength_figure` while the sidebar's length, dim or base moves: the view
    static/views/sinusoid_wavelengths.js, with the twin of posenc's ``sinusoid_wavelengths``."""
    data = {"length_line": text(lang, "sinusoidal.fig_length_line")}
    return {"view": "sinusoid_wavelengths", "follows": {"length": length, "dim": dim, "base": base}, "data": data}


def similarity_row_follow(row: int, length: int, dim: int, base: float, lang: str) -> dict:
    """How the browser redraws :func:`similarity_row_figure` while the sidebar's length, dim or base moves: the view
    static/views/sinusoid_row.js, with the twin of posenc's ``sinusoid_dot_by_offset``. The row is the section's
    slider, which falls back to length // 2 (its default) when a shorter length leaves it out: then the row's name,
    title and mark are the catalog's templates filled with the new row."""
    labels = _labels(lang)
    words = {"dots": labels["row_dots"], "title": wrapped(labels["row_title"])}
    return {"view": "sinusoid_row", "follows": {"length": length, "dim": dim, "base": base},
            "data": {"position": row, "words": words}}  # fmt: skip


def similarity_row_chart(row: int, length: int, dim: int, base: float, lang: str) -> dict:
    """``ui.figure.figure_chart``'s figure (built only when the browser needs the server's) and what it follows."""
    return {"fig": lambda: similarity_row_figure(row, length, dim, base, lang)[0],
            "follow": similarity_row_follow(row, length, dim, base, lang)}  # fmt: skip


@computed_once(maxsize=SHARED_ENTRIES)
def similarity_row_figure(row: int, length: int, dim: int, base: float, lang: str):
    """The figure and the diagonal entry PE(p)·PE(p). The row by dot products is posenc's
    ``sinusoidal_similarity_row`` and the closed form its ``sinusoid_offset_similarity``, both by their equal fast
    forms (no [L, D] table, no [L, P] cosines: ~30× and ~5× less work at the largest sizes)."""
    dots = sinusoidal_similarity_row_by_blocks(row, length, dim, base).numpy()  # s[q] = PE(p)·PE(q), [L]
    closed = sinusoid_offset_similarity_by_blocks(row, length, dim, base).numpy()  # Σ_i cos((q − p)ω_i), [L]
    return fig.similarity_row_figure(dots, closed, row, _labels(lang)), float(dots[row])


@computed_once(maxsize=SHARED_ENTRIES)
def shift_figures(offset: int, length: int, dim: int, base: float, layout: str, lang: str):
    """The matrix figure, the residual figure and the largest residual."""
    residual = sinusoidal_shift_residual_by_pairs(offset, length, dim, base, layout).numpy()  # = posenc's, faster
    residual_figure = fig.shift_residual_figure(residual, offset, _labels(lang))
    return shift_matrix_figure(offset, dim, base, layout, lang), residual_figure, residual.max()


@computed_once(maxsize=SHARED_ENTRIES)
def shift_matrix_figure(offset: int, dim: int, base: float, layout: str, lang: str):
    """M_k's figure, cached apart: it does not depend on the length."""
    matrix = sinusoidal_shift_matrix(offset, dim, base, layout).numpy()
    pairs = sinusoid_pair_columns(dim, layout).numpy()
    return fig.shift_matrix_figure(matrix, pairs, offset, _labels(lang))


# "Why not 0, 1, 2": the short input's length moves over every value of its slider, the long one (the shared length)
# over a grid about 1.5× apart (the server's length is added).
NAIVE_SHORTS = tuple(range(2, 65))
NAIVE_LENGTHS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)
NAIVE_LINE_POINTS = 64  # positions a straight line (p, p / (L − 1)) of the long input is drawn at, at most
NAIVE_BAND = 2.0  # word-embedding entries lie mostly within ±2: the band the encodings are compared with


@computed_once(maxsize=SHARED_ENTRIES)
def live_naive(short: int, length: int, dim: int, base: float, layout: str, lang: str) -> dict:
    """What the live "why not 0, 1, 2" chart needs (static/views/sinusoidal_naive.js): the words, the dim and the
    pair drawn (P/4). The browser computes p and p / (s − 1) of the short input at every s of its slider, p and
    p / (L − 1) of the long one at :data:`NAIVE_LINE_POINTS` positions of every L, and the sinusoid
    PE(p, 2i) = sin(p·ω_i) at the sidebar's base with posenc's twins (integer_positions, normalized_positions,
    sinusoid_inv_freq)."""
    lengths = sorted({*NAIVE_LENGTHS, length})
    pair = dim // 2 // 4  # the pair drawn: P/4, slow enough to see its shape
    column = int(sinusoid_pair_columns(dim, layout)[pair, 0])
    names = {name: text(lang, f"sinusoidal.fig_{name}_name") for name in ("integer", "normalised", "sinusoid")}
    words = {"short": text(lang, "sinusoidal.naive_short_label"), "length": text(lang, "shared.length_label")}
    position, value = text(lang, "sinusoidal.fig_position_p"), text(lang, "sinusoidal.fig_value")
    panel_titles = {
        "integer": text(lang, "sinusoidal.fig_integer_panel"),
        "normalised": "p / (L − 1)",
        "sinusoid": text(lang, "sinusoidal.fig_sinusoid_panel", column=column),
    }
    return {
        "view": "sinusoidal_naive",
        "controls": {"short": {"values": list(NAIVE_SHORTS)}, "length": {"values": lengths}},
        "server": {"short": short, "length": length},
        "arrays": {},
        "follows": {"base": base},  # the sidebar's base, while its thumb moves (static/live.js)
        "dim": dim,
        "pair": pair,
        "line_points": NAIVE_LINE_POINTS,
        "band": NAIVE_BAND,
        "height": 360,
        "names": names | {"band": text(lang, "sinusoidal.naive_band", band=f"{NAIVE_BAND:g}")},
        "panel_words": {name: {"title": title, "x": position, "y": value} for name, title in panel_titles.items()},
        "readouts": [text(lang, "sinusoidal.naive_live_readout")],
        "words": words | {"hint": text(lang, "common.live_hint")},
    }


# "Why add": the cosines of random words with positions, as a histogram over [−1, 1] in bins of 0.02, for every dim
# of the live dim slider. A Gaussian word w ~ N(0, I_d) has the same cosine distribution with every fixed vector
# (its law is the same in every direction), so the picture depends on d alone: positions p < 512 at base 10 000, and
# the same seeded samples for a dim whatever the page's base and length, counted once for every dim and shipped
# (charts.cosine_table).
COSINE_SAMPLES, COSINE_EDGES = cosine_table.SAMPLES, cosine_table.EDGES


@computed_once(maxsize=1)  # read once per server, shared (~20 kB)
def shipped_cosines() -> dict[str, np.ndarray]:
    return cosine_table.read_table()


@computed_once(maxsize=64)
def counted_cosines(dim: int) -> tuple[np.ndarray, float]:
    """:func:`charts.cosine_table.counted` for a dim the shipped table lacks (none, while it is current)."""
    return cosine_table.counted(dim)


def cosine_counts(dim: int) -> tuple[np.ndarray, float]:
    """How many of posenc's cos(w, PE(p)) fall in each bin (4000 seeded samples, p < 512), and their spread (std):
    the shipped table's row for ``dim``."""
    table = shipped_cosines()
    at = int(np.searchsorted(table["dims"], dim))
    if at < len(table["dims"]) and table["dims"][at] == dim:
        return table["counts"][at].astype(np.int64), float(table["spreads"][at])
    return counted_cosines(dim)


@computed_once(maxsize=SHARED_ENTRIES)
def live_cosines(dim: int, lang: str) -> dict:
    """What the live "why add" chart needs (static/live.js ``slices``), for every dim d of the dim slider: the
    histogram of posenc's cosines (``embedding_pe_cosines``) as densities per bin, counted here, with the
    N(0, 1/d) density at the bins' centres; and the cosines' spread (standard deviation) at every d of the slider
    beside 1/√d (sent once: ``fixed``), with d marked."""
    dims = live_dims(dim)
    counts = {d: cosine_counts(d) for d in dims}  # one cache look-up per dim (each one unpickles its value)
    spreads = {d: spread for d, (_, spread) in counts.items()}
    centres, width = (COSINE_EDGES[:-1] + COSINE_EDGES[1:]) / 2, COSINE_EDGES[1] - COSINE_EDGES[0]

    def picture(dim: int) -> dict[str, np.ndarray]:
        return {
            "density": counts[dim][0] / (COSINE_SAMPLES * width),
            "normal": np.sqrt(dim / (2 * np.pi)) * np.exp(-dim * centres**2 / 2),  # N(0, 1/d)
            "spread": [spreads[dim]],
            "inverse_sqrt_dim": [1 / np.sqrt(dim)],
            "dim_mark": [dim],
        }

    every_dim = np.asarray(dims, dtype=np.float64)
    fixed = {"cosine": centres, "dims": every_dim, "spreads": [spreads[d] for d in dims]}
    data = sliced({"dim": dims}, {"dim": dim}, picture, fixed=fixed | {"inverse_sqrt": 1 / np.sqrt(every_dim)})
    words = {name: text(lang, f"sinusoidal.{key}") for name, key in COSINE_WORDS.items()}
    histogram = {
        "kind": "lines",
        "x": "cosine",
        "series": [
            {"y": "density", "mode": "bars", "name": words["histogram"]},
            {"y": "normal", "name": words["normal"], "dash": True, "width": 2},
        ],
        "x_min": -1.0,
        "x_max": 1.0,
        "words": {"title": words["title"], "x": words["cosine_axis"], "y": words["density"]},
    }
    spread = {
        "kind": "lines",
        "x": "dims",
        "series": [
            {"y": "spreads", "mode": "markers", "name": words["measured"]},
            {"y": "inverse_sqrt", "name": "1/√d", "dash": True, "width": 2},
        ],
        "log_x": True,
        "marks": [{"x": "dim_mark", "label": "d = {dim}"}],
        "words": {"title": words["spread_title"], "x": words["dim_axis"], "y": words["spread_axis"]},
    }
    controls = {"dim": text(lang, "shared.dim_label"), "hint": text(lang, "common.live_hint")}
    return data | {"height": 400, "panels": [histogram, spread], "words": controls, "readouts": [words["readout"]]}


COSINE_WORDS = {
    "title": "fig_cosine_title",
    "cosine_axis": "fig_cosine_axis",
    "density": "fig_density",
    "histogram": "cosine_histogram_name",
    "normal": "cosine_normal_name",
    "measured": "cosine_measured_name",
    "spread_title": "cosine_spread_title",
    "dim_axis": "cosine_dim_axis",
    "spread_axis": "cosine_spread_axis",
    "readout": "cosine_live_readout",
}


@computed_once(maxsize=4)  # a model: shared, not copied
def learned_embedding(max_len: int, dim: int):
    return seeded_learned_embedding(max_len, dim)


@computed_once(maxsize=SHARED_ENTRIES)
def learned_figure(position: int, max_len: int, dim: int, base: float, layout: str, lang: str):
    """The figure and whether the table refused ``position`` (it has no row for it)."""
    try:
        learned = learned_embedding(max_len, dim)(torch.tensor([position]))[0].detach().numpy()
    except ValueError:  # the table's own message is English: the page says it in the student's language
        learned = None
    sine = sinusoidal_row_by_blocks(position, dim, base, layout).numpy()  # PE(position), as posenc's, alone
    return fig.position_vector_figure(sine, learned, position, max_len, _labels(lang)), learned is None
