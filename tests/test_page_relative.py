"""The "Relative positions" page under AppTest: renders at every control's bounds, the live charts are posenc's
pictures along every slider, a released value reaches the rest of the page.

The live charts compute in the browser with posenc's twins (static/views/relative.js, static/twins.js): what the view
computes from the data the server sent is run here in Node (tests/live_views.py) and held to posenc."""

import itertools

import numpy as np
import pytest
import torch
from conftest import captions, decode, figures, live_data, markdowns, payload_bytes, set_shared, tables, words_parts
from live_views import live_json, view_picture, view_pictures

from posenc.relative import (
    alibi_bias_per_offset,
    alibi_slopes,
    shaw_relative_index,
    t5_max_exact,
    t5_relative_bucket,
)
from ui.component_data import sent_size
from ui.i18n import text
from ui.limits import LIMITS

PAGE = "pages/relative.py"
# Plotly charts on the page: T5's per-head bias, ALiBi's bias matrices (the others are live charts)
TRACE_TYPES = [["heatmap"], ["heatmap"] * 2]
T5_BIAS, ALIBI_MATRIX = range(2)
SHAW, T5, ALIBI = "relative_shaw_live", "relative_t5_live", "relative_alibi_live"
WINDOW = 128  # figures.relative.MATRIX_WINDOW: the Shaw matrix shows at most 128 positions


@pytest.fixture
def page(open_page):
    return open_page(PAGE)


def released(**charts: dict) -> dict:
    """Session state as after letting go of live sliders: chart key -> {control: value}."""
    return {f"{key}__values": values for key, values in charts.items()}


def live_bytes(at) -> dict[str, int]:
    """The bytes of JSON each live chart was sent (what a rerun that rebuilds it costs the network)."""
    return {
        key: sent_size(element.proto) for key in (SHAW, T5, ALIBI) for element in at.get("bidi_component")
        if key in element.proto.id
    }  # fmt: skip


def test_default_view_has_every_section(page):
    assert not page.exception
    assert page.title[0].value == "Relative positions"
    assert [[trace["type"] for trace in figure["data"]] for figure in figures(page)] == TRACE_TYPES
    assert [header.value.split(" (")[0] for header in page.subheader] == ["Shaw et al.", "T5", "ALiBi"]
    assert len(page.latex) >= 4
    assert len(page.expander) == 3  # a "show the code" per section
    assert len(tables(page)) == 1 and len(tables(page)[0].rows) == 32
    assert any("What to notice" in caption for caption in captions(page))
    assert any("random and untrained" in caption for caption in captions(page))
    assert any("once per stack" in info.value and "decoder" in info.value for info in page.info)
    assert payload_bytes(page) <= 250_000
    sizes = live_bytes(page)
    assert all(size < 60_000 for size in sizes.values()), sizes  # what is drawn, at default settings
    assert [live_data(page, key)["server"] for key in (SHAW, T5, ALIBI)] == [
        {"k": 8},
        {"num_buckets": 32, "max_distance": 128},
        {"heads": 8},
    ]


def test_the_live_controls_move_over_their_whole_ranges(page):
    controls = {key: live_data(page, key)["controls"] for key in (SHAW, T5, ALIBI)}
    assert controls[SHAW]["k"]["values"] == list(range(65))  # every k
    assert controls[T5]["num_buckets"]["values"] == list(range(4, 65, 2))  # every even B
    distances = controls[T5]["max_distance"]["values"]
    assert distances[0] == 2 and distances[-1] == 1024 and 128 in distances
    assert max(b / a for a, b in itertools.pairwise(distances)) <= 1.5  # about 1.5× apart at most
    assert controls[ALIBI]["heads"]["values"] == list(range(LIMITS.heads_min, LIMITS.heads_max + 1))


def shaw_matrix(window: np.ndarray) -> np.ndarray:
    """The [W, W] matrix the browser builds from f(j − i), j − i = −(W − 1) … W − 1: a[i, j] = f[j − i + W − 1]."""
    n = (len(window) + 1) // 2
    i, j = np.indices((n, n))
    return window[j - i + n - 1]


