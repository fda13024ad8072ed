"""The ablation captions of "Train short, test long" (extrapolation.ablation_*, attention_seeds, similarity_seeds),
held to assets/toy/ablations.json for every training seed, read here with plain Python and never through the page
code; the ablations' unchanged readings held to extrapolation.json and retrieval.json (so the rebuilt models are
the experiments'); the interventions held to by-hand formulas; and seed 0's numbers recomputed from the shipped
weights. If a rerun makes a test fail, the caption has to change with it."""

import json
import math

import pytest
import torch

from posenc.toy.model import ASSETS

ABLATIONS, MARKOV, NEEDLE = ASSETS / "ablations.json", ASSETS / "extrapolation.json", ASSETS / "retrieval.json"
pytestmark = pytest.mark.skipif(not ABLATIONS.exists(), reason="the ablations have not run")
SEEDS = ["0", "1", "2"]
GUESS = 0.8  # a uniform guess is 0.83–0.85 nats above the floor past 64 at every length (extrapolation.json)


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(ABLATIONS.read_text())


@pytest.fixture(scope="module")
def markov() -> dict:
    return json.loads(MARKOV.read_text())


@pytest.fixture(scope="module")
def needle() -> dict:
    return json.loads(NEEDLE.read_text())


def seeds_of(data: dict, name: str) -> dict:
    if name not in data["ablations"]:
        pytest.skip(f"{name} has not run for every seed (python -m posenc.toy.ablations --jobs 2)")
    return data["ablations"][name]


def test_a_uniform_guess_is_above_the_line_the_tests_draw(markov):
    for length, found in markov["references"]["uniform"].items():
        if found["excess_past"] is not None:
            assert found["excess_past"] > GUESS, length


def test_every_shipped_ablation_has_every_seed(data):
    assert data["seeds"] == [0, 1, 2] and data["command"] == "python -m posenc.toy.ablations --jobs 2"
    assert data["ablations"], "the file holds no ablation"
    for name, runs in data["ablations"].items():
        assert sorted(runs) == SEEDS, name


# --------------------------------------------------------------------------- the models are the experiments'


def test_the_unchanged_readings_equal_the_experiments(data, markov, needle):
    """Each ablation's reading of the unchanged model equals what extrapolation.json / retrieval.json hold for that
    seed: the rebuilt models of seeds 1 and 2 are the ones the page's curves measured."""

    def curve(line: str, seed: str, length: int) -> dict:
        return markov["runs"][line][seed]["curves"][str(length)]

    def same(found: dict, shipped: dict) -> None:
        for metric in ("excess_within", "excess_past"):
            if shipped[metric] is not None:
                assert found[metric] == pytest.approx(shipped[metric], abs=2e-4)  # float rounding: ≤ 1.1e-4 seen

    checked = 0
    for seed in SEEDS:
        runs = data["ablations"]
        if "pi_squeeze" in runs:
            found = runs["pi_squeeze"][seed]
            same(found["plain_at_64"], curve("rope", seed, 64))
            for s in (2, 4, 8):
                same(found[f"s{s}_at_{64 * s}"], curve("linear", seed, 64 * s))
            checked += 1
        if "yarn_paper_fast_pair" in runs:
            for line in ("yarn", "yarn_paper"):
                for n in (128, 512):
                    same(runs["yarn_paper_fast_pair"][seed][f"{line}_{n}"], curve(line, seed, n))
        if "absolute_wrapped" in runs:
            for pe in ("sinusoidal", "learned"):
                for n in (64, 128, 512):
                    same(runs["absolute_wrapped"][seed][pe][f"plain_{n}"], curve(pe, seed, n))
        for name, line in (("alibi_capped_markov", "alibi"), ("t5_window", "t5")):
            if name in runs:
                for n in (512, 2048):
                    same(runs[name][seed][f"plain_{n}"], curve(line, seed, n))
        if "alibi_capped_needle" in runs:
            shipped = needle["runs"]["alibi"][seed]["2048"]["accuracy"]
            assert runs["alibi_capped_needle"][seed]["plain_2048"]["accuracy"] == shipped
        if "positions_removed" in runs:
            for pe in ("sinusoidal", "learned", "t5"):
                shipped = needle["runs"][pe][seed]["64"]["accuracy"]
                assert runs["positions_removed"][seed][pe]["plain_64"]["accuracy"] == shipped
            checked += 1
    assert checked, "no ablation to check"


# --------------------------------------------------------------------------- each caption, every seed


