"""The "Transformer-XL, DeBERTa and NoPE" page under AppTest: every widget's bounds, charts present, data moves.

The page is opened through the app's navigation; the missing-model test opens the page file on its own, which works
because pages draw their own shared controls.
"""

import json
import re

import numpy as np
import pytest
import torch
from conftest import ROOT, captions, decode, figures, live_data, markdowns, payload_bytes, set_shared, tables
from live_views import live_json, view_pictures
from streamlit.testing.v1 import AppTest

import charts.relative_scores
import posenc.toy.model
from posenc.deberta import deberta_delta, deberta_relative_index
from posenc.toy import data
from ui.i18n import text
from ui.limits import LIMITS

PAGE = ROOT / "pages/relative_scores.py"
# Plotly chart order: XL terms, DeBERTa terms, NoPE attention, NoPE signal, toy decoder (DeBERTa's δ is a live chart)
TRACE_TYPES = [["heatmap"] * 5, ["heatmap"] * 4, ["heatmap"] * 2, ["scatter"] * 5]
XL, DEBERTA, NOPE_ATTENTION, NOPE_SIGNAL, TOY = range(5)
DEBERTA_LIVE = "rs_deberta_live"
XL_VIEWS = ("relative", "absolute")
TOY_EXAMPLES = ("9999+9999=", "345+678=", "907-45=", "111+11=")  # the page's choices
ROWS = {"none": "No PE (NoPE)", "sinusoidal": "Sinusoidal", "learned": "Learned absolute", "t5": "T5 bias"}
ROWS |= {"alibi": "ALiBi", "rope": "RoPE"}


def payload(at) -> int:
    return payload_bytes(at)


def trace_types(at) -> list[list[str]]:
    return [[trace["type"] for trace in figure["data"]] for figure in figures(at)]


@pytest.fixture
def page(open_page):
    return open_page("pages/relative_scores.py")


def test_default_view_has_every_section(page):
    assert not page.exception
    assert page.title[0].value == "Transformer-XL, DeBERTa and NoPE"
    shown = trace_types(page)
    assert shown[:4] == TRACE_TYPES
    assert live_data(page, DEBERTA_LIVE)["view"] == "deberta"
    assert shown[TOY][-1] == "scatter" and len(shown[TOY]) == 5  # 4 heads of the no-PE toy model + 1/(t + 1)
    headers = [header.value.split(" (")[0].split(":")[0] for header in page.subheader]
    assert headers == ["Transformer-XL and XLNet", "DeBERTa", "NoPE", "Every family in the app, side by side"]
    assert len(page.latex) == 5
    assert len(page.expander) == 3  # a "show the code" per math section
    assert sum("What to notice" in caption for caption in captions(page)) == 3
    assert any("What it shows" in caption for caption in captions(page))
    assert payload(page) <= 250_000


def comparison(at) -> dict[str, dict[str, str]]:
    """The comparison's two tables side by side, by family (the first column of each, which names the row): how
    position gets in, how far it carries. {family: {column: cell}}"""
    how, far = tables(at)
    assert how.row_headers and far.row_headers and how.columns[0] == far.columns[0]
    assert [row[0] for row in how.rows] == [row[0] for row in far.rows]
    assert len(how.columns) == len(far.columns) == 5  # the family and four columns each
    columns = [*how.columns[1:], *far.columns[1:]]
    return {mine[0]: dict(zip(columns, [*mine[1:], *theirs[1:]], strict=True))
            for mine, theirs in zip(how.rows, far.rows, strict=True)}  # fmt: skip


def test_comparison_table_uses_the_shipped_metrics(page):
    table = comparison(page)  # by family
    assert len(table) == 9
    assert [heading for heading in markdowns(page) if heading.startswith("**How")] == [
        "**How position gets in**",
        "**How far it carries**",
    ]
    for metric in posenc.toy.model.shipped_metrics():
        assert table[ROWS[metric["pe"]]]["toy: held-out 3-digit"] == f"{metric['held_out_accuracy']:.1%}"
        assert table[ROWS[metric["pe"]]]["toy: 4-digit (longer than training)"] == (
            f"{metric['out_of_length_accuracy']:.1%}"
        )


