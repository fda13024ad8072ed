"""The "train short, test long" page under AppTest: its charts, the table, the RoPE group, attention maps, the
learned table, in every language."""

import json

import numpy as np
import pytest
from conftest import decode, figure_by_key, figures, payload_bytes, tables

from charts.ablations import ABLATIONS
from charts.extrapolation import CHECKPOINTS, RESULTS, results
from charts.retrieval import RESULTS as NEEDLE_RESULTS
from posenc.toy.extrapolate import FINETUNES, SCALINGS
from posenc.toy.model import PE_CHOICES
from ui.i18n import text

PAGE = "pages/extrapolation.py"
pytestmark = pytest.mark.skipif(
    not RESULTS.exists() or not all((CHECKPOINTS / f"{pe}.pt").exists() for pe in PE_CHOICES),
    reason="the extrapolation experiment has not been run",
)


def test_default_page_shows_every_section(open_page):
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert at.title[0].value == "Train short, test long"
    needle = NEEDLE_RESULTS.exists()  # the needle section (tests/test_page_needle.py) adds a header and two charts
    assert len(at.subheader) == 4 + needle
    keys = ("extrap_length_chart", "extrap_position_chart", "extrap_attention_chart", "extrap_similarity_chart")
    assert len(figures(at)) == len(keys) + 2 * needle
    length = figure_by_key(at, "extrap_length_chart")
    # six encodings, then the floor (0 in excess units), a uniform guess and the symbol-frequency guess
    assert len(length["data"]) == len(PE_CHOICES) + 3
    assert len(figure_by_key(at, "extrap_position_chart")["data"]) == len(PE_CHOICES) + 3
    assert len(tables(at)[0].columns) == 6  # model, 2×, 4×, 8×, 16×, 32×
    assert len(tables(at)[0].rows) == len(PE_CHOICES) + 2
    assert sum("What to notice" in caption.value for caption in at.caption) == 4 + needle
    assert payload_bytes(at) < 250_000


def test_the_main_view_is_the_excess_past_the_training_length_with_every_seed(open_page):
    at = open_page(PAGE)
    data = results()
    line = next(t for t in figure_by_key(at, "extrap_length_chart")["data"] if t["name"] == "ALiBi")
    past = [n for n in data["lengths"] if n > data["train_len"]]
    runs = [run["curves"] for run in data["runs"]["alibi"].values()]
    per_seed = np.array([[curves[str(n)]["excess_past"] for n in past] for curves in runs])  # [seeds, lengths]
    np.testing.assert_allclose(decode(line["y"]), per_seed.mean(0), rtol=1e-5, atol=1e-6)
    high = decode(line["y"]) + decode(line["error_y"]["array"])
    np.testing.assert_allclose(high, per_seed.max(0), rtol=1e-5, atol=1e-6)
    shape = figure_by_key(at, "extrap_length_chart")["layout"]["shapes"][0]
    assert shape["x0"] == data["train_len"]  # a shape on a log axis is placed in data units


def test_the_whole_sequence_view_shows_the_mean_loss_of_the_seeds(open_page):
    at = open_page(PAGE)
    at.radio(key="extrap_view").set_value("loss").run()
    assert not at.exception, at.exception
    data = results()
    line = next(t for t in figure_by_key(at, "extrap_length_chart")["data"] if t["name"] == "ALiBi")
    runs = [run["curves"] for run in data["runs"]["alibi"].values()]
    expected = np.mean([[curves[str(n)]["loss"] for n in data["lengths"]] for curves in runs], axis=0)
    np.testing.assert_allclose(decode(line["y"]), expected, rtol=1e-5)
    assert len(tables(at)[0].rows) == len(PE_CHOICES) + 3  # and the floor


