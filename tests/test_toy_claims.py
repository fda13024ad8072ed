"""What the pages say about the shipped toy models, measured here on the shipped models and files.

Each test holds sentences of one catalog text: relative_scores.toy_notice (under the No-PE decoder chart),
toy.accuracy_notice and toy.maps_notice (the toy-transformer page). Everything is measured in this file from the
checkpoints (assets/toy/<pe>.pt) or the metrics files, with torch and numpy, never through the page code. If a
retrained model makes a test fail, the sentence has to change with it: the tests hold the words, not the models.
"""

import itertools
import json
import math

import numpy as np
import pytest
import torch

from posenc.relative import t5_relative_bucket
from posenc.toy import data
from posenc.toy.model import ASSETS, PE_CHOICES, ToyConfig, ToyTransformer, load_checkpoint
from posenc.toy.train import TrainConfig, learning_rate

pytestmark = [
    pytest.mark.skipif(
        not all((ASSETS / f"{pe}.pt").exists() for pe in PE_CHOICES),
        reason="the toy checkpoints are not all trained yet",
    ),
    pytest.mark.usefixtures("one_torch_thread"),  # tests/conftest.py
]

MINUS = data.TOKEN_ID["-"]
CLOSE = 0.1  # "stays close to 1/(t + 1)": every head's weight on <s> within this of it, at every step
GUESS = 0.1  # a guessed digit is right one time in ten


@pytest.fixture(scope="module")
def models() -> dict[str, ToyTransformer]:
    return {pe: load_checkpoint(ASSETS / f"{pe}.pt") for pe in PE_CHOICES}


@pytest.fixture(scope="module")
def metrics() -> dict[str, dict]:
    return {pe: json.loads((ASSETS / f"{pe}.json").read_text()) for pe in PE_CHOICES}


def written(model: ToyTransformer, expressions: list[data.Expression]) -> list[list[int]]:
    """The model's greedy answer tokens for each expression, up to (not including) the end token."""
    tokens = []
    with torch.no_grad():
        for start in range(0, len(expressions), 500):  # batches of 500: larger ones are slower on one thread
            tokens += model.generate(data.make_batch(expressions[start : start + 500]).source).tolist()
    return [row[: row.index(data.EOS)] if data.EOS in row else row for row in tokens]


def decoder_self_maps(
    model: ToyTransformer, expressions: list[data.Expression], answers: list[list[int]]
) -> list[list[np.ndarray]]:
    """Decoder self-attention [H, T, T] per layer for each expression, reading <s> and its answer (as the page's chart
    does). Problems whose source and answer have the same lengths go through the model together: no padding, so
    every map is the one that problem alone gets."""
    groups: dict[tuple[int, int], list[int]] = {}
    sources = [data.encode_source(expression) for expression in expressions]
    for n, (source, answer) in enumerate(zip(sources, answers, strict=True)):
        groups.setdefault((len(source), len(answer)), []).append(n)
    maps: list[list[np.ndarray]] = [[] for _ in expressions]
    with torch.no_grad():
        for members in groups.values():
            source = torch.tensor([sources[n] for n in members])
            target = torch.tensor([[data.BOS, *answers[n]] for n in members])
            out = model(source, target)
            for row, n in enumerate(members):
                maps[n] = [weights[row].numpy() for weights in out.decoder_self]
    return maps


def gap_from_even(weights: np.ndarray) -> float:
    """max over heads and steps t of |weight on <s> − 1/(t + 1)|, for one layer [H, T, T]."""
    steps = np.arange(weights.shape[1])
    return float(np.abs(weights[:, :, 0] - 1.0 / (steps + 1)).max())


# ------------------------------------------------------------------------- relative_scores.toy_notice


@pytest.fixture(scope="module")
def no_pe_decoder(models):
    """The No-PE model's own answers to 1,500 held-out problems and the decoder maps that wrote them."""
    model = models["none"]
    problems = data.held_out_expressions(limit=1500, seed=11)
    answers = written(model, problems)
    return list(zip(answers, decoder_self_maps(model, problems, answers), strict=True))


def test_layer_1_spreads_evenly_so_the_weight_on_start_follows_one_over_t_plus_one(no_pe_decoder):
    """ "In layer 1 … the heads spread their weight almost evenly over the steps they may see, so the weight on <s>
    stays close to 1/(t + 1) … Only a '-' in the answer pulls some heads off it.\""""
    without_minus = [gap_from_even(maps[0]) for answer, maps in no_pe_decoder if MINUS not in answer]
    with_minus = [gap_from_even(maps[0]) for answer, maps in no_pe_decoder if MINUS in answer]
    assert len(without_minus) > 500 and len(with_minus) > 100  # both kinds of answer were measured
    assert max(without_minus) < CLOSE, max(without_minus)
    assert min(with_minus) > CLOSE, min(with_minus)  # every '-' pulls a head off, not just some of them


