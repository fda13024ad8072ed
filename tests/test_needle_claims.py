"""What the needle notices and checkpoint say (extrapolation.needle_notice_*, cp_far_*), held to the shipped
results (assets/toy/retrieval.json, assets/toy/extrapolation.json) for every training seed, read here with numpy
and never through the page code. If a rerun makes a test fail, the sentence has to change with it."""

import numpy as np
import pytest

from posenc.toy.model import ASSETS

NEEDLE, MARKOV = ASSETS / "retrieval.json", ASSETS / "extrapolation.json"
pytestmark = pytest.mark.skipif(not NEEDLE.exists() or not MARKOV.exists(), reason="the experiments have not run")
FOUND = 0.9  # "finds the needle": accuracy at least this
STRETCHES = ("linear", "yarn", "yarn_paper", "llama3")


def grid(needle: dict, line: str) -> np.ndarray:
    """Accuracy [seeds, lengths, depths] of a line."""
    return np.array([[run[str(n)]["accuracy"] for n in needle["lengths"]] for run in needle["runs"][line].values()])


def column(needle: dict, length: int) -> int:
    return needle["lengths"].index(length)


def test_every_line_has_three_seeds_and_every_length_and_depth(needle):
    assert needle["config"]["seeds"] == [0, 1, 2]
    for line, runs in needle["runs"].items():
        assert sorted(runs) == ["0", "1", "2"], line
        assert grid(needle, line).shape == (3, len(needle["lengths"]), len(needle["depths"])), line


def test_at_the_training_length_every_model_finds_the_needle_at_every_depth(needle):
    """ "at {train} tokens every model finds the needle at every depth (lowest accuracy in any seed: {at_train})" """
    train = needle["config"]["train_len"]
    for line in needle["runs"]:
        assert grid(needle, line)[:, column(needle, train)].min() >= FOUND, line


def test_alibi_keeps_near_needles_and_loses_far_ones_in_every_seed(needle, markov):
    """ "ALiBi, whose loss stays flat, keeps finding a needle just before the question at every length … but loses
    far ones"; the heatmap's top rows (needle at the start) are its worst at the longest length."""
    alibi, longest = grid(needle, "alibi"), column(needle, max(needle["lengths"]))
    assert alibi[:, :, -1].min() >= FOUND  # depth 100 %: every seed, every length
    assert (alibi[:, longest, 0] <= alibi[:, longest, -1] - 0.4).all()  # far far below near, each seed
    excess = [run["curves"][str(max(markov["lengths"]))]["excess_past"] for run in markov["runs"]["alibi"].values()]
    assert max(excess) < 0.1  # "whose loss stays flat"


def test_the_needle_ranks_alibi_below_models_whose_loss_broke(needle, markov):
    """ "the needle ranks the encodings differently from the loss curves": ALiBi has the lowest Markov excess at the
    longest length in every seed, yet the learned table (worse than a uniform guess on the Markov task) finds
    more needles there in every seed."""
    longest = max(needle["lengths"])
    for seed in ("0", "1", "2"):
        excess = {pe: markov["runs"][pe][seed]["curves"][str(longest)]["excess_past"] for pe in ("alibi", "learned")}
        guess = markov["references"]["uniform"][str(longest)]["excess_past"]
        assert excess["alibi"] < excess["learned"] and excess["learned"] > guess
        accuracy = {pe: np.mean(needle["runs"][pe][seed][str(longest)]["accuracy"]) for pe in ("alibi", "learned")}
        assert accuracy["learned"] > accuracy["alibi"], seed


def test_rope_loses_the_needle_at_every_depth_near_a_blind_guess(needle):
    """ "RoPE loses the needle at every depth: at {longest} tokens it scores {rope_longest}, near a blind guess" """
    rope, longest, chance = grid(needle, "rope"), column(needle, max(needle["lengths"])), needle["task"]["chance"]
    assert (rope[:, longest].max(-1) < 0.5).all()  # no depth is found, in any seed
    assert (rope[:, longest].mean(-1) < 2 * chance).all()


def test_the_learned_table_the_sinusoid_and_t5_still_find_it_at_the_longest_length(needle):
    """ "The learned table … still finds it at {longest} tokens, and so, at most depths, do the sinusoid and T5" """
    longest = column(needle, max(needle["lengths"]))
    assert (grid(needle, "learned")[:, longest].mean(-1) >= FOUND).all()
    for line in ("sinusoidal", "t5"):
        cells = grid(needle, line)[:, longest]  # [seeds, depths]
        assert ((cells >= 0.75).sum(-1) > cells.shape[-1] / 2).all(), line  # more than half the depths, every seed


def test_nope_depends_on_the_seed(needle):
    """ "NoPE depends on the seed: one seed finds every needle out to {longest} tokens, another loses most of them" """
    means = grid(needle, "none")[:, column(needle, max(needle["lengths"]))].mean(-1)
    assert means.max() >= FOUND and means.min() < 0.5


