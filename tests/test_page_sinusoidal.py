"""The sinusoidal page under AppTest: renders at every widget's extremes, draws its charts, reacts to its widgets."""

import numpy as np
import pytest
from conftest import (
    captions,
    decode,
    figure_by_key,
    figures,
    live_data,
    live_picture,
    markdowns,
    payload_bytes,
    set_shared,
    shown_texts,
    words_parts,
)
from live_views import live_json, view_picture, view_pictures

from charts import cosine_table
from charts import sinusoidal as charts_sinusoidal
from posenc.absolute import embedding_pe_cosines, integer_positions, normalized_positions, sinusoidal
from ui.component_data import sent_size
from ui.i18n import text
from ui.limits import LIMITS

PAGE = "pages/sinusoidal.py"
CHART_KEYS = [
    "sin_waves_chart",
    "sin_wavelength_chart",
    "sin_similarity_row_chart",
    "sin_shift_matrix_chart",
    "sin_shift_residual_chart",
    "sin_scale_chart",
    "sin_learned_chart",
]
TRACE_TYPES = [
    ["scatter"] * 4,  # dimensions 0, 1, d/4, d/2 at the default d = 128
    ["scatter"],
    ["scatter", "scatter"],
    ["heatmap"],
    ["scatter"],
    ["scatter"] * 4,  # ×√d: cos(x, word) and cos(x, PE) with c = 1 and c = √d
    ["bar", "bar"],
]
MAX_QUERY = {"dim": "1024", "length": "4096", "base": "1000000"}


def test_default_view_has_every_chart_with_its_trace_types(open_page):
    at = open_page(PAGE)
    assert not at.exception
    assert at.title[0].value == "Sinusoidal absolute encoding"
    assert len(at.subheader) == 7 and len(at.latex) == 8 and len(at.expander) == 8
    assert [[trace["type"] for trace in figure["data"]] for figure in figures(at)] == TRACE_TYPES
    assert [figure_by_key(at, key)["data"][0]["type"] for key in CHART_KEYS] == [types[0] for types in TRACE_TYPES]
    assert not at.error and payload_bytes(at) <= 250_000
    assert live_data(at, "sin_table_live")["view"] == "sinusoid_table"  # the table and PE·PEᵀ are live charts
    assert live_data(at, "sin_similarity_live")["view"] == "sinusoid_similarity"
    assert live_data(at, "sin_naive_live")["view"] == "sinusoidal_naive"  # drawn by static/views/sinusoidal_naive.js
    assert live_data(at, "sin_cosine_live")["view"] == "slices"


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
    largest = next(text for text in markdowns(at) if "M_k·PE(p)|" in text)  # ui.words: "…: **1.2e-07**"
    assert float(largest.rsplit("**", 2)[1]) < 1e-6  # the shift residual stays rounding noise


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


@pytest.mark.parametrize("key, value", [("sin_shift_k", 256), ("sin_sim_row", 4095)])
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
    set_shared(at, **{name: value})
    after = live_data(at, "sin_table_live")
    assert not at.exception
    assert after["server"][name] == value and before["server"][name] != value


def test_the_layout_choice_reaches_the_live_table(open_page):
    at = open_page(PAGE)
    assert live_data(at, "sin_table_live")["layout"] == "interleaved"
    at.radio(key="sin_layout").set_value("concat").run()
    assert live_data(at, "sin_table_live")["layout"] == "concat"


@pytest.mark.parametrize("key", ["sin_table_live", "sin_similarity_live"])
def test_the_table_and_its_gram_matrix_are_computed_in_the_browser(open_page, key):
    """The live table and PE·PEᵀ carry no numbers: the browser computes ω and s(k) with posenc's twins
    (static/twins.js, held to posenc by tests/test_twins.py), so a release of base, dim or length sends only words."""
    at = open_page(PAGE, query={"dim": "1024", "length": "4096", "base": "500000"})
    data = live_data(at, key)
    assert data["arrays"] == {}
    assert data["server"] == {"base": 500000.0, "dim": 1024, "length": 4096}
    assert sum(sent_size(e.proto) for e in at.get("bidi_component") if e.proto.id.endswith(key)) < 4000


def test_wave_choice_survives_a_smaller_dim(open_page):
    at = open_page(PAGE)
    at.multiselect(key="sin_wave_dims").set_value([3, 100]).run()
    set_shared(at, dim=16)
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
    texts += [widget.label for widget in (*at.slider, at.multiselect(key="sin_wave_dims"))]
    texts += shown_texts(words_parts(at))
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