def top_and_even_share(no_pe_decoder, layer: int) -> tuple[np.ndarray, float]:
    """Per head: the mean over steps t ≥ 2 of the largest weight in the row, and the mean even share 1/(t + 1)."""
    tops, even = [], []
    for _, maps in no_pe_decoder:
        weights = maps[layer - 1]  # [H, T, T]
        steps = np.arange(2, weights.shape[1])
        tops.append(weights[:, steps, :].max(-1))  # [H, T − 2]
        even.append(1.0 / (steps + 1))
    return np.concatenate(tops, axis=1).mean(axis=1), float(np.concatenate(even).mean())


def test_layer_2_heads_favour_particular_steps(no_pe_decoder):
    """ "Layer 2's heads favour particular steps instead": in layer 2 every head gives its favourite step far more
    than the even share, in layer 1 hardly more."""
    top_1, even = top_and_even_share(no_pe_decoder, 1)
    top_2, _ = top_and_even_share(no_pe_decoder, 2)
    assert (top_1 < 1.3 * even).all(), (top_1, even)
    assert (top_2 > 1.7 * even).all(), (top_2, even)


def test_without_positions_reordered_digits_get_the_same_answer(models):
    """ "It cannot tell the units digit of a number from its hundreds digit: 21+211= and 12+121= get the same
    answer" (relative_scores.toy_notice); "21+211= and 12+121= look the same to it" (toy.accuracy_notice)."""
    model = models["none"]
    pairs = [("21+211=", "12+121=")]
    for e in data.held_out_expressions(limit=300, seed=4):  # each operand's digits reversed: the same characters
        reordered = data.Expression(int(str(e.left)[::-1]), e.op, int(str(e.right)[::-1]))
        if sorted(reordered.text) == sorted(e.text):  # no leading zero dropped
            pairs.append((e.text, reordered.text))
    assert len(pairs) > 200
    firsts = written(model, [data.parse_expression(a) for a, _ in pairs])
    seconds = written(model, [data.parse_expression(b) for _, b in pairs])
    assert firsts == seconds
    assert data.parse_expression("21+211=").result != data.parse_expression("12+121=").result


# ------------------------------------------------------------------------- toy.accuracy_notice


def test_every_model_had_the_same_budget(metrics):
    """ "Every model had the same budget (steps, seed, size; training stops early at 99.5 % on a held-out sample)."""
    configs = [{key: value for key, value in m["config"].items() if key != "pe"} for m in metrics.values()]
    assert all(config == configs[0] for config in configs)
    assert configs[0]["target"] == 0.995
    assert len({json.dumps({k: v for k, v in m["model"].items() if k != "pe"}) for m in metrics.values()}) == 1


def character_classes() -> tuple[np.ndarray, np.ndarray]:
    """Every problem i op j (0 ≤ i, j < 1000), as (a key for its multiset of characters, its answer)."""
    numbers = np.arange(data.MAX_OPERAND)
    counts = np.zeros((data.MAX_OPERAND, 10), dtype=np.int64)  # how often each digit occurs in each number
    for n in numbers:
        for char in str(n):
            counts[n, int(char)] += 1
    weights = 8 ** np.arange(10)  # a digit occurs at most 6 times in a problem: base 8 keeps keys apart
    number_key = counts @ weights  # [1000]
    left, right = np.meshgrid(numbers, numbers, indexing="ij")
    keys, answers = [], []
    for op_index, op in enumerate(data.OPERATORS):
        keys.append((number_key[left] + number_key[right]) * 2 + op_index)
        answers.append(left + right if op == "+" else left - right)
    return np.concatenate([k.ravel() for k in keys]), np.concatenate([a.ravel() for a in answers])


def test_every_held_out_problem_shares_its_characters_with_problems_of_other_answers(metrics):
    """ "Every held-out problem shares its characters with problems that have other answers, so it can only guess,
    and it gets {none_held} right": without positions the answer is a function of the characters (the test above).
    The best such guess, the most common answer among all problems with those characters, would get fewer than
    one in ten held-out problems right; the No-PE model gets fewer still."""
    keys, answers = character_classes()
    pairs, counts = np.unique(np.stack([keys, answers], axis=1), axis=0, return_counts=True)  # (characters, answer)
    distinct_answers = dict(zip(*np.unique(pairs[:, 0], return_counts=True), strict=True))
    most_common = {}
    for (key, answer), count in zip(pairs.tolist(), counts.tolist(), strict=True):
        if count > most_common.get(key, (None, 0))[1]:
            most_common[key] = (answer, count)
    held = data.held_out_expressions()
    weights = 8 ** np.arange(10)
    key_of = [
        int(np.bincount([int(c) for c in f"{e.left}{e.right}"], minlength=10) @ weights) * 2
        + data.OPERATORS.index(e.op)
        for e in held
    ]
    assert min(distinct_answers[key] for key in key_of) >= 2
    best_guess = np.mean([most_common[key][0] == e.result for key, e in zip(key_of, held, strict=True)])
    assert metrics["none"]["held_out_accuracy"] < best_guess < 0.1, best_guess


