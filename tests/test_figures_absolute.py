"""Figure builders of the sinusoidal page, without Streamlit: shapes, titles, and that the data in is the data shown."""

import numpy as np
import plotly.graph_objects as go
import pytest

from figures import absolute as fig
from ui.i18n import LANGUAGES, catalog, text

LABELS = {name: text("en", f"sinusoidal.fig_{name}") for name in fig.LABEL_NAMES}


def interleaved_pairs(dim: int) -> np.ndarray:
    return np.stack([np.arange(0, dim, 2), np.arange(1, dim, 2)], axis=-1)


def concat_pairs(dim: int) -> np.ndarray:
    return np.stack([np.arange(dim // 2), np.arange(dim // 2, dim)], axis=-1)


def wave_table(length: int, dim: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.uniform(-1, 1, size=(length, dim)).astype(np.float32)


@pytest.mark.parametrize(
    "column, pairs, label",
    [
        (0, interleaved_pairs(8), "d0 = sin, pair 0"),
        (5, interleaved_pairs(8), "d5 = cos, pair 2"),
        (5, concat_pairs(8), "d5 = cos, pair 1"),
        (3, concat_pairs(8), "d3 = sin, pair 3"),
    ],
)
def test_column_label_names_the_pair_and_its_function(column, pairs, label):
    assert fig.column_label(column, pairs, LABELS["column"]) == label


@pytest.mark.parametrize("columns", [[0], [0, 1, 7], [3, 12, 15]])
def test_waves_draw_each_chosen_column(columns):
    table = wave_table(50, 16)
    figure = fig.waves_figure(table[:, columns], columns, interleaved_pairs(16), LABELS)  # the chosen columns
    assert len(figure.data) == len(columns)
    for trace, column in zip(figure.data, columns, strict=True):
        assert isinstance(trace, go.Scatter)
        np.testing.assert_array_equal(np.asarray(trace.y), table[:, column])
        assert trace.name.startswith(f"d{column} = ")
    assert figure.layout.xaxis.title.text == "position p"


def test_wavelengths_are_on_a_log_axis_with_the_length_marked():
    wavelengths = 2 * np.pi * 10000.0 ** (np.arange(0, 64, 2) / 64)
    figure = fig.wavelength_figure(wavelengths, 300, LABELS)
    assert figure.layout.yaxis.type == "log"
    np.testing.assert_allclose(np.asarray(figure.data[0].y), wavelengths, rtol=1e-6)
    assert figure.layout.shapes[0].y0 == 300
    # a log axis places annotations and its range in log10 units
    assert figure.layout.annotations[0].y == pytest.approx(np.log10(300))
    low, high = figure.layout.yaxis.range
    assert low < np.log10(wavelengths.min()) and high > np.log10(wavelengths.max())


def test_similarity_row_overlays_dot_products_and_the_offset_formula():
    row, closed = np.linspace(-1, 4, 40), np.linspace(-1, 4, 40) + 1e-9
    figure = fig.similarity_row_figure(row, closed, 12, LABELS)
    assert len(figure.data) == 2
    np.testing.assert_allclose(np.asarray(figure.data[0].y), row, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(figure.data[1].y), closed, rtol=1e-6)
    assert figure.layout.shapes[0].x0 == 12


@pytest.mark.parametrize(
    "dim, pairs, shown",
    [
        (8, interleaved_pairs(8), 8),
        (64, interleaved_pairs(64), 32),
        (64, concat_pairs(64), 32),
        (4, concat_pairs(4), 4),
    ],
)
def test_shift_matrix_shows_the_first_pairs_in_layout_order(dim, pairs, shown):
    matrix = np.arange(dim * dim, dtype=np.float64).reshape(dim, dim)
    figure = fig.shift_matrix_figure(matrix, pairs, 3, LABELS)
    trace = figure.data[0]
    keep = np.sort(pairs[: fig.SHIFT_MATRIX_PAIRS].ravel())
    assert np.asarray(trace.z).shape == (shown, shown)
    np.testing.assert_array_equal(np.asarray(trace.z), matrix[np.ix_(keep, keep)].astype(np.float32))
    assert list(trace.x) == list(trace.y) and trace.x[0] == "d0 sin, pair 0"
    assert "k = 3" in figure.layout.title.text
    assert ("First 16" in figure.layout.title.text) == (dim > 32)


def test_shift_residual_is_drawn_per_position():
    residual = np.full(100, 1e-7)
    figure = fig.shift_residual_figure(residual, 5, LABELS)
    np.testing.assert_allclose(np.asarray(figure.data[0].y), residual, rtol=1e-6)
    assert "k = 5" in figure.layout.title.text


@pytest.mark.parametrize("learned", [None, np.linspace(-0.02, 0.02, 8)])
def test_position_vector_shows_the_formula_always_and_the_table_only_when_it_has_a_row(learned):
    sine = np.linspace(-1, 1, 8)
    figure = fig.position_vector_figure(sine, learned, 600, 512, LABELS)
    np.testing.assert_allclose(np.asarray(figure.data[0].y), sine, rtol=1e-6)
    texts = [a.text for a in figure.layout.annotations]
    if learned is None:
        assert len(figure.data) == 1 and any("no vector" in text for text in texts)
    else:
        assert len(figure.data) == 2 and not any("no vector" in text for text in texts)
        np.testing.assert_allclose(np.asarray(figure.data[1].y), learned, rtol=1e-6)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_figure_label_is_in_each_catalog(lang):
    assert {f"sinusoidal.fig_{name}" for name in fig.LABEL_NAMES} <= set(catalog(lang))


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_figures_take_their_words_from_the_labels(lang):
    labels = {name: text(lang, f"sinusoidal.fig_{name}") for name in fig.LABEL_NAMES}
    vector = fig.position_vector_figure(np.zeros(8), None, 600, 512, labels)
    assert vector.layout.title.text == text(lang, "sinusoidal.fig_vector_title", position=600)
    assert text(lang, "sinusoidal.fig_no_vector", position=600, max_len=512) in [
        a.text for a in vector.layout.annotations
    ]
