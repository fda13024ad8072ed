"""Figure builders of the page "RoPE at inference time", without Streamlit: the moved-chunk error chart draws what it
is given, floored for a log axis, with its mark where it is told."""

import math

import numpy as np
from conftest import decode

from figures.inference import MOVE_FLOOR, move_error_figure


def test_figures_module_does_not_import_streamlit():
    import figures.inference as module

    assert "streamlit" not in vars(module)


def test_move_error_figure_floors_zero_errors_and_marks_the_shift():
    shifts = np.geomspace(1, 65536, 17).round()
    errors = {"exact": np.zeros(17), "stale": np.where(shifts > 3583, 40.0, 2e-6)}
    labels = {"move_axis_x": "Δ", "move_axis_y": "error", "mark": "past 4,096", "at": "3583"}
    fig = move_error_figure(shifts, errors, "title", labels).to_plotly_json()
    exact, stale = fig["data"]
    assert [exact["name"], stale["name"]] == ["exact", "stale"]
    np.testing.assert_array_equal(decode(exact["y"]), np.full(17, MOVE_FLOOR, dtype=np.float32))  # none on a log y
    np.testing.assert_allclose(decode(stale["y"]), np.maximum(errors["stale"], MOVE_FLOOR), rtol=1e-6)
    assert fig["layout"]["xaxis"]["type"] == fig["layout"]["yaxis"]["type"] == "log"
    (line,) = fig["layout"]["shapes"]
    assert line["x0"] == line["x1"] == 3583
    (mark,) = fig["layout"]["annotations"]
    assert mark["text"] == "past 4,096" and mark["x"] == math.log10(3583)  # a log axis places it in log10 units
