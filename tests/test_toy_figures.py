"""Figure builders of the toy-transformer page, without Streamlit: shapes, titles, and that data in = data shown."""

import numpy as np
import pytest
import torch

from figures.toy import accuracy_bars, attention_grid, repeated_rows


@pytest.mark.parametrize("layers, heads, q_len, k_len", [(2, 4, 7, 7), (1, 1, 3, 5), (3, 2, 6, 10)])
def test_attention_grid_has_one_heatmap_per_layer_and_head(layers, heads, q_len, k_len):
    maps = [torch.rand(heads, q_len, k_len).softmax(-1) for _ in range(layers)]
    queries, keys = [f"q{i}" for i in range(q_len)], ["1"] * k_len  # repeated labels must stay separate columns
    fig = attention_grid(maps, queries, keys, "Model", "query token", "key token")
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
    fig = repeated_rows(weights, tokens, positions, "rows of '1'")
    assert len(fig.data) == len(positions)
    for trace, position in zip(fig.data, positions, strict=True):
        np.testing.assert_array_equal(trace.y, weights[position].numpy().astype(np.float32))
        assert str(position) in trace.name
    assert fig.layout.title.text == "rows of '1'"
    assert fig.layout.xaxis.title.text == "key (attended to)"


def test_accuracy_bars_show_percentages():
    fig = accuracy_bars(["No PE", "RoPE"], [0.05, 0.995], [0.0, 0.3])
    assert [trace.type for trace in fig.data] == ["bar", "bar"]
    np.testing.assert_allclose(fig.data[0].y, [5.0, 99.5], rtol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, [0.0, 30.0], rtol=1e-6)
    assert list(fig.data[0].x) == ["No PE", "RoPE"]
    assert fig.layout.yaxis.title.text == "exact match (%)"