def test_the_length_column_shows_the_measured_losses_of_train_short_test_long(page):
    """Each family the "Train short, test long" page trained shows its loss at the training length → at the
    longest evaluated length and their ratio, the means over the training seeds of assets/toy/extrapolation.json
    (read here, parsed back from the shown text); the notice says which lengths."""
    found = json.loads((posenc.toy.model.ASSETS / "extrapolation.json").read_text())
    train, longest = found["train_len"], max(found["eval_lengths"])
    table = comparison(page)
    column = f"toy LM: loss at {train} → {longest} tokens"
    assert all(column in row and len(row) == 8 for row in table.values())  # nine columns with the family
    mean = {pe: [float(np.mean([run["curves"][str(n)]["loss"] for run in found["runs"][pe].values()]))
                 for n in (train, longest)] for pe in found["models"]}  # fmt: skip
    assert all(len(found["runs"][pe]) == 3 for pe in mean)  # three seeds each
    for pe in found["models"]:
        cell = table[ROWS[pe]][column]
        short, long, ratio = map(float, re.fullmatch(r"(\d+\.\d\d) → (\d+\.\d\d) \(×(\d+\.\d\d)\)", cell).groups())
        expected = mean[pe]
        assert (short, long) == pytest.approx(expected, abs=0.005)
        assert ratio == pytest.approx(expected[1] / expected[0], abs=0.005)
    assert len(found["models"]) == 6
    for family in ("Shaw et al.", "Transformer-XL / XLNet", "DeBERTa"):
        assert table[family][column] == "not in the toy"
    notice = next(caption for caption in captions(page) if "Three columns are measured" in caption)
    assert f"trained on sequences of {train} tokens, read at {train} and at {longest} tokens" in notice
    assert "assets/toy/extrapolation.json" in notice
    # "NoPE's ratio is small because its loss starts high; at {long} tokens it ends close to T5's"
    short, long = ({pe: values[i] for pe, values in mean.items()} for i in (0, 1))
    assert long["none"] / short["none"] < long["t5"] / short["t5"] and abs(long["none"] - long["t5"]) < 0.1
    assert short["none"] > max(loss for pe, loss in short.items() if pe != "none") + 0.2
    spread = {pe: np.ptp([run["curves"][str(longest)]["loss"] for run in found["runs"][pe].values()]) for pe in mean}
    assert spread["t5"] > 3 * spread["none"]  # "…which varies more from seed to seed"
    assert f"at {longest} tokens it ends close to T5's, which varies more from seed to seed" in notice


def no_pe_answer_and_layer_1_gap(example: str) -> tuple[str, float]:
    """The No-PE checkpoint's own answer to ``example`` (as written: reversed digits, maybe a '-') and, reading it,
    how far its layer-1 weight on <s> strays from 1/(t + 1): max over heads and steps."""
    model = posenc.toy.model.load_checkpoint(posenc.toy.model.ASSETS / "none.pt")
    source = torch.tensor([data.encode_source(data.parse_expression(example))])
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad():
            tokens = model.generate(source)[0].tolist()
            tokens = tokens[: tokens.index(data.EOS)] if data.EOS in tokens else tokens
            layer_1 = model(source, torch.tensor([[data.BOS, *tokens]])).decoder_self[0][0]  # [H, T, T]
    finally:
        torch.set_num_threads(before)
    even = 1 / torch.arange(1, layer_1.shape[1] + 1)
    return "".join(data.TOKENS[t] for t in tokens), float((layer_1[:, :, 0] - even).abs().max())


