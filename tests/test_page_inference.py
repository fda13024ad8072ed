"""The page "RoPE at inference time" under AppTest: precision, attention temperature, the KV cache (left padding,
dynamic NTK, LongRoPE's switch) and cached keys moved to a new offset, each against an independent formula."""

import json
import re

import numpy as np
import pytest
import torch
from conftest import decode, figure_by_key, figures, payload_bytes, set_shared, tables

from ui.i18n import text

PAGE = "pages/inference.py"
CHARTS = {  # chart key -> number of scatter traces at the default settings
    "inference_precision_chart": 5,  # bfloat16, float16, float32, float32 then bfloat16, and θ_i
    "inference_temperature_chart": 4,  # no temperature, YaRN, Qwen's logn, Llama 4
    "inference_kv_chart": 2,  # recomputed, and from a cache that counted the pads
    "inference_move_chart": 5,  # plain RoPE, YaRN, dynamic NTK, LongRoPE by R(Δ); the last two pair by pair
}


def curves(at, key: str) -> list[np.ndarray]:
    return [np.asarray(decode(trace["y"]), dtype=float) for trace in figure_by_key(at, key)["data"]]


def test_default_page_shows_every_chart_notice_and_code(open_page):
    at = open_page(PAGE)
    assert not at.exception, at.exception
    assert at.title[0].value == "RoPE at inference time"
    assert len(at.subheader) == 4
    assert [len(figure["data"]) for figure in figures(at)] == list(CHARTS.values())
    assert sum("What to notice" in caption.value for caption in at.caption) == 6
    assert len(at.expander) == 4
    assert payload_bytes(at) < 250_000


@pytest.mark.parametrize(
    "kind, key, value",
    [
        ("select_slider", "inference_precision_position", 1000),
        ("select_slider", "inference_precision_position", 1000000),
        ("slider", "inference_temperature_gap", 1.0),
        ("slider", "inference_temperature_gap", 16.0),
        ("radio", "inference_kv_case", "dynamic"),
        ("radio", "inference_kv_case", "longrope"),
    ],
)
def test_every_page_widget_at_its_bounds(open_page, kind, key, value):
    at = open_page(PAGE)
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert len(figures(at)) == len(CHARTS)


@pytest.mark.parametrize("name, value", [("dim", 2), ("dim", 1024), ("base", 10.0), ("base", 1000000.0)])
def test_shared_controls_at_their_bounds(open_page, name, value):
    at = set_shared(open_page(PAGE), **{name: value})
    assert not at.exception, at.exception
    assert len(figures(at)) == len(CHARTS)


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_reads_in_another_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception, at.exception
    assert at.title[0].value == text(lang, "inference.title")
    at.radio(key="inference_kv_case").set_value("longrope").run()
    texts = [
        element.value for kind in ("markdown", "caption", "title", "subheader", "latex") for element in at.get(kind)
    ]
    texts += [widget.label for widget in [*at.slider, *at.select_slider, *at.radio]]
    texts += [figure["layout"]["title"]["text"] for figure in figures(at)]
    texts += [trace["name"] for figure in figures(at) for trace in figure["data"]]
    texts += list(tables(at)[0].columns)
    assert not [value for value in texts if "⟦" in value]
    english = {figure["layout"]["title"]["text"] for figure in figures(open_page(PAGE))}
    assert not english & {figure["layout"]["title"]["text"] for figure in figures(at)}


def test_precision_curves_are_posencs_and_float16_overflows(open_page):
    """At 10⁵ float16 holds no position (no finite point); bfloat16 puts every pair above its θ_i; at 10³ float16
    is back. The curves are posenc's rope_pair_angle_error (tested against numpy in tests/test_precision.py)."""
    at = open_page(PAGE)
    traces = figure_by_key(at, "inference_precision_chart")["data"]
    bf16, fp16, _, _, theta = (np.asarray(decode(trace["y"]), dtype=float) for trace in traces)
    assert not np.isfinite(fp16).any()
    assert (bf16 > theta).all()
    at.select_slider(key="inference_precision_position").set_value(1000).run()
    fp16 = np.asarray(decode(figure_by_key(at, "inference_precision_chart")["data"][1]["y"]), dtype=float)
    assert np.isfinite(fp16).all()


