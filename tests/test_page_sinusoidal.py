"""The sinusoidal page under AppTest: renders at every widget's extremes, draws its charts, reacts to its widgets."""

import numpy as np
import pytest
from conftest import decode, figure_by_key, figures, live_data, payload_bytes

from ui.i18n import text

PAGE = "pages/sinusoidal.py"
CHART_KEYS = [
    "sin_waves_chart",
    "sin_wavelength_chart",
    "sin_similarity_row_chart",
    "sin_shift_matrix_chart",
    "sin_shift_residual_chart",
    "sin_naive_chart",
    "sin_cosine_chart",
    "sin_learned_chart",
]
TRACE_TYPES = [
    ["scatter"] * 4,  # dimensions 0, 1, d/4, d/2 at the default d = 128
    ["scatter"],
    ["scatter", "scatter"],
    ["heatmap"],
    ["scatter"],
    ["scatter"] * 5,
    ["histogram"] * 5,  # d = 2, 8, 32, 128, 512 (the default d = 128 is among them)
    ["bar", "bar"],
]
MAX_QUERY = {"dim": "1024", "length": "4096", "base": "1000000"}


def test_default_view_has_every_chart_with_its_trace_types(open_page):
    at = open_page(PAGE)
    assert not at.exception
    assert at.title[0].value == "Sinusoidal absolute encoding"
    assert len(at.subheader) == 7 and len(at.latex) == 7 and len(at.expander) == 7
    assert [[trace["type"] for trace in figure["data"]] for figure in figures(at)] == TRACE_TYPES
    assert [figure_by_key(at, key)["data"][0]["type"] for key in CHART_KEYS] == [types[0] for types in TRACE_TYPES]
    assert not at.error and payload_bytes(at) <= 250_000
    assert live_data(at, "sin_table_live")["view"] == "sinusoid_table"  # the table and PE·PEᵀ are live charts
    assert live_data(at, "sin_similarity_live")["view"] == "sinusoid_similarity"


@pytest.mark.parametrize(
    "query",
    [
        {"dim": "2", "length": "2", "base": "10"},
        MAX_QUERY,
        {"dim": "2", "length": "4096", "base": "1000000"},
        {"dim": "1024", "length": "2", "base": "10"},
    ],
)
def test_renders_at_the_extremes_of_the_shared_controls(open_page, query):
    at = open_page(PAGE, query=query)
    assert not at.exception and not at.warning
    assert len(figures(at)) == len(CHART_KEYS)
    assert payload_bytes(at) <= 1_500_000
    assert float(at.metric[0].value) < 1e-6  # the shift residual stays rounding noise


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("radio", "sin_layout", "interleaved"),
        ("radio", "sin_layout", "concat"),
        ("multiselect", "sin_wave_dims", []),
        ("multiselect", "sin_wave_dims", [127]),
        ("slider", "sin_sim_row", 0),
        ("slider", "sin_sim_row", 63),
        ("slider", "sin_shift_k", 0),
        ("slider", "sin_shift_k", 256),
        ("slider", "sin_naive_short", 2),
        ("slider", "sin_naive_short", 64),
        ("slider", "sin_learned_max_len", 2),
        ("slider", "sin_learned_max_len", 1024),
        ("slider", "sin_learned_position", 0),
        ("slider", "sin_learned_position", 2048),
    ],
)
def test_every_page_widget_at_its_extremes(open_page, kind, key, value):
    at = open_page(PAGE)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert getattr(at, kind)(key=key).value == value


@pytest.mark.parametrize("key, value", [("sin_shift_k", 256), ("sin_sim_row", 4095), ("sin_naive_short", 64)])
def test_page_widgets_at_max_with_the_largest_table(open_page, key, value):
    at = open_page(PAGE, query=MAX_QUERY)
    at.slider(key=key).set_value(value).run()
    assert not at.exception and payload_bytes(at) <= 1_500_000