def test_the_stretches_find_every_needle_and_ntk_does_not(needle):
    """ "PI, YaRN with either ramp and Llama 3.1 find the needle at every length and depth …; NTK-aware does not" """
    for line in STRETCHES:
        assert grid(needle, line).min() >= FOUND, line
    assert (grid(needle, "ntk").min(axis=(1, 2)) < FOUND).all()


def test_pi_failed_the_markov_task_at_once(markov):
    """ "On the Markov task PI failed at once" (worse than a uniform guess at the first length past training)"""
    first = min(n for n in markov["lengths"] if n > markov["train_len"])
    guess = markov["references"]["uniform"][str(first)]["excess_past"]
    assert all(run["curves"][str(first)]["excess_past"] > guess for run in markov["runs"]["linear"].values())


def test_yarns_frequencies_alone_keep_the_needle(needle):
    """ "with YaRN's frequencies alone (the factor left out) the lowest accuracy in any seed is {no_factor_min}" """
    assert grid(needle, "yarn_no_factor").min() >= FOUND


def test_the_fine_tunes_hold_to_their_length_and_start_to_lose_the_needle_past_it(needle):
    """ "all three fine-tunes find the needle up to 512 (lowest: {ft_max}) and start to lose it past that: at
    {longest} tokens …". Every seed of every fine-tune finds it at every depth up to 512, misses it at some depth at
    every length past 512, and at the longest length misses it on average. Not "lose it past that": at the first
    length past 512 not every seed of every fine-tune has lost it on average (the unscaled one keeps most)."""
    tuned = needle["config"]["finetune_length"]
    within = [column(needle, n) for n in needle["lengths"] if n <= tuned]
    past = [column(needle, n) for n in needle["lengths"] if n > tuned]
    first_past = []
    for line in ("ft_linear", "ft_yarn", "ft_plain"):
        accuracy = grid(needle, line)  # [seeds, lengths, depths]
        assert accuracy[:, within].min() >= FOUND, line
        assert (accuracy[:, past].min(-1) < FOUND).all(), line  # some depth missed: every seed, every length past
        assert (accuracy[:, past[-1]].mean(-1) < FOUND).all(), line
        first_past.extend(accuracy[:, past[0]].mean(-1))
    assert max(first_past) >= FOUND  # "start to": one seed still finds it at most depths just past 512


def test_the_lowest_accuracies_quoted_are_the_minima_over_seeds_and_depths(needle):
    """ "lowest accuracy in any seed: {at_train}", "{stretch_min}", "{no_factor_min}", "lowest: {ft_max}": each is
    the minimum over every seed and depth of those lines at those lengths, never above 1.00 (an accuracy)."""
    from charts.retrieval import needle_numbers

    quoted = needle_numbers(needle, "en")
    lengths, tuned = needle["lengths"], needle["config"]["finetune_length"]
    train = column(needle, needle["config"]["train_len"])
    up_to_tuned = [column(needle, n) for n in lengths if n <= tuned]
    expected = {
        "at_train": min(grid(needle, line)[:, train].min() for line in needle["runs"]),
        "stretch_min": min(grid(needle, line).min() for line in STRETCHES),
        "no_factor_min": grid(needle, "yarn_no_factor").min(),
        "ft_max": min(grid(needle, line)[:, up_to_tuned].min() for line in ("ft_linear", "ft_yarn", "ft_plain")),
    }
    for key, value in expected.items():
        assert quoted[key] == f"{value:.2f}" and 0 <= value <= 1, key


def test_clamping_t5s_far_buckets_changes_little(needle):
    """ "T5 with its far buckets clamped finds the needle about as often as T5 itself" (within 0.1 at the longest
    length, every seed)"""
    longest = column(needle, max(needle["lengths"]))
    gap = grid(needle, "t5")[:, longest].mean(-1) - grid(needle, "t5_clamped")[:, longest].mean(-1)
    assert (np.abs(gap) <= 0.1).all()


def test_the_checkpoint_answer_is_what_the_seeds_show(needle, markov):
    """cp_far_*: the class of ALiBi's mean accuracy over seeds with the needle at the start of 2048 tokens."""
    from charts.checkpoints import FAR_CHANCE, FAR_KEPT, far_needle

    asked = far_needle(needle, markov)
    far = np.array([run["2048"]["accuracy"][0] for run in needle["runs"]["alibi"].values()])
    expected = "kept" if far.mean() >= FAR_KEPT else "chance" if far.mean() <= FAR_CHANCE else "between"
    assert asked.correct == expected
    assert asked.facts["back"] == 2046 and asked.facts["far"] == ", ".join(f"{a:.2f}" for a in far)
