"""The long-range decay page under AppTest: every widget at its bounds, the charts it must show, live updates."""

import json

import numpy as np
import pytest
import torch
from conftest import captions, decode, figure_by_key, figures, live_data, payload_bytes, set_shared, tables
from live_views import live_json, view_pictures

from ui.component_data import sent_size
from ui.i18n import text
from ui.live import spread_evenly

PAGE = "pages/decay.py"
CHARTS = {  # chart key -> number of scatter traces at the default settings (the bound is a live chart)
    "decay_score_chart": 4,
    "decay_base_chart": 2,  # 10 000 and 500 000 (the shared base is 10 000)
    "decay_wavelength_chart": 2,
    "decay_ramp_chart": 3,  # YaRN's ramp: Hugging Face's, unrounded, the paper's
}


TITLE_KEYS = (  # catalog key of each Plotly chart's title at the default settings, in page order
    "score_title",
    "base_chart_title",
    "wavelength_title",
    "ramp_title",
)


def unwrapped(title: str) -> str:
    """A chart title without the line breaks figures.common.layout puts in long ones (and without spaces, which a
    break before a Chinese character does not keep)."""
    return title.replace("<br>", "").replace(" ", "")


def chart_titles(at) -> list[str]:
    return [unwrapped(figure["layout"]["title"]["text"]) for figure in figures(at)]


def title(lang: str, key: str) -> str:
    """A chart title as drawn at the default settings (the ramp's names the training length: 4,096, in zh 4 096)."""
    train = "4 096" if lang == "zh" else "4,096"
    return text(lang, f"decay.{key}", train=train) if key == "ramp_title" else text(lang, f"decay.{key}")


def test_default_page_shows_every_chart_formula_and_code(open_page):
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert at.title[0].value == "Long-range decay and context length"
    assert len(at.subheader) == 4  # precision, temperature and the KV cache: tests/test_page_inference.py
    assert [len(figure["data"]) for figure in figures(at)] == list(CHARTS.values())
    assert all(trace["type"] == "scatter" for figure in figures(at) for trace in figure["data"])
    assert len(at.latex) >= 4
    assert sum("What to notice" in caption for caption in captions(at)) == 5
    assert len(at.expander) == 4
    assert not [latex.value for latex in at.latex if any(ord(ch) < 32 and ch != "\n" for ch in latex.value)]  # no \t
    assert payload_bytes(at) < 250_000


