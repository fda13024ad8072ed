"""figures.common and the figures every page sends: sent as a ``go.Figure`` of the same traces and layout is sent
(less Plotly's default template), their numbers as Plotly's base64 typed arrays (float32: 4 bytes a number), never as
long lists of text."""

from __future__ import annotations

import base64
import json
import re
import unicodedata

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
import torch
from conftest import PAGE_FILES, figures

from figures import common
from figures.common import ReadOnlyFigure, as_f32, layout, wrapped


def _sent(figure) -> dict:
    """What ``st.plotly_chart`` sends for a figure (its own two calls), less Plotly's default template, which
    static/figure.js never reads and ReadOnlyFigure does not send."""
    sent = json.loads(pio.to_json(figure.to_dict(), validate=False))
    sent["layout"].pop("template", None)
    return sent


def _decoded(array: dict) -> np.ndarray:
    values = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
    return values.reshape([int(n) for n in array["shape"].split(",")]) if "shape" in array else values


def _example() -> tuple[list, dict, list]:
    """Traces (a line and a [2, 3] heatmap), a layout and three frames, as a builder hands them over."""
    x = as_f32(torch.linspace(0.0, 1.0, 5))
    z = as_f32(np.arange(6).reshape(2, 3) / 7)
    frames = [{"name": str(t), "data": [{"type": "scatter", "x": x, "y": x * t}], "traces": [0]} for t in range(3)]
    traces = [{"type": "scatter", "x": x, "y": x}, {"type": "heatmap", "z": z, "xaxis": "x2", "yaxis": "y2"}]
    return traces, layout("t", "x", "y"), frames


def test_float32_arrays_travel_as_base64_typed_arrays():
    traces, fig_layout, frames = _example()
    x, z = traces[0]["x"], traces[1]["z"]
    sent = _sent(ReadOnlyFigure(traces, fig_layout, frames))
    assert sent["data"][0]["y"]["dtype"] == "f4"
    np.testing.assert_array_equal(_decoded(sent["data"][0]["y"]), x)
    np.testing.assert_array_equal(_decoded(sent["data"][1]["z"]), z)  # "shape": "2, 3"
    assert [frame["name"] for frame in sent["frames"]] == ["0", "1", "2"]
    np.testing.assert_array_equal(_decoded(sent["frames"][2]["data"][0]["y"]), x * 2)


def test_a_read_only_figure_sends_what_a_go_figure_sends_made_once():
    read_only, plain = ReadOnlyFigure(*_example()), go.Figure(*_example())
    assert read_only.to_dict() == _sent(plain)  # made without Plotly, Plotly's own encoding as the reference
    assert read_only.to_dict() is read_only.to_dict()  # asked on every rerun: made once
    assert read_only.layout.title.text == "t" and read_only.data[1].z.shape == (2, 3)  # read as any go.Figure
    assert read_only["layout"]["title"]["text"] == "t"
    assert "template" not in read_only.to_dict()["layout"]


@pytest.mark.parametrize(
    "value",
    [
        np.array([[1, 2], [3, 4]], dtype=np.int64),  # narrowed to int8
        np.array([0, 70000], dtype=np.int64),  # to int32
        np.array([2**40], dtype=np.int64),  # too big for int32: a list
        np.array([1, 2], dtype=np.uint64),
        np.array([0.5, np.nan, np.inf], dtype=np.float64),
        np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1:3],  # not contiguous
        np.array([], dtype=np.float32),
        np.array(["a", "b"]),
        np.array([True, False]),
        torch.linspace(0, 1, 4),
        [np.float32(0.1), np.int64(3), float("nan"), None, "x", (1, 2)],
        {"range": np.array([0.0, 1.0]), "nested": {"values": np.arange(3, dtype=np.int16)}},
    ],
    ids=[
        "int64-small",
        "int64-int32",
        "int64-big",
        "uint64",
        "nan-inf",
        "strided",
        "empty",
        "strings",
        "bools",
        "tensor",
        "scalars",
        "skipped-key",
    ],
)
def test_every_kind_of_value_is_sent_as_plotly_sends_it(value):
    trace = {"type": "scatter", "x": value, "customdata": [value], "marker": {"color": value}}
    assert ReadOnlyFigure([trace], {"title": {"text": "t"}}).to_dict() == _sent(
        go.Figure([trace], {"title": {"text": "t"}}, _validate=False)
    )


def test_validation_catches_a_misspelt_property():
    """A figure is built without Plotly's validators; tests/test_figures_valid.py validates what it sends, which
    refuses a misspelt property."""
    misspelt = (ReadOnlyFigure([{"type": "scatter", "x": [1], "y": [1], "colr": "red"}], layout("t", "x", "y")),
                ReadOnlyFigure([], layout("t", "x", "y", heigth=300)))  # fmt: skip
    for figure, word in zip(misspelt, ("colr", "heigth"), strict=True):
        with pytest.raises(ValueError, match=word):
            go.Figure(figure.to_dict())


