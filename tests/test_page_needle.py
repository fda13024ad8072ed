"""The needle section of the "train short, test long" page under AppTest: the accuracy beside the Markov loss, the
needle-in-a-haystack heatmap and the table, each checked against the shipped JSON with numpy."""

import numpy as np
import pytest
from conftest import decode, figure_by_key, tables

from charts.retrieval import RESULTS, results
from posenc.toy.model import PE_CHOICES
from ui.i18n import text

PAGE = "pages/extrapolation.py"
pytestmark = pytest.mark.skipif(not RESULTS.exists(), reason="the needle experiment has not been run")


def per_seed(line: str) -> np.ndarray:
    """Accuracy [seeds, depths, lengths] of a line, read straight from the file."""
    data = results()
    return np.array([[[run[str(n)]["accuracy"][d] for n in data["lengths"]] for d in range(len(data["depths"]))]
                     for run in data["runs"][line].values()])  # fmt: skip


def test_the_section_draws_both_tasks_side_by_side(open_page):
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert text("en", "extrapolation.needle_header") in [s.value for s in at.subheader]
    beside = figure_by_key(at, "extrap_beside_chart")
    needle = [t for t in beside["data"] if t.get("xaxis") == "x2" and t["name"] != "blind guess (1 in 8)"]
    markov = [t for t in beside["data"] if t.get("xaxis", "x") == "x"]
    assert [t["name"] for t in needle] == [text("en", f"toy.pe_{pe}") for pe in PE_CHOICES]
    assert len(markov) == len(PE_CHOICES)
    alibi = next(t for t in needle if t["name"] == text("en", "toy.pe_alibi"))
    accuracy = per_seed("alibi").mean(1)  # [seeds, lengths]: the mean over depths
    np.testing.assert_allclose(decode(alibi["y"]), accuracy.mean(0), atol=1e-6)
    np.testing.assert_allclose(decode(alibi["y"]) + decode(alibi["error_y"]["array"]), accuracy.max(0), atol=1e-6)
    chance = next(t for t in beside["data"] if t["name"] == "blind guess (1 in 8)")
    assert chance["y"] == [0.125, 0.125]


def test_the_heatmap_is_the_mean_over_seeds_for_the_chosen_model(open_page):
    at = open_page(PAGE)
    at.selectbox(key="extrap_needle_line").set_value("rope").run()
    assert not at.exception, at.exception
    heatmap = figure_by_key(at, "extrap_needle_chart")["data"][0]
    data = results()
    assert heatmap["x"] == [str(n) for n in data["lengths"]]
    assert heatmap["y"][0] == "0%" and heatmap["y"][-1] == "100%"
    np.testing.assert_allclose(decode(heatmap["z"]), per_seed("rope").mean(0), atol=1e-6)
    low_high = decode(heatmap["customdata"])
    np.testing.assert_allclose(low_high[..., 0], per_seed("rope").min(0), atol=1e-6)


def test_the_rope_group_offers_every_extension_and_the_ablation(open_page):
    at = open_page(PAGE)
    at.radio(key="extrap_group").set_value("rope").run()
    assert not at.exception, at.exception
    options = at.selectbox(key="extrap_needle_line").options
    assert text("en", "extrapolation.line_yarn_no_factor") in options
    table = next(t for t in tables(at) if "RoPE + YaRN without its attention factor" in [row[0] for row in t.rows])
    assert len(table.columns) == 1 + len(results()["lengths"])


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_section_in_every_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception, at.exception
    assert text(lang, "extrapolation.needle_header") in [s.value for s in at.subheader]


def test_a_missing_results_file_reads_as_none(tmp_path):
    assert results(str(tmp_path / "none.json")) is None