def bound_curves(at, settings: list[dict]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(distances, bound) that the browser's view (static/views/decay_bound.js, run in Node) draws for the live
    bound chart at each of ``settings`` (control -> value; the others where the page drew them)."""
    pictures = view_pictures(live_json(at, "decay_bound_live"), settings)
    return [(picture["picked"]["distances"], picture["picked"]["bound"]) for picture in pictures]


def bound_curve(at, control: str = "base", value=10000.0):
    """(distances, bound) of the live bound chart with ``control`` at ``value``, the others where the page is."""
    return bound_curves(at, [{control: value}])[0]


def test_defaults_reproduce_roformer_figure_2(open_page):
    at = open_page(PAGE)
    x, y = bound_curve(at)
    assert x[0] == 0 and x[-1] == 256 and y.size == 128  # 128 distances drawn, spread over 0 … 256
    assert y[0] == pytest.approx(32.5)
    assert y[-1] == pytest.approx(6.54, abs=0.01)


def test_the_live_bound_is_roformers_bound_along_every_slider(open_page):
    """Every curve the browser draws, at any base, dim (not only a grid's) and max distance, equals
    posenc.rope_decay_bound (the reference by its [R, P] table) at the distances charts.decay draws."""
    import posenc
    from charts.decay import live_distances

    at = open_page(PAGE)
    settings = [{"base": b} for b in (10.0, 1000.0, 500000.0)] + [{"dim": d} for d in (2, 16, 202, 1024)]
    settings += [{"max_distance": m} for m in (16, 2048)] + [{"dim": 96, "base": 1000000.0, "max_distance": 8192}]
    for at_values, (x, y) in zip(settings, bound_curves(at, settings), strict=True):
        values = {"base": 10000.0, "dim": 128, "max_distance": 256} | at_values
        np.testing.assert_array_equal(x, live_distances(values["max_distance"], False))
        reference = posenc.rope_decay_bound(values["dim"], values["base"], values["max_distance"]).numpy()
        np.testing.assert_allclose(y, reference[x.astype(int)], rtol=1e-9)


def test_the_log_axis_draws_posencs_log_spaced_distances(open_page):
    """On a logarithmic axis the browser draws at the log-spaced distances charts.decay.live_distances picks."""
    from charts.decay import live_distances

    at = open_page(PAGE)
    at.toggle(key="decay_log_x").set_value(True).run()
    for max_distance in (16, 128, 256, 8192):
        x, _ = bound_curve(at, "max_distance", max_distance)
        np.testing.assert_array_equal(x, live_distances(max_distance, True))


def test_the_live_bound_sends_no_curve(open_page):
    """The server sends the chart's words and settings only: the browser computes every curve."""
    data = live_json(open_page(PAGE), "decay_bound_live")
    assert data["view"] == "decay_bound" and data["arrays"] == {}
    assert len(json.dumps(data)) < 4_000


@pytest.mark.parametrize("max_distance", [16, 8192])
def test_a_released_max_distance_reaches_the_score_chart(open_page, max_distance):
    at = open_page(PAGE, state={"decay_bound_live__values": {"max_distance": max_distance}})
    assert not at.exception, at.exception
    for key in ("decay_score_chart", "decay_base_chart"):  # the charts beside and below follow the release
        assert decode(figure_by_key(at, key)["data"][0]["x"])[-1] == max_distance
    assert live_data(at, "decay_bound_live")["server"]["max_distance"] == max_distance


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("slider", "decay_similarity", 0.0),
        ("slider", "decay_similarity", 1.0),
        ("toggle", "decay_log_x", True),
        ("select_slider", "decay_train", 256),
        ("select_slider", "decay_train", 131072),
        ("radio", "decay_ext_kind", "ones"),
    ],
)
def test_every_page_widget_at_its_bounds(open_page, kind, key, value):
    at = open_page(PAGE)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert len(figures(at)) == len(CHARTS)
    assert payload_bytes(at) < 1_500_000


@pytest.mark.parametrize("name, value", [("dim", 2), ("dim", 1024), ("base", 10.0), ("base", 1000000.0)])
def test_shared_controls_at_their_bounds(open_page, name, value):
    at = set_shared(open_page(PAGE), **{name: value})
    assert at.session_state[f"shared_{name}"] == value
    assert not at.exception, at.exception
    assert len(figures(at)) == len(CHARTS)


def test_everything_at_maximum_stays_within_the_payload_budget(open_page):
    extension = {"train": 32768, "factor": 32}
    state = {"shared_dim": 1024, "decay_bound_live__values": {"max_distance": 8192}}
    at = open_page(PAGE, state=state | {"decay_extension_live__values": extension})
    assert not at.exception, at.exception
    assert bound_curve(at)[0][-1] == 8192 and bound_curve(at)[0].size <= 128  # what is drawn, not every distance
    assert payload_bytes(at) < 1_500_000
    live = sum(sent_size(element.proto) for element in at.get("bidi_component"))
    assert live < 600_000, live  # both live charts: what a release re-sends at most


def test_similarity_slider_moves_the_random_mean(open_page):
    at = open_page(PAGE)
    before = decode(figure_by_key(at, "decay_score_chart")["data"][2]["y"])
    at.slider(key="decay_similarity").set_value(1.0).run()
    after = decode(figure_by_key(at, "decay_score_chart")["data"][2]["y"])
    assert abs(before[0]) < 10  # unrelated vectors: mean near 0
    assert after[0] == pytest.approx(128, rel=0.2)  # k = q: mean ≈ |q|² ≈ D


def test_log_toggle_switches_the_distance_axis(open_page):
    at = open_page(PAGE)
    at.toggle(key="decay_log_x").set_value(True).run()
    for key in ("decay_score_chart", "decay_base_chart"):
        assert figure_by_key(at, key)["layout"]["xaxis"]["type"] == "log"
    assert live_data(at, "decay_bound_live")["panels"][0]["log_x"] is True


def test_training_length_moves_pairs_between_groups(open_page):
    at = open_page(PAGE)
    counts = [decode(trace["x"]).size for trace in figure_by_key(at, "decay_wavelength_chart")["data"]]
    assert counts == [46, 18]  # d = 128, base = 10 000, L = 4096
    at.select_slider(key="decay_train").set_value(131072).run()
    counts = [decode(trace["x"]).size for trace in figure_by_key(at, "decay_wavelength_chart")["data"]]
    assert counts[0] > 46 and sum(counts) == 64


