"""Figure builders of the toy-transformer page, without Streamlit: shapes, titles, and that data in = data shown."""

import numpy as np
import pytest
import torch

from figures.toy import accuracy_bars, attention_grid, repeated_rows, training_curve
from ui.i18n import text


def words(lang: str = "en", *names: str, **renamed: str) -> dict:
    """The page's labels for a builder, read straight from the catalog (as the page does with t())."""
    found = {name: text(lang, f"toy.{name}") for name in names}
    return found | {name: text(lang, f"toy.{key}") for name, key in renamed.items()}


def grid_words(lang: str = "en") -> dict:
    return words(
        lang,
        "weight",
        query_title="query_token",
        key_title="key_token",
        head="grid_head",
        layer="grid_layer",
        layer_head="grid_layer_head",
        axes="grid_axes",
    )


def rows_words(lang: str = "en") -> dict:
    return words(lang, "row_name", "query", "key", "key_axis", "weight_axis", "weight")


def bars_words(lang: str = "en") -> dict:
    names = {"title": "accuracy_title", "x_title": "accuracy_x", "y_title": "accuracy_y"}
    return words(lang, "exact_hover", held_name="bar_held", longer_name="bar_longer", **names)


def curve_words(lang: str = "en") -> dict:
    names = {"title": "curve_title", "x_title": "curve_x", "y_title": "curve_y"}
    return words(
        lang, "loss", "step_hover", "exact_hover", loss_name="curve_loss_name", held_name="curve_held_name", **names
    )


@pytest.mark.parametrize("layers, heads, q_len, k_len", [(2, 4, 7, 7), (1, 1, 3, 5), (3, 2, 6, 10)])
def test_attention_grid_has_one_heatmap_per_layer_and_head(layers, heads, q_len, k_len):
    maps = [torch.rand(heads, q_len, k_len).softmax(-1) for _ in range(layers)]
    queries, keys = [f"q{i}" for i in range(q_len)], ["1"] * k_len  # repeated labels must stay separate columns
    fig = attention_grid(maps, queries, keys, "Model", grid_words())
    heatmaps = [trace for trace in fig.data if trace.type == "heatmap"]
    assert len(heatmaps) == layers * heads
    for index, trace in enumerate(heatmaps):
        layer, head = divmod(index, heads)
        np.testing.assert_array_equal(trace.z, maps[layer][head].numpy().astype(np.float32))
        assert trace.z.dtype == np.float32
        assert (trace.zmin, trace.zmax) == (0.0, 1.0)
    assert list(fig.layout.xaxis.ticktext) == keys and list(fig.layout.xaxis.tickvals) == list(range(k_len))
    assert list(fig.layout.yaxis.ticktext) == queries
    assert fig.layout.yaxis.autorange == "reversed"
    assert "Model" in fig.layout.title.text and "query token" in fig.layout.title.text
    assert sum(trace.showscale is True for trace in heatmaps) == 1


@pytest.mark.parametrize("positions", [[1, 4, 5], [0, 3]])
def test_repeated_rows_shows_the_row_of_each_occurrence(positions):
    weights = torch.rand(7, 7).softmax(-1)
    tokens = list("21+211=")
    fig = repeated_rows(weights, tokens, positions, "rows of '1'", rows_words())
    assert len(fig.data) == len(positions)
    for trace, position in zip(fig.data, positions, strict=True):
        np.testing.assert_array_equal(trace.y, weights[position].numpy().astype(np.float32))
        assert str(position) in trace.name
    assert fig.layout.title.text == "rows of '1'"
    assert fig.layout.xaxis.title.text == "key (attended to)"


def test_accuracy_bars_show_percentages():
    fig = accuracy_bars(["No PE", "RoPE"], [0.05, 0.995], [0.0, 0.3], bars_words())
    assert [trace.type for trace in fig.data] == ["bar", "bar"]
    np.testing.assert_allclose(fig.data[0].y, [5.0, 99.5], rtol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, [0.0, 30.0], rtol=1e-6)
    assert list(fig.data[0].x) == ["No PE", "RoPE"]
    assert fig.layout.yaxis.title.text == "exact match (%)"


def test_training_curve_shows_loss_per_step_and_held_out_percentages():
    fig = training_curve([2.0, 1.5, 1.2], [(2, 0.25)], 10, curve_words())
    np.testing.assert_allclose(fig.data[0].y, [2.0, 1.5, 1.2], rtol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, [25.0], rtol=1e-6)
    assert fig.layout.title.text == "Training live"
    assert fig.layout.yaxis2.title.text == "held-out exact match (%)"
    assert "step %{x}" in fig.data[0].hovertemplate


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_every_builder_takes_its_words_from_the_labels(lang):
    """Nothing English is left inside the builders: with translated labels no English word of the page appears."""
    maps = [torch.rand(2, 3, 3).softmax(-1) for _ in range(2)]
    built = [
        attention_grid(maps, list("1+1"), list("1+1"), "M", grid_words(lang)),
        repeated_rows(torch.rand(3, 3).softmax(-1), list("1+1"), [0, 2], "T", rows_words(lang)),
        accuracy_bars(["A", "B"], [0.5, 0.5], [0.1, 0.1], bars_words(lang)),
        training_curve([1.0, 0.5], [(2, 0.5)], 4, curve_words(lang)),
    ]
    english = {"head", "layer", "weight", "query", "key", "row", "position", "exact", "match", "step", "loss"}
    for fig in built:
        shown = fig.to_json().lower()
        assert not [word for word in english if f'"{word} ' in shown or f"{word} %" in shown or f">{word} " in shown]
    assert built[0].layout.annotations[0].text == text(lang, "toy.grid_head", head=1)
    assert built[1].data[0].name == text(lang, "toy.row_name", position=0, token="1")
    assert built[2].layout.title.text == text(lang, "toy.accuracy_title")
    assert built[3].layout.xaxis.title.text == text(lang, "toy.curve_x")
