"""The "Relative positions" page under AppTest: renders at every widget's bounds, charts present, sliders move data."""

import numpy as np
import pytest
from conftest import decode, figures, payload_bytes

from ui.i18n import text
from ui.limits import LIMITS

PAGE = "pages/relative.py"
# chart order on the page: Shaw matrix, Shaw curve, T5 buckets, T5 bias, ALiBi slopes, ALiBi lines, ALiBi matrices
TRACE_TYPES = [["heatmap"], ["scatter"], ["scatter"], ["heatmap"], ["bar"], ["scatter"] * 8, ["heatmap"] * 2]
SHAW_MATRIX, SHAW_CURVE, T5_BUCKETS, T5_BIAS, ALIBI_SLOPES, ALIBI_LINES, ALIBI_MATRIX = range(7)


@pytest.fixture
def page(open_page):
    return open_page(PAGE)


def test_default_view_has_every_section(page):
    assert not page.exception
    assert page.title[0].value == "Relative positions"
    assert [[trace["type"] for trace in figure["data"]] for figure in figures(page)] == TRACE_TYPES
    assert [header.value.split(" (")[0] for header in page.subheader] == ["Shaw et al.", "T5", "ALiBi"]
    assert len(page.latex) >= 4
    assert len(page.expander) == 3  # a "show the code" per section
    assert len(page.dataframe) == 1 and len(page.dataframe[0].value) == 32
    assert any("What to notice" in caption.value for caption in page.caption)
    assert any("random and untrained" in caption.value for caption in page.caption)
    assert any("shared by all layers" in info.value for info in page.info)
    assert payload_bytes(page) <= 250_000


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("slider", "relative_shaw_k", 0),
        ("slider", "relative_shaw_k", 64),
        ("slider", "relative_t5_num_buckets", 4),
        ("slider", "relative_t5_num_buckets", 64),
        ("slider", "relative_t5_max_distance", 1024),
        ("toggle", "relative_t5_bidirectional", False),
        ("sidebar", "shared_length_widget", LIMITS.length_min),
        ("sidebar", "shared_length_widget", LIMITS.length_max),
        ("sidebar", "shared_heads_widget", LIMITS.heads_min),
        ("sidebar", "shared_heads_widget", LIMITS.heads_max),
    ],
)
def test_every_widget_bound_renders(page, kind, key, value):
    widget = page.sidebar.slider(key=key) if kind == "sidebar" else getattr(page, kind)(key=key)
    widget.set_value(value).run()
    assert not page.exception, page.exception
    assert not page.error
    assert len(figures(page)) == 7


def test_all_minimums_at_once_render(page):
    page.slider(key="relative_t5_num_buckets").set_value(4).run()
    page.slider(key="relative_t5_max_distance").set_value(2).run()
    page.slider(key="relative_shaw_k").set_value(0).run()
    page.sidebar.slider(key="shared_length_widget").set_value(LIMITS.length_min).run()
    page.sidebar.slider(key="shared_heads_widget").set_value(LIMITS.heads_min).run()
    assert not page.exception and not page.error
    assert len(page.dataframe[0].value) == 4


def test_maximum_settings_stay_within_the_payload_budget(page):
    page.sidebar.slider(key="shared_length_widget").set_value(LIMITS.length_max).run()
    page.sidebar.slider(key="shared_heads_widget").set_value(LIMITS.heads_max).run()
    page.slider(key="relative_t5_max_distance").set_value(1024).run()
    page.slider(key="relative_t5_num_buckets").set_value(64).run()
    assert not page.exception
    shown = figures(page)
    assert decode(shown[SHAW_MATRIX]["data"][0]["z"]).shape == (128, 128)  # a window, not 4096 × 4096
    assert "Window: positions 0–127 of 4096" in shown[SHAW_MATRIX]["layout"]["title"]["text"]
    assert payload_bytes(page) <= 1_500_000


@pytest.mark.parametrize("bidirectional", [True, False])
def test_largest_max_distance_at_default_sizes_stays_within_the_default_budget(page, bidirectional):
    page.toggle(key="relative_t5_bidirectional").set_value(bidirectional).run()
    page.slider(key="relative_t5_max_distance").set_value(1024).run()
    assert not page.exception
    assert payload_bytes(page) <= 250_000
    assert "drawn as one cell" in figures(page)[T5_BIAS]["layout"]["title"]["text"]  # the merge is labelled


@pytest.mark.parametrize(
    "max_distance, num_buckets, bidirectional",
    [(2, 32, True), (8, 32, True), (16, 32, False), (32, 64, False)],
)
def test_invalid_t5_combination_shows_a_message_and_keeps_the_rest(page, max_distance, num_buckets, bidirectional):
    page.toggle(key="relative_t5_bidirectional").set_value(bidirectional).run()
    page.slider(key="relative_t5_num_buckets").set_value(num_buckets).run()
    page.slider(key="relative_t5_max_distance").set_value(max_distance).run()
    assert not page.exception
    assert len(page.error) == 1 and "max_distance must be larger than the exact range" in page.error[0].value
    assert len(figures(page)) == 5  # the two T5 charts are gone; Shaw and ALiBi still show
    assert len(page.dataframe) == 0