def _float32_angle_error(start: int, inv_freq: np.ndarray, window: int = 256) -> np.ndarray:
    """Mean |fl32(m)·fl32(θ_i) − m·θ_i| over m = start … start + window − 1, wrapped to [0, π], by numpy."""
    m = np.arange(start, start + window)
    approx = (m.astype(np.float32)[:, None] * inv_freq.astype(np.float32)).astype(np.float64)
    error = np.abs(np.remainder(approx - m[:, None] * inv_freq + np.pi, 2 * np.pi) - np.pi)
    return error.mean(axis=0)


def test_the_precision_notices_float32_and_rounding_sizes_are_the_drawn_ones(open_page):
    """The notice's sizes, from numpy's float32 and torch's bfloat16 rounding of cos and sin (d = 128, base 10 000):
    at 10⁶ float32 is off by some 0.01 rad in the fast pairs (θ_i > 0.1; the median), 0.03 at most, at most m·θ_i·2⁻²⁴
    and about half that on average, every pair below its θ_i; rounding cos and sin to bfloat16 adds some 6·10⁻⁴ rad
    where the float32 angle is still exact (10³, 10⁴). The drawn curves are these."""
    theta = 10_000.0 ** (-np.arange(0, 128, 2) / 128)
    at = open_page(PAGE)
    notice = " ".join(element.value for element in at.caption)
    assert "some 0.01 rad in the fast pairs at 10⁶, 0.03 at most" in notice and "some 6·10⁻⁴ rad" in notice
    at.select_slider(key="inference_precision_position").set_value(1_000_000).run()
    drawn = np.asarray(decode(figure_by_key(at, "inference_precision_chart")["data"][2]["y"]), dtype=float)
    ours = _float32_angle_error(1_000_000, theta)
    np.testing.assert_allclose(drawn[1:], ours[1:], rtol=1e-5)  # pair 0: exact (0), drawn at the log axis' floor
    fast = theta > 0.1
    assert ours[0] == 0 and 0.005 < np.median(ours[fast][1:]) < 0.015 and 0.025 < ours.max() < 0.035
    bound = 1_000_000 * theta[1:] * 2.0**-24
    assert (ours[1:] <= bound).all() and 0.35 < np.median(ours[1:] / bound) < 0.65 and (ours < theta).all()
    for start in (1_000, 10_000):
        m = torch.arange(start, start + 256, dtype=torch.float32)[:, None]
        angle = m * torch.tensor(theta, dtype=torch.float32)
        cos, sin = angle.cos().to(torch.bfloat16).double(), angle.sin().to(torch.bfloat16).double()
        rounded = torch.atan2(sin, cos).numpy()
        added = np.abs(np.remainder(rounded - angle.double().numpy() + np.pi, 2 * np.pi) - np.pi).mean()
        assert 5e-4 < added < 7e-4, (start, added)


def test_precision_checkpoint_says_bfloat16_sees_no_offset(open_page):
    """Positions 1 000 000 and 1 000 100 both become 999 424 in bfloat16 (torch's own rounding)."""
    at = open_page(PAGE)
    assert at.radio(key="cp_infer_precision_choice").options == ["0", "100", "4,096"]
    at.radio(key="cp_infer_precision_choice").set_value(0)
    at.button(key="cp_infer_precision_check").click().run()
    shown = [element.value for kind in ("markdown", "success", "info", "caption") for element in at.get(kind)]
    assert any("999,424" in value for value in shown), shown
    assert torch.tensor([1_000_000, 1_000_100]).to(torch.bfloat16).tolist() == [999_424.0, 999_424.0]


def test_temperature_curves_are_softmax_weights(open_page):
    """No temperature: the match's weight is e^g/(e^g + n − 1), written out here; it halves near n = e^10 and the
    temperatures keep it higher at a million keys (YaRN > logn > Llama 4 > none, as their τ at 10⁶ are ordered)."""
    at = open_page(PAGE)
    traces = figure_by_key(at, "inference_temperature_chart")["data"]
    keys = np.asarray(decode(traces[0]["x"]), dtype=float)
    none, yarn, logn, llama4 = (np.asarray(decode(trace["y"]), dtype=float) for trace in traces)
    np.testing.assert_allclose(none, np.exp(10) / (np.exp(10) + keys - 1), rtol=1e-5)
    assert keys[-1] == 1_000_000 and yarn[-1] > logn[-1] > llama4[-1] > none[-1]
    assert at.radio(key="cp_infer_temperature_choice").options == [
        "10 keys",
        "22,028 keys",
        "Never: the gap keeps it ahead",
    ]