def test_the_rope_group_adds_every_scaling_and_fine_tune(open_page):
    at = open_page(PAGE)
    at.radio(key="extrap_group").set_value("rope").run()
    assert not at.exception, at.exception
    data = results()
    lines = 1 + len(SCALINGS) + sum(f"ft_{m}" in data["runs"] for m in FINETUNES)
    assert len(figure_by_key(at, "extrap_length_chart")["data"]) == lines + 3
    assert len(tables(at)[0].rows) == lines + 2
    ramps = tables(at)[1]  # YaRN's two ramps, pair by pair
    assert len(ramps.rows) == 8
    assert f"turns in {data['train_len']} tokens" in ramps.columns  # the turns counted in the shipped length


def test_the_comparison_group_shows_clamped_t5(open_page):
    at = open_page(PAGE)
    at.radio(key="extrap_group").set_value("comparisons").run()
    assert not at.exception, at.exception
    names = [t["name"] for t in figure_by_key(at, "extrap_length_chart")["data"]]
    assert "T5, far buckets clamped" in names and "T5 bias" in names


def test_attention_maps_of_rope_with_yarn_at_512(open_page):
    at = open_page(PAGE)
    at.selectbox(key="extrap_pe").set_value("rope").run()
    at.radio(key="extrap_scaling").set_value("yarn").run()
    at.select_slider(key="extrap_att_len").set_value(512).run()
    assert not at.exception, at.exception
    fig = figure_by_key(at, "extrap_attention_chart")
    heatmaps = [decode(t["z"]) for t in fig["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == 4 and heatmaps[0].shape == (64, 64)  # 512 tokens in cells of 8 × 8
    # block means of causal rows: each block row sums to 1 / block over the key blocks
    np.testing.assert_allclose(heatmaps[0].sum(-1), 1 / 8, atol=1e-4)
    assert np.all(np.triu(heatmaps[0], 1) == 0)
    assert "YaRN" in fig["layout"]["title"]["text"]


def test_the_learned_table_beside_the_sinusoid(open_page):
    at = open_page(PAGE)
    fig = figure_by_key(at, "extrap_similarity_chart")
    learned, sinusoid = (decode(t["z"]) for t in fig["data"])
    assert learned.shape == sinusoid.shape == (64, 64)
    np.testing.assert_allclose(np.diag(learned), 1, atol=1e-5)
    np.testing.assert_allclose(np.diag(sinusoid), 1, atol=1e-5)


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_in_every_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception, at.exception
    assert at.title[0].value == text(lang, "extrapolation.title")
    longest = f"{max(results()['lengths']):,}".replace(",", {"ko": ",", "zh": " "}[lang])  # 2,048 / 2 048
    assert longest in tables(at)[0].columns[-1]


def test_what_follows_from_the_training_length_is_read_from_the_results(open_page):
    """Issue 38: the sentences that quote the training length L, or L − 1 (the last position and the farthest
    distance training saw), take it from the shipped files, and long numbers are grouped (2,048)."""
    at = open_page(PAGE)
    data = results()
    train, longest = data["train_len"], max(data["lengths"])
    words = " ".join([*(m.value for m in at.markdown), *(c.value for c in at.caption)])
    assert f"always on sequences of {train} tokens" in words and f"up to {longest // train} times longer" in words
    assert f"reusing rows 0–{train - 1} over and over past {train}" in words  # the learned table's rows
    assert f"out to {longest:,} tokens" in words and f"({longest:,})" in tables(at)[0].columns[-1]
    if ABLATIONS.exists():  # a training-length input placed at the last positions before 512, then at 0 … L − 1
        assert f"placed at positions {512 - train}–511 breaks too" in words and f"at positions 0–{train - 1};" in words
    if NEEDLE_RESULTS.exists():
        needle_train = json.loads(NEEDLE_RESULTS.read_text())["config"]["train_len"]
        assert f"on sequences of {needle_train} tokens, learn a second task" in words
        assert f"gives every position past {needle_train - 1} its last row" in words
        beside = figure_by_key(at, "extrap_beside_chart")["layout"]["annotations"]
        assert any(note["text"].endswith(f"past {train}") for note in beside)


def test_a_missing_results_file_reads_as_none(tmp_path):
    assert results(str(tmp_path / "none.json")) is None