@pytest.fixture(scope="module")
def four_digit(models):
    """Each model's answers to the 2,000 4-digit problems its metrics file was measured on."""
    problems = data.out_of_length_expressions()
    return problems, {pe: written(model, problems) for pe, model in models.items()}


def test_no_model_solves_four_digit_problems_not_even_their_units_digit(metrics, four_digit):
    """ "No model solves 4-digit problems (the best gets {best_longer}). Even their units digit comes out right only
    about one time in ten, as often as a guess.\""""
    problems, answers = four_digit
    for pe, tokens in answers.items():
        exact = np.mean([data.decode_answer(t) == str(e.result) for t, e in zip(tokens, problems, strict=True)])
        assert exact == pytest.approx(metrics[pe]["out_of_length_accuracy"]) and exact < 0.01, pe
        units = [data.TOKEN_ID[str(abs(e.result))[-1]] for e in problems]
        first_digit = [t[1:2] if t[:1] == [MINUS] else t[:1] for t in tokens]
        right = np.mean([digit == [unit] for digit, unit in zip(first_digit, units, strict=True)])
        assert 0.5 * GUESS < right < 1.5 * GUESS, (pe, right)


def test_four_digit_inputs_are_longer_than_every_training_input():
    """ "These inputs are 10 characters long, and no training input had more than 8.\""""
    assert {len(e.text) for e in data.out_of_length_expressions()} == {10}
    training = data.sample_training(4096, torch.Generator().manual_seed(0))
    assert max(len(e.text) for e in training) == 8 == len("999+999=")  # 3-digit operands at most


def initial_state(metrics: dict, pe: str) -> dict[str, torch.Tensor]:
    """The weights training started from: the trainer seeds torch with the run's seed, then builds the model."""
    torch.manual_seed(metrics[pe]["seed"])
    return ToyTransformer(ToyConfig(**metrics[pe]["model"])).state_dict()


def untouched(metrics: dict, pe: str, models: dict, name: str) -> np.ndarray:
    """Per row of a table: True where training never changed it. AdamW moves a row that never gets a gradient only
    by weight decay, which scales it by Π (1 − lr_t · weight_decay); the checkpoint holds float16."""
    config = TrainConfig(**metrics[pe]["config"])
    decay = math.prod(1 - learning_rate(step, config) * config.weight_decay for step in range(metrics[pe]["steps"]))
    start, end = initial_state(metrics, pe)[name], models[pe].state_dict()[name]
    return ((end - decay * start).abs().amax(-1) < 2e-3).numpy()


def test_learned_rows_past_8_and_t5_buckets_past_distance_8_were_never_trained(metrics, models):
    """ "The learned tables' rows for positions 8 and up were never trained, nor T5's buckets for distances of 8 or
    more." Untouched rows are the starting weights, only shrunk by weight decay; every trained row moved."""
    for name in ("source_positions.table.weight", "target_positions.table.weight"):
        rows = untouched(metrics, "learned", models, name)
        assert rows[8:].all(), name
    assert not untouched(metrics, "learned", models, "source_positions.table.weight")[:8].any()
    far_back = -torch.arange(8, 1000)  # keys 8 or more positions back (key − query offsets)
    for name, offsets in (
        ("source_bias.table.weight", torch.cat([far_back, -far_back])),  # the encoder looks both ways
        ("target_bias.table.weight", far_back),  # the decoder is causal: later keys share distance 0's bucket
    ):
        far = t5_relative_bucket(offsets, bidirectional=name.startswith("source"))  # buckets of distances ≥ 8
        assert untouched(metrics, "t5", models, name)[far.unique().numpy()].all(), name
    near = t5_relative_bucket(torch.arange(-7, 8), bidirectional=True)  # the encoder's distances up to 7
    assert not untouched(metrics, "t5", models, "source_bias.table.weight")[near.unique().numpy()].any()


def test_alibi_and_rope_have_no_position_parameters_and_fail_as_badly(metrics, models):
    """ "ALiBi and RoPE have no such parameters, and they fail just as badly" (their units digit: the test above)."""
    no_pe = set(models["none"].state_dict())
    for pe in ("alibi", "rope"):
        assert set(models[pe].state_dict()) == no_pe  # nothing that the No-PE model does not have too
        assert metrics[pe]["out_of_length_accuracy"] < 0.01
    assert set(models["learned"].state_dict()) > no_pe and set(models["t5"].state_dict()) > no_pe