def test_the_temperature_notice_gives_yarns_factor_and_the_papers_temperature(open_page):
    """transformers' YaRN (factor 32, 4 096 tokens) multiplies cos and sin by a, so every logit by τ = a²; the YaRN
    paper divides the logits by its temperature t, √(1/t) = a, so t = 1/τ. The notice gives both."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = LlamaConfig(hidden_size=4096, num_attention_heads=32, max_position_embeddings=131072,
                         rope_scaling={"rope_type": "yarn", "factor": 32.0,
                                       "original_max_position_embeddings": 4096})  # fmt: skip
    _, factor = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    notice = " ".join(element.value for element in open_page(PAGE).caption)
    assert f"τ = {factor**2:.2f} (t = {1 / factor**2:.2f})" in notice and "τ = 1/t" in notice


def test_kv_cache_curves(open_page):
    """Left padding counted by the cache only: every key looks 64 positions closer (wrong(r) = right(r − 64)). Dynamic
    NTK, the cache as generation fills it: the whole cache is drawn; the nearest key was cached with nearly the
    query's base (all-ones score 2·Σ cos(θ'_i) recomputed), older ones score far from recomputing; the checkpoint
    quotes both."""
    at = open_page(PAGE)
    right, wrong = curves(at, "inference_kv_chart")
    np.testing.assert_allclose(wrong[64:], right[:-64], rtol=1e-5, atol=1e-3)
    at.radio(key="inference_kv_case").set_value("dynamic").run()
    right, wrong = curves(at, "inference_kv_chart")
    distance = np.asarray(decode(figure_by_key(at, "inference_kv_chart")["data"][0]["x"]), dtype=float)
    assert distance[0] == 1 and distance[-1] == 4095 and len(distance) == 512  # the query at 4 095, every key back to 0
    dim, grown = 128, 10000.0 * (2 * 4096 / 2048 - 1) ** (128 / 126)  # transformers' base for length 4 096, s = 2
    assert right[0] == pytest.approx(2 * sum(np.cos(grown ** (-2 * i / dim)) for i in range(dim // 2)), rel=1e-5)
    assert abs(wrong[0] - right[0]) < 1 < 10 < np.abs(wrong - right).max()
    assert wrong[-1] == pytest.approx(right[-1], abs=1e-3)  # key 0 is not rotated at all
    assert at.radio(key="cp_infer_kv_choice").options[1] == "They keep the rotation they were cached with"


def phi35():
    """Phi-3.5 mini's RoPE as its config.json gives it (the shipped preset), read here without posenc."""
    with open("assets/model_configs.json", encoding="utf-8") as handle:
        entry = next(p for p in json.load(handle)["presets"] if p["id"] == "phi-3.5-mini")
    scaling = entry["config"]["rope_scaling"]
    theta = 10000.0 ** (-np.arange(48) * 2 / 96)
    return theta / np.array(scaling["short_factor"]), theta / np.array(scaling["long_factor"])


def test_the_longrope_cache_jumps_at_the_switch(open_page):
    """Phi-3.5 mini, a 2 048-token prompt decoded to 6 143: the all-ones score written out, 2·Σ cos(m·θ'_i − n·θ_i^(n)),
    with θ^(n) the short set for keys written by passes of at most 4 096 tokens (n ≤ 4 095) and the long set after;
    the query's θ' is the long set. Keys after the switch score as recomputed; the key at 4 095 does not."""
    at = open_page(PAGE)
    at.radio(key="inference_kv_case").set_value("longrope").run()
    right, cached = curves(at, "inference_kv_chart")
    distance = np.asarray(decode(figure_by_key(at, "inference_kv_chart")["data"][0]["x"]), dtype=float)
    assert distance[0] == 1 and distance[-1] == 6143
    short, long = phi35()
    m = 6143
    for index in range(0, len(distance), 37):
        n = m - int(distance[index])
        key_theta = long if n >= 4096 else short
        assert right[index] == pytest.approx(2 * np.cos((m - n) * long).sum(), rel=1e-5, abs=1e-3)
        assert cached[index] == pytest.approx(2 * np.cos(m * long - n * key_theta).sum(), rel=1e-5, abs=1e-3)
    after = distance <= m - 4096
    np.testing.assert_allclose(cached[after], right[after], rtol=1e-5, atol=1e-3)
    shown = " ".join(caption.value for caption in at.caption)
    last_short = 2 * np.cos(m * long - 4095 * short).sum()
    assert f"{last_short:.1f}" in shown and f"{2 * np.cos((m - 4095) * long).sum():.1f}" in shown