def test_pi_the_squeeze_alone_costs_what_pi_costs_past_the_training_length(data):
    """ "already {s2}, {s4} and {s8} nats above the floor at s = 2, 4 and 8 … about what PI costs past {train} at
    2×, 4× and 8× the length … The squeezed neighbours account for nearly all of the failure: the longer input adds
    less than 0.1 nats" """
    for seed, found in seeds_of(data, "pi_squeeze").items():
        assert found["plain_at_64"]["excess_within"] < 0.05, seed
        for s in (2, 4, 8):
            squeezed, long = found[f"s{s}_at_64"]["excess_within"], found[f"s{s}_at_{64 * s}"]["excess_past"]
            assert squeezed >= 0.85 * long and squeezed > GUESS, (seed, s)
            assert 0 < long - squeezed < 0.1, (seed, s)  # nearly all, not all: the length adds a little


def test_yarn_paper_the_fastest_pair_is_most_of_it_at_2x_and_part_of_it_at_8x(data):
    """ "at 2× … falls from {yarn_paper_128} to {paper_pair0_whole_128} … At 2× the fastest pair is most of the
    difference; at 8× it is only part of it" — most: over half of the gap between the ramps closed; part: some of it
    closed, less than half."""
    for seed, found in seeds_of(data, "yarn_paper_fast_pair").items():

        def closed(n: int) -> float:
            paper, whole, hf = (found[f"{w}_{n}"]["excess_past"] for w in ("yarn_paper", "paper_pair0_whole", "yarn"))
            return (paper - whole) / (paper - hf)

        assert closed(128) > 0.5, seed
        assert 0.1 < closed(512) < 0.5, seed


def test_absolute_new_positions_break_and_familiar_codes_do_not_rescue(data):
    """ "the excess past {train} falls by a quarter at most and stays above a uniform guess … an input of only {train}
    tokens placed at positions 448–511 breaks too … New positions alone are enough to break both, but familiar codes do
    not rescue a long input" """
    for seed, runs in seeds_of(data, "absolute_wrapped").items():
        for pe, found in runs.items():
            plain, wrapped = found["plain_512"]["excess_past"], found["wrapped_512"]["excess_past"]
            assert wrapped > GUESS and 0.75 * plain <= wrapped <= plain, (seed, pe)  # a quarter lower at most
            assert found["plain_64"]["excess_within"] < 0.05, (seed, pe)
            assert found["shifted_64"]["excess_within"] > 0.5, (seed, pe)  # "breaks too"


def test_alibi_markov_the_fading_keeps_the_longest_flatter_but_it_stays_below_a_guess(data):
    for seed, found in seeds_of(data, "alibi_capped_markov").items():
        assert found["capped_2048"]["excess_past"] > found["plain_2048"]["excess_past"], seed
        assert found["capped_512"]["excess_past"] >= found["plain_512"]["excess_past"] - 0.005, seed
        assert found["capped_2048"]["excess_past"] < GUESS / 2, seed  # "far below a uniform guess"


def test_alibi_needle_capping_the_penalty_brings_the_far_needle_back(data):
    """ "a needle at the very start of 2048 tokens is found {capped_far} of the time (as trained: {plain_far}) …
    The growing penalty is what loses the far needle." """
    for seed, found in seeds_of(data, "alibi_capped_needle").items():
        far, plain = found["capped_2048"]["accuracy"][0], found["plain_2048"]["accuracy"][0]
        assert far >= 0.9 and far >= plain + 0.3, seed
        assert found["capped_2048"]["accuracy_mean"] >= found["plain_2048"]["accuracy_mean"], seed


def test_positions_removed_the_needle_is_still_found(data):
    """ "the models, which as trained find every needle at {train} tokens, still answer there … The sinusoid and the
    table need no positional encoding to find it; T5 finds most needles without one, but not in every seed at the very
    start." """
    for seed, runs in seeds_of(data, "positions_removed").items():
        for pe, found in runs.items():
            assert found["plain_64"]["accuracy_mean"] == 1.0, (seed, pe)
        for pe in ("sinusoidal", "learned"):
            assert runs[pe]["removed_64"]["accuracy_mean"] >= 0.99, (seed, pe)
        assert runs["t5"]["removed_64"]["accuracy_mean"] > 0.75, seed  # most needles, in every seed
    starts = [runs["t5"]["removed_64"]["accuracy"][0] for runs in seeds_of(data, "positions_removed").values()]
    assert min(starts) < 0.5, starts  # "not in every seed at the very start" (seed 2: 0.06)


