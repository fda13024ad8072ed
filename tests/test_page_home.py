"""The home page in AppTest: the permutation demo renders, reacts to typed sentences, and explains bad input."""

import numpy as np
import pytest
from conftest import decode, figures


def test_home_shows_both_charts_and_zero_change_without_positions(open_page):
    at = open_page("pages/home.py")
    assert not at.exception
    charts = figures(at)
    assert len(charts) == 2
    heatmaps = [trace for trace in charts[0]["data"] if trace["type"] == "heatmap"]
    assert len(heatmaps) == 2
    bars = charts[1]["data"]
    without, with_pe = decode(bars[0]["y"]), decode(bars[1]["y"])
    assert np.all(np.abs(without) < 1e-6) and np.all(with_pe > 0.05)
    assert any("rounding" in md.value for md in at.markdown)


def test_typing_a_new_pair_changes_the_maps(open_page):
    at = open_page("pages/home.py")
    before = decode(figures(at)[0]["data"][0]["z"])
    at.text_input(key="home_sentence_a_en").set_value("the cat saw the dog").run()
    at.text_input(key="home_sentence_b_en").set_value("the dog saw the cat").run()
    assert not at.exception
    after = decode(figures(at)[0]["data"][0]["z"])
    assert after.shape == (5, 5) and before.shape == (7, 7)


def test_sentences_with_different_words_get_a_message_not_a_traceback(open_page):
    at = open_page("pages/home.py")
    at.text_input(key="home_sentence_b_en").set_value("<img src=x onerror=alert(1)>").run()
    assert not at.exception
    assert "same words" in at.info[0].value
    at.text_input(key="home_sentence_a_en").set_value("").run()
    assert not at.exception and "same words" in at.info[0].value


@pytest.mark.parametrize("lang, word", [("ko", "사과는"), ("zh", "苹")])
def test_each_language_opens_with_its_own_example_pair(open_page, lang, word):
    at = open_page("pages/home.py", query={"lang": lang})
    assert not at.exception
    ticks = figures(at)[0]["data"][0]["x"]
    assert any(word in tick for tick in ticks)
    without = decode(figures(at)[1]["data"][0]["y"])
    assert np.all(np.abs(without) < 1e-6)  # the example pair is a true reordering in every language


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_chart_words_follow_the_language(open_page, lang):
    english = [figure["layout"] for figure in figures(open_page("pages/home.py"))]
    translated = [figure["layout"] for figure in figures(open_page("pages/home.py", query={"lang": lang}))]
    for before, after in zip(english, translated, strict=True):
        assert after["title"]["text"] != before["title"]["text"]
        assert after["xaxis"]["title"]["text"] != before["xaxis"]["title"]["text"]
    assert translated[0]["yaxis"]["title"]["text"] != english[0]["yaxis"]["title"]["text"]


def test_the_next_page_blurbs_match_the_shipped_files():
    """home.next_model_rope names every preset's family and how many there are (assets/model_configs.json);
    home.next_extrapolation names the longest length the experiment reads (assets/toy/extrapolation.json)."""
    import json
    from pathlib import Path

    from ui.i18n import text

    assets = Path(__file__).resolve().parents[1] / "assets"
    presets = json.loads((assets / "model_configs.json").read_text())["presets"]
    blurb = text("en", "home.next_model_rope")
    numbers = {15: "fifteen"}
    assert f"one of {numbers[len(presets)]} published configs (from " in blurb
    start = blurb.index("(from ") + len("(from ")
    families = blurb[start : blurb.index(")", start)].replace(" and ", ", ").split(", ")
    assert all(any(preset["name"].startswith(family) for family in families) for preset in presets)
    assert all(any(preset["name"].startswith(family) for preset in presets) for family in families)
    found = json.loads((assets / "toy" / "extrapolation.json").read_text())
    assert f"trained on {found['train_len']} tokens and read at up to {max(found['lengths']):,}" in text(
        "en", "home.next_extrapolation"
    )
