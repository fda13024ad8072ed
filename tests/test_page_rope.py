"""The RoPE page under AppTest: every widget at its bounds, charts present and reacting, numbers that teach.

The pair, the shift, the clocks and the layout curves are live charts, computed in the browser with posenc's twins
(static/views/rope.js, static/twins.js): the server sends the page's seeded q and k and the words, no computed
numbers. What the view computes from the sent data is run here in Node (tests/live_views.py) and checked against
posenc computed in the test, and what Chromium draws in tests/browser/test_live_rope.py.
"""

import json
import math

import numpy as np
import pytest
import torch
from conftest import captions, decode, figure_by_key, figures, live_data, markdowns, payload_bytes, set_shared
from live_views import live_json, view_picture, view_pictures

from charts.rope import pair_speed, rope_example_qk, rope_frame_positions, rope_layout_mixup
from figures.rope import DIAL_RADIUS, HAND_LENGTH, MAX_CLOCKS
from posenc.attention import attention_weights
from posenc.rope import rope_inv_freq, rope_pair_angles_at, rope_pair_points, rope_rotation_factors, rope_scores_at
from ui.component_data import sent_size
from ui.i18n import text
from ui.limits import LIMITS

PAGE = "pages/rope.py"
CHARTS = ("pairing", "attention")  # the Plotly charts, page order
LIVE = ("rope_pair_live", "rope_shift_live", "rope_clock_live", "rope_layout_live")  # the live charts, page order


def chart(at, name: str) -> dict:
    return figures(at)[CHARTS.index(name)]


@pytest.fixture
def page(open_page):
    return open_page(PAGE)


def score(q, k, m: int, n: int, base: float) -> float:
    """⟨R_m q, R_n k⟩ from posenc, at one pair of positions."""
    return rope_scores_at(q, k, torch.tensor([m]), torch.tensor([n]), base)[0].item()


def hands(picture: dict) -> np.ndarray:
    """Each clock hand the view draws as a complex number, tip minus centre (the hands series: centre, tip, gap)."""
    x, y = picture["panels"][0]["series"][1]["x"], picture["panels"][0]["series"][1]["y"]
    return (x[1::3] - x[0::3]) + 1j * (y[1::3] - y[0::3])


def test_default_page_has_every_section(page):
    assert not page.exception
    assert page.title[0].value == "RoPE in the complex plane"
    assert [header.value for header in page.subheader] == [
        "One pair, two positions",
        "Only the distance m − n matters",
        "All pairs at once: clock hands at different speeds",
        "rotate_half vs interleaved pairing",
    ]
    figs = figures(page)
    trace_types = [sorted({trace["type"] for trace in fig["data"]}) for fig in figs]
    assert trace_types == [["heatmap"], ["heatmap"]]
    for key in LIVE:
        assert live_data(page, key)
    assert len(page.get("latex")) == 5  # one formula block per section, two in the layout section
    assert len(page.expander) == 4  # "Show the code" for each section
    assert sum("What to notice" in caption for caption in captions(page)) == 4
    assert payload_bytes(page) < 250_000


def live_bytes(at, key: str) -> int:
    for element in at.get("bidi_component"):
        if key in element.proto.id:
            return sent_size(element.proto)
    raise AssertionError(key)


@pytest.mark.parametrize("key", LIVE)
def test_each_live_chart_sends_little(page, key):
    assert live_bytes(page, key) < 50_000


