"""The model page's figure builders without Streamlit: traces, marks and words from arrays and labels."""

import math

import numpy as np
import pytest

from figures.model_rope import LABEL_KEYS, bound_figure, wavelength_figure

LABELS = {key: f"<{key}>" for key in LABEL_KEYS} | {
    "turned": "turned {count}",
    "never_turned": "never {count}",
    "training_mark": "train {length}",
    "extended_mark": "ext {length}",
    "pair_hover": "pair {pair}",
    "wavelength_hover": "λ {value}",
}
WAVELENGTHS = 2 * math.pi * 10000 ** (np.arange(0, 8, 2) / 8)  # D = 8: 6.3, 62.8, 628, 6283


@pytest.mark.parametrize("scaled", [False, True])
def test_wavelengths_are_split_by_full_turns_and_the_windows_marked(scaled):
    completes = WAVELENGTHS <= 99
    after = WAVELENGTHS * 4 if scaled else None
    extended = 400 if scaled else 100
    figure = wavelength_figure(WAVELENGTHS, after, completes, 100, extended, LABELS)
    names = [trace.name for trace in figure.data]
    assert names[:2] == ["turned 2", "never 2"] and len(names) == (3 if scaled else 2)
    assert list(figure.data[0].x) == [0, 1] and list(figure.data[1].x) == [2, 3]
    np.testing.assert_allclose(figure.data[1].y, WAVELENGTHS[2:], rtol=1e-6)
    assert [shape.y0 for shape in figure.layout.shapes] == ([100, 400] if scaled else [100])
    assert figure.layout.annotations[0].text == "train 100"
    assert figure.layout.yaxis.type == "log"


def test_the_bound_before_and_after_on_a_log_distance_axis():
    distances = np.array([0, 1, 10, 100, 1000])
    figure = bound_figure(distances, np.ones(5), np.full(5, 2.0), 100, 1000, LABELS)
    assert [trace.name for trace in figure.data] == ["<bound_before>", "<bound_after>"]
    assert figure.data[0].line.dash == "dash" and figure.data[1].line.dash == "solid"
    assert [shape.x0 for shape in figure.layout.shapes] == [100, 1000]
    assert [note.x for note in figure.layout.annotations] == [2.0, 3.0]  # log10 units on a log axis
    assert [note.text for note in figure.layout.annotations] == ["train 100", "ext 1,000"]
    alone = bound_figure(distances, np.ones(5), None, 100, 100, LABELS)
    assert len(alone.data) == 1 and alone.data[0].line.dash == "solid" and len(alone.layout.shapes) == 1