# --- "why not 0, 1, 2" and "why add", live -------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_the_live_naive_chart_is_integers_normalised_positions_and_the_sinusoid(open_page, layout):
    """What the browser computes (the view run in Node on the sent data, which holds no numbers): p, p / (L − 1)
    for every short length of its slider and long lengths of the length slider and beyond it, and the sinusoid
    sin(p·ω) of the pair drawn, the table's column, at the base the sidebar's thumb is on."""
    at = open_page(PAGE, query={"dim": "64", "length": "300", "base": "10000"})
    at.radio(key="sin_layout").set_value(layout).run()
    data = live_json(at, "sin_naive_live")
    assert data["server"] == {"short": 5, "length": 300} and data["arrays"] == {}
    assert data["controls"]["short"]["values"] == list(range(2, 65))
    lengths = data["controls"]["length"]["values"]
    assert lengths[0] == 2 and lengths[-1] == 4096 and 300 in lengths and len(lengths) <= 30
    pictures = view_pictures(data, [{"short": short} for short in (2, 5, 17, 64)])
    for short, picture in zip((2, 5, 17, 64), pictures, strict=True):
        x, y = (picture["panels"][1]["series"][1][axis] for axis in "xy")
        np.testing.assert_array_equal(x, np.arange(short))
        np.testing.assert_array_equal(y, normalized_positions(short)[:, 0].numpy())  # float32, as posenc's
    every = (2, 3, 48, 300, 1000, 1536, 4096)  # 1000: off the length slider's grid (the sidebar's thumb)
    for length, picture in zip(every, view_pictures(data, [{"length": n} for n in every]), strict=True):
        integers, normalised = picture["panels"][0]["series"][0], picture["panels"][1]["series"][0]
        positions = integers["x"].astype(np.int64)
        assert positions[0] == 0 and positions[-1] == length - 1 and 1 in positions
        assert len(positions) <= 65 and np.all(np.diff(positions) > 0)
        if length <= 64:
            np.testing.assert_array_equal(positions, np.arange(length))  # every position of a short input
        np.testing.assert_array_equal(integers["y"], integer_positions(length)[positions, 0].numpy())
        np.testing.assert_array_equal(normalised["y"], normalized_positions(length)[positions, 0].numpy())
        assert picture["picked"]["last"][0] == length - 1
    pair = 64 // 2 // 4
    column = 2 * pair if layout == "interleaved" else pair
    assert data["panel_words"]["sinusoid"]["title"] == f"sinusoid PE(p, {column})"
    for base in (10000.0, 500000.0, 1234.5):
        sinusoid = view_picture(data, base=base)["panels"][2]["series"][0]
        table = sinusoidal(300, 64, base, layout=layout).numpy()
        np.testing.assert_allclose(sinusoid["y"], table[sinusoid["x"].astype(np.int64), column], atol=2e-6)


def test_a_released_short_length_reaches_the_notice(open_page):
    at = open_page(PAGE, state={"sin_naive_live__values": {"short": 20}})
    assert not at.exception
    assert live_data(at, "sin_naive_live")["server"]["short"] == 20
    notice = next(caption for caption in captions(at) if "token 1 gets" in caption)
    assert "0.0526 in the 20-token sentence" in notice and "0.0159 in the 64-token one" in notice  # 1/19, 1/63
    assert "integers reach 63" in notice


@pytest.mark.parametrize("short", [2, 64])
def test_released_short_lengths_at_the_extremes_with_the_largest_table(open_page, short):
    at = open_page(PAGE, query=MAX_QUERY, state={"sin_naive_live__values": {"short": short}})
    assert not at.exception and payload_bytes(at) <= 1_500_000
    assert live_data(at, "sin_naive_live")["server"] == {"short": short, "length": 4096}


def cosine_histogram(dim: int) -> tuple[np.ndarray, float]:
    """Densities of posenc's seeded cosines (positions below 512, base 10 000) in 100 bins of 0.02 over [−1, 1], and
    their standard deviation."""
    cosines = embedding_pe_cosines((dim,), samples=4000, max_position=512, base=10000.0, seed=0)[0].numpy()
    counts, _ = np.histogram(cosines, bins=np.linspace(-1, 1, 101))
    return counts / (4000 * 0.02), float(cosines.std())


def test_the_live_cosines_are_posencs_histogram_at_every_dim(open_page):
    at = open_page(PAGE, query={"dim": "64", "length": "100", "base": "10000"})
    data = live_data(at, "sin_cosine_live")
    dims = data["controls"]["dim"]["values"]
    assert data["server"] == {"dim": 64} and dims[0] == 2 and dims[-1] == 1024 and 64 in dims
    centres, spreads = data["arrays"]["cosine"], data["arrays"]["spreads"]
    np.testing.assert_allclose(centres, np.linspace(-0.99, 0.99, 100), atol=1e-6)
    np.testing.assert_allclose(data["arrays"]["inverse_sqrt"], 1 / np.sqrt(dims), rtol=1e-6)
    for dim in (2, 8, 64, 384, 1024):
        density, spread = cosine_histogram(dim)
        picture = live_picture(data, "dim", dim)
        np.testing.assert_allclose(picture["density"], density, rtol=1e-6)
        assert picture["density"].sum() * 0.02 == pytest.approx(1.0, abs=1e-5)  # every sample in a bin
        np.testing.assert_allclose(picture["normal"], np.sqrt(dim / 2 / np.pi) * np.exp(-dim * centres**2 / 2),
                                   rtol=1e-5, atol=1e-6)  # fmt: skip
        np.testing.assert_allclose([picture["spread"][0], spreads[dims.index(dim)]], spread, rtol=1e-6)
        assert picture["dim_mark"][0] == dim
        if dim >= 64:  # the spread shrinks like 1/√d
            assert spread == pytest.approx(1 / np.sqrt(dim), rel=0.1)