def test_the_summary_of_train_short_test_long():
    """ "There ALiBi stays flat to 32× the training length, T5 and RoPE degrade, and the absolute encodings break just
    past it" (assets/toy/extrapolation.json, every training seed; flat: within 0.03 nats of its loss at 1×, at every
    length from 1× to 32×, the longest the page reads)."""
    found = json.loads((ASSETS / "extrapolation.json").read_text())
    train, lengths = found["train_len"], found["lengths"]
    assert max(lengths) == 32 * train
    just_past = min(n for n in lengths if n > train)
    for pe in PE_CHOICES:
        assert found["runs"][pe], pe
    for pe, runs in found["runs"].items():
        if pe not in PE_CHOICES:
            continue
        for seed, run in runs.items():
            loss = {n: run["curves"][str(n)]["loss"] for n in lengths}
            rise = {n: loss[n] - loss[train] for n in lengths if n >= train}
            if pe == "alibi":
                assert max(abs(r) for r in rise.values()) < 0.03, seed
            if pe in ("t5", "rope"):
                assert rise[8 * train] > 0.5 and rise[just_past] < 0.1, (pe, seed)
            if pe in ("sinusoidal", "learned"):
                assert rise[just_past] > 0.4, (pe, seed)


# ------------------------------------------------------------------------- toy.maps_notice


def test_cross_attention_scores_are_query_dot_key_alone(models):
    """ "Cross-attention adds no position term in any model (as in T5): its score is query · key alone": every
    cross-attention map equals softmax(q · k / √d_head) recomputed from the vectors that went in."""
    problems = data.held_out_expressions(limit=100, seed=2) + data.out_of_length_expressions(count=20)
    batch = data.make_batch(problems)
    for pe, model in models.items():
        captured = []
        hooks = [
            block.cross_attention.register_forward_hook(lambda module, args, out: captured.append((module, args, out)))
            for block in model.decoder
        ]
        with torch.no_grad():
            model(batch.source, batch.decoder_input)
        for hook in hooks:
            hook.remove()
        assert len(captured) == len(model.decoder)
        for module, (queries_in, keys_in, *_), (_, weights) in captured:
            q = module.query(queries_in).unflatten(-1, (module.heads, -1)).transpose(1, 2)  # [B, H, T, Dh]
            k = module.key(keys_in).unflatten(-1, (module.heads, -1)).transpose(1, 2)  # [B, H, S, Dh]
            scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
            scores = scores.masked_fill((batch.source == data.PAD)[:, None, None, :], -math.inf)
            torch.testing.assert_close(weights, scores.softmax(-1), atol=1e-6, rtol=0, msg=pe)


def test_the_same_digit_at_two_answer_steps_looks_at_different_places(models):
    """ "The decoder's query knows its answer step, so the same digit written at two steps looks at different
    places": 111+11= = 122, written 2, 2, 1; the two steps that read a 2 attend differently in every model."""
    problem = data.parse_expression("111+11=")
    for pe, model in models.items():
        answer = written(model, [problem])[0]
        assert answer[:2] == [data.TOKEN_ID["2"]] * 2, pe  # every model writes 2 then 2 (reversed 122)
        with torch.no_grad():
            out = model(torch.tensor([data.encode_source(problem)]), torch.tensor([[data.BOS, *answer]]))
        for cross in out.cross:  # row t reads token t: rows 1 and 2 both read a 2
            assert float((cross[0, :, 1] - cross[0, :, 2]).abs().max()) > 0.3, pe


def test_without_an_encoding_the_encoder_writes_no_position_into_its_tokens(models):
    """ "… in what the encoder wrote into its tokens (nothing, without an encoding)": in the No-PE model the three
    '1's of 21+211= leave the encoder as the same vector, bit for bit; with any encoding they differ."""
    source = torch.tensor([data.encode_source(data.parse_expression("21+211="))])
    ones = [1, 4, 5]
    for pe, model in models.items():
        with torch.no_grad():
            memory, _ = model.encode(source)
        spread = float((memory[0, ones] - memory[0, ones[0]]).abs().max())
        assert (spread == 0.0) if pe == "none" else (spread > 1e-2), (pe, spread)