def extension(at, control: str | None = None, value=None, **others) -> dict:
    """The arrays the browser's view (static/views/decay_extension.js, run in Node) draws for the live
    context-extension chart with ``control`` (train or factor) at ``value`` and ``others`` (e.g. the dim and base it
    follows), the rest where the page drew them."""
    settings = others | ({control: value} if control else {})
    return view_pictures(live_json(at, "decay_extension_live"), [settings])[0]["picked"]


EXTENSION_CASES = [{"train": 256}, {"train": 32768}, {"factor": 1}, {"factor": 32},
                   {"dim": 96, "base": 500000.0, "train": 8192, "factor": 4}, {"dim": 2, "factor": 2},
                   {"dim": 1022, "base": 10.0, "train": 256, "factor": 32}]  # fmt: skip


@pytest.mark.parametrize("settings", EXTENSION_CASES, ids=str)
def test_the_live_extension_is_posencs_scaling_at_any_setting(open_page, settings):
    """Every picture the browser draws, at the chart's sliders and at any dim and base of the sidebar it follows:
    θ'/θ per method and the decay curves, as posenc computes them."""
    import posenc

    at = open_page(PAGE)
    picture = extension(at, **settings)
    chosen = {"train": 4096, "factor": 8, "dim": 128, "base": 10000.0} | settings
    train, factor, dim, base = chosen["train"], chosen["factor"], chosen["dim"], chosen["base"]
    target = int(train * factor)
    assert picture["train_length"][0] == train and picture["target"][0] == target
    methods = posenc.decay.rope_context_extension(dim, base, train, target)
    original = methods["original"][0].numpy()
    drawn = spread_evenly(0, dim // 2 - 1, 128)  # the pairs drawn, as the server's sampling picks them
    np.testing.assert_allclose(picture["wavelength"], 2 * np.pi / original[drawn], rtol=1e-12)
    for method, (theta, _) in methods.items():
        np.testing.assert_allclose(picture[f"ratio_{method}"], theta.numpy()[drawn] / original[drawn], rtol=1e-9)
    distances = picture["distances"].astype(int)
    assert distances[0] == 0 and distances[-1] == target and distances.size <= 128
    for method, (theta, scale) in methods.items():
        reference = posenc.decay.rope_decay_bound_at(torch.from_numpy(distances), theta).numpy() * scale**2
        np.testing.assert_allclose(picture[f"decay_{method}"], reference, rtol=1e-9, atol=1e-9 * dim)


def test_linear_interpolation_divides_every_frequency_by_the_factor(open_page):
    at = open_page(PAGE)
    for factor in (1, 2, 8, 32):
        np.testing.assert_allclose(extension(at, "factor", factor)["ratio_linear"], 1 / factor, rtol=1e-6)


def test_curve_kind_switches_to_the_all_ones_score(open_page):
    at = open_page(PAGE)
    at.radio(key="decay_ext_kind").set_value("ones").run()
    data = live_data(at, "decay_extension_live")
    assert "all ones" in data["panels"][1]["words"]["y"]
    assert extension(at, "factor", 8)["decay_original"][0] == pytest.approx(128)  # original: D at r = 0


def test_a_released_extension_is_kept_and_drawn_around(open_page):
    at = open_page(PAGE, state={"decay_extension_live__values": {"train": 8192, "factor": 8}})  # Llama 3.1
    assert not at.exception, at.exception
    data = live_data(at, "decay_extension_live")
    assert data["server"] == {"train": 8192, "factor": 8}
    assert extension(at, "train", 8192)["target"][0] == 65536


def test_shared_base_changes_the_bound_and_joins_the_comparison(open_page):
    at = open_page(PAGE)
    before = live_data(at, "decay_bound_live")
    set_shared(at, base=100.0)
    after = live_data(at, "decay_bound_live")
    assert before["server"]["base"] == 10000.0 and after["server"]["base"] == 100.0
    assert not np.allclose(bound_curve(at, "base", 10000.0)[1], bound_curve(at, "base", 100.0)[1])
    assert [trace["name"] for trace in figure_by_key(at, "decay_base_chart")["data"]] == [
        "base 10,000",
        "base 500,000",
        "base 100",
    ]


def test_a_shared_link_sets_dim(open_page):
    at = open_page(PAGE, query={"dim": "16"})
    assert not at.exception
    assert live_data(at, "decay_bound_live")["server"]["dim"] == 16
    assert bound_curve(at)[1][0] == pytest.approx(4.5)  # (1/8)·Σ_{j=1}^{8} j
    assert at.query_params["dim"] == "16"


def test_random_band_is_exact_at_defaults(open_page):
    """ρ = 0: the mean over random q, k is 0 and the spread is √d at every distance (exact, not sampled)."""
    at = open_page(PAGE)
    band = figure_by_key(at, "decay_score_chart")["data"]
    np.testing.assert_allclose(decode(band[2]["y"]), 0.0, atol=1e-6)
    np.testing.assert_allclose(decode(band[2]["customdata"]), np.sqrt(128), rtol=1e-6)


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_reads_in_another_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception, at.exception
    assert at.title[0].value == text(lang, "decay.title")
    texts = [
        element.value for kind in ("markdown", "caption", "title", "subheader", "latex") for element in at.get(kind)
    ]
    widgets = [*at.slider, *at.select_slider, *at.toggle, *at.radio]
    texts += [widget.label for widget in widgets] + list(at.radio(key="decay_ext_kind").options)
    assert not [value for value in texts if "⟦" in value]
    assert sum(text(lang, "common.what_to_notice") in caption for caption in captions(at)) == 5
    english = [title("en", key) for key in TITLE_KEYS]
    assert chart_titles(at) == [unwrapped(title(lang, key)) for key in TITLE_KEYS]
    assert all(title != english_title for title, english_title in zip(chart_titles(at), english, strict=True))
    assert "⟦" not in "".join(json.dumps(figure, ensure_ascii=False) for figure in figures(at))


def test_switching_language_never_serves_a_cached_chart_of_the_other_language(open_page):
    """The built figures are cached by their inputs; the chart words are one of them."""
    at = open_page(PAGE)
    english = chart_titles(at)
    at.get("button_group")[0].set_value("ko").run()
    assert chart_titles(at) == [unwrapped(title("ko", key)) for key in TITLE_KEYS]
    names = [text("ko", "decay.base_curve", base=base) for base in ("10,000", "500,000")]
    assert [trace["name"] for trace in figure_by_key(at, "decay_base_chart")["data"]] == names
    at.get("button_group")[0].set_value("en").run()
    assert chart_titles(at) == english


def test_switching_language_keeps_the_chosen_decay_curve(open_page):
    at = open_page(PAGE)
    at.radio(key="decay_ext_kind").set_value("ones").run()
    at.get("button_group")[0].set_value("zh").run()
    assert not at.exception, at.exception
    assert at.radio(key="decay_ext_kind").value == "ones"
    assert live_data(at, "decay_extension_live")["panels"][1]["words"]["title"] == text(
        "zh", "decay.extension_title_ones"
    )


def test_the_raised_base_table_is_posencs(open_page):
    """d = 128: base 10 000's longest wavelength is 2π·10000^(126/128) ≈ 54 410; Code Llama's far half keeps a clear
    all-ones score where base 10 000 averages below 0."""
    import math

    from posenc.decay import rope_ones_score_at
    from posenc.rope import rope_inv_freq

    at = open_page(PAGE)
    rows = tables(at)[0].rows
    assert rows[0][3] == f"{2 * math.pi * 10000 ** (126 / 128):,.0f}" == "54,410"
    far = rope_ones_score_at(torch.arange(8192, 16385), rope_inv_freq(128, 1e6, torch.float64)).mean().item()
    assert rows[1][5] == f"{far:.1f}" and float(rows[1][6]) < 0 < far


def test_the_ramp_chart_is_posencs_yarn_ramp_at_the_released_training_length(open_page):
    from posenc.rope_scaling import yarn_ramp

    at = open_page(PAGE, state={"decay_extension_live__values": {"train": 8192, "factor": 8}})
    traces = figure_by_key(at, "decay_ramp_chart")["data"]
    for trace, form in zip(traces, ("huggingface", "unrounded", "paper"), strict=True):
        np.testing.assert_allclose(decode(trace["y"]), yarn_ramp(128, 10000.0, 8192, form=form).numpy(), atol=1e-6)