def test_moving_a_chunk_is_exact_for_plain_rope_and_yarn_and_not_for_length_dependent_frequencies(open_page):
    """Plain RoPE and YaRN moved by R(Δ): float32 rounding at every Δ. Dynamic NTK and LongRoPE by R(Δ): the same while
    the new text (Δ + 512 + 1 tokens) stays within 4 096, errors of the size of the scores past it; moved pair by pair,
    (p + Δ)θ'_i − pθ_i, exact again."""
    at = open_page(PAGE)
    trace = figure_by_key(at, "inference_move_chart")["data"][0]
    shifts = np.asarray(decode(trace["x"]), dtype=float)
    plain, yarn, dynamic, longrope, full = curves(at, "inference_move_chart")
    assert shifts[0] == 1 and shifts[-1] == 65536
    assert max(plain.max(), yarn.max(), full.max()) < 1e-4
    within = shifts + 513 <= 4096
    assert max(dynamic[within].max(), longrope[within].max()) < 1e-4
    assert min(dynamic[~within].min(), longrope[~within].min()) > 1.0


def test_the_move_notices_bound_is_above_every_exact_curve(open_page):
    """The notice says the error of an exact move "stays below" a one-digit number: it must be above the largest error
    drawn for plain RoPE, YaRN and the pair-by-pair move (YaRN's, 3.4·10⁻⁶, once printed as "below 3·10⁻⁶")."""
    at = open_page(PAGE)
    plain, yarn, _, _, full = curves(at, "inference_move_chart")
    shown = " ".join(caption.value for caption in at.caption)
    digits = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
    found = re.search(r"stays below (\d)·10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", shown)
    assert found, shown
    bound = int(found.group(1)) * 10.0 ** int(found.group(2).translate(digits))
    largest = max(plain.max(), yarn.max(), full.max())
    assert largest < bound <= 10 * largest  # above every curve, and one digit: not a loose bound either


def test_the_cost_table_is_the_flop_counts_written_out(open_page):
    """Llama 3.1 8B: 3·1000·32·8·128 FLOPs to rotate; 1000·(2·N + 2·32·10 500·4 096) to recompute, N its non-embedding
    weights from its config.json (32 layers of 4 096·128·(2·32 + 2·8) + 3·4 096·14 336)."""
    at = open_page(PAGE)
    table = tables(at)[0]
    weights = 32 * (4096 * 128 * (2 * 32 + 2 * 8) + 3 * 4096 * 14336)
    rotate, recompute = 3 * 1000 * 32 * 8 * 128, 1000 * (2 * weights + 2 * 32 * 10500 * 4096)
    assert list(table.rows[0][1:]) == [f"{rotate / 1e6:,.0f} M", f"{recompute / 1e12:,.1f} T",
                                       f"{recompute / rotate:,.0f}×"]  # fmt: skip


def test_move_checkpoint_rotate_is_right(open_page):
    at = open_page(PAGE)
    choice = at.radio(key="cp_infer_move_choice")
    assert choice.options == ["Nothing: RoPE only sees relative positions", "Rotate each cached key by R(10,000)",
                              "Recompute them with a forward pass"]  # fmt: skip
    choice.set_value("rotate")
    at.button(key="cp_infer_move_check").click().run()
    assert not at.exception, at.exception
    assert any(value.value.startswith("Right") for value in at.success)
    at.radio(key="cp_infer_move_choice").set_value("nothing")
    at.button(key="cp_infer_move_check").click().run()
    why = [value.value for value in at.error if "10,000 positions farther away" in value.value]
    assert len(why) == 1, [value.value for value in at.error]  # the query is counted in the new text, the keys not