def test_decoder_rows_never_look_right_and_every_row_sums_to_one(models):
    """ "Every row sums to 1 … Decoder rows never look right, into the future.\""""
    problems = data.held_out_expressions(limit=50, seed=9)
    batch = data.make_batch(problems)
    steps = batch.decoder_input.shape[1]
    future = torch.triu(torch.ones(steps, steps, dtype=torch.bool), diagonal=1)
    for pe, model in models.items():
        with torch.no_grad():
            out = model(batch.source, batch.decoder_input)
        for weights in out.decoder_self:
            assert float(weights[..., future].abs().max()) == 0.0, pe
        for weights in out.encoder_self + out.decoder_self + out.cross:
            torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]), msg=pe)


# ------------------------------------------------------------------------- extrapolation.*_notice
# Each test holds sentences of the "train short, test long" page for every training seed in the shipped file.

EXTRAPOLATION = ASSETS / "extrapolation.json"
SCALED = ("linear", "ntk", "yarn", "yarn_paper", "llama3")  # RoPE stretched at inference with s = L / train_len


@pytest.fixture(scope="module")
def extrapolation() -> dict:
    return json.loads(EXTRAPOLATION.read_text())


def per_seed(found: dict, line: str, metric: str = "excess_past") -> list[dict[int, float]]:
    """For every seed of a line: {length: metric}."""
    runs = found["runs"][line].values()
    return [{int(n): summary[metric] for n, summary in run["curves"].items()} for run in runs]


def reference(found: dict, name: str, metric: str = "excess_past") -> dict[int, float]:
    """A reference guess ("uniform" or "unigram"): {length: metric}."""
    return {int(n): summary[metric] for n, summary in found["references"][name].items()}


def uniform(found: dict, metric: str = "excess_past") -> dict[int, float]:
    return reference(found, "uniform", metric)


def excess_by_position(found: dict, line: str, length: int) -> list[np.ndarray]:
    """For every seed: loss − floor in each bin of 16 positions, at ``length``."""
    floor = np.array(found["floor"][str(length)]["by_position"])
    return [np.array(run["curves"][str(length)]["loss_by_position"]) - floor for run in found["runs"][line].values()]


def test_the_absolute_encodings_are_worse_than_a_uniform_guess_past_the_training_length(extrapolation):
    """ "The two absolute encodings are worse than a uniform guess from the first length past {train} on.\""""
    train, guess = extrapolation["train_len"], uniform(extrapolation)
    for pe in ("sinusoidal", "learned"):
        for excess in per_seed(extrapolation, pe):
            assert all(excess[n] > guess[n] for n in excess if n > train), pe


def test_the_two_guesses_nearly_coincide(extrapolation):
    """ "this source uses its eight symbols almost equally often, so the two nearly coincide" (within 0.01 nats at
    every length, past the training length and on the first positions)."""
    for metric in ("excess_past", "excess_within"):
        guess, unigram = uniform(extrapolation, metric), reference(extrapolation, "unigram", metric)
        assert all(abs(guess[n] - unigram[n]) < 0.01 for n in guess if guess[n] is not None)


def test_rope_holds_at_one_and_a_half_times_and_breaks_after(extrapolation):
    """ "RoPE is still near the floor at 1.5× and breaks after that" (near: within 0.05; broken: 0.2 above the floor
    at 2×, 0.5 from 3× on)."""
    for excess in per_seed(extrapolation, "rope"):
        assert excess[96] < 0.05 and excess[128] > 0.2 and all(excess[n] > 0.5 for n in excess if n >= 192)


def test_t5_and_nope_climb_gradually_and_alibi_stays_near_the_floor(extrapolation):
    """ "T5 climbs gradually; so does NoPE, which levels off from 16× on. ALiBi stays within {alibi_max} nats of the
    floor out to {longest} tokens" (gradually: never falling by more than 0.02 from one length to the next, and at
    least 0.3 higher at 16× than just past the training length; levels off: NoPE changes by less than 0.05 from 16×
    on, T5 still rises there; alibi_max is rounded up from the file and stays below 0.1)."""
    train = extrapolation["train_len"]
    lengths = [n for n in extrapolation["lengths"] if n > train]
    for pe in ("t5", "none"):
        for excess in per_seed(extrapolation, pe):
            rising = [n for n in lengths if n <= 16 * train]
            steps = [excess[b] - excess[a] for a, b in itertools.pairwise(rising)]
            assert min(steps) > -0.02 and excess[16 * train] > excess[lengths[0]] + 0.3, pe
            late = [excess[n] - excess[16 * train] for n in lengths if n > 16 * train]
            assert all(abs(v) < 0.05 for v in late) if pe == "none" else min(late) > 0.05, pe
    worst = max(max(excess[n] for n in lengths) for excess in per_seed(extrapolation, "alibi"))
    assert worst < 0.1