@pytest.mark.parametrize("dim, shown", [(128, list(range(64))), (16, list(range(8))), (2, [0])])
def test_the_live_clocks_turn_every_pairs_hand_at_posencs_frequency(open_page, dim, shown):
    """Hand i is e^{i·p·θ_i}, θ_i = base^(−2i/d): computed in the browser (static/views/rope.js) at any position."""
    at = open_page(PAGE, query={"dim": str(dim), "base": "500000"})
    data = live_json(at, "rope_clock_live")
    assert data["picture"] == "clocks" and data["server"] == {"position": 0} and data["arrays"] == {}
    theta = rope_inv_freq(dim, 500000.0, torch.float64)[shown]
    for position, picture in zip((0, 7, 99_000, 1_000_000), view_pictures(data, [{"position": p} for p in (0, 7,
                                 99_000, 1_000_000)]), strict=True):  # fmt: skip
        assert picture["picked"]["pairs"].tolist() == shown
        expected = HAND_LENGTH * rope_rotation_factors(torch.tensor([position]), theta)[0].numpy()
        np.testing.assert_allclose(hands(picture), expected, rtol=0, atol=1e-9)
        assert picture["picked"]["clipped"][0] == 0  # every pair has its dial: the note is not shown
    assert data["dials"]["radius"] == DIAL_RADIUS and data["dials"]["hand"] == HAND_LENGTH < DIAL_RADIUS


def test_many_pairs_get_evenly_spaced_dials_and_say_so(open_page):
    at = open_page(PAGE, query={"dim": "1024"})
    data = live_json(at, "rope_clock_live")
    pairs = view_picture(data, position=3)["picked"]["pairs"]
    assert len(pairs) == MAX_CLOCKS and pairs[0] == 0 and pairs[-1] == 511  # the fastest and the slowest
    assert np.ptp(np.diff(pairs)) <= 1  # evenly spaced, to the nearest pair
    np.testing.assert_array_equal(pairs, np.round(np.linspace(0, 511, MAX_CLOCKS)))
    [note] = data["readouts"]  # filled in the browser from what the view drew (static/live.js)
    picked = view_picture(data, position=3)["picked"]
    assert note["when"] == "clipped" and picked["clipped"][0] == 1
    shown, total = int(picked["shown"][0]), int(picked["total"][0])
    assert note["text"].format(shown=shown, total=total) == "64 of 512 pairs shown, evenly spaced."


