"""Predict-then-see checkpoints: every answer against an independent computation (a loop, a closed form, the
reference code of a paper), and every checkpoint answered right and wrong in the app at two settings, so an answer
that went stale when a slider moved would fail. Presenter mode under AppTest (the browser test is in tests/browser/).
"""

from __future__ import annotations

import cmath
import json
import math
import random
import re
from pathlib import Path

import pytest
from conftest import answer_words, set_shared, words_parts, words_question

from charts import checkpoints as cp
from ui.checkpoint import ALL_CHECKPOINTS, CHECKPOINTS
from ui.i18n import text
from ui.limits import LIMITS

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- independent references


def sinusoid_omegas(dim: int, base: float) -> list[float]:
    return [base ** (-2 * i / dim) for i in range(dim // 2)]


def t5_bucket_reference(distance: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """Mesh TensorFlow's _relative_position_bucket for a key ``distance`` places before the query, in plain Python."""
    buckets = num_buckets // 2 if bidirectional else num_buckets  # r < 0: the lower half when bidirectional
    max_exact = buckets // 2
    if distance < max_exact:
        return distance
    scaled = math.log(distance / max_exact) / math.log(max_distance / max_exact) * (buckets - max_exact)
    return min(buckets - 1, max_exact + int(scaled))


def alibi_slopes_reference(n: int) -> list[float]:
    """``get_slopes`` from ofirpress/attention_with_linear_biases, as published."""

    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes_reference(2 * closest)[0::2][: n - closest]


def rope_score_loop(q: list[float], k: list[float], m: int, n: int, base: float) -> float:
    """⟨R_m q, R_n k⟩ with the "half" layout, pair by pair with complex numbers."""
    d, half = len(q), len(q) // 2
    total = 0.0
    for i in range(half):
        theta = base ** (-2 * i / d)
        zq = complex(q[i], q[i + half]) * cmath.exp(1j * m * theta)
        zk = complex(k[i], k[i + half]) * cmath.exp(1j * n * theta)
        total += (zq * zk.conjugate()).real
    return total


def decay_bound_loop(dim: int, base: float, r: int) -> float:
    """RoFormer's bound (1/P) Σ_j |Σ_{k<j} e^{i r θ_k}| by a loop."""
    partial, total = 0j, 0.0
    for i in range(dim // 2):
        partial += cmath.exp(1j * r * base ** (-2 * i / dim))
        total += abs(partial)
    return total / (dim // 2)


def first_half_distance_loop(dim: int, base: float, within: int) -> int | None:
    start = decay_bound_loop(dim, base, 0)
    return next((r for r in range(within + 1) if decay_bound_loop(dim, base, r) < start / 2), None)


def turning_pairs_loop(dim: int, base: float, train: int) -> int:
    return sum(2 * math.pi * base ** (2 * i / dim) <= train - 1 for i in range(dim // 2))


# ---------------------------------------------------------------- the answers


@pytest.mark.parametrize(
    "dim, base, layout", [(128, 10000.0, "interleaved"), (16, 500.0, "concat"), (2, 10.0, "concat")]
)
def test_the_fastest_columns_are_the_largest_frequency(dim, base, layout):
    asked = cp.fastest_pair(dim, base, layout, "en")
    omegas = sinusoid_omegas(dim, base)
    fastest = max(range(len(omegas)), key=omegas.__getitem__)
    assert asked.correct == f"pair_{fastest}"
    columns = (2 * fastest, 2 * fastest + 1) if layout == "interleaved" else (fastest, fastest + dim // 2)
    assert asked.facts[asked.correct]["columns"] == f"{columns[0]}, {columns[1]}"
    last = dim // 2 - 1
    assert f"pair_{last}" in asked.choices and "same" in asked.choices
    for lang, separator in (("en", ","), ("zh", " ")):  # λ = 2π/ω to 0.1, grouped as the language writes it
        shown = cp.fastest_pair(dim, base, layout, lang).facts[f"pair_{last}"]["wavelength"]
        assert float(shown.replace(separator, "")) == pytest.approx(2 * math.pi / omegas[last], abs=0.05)
        assert re.fullmatch(rf"\d{{1,3}}(?:{separator}\d{{3}})*\.\d", shown), shown


@pytest.mark.parametrize("length, dim, base", [(64, 128, 10000.0), (5, 6, 10.0)])
def test_the_dot_product_does_not_depend_on_p(length, dim, base):
    asked = cp.dot_depends_on_p(length, dim, base)
    k = asked.facts["k"]
    dots = []
    for p in range(length - k):
        dots.append(sum(math.cos((p + k - p) * w) for w in sinusoid_omegas(dim, base)))  # closed form Σ cos(kω)
    assert asked.correct == "same"
    assert float(asked.facts["low"]) == pytest.approx(dots[0], abs=1e-4)


@pytest.mark.parametrize(
    "bidirectional, num_buckets, max_distance",
    [(True, 32, 128), (True, 8, 16), (False, 32, 128), (False, 64, 1024), (True, 64, 40)],
)
def test_the_t5_bucket_is_mesh_tensorflows(bidirectional, num_buckets, max_distance):
    asked = cp.t5_bucket_of_distance(bidirectional, num_buckets, max_distance)
    assert asked.correct == t5_bucket_reference(40, bidirectional, num_buckets, max_distance)
    assert asked.correct in asked.choices and len(asked.choices) >= 3
    for bucket, span in asked.facts["spans"].items():  # every offered bucket's distances, by the reference
        high = max_distance + 100 if span["high"] == "∞" else int(span["high"])
        inside = {d for d in range(high + 1) if t5_bucket_reference(d, bidirectional, num_buckets, max_distance)
                  == bucket}  # fmt: skip
        assert min(inside) == span["low"] and (span["high"] == "∞" or max(inside) == high)


def test_invalid_t5_settings_ask_nothing():
    with pytest.raises(ValueError):
        cp.t5_bucket_of_distance(True, 32, 8)  # max_distance inside the exact range


@pytest.mark.parametrize("heads", [1, 6, 8, 12, 16])
def test_the_last_alibi_slope_is_the_papers(heads):
    asked = cp.alibi_last_slope(heads)
    assert 2**-asked.correct == pytest.approx(alibi_slopes_reference(heads)[-1], rel=1e-9)
    assert len(set(asked.choices)) == len(asked.choices) >= 3


@pytest.mark.parametrize("dim, base, m, n", [(128, 10000.0, 5, 2), (16, 100.0, 300, 40)])
def test_shifting_both_positions_keeps_the_rope_score(dim, base, m, n):
    asked = cp.rope_shift_effect(dim, base, m, n)
    assert asked.correct == "same"
    import torch

    generator = torch.Generator().manual_seed(0)
    q = torch.randn(dim, generator=generator, dtype=torch.float64).tolist()
    k = torch.randn(dim, generator=generator, dtype=torch.float64).tolist()
    assert float(asked.facts["before"]) == pytest.approx(rope_score_loop(q, k, m, n, base), abs=1e-4)
    assert float(asked.facts["after"]) == pytest.approx(
        rope_score_loop(q, k, m + cp.SHIFT, n + cp.SHIFT, base), abs=1e-4
    )


@pytest.mark.parametrize("dim, base", [(128, 10000.0), (16, 500.0), (2, 10.0), (1024, 1e6)])
def test_the_slowest_turn_is_two_pi_base_to_the_last_exponent(dim, base):
    asked = cp.rope_slowest_turn(dim, base)
    assert asked.correct == round(2 * math.pi * base ** ((dim - 2) / dim))
    assert asked.correct not in asked.facts["why"]


@pytest.mark.parametrize("dim, base", [(128, 10000.0), (8, 10.0), (2, 10.0), (16, 1e6)])
def test_the_half_way_distance_is_the_bounds(dim, base):
    asked = cp.decay_half(dim, base)
    first = first_half_distance_loop(dim, base, 2000)
    if first is None:
        assert asked.correct in ("never", (1000, cp.HALF_WITHIN))  # the loop looked only to 2 000
    else:
        assert asked.correct[0] <= first <= asked.correct[1] and asked.facts["distance"] == first
    assert float(asked.facts["start"]) == pytest.approx(decay_bound_loop(dim, base, 0))


@pytest.mark.parametrize("seed", range(6))
def test_the_half_way_distance_is_the_first_below_half_whatever_the_chunks(seed):
    """Chunks that double from 32 find the same first distance as a plain loop over r (including one past the
    first chunks, and None when it never drops)."""
    rng = random.Random(seed)
    dim, base = rng.choice([2, 4, 6, 8, 10, 16, 24, 64, 130]), rng.choice([10.0, 100.0, 500.0, 1e4, 5e5, 1e7])
    first = first_half_distance_loop(dim, base, 300)
    found = cp.half_distance(dim, base, first_chunk=rng.choice([1, 3, 32]))
    assert found == first or (first is None and (found is None or found > 300))


@pytest.mark.parametrize("dim, base, train", [(128, 10000.0, 4096), (16, 100.0, 256), (64, 500000.0, 131072)])
def test_the_turning_pairs_are_counted_by_wavelength(dim, base, train):
    asked = cp.turning_pairs(dim, base, train)
    assert asked.correct == turning_pairs_loop(dim, base, train)
    assert asked.correct in asked.choices


def test_the_toy_answers_come_from_the_numbers():
    assert cp.weakest_model({"a": 0.9, "b": 0.02, "c": 0.5}).correct == "b"
    assert cp.models_above_half({"a": 0.9, "b": 0.02, "c": 0.51}).correct == 2
    assert cp.models_above_half({"a": 0.0, "b": 0.001}).choices == (0, 1, 2)


def test_only_alibi_survives_four_times_the_training_length():
    """README's table: at 256 tokens only ALiBi stays within 0.1 nats of its 64-token loss."""
    data = json.loads((ROOT / "assets" / "toy" / "extrapolation.json").read_text())
    asked = cp.surviving_encodings(data)
    curves = {pe: m["curves"] for pe, m in data["models"].items()}
    assert asked.correct == tuple(pe for pe, c in curves.items() if c["256"]["loss"] - c["64"]["loss"] < 0.1)
    assert asked.correct == ("alibi",)
    assert asked.facts["why"][asked.correct] == ((), ())


def test_the_learned_table_reuses_its_last_row():
    assert cp.learned_past_table().correct == "last"


@pytest.mark.parametrize("k", [1, 4, 10, 16, 64])
def test_the_deberta_row_is_the_clipped_shifted_offset(k):
    asked = cp.deberta_row(k)
    assert asked.correct == min(max(cp.DEBERTA_OFFSET + k, 0), 2 * k - 1)  # δ = clamp(i − j + k, 0, 2k − 1)
    assert len(asked.choices) == 4 and asked.correct not in asked.facts["why"]
    assert set(asked.facts["why"]) == set(asked.choices) - {asked.correct}


@pytest.mark.parametrize("gap", [-3.0, 0.0, 2.5])
def test_a_causal_decoder_without_positions_tells_positions_apart_only_with_a_distinct_first_token(gap):
    asked = cp.nope_tells_apart(16, True, gap)
    assert asked.correct == "yes"
    for position, key in ((3, "w_early"), (10, "w_late")):  # e^g / (e^g + i): the first token against i copies of x
        assert float(asked.facts[key]) == pytest.approx(math.exp(gap) / (math.exp(gap) + position), abs=1e-3)
    assert cp.nope_tells_apart(16, False, gap).correct == "no"


def phi2_with(scaling: dict | None):
    from charts.model_rope import presets
    from posenc.model_config import rope_config_from_dict

    config = dict(presets()["phi-2"]["config"])  # d_rot = 32, base 10 000, 2 048 tokens
    if scaling:
        config["rope_scaling"] = scaling
    return rope_config_from_dict(config)


def test_what_scaling_does_to_the_slowest_pair():
    """Closed forms: none keeps θ; linear divides by s; dynamic NTK at s·L uses base·(s² − s + 1)^(d/(d−2)), so the
    last pair (exponent (d−2)/d) is slowed by s² − s + 1; YaRN and Llama 3.1 divide pairs that never turn by s."""
    assert cp.slowest_pair_under_scaling(phi2_with(None)).correct == "keeps"
    assert cp.slowest_pair_under_scaling(phi2_with({"type": "linear", "factor": 4.0})).correct == "divides"
    dynamic = cp.slowest_pair_under_scaling(phi2_with({"type": "dynamic", "factor": 4.0}))
    assert dynamic.correct == "other" and float(dynamic.facts["ratio"]) == pytest.approx(1 / 13, rel=1e-3)
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}
    assert cp.slowest_pair_under_scaling(phi2_with(yarn)).correct == "divides"
    assert float(cp.slowest_pair_under_scaling(phi2_with(None)).facts["turns"]) == pytest.approx(
        2047 * 10000 ** (-30 / 32) / (2 * math.pi), rel=1e-2
    )


def test_longrope_slowest_pair_is_divided_by_about_twice_s_as_transformers_computes_it():
    """Phi-3.5-mini's last long factor (the shipped config) is 64.8, twice s = 131072 / 4096 = 32: the checkpoint's
    divisor θ/θ' is transformers' own ratio of default to LongRoPE frequencies for a 131 072-token sequence."""
    from transformers import Phi3Config
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    from posenc.model_config import rope_config_from_dict

    preset = next(p for p in json.loads((ROOT / "assets" / "model_configs.json").read_text())["presets"]
                  if p["id"] == "phi-3.5-mini")["config"]  # fmt: skip
    hf = Phi3Config(**{k: v for k, v in json.loads(json.dumps(preset)).items() if k != "model_type"})
    long, _ = ROPE_INIT_FUNCTIONS["longrope"](hf, "cpu", seq_len=131072)
    dim = preset["hidden_size"] // preset["num_attention_heads"]  # 96: 48 pairs, all rotated
    plain_last = preset["rope_theta"] ** (-(dim - 2) / dim)  # θ_47 = base^(−2·47/96)
    divisor = plain_last / long[-1].item()
    assert divisor == pytest.approx(preset["rope_scaling"]["long_factor"][-1], rel=1e-5)
    asked = cp.slowest_pair_under_scaling(rope_config_from_dict(preset))
    assert asked.correct == "other" and asked.facts["factor"] == "32"
    assert float(asked.facts["divisor"]) == pytest.approx(divisor, rel=2e-3)
    assert float(asked.facts["times"]) == pytest.approx(divisor / 32, rel=2e-3) and 2 < divisor / 32 < 2.1


def test_every_page_checkpoint_is_counted():
    assert len(ALL_CHECKPOINTS) == len(set(ALL_CHECKPOINTS)) == 25  # four on inference, three on 3 pages
    pages = {"sinusoidal", "relative", "relative_scores", "rope", "decay", "inference", "model_rope", "rope_layers"}
    pages |= {"toy", "extrapolation"}
    assert set(CHECKPOINTS) == pages


# ---------------------------------------------------------------- in the app


def answer(at, key: str, value, label: str = "checkpoint.check"):
    """Pick ``value`` in checkpoint ``key`` and press its button (a question the browser draws: through its
    grading, ui.words); returns the app after the run."""
    if words_question(at, key) is not None:
        answer_words(at, key, value)
    else:
        if value is not None:
            at.radio(key=f"{key}_choice").set_value(value)
        at.button(key=f"{key}_check").click().run()
    assert not at.exception, at.exception
    return at


def verdicts(at, tone: str) -> list[str]:
    """The verdicts of one tone ("success", "error", "warning", "info") shown: Streamlit's and the browser's."""
    said = [part["verdict"] for part in words_parts(at) if part["kind"] == "question" and part["verdict"]]
    return [element.value for element in getattr(at, tone)] + [v["text"] for v in said if v["tone"] == tone]


def verdict(at, lang: str = "en") -> tuple[list[str], list[str]]:
    right = [v for v in verdicts(at, "success") if v.startswith(text(lang, "checkpoint.right"))]
    wrong_lead = text(lang, "checkpoint.wrong", answer="")[:8]
    wrong = [v for v in verdicts(at, "error") if v.startswith(wrong_lead)]
    return right, wrong


def check_right_and_wrong(open_page, page, key, correct, wrong, query=None, state=None, widgets=()):
    """Open ``page`` (with ``query``, ``state``, then each (kind, key, value) of ``widgets`` set), answer checkpoint
    ``key`` with ``correct`` (one "Right" verdict), then with ``wrong`` (one "Not quite" verdict)."""
    at = open_page(page, query=query, state=state)
    for kind, widget, value in widgets:
        getattr(at, kind)(key=widget).set_value(value).run()
    assert not at.exception, at.exception
    right, _ = verdict(answer(at, key, correct))
    assert len(right) == 1, [s.value for s in at.success]
    _, wrong_verdicts = verdict(answer(at, key, wrong))
    assert len(wrong_verdicts) == 1, [e.value for e in at.error]
    return at, right[0], wrong_verdicts[0]


@pytest.mark.parametrize(
    ("preset", "context"), [("llama-4-scout", "within a chunk"), ("llama-3.1-8b", "in the training context")]
)
def test_the_turns_answer_names_the_context_the_question_asked_about(open_page, preset, context):
    """Llama 4 Scout's RoPE layers attend within chunks of 8,192 tokens (transformers' Llama4TextConfig: every RoPE
    layer chunked), so its question and both answers speak of a chunk; a plain Llama's of its training context. The
    formula's d is the rotated width, 128 for both (head_dim 128, every feature rotated)."""
    widgets = [("selectbox", "model_rope_choice_widget", preset)]
    d_rot, base, train = 128, 500000.0, 8192
    count = turning_pairs_loop(d_rot, base, train)
    _, right, wrong = check_right_and_wrong(open_page, "pages/model_rope.py", "cp_model_turns", count, d_rot // 2,
                                            widgets=widgets)  # fmt: skip
    assert f"the longest distance {context}" in right and "(d = 128)" in right
    assert f"the longest distance {context}" in wrong


@pytest.mark.parametrize("dim, layout, last", [(128, "interleaved", "126, 127"), (16, "concat", "7, 15")])
def test_sinusoidal_fastest(open_page, dim, layout, last):
    widgets = [("radio", "sin_layout", layout)]
    page, wrong = "pages/sinusoidal.py", f"pair_{dim // 2 - 1}"
    _, right, wrong = check_right_and_wrong(open_page, page, "cp_sin_fastest", "pair_0", wrong, {"dim": str(dim)},
                                            widgets=widgets)  # fmt: skip
    assert "Pair 0" in right and last in wrong


@pytest.mark.parametrize("length, k", [(64, 4), (3, 2)])
def test_sinusoidal_dot(open_page, length, k):
    at, right, wrong = check_right_and_wrong(open_page, "pages/sinusoidal.py", "cp_sin_dot", "same", "depends",
                                             query={"length": str(length)})  # fmt: skip
    assert words_question(at, "cp_sin_dot")["question"].count(f"PE(p + {k})") == 1
    assert f"For p = 0 … {length - 1 - k} it is" in right and "no p is left" in wrong


@pytest.mark.parametrize("buckets, max_distance", [(32, 128), (8, 16)])
def test_relative_t5(open_page, buckets, max_distance):
    correct = t5_bucket_reference(40, True, buckets, max_distance)
    state = {"relative_t5_live__values": {"num_buckets": buckets, "max_distance": max_distance}}
    wrong = correct - 1
    _, right, _ = check_right_and_wrong(open_page, "pages/relative.py", "cp_rel_t5", correct, wrong, state=state)
    assert f"Bucket {correct} holds" in right


@pytest.mark.parametrize("heads, last", [(8, 8.0), (12, 3.5)])
def test_relative_alibi(open_page, heads, last):
    assert alibi_slopes_reference(heads)[-1] == pytest.approx(2**-last)
    check_right_and_wrong(open_page, "pages/relative.py", "cp_rel_alibi", last, 1.0, query={"heads": str(heads)})


@pytest.mark.parametrize("k", [4, 16])
def test_relative_scores_deberta(open_page, k):
    correct, wrong = min(10 + k, 2 * k - 1), 10 + k if 10 + k > 2 * k - 1 else 10
    state = {"rs_deberta_live__values": {"k": k}}  # the live δ chart's k slider let go at k
    page = "pages/relative_scores.py"
    _, right, _ = check_right_and_wrong(open_page, page, "cp_rs_deberta", correct, wrong, state=state)
    assert f"= {correct}: the table has only 2k = {2 * k} rows" in right


@pytest.mark.parametrize("distinct, correct, wrong", [(True, "yes", "no"), (False, "no", "yes")])
def test_relative_scores_nope(open_page, distinct, correct, wrong):
    widgets = [("toggle", "rs_nope_bos", distinct), ("slider", "rs_nope_gap", 1.0)]
    check_right_and_wrong(open_page, "pages/relative_scores.py", "cp_rs_nope", correct, wrong, widgets=widgets)


@pytest.mark.parametrize("dim, base", [(128, "10000"), (16, "100")])
def test_rope_shift(open_page, dim, base):
    query = {"dim": str(dim), "base": base}
    check_right_and_wrong(open_page, "pages/rope.py", "cp_rope_shift", "same", "shrinks", query=query)


@pytest.mark.parametrize("dim, base", [(128, 10000.0), (16, 500.0)])
def test_rope_slowest(open_page, dim, base):
    correct = round(2 * math.pi * base ** ((dim - 2) / dim))
    query = {"dim": str(dim), "base": f"{base:g}"}
    check_right_and_wrong(open_page, "pages/rope.py", "cp_rope_slowest", correct, dim, query=query)


@pytest.mark.parametrize("dim, base, correct, wrong", [(128, 10000.0, (10, 99), (1, 9)), (2, 10.0, "never", (10, 99))])
def test_decay_half(open_page, dim, base, correct, wrong):
    first = first_half_distance_loop(dim, base, 200)
    assert (first is None) == (correct == "never") and (first is None or correct[0] <= first <= correct[1])
    query = {"dim": str(dim), "base": f"{base:g}"}
    check_right_and_wrong(open_page, "pages/decay.py", "cp_decay_half", correct, wrong, query=query)


@pytest.mark.parametrize("dim, base, train", [(128, 10000.0, 4096), (16, 100.0, 256)])
def test_decay_turns(open_page, dim, base, train):
    count = turning_pairs_loop(dim, base, train)
    query, widgets = {"dim": str(dim), "base": f"{base:g}"}, [("select_slider", "decay_train", train)]
    wrong = 0 if count else dim // 2
    check_right_and_wrong(open_page, "pages/decay.py", "cp_decay_turns", count, wrong, query=query, widgets=widgets)


@pytest.mark.parametrize(
    "preset, d_rot, base, train, slowest",
    [("llama-3.1-8b", 128, 500000.0, 8192, "divides"), ("phi-2", 32, 1e4, 2048, "keeps")],
)
def test_model_rope_checkpoints(open_page, preset, d_rot, base, train, slowest):
    count = turning_pairs_loop(d_rot, base, train)
    widgets = [("selectbox", "model_rope_choice_widget", preset)]
    page = "pages/model_rope.py"
    check_right_and_wrong(open_page, page, "cp_model_turns", count, d_rot // 2, widgets=widgets)
    wrong = "keeps" if slowest != "keeps" else "divides"
    check_right_and_wrong(open_page, page, "cp_model_slowest", slowest, wrong, widgets=widgets)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_toy_checkpoints(open_page, lang):
    metrics = {m["pe"]: m for m in json_metrics()}
    weakest = min(metrics, key=lambda pe: metrics[pe]["held_out_accuracy"])
    above = sum(m["out_of_length_accuracy"] > 0.5 for m in metrics.values())
    at = open_page("pages/toy_model.py", query={"lang": lang})
    right, _ = verdict(answer(at, "cp_toy_weakest", weakest), lang)
    assert len(right) == 1
    _, wrong = verdict(answer(at, "cp_toy_longer", above + 1), lang)
    assert len(wrong) == 1


def json_metrics() -> list[dict]:
    from posenc.toy.model import shipped_metrics

    return shipped_metrics()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_extrapolation_checkpoints(open_page, lang):
    at = open_page("pages/extrapolation.py", query={"lang": lang})
    right, _ = verdict(answer(at, "cp_extrap_survive", ("alibi",)), lang)
    assert len(right) == 1 and "1.306" in right[0]
    _, wrong = verdict(answer(at, "cp_extrap_learned", "wrap"), lang)
    assert len(wrong) == 1 and "63" in wrong[0]


def test_a_verdict_is_dropped_when_the_settings_change_the_question(open_page):
    at = open_page("pages/rope.py", query={"dim": "128", "base": "10000"})
    answer(at, "cp_rope_slowest", 54410)
    assert len(verdict(at)[0]) == 1
    set_shared(at, dim=16)
    assert verdict(at) == ([], [])  # a new question: no old verdict under it


def test_an_answer_is_still_there_after_a_visit_to_another_page(open_page):
    at = open_page("pages/decay.py")
    answer(at, "cp_decay_half", (10, 99))
    at.switch_page("pages/rope.py").run()
    at.switch_page("pages/decay.py").run()
    shown = words_question(at, "cp_decay_half")
    assert shown["choices"][shown["picked"]] == "between 10 and 99"
    assert len(verdict(at)[0]) == 1


def test_pressing_check_without_a_choice_asks_for_one(open_page):
    at = open_page("pages/decay.py")
    answer(at, "cp_decay_half", None)
    assert verdicts(at, "warning") == [text("en", "checkpoint.pick_first")]


def test_the_sidebar_counts_the_answered_checkpoints(open_page):
    at = open_page("pages/relative.py")
    progress = text("en", "checkpoint.progress", answered=0, total=len(ALL_CHECKPOINTS))
    assert progress in [c.value for c in at.sidebar.caption]
    answer(at, "cp_rel_t5", 12)  # inside a fragment: the app reruns so that the sidebar counts it
    answer(at, "cp_rel_alibi", 1.0)  # a wrong answer counts as answered too
    at.switch_page("pages/rope.py").run()
    progress = text("en", "checkpoint.progress", answered=2, total=len(ALL_CHECKPOINTS))
    assert progress in [c.value for c in at.sidebar.caption]


def test_presenter_mode_shows_the_settings_and_reveals_without_judging(open_page):
    at = open_page("pages/sinusoidal.py", query={"present": "1", "dim": "16"})
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    settings = "Settings: base = 10,000 · dim (dimensions) = 16 · length (positions) = 64"
    assert settings in captions
    assert words_question(at, "cp_sin_fastest")["button"] == "Reveal"
    assert at.sidebar.toggle(key="shared_present_widget").value is True
    assert at.query_params["present"] == "1"
    answer(at, "cp_sin_fastest", "pair_7")  # a wrong pick is not judged: the answer is revealed
    assert verdict(at) == ([], [])
    revealed = [v for v in verdicts(at, "info") if v.startswith("The answer: Columns 0, 1 (pair 0).")]
    assert len(revealed) == 1


@pytest.mark.parametrize(("lang", "ten_thousand"), [("en", "10,000"), ("ko", "10,000"), ("zh", "10 000")])
def test_presenter_settings_and_link_notices_group_digits_as_the_language_writes_them(open_page, lang, ten_thousand):
    """GB/T 15835: Chinese running text groups digits with a space; the other catalogs write 10,000."""
    at = open_page("pages/home.py", query={"present": "1", "lang": lang, "base": "0.5", "length": "99999"})
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]  # shown once, on the page the link opened
    assert text(lang, "notices.base_too_small", value=ten_thousand) in warnings
    longest = f"{LIMITS.length_max:,}".replace(",", " " if lang == "zh" else ",")
    assert any(longest in w for w in warnings), warnings  # out_of_range quotes the bound as the language writes it
    at.switch_page("pages/sinusoidal.py").run()
    settings = next(c.value for c in at.caption if f" = {ten_thousand} · " in c.value)  # base, the first setting
    assert "10,000" not in settings if lang == "zh" else "10 000" not in settings


def test_presenter_mode_can_be_turned_off_and_leaves_the_link(open_page):
    at = open_page("pages/decay.py", query={"present": "1"})
    at.sidebar.toggle(key="shared_present_widget").set_value(False).run()
    assert "present" not in at.query_params
    assert not [c.value for c in at.caption if c.value.startswith("Settings:")]
    assert words_question(at, "cp_decay_half")["button"] == "Check"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_verdict_and_its_explanation_are_joined_as_the_language_writes(open_page, lang):
    """English puts a space between two sentences; Chinese puts none after its full stop 。."""
    at = open_page("pages/sinusoidal.py", query={"lang": lang})
    right, _ = verdict(answer(at, "cp_sin_dot", "same"), lang)
    _, wrong = verdict(answer(at, "cp_sin_dot", "depends"), lang)
    for shown in right + wrong:
        if lang == "zh":
            assert "。 " not in shown and "。" in shown, shown
        else:
            assert re.search(r"[.!] [A-Z]", shown), shown
    assert len(right) == len(wrong) == 1


CJK = "\u4e00-\u9fff"
ZH_SPACE = re.compile(rf"[。！？：；，]\s|[{CJK}]\s+[{CJK}“]")  # after a Chinese stop or comma, or inside Chinese


def test_chinese_verdicts_have_no_space_after_a_full_stop_or_between_chinese_words(open_page):
    """zh, as the page shows them: the survive checkpoint's two explanation sentences (failing, then missing: joined by
    pages/extrapolation.py) and app.checkpoint.wrong before a Chinese answer (the far needle's), with no space after
    。 and none before Chinese text. Both wrong picks are chosen from the questions as charts.checkpoints asks them."""
    from charts.extrapolation import results
    from charts.retrieval import results as needle_results

    survive = cp.surviving_encodings(results())
    both = next(c for c, (failing, missing) in survive.facts["why"].items() if failing and missing)
    far = cp.far_needle(needle_results(), results(), sep=text("zh", "extrapolation.cp_list_separator"))
    wrong_far = next(c for c in far.choices if c != far.correct)
    answer_words = text("zh", f"extrapolation.cp_far_{far.correct}", **far.facts)
    assert re.match(rf"[{CJK}]", answer_words), answer_words  # a Chinese answer: the case the space broke
    at = open_page("pages/extrapolation.py", query={"lang": "zh"})
    _, survive_wrong = verdict(answer(at, "cp_extrap_survive", both), "zh")
    _, shown = verdict(answer(at, "cp_extrap_far_needle", wrong_far), "zh")  # both verdicts stay on the page
    far_wrong = [v for v in shown if v not in survive_wrong]
    assert len(survive_wrong) == len(far_wrong) == 1
    failing_lead = text("zh", "extrapolation.cp_survive_failing", models="")[:4]
    missing_lead = text("zh", "extrapolation.cp_survive_missing", models="")[:4]
    assert failing_lead in survive_wrong[0] and missing_lead in survive_wrong[0], survive_wrong[0]
    assert answer_words in far_wrong[0], far_wrong[0]
    for verdict_text in survive_wrong + far_wrong:
        assert not ZH_SPACE.search(verdict_text), verdict_text