@pytest.mark.parametrize("example", TOY_EXAMPLES)
def test_the_toy_notice_measures_the_shown_expression(page, example):
    """relative_scores.toy_notice: the gap from 1/(t + 1) is the shown expression's, measured here on the
    checkpoint; it is small unless the answer has a '-' (the sentence after it); the held-out share is the file's."""
    page.selectbox(key="rs_nope_example").set_value(example).run()
    shown = next(caption for caption in captions(page) if "What it shows" in caption)
    written, gap = no_pe_answer_and_layer_1_gap(example)
    assert f"for this expression at most {gap:.2f} away" in shown
    assert (gap > 0.1) == ("-" in written), (written, gap)
    held = json.loads((posenc.toy.model.ASSETS / "none.json").read_text())["held_out_accuracy"]
    assert f"gets only {100 * held:.1f}% of held-out problems right" in shown


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("radio", "rs_xl_view", "absolute"),
        ("toggle", "rs_xl_own_scale", True),
        ("live", DEBERTA_LIVE, 1),
        ("live", DEBERTA_LIVE, 64),
        ("toggle", "rs_nope_bos", False),
        ("slider", "rs_nope_gap", -3.0),
        ("slider", "rs_nope_gap", 3.0),
        ("selectbox", "rs_nope_example", "111+11="),
        ("radio", "rs_nope_layer", 2),
        ("shared", "length", LIMITS.length_min),
        ("shared", "length", LIMITS.length_max),
        ("shared", "dim", LIMITS.dim_min),
        ("shared", "dim", LIMITS.dim_max),
        ("shared", "base", LIMITS.base_options[0]),
        ("shared", "base", LIMITS.base_options[-1]),
    ],
)
def test_every_widget_bound_renders(page, kind, key, value):
    if kind == "shared":
        widget = None
        set_shared(page, **{key: value})
    elif kind == "live":
        widget = None
        release(page, value)
    else:
        widget = getattr(page, kind)(key=key)
    if widget is not None:
        widget.set_value(value).run()
    assert not page.exception, page.exception
    assert not page.error
    assert len(figures(page)) == 5


def test_all_minimums_at_once(page):
    set_shared(page, length=LIMITS.length_min)
    set_shared(page, dim=LIMITS.dim_min)
    release(page, 1)
    page.slider(key="rs_nope_gap").set_value(-3.0).run()
    assert not page.exception and not page.error
    assert decode(figures(page)[XL]["data"][0]["z"]).shape == (2, 2)


def test_maximum_settings_stay_within_the_payload_budget(page):
    set_shared(page, length=LIMITS.length_max)
    set_shared(page, dim=LIMITS.dim_max)
    release(page, 64)
    assert not page.exception
    shown = figures(page)
    assert decode(shown[XL]["data"][0]["z"]).shape == (48, 48)  # a window, not 4096 × 4096
    assert "Window: positions 0–47 of 4096" in shown[XL]["layout"]["title"]["text"]
    assert payload(page) <= 1_500_000


def test_xl_view_switch_changes_terms_b_to_d_but_not_a(page):
    before = [decode(trace["z"]) for trace in figures(page)[XL]["data"]]
    page.radio(key="rs_xl_view").set_value("absolute").run()
    after = [decode(trace["z"]) for trace in figures(page)[XL]["data"]]
    np.testing.assert_array_equal(before[0], after[0])  # (a) content–content is shared
    assert all(not np.allclose(b, a) for b, a in zip(before[1:], after[1:], strict=True))


def test_own_scale_toggle_gives_each_panel_its_own_range(page):
    shared = {trace["zmax"] for trace in figures(page)[XL]["data"]}
    assert len(shared) == 1
    page.toggle(key="rs_xl_own_scale").set_value(True).run()
    traces = figures(page)[XL]["data"]
    assert len({trace["zmax"] for trace in traces}) == 5
    for trace in traces:
        assert trace["zmax"] == pytest.approx(np.abs(decode(trace["z"])).max(), rel=1e-6)


def release(page, k: int) -> None:
    """The live δ chart's k slider let go at ``k`` (as ui.live.live_chart stores it), and the page rerun."""
    page.session_state[f"{DEBERTA_LIVE}__values"] = {"k": k}
    page.run()


def test_the_live_delta_chart_sends_its_offsets_and_every_k(page):
    """The browser evaluates δ(r) = clamp(r + k, 0, 2k − 1) (static/views/deberta.js): the server sends the offsets
    i − j of the curve, the window and every k of the slider."""
    data = live_data(page, DEBERTA_LIVE)
    assert data["controls"]["k"]["values"] == list(range(1, 65))
    assert data["server"] == {"k": 4} and data["window"] == 48  # the page's length 64, cut to 48 cells
    np.testing.assert_array_equal(data["arrays"]["offsets"], np.arange(-63, 64))  # every offset of a 64-token input