def test_the_positions_caption_gives_t5_at_the_very_start(data):
    """ "T5 {t5_removed} ({t5_removed_start} with the needle at the very start)": depth 0 of retrieval.DEPTHS."""
    from charts.ablations import numbers
    from posenc.toy import retrieval

    assert retrieval.DEPTHS[0] == min(retrieval.DEPTHS)
    starts = [runs["t5"]["removed_64"]["accuracy"][0] for runs in seeds_of(data, "positions_removed").values()]
    assert numbers(data, "positions_removed", "en")["t5_removed_start"] == spread(starts)


def test_t5_window_masking_far_keys_keeps_it_at_the_floor(data):
    for seed, found in seeds_of(data, "t5_window").items():
        for n in (512, 2048):
            assert found[f"window_{n}"]["excess_past"] < 0.03, (seed, n)
            assert found[f"plain_{n}"]["excess_past"] > 0.5, (seed, n)


def test_t5_buckets_per_seed_and_seed_zeros_one_head(data):
    """length_notice_comparisons and ablation_t5_buckets, per seed, from the T5 models' bucket tables."""
    runs = seeds_of(data, "t5_untrained_buckets")
    for seed, found in runs.items():
        assert len(found["trained_max"]) == len(found["untrained_max"]) == 4, seed
        assert found["last_trained_bucket"] == 26, seed  # distance 63 with 32 causal buckets and max_distance 128
        # "In every seed and every head some of them are above the last trained bucket"
        assert all(u > t for u, t in zip(found["untrained_max"], found["last_trained"], strict=True)), seed
    seed0 = runs["0"]  # "in the shipped seed-0 model one head even has one above every trained bucket"
    assert sum(u > t for u, t in zip(seed0["untrained_max"], seed0["trained_max"], strict=True)) == 1


def band(data: dict, pe: str) -> dict:
    return seeds_of(data, f"attention_band_{pe}")


@pytest.mark.parametrize("pe", ["sinusoidal", "learned", "rope", "t5", "alibi"])
def test_every_encoding_draws_the_band_within_the_training_length(data, pe):
    """attention_notice: "Within the training length every model with an encoding draws it sharply in layer 2 (T5 in
    two or three of its four heads, the others in most)" — a head draws it when half its weight or more is on it."""
    for seed, runs in band(data, pe).items():
        sharp = sum(w >= 0.5 for w in runs["2"]["within"])
        assert sharp >= 3 if pe != "t5" else sharp in (2, 3), (seed, pe, runs["2"]["within"])


@pytest.mark.parametrize("pe", ["sinusoidal", "learned", "rope"])
def test_the_absolute_encodings_and_plain_rope_mostly_lose_the_band_past_it(data, pe):
    for seed, runs in band(data, pe).items():
        assert max(runs["2"]["past"]) < 0.5, (seed, pe)


def test_alibi_keeps_the_band_and_nope_draws_it_only_in_layer_2(data):
    for seed, runs in band(data, "alibi").items():
        assert sum(runs["2"]["past"]) >= 0.7 * sum(runs["2"]["within"]), seed
    for seed, runs in band(data, "none").items():
        assert max(runs["1"]["within"]) < 0.3 and max(runs["2"]["within"]) >= 0.5, seed


def test_nopes_first_layer_is_a_plain_average_of_the_prefix_in_every_seed(data):
    """attention_notice: NoPE draws the band in layer 2 "from what layer 1 averaged". Checked against the formula of a
    uniform causal average: query i puts 1/(i + 1) on each key, so 3/(i + 1) on the three before it, which averaged
    over the queries 3 … 63 is 3·(H₆₄ − H₃)/61 and over 64 … 511 is 3·(H₅₁₂ − H₆₄)/448 (Hₙ the harmonic numbers).
    Every head of layer 1, every seed, is that average; layer 2 is not (it draws the band)."""

    def harmonic(n: int) -> float:
        return sum(1 / k for k in range(1, n + 1))

    within, past = 3 * (harmonic(64) - harmonic(3)) / 61, 3 * (harmonic(512) - harmonic(64)) / 448
    for seed, runs in band(data, "none").items():
        assert runs["1"]["within"] == pytest.approx([within] * 4, abs=2e-3), seed
        assert runs["1"]["past"] == pytest.approx([past] * 4, abs=5e-4), seed
        assert min(runs["2"]["within"]) > 3 * within, seed


def test_the_learned_tables_neighbours_are_nearly_orthogonal_in_every_seed(data):
    """similarity_notice: "about 0.2 between neighbours" """
    for seed, cosine in seeds_of(data, "learned_neighbour_cosine").items():
        assert 0.1 <= cosine <= 0.35, seed