@pytest.mark.parametrize(
    "kind, key, value, chart_key, field",
    [
        ("multiselect", "sin_wave_dims", [5], "sin_waves_chart", "y"),
        ("slider", "sin_sim_row", 3, "sin_similarity_row_chart", "y"),
        ("slider", "sin_shift_k", 9, "sin_shift_matrix_chart", "z"),
        ("slider", "sin_shift_k", 9, "sin_shift_residual_chart", "y"),
        ("slider", "sin_naive_short", 20, "sin_naive_chart", "y"),
        ("slider", "sin_learned_position", 7, "sin_learned_chart", "y"),
    ],
)
def test_moving_a_widget_changes_its_chart(open_page, kind, key, value, chart_key, field):
    at = open_page(PAGE)
    before = [decode(trace[field]) for trace in figure_by_key(at, chart_key)["data"]]
    getattr(at, kind)(key=key).set_value(value).run()
    after = [decode(trace[field]) for trace in figure_by_key(at, chart_key)["data"]]
    assert not at.exception
    assert len(before) != len(after) or any(
        a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(before, after, strict=True)
    )


@pytest.mark.parametrize("name, value", [("dim", 16), ("length", 300), ("base", 100.0)])
def test_moving_a_shared_control_moves_the_live_table(open_page, name, value):
    at = open_page(PAGE)
    before = live_data(at, "sin_table_live")
    widget = at.sidebar.select_slider if name == "base" else at.sidebar.slider
    widget(key=f"shared_{name}_widget").set_value(value).run()
    after = live_data(at, "sin_table_live")
    assert not at.exception
    assert after["server"][name] == value and before["server"][name] != value
    if name != "length":  # the frequencies along the other slider are those of the new value
        changed = "omega_by_dim" if name == "base" else "omega_by_base"
        assert before["arrays"][changed].shape != after["arrays"][changed].shape or not np.array_equal(
            before["arrays"][changed], after["arrays"][changed]
        )


def test_the_layout_choice_reaches_the_live_table(open_page):
    at = open_page(PAGE)
    assert live_data(at, "sin_table_live")["layout"] == "interleaved"
    at.radio(key="sin_layout").set_value("concat").run()
    assert live_data(at, "sin_table_live")["layout"] == "concat"


