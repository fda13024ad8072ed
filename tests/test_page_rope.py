"""The RoPE page under AppTest: every widget at its bounds, charts present and reacting, numbers that teach."""

import json

import pytest
from conftest import decode, figures, payload_bytes

from figures.rope import MAX_FRAMES
from ui.i18n import text
from ui.limits import LIMITS

PAGE = "pages/rope.py"
CHARTS = ("pair", "shift", "clock", "pairing", "curves", "attention")  # page order


def chart(at, name: str) -> dict:
    return figures(at)[CHARTS.index(name)]


@pytest.fixture
def page(open_page):
    return open_page(PAGE)


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
    assert trace_types == [["scatter"], ["scatter"], ["scatter"], ["heatmap"], ["scatter"], ["heatmap"]]
    assert len(page.get("latex")) == 5  # one formula block per section, two in the layout section
    assert len(page.expander) == 4  # "Show the code" for each section
    assert sum("What to notice" in caption.value for caption in page.caption) == 4
    assert payload_bytes(page) < 250_000


@pytest.mark.parametrize("name", ["pair", "clock"])
def test_animations_have_bounded_frames_and_play_pause(page, name):
    fig = chart(page, name)
    assert 1 < len(fig["frames"]) <= MAX_FRAMES
    labels = [button["label"] for button in fig["layout"]["updatemenus"][0]["buttons"]]
    assert labels == ["▶ Play", "❚❚ Pause"]
    assert len(fig["layout"]["sliders"][0]["steps"]) == len(fig["frames"])


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("slider", "rope_pair", 0),
        ("slider", "rope_pair", LIMITS.dim_default // 2 - 1),
        ("slider", "rope_m", 0),
        ("slider", "rope_m", 512),
        ("slider", "rope_n", 0),
        ("slider", "rope_n", 512),
        ("slider", "rope_seed", 0),
        ("slider", "rope_seed", 99),
        ("slider", "rope_shift", 0),
        ("slider", "rope_shift", 512),
        ("slider", "rope_clock_position", 0),
        ("slider", "rope_clock_position", 4096),
        ("select_slider", "rope_clock_step", 1),
        ("select_slider", "rope_clock_step", 10000),
        ("slider", "rope_offset", 0),
        ("slider", "rope_offset", 16),
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
    "kind, key, value",
    [
        ("slider", "shared_dim_widget", LIMITS.dim_min),
        ("slider", "shared_dim_widget", LIMITS.dim_max),
        ("select_slider", "shared_base_widget", LIMITS.base_options[0]),
        ("select_slider", "shared_base_widget", LIMITS.base_options[-1]),
    ],
)
def test_shared_controls_at_their_bounds(page, kind, key, value):
    getattr(page.sidebar, kind)(key=key).set_value(value).run()
    assert not page.exception, page.exception
    assert len(figures(page)) == len(CHARTS)


def test_everything_at_its_maximum_stays_light(page):
    page.sidebar.slider(key="shared_dim_widget").set_value(LIMITS.dim_max).run()
    page.sidebar.select_slider(key="shared_base_widget").set_value(LIMITS.base_options[-1]).run()
    for key, value in [("rope_pair", 511), ("rope_m", 512), ("rope_shift", 512), ("rope_offset", 16)]:
        page.slider(key=key).set_value(value).run()
    page.select_slider(key="rope_clock_step").set_value(10000).run()
    assert not page.exception
    assert payload_bytes(page) < 1_500_000


def test_dim_2_has_a_single_pair_and_no_pair_slider(open_page):
    at = open_page(PAGE, query={"dim": "2"})
    assert not at.exception
    assert not [slider for slider in at.slider if slider.key == "rope_pair"]
    assert any("single pair" in caption.value for caption in at.caption)


def test_shrinking_dim_below_the_chosen_pair_is_safe(page):
    page.slider(key="rope_pair").set_value(60).run()
    page.sidebar.slider(key="shared_dim_widget").set_value(8).run()
    assert not page.exception
    assert page.slider(key="rope_pair").value <= 3


def test_moving_both_positions_changes_nothing_and_moving_one_does(page):
    page.slider(key="rope_shift").set_value(300).run()
    metrics = [metric.value for metric in page.metric]
    angle_mn, angle_shifted, score_mn, score_shifted, score_query_only = metrics
    assert angle_mn == angle_shifted
    assert score_mn == score_shifted
    assert score_query_only != score_mn
    both_move = decode(chart(page, "shift")["data"][0]["y"])
    assert both_move.max() - both_move.min() < 1e-4  # flat
    query_moves = decode(chart(page, "shift")["data"][1]["y"])
    assert query_moves.max() - query_moves.min() > 0.1