# --------------------------------------------------------------------------- the interventions, by hand


def test_the_capped_alibi_bias_is_minus_slope_times_the_capped_distance():
    from posenc.toy.ablations import alibi_capped

    heads, length, cap = 4, 100, 63
    bias = alibi_capped(heads, cap)(length)
    for h in range(heads):
        slope = 2.0 ** (-8 * (h + 1) / heads)
        for i, j in ((99, 0), (99, 36), (99, 37), (70, 69), (5, 5), (40, 2)):
            assert bias[h, i, j].item() == pytest.approx(-slope * min(i - j, cap), rel=1e-6)
        assert bias[h, 3, 4].item() == -math.inf


def test_reading_a_model_through_a_given_bias_changes_nothing_when_the_bias_is_its_own():
    from posenc.toy.ablations import alibi_capped, bias_as
    from posenc.toy.lm import CausalLM, LMConfig

    torch.manual_seed(0)
    tokens = torch.randint(0, 8, (2, 90))
    for pe in ("alibi", "t5"):
        model = CausalLM(LMConfig(pe=pe)).eval()
        own = model.bias if pe == "t5" else alibi_capped(4, 10**6)
        before = model(tokens).logits
        with bias_as(model, own):
            during = model(tokens).logits
        assert torch.allclose(before, during, atol=1e-5), pe
        assert torch.equal(model(tokens).logits, before), pe  # restored


def test_wrapped_positions_give_the_sinusoid_of_p_mod_64():
    from posenc.toy.ablations import positions_as
    from posenc.toy.lm import CausalLM, LMConfig

    model = CausalLM(LMConfig(pe="sinusoidal"))
    with positions_as(model, lambda n: torch.arange(n) % 64):
        table = model.embed_positions(200)
    for p in (0, 63, 64, 130, 199):
        q = p % 64
        for i in (0, 5, 31):
            angle = q / 10000 ** (2 * i / 64)
            assert table[p, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-5)
            assert table[p, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-5)
    assert model.embed_positions(200)[100, 0].item() == pytest.approx(math.sin(100), abs=1e-5)  # restored


def test_the_t5_window_masks_exactly_the_keys_more_than_63_back():
    from posenc.toy.ablations import t5_window
    from posenc.toy.lm import CausalLM, LMConfig

    model = CausalLM(LMConfig(pe="t5"))
    windowed, own = t5_window(model, 63)(100), model.bias(100)
    rows, cols = torch.meshgrid(torch.arange(100), torch.arange(100), indexing="ij")
    far = (rows - cols) > 63
    assert torch.isinf(windowed[:, far]).all() and (windowed[:, far] < 0).all()
    assert torch.equal(windowed[:, ~far], own[:, ~far])


def test_the_paper_ramp_with_the_fastest_pair_whole():
    from posenc.toy.ablations import paper_ramp_fast_pair_whole
    from posenc.toy.extrapolate import rope_scaling
    from posenc.toy.lm import CausalLM, LMConfig

    model = CausalLM(LMConfig(pe="rope"))
    inv_freq, factor = paper_ramp_fast_pair_whole(model, 512)
    paper, paper_factor = rope_scaling("yarn_paper", 8.0, model.config, 512)
    assert inv_freq[0].item() == pytest.approx(1.0)  # θ_0 = base^0
    assert torch.equal(inv_freq[1:], paper[1:]) and factor == paper_factor == pytest.approx(0.1 * math.log(8) + 1)


# --------------------------------------------------------------------------- seed 0 again, from the shipped weights