@pytest.mark.parametrize("length", [64, 2, 300])
def test_the_live_shaw_chart_is_shaws_index_at_every_k(open_page, length):
    """Every k of the slider, computed by the browser's view: the matrix is shaw_relative_index, the curve
    clip(r, −k, k) + k out to ±(length − 1)."""
    at = open_page(PAGE, query={"length": str(length)})
    data = live_json(at, SHAW)
    assert data["arrays"] == {}
    window = min(length, WINDOW)
    ks = data["controls"]["k"]["values"]
    for k, picture in zip(ks, view_pictures(data, [{"k": k} for k in ks]), strict=True):
        picked, (matrix, curve) = picture["picked"], picture["panels"]
        np.testing.assert_array_equal(shaw_matrix(picked["window"]), shaw_relative_index(window, k).numpy())
        np.testing.assert_array_equal(matrix["values"].reshape(window, window), shaw_relative_index(window, k))
        np.testing.assert_array_equal(picked["offsets"], np.arange(1 - window, window))
        x = np.concatenate([line["x"] for line in curve["series"]])
        y = np.concatenate([line["y"] for line in curve["series"]])
        assert x[0] == 1 - length and x[-1] == length - 1 and np.all(np.diff(x) >= 0)  # out to ±(length − 1)
        assert len(x) <= 320  # what is drawn
        np.testing.assert_array_equal(y, np.clip(x, -k, k) + k)
        assert picked["zmax"][0] == max(2 * k, 1) and curve["marks"].tolist() == [-k, k]


def t5_expected_at_every_offset(offsets, buckets, bidirectional, num_buckets, max_distance):
    """The line through the sent points, read at every whole offset of ±2·max_distance, and posenc's buckets."""
    every = torch.arange(-2 * max_distance, 2 * max_distance + 1)
    drawn = np.interp(every.numpy(), offsets, buckets)
    return drawn, t5_relative_bucket(every, bidirectional, num_buckets, max_distance).numpy()


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(
    "control, value",
    [*[("num_buckets", b) for b in (4, 10, 32, 64)], *[("max_distance", d) for d in (3, 24, 128, 384, 1024)]],
)
def test_the_live_t5_curve_is_t5s_bucket_along_both_sliders(open_page, bidirectional, control, value):
    """The browser's picture along each slider: the buckets posenc gives, the line through them is b(r) at every r;
    where posenc rejects the pair, nothing is drawn and the note's flag is set."""
    at = open_page(PAGE)
    if not bidirectional:
        at.toggle(key="relative_t5_bidirectional").set_value(False).run()
    picture = view_picture(live_json(at, T5), **{control: value})["picked"]
    settings = {"num_buckets": 32, "max_distance": 128} | {control: value}
    num_buckets, max_distance = settings["num_buckets"], settings["max_distance"]
    assert picture["max_exact"][0] == t5_max_exact(bidirectional, num_buckets)
    if max_distance <= t5_max_exact(bidirectional, num_buckets):  # invalid: T5's code raises for this pair
        with pytest.raises(ValueError):
            t5_relative_bucket(torch.zeros(1, dtype=torch.long), bidirectional, num_buckets, max_distance)
        assert picture["invalid"][0] == 1 and np.isnan(picture["offsets"]).all()
        return
    assert picture["invalid"][0] == 0
    offsets, buckets = picture["offsets"], picture["buckets"]
    assert offsets[0] == -2 * max_distance and offsets[-1] == 2 * max_distance and len(offsets) <= 2 * num_buckets
    at_points = torch.from_numpy(offsets.astype(np.int64))
    np.testing.assert_array_equal(buckets, t5_relative_bucket(at_points, bidirectional, num_buckets, max_distance))
    drawn, expected = t5_expected_at_every_offset(offsets, buckets, bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(drawn, expected)


def test_an_invalid_t5_pair_is_a_note_in_the_live_chart(page):
    data = live_json(page, T5)
    note = data["notes"][0]
    assert note["when"] == "invalid" and note["text"] == text("en", "relative.t5_error")
    assert view_picture(data, max_distance=8)["picked"]["invalid"][0] == 1  # 8 ≤ n_exact = 8 at 32 buckets
    assert view_picture(data, max_distance=12)["picked"]["invalid"][0] == 0
    assert view_picture(data, max_distance=5, num_buckets=8)["picked"]["invalid"][0] == 0  # both moved: n_exact 2


@pytest.mark.parametrize("length", [64, 5, 4096])
@pytest.mark.parametrize("heads", [1, 5, 8, 12, 16])
def test_the_live_alibi_chart_is_alibis_slopes_and_bias_at_every_head_count(open_page, length, heads):
    at = open_page(PAGE, query={"length": str(length)})
    data = live_json(at, ALIBI)
    assert data["arrays"] == {}
    picture = view_picture(data, heads=heads)["picked"]
    slopes = picture["slopes"]
    np.testing.assert_allclose(slopes[:heads], alibi_slopes(heads, dtype=torch.float64).numpy(), rtol=1e-7)
    if heads in (1, 8, 16):  # a power of two: the plain geometric sequence m_h = 2^(−8h/n)
        np.testing.assert_allclose(slopes[:heads], 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads), rtol=1e-7)
    assert np.isnan(slopes[heads:]).all() and len(slopes) == LIMITS.heads_max
    offsets = picture["offsets"]
    assert offsets[0] == 1 - length and offsets[-1] == 0 and len(offsets) == min(length, 17)
    bias = picture["bias"].reshape(LIMITS.heads_max, len(offsets))
    expected = alibi_bias_per_offset(torch.from_numpy(offsets.astype(np.int64)), heads, dtype=torch.float64).numpy()
    np.testing.assert_allclose(bias[:heads], expected, rtol=1e-12, atol=0)
    assert np.isnan(bias[heads:]).all()
    np.testing.assert_array_equal(picture["head"], np.arange(1, LIMITS.heads_max + 1))


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("toggle", "relative_t5_bidirectional", False),
        ("shared", "length", LIMITS.length_min),
        ("shared", "length", LIMITS.length_max),
        ("shared", "heads", LIMITS.heads_min),
        ("shared", "heads", LIMITS.heads_max),
    ],
)
def test_every_widget_bound_renders(page, kind, key, value):
    if kind == "shared":
        set_shared(page, **{key: value})
    else:
        getattr(page, kind)(key=key).set_value(value).run()
    assert not page.exception, page.exception
    assert not page.error
    assert len(figures(page)) == 2


