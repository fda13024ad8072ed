"""Figure builders of the relative-position page, without Streamlit: shapes, titles, data in = data shown."""

from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from figures import relative as fig
from figures.common import SIGNED_COLORS
from posenc.relative import (
    alibi_bias,
    alibi_power_of_two_heads,
    alibi_slope_exponents,
    alibi_slopes,
    relative_offsets,
    t5_bias_per_offset,
    t5_bucket_ranges,
    t5_illustrative_bias,
    t5_max_exact,
)
from ui.i18n import LANGUAGES, catalog, text

LABELS = {name: text("en", f"relative.{name}") for name in fig.LABELS}  # what the page passes in English


def axis_title(figure: go.Figure, axis: str) -> str:
    return getattr(figure.layout, axis).title.text


def is_f32(values) -> bool:
    return isinstance(values, np.ndarray) and values.dtype == np.float32


@pytest.mark.parametrize("length, expected", [(2, 2), (64, 64), (128, 128), (129, 128), (4096, 128)])
def test_window_length_caps_matrices_at_the_window(length, expected):
    assert fig.window_length(length) == expected


def test_t5_bucket_table_lists_the_computed_ranges():
    table = fig.t5_bucket_table(t5_bucket_ranges(True, 32, 128), t5_max_exact(True, 32), LABELS)
    assert list(table.columns) == ["bucket", "relative positions r = j − i", "how many", "region"]
    assert len(table.rows) == 32 and table.row_headers  # each row named by its bucket
    rows = {int(row[0]): list(row[1:]) for row in table.rows}
    assert rows[0] == ["0", "1", "exact"]
    assert rows[8] == ["−11 … −8", "4", "log"]
    assert rows[15] == ["−∞ … −91", "∞", "log, then capped"]
    assert rows[16] == ["never used", "0", "unused"]
    assert rows[31] == ["+91 … +∞", "∞", "log, then capped"]
    causal = fig.t5_bucket_table(t5_bucket_ranges(False, 8, 20), t5_max_exact(False, 8), LABELS)
    assert list(causal.rows[0]) == ["0", "0 … +∞", "∞", "exact (0) + every key ahead"]


@pytest.mark.parametrize("heads", [1, 5, 16])
def test_t5_head_bias_is_one_row_per_head(heads):
    offsets = relative_offsets(40)
    bias = t5_bias_per_offset(t5_illustrative_bias(heads, 16, 32), offsets).detach()
    figure = fig.t5_head_bias(offsets, bias, LABELS)
    (trace,) = figure.data
    assert is_f32(trace.z) and trace.z.shape == (heads, 81)
    np.testing.assert_array_equal(trace.z, bias.numpy())
    np.testing.assert_array_equal(trace.y, np.arange(1, heads + 1))
    assert trace.zmid == 0 and trace.colorscale == go.Heatmap(colorscale=SIGNED_COLORS).colorscale
    assert "untrained" in figure.layout.title.text


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("heads, num_buckets, max_distance", [(1, 8, 20), (8, 32, 1000), (16, 64, 1024)])
def test_t5_head_bias_merges_runs_of_one_bucket_when_wide(heads, num_buckets, max_distance, bidirectional):
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    table = t5_illustrative_bias(heads, num_buckets, max_distance, bidirectional)
    bias = t5_bias_per_offset(table, offsets).detach().numpy()
    figure = fig.t5_head_bias(offsets, bias, LABELS, max_columns=64)
    (trace,) = figure.data
    assert is_f32(trace.z) and trace.z.shape[0] == heads and trace.z.shape[1] <= num_buckets
    edges = np.asarray(trace.x)
    assert len(edges) == trace.z.shape[1] + 1  # cell edges, so each cell is as wide as its run of offsets
    cell = np.searchsorted(edges, offsets.numpy(), side="right") - 1
    np.testing.assert_array_equal(trace.z[:, cell], bias)  # every offset still shows its exact bias
    first, last = np.asarray(trace.customdata)[0].T  # the hover names the run's first and last offset
    assert (first[cell] <= offsets.numpy()).all() and (offsets.numpy() <= last[cell]).all()
    assert "each run of them is drawn as one cell" in figure.layout.title.text