def test_layout_merges_an_axis_setting_into_the_titled_axis():
    merged = layout("title", "x words", "y words", 300, xaxis={"type": "log"}, showlegend=False)
    assert merged["xaxis"] == {"title": {"text": "x words"}, "type": "log"}
    assert merged["height"] == 300 and merged["showlegend"] is False


def _number_lists(value, path: str = "") -> list[str]:
    """Paths of lists of more than 8 numbers (or of such lists) under ``value``: numbers sent as text."""
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _number_lists(item, f"{path}.{key}")]
    if isinstance(value, list):
        flat = [item for row in value for item in (row if isinstance(row, list) else [row])]
        if len(flat) > 8 and all(type(item) in (int, float) for item in flat):
            return [f"{path} ({len(flat)} numbers)"]
        return [found for index, item in enumerate(value) for found in _number_lists(item, f"{path}[{index}]")]
    return []


@pytest.mark.parametrize("path", [path for path in PAGE_FILES if path != "pages/glossary.py"])
def test_every_page_sends_its_numbers_as_typed_arrays(path, open_page):
    sent = figures(open_page(path))
    assert sent, "the page sent no figure"
    traces = [trace for figure in sent for trace in figure["data"]]
    traces += [trace for figure in sent for frame in figure.get("frames", []) for trace in frame["data"]]
    assert not _number_lists(traces), "send these as float32 numpy arrays (figures.common.as_f32)"


def test_lines_figure_draws_each_series_over_one_axis_in_float32():
    from figures.common import lines_figure

    fig = lines_figure([0, 1, 2], [{"name": "a", "y": [1, 2, 3], "color": "#000000", "dash": "dash"},
                                   {"name": "b", "y": np.array([3.0, 2.0, 1.0])}], "t", "x", "y")  # fmt: skip
    assert [trace.name for trace in fig.data] == ["a", "b"]
    assert fig.data[0].line.dash == "dash" and fig.data[0].line.color == "#000000"
    assert fig.layout.title.text == "t" and fig.layout.xaxis.title.text == "x"
    assert np.asarray(fig.data[1].y).dtype == np.float32
    assert (fig.data[0].x0, fig.data[0].dx, fig.data[0].x) == (0, 1, None)  # evenly spaced: sent as a start and a step
    uneven = lines_figure([1, 10, 100], [{"name": "a", "y": [1, 2, 3]}], "t", "x", "y")
    np.testing.assert_array_equal(uneven.data[0].x, [1, 10, 100])


@pytest.mark.parametrize(
    "title",
    [
        "Wavelength of each pair vs the training context and the extended context window",
        "모든 위치에서 같은 M_k를 쓸 때의 오차 (k = 4), 쌍 64개 중 처음 16개만 표시합니다",
        "同一个 M_k 在每个位置上的误差（k = 4），共 64 对中的前 16 对；其余元素也都是零",
        "Short title",
    ],
)
def test_titles_break_into_lines_that_fit_without_losing_a_character(title):
    """Each line fits TITLE_COLUMNS (CJK counted double, as drawn); rejoined, the lines are the title; "k = 4" and
    Korean words are never split."""
    lines = common.wrapped(title).split("<br>")
    drawn = [sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line) for line in lines]
    assert all(width <= common.TITLE_COLUMNS for width in drawn)  # a CJK character is drawn twice as wide
    assert "".join(lines).replace(" ", "") == title.replace(" ", "")
    assert all(line == line.strip() for line in lines)
    words = set(title.split(" "))
    assert all(word in words for line in lines for word in line.split(" ") if not re.search("[\u4e00-\u9fff]", word))
    if "k = 4" in title:
        assert any("k = 4" in line for line in lines)
    if title.startswith("Wavelength"):  # by hand: 39 letters fit, "context" would make 47
        assert lines == ["Wavelength of each pair vs the training", "context and the extended context window"]


def test_a_title_never_breaks_inside_a_number_grouped_as_zh_writes_it():
    title = "YaRN 中每个维度对被插值的程度（训练长度 4 096）"
    for columns in range(10, 50):
        lines = wrapped(title, columns).split("<br>")
        assert not any(line.endswith("4") for line in lines[:-1]) and "4 096" in wrapped(title, columns)
    assert wrapped("tokens 12 345 678 here", 8).split("<br>")[1] == "12 345 678"  # longer than a line: kept whole
    assert "<br>" in wrapped("year 2024 1", 9)  # not a group of three digits: an ordinary space