def test_at_the_training_length_only_nope_is_far_from_the_floor(extrapolation):
    """ "At {train} tokens four of the five with an encoding are within 0.02 nats of the floor and ALiBi
    {alibi_within} above it, while NoPE is {none_within} above it already" (ALiBi: between the four and NoPE, below
    0.1; NoPE: at least 0.2)."""
    train = extrapolation["train_len"]
    for pe in PE_CHOICES:
        for within in per_seed(extrapolation, pe, "excess_within"):
            expected = {"none": within[train] > 0.2, "alibi": 0.02 < within[train] < 0.1}
            assert expected.get(pe, within[train] < 0.02), pe


def test_the_rope_scalings_as_the_page_ranks_them(extrapolation):
    """ "PI … past {train} it is worse than a uniform guess at every length. … At 2× NTK-aware and YaRN are both
    within 0.03 nats of the floor; averaged over the positions past {train}, YaRN is the lowest of the three at 4×
    and 8× (in every seed: the gap to NTK-aware at 4× is 0.07–0.17 over the seeds), but none is flat, and from 16×
    on all three are worse than a uniform guess. … with the paper's ramp YaRN is worse than a uniform guess from 2×
    on, like PI." (none is flat: each at least 0.1 above the floor at 4× and 0.5 at 8×.)"""
    train, guess = extrapolation["train_len"], uniform(extrapolation)
    for excess in per_seed(extrapolation, "linear"):
        assert all(excess[n] > guess[n] for n in excess if n > train)
    for excess in per_seed(extrapolation, "yarn_paper"):
        assert all(excess[n] > guess[n] for n in excess if n >= 2 * train)
    seeds = {m: per_seed(extrapolation, m) for m in ("ntk", "yarn", "llama3")}
    for index in range(len(seeds["yarn"])):
        ntk, yarn, llama3 = (seeds[m][index] for m in ("ntk", "yarn", "llama3"))
        assert ntk[2 * train] < 0.03 and yarn[2 * train] < 0.03
        for n in (4 * train, 8 * train):
            assert yarn[n] < min(ntk[n], llama3[n])
        assert all(excess[4 * train] > 0.1 and excess[8 * train] > 0.5 for excess in (ntk, yarn, llama3))
        for excess in (ntk, yarn, llama3):
            assert all(excess[n] > guess[n] for n in excess if n >= 16 * train)


def test_every_scaling_changes_the_first_positions_too(extrapolation):
    """ "each of these scalings applies one factor to the whole sequence, so the first {train} positions change too.
    At 512 tokens YaRN is {yarn_within} above the floor there, against {ntk_within} for NTK-aware and {llama3_within}
    for Llama 3.1"; by position: "on the first {train} positions of 512 tokens PI and YaRN with the paper's ramp are
    farthest from the floor, then Llama 3.1, YaRN and NTK-aware. At 256 tokens NTK-aware is the closer of NTK-aware
    and YaRN to the floor up to about position 170, YaRN after that" (changed: each scaling at least 0.03 above plain
    RoPE of the same seed there; the order holds in every seed with gaps of at least 0.1, PI and the paper's ramp
    within 0.15 of each other; by position: NTK-aware closer in every bin that starts before 176, YaRN in every bin
    from 176 on)."""
    train, bin_size = extrapolation["train_len"], extrapolation["position_bin"]
    lines = ("rope", "linear", "yarn_paper", "llama3", "yarn", "ntk")
    within = {m: per_seed(extrapolation, m, "excess_within") for m in lines}
    for index, plain in enumerate(within["rope"]):
        pi, paper, llama3, yarn, ntk = (within[m][index][512] for m in lines[1:])
        assert min(pi, paper) > llama3 + 0.1 and abs(pi - paper) < 0.15
        assert llama3 > yarn + 0.1 and yarn > ntk + 0.1 and ntk > plain[512] + 0.03
    assert train == 64  # the page's "about position 170" is for these bins
    starts = np.arange(0, 256, bin_size)
    for y, n in zip(excess_by_position(extrapolation, "yarn", 256), excess_by_position(extrapolation, "ntk", 256),
                    strict=True):  # fmt: skip
        early, late = starts < 176, starts >= 176
        assert (n[early] < y[early]).all() and (y[late] < n[late]).all()


def test_up_to_the_training_length_every_unscaled_model_is_where_it_was(extrapolation):
    """ "Up to position {train} every model is where it was in training, except RoPE scaled without fine-tuning"
    (every other line: its excess on the first {train} positions at any length within 0.03 of its value at {train}
    tokens, 0.06 at 2048, where only 8,192 tokens are evaluated)."""
    train = extrapolation["train_len"]
    for line in extrapolation["runs"]:
        if line in SCALED:
            continue
        for within in per_seed(extrapolation, line, "excess_within"):
            for n in (n for n in within if n >= train):
                assert abs(within[n] - within[train]) < (0.06 if n == 2048 else 0.03), (line, n)


