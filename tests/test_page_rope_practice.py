"""The "RoPE in real models" page (pages/rope_practice.py) in Streamlit's AppTest: Meta's and Hugging Face's Llama,
partial rotary, values that are never rotated and the sign convention, each against posenc or a worked number."""

import math

import numpy as np
import pytest
import torch
from conftest import captions, decode, figures, markdowns, payload_bytes, tables

from charts.rope import rope_example_qk
from ui.i18n import text

PAGE = "pages/rope_practice.py"
CHARTS = ("partial", "sign")  # the Plotly charts, page order


def chart(at, name: str) -> dict:
    return figures(at)[CHARTS.index(name)]


@pytest.fixture
def page(open_page):
    return open_page(PAGE)


def test_default_page_has_every_section(page):
    assert not page.exception
    assert page.title[0].value == "RoPE in real models"
    assert [header.value for header in page.subheader] == [
        "Meta's Llama and Hugging Face's Llama: one model, two pairings",
        "Partial rotary: only part of each head is rotated",
        "Values are never rotated",
        "Which way to turn: the sign convention",
    ]
    assert sum("What to notice" in caption for caption in captions(page)) == 4
    assert payload_bytes(page) < 250_000


def test_the_llama_example_shows_equal_scores_and_the_same_numbers_reordered(page):
    from charts.rope import llama_conversion

    data = llama_conversion(10000.0)
    assert data["rows"].tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert math.isclose(data["meta"], data["hf"], abs_tol=1e-9) and abs(data["meta"] - data["wrong"]) > 1e-3
    np.testing.assert_allclose(data["hf_q"], data["meta_q"][data["rows"]], atol=1e-12)
    scores = next(m for m in markdowns(page) if "Hugging Face **" in m)
    assert f"**{data['meta']:.6f}**" in scores and f"**{data['wrong']:.6f}**" in scores


def test_the_partial_rotary_chart_is_posencs_split_score(page):
    from posenc.rope_variants import partial_rope_score_parts

    page.select_slider(key="rope_partial_fraction").set_value(0.4).run()
    assert not page.exception
    fig = chart(page, "partial")
    q, k = rope_example_qk(128)
    rotated, passed = partial_rope_score_parts(q, k, 50, torch.arange(257))  # int(128 · 0.4) = 51 -> 50 features
    np.testing.assert_allclose(decode(fig["data"][1]["y"]), rotated.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(decode(fig["data"][2]["y"]), passed.numpy(), rtol=1e-5, atol=1e-4)
    assert any("first 50 of the head's 128" in caption for caption in captions(page))


def test_the_sign_chart_shows_relative_minus_and_non_relative_mixed_scores(page):
    plus, minus, reflected, mixed = (decode(trace["y"]) for trace in chart(page, "sign")["data"])
    assert np.ptp(plus) < 1e-4 and np.ptp(minus) < 1e-4  # both relative: flat as both positions move
    np.testing.assert_allclose(reflected, minus, atol=1e-4)  # − convention = + convention on reflected q, k
    assert np.ptp(mixed) > 1.0  # mixing the signs is not relative


def test_the_values_table_shows_no_change_without_rotation(page):
    rows = tables(page)[-1].rows
    assert rows[1][3] == "0.0000" and float(rows[0][3]) > 0.001
    assert rows[1][1] == rows[1][2] and rows[0][1] != rows[0][2]


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_opens_in_each_language(open_page, lang):
    english = [fig["layout"]["title"]["text"] for fig in figures(open_page(PAGE))]
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "rope.practice_title")
    assert [header.value for header in at.subheader] == [
        text(lang, f"rope.{name}_header") for name in ("llama", "partial", "values", "sign")
    ]
    titles = [fig["layout"]["title"]["text"] for fig in figures(at)]
    assert len(titles) == len(CHARTS) and all(title != before for title, before in zip(titles, english, strict=True))