def test_the_shipped_cosine_table_is_posencs_histogram_at_every_dim_the_sidebar_sets():
    """assets/add_cosines.npz (charts.cosine_table) has a row for every dim the sidebar can set, and the rows are
    posenc's histogram: here at dims drawn at random (a new draw each run would make a failure hard to repeat: the
    seed is fixed), beside the five the live chart's test reads."""
    table = cosine_table.read_table()
    assert table["dims"].tolist() == list(range(LIMITS.dim_min, LIMITS.dim_max + 1, LIMITS.dim_step))
    assert table["counts"].shape == (len(table["dims"]), 100) and (table["counts"].sum(axis=1) == 4000).all()
    for dim in np.random.default_rng(35).choice(table["dims"], size=6, replace=False):
        density, spread = cosine_histogram(int(dim))
        row = int(np.flatnonzero(table["dims"] == dim)[0])
        np.testing.assert_array_equal(table["counts"][row] / (4000 * 0.02), density)
        assert table["spreads"][row] == pytest.approx(spread, rel=1e-12)


def test_a_missing_or_broken_cosine_table_reads_as_empty_and_the_chart_counts_the_dim_itself(tmp_path, monkeypatch):
    assert cosine_table.read_table(tmp_path / "none.npz")["dims"].size == 0
    (tmp_path / "bad.npz").write_bytes(b"not a table")
    (tmp_path / "cut.npz").write_bytes(cosine_table.TABLE_FILE.read_bytes()[:5000])  # a zip cut short
    np.savez(tmp_path / "odd.npz", dims=np.arange(2, 8, 2), counts=np.zeros((2, 100)), spreads=np.zeros(3))
    for name in ("bad", "cut", "odd"):
        assert cosine_table.read_table(tmp_path / f"{name}.npz")["counts"].shape == (0, 100), name
    monkeypatch.setattr(charts_sinusoidal, "shipped_cosines", lambda: cosine_table.read_table(tmp_path / "none.npz"))
    counts, spread = charts_sinusoidal.cosine_counts(6)
    density, want = cosine_histogram(6)
    np.testing.assert_array_equal(counts / (4000 * 0.02), density)
    assert spread == pytest.approx(want, rel=1e-12)


def test_moving_the_shared_dim_moves_the_live_cosines(open_page):
    at = open_page(PAGE)
    set_shared(at, dim=48)
    data = live_data(at, "sin_cosine_live")
    assert not at.exception and data["server"] == {"dim": 48}
    np.testing.assert_allclose(live_picture(data, "dim", 48)["density"], cosine_histogram(48)[0],
                               rtol=1e-6)  # fmt: skip


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_live_naive_and_cosine_charts_read_in_each_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    naive, cosines = live_data(at, "sin_naive_live"), live_data(at, "sin_cosine_live")
    words = [*naive["words"].values(), *naive["names"].values(), *naive["readouts"], *cosines["words"].values()]
    words += [word for panel in naive["panel_words"].values() for word in panel.values()]
    words += [word for panel in cosines["panels"] for word in (*panel["words"].values(), *panel_names(panel))]
    assert words and not [word for word in words if "⟦" in word]
    assert naive["words"]["short"] == text(lang, "sinusoidal.naive_short_label")
    assert cosines["readouts"] == [text(lang, "sinusoidal.cosine_live_readout")]


def panel_names(panel: dict) -> list[str]:
    return [line["name"] for line in panel["series"] if "name" in line]


def test_the_sqrt_d_chart_and_its_checkpoint(open_page):
    """c = 1: cos(x, PE) → 1 and cos(x, word) → 1/√(1 + d/2) as d grows; c = √d: √(2/3) and √(1/3) at every width
    (|c·w|² ≈ d, |PE|² = d/2). The checkpoint's right share at d = 512 is 1/(1 + 256) ≈ 0.4 %."""
    at = open_page(PAGE)
    traces = figure_by_key(at, "sin_scale_chart")["data"]
    dims = np.asarray(decode(traces[0]["x"]), dtype=float)
    plain_word, plain_pe, scaled_word, scaled_pe = (np.asarray(decode(t["y"]), dtype=float) for t in traces)
    np.testing.assert_allclose(plain_word[-3:], 1 / np.sqrt(1 + dims[-3:] / 2), rtol=0.1)
    assert plain_pe[-1] > 0.99
    np.testing.assert_allclose(scaled_word[-3:], np.sqrt(2 / 3), atol=0.02)
    np.testing.assert_allclose(scaled_pe[-3:], np.sqrt(1 / 3), atol=0.02)
    assert at.radio(key="cp_sin_scale_choice").options == ["About 0.4 %", "About 50 %", "About 67 %"]