BOUNDS = [(SHAW, {"k": 0}), (SHAW, {"k": 64}), (T5, {"num_buckets": 4}), (T5, {"num_buckets": 64})]
BOUNDS += [(T5, {"max_distance": 1024}), (T5, {"num_buckets": 64, "max_distance": 1024})]


@pytest.mark.parametrize("chart, values", BOUNDS)
def test_every_live_slider_bound_renders_when_released(open_page, chart, values):
    at = open_page(PAGE, state=released(**{chart: values}))
    assert not at.exception, at.exception
    assert not at.error
    assert live_data(at, chart)["server"] == live_data(at, chart)["server"] | values


def test_all_minimums_at_once_render(open_page):
    state = released(relative_t5_live={"num_buckets": 4, "max_distance": 2}, relative_shaw_live={"k": 0})
    at = open_page(PAGE, state=state)
    set_shared(at, length=LIMITS.length_min)
    set_shared(at, heads=LIMITS.heads_min)
    assert not at.exception and not at.error
    assert len(tables(at)[0].rows) == 4
    assert view_picture(live_json(at, SHAW), k=0)["picked"]["window"].tolist() == [0, 0, 0]


def test_maximum_settings_stay_within_the_payload_budget(open_page):
    at = open_page(PAGE, state=released(relative_t5_live={"num_buckets": 64, "max_distance": 1024}))
    set_shared(at, length=LIMITS.length_max)
    set_shared(at, heads=LIMITS.heads_max)
    assert not at.exception
    matrices = figures(at)[ALIBI_MATRIX]
    assert decode(matrices["data"][0]["z"]).shape == (WINDOW, WINDOW)  # a window, not 4096 × 4096
    assert "Window: positions 0–127 of 4096" in matrices["layout"]["title"]["text"]
    under = [part["text"] for part in words_parts(at) if part["kind"] == "caption"]  # under Shaw's matrix
    assert any("Window: positions 0–127 of 4096" in text for text in under)
    assert payload_bytes(at) <= 1_500_000
    sizes = live_bytes(at)
    assert sum(sizes.values()) < 250_000, sizes


@pytest.mark.parametrize("bidirectional", [True, False])
def test_largest_max_distance_at_default_sizes_stays_within_the_default_budget(open_page, bidirectional):
    at = open_page(PAGE, state=released(relative_t5_live={"max_distance": 1024}))
    at.toggle(key="relative_t5_bidirectional").set_value(bidirectional).run()
    assert not at.exception
    assert payload_bytes(at) <= 250_000
    assert "drawn as one cell" in figures(at)[T5_BIAS]["layout"]["title"]["text"]  # the merge is labelled


