"""The answers of the "predict, then see" checkpoints, computed by ``posenc`` from the page's current settings.

Each function returns a :class:`Question`: the choices to offer (values, worded by the page from the catalog), the
correct one, and the numbers its explanation quotes. Choices whose correctness depends on the settings are generated
from the settings too, so a question never goes stale when a slider moves. No Streamlit session state here (the
pages word the choices in the student's language); only the expensive answers are cached.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from posenc.absolute import sinusoid_inv_freq, sinusoid_pair_columns
from posenc.deberta import deberta_delta
from posenc.decay import full_turn_pairs, rope_decay_bound_at, rope_wavelengths
from posenc.fast import sinusoid_shift_dots_by_blocks
from posenc.model_config import RopeConfig, model_rope_inv_freq
from posenc.nope import nope_identical_tokens
from posenc.relative import alibi_slope_exponents, t5_max_exact, t5_relative_bucket
from posenc.rope import rope_inv_freq, rope_scores_at
from ui.i18n import number
from ui.once import computed_once

T5_DISTANCE = 40  # the distance the T5 question asks about
DOT_OFFSET = 4  # the offset k of the PE(p)·PE(p+k) question
SHIFT = 100  # the shift t of the RoPE question
HALF_WITHIN = 8192  # the decay question looks this far for the half-way distance
DECAY_RANGES = ((1, 9), (10, 99), (100, 999), (1000, HALF_WITHIN))  # its choices, plus "not within HALF_WITHIN"
SURVIVE_MARGIN = 0.1  # nats: an encoding "survives" a length when its loss rises by less than this


class Question(NamedTuple):
    choices: tuple  # the options, in the order shown
    correct: object  # one of ``choices``
    facts: dict  # numbers the explanations quote, by placeholder name: text, or a whole number the page writes as
    # the student's language does (ui.i18n.shown_values: 4,096 in en and ko, 4 096 in zh)


def fastest_pair(dim: int, base: float, layout: str, lang: str) -> Question:
    """Which columns of the sinusoid table change fastest with the position: the pair with the largest ω_i.

    Choices: the first, middle and last pair (by index; distinct ones only) and "all the same". Facts: each offered
    pair's columns and wavelength (grouped as ``lang`` writes numbers), by choice.
    """
    omega = sinusoid_inv_freq(dim, base)  # ω_i, [P]
    pairs = sorted({0, omega.numel() // 2, omega.numel() - 1})
    fastest = int(torch.argmax(omega))
    equal = omega.numel() > 1 and bool(torch.allclose(omega, omega[0]))
    columns = sinusoid_pair_columns(dim, layout)  # [P, 2]
    facts = {
        f"pair_{i}": {"pair": i, "columns": f"{columns[i, 0]}, {columns[i, 1]}",
                      "wavelength": number(lang, 2 * math.pi / omega[i].item(), ".1f")}
        for i in pairs
    }  # fmt: skip
    correct = "same" if equal else f"pair_{fastest}"
    return Question((*facts, "same"), correct, facts)


@computed_once(maxsize=64)
def dot_depends_on_p(length: int, dim: int, base: float) -> Question:
    """Is PE(p)·PE(p + k) the same for every p? Measured on the table itself at the current settings (k = 4, or
    less when the table is shorter). Facts: k, the smallest and largest dot product over p."""
    k = min(DOT_OFFSET, length - 1)
    # PE(p)·PE(p+k) for p = 0 … L−1−k on posenc's float64 table (its equal fast form, a few blocks at a time), [L−k]
    dots = sinusoid_shift_dots_by_blocks(k, length, dim, base)
    same = (dots.max() - dots.min()).item() <= 1e-9 * dim
    facts = {"k": k, "low": f"{dots.min().item():.4f}", "high": f"{dots.max().item():.4f}", "last": length - 1 - k}
    return Question(("same", "depends", "zero"), "same" if same else "depends", facts)


def _t5_spans(bidirectional: bool, num_buckets: int, max_distance: int) -> dict[int, tuple[int, str]]:
    """The distances n (keys n places before the query) each bucket holds: {bucket: (lowest, highest or "∞")}, for
    the buckets some distance reaches."""
    far = max(max_distance, T5_DISTANCE) + 1  # past max_distance every distance shares the last bucket
    buckets = t5_relative_bucket(-torch.arange(far + 1), bidirectional, num_buckets, max_distance).tolist()  # [N]
    spans: dict[int, tuple[int, str]] = {}
    for distance, bucket in enumerate(buckets):  # increasing distances: the first seen is the lowest
        low = spans[bucket][0] if bucket in spans else distance
        spans[bucket] = (low, "∞" if distance == far else str(distance))
    return spans


# its settings are the T5 section's own, not the shared length and heads it reruns for
@computed_once(maxsize=64)
def t5_bucket_of_distance(bidirectional: bool, num_buckets: int, max_distance: int) -> Question:
    """Which T5 bucket holds a key 40 places before the query (r = −40) at the current buckets and max_distance.

    Raises ValueError when the settings are not valid T5 settings (the page shows why). Choices: the four buckets
    nearest to the right one (itself included) that some distance reaches. Facts: the exact range, and by choice
    the distances each offered bucket holds.
    """
    correct = t5_relative_bucket(torch.tensor(-T5_DISTANCE), bidirectional, num_buckets, max_distance).item()
    max_exact = t5_max_exact(bidirectional, num_buckets)
    spans = _t5_spans(bidirectional, num_buckets, max_distance)  # only buckets some distance lands in
    choices = tuple(sorted(sorted(spans, key=lambda b: (abs(b - correct), b))[:4]))  # the four nearest
    facts = {"distance": T5_DISTANCE, "max_exact": max_exact, "last_exact": max_exact - 1,
             "max_distance": max_distance, "bucket": correct}  # fmt: skip
    facts["spans"] = {b: {"low": spans[b][0], "high": spans[b][1]} for b in choices}
    return Question(choices, correct, facts)


@computed_once(maxsize=64)
def alibi_last_slope(heads: int) -> Question:
    """The slope of ALiBi's last head (the gentlest), as an exponent e with m = 2^(−e).

    Choices (distinct exponents, at most four): the true one, the first head's, 8 and a few other plausible ones.
    Facts: the exponents of the first and the last head, and by choice the first head that has it (or None).
    """
    exponents = alibi_slope_exponents(heads)  # e_h, [H]
    correct = round(exponents[-1].item(), 6)
    candidates = {correct, round(exponents[0].item(), 6), 8.0, float(heads), round(8.0 / heads, 6), 16.0}
    others = sorted(candidates - {correct})[:3]  # the steepest wrong ones: at most four choices
    choices = tuple(sorted({correct, *others}))
    owners = {e: [h + 1 for h, x in enumerate(exponents.tolist()) if abs(x - e) < 1e-9] for e in choices}
    facts = {"heads": heads, "first": f"{exponents[0].item():g}", "last": f"{correct:g}",
             "owner": {e: heads_of[0] if heads_of else None for e, heads_of in owners.items()}}  # fmt: skip
    return Question(choices, correct, facts)


def rope_shift_effect(dim: int, base: float, m: int, n: int, seed: int = 0) -> Question:
    """What RoPE's score ⟨R_m q, R_n k⟩ does when both positions move by the same t (t = 100), for random q, k at
    the current dim and base. Facts: the score before and after, m, n and t."""
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(dim, generator=generator, dtype=torch.float64), torch.randn(dim, generator=generator,
                                                                                     dtype=torch.float64)  # fmt: skip
    scores = rope_scores_at(q, k, torch.tensor([m, m + SHIFT]), torch.tensor([n, n + SHIFT]), base)  # [2]
    before, after = scores.tolist()
    if abs(after - before) <= 1e-9 * max(1.0, abs(before)):
        correct = "same"
    else:
        correct = "grows" if abs(after) > abs(before) else "shrinks"
    facts = {"m": m, "n": n, "t": SHIFT, "before": f"{before:.4f}", "after": f"{after:.4f}"}
    return Question(("same", "shrinks", "grows"), correct, facts)


def rope_slowest_turn(dim: int, base: float) -> Question:
    """How many positions the slowest RoPE pair needs for one full turn: λ = 2π/θ_{D/2−1}.

    Choices (rounded to whole positions, distinct): the true wavelength, the base, 2π·base and the dimension; for
    each wrong choice, facts["why"] names which one it is.
    """
    wavelength = rope_wavelengths(rope_inv_freq(dim, base, dtype=torch.float64))[-1].item()
    correct = round(wavelength)
    reasons = {dim: "dim", round(2 * math.pi * base): "two_pi_base", round(base): "base"}
    reasons.pop(correct, None)  # the true one wins a tie
    facts = {"wavelength": correct, "exponent": f"{(dim - 2) / dim:.4g}", "pairs": dim // 2,
             "why": reasons}  # fmt: skip
    choices = tuple(sorted({correct, *reasons}))
    return Question(choices, correct, facts)


@computed_once(maxsize=64)
def half_distance(dim: int, base: float, first_chunk: int = 32) -> int | None:
    """The first distance at which RoFormer's bound drops below half of its value at r = 0, or None when it stays
    above half up to HALF_WITHIN. Evaluated in chunks of distances that double from ``first_chunk``, stopping at the
    first chunk that drops (the fast pairs cancel within a few dozen positions: for most dims and bases the first
    chunk, and 8 in 9 by distance 96)."""
    inv_freq = rope_inv_freq(dim, base, dtype=torch.float64)  # θ_i, [P]
    half = rope_decay_bound_at(torch.zeros(1, dtype=torch.long), inv_freq).item() / 2
    start, size = 0, first_chunk
    while start <= HALF_WITHIN:
        distances = torch.arange(start, min(start + size, HALF_WITHIN + 1))  # [R]
        below = torch.nonzero(rope_decay_bound_at(distances, inv_freq) < half).flatten()
        if below.numel():
            return distances[below[0]].item()
        start, size = start + size, 2 * size
    return None


def decay_half(dim: int, base: float) -> Question:
    """Where the decay bound first falls below half its start, as one of a few distance ranges (or never).

    Choices: the ranges of DECAY_RANGES as (low, high) and "never" (not within HALF_WITHIN).
    Facts: the start, half of it and the distance (or the farthest distance looked at).
    """
    first = half_distance(dim, base)
    correct = "never" if first is None else next(r for r in DECAY_RANGES if r[0] <= first <= r[1])
    start = (dim // 2 + 1) / 2  # the bound at r = 0: (1/P) Σ_j j = (P + 1)/2
    facts = {"start": f"{start:g}", "half": f"{start / 2:g}", "distance": "–" if first is None else first,
             "within": HALF_WITHIN}  # fmt: skip
    facts["why"] = {choice: _half_reason(choice, first) for choice in (*DECAY_RANGES, "never") if choice != correct}
    return Question((*DECAY_RANGES, "never"), correct, facts)


def _half_reason(choice: tuple[int, int] | str, first: int | None) -> str:
    """Why a wrong choice of the decay question is wrong: "never" (it does not drop), "drops" (it does, at
    ``first``), "early" (the range ends before it drops) or "late" (it has dropped before the range starts)."""
    if first is None:
        return "never"
    if choice == "never":
        return "drops"
    return "early" if choice[1] < first else "late"


def turning_pairs(dim: int, base: float, train: int) -> Question:
    """How many of the D/2 pairs make at least one full turn within a training context of ``train`` tokens.

    Choices (distinct): the true count, none, half and all of the pairs. Facts: the count, the pairs, the length.
    """
    count = int(full_turn_pairs(rope_inv_freq(dim, base, dtype=torch.float64), train).sum())
    pairs = dim // 2
    facts = {"count": count, "pairs": pairs, "train": train, "longest": train - 1}
    return Question(tuple(sorted({count, 0, pairs // 2, pairs})), count, facts)


def weakest_model(held_out: dict[str, float]) -> Question:
    """Which shipped toy model gets the fewest held-out problems right. Choices: every model."""
    correct = min(held_out, key=held_out.get)
    return Question(tuple(held_out), correct, {"share": f"{held_out[correct]:.1%}"})


def models_above_half(longer: dict[str, float]) -> Question:
    """How many shipped toy models get more than half of the longer (4-digit) problems right. Choices: 0 … all."""
    count = sum(share > 0.5 for share in longer.values())
    best = max(longer, key=longer.get)
    return Question(tuple(range(len(longer) + 1)), count, {"best": best, "share": f"{longer[best]:.1%}"})


def surviving_encodings(data: dict, factor: int = 4) -> Question:
    """Which encodings keep their loss at ``factor``× the training length: a rise below SURVIVE_MARGIN nats.

    Read from the measured curves of the shipped seed (``assets/toy/extrapolation.json``'s ``models``, seed
    ``seed``; tests/test_extrapolation_seeds.py checks that every seed gives the same set). Choices: a few sets of
    encodings (tuples in the models' order) and the measured one among them. Facts: each encoding's loss at 1× and at
    factor×, and the seed.
    """
    train, models = data["train_len"], data["models"]
    loss = {pe: (m["curves"][str(train)]["loss"], m["curves"][str(train * factor)]["loss"]) for pe, m in models.items()}
    survivors = tuple(pe for pe, (short, long) in loss.items() if long - short < SURVIVE_MARGIN)
    names = tuple(models)
    candidates = [
        tuple(pe for pe in names if pe in ("rope", "t5", "alibi")),  # "the relative ones"
        tuple(pe for pe in names if pe in ("sinusoidal", "learned")),  # "the absolute ones"
        tuple(pe for pe in names if pe != "none"),  # "every encoding"
        (),
    ]
    choices = tuple(dict.fromkeys([survivors, *candidates]))  # the measured set first, duplicates dropped
    facts = {"factor": factor, "train": train, "long": train * factor, "seed": data["seed"],  # models: that seed's
             "losses": {pe: (f"{a:.3f}", f"{b:.3f}") for pe, (a, b) in loss.items()},
             # by choice: the encodings it names that do not survive, and the survivors it leaves out
             "why": {c: (tuple(pe for pe in c if pe not in survivors), tuple(pe for pe in survivors if pe not in c))
                     for c in choices}}  # fmt: skip
    return Question(tuple(sorted(choices, key=len)), survivors, facts)


@computed_once(maxsize=4)
def learned_row_past_table(max_len: int = 64, position: int = 100) -> str:
    """What a learned table of ``max_len`` rows gives the causal toy LM at ``position`` ≥ max_len, found by running
    ``CausalLM.embed_positions``: "last" (row max_len − 1 again), "wrap" (row position mod max_len), "zero",
    "error" (it refuses) or "other"."""
    from posenc.toy.lm import CausalLM, LMConfig

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = CausalLM(LMConfig(pe="learned", max_len=max_len))
    try:
        with torch.no_grad():
            row = model.embed_positions(position + 1)[position]  # [D]
    except (IndexError, ValueError, RuntimeError):
        return "error"
    table = model.positions.table.weight  # E, [max_len, D]
    if torch.equal(row, table[max_len - 1]):
        return "last"
    if torch.equal(row, table[position % max_len]):
        return "wrap"
    return "zero" if not row.any() else "other"


def learned_past_table(max_len: int = 64, position: int = 100) -> Question:
    """What the learned table does at ``position`` past its ``max_len`` rows. Choices: last row, wrap, zero, error."""
    correct = learned_row_past_table(max_len, position)
    facts = {"max_len": max_len, "position": position, "last": max_len - 1, "wrapped": position % max_len}
    return Question(("last", "wrap", "zero", "error"), correct, facts)


DEBERTA_OFFSET = 10  # the DeBERTa question's key is this many positions before the query (i − j = 10)
NOPE_TOKENS = (3, 10)  # the NoPE question compares the outputs of these two positions


def deberta_row(k: int) -> Question:
    """Which row δ(i, j) of DeBERTa's relative table a key DEBERTA_OFFSET positions before the query uses, for the
    section's k. Choices (distinct, at least 0): the right row and the rows of common slips; facts["why"] names the
    slip of each wrong choice: "unclipped" (i − j + k past the 2k rows), "unshifted" (i − j itself), "edge" (the
    last row when no clipping happens), "past_end" (2k: there is no such row), "first" (row 0, the far side)."""
    offset = DEBERTA_OFFSET
    correct = deberta_delta(torch.tensor(offset), k).item()
    slips = {}  # row -> slip, the likeliest slips first; a row that is right, or already offered, is not a slip
    for row, slip in ((offset + k, "unclipped"), (offset, "unshifted"), (2 * k - 1, "edge"), (2 * k, "past_end"),
                      (0, "first")):  # fmt: skip
        if row != correct and row not in slips and len(slips) < 3:
            slips[row] = slip
    facts = {"k": k, "offset": offset, "row": correct, "rows": 2 * k, "last_row": 2 * k - 1, "why": slips}
    return Question(tuple(sorted({correct, *slips})), correct, facts)


@computed_once(maxsize=64)  # it runs a small attention layer: cached like a picture (charts/__init__.py)
def nope_tells_apart(dim: int, distinct_first: bool, gap: float) -> Question:
    """After one causal attention layer with no position encoding, over [first, x, x, …] as the section sets it up,
    do positions 3 and 10 get different outputs? Choices: "yes", "no". Facts: the largest difference between the two
    outputs and the weights each puts on the first token."""
    early, late = NOPE_TOKENS
    demo = nope_identical_tokens(late + 1, dim, causal=True, distinct_first=distinct_first, first_logit_gap=gap)
    difference = (demo.outputs[early] - demo.outputs[late]).abs().max().item()  # ‖o_3 − o_10‖_∞
    first = demo.weights[:, 0]  # the weight each position puts on the first token, [L]
    facts = {"early": early, "late": late, "difference": f"{difference:.3g}",
             "w_early": f"{first[early].item():.3f}", "w_late": f"{first[late].item():.3f}"}  # fmt: skip
    return Question(("yes", "no"), "yes" if difference > 1e-9 else "no", facts)


def slowest_pair_under_scaling(config: RopeConfig) -> Question:
    """What a model's RoPE scaling does to its slowest pair (pair P − 1) at the extended context: "keeps" θ,
    "divides" it by the factor, or changes it by some "other" amount. Facts: θ'/θ, the factor, the extended length
    and the fraction of a turn the pair makes in the training context; θ/θ' ("divisor") and how many times s that
    is; the training length and s·L_train ("stretched"), up to which θ/s covers no more of the circle than θ did in
    training (the declared length can be longer: Llama 3.1 declares 16·L_train with s = 8)."""
    trained, _ = model_rope_inv_freq(config, scaled=False, dtype=torch.float64)  # θ_i, [P]
    scaled, _ = model_rope_inv_freq(config, seq_len=config.extended_length, dtype=torch.float64)  # θ'_i, [P]
    ratio = (scaled[-1] / trained[-1]).item()
    if abs(ratio - 1) < 1e-9:
        correct = "keeps"
    elif abs(ratio - 1 / config.factor) < 1e-9:
        correct = "divides"
    else:
        correct = "other"
    turns = (config.training_length - 1) * trained[-1].item() / (2 * math.pi)  # (L − 1)·θ / 2π
    facts = {"ratio": f"{ratio:.4g}", "factor": f"{config.factor:g}", "turns": f"{turns:.3g}",
             "extended": config.extended_length, "pair": config.pairs - 1,
             "divisor": f"{1 / ratio:.3g}", "times": f"{1 / (ratio * config.factor):.3g}",
             "train": config.training_length,
             "stretched": round(config.factor * config.training_length)}  # fmt: skip
    return Question(("keeps", "divides", "other"), correct, facts)


FAR_KEPT, FAR_CHANCE = 0.75, 0.25  # accuracy: "still finds it" at or above, "as good as a guess" at or below


def far_needle(needle: dict, markov: dict | None, line: str = "alibi", length: int = 2048, sep: str = ", ") -> Question:
    """Does a model whose Markov loss stays flat find a needle at the very start of ``length`` tokens (depth 0,
    length − 2 tokens back)? Read from both result files: the answer is the class of the mean accuracy over the
    training seeds ("kept" ≥ FAR_KEPT, "chance" ≤ FAR_CHANCE, else "between"). Facts: each seed's accuracy there,
    at the training length, and the Markov excess at ``length``, each list joined with ``sep`` (the language's), and
    how many sequences each seed's accuracy there counts (``posenc.toy.retrieval.evaluate_line``: the long count
    past 512 tokens)."""
    train = needle["config"]["train_len"]
    far = [run[str(length)]["accuracy"][0] for run in needle["runs"][line].values()]  # depth 0, every seed
    near = [sum(cells) / len(cells) for cells in (run[str(train)]["accuracy"] for run in needle["runs"][line].values())]
    mean = sum(far) / len(far)
    correct = "kept" if mean >= FAR_KEPT else "chance" if mean <= FAR_CHANCE else "between"
    excess = [run["curves"][str(length)]["excess_past"] for run in markov["runs"][line].values()] if markov else []
    facts = {"length": length, "train": train, "back": length - 2, "factor": length // train,
             "far": sep.join(f"{a:.2f}" for a in far), "near": sep.join(f"{a:.2f}" for a in near),
             "excess": sep.join(f"{e:.3f}" for e in excess) or "–", "chance": f"{needle['task']['chance']:.3f}",
             "kept": FAR_KEPT, "guess": FAR_CHANCE,
             "count": needle["config"]["eval_sequences" if length <= 512 else "long_eval_sequences"]}  # fmt: skip
    return Question(("kept", "between", "chance"), correct, facts)