def test_the_browsers_delta_is_posencs_at_every_k(page):
    """What static/views/deberta.js computes (run in Node on the sent data) at every k of the slider: the window's
    cells are deberta_relative_index, the curve deberta_delta at the sent offsets."""
    data = live_json(page, DEBERTA_LIVE)
    offsets = torch.from_numpy(live_data(page, DEBERTA_LIVE)["arrays"]["offsets"].astype(np.int64))
    ks = data["controls"]["k"]["values"]
    for k, picture in zip(ks, view_pictures(data, [{"k": k} for k in ks]), strict=True):
        matrix, curve = picture["panels"]
        np.testing.assert_array_equal(matrix["values"].reshape(48, 48), deberta_relative_index(48, k).numpy())
        np.testing.assert_array_equal(curve["series"][0]["y"], deberta_delta(offsets, k).numpy())
        assert curve["marks"].tolist() == [-k, k - 1]


def test_a_long_input_draws_every_near_offset_and_a_few_far_ones(open_page):
    at = open_page("pages/relative_scores.py", query={"length": "3000"})
    offsets = live_data(at, DEBERTA_LIVE)["arrays"]["offsets"]
    near = offsets[np.abs(offsets) <= 64]
    np.testing.assert_array_equal(near, np.arange(-64, 65))  # both bends of δ lie within ±64 for every k ≤ 64
    assert offsets[0] == -512 and offsets[-1] == 512 and len(offsets) == 129 + 2 * 24  # capped at ±512
    assert np.all(np.diff(offsets) > 0)
    assert any("Window: positions 0–47 of 3000" in caption for caption in captions(at))


def test_a_released_k_reaches_the_terms_the_note_and_the_checkpoint(page):
    before = [decode(trace["z"]) for trace in figures(page)[DEBERTA]["data"]]
    release(page, 2)
    assert live_data(page, DEBERTA_LIVE)["server"] == {"k": 2}
    after = [decode(trace["z"]) for trace in figures(page)[DEBERTA]["data"]]
    assert not np.allclose(before[1], after[1])  # content → position reads other rows of P
    np.testing.assert_array_equal(before[0], after[0])  # content → content does not use δ
    assert any("With k = 2, a key 10 positions before" in box for box in markdowns(page))  # the checkpoint
    assert "row 3" in page.radio(key="cp_rs_deberta_choice").options  # δ = clamp(10 + 2, 0, 2·2 − 1) = 3


def test_nope_gap_changes_the_weight_on_the_first_token(page):
    before = decode(figures(page)[NOPE_SIGNAL]["data"][0]["y"])
    np.testing.assert_allclose(before, 1 / np.arange(1, len(before) + 1), atol=1e-6)
    page.slider(key="rs_nope_gap").set_value(2.0).run()
    after = decode(figures(page)[NOPE_SIGNAL]["data"][0]["y"])
    np.testing.assert_allclose(after, np.exp(2.0) / (np.exp(2.0) + np.arange(len(after))), atol=1e-6)


def test_without_a_distinct_first_token_the_closed_form_is_dropped(page):
    page.toggle(key="rs_nope_bos").set_value(False).run()
    signal = figures(page)[NOPE_SIGNAL]["data"]
    assert len(signal) == 4
    assert max(decode(trace["y"]).max() for trace in signal[2:]) < 1e-6  # every output identical


def test_toy_example_changes_the_decoder_chart(page):
    before = figures(page)[TOY]["layout"]["xaxis"]["ticktext"]
    page.selectbox(key="rs_nope_example").set_value("907-45=").run()
    assert figures(page)[TOY]["layout"]["xaxis"]["ticktext"] != before