def frame_points(fig: dict) -> list:
    return [decode(frame["data"][0]["x"]).tolist() for frame in fig["frames"]]


@pytest.mark.parametrize(
    "key, value, name",
    [
        ("rope_pair", 40, "pair"),
        ("rope_seed", 7, "pair"),
        ("rope_m", 100, "pair"),
        ("rope_clock_position", 1000, "clock"),
    ],
)
def test_moving_a_slider_changes_the_animation(page, key, value, name):
    before = frame_points(chart(page, name))
    page.slider(key=key).set_value(value).run()
    assert frame_points(chart(page, name)) != before


def test_the_angle_in_the_title_stays_fixed_while_positions_move(page):
    titles = [frame["layout"]["title"]["text"] for frame in chart(page, "pair")["frames"]]
    angles = {title.rsplit("=", 1)[1] for title in titles}
    assert len(angles) == 1 and len(set(titles)) == len(titles)


def test_clock_step_changes_the_positions_shown(page):
    page.select_slider(key="rope_clock_step").set_value(100).run()
    labels = [step["label"] for step in chart(page, "clock")["layout"]["sliders"][0]["steps"]]
    assert labels[:3] == ["0", "100", "200"]


def test_shift_slider_moves_the_marker(page):
    page.slider(key="rope_shift").set_value(200).run()
    assert decode(chart(page, "shift")["data"][2]["x"]).tolist() == [200.0]


def test_layout_experiment_right_peaks_at_the_offset_and_wrong_does_not(page):
    page.slider(key="rope_offset").set_value(5).run()
    right, converted, wrong = (decode(trace["y"]) for trace in chart(page, "curves")["data"])
    assert int(right.argmax()) == 5
    assert abs(converted - right).max() < 1e-4
    assert int(wrong.argmax()) != 5
    attention_right = decode(chart(page, "attention")["data"][0]["z"])
    assert int(attention_right[20].argmax()) == 15  # query 20 looks 5 tokens back


def test_trained_layout_swaps_the_experiment(page):
    before = decode(chart(page, "curves")["data"][2]["y"])
    page.radio(key="rope_trained_layout").set_value("interleaved").run()
    names = [trace["name"] for trace in chart(page, "curves")["data"]]
    assert names[0].startswith("trained interleaved")
    assert decode(chart(page, "curves")["data"][2]["y"]).tolist() != before.tolist()


def test_dim_changes_the_pairing_chart_and_the_permutation(page):
    page.sidebar.slider(key="shared_dim_widget").set_value(8).run()
    z = decode(chart(page, "pairing")["data"][0]["z"])
    assert z.shape == (2, 8)
    assert any("[0, 4, 1, 5, 2, 6, 3, 7]" in markdown.value for markdown in page.markdown)


def test_odd_dim_in_session_shows_an_error_not_a_traceback(open_page):
    at = open_page(PAGE, state={"shared_dim": 7})
    assert not at.exception
    assert at.error and "even" in at.error[0].value
    assert not figures(at)


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
    english = [fig["layout"]["title"]["text"] for fig in figures(open_page(PAGE))]  # fills the figure cache first
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "rope.title")
    assert [header.value for header in at.subheader] == [
        text(lang, f"rope.{name}_header") for name in ("pair", "shift", "clock", "layout")
    ]
    assert not [value for value in visible_texts(at) if "⟦" in value]
    translated = figures(at)
    assert len(translated) == len(CHARTS)
    for before, fig in zip(english, translated, strict=True):
        assert fig["layout"]["title"]["text"] != before  # not the English figure from the shared cache
        assert "⟦" not in json.dumps(fig, ensure_ascii=False)


def test_switching_language_in_a_session_redraws_the_figures(page):
    english = [json.dumps(fig["layout"]["title"]) for fig in figures(page)]
    page.get("button_group")[0].set_value("ko").run()
    assert not page.exception
    assert page.title[0].value == text("ko", "rope.title")
    assert all(json.dumps(fig["layout"]["title"]) not in english for fig in figures(page))
    page.radio(key="rope_trained_layout").set_value("interleaved").run()  # options stay language-independent
    names = [trace["name"] for trace in chart(page, "curves")["data"]]
    assert names[0] == text("ko", "rope.curve_right", trained="interleaved", other="half")


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_error_message_is_translated(open_page, lang):
    at = open_page(PAGE, query={"lang": lang}, state={"shared_dim": 7})
    assert not at.exception
    assert at.error[0].value == text(lang, "rope.bad_settings", dim=7, base="10000")