def test_the_fine_tunes_hold_to_their_own_length_and_break_past_it(extrapolation):
    """ "read up to 512, the length they were tuned at, YaRN stays within {ft_yarn_max} nats of the floor and RoPE
    fine-tuned with no scaling at all within {ft_plain_max} … Read further, both break: at {longest} tokens …"
    (within: below 0.1 up to 512; broken: at the longest length at least 0.3 above the floor and three times the
    worst up to 512)."""
    tuned = extrapolation["config"]["finetune_length"]
    longest = max(extrapolation["lengths"])
    for method in ("yarn", "plain"):
        for excess in per_seed(extrapolation, f"ft_{method}"):
            worst = max(v for n, v in excess.items() if extrapolation["train_len"] < n <= tuned)
            assert worst < 0.1 and excess[longest] > max(0.3, 3 * worst), method


def test_clamping_t5s_far_buckets_removes_the_early_break_but_not_the_slow_rise(extrapolation):
    """ "Clamping them to the last trained bucket … removes the rise right after {train}: the excess at {first}
    tokens falls from {t5_first} to {t5c_first}. T5 still degrades, more slowly …" (clamped: below 0.05 at the first
    length past the training length, at least 0.1 below T5 there; lower than T5 at every length; above 0.5 at the
    longest)."""
    train = extrapolation["train_len"]
    first, longest = min(n for n in extrapolation["lengths"] if n > train), max(extrapolation["lengths"])
    for t5, clamped in zip(per_seed(extrapolation, "t5"), per_seed(extrapolation, "t5_clamped"), strict=True):
        assert clamped[first] < 0.05 and clamped[first] + 0.1 < t5[first]
        assert all(clamped[n] < t5[n] for n in t5 if n > train)
        assert clamped[longest] > 0.5


def test_t5s_never_reached_buckets_keep_random_values_above_the_trained_ones(models):
    """ "never reached the buckets past the one that holds distance {train} − 1: they keep their random starting
    values (less a little weight decay), and in the shipped seed-0 model one head's are above every trained one"
    (distance {train} − 1 and {train} share a bucket here, so the first untrained one starts past {train}; in some
    head a far bucket is at least 1 above every bucket that training reached)."""
    from posenc.toy.lm import load_lm

    model, _ = load_lm(ASSETS / "extrapolation" / "t5.pt")
    table = model.bias.table.weight.detach()  # [buckets, heads]

    def bucket(distance: int) -> int:
        return int(t5_relative_bucket(torch.tensor(-distance), False, model.bias.num_buckets, model.bias.max_distance))

    last = bucket(63)
    assert last + 1 < len(table) and bucket(64) == last  # not "the buckets for distances of 64 and more"
    assert float((table[last + 1 :].max(0).values - table[: last + 1].max(0).values).max()) > 1.0


def test_pi_does_not_recover_at_any_rate_of_the_sweep(extrapolation):
    """ "at every rate of a small sweep (10⁻⁴, 3·10⁻⁴ and 10⁻³ …) its validation loss stayed above 2.0 nats, where the
    floor is about 1.24, and the best of them is {ft_linear_within} above the floor even on the first {train}
    positions, close to a guess from symbol frequencies" (the sweep on seed 0, the chosen rate in every seed: above
    2.0; close: within 0.1 of that guess on the first {train} positions)."""
    train = extrapolation["train_len"]
    sweep = extrapolation["finetune_sweep"]["linear"]
    rates = sweep["validation_loss"]
    assert set(rates) == {"0.0001", "0.0003", "0.001"} and min(rates.values()) > 2.0
    for run in extrapolation["runs"]["ft_linear"].values():
        assert run["training"]["lr"] == sweep["chosen_lr"] and run["training"]["validation_loss"] > 2.0
    assert extrapolation["floor"]["512"]["loss"] == pytest.approx(1.24, abs=0.01)
    guess = reference(extrapolation, "unigram", "excess_within")[train]
    for within in per_seed(extrapolation, "ft_linear", "excess_within"):
        assert abs(within[train] - guess) < 0.1


def test_only_pi_swept_its_rate_and_nope_trained_longer_resumed_the_trained_model(extrapolation):
    """posenc.toy.extrapolate's docstring: "The learning rate of a method in ``swept`` (PI) is picked from
    ``finetune_lrs`` …; the others use ``finetune_lr``" and NoPE's long run is "``none_long_steps`` more steps,
    resumed from the trained NoPE model (3× the budget)", as the page's "No PE, trained 3× longer" says."""
    config = extrapolation["config"]
    assert config["swept"] == ["linear"]
    for method, sweep in extrapolation["finetune_sweep"].items():
        rates = {float(rate) for rate in sweep["validation_loss"]}
        assert rates == (set(config["finetune_lrs"]) if method in config["swept"] else {config["finetune_lr"]})
        for run in extrapolation["runs"][f"ft_{method}"].values():
            assert run["training"]["lr"] == sweep["chosen_lr"]
    for run in extrapolation["runs"]["none_long"].values():
        assert run["training"]["continued_from"] == "none"
        assert run["training"]["total_steps"] == config["steps"] + config["none_long_steps"] == 3 * config["steps"]