def test_seed_zero_recomputed_from_the_shipped_weights(data):
    """A few of seed 0's numbers, recomputed from assets/toy/extrapolation/ and assets/toy/retrieval/."""
    from posenc.toy import ablations
    from posenc.toy.extrapolate import rope_scaling
    from posenc.toy.lm import load_lm

    torch.set_num_threads(1)
    runs = data["ablations"]
    if "pi_squeeze" in runs:
        rope, _ = load_lm(ASSETS / "extrapolation" / "rope.pt")
        found = ablations.markov_reading(rope, 64, rope_scaling("linear", 8, rope.config, 64))
        assert found == runs["pi_squeeze"]["0"]["s8_at_64"]
    if "yarn_paper_fast_pair" in runs:
        rope, _ = load_lm(ASSETS / "extrapolation" / "rope.pt")
        found = ablations.markov_reading(rope, 128, ablations.paper_ramp_fast_pair_whole(rope, 128))
        assert found == runs["yarn_paper_fast_pair"]["0"]["paper_pair0_whole_128"]
    if "t5_window" in runs:
        t5, _ = load_lm(ASSETS / "extrapolation" / "t5.pt")
        with ablations.bias_as(t5, ablations.t5_window(t5, 63)):
            found = ablations.markov_reading(t5, 512)
        assert found == runs["t5_window"]["0"]["window_512"]
    if "absolute_wrapped" in runs:
        sinusoid, _ = load_lm(ASSETS / "extrapolation" / "sinusoidal.pt")
        with ablations.positions_as(sinusoid, lambda n: torch.arange(n) + 448):
            found = ablations.markov_reading(sinusoid, 64)
        assert found == runs["absolute_wrapped"]["0"]["sinusoidal"]["shifted_64"]
    if "positions_removed" in runs:
        learned, _ = load_lm(ASSETS / "retrieval" / "learned.pt")
        with ablations.positions_as(learned, lambda n: torch.full((n,), 63)):
            found = ablations.needle_reading(learned, 64)
        assert found == runs["positions_removed"]["0"]["learned"]["removed_64"]


# --------------------------------------------------------------------------- on the page


def spread(values: list[float]) -> str:
    """The page's range over seeds, written out again: "0.07" or "0.06–0.08"."""
    low, high = f"{min(values):.2f}", f"{max(values):.2f}"
    return low if low == high else f"{low}–{high}"


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_the_rope_group_shows_the_pi_caption_with_every_seeds_numbers(open_page, data, lang):
    from ui.i18n import text

    if "pi_squeeze" not in data["ablations"]:
        pytest.skip("pi_squeeze has not run for every seed")
    at = open_page("pages/extrapolation.py", query={"lang": lang})
    at.radio(key="extrap_group").set_value("rope").run()
    assert not at.exception, at.exception
    runs = data["ablations"]["pi_squeeze"].values()
    squeezed = spread([run["s8_at_64"]["excess_within"] for run in runs])
    long = spread([run["s8_at_512"]["excess_past"] for run in runs])
    lead = text(lang, "extrapolation.ablation_pi").split("{")[0]
    shown = [c.value for c in at.caption if c.value.startswith(lead)]
    assert len(shown) == 1 and squeezed in shown[0] and long in shown[0], shown


def test_within_63_tokens_clamped_and_unclamped_t5_are_one_model():
    """ "every key more than 63 tokens back masked out, clamped or not (masked, the two are one model)": every distance
    0 … 63 falls in a bucket up to the last trained one (26), so clamping the buckets past it changes no key the window
    keeps. Buckets from transformers' T5 (the reference implementation)."""
    from transformers.models.t5.modeling_t5 import T5Attention

    buckets = T5Attention._relative_position_bucket(-torch.arange(64), bidirectional=False, num_buckets=32,
                                                    max_distance=128)  # fmt: skip
    assert int(buckets.max()) == int(buckets[63]) == 26
    assert int(T5Attention._relative_position_bucket(torch.tensor([-64]), bidirectional=False, num_buckets=32,
                                                     max_distance=128)) >= 26  # fmt: skip


def test_a_learned_table_at_positions_448_to_511_gives_its_last_row():
    """ "the table, which has no rows there, gives all of them its last row" (ablation_absolute)."""
    from posenc.toy.ablations import positions_as
    from posenc.toy.lm import CausalLM, LMConfig

    model = CausalLM(LMConfig(pe="learned"))
    with positions_as(model, lambda n: torch.arange(n) + 448):
        table = model.embed_positions(64)
    last = model.positions.table.weight[63]  # row 63 of the table itself
    assert torch.equal(table, last.expand(64, -1))


def test_the_two_yarn_ramps_differ_only_in_pairs_0_to_2():
    """ "the rest comes from pairs 1 and 2, the only other pairs the two ramps treat differently" (ablation_yarn_paper),
    at 2× and 8×, with the same attention factor."""
    from posenc.toy.extrapolate import rope_scaling
    from posenc.toy.lm import LMConfig

    config = LMConfig(pe="rope")
    for s in (2, 8):
        hf, hf_factor = rope_scaling("yarn", s, config, 64 * s)
        paper, paper_factor = rope_scaling("yarn_paper", s, config, 64 * s)
        differ = [i for i in range(len(hf)) if not math.isclose(hf[i].item(), paper[i].item(), rel_tol=1e-6)]
        assert differ == [0, 1, 2] and hf_factor == paper_factor, s