@pytest.mark.parametrize(
    "length, heads, picks",
    [(2, 1, [0]), (64, 8, [0, 7]), (4096, 16, [0, 15]), (64, 12, [8, 7])],  # 12 heads: 2^−0.5 is steepest
)
def test_alibi_matrices_show_steepest_and_gentlest_head_with_the_mask_blank(length, heads, picks):
    window = alibi_bias(fig.window_length(length), heads)
    figure = fig.alibi_head_matrices(window, alibi_slopes(heads), length, LABELS)
    assert len(figure.data) == len(picks)
    assert [annotation.text.split(" (")[0] for annotation in figure.layout.annotations] == [
        f"head {head + 1}" for head in picks
    ]
    for head, trace in zip(picks, figure.data, strict=True):
        expected = window[head].numpy()
        shown = trace.z
        assert is_f32(shown) and shown.shape == expected.shape
        assert np.isnan(shown[np.isneginf(expected)]).all()  # masked future: blank
        finite = np.isfinite(expected)
        np.testing.assert_array_equal(shown[finite], expected[finite])
        assert trace.zmin == -trace.zmax  # 0 sits in the middle of the diverging scale
    assert ("Window" in figure.layout.title.text) == (length > fig.MATRIX_WINDOW)


@pytest.mark.parametrize(
    "heads, phrases",
    [
        (8, ["heads = 8 is a power of two", "1, 2, 3, 4, 5, 6, 7, 8"]),
        (12, ["not a power of two", "8-head slopes", "16-head sequence", "0.5, 1.5, 2.5, 3.5"]),
        (1, ["heads = 1 is a power of two", "exponents 8"]),
    ],
)
def test_alibi_note_says_how_the_slopes_were_built(heads, phrases):
    note = fig.alibi_slopes_note(alibi_slope_exponents(heads), alibi_power_of_two_heads(heads), LABELS)
    for phrase in phrases:
        assert phrase in note


def test_figures_module_does_not_import_streamlit():
    assert "streamlit" not in Path(fig.__file__).read_text(encoding="utf-8")


def test_every_figure_label_is_in_the_catalog():
    assert {f"relative.{name}" for name in fig.LABELS} <= set(catalog("en"))


def all_figures(labels: dict) -> list[go.Figure]:
    """One of each Plotly chart (the others are live charts), with a merged T5 bias and a window note."""
    span = relative_offsets(fig.t5_offset_span(1024))
    bias = t5_bias_per_offset(t5_illustrative_bias(12, 32, 1024, False), span).detach()
    return [
        fig.t5_head_bias(span, bias, labels),
        fig.alibi_head_matrices(alibi_bias(fig.MATRIX_WINDOW, 12), alibi_slopes(12), 4096, labels),
    ]


def shown_words(figure: go.Figure) -> list[str]:
    """Every text a student can read on a chart: titles, axis titles, colorbars, legend names, hovers, notes."""
    layout = figure.to_plotly_json()["layout"]
    words = [layout["title"]["text"]]
    words += [value["title"]["text"] for key, value in layout.items() if key[1:5] == "axis" and "title" in value]
    words += [note["text"] for note in layout.get("annotations", [])]
    for trace in figure.to_plotly_json()["data"]:
        words += [trace.get("name") or "", trace.get("hovertemplate") or ""]
        words.append(trace.get("colorbar", {}).get("title", {}).get("text", ""))
    return [word for word in words if word]


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_chart_word_comes_from_the_labels(lang):
    """Translated labels replace every English word: no chart text of another language is the English one."""
    labels = {name: text(lang, f"relative.{name}") for name in fig.LABELS}
    for english, translated in zip(all_figures(LABELS), all_figures(labels), strict=True):
        assert translated.layout.title.text != english.layout.title.text
        for before, after in zip(shown_words(english), shown_words(translated), strict=True):
            assert after != before, before


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_bucket_table_and_slopes_note_are_translated(lang):
    labels = {name: text(lang, f"relative.{name}") for name in fig.LABELS}
    table = fig.t5_bucket_table(t5_bucket_ranges(True, 32, 128), t5_max_exact(True, 32), labels)
    assert table.columns[0] == labels["bucket"] and table.rows[16][1] == labels["never_used"]
    note = fig.alibi_slopes_note(alibi_slope_exponents(12), alibi_power_of_two_heads(12), labels)
    assert "0.5, 1.5, 2.5, 3.5" in note and "⟦" not in note