@pytest.mark.parametrize(
    "max_distance, num_buckets, bidirectional",
    [(2, 32, True), (8, 32, True), (16, 32, False), (32, 64, False)],
)
def test_an_invalid_t5_release_shows_the_message_and_keeps_the_rest(
    open_page, max_distance, num_buckets, bidirectional
):
    at = open_page(PAGE, state=released(relative_t5_live={"num_buckets": num_buckets, "max_distance": max_distance}))
    at.toggle(key="relative_t5_bidirectional").set_value(bidirectional).run()
    assert not at.exception
    assert len(at.error) == 1 and "max_distance must be larger than the exact range" in at.error[0].value
    assert len(figures(at)) == 1  # T5's bias chart is gone; ALiBi's matrices still show
    assert len(at.dataframe) == 0
    data = live_data(at, T5)  # the live chart stays, so the student can drag back to a valid pair
    assert data["server"] == {"num_buckets": num_buckets, "max_distance": max_distance}
    assert view_picture(live_json(at, T5), max_distance=max_distance)["picked"]["invalid"][0] == 1


def test_a_released_k_reaches_the_notice(open_page):
    at = open_page(PAGE, state=released(relative_shaw_live={"k": 3}))
    assert not at.exception
    assert live_data(at, SHAW)["server"] == {"k": 3}
    assert any("from −3 to +3" in caption for caption in captions(at))


def test_released_t5_values_reach_the_table_and_the_bias(open_page):
    at = open_page(PAGE)
    before = decode(figures(at)[T5_BIAS]["data"][0]["z"])
    at = open_page(PAGE, state=released(relative_t5_live={"num_buckets": 16, "max_distance": 48}))
    assert not at.exception
    table = tables(at)[0]
    assert len(table.rows) == 16 and table.rows[0][table.columns.index("region")] == "exact"
    after = decode(figures(at)[T5_BIAS]["data"][0]["z"])
    assert after.shape != before.shape or not np.array_equal(before, after)
    assert any("n_exact = B'/2 = **4**" in block for block in markdowns(at))


def test_the_bidirectional_toggle_changes_the_live_curve(page):
    before = view_picture(live_json(page, T5), num_buckets=32)["picked"]
    page.toggle(key="relative_t5_bidirectional").set_value(False).run()
    data = live_json(page, T5)
    after = view_picture(data, num_buckets=32)["picked"]
    assert before["max_exact"][0] == 8 and after["max_exact"][0] == 16
    assert "causal" in data["panels"][0]["words"]["title"]
    assert [mark["label"] for mark in data["panels"][0]["marks"]].count("max_distance") == 1


def test_shared_controls_move_the_live_charts(page):
    set_shared(page, length=100)
    set_shared(page, heads=12)
    assert view_picture(live_json(page, SHAW), k=8)["picked"]["offsets"][-1] == 99
    assert live_data(page, ALIBI)["server"] == {"heads": 12}
    assert view_picture(live_json(page, T5), num_buckets=32)["picked"]["reach"][0] == 99
    assert len(decode(figures(page)[T5_BIAS]["data"][0]["z"])) == 12  # a row per head


@pytest.mark.parametrize("length", [2, 100, 129, 3000, 4096])
def test_the_live_charts_follow_the_sidebars_length(page, length):
    """The shared length no slider of these charts moves is followed from the tab's store while the sidebar's thumb
    moves (static/live.js ``follows``): Shaw's window and curve, T5's ±(length − 1) marks and ALiBi's bias lines,
    computed by the browser's view at that length, are posenc's there."""
    shaw = live_json(page, SHAW)
    assert shaw["follows"] == {"length": 64}
    picture = view_picture(shaw, k=37, length=length)
    window = min(length, WINDOW)
    np.testing.assert_array_equal(picture["panels"][0]["values"].reshape(window, window),
                                  shaw_relative_index(window, 37).numpy())  # fmt: skip
    x = np.concatenate([line["x"] for line in picture["panels"][1]["series"]])
    y = np.concatenate([line["y"] for line in picture["panels"][1]["series"]])
    assert x[0] == 1 - length and x[-1] == length - 1 and np.all(np.diff(x) >= 0) and len(x) <= 320
    np.testing.assert_array_equal(y, np.clip(x, -37, 37) + 37)
    t5 = view_picture(live_json(page, T5), length=length)["picked"]
    assert (t5["reach"][0], t5["back_reach"][0]) == (length - 1, 1 - length)
    alibi = view_picture(live_json(page, ALIBI), heads=5, length=length)["picked"]
    offsets = alibi["offsets"]
    assert offsets[0] == 1 - length and offsets[-1] == 0 and len(offsets) == min(length, 17)
    expected = alibi_bias_per_offset(torch.from_numpy(offsets.astype(np.int64)), 5, dtype=torch.float64).numpy()
    np.testing.assert_allclose(alibi["bias"].reshape(-1, len(offsets))[:5], expected, rtol=1e-12, atol=0)