def test_the_table_shown_is_the_sinusoid_and_the_similarity_diagonal_is_half_the_dim(open_page):
    """The live table's data, drawn by the browser's documented step sin / cos(p·ω_i) (static/live.js), is the
    paper's sinusoid at every base of its slider and every dim of its dim slider."""
    at = open_page(PAGE, query={"dim": "16", "length": "40", "base": "10000"})
    data = live_data(at, "sin_table_live")
    assert data["server"] == {"base": 10000.0, "dim": 16, "length": 40}
    bases, dims = data["controls"]["base"]["values"], data["controls"]["dim"]["values"]
    by_base = data["arrays"]["omega_by_base"].reshape(len(bases), 8)
    for base, omega in zip(bases, by_base, strict=True):
        np.testing.assert_allclose(omega, float(base) ** (-np.arange(0, 16, 2) / 16), rtol=1e-15)
    start = data["offsets"]["omega_by_dim"]
    for dim, first in zip(dims, start, strict=True):
        omega = data["arrays"]["omega_by_dim"][first : first + dim // 2]
        np.testing.assert_allclose(omega, 10000.0 ** (-np.arange(0, dim, 2) / dim), rtol=1e-15)
    omega = by_base[bases.index(10000.0)]
    angles = np.arange(40)[:, None] * omega[None, :]  # the browser's step, interleaved: sin, cos, sin, cos, …
    positions, pairs = np.arange(40)[:, None], np.arange(8)[None, :]
    np.testing.assert_allclose(np.sin(angles), np.sin(positions / 10000.0 ** (2 * pairs / 16)), atol=1e-12)


def test_the_live_similarity_is_the_gram_matrix_of_the_table(open_page):
    """S[p, q] = s(|q − p|) from the live data (what static/live.js picks) equals PE(p)·PE(q) by dot products, along
    the base slider, the dim slider and the length slider."""
    at = open_page(PAGE, query={"dim": "16", "length": "40", "base": "10000"})
    data = live_data(at, "sin_similarity_live")
    assert data["view"] == "sinusoid_similarity" and data["server"] == {"base": 10000.0, "dim": 16, "length": 40}
    bases, dims = data["controls"]["base"]["values"], data["controls"]["dim"]["values"]
    by_base = data["arrays"]["sums_by_base"].reshape(len(bases), 40)  # stride 1: every offset below 40
    by_dim = data["arrays"]["sums_by_dim"].reshape(len(dims), 40)

    def gram(dim: int, base: float, length: int) -> np.ndarray:  # by dot products of the paper's table
        p, i = np.arange(length)[:, None], np.arange(dim // 2)[None, :]
        table = np.empty((length, dim))
        table[:, 0::2], table[:, 1::2] = np.sin(p * base ** (-2 * i / dim)), np.cos(p * base ** (-2 * i / dim))
        return table @ table.T

    offsets = np.abs(np.arange(40)[:, None] - np.arange(40)[None, :])
    for k in (0, 6, 18, 28):
        np.testing.assert_allclose(by_base[k][offsets], gram(16, bases[k], 40), rtol=1e-5, atol=1e-5)
    for j in (0, 4, 9, len(dims) - 1):
        np.testing.assert_allclose(by_dim[j][offsets], gram(dims[j], 10000.0, 40), rtol=1e-5, atol=1e-4)
    every = data["arrays"]["sums_by_length"]  # s(k) for every k below the longest length
    assert every.shape == (4096,)
    np.testing.assert_allclose(every[np.abs(np.arange(300)[:, None] - np.arange(300)[None, :])],
                               gram(16, 10000.0, 300), rtol=1e-5, atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(np.diag(by_base[bases.index(10000.0)][offsets]), 8.0, rtol=1e-6)  # |PE(p)|² = D/2


def test_wave_choice_survives_a_smaller_dim(open_page):
    at = open_page(PAGE)
    at.multiselect(key="sin_wave_dims").set_value([3, 100]).run()
    at.sidebar.slider(key="shared_dim_widget").set_value(16).run()
    assert not at.exception
    assert at.multiselect(key="sin_wave_dims").value == [3]
    assert len(figure_by_key(at, "sin_waves_chart")["data"]) == 1


def test_no_dimension_chosen_shows_a_hint_not_a_chart(open_page):
    at = open_page(PAGE)
    at.multiselect(key="sin_wave_dims").set_value([]).run()
    assert not at.exception
    assert any("at least one dimension" in info.value for info in at.info)
    assert len(figures(at)) == len(CHART_KEYS) - 1


@pytest.mark.parametrize("max_len, position, refused", [(512, 511, False), (512, 512, True), (2, 2048, True)])
def test_learned_table_has_no_vector_past_its_maximum(open_page, max_len, position, refused):
    at = open_page(PAGE)
    at.slider(key="sin_learned_max_len").set_value(max_len).run()
    at.slider(key="sin_learned_position").set_value(position).run()
    assert not at.exception
    learned = figure_by_key(at, "sin_learned_chart")
    assert len(learned["data"]) == (1 if refused else 2)
    if refused:
        assert len(at.error) == 1 and f"no vector for position {position}" in at.error[0].value
    else:
        assert not at.error


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_reads_in_each_language(open_page, lang):
    english = open_page(PAGE)
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "sinusoidal.title")
    texts = [element.value for group in (at.title, at.subheader, at.markdown, at.caption, at.info) for element in group]
    texts += [at.radio(key="sin_layout").label, *at.radio(key="sin_layout").options]
    texts += [widget.label for widget in (*at.slider, at.multiselect(key="sin_wave_dims"), *at.metric)]
    assert texts and not [value for value in texts if "⟦" in value]
    for key in CHART_KEYS:
        title = figure_by_key(at, key)["layout"]["title"]["text"]
        assert "⟦" not in title and title != figure_by_key(english, key)["layout"]["title"]["text"], key


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_refusal_of_the_learned_table_is_in_the_language_of_the_page(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    at.slider(key="sin_learned_position").set_value(600).run()
    assert [error.value for error in at.error] == [
        text(lang, "sinusoidal.learned_refused", last=511, max_len=512, position=600)
    ]