def test_by_position_the_absolute_encodings_break_first_and_alibi_stays_flat(extrapolation):
    """ "The absolute encodings break right after {train}, plain RoPE a little later, T5 and NoPE climb gradually,
    ALiBi stays flat" (at 512 tokens: positions 64–79 already 0.5 above the floor for the absolute ones, below 0.1
    for RoPE, which is 0.5 above from position 192 on; T5 and NoPE: below 0.5 at positions 64–79, never more than
    0.3 higher from one bin to the next, and the last 64 positions at least 0.4 higher than positions 64–79; every
    ALiBi bin within 0.15 of the floor)."""
    bin_size, train = extrapolation["position_bin"], extrapolation["train_len"]
    right_after = train // bin_size
    for pe in ("sinusoidal", "learned"):
        for excess in excess_by_position(extrapolation, pe, 512):
            assert excess[right_after] > 0.5, pe
    for excess in excess_by_position(extrapolation, "rope", 512):
        assert excess[right_after] < 0.1 and (excess[192 // bin_size :] > 0.5).all()
    for pe in ("t5", "none"):
        for excess in excess_by_position(extrapolation, pe, 512):
            past = excess[right_after:]
            assert past[0] < 0.5 and np.diff(past).max() < 0.3 and past[-4:].mean() > past[0] + 0.4, pe
    for excess in excess_by_position(extrapolation, "alibi", 512):
        assert (np.abs(excess) < 0.15).all()


def test_nope_trained_longer_closes_part_of_its_gap_but_rises_as_before(extrapolation):
    """ "Trained three times longer it comes closer ({none_long_within}) but still not as close as the others, and
    from 4× the training length on it is where the plain one is ({none_long_longest} at {longest} tokens, against
    {none_longest})" (closer: below the plain NoPE of the same seed; not as close: still 0.1 above the floor where
    the others are within 0.05; where the plain one is: within 0.05 of the plain NoPE of the same seed at every
    length from 4× on)."""
    train = extrapolation["train_len"]
    assert extrapolation["config"]["none_long_steps"] == 2 * extrapolation["config"]["steps"]  # 3× in all (resumed)
    within = {line: per_seed(extrapolation, line, "excess_within") for line in ("none", "none_long")}
    for short, long in zip(within["none"], within["none_long"], strict=True):
        assert 0.1 < long[train] < short[train]
    for short, long in zip(per_seed(extrapolation, "none"), per_seed(extrapolation, "none_long"), strict=True):
        assert all(abs(long[n] - short[n]) < 0.05 for n in short if n >= 4 * train)


def band_weight(maps: torch.Tensor, queries: range) -> np.ndarray:
    """Per head: the mean weight that the queries put on themselves and the two keys before them, [H]."""
    rows = torch.tensor(list(queries))
    band = sum(maps[:, rows, rows - offset] for offset in range(3))  # [H, queries]
    return band.mean(dim=1).numpy()


def test_attention_keeps_the_near_band_only_where_the_encoding_carries_over():
    """ "Within the training length every model with an encoding draws it sharply in most heads of layer 2; past it
    the sinusoid, the learned table and plain RoPE mostly lose it, while ALiBi keeps it" (the shipped seed-0 models,
    one input of 256 tokens, layer 2: at least half the weight on the band in 3 of 4 heads for queries 8–63; past 64
    the band's mean weight falls below half of what it was for the three, and keeps 80 % of it for ALiBi)."""
    from posenc.toy import markov
    from posenc.toy.extrapolate import evaluation_tokens
    from posenc.toy.lm import attention_maps, load_lm

    tokens = evaluation_tokens(256, markov.make_source())[0, :256]
    for pe in ("sinusoidal", "learned", "rope", "t5", "alibi"):
        model, _ = load_lm(ASSETS / "extrapolation" / f"{pe}.pt")
        layer_2 = attention_maps(model, tokens, None)[1]  # [H, L, L]
        within, past = band_weight(layer_2, range(8, 64)), band_weight(layer_2, range(64, 256))
        assert (within > 0.5).sum() >= 3, pe
        if pe == "alibi":
            assert past.mean() > 0.8 * within.mean()
        elif pe != "t5":
            assert past.mean() < 0.5 * within.mean(), pe
