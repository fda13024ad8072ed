"""Figure builders of the decay page, without Streamlit: traces, titles, axes, and that data in = data shown."""

import math

import numpy as np
import pytest

from figures.decay import (
    LABEL_KEYS,
    METHODS,
    curves_figure,
    score_figure,
    wavelength_figure,
)
from ui.i18n import LANGUAGES, text

DISTANCES = np.arange(257)
RNG = np.random.default_rng(0)


def chart_labels(lang: str = "en") -> dict:
    """The labels the page hands the builders, from the catalog of ``lang``."""
    return {key: text(lang, f"decay.{key}") for key in LABEL_KEYS}


LABELS = chart_labels()


def test_figures_module_does_not_import_streamlit():
    import figures.decay as module

    assert "streamlit" not in vars(module)


def test_score_figure_draws_band_mean_and_all_ones():
    ones, mean, std = RNG.standard_normal((3, 257))
    std = np.abs(std)
    fig = score_figure(DISTANCES, ones, mean, std, LABELS)
    assert [trace.type for trace in fig.data] == ["scatter"] * 4
    lower, upper, mean_trace, ones_trace = fig.data
    np.testing.assert_allclose(lower.y, mean - std, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(upper.y, mean + std, rtol=1e-5, atol=1e-6)
    assert upper.fill == "tonexty"
    np.testing.assert_allclose(mean_trace.y, mean, rtol=1e-6)
    np.testing.assert_allclose(mean_trace.customdata, std, rtol=1e-6)
    np.testing.assert_allclose(ones_trace.y, ones, rtol=1e-6)
    assert "all ones" in ones_trace.name
    assert all(trace.y.dtype == np.float32 for trace in fig.data)


@pytest.mark.parametrize("log_x", [False, True])
def test_curves_figure_one_trace_per_curve_and_labelled_marks(log_x):
    curves = {"original": np.ones(257), "linear": np.full(257, 2.0), "base 500,000": np.full(257, 3.0)}
    fig = curves_figure(DISTANCES, curves, "A title", "bound", LABELS, log_x, marks={"training": 64, "target": 256})
    assert [trace.name for trace in fig.data] == ["original (no scaling)", "linear interpolation", "base 500,000"]
    assert fig.data[0].line.dash == "dash" and fig.data[1].line.dash == "solid"
    for trace, values in zip(fig.data, curves.values(), strict=True):
        np.testing.assert_array_equal(trace.y, values.astype(np.float32))
    assert [shape.x0 for shape in fig.layout.shapes] == [64, 256]
    # plotly.js puts annotations on a log axis in log10 units
    expected = [math.log10(64), math.log10(256)] if log_x else [64, 256]
    assert [annotation.x for annotation in fig.layout.annotations] == pytest.approx(expected)
    assert [annotation.text for annotation in fig.layout.annotations] == ["training", "target"]
    assert fig.layout.title.text == "A title"


def test_wavelength_figure_splits_pairs_that_turn_within_training():
    wavelengths = 2 * np.pi * 10000.0 ** (np.arange(64) / 64)
    completes = wavelengths <= 4095
    fig = wavelength_figure(wavelengths, completes, 4096, LABELS)
    turned, not_turned = fig.data
    np.testing.assert_array_equal(turned.x, np.flatnonzero(completes))
    np.testing.assert_array_equal(not_turned.x, np.flatnonzero(~completes))
    np.testing.assert_allclose(turned.y, wavelengths[completes], rtol=1e-6)
    assert f"({completes.sum()} pairs)" in turned.name and f"({(~completes).sum()} pairs)" in not_turned.name
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.shapes[0].y0 == 4096
    assert fig.layout.annotations[0].y == pytest.approx(math.log10(4096))
    assert "4,096" in fig.layout.annotations[0].text


def test_every_label_the_builders_read_is_in_the_catalog():
    assert not [key for key in LABEL_KEYS if text("en", f"decay.{key}").startswith("⟦")]
    assert {f"method_{method}" for method in METHODS} <= set(LABEL_KEYS)


def every_figure(labels: dict) -> list:
    """One figure from each builder, drawn with ``labels``."""
    curve = np.linspace(1.0, 0.0, 257)
    return [
        score_figure(DISTANCES, curve, curve, curve, labels),
        curves_figure(DISTANCES, {"original": curve, "yarn": curve}, "title", "y", labels, marks={"mark": 64}),
        wavelength_figure(np.geomspace(6.0, 60000.0, 8), np.arange(8) < 5, 4096, labels),
    ]


def words_shown(value) -> list[str]:
    """Every string anywhere in a figure's JSON form: names, titles, hover templates, annotations."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [word for item in value for word in words_shown(item)]
    return []


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("index", range(3))
def test_figures_show_only_the_words_they_are_given(lang, index):
    """Drawn with another language's labels, no English chart word is left (names like YaRN are the same)."""
    fig = every_figure(chart_labels(lang))[index]
    shown = words_shown(fig.to_plotly_json())
    translated = chart_labels(lang)
    english = [value.split("{")[0].strip() for key, value in LABELS.items() if value != translated[key]]
    assert not [word for word in english if any(word in text_ for text_ in shown)]
    assert fig.layout.title.text in {*translated.values(), "title"}