def test_missing_toy_model_shows_info_not_traceback(monkeypatch):
    def missing(pe, directory=None):
        raise ValueError(f"No trained model for {pe} yet.")

    monkeypatch.setattr(charts.relative_scores, "shipped_checkpoint", missing)  # where the page's model is loaded
    monkeypatch.setattr(posenc.toy.model, "shipped_metrics", lambda directory=None: [])
    monkeypatch.setattr(charts.relative_scores, "extrapolation_results", lambda: None)
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.run()
    assert not at.exception
    assert any("No trained model" in info.value for info in at.info)
    assert len(figures(at)) == 4
    table = comparison(at)
    for column in ("toy: held-out 3-digit", "toy LM: loss at – → – tokens"):
        assert {row[column] for row in table.values()} <= {"not trained yet", "not in the toy"}


def chart_titles(at) -> list[str]:
    return [figure["layout"]["title"]["text"] for figure in figures(at)]


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_page_in_each_language(open_page, lang):
    """Opened with ?lang=: the page's own words, no missing keys, no chart keeps its English title."""
    english_titles = chart_titles(open_page("pages/relative_scores.py"))
    at = open_page("pages/relative_scores.py", query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "relative_scores.title")
    shown = [element.value for kind in ("markdown", "caption", "title", "subheader") for element in at.get(kind)]
    widgets = [at.radio, at.toggle, at.slider, at.selectbox]
    shown += [widget.label for kind in widgets for widget in kind]
    shown += [option for radio in at.radio for option in radio.options]
    assert not [value for value in shown if "⟦" in value]
    live = live_data(at, DEBERTA_LIVE)  # the live δ chart's words
    shown += [*live["words"].values(), *live["matrix_words"].values(), *live["curve_words"].values(), *live["readouts"]]
    assert not [value for value in shown if "⟦" in value]
    assert live["curve_words"]["title"] == text(lang, "relative_scores.delta_curve_title")
    titles = chart_titles(at)
    assert len(titles) == len(english_titles) == 5
    assert all(title != english for title, english in zip(titles, english_titles, strict=True))
    assert len({caption for caption in captions(at) if text(lang, "common.what_to_notice") in caption}) == 3
    table = comparison(at)
    assert tables(at)[0].columns[0] == text(lang, "relative_scores.col_family")
    assert not [cell for family, row in table.items() for cell in (family, *row.values()) if "⟦" in cell]
    assert text(lang, "relative_scores.nope_name") in table


def test_switching_language_on_the_page_keeps_every_choice(page):
    page.radio(key="rs_xl_view").set_value("absolute").run()
    page.toggle(key="rs_xl_own_scale").set_value(True).run()
    release(page, 9)
    page.get("button_group")[0].set_value("zh").run()
    assert not page.exception
    assert page.title[0].value == text("zh", "relative_scores.title")
    assert page.radio(key="rs_xl_view").value == "absolute"
    assert page.radio(key="rs_xl_view").options == [text("zh", f"relative_scores.xl_view_{v}") for v in XL_VIEWS]
    assert live_data(page, DEBERTA_LIVE)["server"] == {"k": 9} and page.toggle(key="rs_xl_own_scale").value
    release(page, 3)  # a rerun in Chinese: the radio's names still match
    assert not page.exception
    data = live_data(page, DEBERTA_LIVE)
    assert data["matrix_words"]["title"] == text("zh", "relative_scores.delta_matrix_title")
    assert data["words"]["k"] == text("zh", "relative_scores.deberta_k_label")


def test_the_deberta_note_names_v1_and_hugging_faces_p2c_row(page):
    """k = 4 (the default), query 2, key 5: eq. 4 reads row δ(5, 2) = 7, Hugging Face row δ(2, 5) = 1."""
    note = next(m for m in markdowns(page) if "DisentangledSelfAttention" in m)
    assert "DeBERTa v1" in note and "δ(5, 2) = 7" in note and "δ(2, 5) = 1" in note
    release(page, 1)
    note = next(m for m in markdowns(page) if "DisentangledSelfAttention" in m)
    assert "δ(5, 2) = 1" in note and "δ(2, 5) = 0" in note


def test_the_nope_section_says_where_the_name_comes_from(page):
    assert any("Kazemnejad" in info.value and "causal" in info.value for info in page.info)