def test_non_power_of_two_heads_are_explained(page):
    set_shared(page, heads=12)
    assert any("heads = 12 is not a power of two" in block for block in markdowns(page))
    assert np.isfinite(view_picture(live_json(page, ALIBI), heads=12)["picked"]["slopes"]).sum() == 12


def test_a_shared_link_opens_this_view(open_page):
    at = open_page(PAGE, query={"length": "300", "heads": "6"})
    assert not at.exception and not at.warning
    assert at.session_state["shared_length"] == 300
    assert at.session_state["shared_heads"] == 6
    assert live_data(at, ALIBI)["server"] == {"heads": 6}
    set_shared(at, heads=9)
    assert at.query_params["heads"] == "9"


@pytest.mark.parametrize("query", [{"heads": "<b>x</b>"}, {"length": "10**9"}, {"heads": "99"}])
def test_hostile_links_open_this_page_with_sane_values(open_page, query):
    at = open_page(PAGE, query=query)  # the notice itself shows on the first page run (tests/test_app.py)
    assert not at.exception
    assert LIMITS.length_min <= at.session_state["shared_length"] <= LIMITS.length_max
    assert LIMITS.heads_min <= at.session_state["shared_heads"] <= LIMITS.heads_max
    assert len(figures(at)) == 2


def shown_texts(at) -> list[str]:
    """Every text the page writes itself: title, headers, markdown, captions, notices and widget labels and help."""
    blocks = [*at.title, *at.subheader, *at.markdown, *at.caption, *at.info, *at.error]
    widgets = [*at.slider, *at.toggle]
    return [block.value for block in blocks] + [w.label for w in widgets] + [w.help or "" for w in widgets]


def live_texts(at) -> list[str]:
    """Every word the live charts show: control labels, hint, panel titles and axes, readouts and notes."""
    words = []
    for key in (SHAW, T5, ALIBI):
        data = live_data(at, key)
        words += list(data["words"].values()) + data.get("readouts", [])
        words += [note["text"] for note in data.get("notes", [])]
        words += [word for panel in data["panels"] for word in panel["words"].values()]
        words += [panel["family"]["name"] for panel in data["panels"] if "family" in panel]
    return words


@pytest.mark.parametrize("lang", ["ko", "zh"])
@pytest.mark.parametrize("heads", [8, 12])  # a power of two, and not: both slope notes
def test_the_page_reads_in_korean_and_chinese(open_page, lang, heads):
    english = open_page(PAGE, query={"heads": str(heads)})
    at = open_page(PAGE, query={"lang": lang, "heads": str(heads)})
    assert not at.exception
    assert at.title[0].value == text(lang, "relative.title")
    assert not [block for block in shown_texts(at) + live_texts(at) if "⟦" in block]
    assert [header.value for header in at.subheader] == [
        text(lang, f"relative.{name}_header") for name in ("shaw", "t5", "alibi")
    ]
    assert all(text(lang, "common.what_to_notice") in caption for caption in captions(at) if "**" in caption)
    titles = [figure["layout"]["title"]["text"] for figure in figures(at)]
    english_titles = [figure["layout"]["title"]["text"] for figure in figures(english)]
    assert len(titles) == len(english_titles) == 2
    assert all(mine != theirs for mine, theirs in zip(titles, english_titles, strict=True))
    same = [mine for mine, theirs in zip(live_texts(at), live_texts(english), strict=True) if mine == theirs]
    assert same == [], same  # every live chart word is translated
    assert list(tables(at)[0].columns)[-1] == text(lang, "relative.column_region")


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_t5_error_is_translated(open_page, lang):
    at = open_page(PAGE, query={"lang": lang}, state=released(relative_t5_live={"max_distance": 2}))
    assert not at.exception
    assert [error.value for error in at.error] == [text(lang, "relative.t5_error", max_exact=8, max_distance=2)]
    assert live_data(at, T5)["notes"][0]["text"] == text(lang, "relative.t5_error")
