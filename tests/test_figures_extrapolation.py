"""Figure builders of the "train short, test long" page: arrays in, figures out, words from the caller."""

import math

import numpy as np
import pytest
from plotly.colors import sample_colorscale

from figures.common import UNSIGNED_COLORS
from figures.extrapolation import (
    attention_heads,
    excess_by_length,
    loss_by_length,
    loss_by_position,
    similarity_pair,
    sqrt_colorscale,
)

LABELS = {
    "title": "t",
    "x_title": "x",
    "y_title": "y",
    "loss": "loss",
    "floor_name": "floor",
    "guess_name": "guess",
    "train_mark": "trained",
    "length_hover": "length {length}",
    "position_hover": "position {position}",
    "spread": "seeds {low} to {high}",
}


def test_loss_by_length_marks_the_training_length_on_its_log_axis():
    lengths = [32, 64, 128, 512]
    series = [("alibi", "ALiBi", [1.3, 1.3, 1.3, 1.3]), ("rope", "RoPE", [1.3, 1.27, 1.4, 2.5])]
    fig = loss_by_length(lengths, series, [1.2] * 4, math.log(8), 64, LABELS)
    assert [trace.name for trace in fig.data] == ["ALiBi", "RoPE", "floor", "guess"]
    np.testing.assert_allclose(fig.data[1].y, [1.3, 1.27, 1.4, 2.5], rtol=1e-6)
    np.testing.assert_allclose(fig.data[3].y, [math.log(8)] * 2, rtol=1e-6)
    assert fig.layout.xaxis.type == "log"
    # Plotly places a shape on a log axis in data units and an annotation in log10 units
    assert fig.layout.shapes[0].x0 == 64
    assert fig.layout.annotations[0].x == pytest.approx(math.log10(64))


def test_the_seed_spread_is_drawn_as_bars_from_the_lowest_to_the_highest_seed():
    lengths = [128, 256]
    seeds = np.array([[0.1, 0.5], [0.2, 0.9], [0.3, 0.7]])  # [seed, length]
    mean = seeds.mean(0)
    series = [("rope", "RoPE", mean.tolist(), (seeds.min(0).tolist(), seeds.max(0).tolist()))]
    guess = ("guess", lengths, [0.8, 0.8], "dash")
    fig = excess_by_length(lengths, series, [guess], 64, LABELS)
    assert [trace.name for trace in fig.data] == ["RoPE", "floor", "guess"]
    bars = fig.data[0].error_y
    np.testing.assert_allclose(np.asarray(fig.data[0].y) + np.asarray(bars.array), seeds.max(0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fig.data[0].y) - np.asarray(bars.arrayminus), seeds.min(0), rtol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, [0, 0])  # the floor is 0 in excess units
    assert "seeds %{customdata[0]:.3f} to %{customdata[1]:.3f}" in fig.data[0].hovertemplate


def test_loss_by_position_marks_the_training_length_in_data_units():
    fig = loss_by_position([7.5, 23.5], [("none", "No PE", [1.5, 1.6])], [1.3, 1.2], 2.0, 16, LABELS)
    assert fig.layout.shapes[0].x0 == 16 and fig.layout.annotations[0].x == 16


def test_the_square_root_colour_scale_puts_half_colour_at_a_quarter_of_the_range():
    scale = sqrt_colorscale(4)
    assert [stop for stop, _ in scale] == [0.0, 1 / 16, 0.25, 9 / 16, 1.0]
    assert scale[2][1] == sample_colorscale(UNSIGNED_COLORS, [0.5])[0]


def test_attention_heads_draws_one_panel_per_head_with_the_weights_as_values():
    maps = np.random.default_rng(0).random((4, 8, 8)).astype(np.float32)
    labels = {"query_title": "q", "key_title": "k", "weight": "w", "head": "head {head}"}
    fig = attention_heads(maps, 2, "title", labels)
    assert len(fig.data) == 4 and [a.text for a in fig.layout.annotations] == [f"head {h}" for h in range(1, 5)]
    np.testing.assert_array_equal(fig.data[2].z, maps[2])
    np.testing.assert_array_equal(fig.data[0].x, np.arange(8) * 2)  # cells start at token positions 0, 2, 4, …
    assert fig.data[0].zmax == pytest.approx(float(maps.max()))


def test_similarity_pair_shares_one_signed_scale():
    eye = np.eye(5)
    labels = dict.fromkeys(("title", "learned_title", "sinusoid_title", "position", "other_position", "similarity"), "")
    fig = similarity_pair(eye, -eye, labels)
    assert [(t.zmin, t.zmax) for t in fig.data] == [(-1, 1), (-1, 1)]
    assert [t.showscale for t in fig.data] == [False, True]
