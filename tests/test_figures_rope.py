"""The RoPE page's figure builders, without Streamlit: the data shown is the data given, frames are bounded."""

import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from figures import rope as figs
from posenc.rope import (
    ROPE_LAYOUTS,
    rope_feature_pairs,
)
from ui.i18n import LANGUAGES, catalog, text

BUILDER_LABELS = (
    figs.PAIRING_LABELS,
    figs.ATTENTION_LABELS,
)


def words(names: tuple[str, ...], lang: str = "en") -> dict[str, str]:
    """A builder's labels from the rope catalog, as the page passes them."""
    return {name: text(lang, f"rope.{name}") for name in names}


def payload_bytes(fig: go.Figure) -> int:
    return len(fig.to_json())


@pytest.mark.parametrize("dim", [2, 8, 1024])
def test_layout_pairing_shows_the_pair_of_every_feature(dim):
    pairs = {layout: rope_feature_pairs(dim, layout).numpy() for layout in ROPE_LAYOUTS}
    fig = figs.layout_pairing(pairs, words(figs.PAIRING_LABELS))
    (heatmap,) = fig.data
    assert isinstance(heatmap, go.Heatmap) and heatmap.z.shape == (2, dim)
    np.testing.assert_array_equal(heatmap.z[0], pairs["half"].astype(np.float32))
    np.testing.assert_array_equal(heatmap.z[1], pairs["interleaved"].astype(np.float32))
    rows = [name.replace("<br>", " ") for name in heatmap.y]  # a long name is broken into lines
    assert rows == [text("en", "rope.layout_half"), text("en", "rope.layout_interleaved")]
    assert (heatmap.texttemplate is not None) == (dim <= 32)  # numbers only where they are readable


def test_layout_attention_has_two_heatmaps_on_one_0_to_1_scale():
    right, wrong = np.eye(6), np.full((6, 6), 1 / 6)
    fig = figs.layout_attention(right, wrong, "run with half", "run with interleaved", words(figs.ATTENTION_LABELS))
    assert [type(trace) for trace in fig.data] == [go.Heatmap, go.Heatmap]
    np.testing.assert_array_equal(fig.data[0].z, right.astype(np.float32))
    np.testing.assert_array_equal(fig.data[1].z, wrong.astype(np.float32))
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0.0, 1.0)
    assert [a.text.replace("<br>", " ") for a in fig.layout.annotations] == ["run with half", "run with interleaved"]


@pytest.mark.parametrize(
    "values, text",
    [([0, 1], "[0, 1]"), (list(range(20)), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, …, 18, 19]")],
)
def test_index_list_text(values, text):
    assert figs.index_list_text(values) == text


def test_figure_module_does_not_use_streamlit():
    source = Path(figs.__file__).read_text()
    assert "import streamlit" not in source and "from streamlit" not in source


@pytest.mark.parametrize("names", BUILDER_LABELS)
def test_every_word_a_builder_needs_is_in_the_catalog(names):
    assert {f"rope.{name}" for name in names} <= set(catalog("en"))


def all_figures(lang: str) -> list[go.Figure]:
    pairs = {layout: rope_feature_pairs(8, layout).numpy() for layout in ROPE_LAYOUTS}
    return [
        figs.layout_pairing(pairs, words(figs.PAIRING_LABELS, lang)),
        figs.layout_attention(np.eye(3), np.eye(3), "a", "b", words(figs.ATTENTION_LABELS, lang)),
    ]


def has_words(template: str) -> bool:
    """Whether a Plotly hover template holds English words besides its %{…} fields and <…> tags."""
    return re.search(r"[a-z]{4,}", re.sub(r"%\{[^}]*\}|<[^>]*>", "", template)) is not None


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_figures_carry_the_translated_words(lang):
    """Titles, axis titles, legend names and hover words all come from the labels."""
    for english, translated in zip(all_figures("en"), all_figures(lang), strict=True):
        assert translated.layout.title.text != english.layout.title.text
        if english.layout.xaxis.title.text:
            assert translated.layout.xaxis.title.text != english.layout.xaxis.title.text
        for trace_en, trace_tr in zip(english.data, translated.data, strict=True):
            if trace_en.name and trace_en.name not in ("a",):
                assert trace_tr.name != trace_en.name
            if has_words(trace_en.hovertemplate or ""):
                assert trace_tr.hovertemplate != trace_en.hovertemplate
        assert "⟦" not in translated.to_json()