@pytest.mark.parametrize(
    "kind, key, value, chart, field",
    [
        ("slider", "relative_shaw_k", 3, SHAW_MATRIX, "z"),
        ("slider", "relative_shaw_k", 3, SHAW_CURVE, "y"),
        ("slider", "relative_t5_num_buckets", 16, T5_BUCKETS, "y"),
        ("slider", "relative_t5_max_distance", 40, T5_BUCKETS, "x"),  # same buckets, new boundaries
        ("toggle", "relative_t5_bidirectional", False, T5_BUCKETS, "y"),
        ("slider", "relative_t5_num_buckets", 16, T5_BIAS, "z"),
        ("sidebar", "shared_length_widget", 100, SHAW_CURVE, "x"),
        ("sidebar", "shared_heads_widget", 12, ALIBI_SLOPES, "y"),
        ("sidebar", "shared_heads_widget", 4, T5_BIAS, "z"),
    ],
)
def test_moving_a_control_changes_the_chart(page, kind, key, value, chart, field):
    def shown():  # every trace of the chart, one after the other
        return np.concatenate([decode(trace[field]).ravel() for trace in figures(page)[chart]["data"]])

    before = shown()
    widget = page.sidebar.slider(key=key) if kind == "sidebar" else getattr(page, kind)(key=key)
    widget.set_value(value).run()
    after = shown()
    assert before.shape != after.shape or not np.array_equal(before, after)


def test_bucket_table_follows_the_sliders(page):
    page.slider(key="relative_t5_num_buckets").set_value(16).run()
    table = page.dataframe[0].value
    assert len(table) == 16
    assert table["region"].iloc[0] == "exact"


def test_non_power_of_two_heads_are_explained(page):
    page.sidebar.slider(key="shared_heads_widget").set_value(12).run()
    assert any("heads = 12 is not a power of two" in block.value for block in page.markdown)
    slopes = figures(page)[ALIBI_SLOPES]
    assert len(slopes["data"]) == 2  # the 8-head sequence, then every other slope of 16 heads
    assert len(figures(page)[ALIBI_LINES]["data"]) == 12


def test_a_shared_link_opens_this_view(open_page):
    at = open_page(PAGE, query={"length": "300", "heads": "6"})
    assert not at.exception and not at.warning
    assert at.sidebar.slider(key="shared_length_widget").value == 300
    assert at.sidebar.slider(key="shared_heads_widget").value == 6
    assert len(figures(at)[ALIBI_LINES]["data"]) == 6
    at.sidebar.slider(key="shared_heads_widget").set_value(9).run()
    assert at.query_params["heads"] == "9"


@pytest.mark.parametrize("query", [{"heads": "<b>x</b>"}, {"length": "10**9"}, {"heads": "99"}])
def test_hostile_links_open_this_page_with_sane_values(open_page, query):
    at = open_page(PAGE, query=query)  # the notice itself shows on the first page run (tests/test_app.py)
    assert not at.exception
    assert LIMITS.length_min <= at.sidebar.slider(key="shared_length_widget").value <= LIMITS.length_max
    assert LIMITS.heads_min <= at.sidebar.slider(key="shared_heads_widget").value <= LIMITS.heads_max
    assert len(figures(at)) == 7


def shown_texts(at) -> list[str]:
    """Every text the page writes itself: title, headers, markdown, captions, notices and widget labels and help."""
    blocks = [*at.title, *at.subheader, *at.markdown, *at.caption, *at.info, *at.error]
    widgets = [*at.slider, *at.toggle]
    return [block.value for block in blocks] + [w.label for w in widgets] + [w.help or "" for w in widgets]


@pytest.mark.parametrize("lang", ["ko", "zh"])
@pytest.mark.parametrize("heads", [8, 12])  # a power of two, and not: both slope notes
def test_the_page_reads_in_korean_and_chinese(open_page, lang, heads):
    english = open_page(PAGE, query={"heads": str(heads)})
    at = open_page(PAGE, query={"lang": lang, "heads": str(heads)})
    assert not at.exception
    assert at.title[0].value == text(lang, "relative.title")
    assert not [block for block in shown_texts(at) if "⟦" in block]
    assert [header.value for header in at.subheader] == [
        text(lang, f"relative.{name}_header") for name in ("shaw", "t5", "alibi")
    ]
    assert all(text(lang, "common.what_to_notice") in caption.value for caption in at.caption if "**" in caption.value)
    titles = [figure["layout"]["title"]["text"] for figure in figures(at)]
    english_titles = [figure["layout"]["title"]["text"] for figure in figures(english)]
    assert len(titles) == len(english_titles) == 7
    assert all(mine != theirs for mine, theirs in zip(titles, english_titles, strict=True))
    assert list(at.dataframe[0].value.columns)[-1] == text(lang, "relative.column_region")


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_t5_error_is_translated(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    at.slider(key="relative_t5_max_distance").set_value(2).run()
    assert not at.exception
    assert [error.value for error in at.error] == [text(lang, "relative.t5_error", max_exact=8, max_distance=2)]
