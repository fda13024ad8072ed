"""One ablation for each explanation "Train short, test long" gives, measured on every training seed's models.

    python -m posenc.toy.ablations --jobs 2

Each changes one thing in a trained model at evaluation time (no training) and reads the task again:
- ``pi_squeeze``: RoPE + PI at s = 2, 4, 8 read at the training length (64 tokens): every distance seen in training,
  only the neighbours squeezed together. The page says PI fails on the Markov task because of that squeeze.
- ``absolute_wrapped``: the sinusoid and the learned table at 128 and 512 tokens with positions p mod 64 (every code
  seen in training), and a 64-token input placed at positions 448–511 (only unseen codes, no long context). The page
  says they break past 64 because those positions were never seen (sinusoid) or have no rows (table).
- ``alibi_capped_markov`` (512 and 2048 tokens), ``alibi_capped_needle`` (2048): ALiBi with its bias capped at the
  farthest distance training saw, −m·min(i − j, 63). The page says far tokens fade under ALiBi's growing penalty:
  its Markov loss stays flat, far needles get lost.
- ``yarn_paper_fast_pair``: YaRN with the paper's ramp, except the fastest pair kept whole (θ_0, as transformers'
  ramp keeps it). The page blames the paper's ramp's failure on moving that pair.
- ``t5_window``: T5 with every key farther than 63 tokens masked out. The page says clamped T5 still degrades because
  the keys past 63 share one bias, so their total weight grows with their number.
- ``positions_removed``: the needle models at 64 tokens given no position at all (every position the sinusoid's or
  the table's code for 63; every T5 distance the bias of distance 63). The page says they find the needle by what it
  is.
- ``alibi_far_unpenalised`` (512 and 2048 tokens): ALiBi with no penalty at all on keys more than 63 tokens back
  (bias 0 there, −m·(i − j) nearer): the fading removed, not only its growth. The page says ALiBi stays flat on the
  Markov task because far tokens fade.
- ``nope_layer1``: NoPE with layer 1's attention replaced, in every head, by attention to the token itself only
  (what layer 1 averaged taken away; also by no weight at all, the output W_O's bias alone), or by an exact causal
  average, 1/(i + 1) on each key (the average alone, nothing learned), read by layer 2's band and the loss. The
  page says NoPE draws the band in layer 2 from what layer 1 averaged.
- ``learned_gapped``: the learned table read at 32 tokens with only half its rows, in increasing order with gaps
  (8 fixed draws): each of the three previous tokens sits one to three places back, but its row is one to three rows
  back or more. The page says the attention weights learned which code sits one, two and three places back: then a
  neighbour whose row is more than three back should lose its weight.
- ``pi_needle``: the needle RoPE model and the Markov RoPE model, both at their training length of 64 tokens, with
  PI's θ/s at s = 2, 4, 8, 32 and with no rotation at all (θ = 0). The page says PI fails the Markov task by blurring
  the nearest neighbours, while the needle only has to be found.
Also, for every seed, what the page draws from seed 0 only: the attention on the three previous tokens (the band of
the attention maps, ``attention_band_<pe>``; for RoPE also with PI and YaRN at s = L / 64, 256 and 512 tokens,
``attention_band_rope_scaled``), the T5 buckets training never reached (``t5_untrained_buckets``), the cosine between
neighbouring rows of the learned table (``learned_neighbour_cosine``) and between its early and late rows
(``learned_table_trend``). ``--only`` runs some of them;
the file holds every ablation whose result is there for every seed.
Seed 0's models are the shipped ones; seeds 1 and 2 are rebuilt (:mod:`posenc.toy.seed_models`), and each seed's
unchanged readings are stored beside the ablated ones, so a test can hold them to extrapolation.json and
retrieval.json. Writes ``<out>/ablations.json``; per-seed results are cached under ``--work``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import time
from pathlib import Path

import torch
from torch import nn

from posenc.absolute import sinusoidal
from posenc.relative import alibi_bias_per_offset, relative_positions, t5_relative_bucket
from posenc.toy import markov, retrieval
from posenc.toy.extrapolate import evaluation_tokens, rope_scaling, summarise
from posenc.toy.lm import CausalLM, RopeScaling, attention_maps, token_losses
from posenc.toy.model import ASSETS
from posenc.toy.seed_models import WORK, run_processes, seed_model

TRAIN = 64  # the training length of both tasks
SEEDS = (0, 1, 2)
COMMAND = "python -m posenc.toy.ablations --jobs 2"
MARKOV_PES = ("none", "sinusoidal", "learned", "rope", "t5", "alibi")
NEEDLE_PES = ("sinusoidal", "learned", "t5", "alibi")
BAND = 3  # the Markov source's order: the keys i − 1 … i − 3 are the band of the attention maps


# --------------------------------------------------------------------------- interventions


class FixedBias(nn.Module):
    """An attention bias [H, L, L] from a function of the length, in place of a model's own."""

    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def forward(self, length: int) -> torch.Tensor:
        return self.make(length)