@pytest.mark.parametrize("dim, base", [(16, 500000.0), (1024, 10.0), (2, 150.0), (94, 12345.6)])
def test_the_clocks_layout_and_shift_follow_the_sidebars_dim_and_base(page, dim, base):
    """The shared dim and base these charts have no slider for are followed from the tab's store while the
    sidebar's thumb moves (static/live.js ``follows``): what the view computes there is posenc's at those values."""
    clocks = live_json(page, "rope_clock_live")
    assert clocks["follows"] == {"dim": 128, "base": 10000.0}
    picture = view_picture(clocks, position=250, dim=dim, base=base)
    shown = np.round(np.linspace(0, dim // 2 - 1, min(dim // 2, MAX_CLOCKS))).astype(int)
    np.testing.assert_array_equal(picture["picked"]["pairs"], shown)
    theta = rope_inv_freq(dim, base, torch.float64)[shown]
    expected = HAND_LENGTH * rope_rotation_factors(torch.tensor([250]), theta)[0].numpy()
    np.testing.assert_allclose(hands(picture), expected, rtol=0, atol=1e-9)
    layout = live_json(page, "rope_layout_live")
    assert layout["follows"] == {"dim": 128, "base": 10000.0}
    curves = view_picture(layout, offset=4, dim=dim, base=base)["picked"]
    mix = rope_layout_mixup(dim, 4, 48, base, "half")
    for name, curve in (("right", mix.right_curve), ("converted", mix.converted_curve), ("wrong", mix.wrong_curve)):
        np.testing.assert_allclose(curves[name], curve.numpy(), rtol=1e-9, atol=1e-9)
    shift = live_json(page, "rope_shift_live")
    assert shift["follows"] == {"base": 10000.0, "dim": 128}  # q and k at the largest dim: the dim's first features
    q, k = rope_example_qk(dim, 0)
    both = view_picture(shift, base=base, dim=dim)["panels"][0]["series"][0]["y"]
    t = torch.arange(0, 513, 4)
    np.testing.assert_allclose(both, rope_scores_at(q, k, 5 + t, 2 + t, base).numpy(), rtol=1e-9, atol=1e-9)


def test_the_clock_positions_go_ten_times_further_each_fifth(page):
    positions = live_data(page, "rope_clock_live")["controls"]["position"]["values"]
    assert positions[:3] == [0, 1, 2] and positions[-1] == 1_000_000
    steps = np.diff(positions)
    assert sorted(set(steps.tolist())) == [1, 10, 100, 1000, 10_000]
    assert [int(np.sum(steps == step)) for step in (1, 10, 100, 1000, 10_000)] == [100, 90, 90, 90, 90]
    assert live_data(page, "rope_clock_live")["controls"]["position"]["play_ms"] > 0  # it has a ▶ button


def test_a_released_clock_position_is_kept(open_page):
    at = open_page(PAGE, state={"rope_clock_live__values": {"position": 2500}})
    assert live_data(at, "rope_clock_live")["server"] == {"position": 2500}


def test_the_live_pair_sends_the_pages_q_and_k_and_no_computed_numbers(open_page):
    """The page's seeded q and k (which no formula gives) are all the numbers sent: θ_i, the turned pairs and the
    scores are computed in the browser."""
    at = open_page(PAGE, query={"dim": "16"}, state={"rope_seed": 7})
    data = live_data(at, "rope_pair_live")
    assert data["view"] == "rope" and data["picture"] == "pair"
    assert data["server"] == {"pair": 0, "m": 5, "n": 2, "base": 10000.0}
    assert data["controls"]["pair"] == {"values": list(range(LIMITS.dim_max // 2)), "upto": {"of": "dim", "per": 2}}
    assert data["controls"]["m"]["values"] == list(range(513))
    assert data["controls"]["base"]["values"] == list(LIMITS.base_options)
    assert data["follows"] == {"dim": 16}
    q, k = rope_example_qk(LIMITS.dim_max, 7)  # at the largest dim: any dim's q and k are its first features
    assert set(data["arrays"]) == {"q", "k"}
    np.testing.assert_array_equal(data["arrays"]["q"], q.numpy())
    np.testing.assert_array_equal(data["arrays"]["k"], k.numpy())
    np.testing.assert_array_equal(data["arrays"]["q"][:16], rope_example_qk(16, 7)[0].numpy())


# pair, m, n and base, several moved at once (the browser follows them all), bases off the slider's grid included
PAIR_SETTINGS = [(0, 5, 2, 10000.0), (3, 100, 7, 10000.0), (63, 512, 0, 10.0), (31, 0, 511, 1e6), (40, 9, 4, 150.0),
                 (40, 9, 4, 500000.0), (17, 300, 77, 12345.6), (0, 0, 0, 10.0)]  # fmt: skip


def test_the_browsers_pair_is_posencs_point_angle_and_score(page):
    """What the view computes from the sent q, k at any (pair, m, n, base) is posenc's rope_pair_points, θ_i,
    rope_pair_angles_at and rope_scores_at."""
    data = live_json(page, "rope_pair_live")
    q, k = rope_example_qk(128, 0)
    values = [{"pair": pair, "m": m, "n": n, "base": base} for pair, m, n, base in PAIR_SETTINGS]
    for (pair, m, n, base), picture in zip(PAIR_SETTINGS, view_pictures(data, values), strict=True):
        picked, where = picture["picked"], (torch.tensor([m]), torch.tensor([n]))
        zq, zk = (rope_pair_points(x, p, pair, base)[0].item() for x, p in ((q, where[0]), (k, where[1])))
        assert complex(*picked["q_point"]) == pytest.approx(zq, abs=1e-12)
        assert complex(*picked["k_point"]) == pytest.approx(zk, abs=1e-12)
        assert picked["theta"][0] == pytest.approx(base ** (-2 * pair / 128), rel=1e-12)
        angle = rope_pair_angles_at(q, k, *where, pair, base)[0].item()
        assert np.angle(np.exp(1j * (picked["angle"][0] - angle))) == pytest.approx(0, abs=1e-9)
        assert picked["score"][0] == pytest.approx(score(q, k, m, n, base), rel=1e-9, abs=1e-9)
        arrows = picture["panels"][0]["series"][2:4]
        assert [complex(line["x"][1], line["y"][1]) for line in arrows] == pytest.approx([zq, zk], abs=1e-12)


@pytest.mark.parametrize("m, n", [(5, 2), (0, 512), (512, 0), (200, 350)])
def test_the_live_shift_scores_are_posencs_at_the_shifted_positions(open_page, m, n):
    """Both moved by t: the browser's score is rope_scores_at(m + t, n + t); only q moved: rope_scores_at(m + t, n),
    for every shift t the slider reaches (and a shift not yet released)."""
    at = open_page(PAGE, state={"rope_pair_live__values": {"pair": 0, "m": m, "n": n}})
    data = live_json(at, "rope_shift_live")
    assert data["server"] == {"m": m, "n": n, "shift": 100} and set(data["arrays"]) == {"q", "k"}
    shifts = data["controls"]["shift"]["values"]
    assert shifts == list(range(0, 513, 4))
    q, k = rope_example_qk(128, 0)
    t = torch.tensor(shifts)
    both = rope_scores_at(q, k, m + t, n + t, 10000.0).numpy()
    query_only = rope_scores_at(q, k, m + t, torch.full_like(t, n), 10000.0).numpy()
    picture = view_picture(data, shift=40)
    drawn_both, drawn_query, marker = picture["panels"][0]["series"]
    np.testing.assert_array_equal(drawn_both["x"], shifts)
    np.testing.assert_allclose(drawn_both["y"], both, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(drawn_query["y"], query_only, rtol=1e-9, atol=1e-9)
    assert marker["x"].tolist() == [40] and marker["y"][0] == pytest.approx(both[10], rel=1e-9, abs=1e-9)
    assert picture["picked"]["query_only"][0] == pytest.approx(query_only[10], rel=1e-9, abs=1e-9)
    assert np.ptp(query_only) > 0.1  # moving only q changes the score: the flat line is not flat by accident


def test_the_shift_charts_pair_is_posencs(open_page):
    at = open_page(PAGE, query={"dim": "32", "base": "500000"}, state={"rope_pair_live__values": {"pair": 5}})
    data = live_json(at, "rope_shift_live")
    assert data["pair"] == 5 and data["follows"] == {"base": 500000.0, "dim": 32}
    q, k = rope_example_qk(32, 0)
    picked = view_picture(data, shift=8)["picked"]
    for name, (m, n) in (("angle_before", (5, 2)), ("angle_after", (13, 10))):
        angle = rope_pair_angles_at(q, k, torch.tensor([m]), torch.tensor([n]), 5, 500000.0)[0].item()
        assert np.angle(np.exp(1j * (picked[name][0] - angle))) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("offset", [0, 5, 16])
def test_the_live_layout_curves_are_posencs_at_every_offset(page, offset):
    data = live_json(page, "rope_layout_live")
    assert data["controls"]["offset"]["values"] == list(range(17)) and data["arrays"] == {}
    picture = view_picture(data, offset=offset)["picked"]
    mix = rope_layout_mixup(128, offset, 48, 10000.0, "half")
    np.testing.assert_array_equal(picture["distances"], np.arange(48))
    for name, curve in (("right", mix.right_curve), ("converted", mix.converted_curve), ("wrong", mix.wrong_curve)):
        np.testing.assert_allclose(picture[name], curve.numpy(), rtol=1e-9, atol=1e-9)
    assert picture["offset"].tolist() == [offset]
    assert int(picture["right"].argmax()) == offset  # the trained head peaks where it looks
    np.testing.assert_allclose(picture["converted"], picture["right"], atol=1e-4)
    if offset == 5:
        assert int(picture["wrong"].argmax()) != 5


def test_a_released_offset_reaches_the_attention_and_the_curves(open_page):
    at = open_page(PAGE, state={"rope_layout_live__values": {"offset": 5}})
    assert not at.exception
    weights = decode(figure_by_key(at, "rope_attention_chart")["data"][0]["z"])
    mix = rope_layout_mixup(128, 5, 48, 10000.0, "half")
    np.testing.assert_allclose(weights, attention_weights(mix.right_table, causal=True).numpy(), atol=1e-6)
    assert int(weights[20].argmax()) == 15  # query 20 looks 5 tokens back
    assert live_data(at, "rope_layout_live")["server"] == {"offset": 5}


def test_released_positions_reach_both_charts_and_the_caption(open_page):
    at = open_page(PAGE, state={"rope_pair_live__values": {"pair": 3, "m": 100, "n": 7},
                                "rope_shift_live__values": {"shift": 200}})  # fmt: skip
    assert not at.exception
    assert live_data(at, "rope_pair_live")["server"] == {"pair": 3, "m": 100, "n": 7, "base": 10000.0}
    assert live_data(at, "rope_shift_live")["server"] == {"m": 100, "n": 7, "shift": 200}
    assert any(caption.startswith("**What to notice:** pair 3 turns") for caption in captions(at))
    shift = live_json(at, "rope_shift_live")  # the pair's name is filled in as drawn (the dim's last, if fewer)
    assert "pair {pair}: angle at (m, n)" in " ".join(shift["readouts"])
    assert view_picture(shift)["picked"]["pair"] == [3] and view_picture(shift, dim=4)["picked"]["pair"] == [1]


def test_the_trained_layout_swaps_the_experiment(page):
    before = view_picture(live_json(page, "rope_layout_live"), offset=3)["picked"]["wrong"]
    page.radio(key="rope_trained_layout").set_value("interleaved").run()
    data = live_json(page, "rope_layout_live")
    assert data["panels"][0]["series"][0]["name"].startswith("trained interleaved") and data["trained"] == "interleaved"
    after = view_picture(data, offset=3)["picked"]
    assert after["wrong"].tolist() != before.tolist()
    mix = rope_layout_mixup(128, 3, 48, 10000.0, "interleaved")
    np.testing.assert_allclose(after["wrong"], mix.wrong_curve.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("slider", "rope_seed", 0),
        ("slider", "rope_seed", 99),
        ("radio", "rope_trained_layout", "half"),
        ("radio", "rope_trained_layout", "interleaved"),
    ],
)
def test_every_page_widget_at_its_bounds(page, kind, key, value):
    getattr(page, kind)(key=key).set_value(value).run()
    assert not page.exception, page.exception
    assert not page.error
    assert len(figures(page)) == len(CHARTS)


@pytest.mark.parametrize(
    "released",
    [
        {"rope_pair_live__values": {"pair": 0, "m": 0, "n": 0}},
        {"rope_pair_live__values": {"pair": 63, "m": 512, "n": 512}},
        {"rope_pair_live__values": {"m": 0, "n": 512}, "rope_shift_live__values": {"shift": 512}},
        {"rope_shift_live__values": {"shift": 0}},
        {"rope_layout_live__values": {"offset": 0}},
        {"rope_layout_live__values": {"offset": 16}},
        {"rope_clock_live__values": {"position": 0}},
        {"rope_clock_live__values": {"position": 1_000_000}},
    ],
)
def test_every_live_slider_at_its_bounds(open_page, released):
    at = open_page(PAGE, state=released)
    assert not at.exception, at.exception
    assert not at.error
    assert len(figures(at)) == len(CHARTS)


def test_the_seed_changes_q_and_k(page):
    before = live_data(page, "rope_pair_live")["arrays"]["q"]
    page.slider(key="rope_seed").set_value(7).run()
    after = live_data(page, "rope_pair_live")["arrays"]["q"]
    assert after.tolist() != before.tolist()
    np.testing.assert_array_equal(after[:128], rope_example_qk(128, 7)[0].numpy())  # the dim's first features
    np.testing.assert_array_equal(live_data(page, "rope_shift_live")["arrays"]["q"], after)  # one q on the page


@pytest.mark.parametrize(
    "name, value",
    [
        ("dim", LIMITS.dim_min),
        ("dim", LIMITS.dim_max),
        ("base", LIMITS.base_options[0]),
        ("base", LIMITS.base_options[-1]),
    ],
)
def test_shared_controls_at_their_bounds(page, name, value):
    set_shared(page, **{name: value})
    assert page.session_state[f"shared_{name}"] == value
    assert not page.exception, page.exception
    assert len(figures(page)) == len(CHARTS)
    assert live_data(page, "rope_pair_live")["server"]["base"] == page.session_state["shared_base"]


def test_everything_at_its_maximum_stays_light(open_page):
    released = {"rope_pair_live__values": {"pair": 511, "m": 512, "n": 0}, "rope_shift_live__values": {"shift": 512},
                "rope_layout_live__values": {"offset": 16},
                "rope_clock_live__values": {"position": 1_000_000}}  # fmt: skip
    at = open_page(PAGE, query={"dim": str(LIMITS.dim_max), "base": str(int(LIMITS.base_options[-1]))}, state=released)
    assert not at.exception
    assert live_data(at, "rope_pair_live")["server"]["pair"] == 511
    assert payload_bytes(at) < 1_500_000
    assert all(live_bytes(at, key) < 60_000 for key in LIVE)


def test_dim_2_has_a_single_pair_and_no_pair_slider(open_page):
    at = open_page(PAGE, query={"dim": "2"})
    assert not at.exception
    data = live_data(at, "rope_pair_live")  # the pair slider reaches the dim's one pair: static/live.js hides it
    assert data["controls"]["pair"]["upto"] == {"of": "dim", "per": 2} and data["follows"] == {"dim": 2}
    assert any("single pair" in caption for caption in captions(at))
    set_shared(at, dim=4)  # a commit: the caption is words the sidebar sends (ui.words), gone at two pairs
    assert not any("single pair" in caption for caption in captions(at))


def test_shrinking_dim_below_the_chosen_pair_is_safe(open_page):
    at = open_page(PAGE, state={"rope_pair_live__values": {"pair": 60, "m": 5, "n": 2}})
    set_shared(at, dim=8)
    assert not at.exception
    data = live_data(at, "rope_pair_live")
    assert data["server"]["pair"] == 3 and data["follows"] == {"dim": 8}  # the slider reaches pair 3 (static/live.js)
    notice = next(caption for caption in captions(at) if caption.startswith("**What to notice:** pair"))
    assert notice.startswith("**What to notice:** pair 3 ")  # the dim's last pair, as the chart draws


def test_the_live_controls_are_labelled_in_the_pages_words(page):
    words = live_data(page, "rope_pair_live")["words"]
    assert (words["pair"], words["m"], words["n"], words["base"]) == ("pair i", "query position m", "key position n",
                                                                      text("en", "shared.base_label"))  # fmt: skip
    assert live_data(page, "rope_shift_live")["words"]["shift"] == "shift s (added to both positions)"
    assert live_data(page, "rope_layout_live")["words"]["offset"] == "its head looks r₀ tokens back"


def test_dim_changes_the_pairing_chart_and_the_permutation(page):
    set_shared(page, dim=8)
    z = decode(chart(page, "pairing")["data"][0]["z"])
    assert z.shape == (2, 8)
    assert any("[0, 4, 1, 5, 2, 6, 3, 7]" in markdown for markdown in markdowns(page))


def test_odd_dim_in_session_shows_an_error_not_a_traceback(open_page):
    at = open_page(PAGE, state={"shared_dim": 7})
    assert not at.exception
    assert at.error and "even" in at.error[0].value
    assert not figures(at)
    assert not at.main.get("bidi_component")


def visible_texts(at) -> list[str]:
    """Every text a student reads outside the charts: title, headers, prose, formulas, widget and metric labels."""
    kinds = ("title", "subheader", "markdown", "caption", "latex")
    texts = [element.value for kind in kinds for element in at.get(kind)]
    widgets = [*at.slider, *at.select_slider, *at.radio, *at.metric, *at.expander]
    texts += [widget.label for widget in widgets] + [widget.help or "" for widget in widgets if hasattr(widget, "help")]
    texts += [option for radio in at.radio for option in radio.options]
    return texts


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_opens_in_each_language(open_page, lang):
    english = open_page(PAGE)  # fills the caches first
    titles = [fig["layout"]["title"]["text"] for fig in figures(english)]
    english_live = [json.dumps(live_data(english, key)["words"], ensure_ascii=False) for key in LIVE]
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "rope.title")
    assert [header.value for header in at.subheader] == [
        text(lang, f"rope.{name}_header") for name in ("pair", "shift", "clock", "layout")
    ]
    assert not [value for value in visible_texts(at) if "⟦" in value]
    translated = figures(at)
    assert len(translated) == len(CHARTS)
    for before, fig in zip(titles, translated, strict=True):
        assert fig["layout"]["title"]["text"] != before  # not the English figure from the shared cache
        assert "⟦" not in json.dumps(fig, ensure_ascii=False)
    for key, before in zip(LIVE, english_live, strict=True):
        data = live_data(at, key)
        shown = json.dumps([data["words"], data.get("readouts"), data.get("panels")], ensure_ascii=False)
        assert json.dumps(data["words"], ensure_ascii=False) != before
        assert "⟦" not in shown
    assert live_data(at, "rope_pair_live")["words"]["title"] == text(lang, "rope.pair_title")


def test_switching_language_in_a_session_redraws_the_charts(page):
    english = [json.dumps(fig["layout"]["title"]) for fig in figures(page)]
    page.get("button_group")[0].set_value("ko").run()
    assert not page.exception
    assert page.title[0].value == text("ko", "rope.title")
    assert all(json.dumps(fig["layout"]["title"]) not in english for fig in figures(page))
    assert live_data(page, "rope_shift_live")["words"]["shift"] == text("ko", "rope.shift_label")
    page.radio(key="rope_trained_layout").set_value("interleaved").run()  # options stay language-independent
    names = [series["name"] for series in live_data(page, "rope_layout_live")["panels"][0]["series"]]
    assert names[0] == text("ko", "rope.curve_right", trained="interleaved", other="half")


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_error_message_is_translated(open_page, lang):
    at = open_page(PAGE, query={"lang": lang}, state={"shared_dim": 7})
    assert not at.exception
    assert at.error[0].value == text(lang, "rope.bad_settings", dim=7, base="10000")


# --- the page's own data helpers (charts/rope.py) ---


@pytest.mark.parametrize("start, count, step, expected", [(0, 4, 1, [0, 1, 2, 3]), (5, 3, 10, [5, 15, 25]),
                                                           (7, 3, 0, [7, 7, 7]), (2, 1, 4, [2])])  # fmt: skip
def test_frame_positions_are_evenly_spaced(start, count, step, expected):
    assert rope_frame_positions(start, count, step).tolist() == expected


def test_example_qk_is_reproducible():
    q, k = rope_example_qk(16, seed=3)
    q2, k2 = rope_example_qk(16, seed=3)
    assert q.shape == k.shape == (16,) and q.dtype == torch.float64
    assert torch.equal(q, q2) and torch.equal(k, k2)
    assert not torch.equal(q, k)
    assert not torch.equal(q, rope_example_qk(16, seed=4)[0])


@pytest.mark.parametrize("dim", [4, 16, 128])
@pytest.mark.parametrize("trained", ["half", "interleaved"])
def test_layout_mixup_right_equals_converted_and_wrong_differs(dim, trained):
    mix = rope_layout_mixup(dim, offset=3, length=24, base=10000.0, trained=trained)
    assert mix.right_curve.shape == (24,) and mix.right_table.shape == (24, 24)
    torch.testing.assert_close(mix.converted_curve, mix.right_curve, rtol=1e-10, atol=1e-10)
    assert int(mix.right_curve.argmax()) == 3
    assert (mix.wrong_curve - mix.right_curve).abs().max() > 0.5
    # the table row of query m holds the curve read backwards from the diagonal: S[m, m − r] = s(r)
    torch.testing.assert_close(mix.right_table[20, 20 - torch.arange(21)], mix.right_curve[:21])
    torch.testing.assert_close(mix.wrong_table[20, 20 - torch.arange(21)], mix.wrong_curve[:21])


def test_layouts_coincide_for_a_single_pair():
    mix = rope_layout_mixup(2, offset=1, length=8)
    torch.testing.assert_close(mix.wrong_curve, mix.right_curve)


@pytest.mark.parametrize("dim, pair, base", [(128, 0, 10000.0), (128, 63, 10000.0), (64, 17, 500000.0), (2, 0, 10.0)])
def test_pair_speed_is_theta_and_its_period(dim, pair, base):
    theta, period = pair_speed(dim, pair, base)
    assert theta == pytest.approx(base ** (-2 * pair / dim), rel=1e-12)
    assert period == pytest.approx(2 * math.pi * base ** (2 * pair / dim), rel=1e-12)


@pytest.mark.parametrize("trained", ["half", "interleaved"])
@pytest.mark.parametrize("dim, base, offset", [(128, 10000.0, 5), (6, 500.0, 0), (64, 1e6, 16)])
def test_the_layout_experiment_is_the_causal_softmax_of_the_rotated_scores(trained, dim, base, offset):
    """Held to the scores ⟨R_m q, R_n k⟩ of every pair of positions (posenc's rope_scores_at, not the score table),
    with the trained layout and with the other one."""
    from charts.rope import layout_experiment
    from posenc.rope import ROPE_LAYOUTS, rope_offset_detector

    q, k = rope_offset_detector(dim, offset, base, trained)
    m, n = torch.meshgrid(torch.arange(48), torch.arange(48), indexing="ij")  # query m, key n: [48, 48] each
    shown = layout_experiment(dim, base, offset, trained)
    other = next(layout for layout in ROPE_LAYOUTS if layout != trained)
    for layout, weights in ((trained, shown.right_weights), (other, shown.wrong_weights)):
        scores = rope_scores_at(q, k, m.flatten(), n.flatten(), base, layout).reshape(48, 48)
        np.testing.assert_allclose(weights, attention_weights(scores, causal=True).numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dim, pair", [(16, 5), (2, 0), (1024, 511)])
def test_the_pair_chart_follows_the_sidebars_dim(page, dim, pair):
    """The complex-plane chart drawn at the store's dim (no rerun: static/live.js ``follows``) is posenc's at that
    dim: the dim's first features of the q and k sent, its θ_i."""
    data = live_json(page, "rope_pair_live")
    picked = view_picture(data, dim=dim, pair=pair, m=9, n=4)["picked"]
    q, k = rope_example_qk(dim, 0)
    zq = rope_pair_points(q, torch.tensor([9]), pair, 10000.0)[0].item()
    assert complex(*picked["q_point"]) == pytest.approx(zq, abs=1e-12)
    assert picked["theta"][0] == pytest.approx(10000.0 ** (-2 * pair / dim), rel=1e-12)
    assert picked["score"][0] == pytest.approx(score(q, k, 9, 4, 10000.0), rel=1e-9, abs=1e-9)