@contextlib.contextmanager
def bias_as(model: CausalLM, make):
    """Read ``model`` with the additive attention bias ``make(length)`` [H, L, L] (future keys −inf) in every layer,
    in place of ALiBi's or T5's own: the model runs its T5 path, logits = q·k/√Dh + bias."""
    config, own = model.config, getattr(model, "bias", None)
    model.config, model.bias = dataclasses.replace(config, pe="t5"), FixedBias(make)
    try:
        yield model
    finally:
        model.config = config
        if own is None:
            del model.bias
        else:
            model.bias = own


@contextlib.contextmanager
def positions_as(model: CausalLM, positions):
    """Read an absolute-encoding model with position ``positions(L)[p]`` [L] given to the token at p (the learned
    table still clamps past its last row: E[min(positions[p], 63)])."""
    if model.config.pe not in ("sinusoidal", "learned"):
        raise ValueError(f"positions apply to the absolute encodings only; this model uses {model.config.pe!r}.")

    def table(length: int) -> torch.Tensor:
        chosen = positions(length)  # [L]
        if model.config.pe == "sinusoidal":
            return sinusoidal(int(chosen.max()) + 1, model.config.d_model)[chosen]  # PE(positions[p]), [L, D]
        return model.positions(chosen.clamp(max=model.config.max_len - 1))  # [L, D]

    model.embed_positions = table
    try:
        yield model
    finally:
        del model.embed_positions


def alibi_capped(heads: int, cap: int):
    """ALiBi's causal bias with the distance capped: −m_h·min(i − j, cap) for j ≤ i, −inf after i. [H, L, L]."""
    return lambda length: alibi_bias_per_offset(relative_positions(length).clamp(min=-cap), heads)


def alibi_far_unpenalised(heads: int, cap: int):
    """ALiBi's causal bias with no penalty past ``cap``: −m_h·(i − j) for i − j ≤ cap, 0 for i − j > cap, −inf after
    i. [H, L, L]."""

    def make(length: int) -> torch.Tensor:
        relative = relative_positions(length)  # j − i, [L, L]
        return alibi_bias_per_offset(relative, heads).masked_fill(-relative > cap, 0.0)

    return make


@contextlib.contextmanager
def attention_weights_as(model: CausalLM, layer: int, make):
    """Read ``model`` with layer ``layer``'s (1-based) attention weights set to ``make(length)`` [L, L] in every head:
    output = W_O·(weights · V), the values and the output projection as trained, the queries and keys unused."""
    attention = model.blocks[layer - 1].attention

    def forward(x, memory, method, causal=False, key_padding=None, position_bias=None, scale=None, rope_inv_freq=None):
        values = attention.value(memory).unflatten(-1, (attention.heads, -1)).transpose(1, 2)  # [B, H, L, Dh]
        weights = make(x.shape[1]).expand(x.shape[0], attention.heads, -1, -1)  # [B, H, L, L]
        return attention.out(torch.matmul(weights, values).transpose(1, 2).flatten(-2)), weights  # [B, L, D]

    attention.forward = forward  # an instance attribute: nn.Module calls it in place of Attention.forward
    try:
        yield model
    finally:
        del attention.forward


def zeroed(length: int) -> torch.Tensor:
    """No weight on any key: the attention output is W_O's bias alone, [L, L]."""
    return torch.zeros(length, length)


def self_only(length: int) -> torch.Tensor:
    """Each token attends to itself only: the identity, [L, L]."""
    return torch.eye(length)


def causal_average(length: int) -> torch.Tensor:
    """An exact causal average: weight 1/(i + 1) on each key j ≤ i, [L, L]."""
    return torch.tril(torch.ones(length, length)) / torch.arange(1, length + 1)[:, None]


def t5_window(model: CausalLM, window: int):
    """T5's own bias with every key more than ``window`` tokens back masked (−inf). [H, L, L]."""
    own = model.bias
    return lambda length: own(length).masked_fill(-relative_positions(length) > window, float("-inf"))


def t5_flat(model: CausalLM, distance: int):
    """One bias for every distance: the T5 table's value for ``distance`` in every cell. [H, L, L]."""
    bias = model.bias
    bucket = t5_relative_bucket(torch.tensor(-distance), False, bias.num_buckets, bias.max_distance)
    value = bias.table.weight[bucket].detach()  # [H]
    return lambda length: value[:, None, None].expand(-1, length, length).clone()


def paper_ramp_fast_pair_whole(model: CausalLM, length: int) -> RopeScaling:
    """YaRN with the paper's ramp at s = length / 64, except pair 0 at its own frequency θ_0."""
    inv_freq, factor = rope_scaling("yarn_paper", length / TRAIN, model.config, length)
    plain, _ = rope_scaling("plain", 1.0, model.config, length)
    inv_freq = inv_freq.clone()
    inv_freq[0] = plain[0]
    return inv_freq, factor


# --------------------------------------------------------------------------- readings


@torch.no_grad()
def markov_reading(model: CausalLM, length: int, rope: RopeScaling | None = None) -> dict:
    """Excess over the floor on the Markov evaluation set at ``length``: {"excess_within", "excess_past"}."""
    source = markov.make_source()
    tokens = evaluation_tokens(length, source)
    chunk = max(1, 2**22 // length**2)
    losses = torch.cat([token_losses(model, tokens[i : i + chunk], rope) for i in range(0, len(tokens), chunk)])
    found = summarise(losses, markov.true_loss(source, tokens), TRAIN)
    return {"excess_within": found["excess_within"], "excess_past": found["excess_past"]}


@torch.no_grad()
def needle_reading(model: CausalLM, length: int, rope: RopeScaling | None = None) -> dict:
    """Needle accuracy at ``length`` per depth (retrieval.DEPTHS, its evaluation sequences): {"accuracy": [...],
    "accuracy_mean"}."""
    count = retrieval.sequences_per_cell(length, retrieval.RetrievalConfig())
    accuracy = []
    for index in range(len(retrieval.DEPTHS)):
        batch, _ = retrieval.evaluation_batch(length, index, count)
        correct, _ = retrieval.answer(model, batch, rope)
        accuracy.append(round(float(correct.double().mean()), 5))
    return {"accuracy": accuracy, "accuracy_mean": round(sum(accuracy) / len(accuracy), 5)}


def pi_squeeze(rope_model: CausalLM) -> dict:
    """PI at s = 2, 4, 8 read at 64 tokens, beside PI at 64·s tokens (where the page saw it fail)."""
    found = {"plain_at_64": markov_reading(rope_model, TRAIN)}
    for s in (2, 4, 8):
        found[f"s{s}_at_64"] = markov_reading(rope_model, TRAIN, rope_scaling("linear", s, rope_model.config, TRAIN))
        length = TRAIN * s
        found[f"s{s}_at_{length}"] = markov_reading(rope_model, length,
                                                    rope_scaling("linear", s, rope_model.config, length))  # fmt: skip
    return found


def absolute_wrapped(model: CausalLM) -> dict:
    """The absolute model as trained, with positions mod 64, and a 64-token input at positions 448–511."""
    found = {}
    for length in (128, 512):
        found[f"plain_{length}"] = markov_reading(model, length)
        with positions_as(model, lambda n: torch.arange(n) % TRAIN):
            found[f"wrapped_{length}"] = markov_reading(model, length)
    found["plain_64"] = markov_reading(model, TRAIN)
    with positions_as(model, lambda n: torch.arange(n) + 512 - TRAIN):
        found["shifted_64"] = markov_reading(model, TRAIN)  # positions 448 … 511
    return found


def _plain_and_capped(model: CausalLM, lengths: tuple[int, ...], reading) -> dict:
    """``reading(model, length)`` of the ALiBi model as trained and with its distance capped at 63, per length."""
    found = {}
    for length in lengths:
        found[f"plain_{length}"] = reading(model, length)
        with bias_as(model, alibi_capped(model.config.heads, TRAIN - 1)):
            found[f"capped_{length}"] = reading(model, length)
    return found


def alibi_capped_markov(model: CausalLM) -> dict:
    """The Markov ALiBi model as trained and with its distance capped at 63, at 512 and 2048 tokens."""
    return _plain_and_capped(model, (512, 2048), markov_reading)


def alibi_capped_needle(model: CausalLM) -> dict:
    """The needle ALiBi model as trained and with its distance capped at 63, at 2048 tokens."""
    return _plain_and_capped(model, (2048,), needle_reading)


def yarn_paper_fast_pair(rope_model: CausalLM) -> dict:
    """Both YaRNs and the paper's ramp with pair 0 kept whole, at 128 and 512 tokens."""
    found = {}
    for length in (128, 512):
        for method in ("yarn", "yarn_paper"):
            rope = rope_scaling(method, length / TRAIN, rope_model.config, length)
            found[f"{method}_{length}"] = markov_reading(rope_model, length, rope)
        rope = paper_ramp_fast_pair_whole(rope_model, length)
        found[f"paper_pair0_whole_{length}"] = markov_reading(rope_model, length, rope)
    return found


def alibi_far_unpenalised_markov(model: CausalLM) -> dict:
    """The Markov ALiBi model as trained and with keys more than 63 back unpenalised, at 512 and 2048 tokens."""
    found = {}
    for length in (512, 2048):
        found[f"plain_{length}"] = markov_reading(model, length)
        with bias_as(model, alibi_far_unpenalised(model.config.heads, TRAIN - 1)):
            found[f"unpenalised_{length}"] = markov_reading(model, length)
    return found


def nope_layer1(none_model: CausalLM) -> dict:
    """NoPE as trained, with layer 1 attending to each token itself only, with layer 1's attention output zeroed
    (its bias left), and with layer 1 an exact causal average: per way, the band (:func:`band_weights`, 512 tokens),
    layer 2's weight on the keys with the query's own symbol, and the Markov excess at 64 and 512 tokens."""
    found = {}
    ways = (("plain", None), ("self_only", self_only), ("zeroed", zeroed), ("average", causal_average))
    for way, make in ways:
        context = contextlib.nullcontext() if make is None else attention_weights_as(none_model, 1, make)
        with context:
            found[way] = {"band": band_weights(none_model), "same_symbol": same_symbol_weights(none_model),
                          "at_64": markov_reading(none_model, TRAIN),
                          "at_512": markov_reading(none_model, 512)}  # fmt: skip
    found["same_symbol_share"] = same_symbol_share()
    return found


def _same_symbol(length: int = 512) -> tuple[torch.Tensor, torch.Tensor]:
    """The first Markov evaluation sequence of ``length`` tokens [L] and, for the queries i = BAND … 63, which keys
    j ≤ i hold the query's own symbol [64 − BAND, L] (the query itself included)."""
    tokens = evaluation_tokens(length, markov.make_source())[0, :length]
    queries = torch.arange(BAND, TRAIN)
    same = (tokens[None, :] == tokens[queries, None]) & (torch.arange(length)[None, :] <= queries[:, None])
    return tokens, same


@torch.no_grad()
def same_symbol_weights(model: CausalLM, length: int = 512) -> list[float]:
    """Per head, layer 2's weight on the keys holding the query's own symbol, averaged over the queries BAND … 63 of
    the sequence :func:`band_weights` reads."""
    tokens, same = _same_symbol(length)
    weights = attention_maps(model, tokens)[1][:, BAND:TRAIN]  # [H, 64 − BAND, L]
    return [round(float(v), 4) for v in (weights * same).sum(-1).mean(-1)]


def same_symbol_share(length: int = 512) -> float:
    """What a plain causal average gives those keys: their count / (i + 1), averaged over the same queries."""
    _, same = _same_symbol(length)
    return round(float((same.sum(-1) / torch.arange(BAND + 1, TRAIN + 1)).mean()), 4)


GAPPED = 32  # input tokens of the gapped reading: half the table's rows
DRAWS = 8  # draws of the rows kept (torch.Generator seeds 0 … 7), one evaluation sequence each


def gapped_codes(index: int) -> torch.Tensor:
    """The ``index``-th draw: GAPPED of the table's 64 rows, in increasing order; position p gets row codes[p]. [32]"""
    return torch.randperm(TRAIN, generator=torch.Generator().manual_seed(index))[:GAPPED].sort().values


@torch.no_grad()
def neighbour_weights(model: CausalLM, tokens: torch.Tensor, codes: torch.Tensor) -> list[dict]:
    """``model`` reading ``tokens`` [L] with position p given row codes[p]: for every query i ≥ BAND and each of its
    BAND previous tokens j = i − 1 … i − BAND, the attention weight per layer and head on j ([layers, H]), the code
    distance codes[i] − codes[j] and the query i."""
    with positions_as(model, lambda n: codes[:n]):
        maps = torch.stack(attention_maps(model, tokens))  # [layers, H, L, L]
    return [{"query": i, "code_distance": int(codes[i] - codes[i - k]), "weight": maps[:, :, i, i - k]}
            for i in range(BAND, len(tokens)) for k in range(1, BAND + 1)]  # fmt: skip


def learned_gapped(learned_model: CausalLM) -> dict:
    """The learned table read at 32 tokens with only half its rows, in order with gaps (DRAWS draws): each previous
    token i − 1 … i − 3 sits one to three places back, but its row is one to three rows back ("near") or more
    ("far"). Per layer and head, the mean weight on a near and on a far neighbour, and on a neighbour with the table
    in order (the same sequences); the mean uniform share 1/(i + 1) of each kind; and the Markov excess at 32 tokens
    (mean over the draws, and in order)."""
    sequences = evaluation_tokens(GAPPED, markov.make_source())[:DRAWS, :GAPPED]
    near, far, in_order = [], [], []
    for index in range(DRAWS):
        for row in neighbour_weights(learned_model, sequences[index], gapped_codes(index)):
            (near if row["code_distance"] <= BAND else far).append(row)
        in_order += neighbour_weights(learned_model, sequences[index], torch.arange(GAPPED))

    def mean(rows: list[dict]) -> dict:
        weights = torch.stack([row["weight"] for row in rows]).mean(0)  # [layers, H]
        return {str(layer): [round(float(v), 4) for v in per_head] for layer, per_head in enumerate(weights, 1)}

    excess = []
    for index in range(DRAWS):
        codes = gapped_codes(index)
        with positions_as(learned_model, lambda n, codes=codes: codes[:n]):
            excess.append(markov_reading(learned_model, GAPPED)["excess_within"])
    return {
        "draws": DRAWS, "near": mean(near), "far": mean(far), "in_order": mean(in_order),
        "near_count": len(near), "far_count": len(far),
        "uniform_near": round(sum(1 / (row["query"] + 1) for row in near) / len(near), 4),
        "uniform_far": round(sum(1 / (row["query"] + 1) for row in far) / len(far), 4),
        "excess_gapped": round(sum(excess) / len(excess), 5),
        "excess_in_order": markov_reading(learned_model, GAPPED)["excess_within"],
    }  # fmt: skip


def unrotated(config) -> RopeScaling:
    """RoPE with every frequency 0: no rotation, no position (the limit s → ∞ of PI). (inv_freq [P], factor 1)."""
    return torch.zeros(config.d_model // config.heads // 2), 1.0


def pi_needle(needle_model: CausalLM, markov_model: CausalLM) -> dict:
    """The needle and the Markov RoPE models at 64 tokens, as trained, with PI at s = 2, 4, 8, 32 and unrotated:
    {"needle": {way: needle_reading}, "markov": {way: markov_reading}}."""
    ways = {"plain": None} | {f"s{s}": s for s in (2, 4, 8, 32)} | {"unrotated": 0}
    found = {"needle": {}, "markov": {}}
    for way, s in ways.items():
        for task, model, reading in (("needle", needle_model, needle_reading),
                                     ("markov", markov_model, markov_reading)):  # fmt: skip
            if s is None:
                rope = None
            elif s == 0:
                rope = unrotated(model.config)
            else:
                rope = rope_scaling("linear", s, model.config, TRAIN)
            found[task][way] = reading(model, TRAIN, rope)
    return found


def t5_window_readings(t5_model: CausalLM) -> dict:
    """T5 as trained and with keys more than 63 tokens back masked, at 512 and 2048 tokens."""
    found = {}
    for length in (512, 2048):
        found[f"plain_{length}"] = markov_reading(t5_model, length)
        with bias_as(t5_model, t5_window(t5_model, TRAIN - 1)):
            found[f"window_{length}"] = markov_reading(t5_model, length)
    return found


def positions_removed(needle_model: CausalLM) -> dict:
    """A needle model as trained and with no position information, at the training length."""
    found = {}
    for length in (TRAIN,):
        found[f"plain_{length}"] = needle_reading(needle_model, length)
        if needle_model.config.pe == "t5":
            context = bias_as(needle_model, t5_flat(needle_model, TRAIN - 1))
        else:
            context = positions_as(needle_model, lambda n: torch.full((n,), TRAIN - 1))
        with context:
            found[f"removed_{length}"] = needle_reading(needle_model, length)
    return found


@torch.no_grad()
def band_weights(model: CausalLM, length: int = 512, rope: RopeScaling | None = None) -> dict:
    """Per layer and head, the attention weight on the BAND previous keys (i − 1 … i − BAND), averaged over queries
    p < 64 ("within") and p ≥ 64 ("past") of the first Markov evaluation sequence of ``length`` tokens (RoPE read
    with ``rope``'s frequencies and factor, if given)."""
    tokens = evaluation_tokens(length, markov.make_source())[0, :length]
    found = {}
    for layer, weights in enumerate(attention_maps(model, tokens, rope), start=1):  # [H, L, L]
        # weights[h, i, i − k] for k = 1 … BAND, summed, for the queries i = BAND … L − 1: [H, L − BAND]
        band = sum(torch.diagonal(weights, -k, -2, -1)[:, BAND - k :] for k in range(1, BAND + 1))
        found[str(layer)] = {"within": [round(float(v), 4) for v in band[:, : TRAIN - BAND].mean(1)],
                             "past": [round(float(v), 4) for v in band[:, TRAIN - BAND :].mean(1)]}  # fmt: skip
    return found


SCALED_BAND_LENGTHS = (256, 512)  # the attention maps' lengths at which the page's notice has YaRN and PI tried


def rope_scaled_band(rope_model: CausalLM) -> dict:
    """RoPE's band (:func:`band_weights`) at 256 and 512 tokens as trained ("plain"), with PI ("linear") and with YaRN
    (transformers' ramp, "yarn") at s = L / 64, no training: {"<way>_<L>": band_weights}."""
    found = {}
    for length in SCALED_BAND_LENGTHS:
        for way in ("plain", "linear", "yarn"):
            rope = None if way == "plain" else rope_scaling(way, length / TRAIN, rope_model.config, length)
            found[f"{way}_{length}"] = band_weights(rope_model, length, rope)
    return found


TREND_ROWS = 16  # the table's first and last 16 rows: "early" and "late" positions


def learned_trend(learned_model: CausalLM) -> dict:
    """The learned table's broad trend: the mean cosine cos(E_p, E_q) between different rows p ≠ q among the first
    16 positions ("early"), among the last 16 ("late"), and between the first and the last 16 ("early_late")."""
    table = learned_model.positions(torch.arange(TRAIN)).detach().double()  # [64, D]
    unit = table / table.norm(dim=-1, keepdim=True)
    cosine = unit @ unit.T  # [64, 64]
    off_diagonal = ~torch.eye(TREND_ROWS, dtype=torch.bool)
    early, late = cosine[:TREND_ROWS, :TREND_ROWS], cosine[-TREND_ROWS:, -TREND_ROWS:]
    return {
        "rows": TREND_ROWS,
        "early": round(float(early[off_diagonal].mean()), 4),
        "late": round(float(late[off_diagonal].mean()), 4),
        "early_late": round(float(cosine[:TREND_ROWS, -TREND_ROWS:].mean()), 4),
    }


def t5_untrained_buckets(t5_model: CausalLM) -> dict:
    """Per head: the highest bias among the buckets training reached (distances 0 … 63), the bias of the last of them
    (distance 63, the value clamping copies) and the highest among the buckets training never reached."""
    bias = t5_model.bias
    last = int(t5_relative_bucket(torch.tensor(-(TRAIN - 1)), False, bias.num_buckets, bias.max_distance))
    table = bias.table.weight.detach()  # [buckets, H]
    return {
        "trained_max": [round(float(v), 4) for v in table[: last + 1].max(0).values],
        "last_trained": [round(float(v), 4) for v in table[last]],
        "untrained_max": [round(float(v), 4) for v in table[last + 1 :].max(0).values],
        "last_trained_bucket": last,
    }


def learned_neighbours(learned_model: CausalLM) -> float:
    """Mean cosine between neighbouring rows of the learned table, cos(E_p, E_{p+1}) for p = 0 … 62."""
    table = learned_model.positions(torch.arange(TRAIN)).detach()
    return round(float(torch.nn.functional.cosine_similarity(table[:-1], table[1:], dim=-1).mean()), 4)


# name: (the models it reads as (task, pe), what it does with them)
ABLATIONS = {
    "pi_squeeze": ((("markov", "rope"),), pi_squeeze),
    "yarn_paper_fast_pair": ((("markov", "rope"),), yarn_paper_fast_pair),
    "alibi_capped_needle": ((("needle", "alibi"),), alibi_capped_needle),
    "positions_removed": (tuple(("needle", pe) for pe in ("sinusoidal", "learned", "t5")),
                          lambda *models: {m.config.pe: positions_removed(m) for m in models}),
    "absolute_wrapped": ((("markov", "sinusoidal"), ("markov", "learned")),
                         lambda *models: {m.config.pe: absolute_wrapped(m) for m in models}),
    "alibi_capped_markov": ((("markov", "alibi"),), alibi_capped_markov),
    "t5_window": ((("markov", "t5"),), t5_window_readings),
    "t5_untrained_buckets": ((("markov", "t5"),), t5_untrained_buckets),
    "learned_neighbour_cosine": ((("markov", "learned"),), learned_neighbours),
} | {f"attention_band_{pe}": ((("markov", pe),), band_weights) for pe in MARKOV_PES} | {
    "alibi_far_unpenalised": ((("markov", "alibi"),), alibi_far_unpenalised_markov),
    "nope_layer1": ((("markov", "none"),), nope_layer1),
    "learned_gapped": ((("markov", "learned"),), learned_gapped),
    "pi_needle": ((("needle", "rope"), ("markov", "rope")), pi_needle),
    "attention_band_rope_scaled": ((("markov", "rope"),), rope_scaled_band),
    "learned_table_trend": ((("markov", "learned"),), learned_trend),
}  # fmt: skip


def result_path(work: Path, name: str, seed: int) -> Path:
    return work / "ablations" / f"seed{seed}" / f"{name}.json"


def run_seed(seed: int, names: list[str], work: Path) -> None:
    """The ablations ``names`` on one seed's models (loaded, or rebuilt and cached), each written to
    ``<work>/ablations/seed<seed>/<name>.json`` with its CPU seconds; those already there are skipped."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for name in names:
        path = result_path(work, name, seed)
        if path.exists():
            continue
        start = time.process_time()
        needs, measure = ABLATIONS[name]
        found = measure(*(seed_model(task, pe, seed, work) for task, pe in needs))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"result": found, "cpu_seconds": round(time.process_time() - start, 1)}) + "\n")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ASSETS)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="+", choices=list(ABLATIONS), default=list(ABLATIONS),
                        help="run these ablations (the file keeps every ablation done for every seed)")  # fmt: skip
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)  # one seed, in its own process
    args = parser.parse_args(argv)
    if args.seed is not None:
        run_seed(args.seed, args.only, args.work)
        return {}
    started = time.time()
    python, work = sys.executable, str(args.work)
    wanted = sorted({need for name in args.only for need in ABLATIONS[name][0]}, key=lambda n: (n[0] != "markov", n))
    models = [
        [python, "-m", "posenc.toy.seed_models", task, pe, str(seed), work] for seed in SEEDS for task, pe in wanted
    ]
    run_processes(models, args.jobs)  # each rebuilds its model unless it is shipped or cached
    run_processes([[python, "-m", "posenc.toy.ablations", "--seed", str(s), "--work", work, "--only", *args.only]
                   for s in SEEDS], args.jobs)  # fmt: skip
    return write_results(args.work, args.out, time.time() - started)


def write_results(work: Path, out: Path, wall_seconds: float | None = None) -> dict:
    """``<out>/ablations.json``: every ablation whose result is there for every seed, seed by seed."""
    ablations, cpu = {}, {}
    for name in ABLATIONS:
        paths = [result_path(work, name, seed) for seed in SEEDS]
        if all(path.exists() for path in paths):
            found = [json.loads(path.read_text()) for path in paths]
            ablations[name] = {str(seed): one["result"] for seed, one in zip(SEEDS, found, strict=True)}
            cpu[name] = round(sum(one["cpu_seconds"] for one in found), 1)
    result = {
        "command": COMMAND,
        "train_len": TRAIN,
        "band": BAND,
        "seeds": list(SEEDS),
        "torch": torch.__version__,
        "threads": 1,
        "cpu_seconds_evaluation": cpu,
        "wall_seconds_of_last_call": None if wall_seconds is None else round(wall_seconds),
        "ablations": ablations,
    }
    (out / "ablations.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
