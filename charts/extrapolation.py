"""What the "train short, test long" page draws, cached: the measured curves of every training seed
(``assets/toy/extrapolation.json``, read once per server; each line drawn as the mean over seeds with the lowest and
highest), the shipped causal LMs (read once), their attention on a long input (computed at run time)
and the learned position table beside the sinusoid, keyed by scalar inputs and the language.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import streamlit as st
import torch

from figures.extrapolation import attention_heads, excess_by_length, loss_by_length, loss_by_position, similarity_pair
from posenc.absolute import sinusoidal
from posenc.rope import rope_inv_freq
from posenc.rope_scaling import yarn_ramp
from posenc.toy import markov
from posenc.toy.extrapolate import (
    COMPARISONS,
    FINETUNES,
    LENGTHS,
    SCALINGS,
    ExperimentConfig,
    evaluation_tokens,
    rope_scaling,
)
from posenc.toy.lm import attention_maps, cosine_similarity_matrix, load_lm
from posenc.toy.model import ASSETS, PE_CHOICES
from ui.i18n import number, text

RESULTS = ASSETS / "extrapolation.json"
CHECKPOINTS = ASSETS / "extrapolation"
GROUPS = ("encodings", "rope", "comparisons")  # the six encodings; RoPE with context extension; T5 and NoPE varied
GROUP_LINES = {
    "encodings": PE_CHOICES,
    "rope": ("rope", *SCALINGS, *(f"ft_{m}" for m in FINETUNES)),
    "comparisons": ("t5", "t5_clamped", "none", "none_long", "alibi"),
}
VIEWS = ("excess", "loss")  # loss − floor past the training length (the main view); the mean loss over a sequence
ATTENTION_LENGTHS = (64, 128, 256, 512)
MAX_CELLS = 64  # an attention map is averaged over blocks down to at most 64 × 64 cells (≈ 4 px each in a panel)
MULTIPLES = {"excess": (2, 4, 8, 16, 32), "loss": (1, 2, 4, 8, 32)}  # the table's columns: length ÷ training length


def words(lang: str, *keys: str, **renamed: str) -> dict[str, str]:
    """extrapolation.<key> in ``lang`` under its own name, or under a new name."""
    own = {key: text(lang, f"extrapolation.{key}") for key in keys}
    return own | {name: text(lang, f"extrapolation.{key}") for name, key in renamed.items()}


@st.cache_data(show_spinner=False, max_entries=1)
def results(path: str = str(RESULTS)) -> dict | None:
    """The measured curves, or None when the file is not there (the page then says how to make it)."""
    found = Path(path)
    return json.loads(found.read_text()) if found.exists() else None


def intro_numbers(data: dict | None) -> dict[str, int]:
    """What the intro quotes: the training length and how many times longer the longest input is, from the shipped
    results (or, before the experiment has run, from its own settings)."""
    train = data["train_len"] if data is not None else ExperimentConfig().train_len
    return {"train": train, "multiple": max(data["lengths"] if data is not None else LENGTHS) // train}


def line_names(lang: str) -> dict[str, str]:
    """Every line's name in ``lang``: the six encodings, RoPE + each scaling, the fine-tunes, the two variants."""
    names = {pe: text(lang, f"toy.pe_{pe}") for pe in PE_CHOICES}
    names |= {method: text(lang, f"extrapolation.scaling_{method}") for method in SCALINGS}
    names |= {f"ft_{m}": text(lang, f"extrapolation.finetuned_{m}") for m in FINETUNES}
    return names | {line: text(lang, f"extrapolation.line_{line}") for line in COMPARISONS}


def lines(data: dict, group: str) -> list[str]:
    """The lines of a group that the file holds, in drawing order."""
    return [line for line in GROUP_LINES[group] if line in data["runs"]]


def seed_values(data: dict, line: str, length: int, metric: str) -> list[float]:
    """One number per training seed that the file holds for this line: ``metric`` of its summary at ``length``."""
    return [run["curves"][str(length)][metric] for run in data["runs"][line].values()]


def spread(data: dict, line: str, lengths: list[int], metric: str) -> tuple[list[float], list[float], list[float]]:
    """(mean, lowest, highest) over the seeds at each length."""
    values = np.array([seed_values(data, line, n, metric) for n in lengths], dtype=np.float64)  # [lengths, seeds]
    return values.mean(1).tolist(), values.min(1).tolist(), values.max(1).tolist()


def seed_count(data: dict, keys: list[str]) -> tuple[int, int]:
    """(fewest, most) training seeds among these lines."""
    counts = [len(data["runs"][key]) for key in keys]
    return min(counts), max(counts)


def reference(data: dict, name: str, lengths: list[int], metric: str) -> list[float]:
    """A reference ("uniform" or "unigram") at each length, in the units of ``metric``."""
    return [data["references"][name][str(n)][metric] for n in lengths]


def chart_labels(lang: str, data: dict, view: str) -> dict[str, str]:
    """The words of a chart against length or position in ``lang``."""
    labels = words(lang, "loss", "spread", "floor_name", "guess_name", "unigram_name", "length_hover",
                   "position_hover", "train_mark", x_title="length_axis")  # fmt: skip
    labels["y_title"] = text(lang, f"extrapolation.{view}_axis")
    labels["loss"] = text(lang, f"extrapolation.{view}_value")
    labels["train_mark"] = labels["train_mark"].format(length=data["train_len"])
    labels["guess_name"] = labels["guess_name"].format(vocab=data["task"]["vocab"])
    return labels


@st.cache_resource(max_entries=12, show_spinner=False)
def length_chart(lang: str, group: str, view: str = "excess"):
    """The group's lines against evaluation length, mean over seeds with the spread: excess past the training length
    (``view`` "excess", lengths past it) or the mean loss (``view`` "loss", every length), in ``lang``."""
    data, names = results(), line_names(lang)
    train = data["train_len"]
    lengths = [n for n in data["lengths"] if view == "loss" or n > train]
    metric = "excess_past" if view == "excess" else "loss"
    series = []
    for key in lines(data, group):
        mean, low, high = spread(data, key, lengths, metric)
        series.append((key, names[key], mean, (low, high)))
    labels = chart_labels(lang, data, view)
    fewest, most = seed_count(data, lines(data, group))
    labels["title"] = text(lang, f"extrapolation.{view}_title_{group}", seeds=fewest if fewest == most
                           else f"{fewest}–{most}")  # fmt: skip
    unigram = (labels["unigram_name"], lengths, reference(data, "unigram", lengths, metric), "dashdot")
    if view == "excess":
        guess = (labels["guess_name"], lengths, reference(data, "uniform", lengths, metric), "dash")
        return excess_by_length(lengths, series, [guess, unigram], train, labels)
    floor = [data["floor"][str(n)]["loss"] for n in lengths]
    return loss_by_length(lengths, series, floor, guess_loss(data), train, labels, [unigram])


def guess_loss(data: dict) -> float:
    """log V: the loss of a model that knows nothing and spreads its bets evenly over the V symbols."""
    return math.log(data["task"]["vocab"])


@st.cache_resource(max_entries=24, show_spinner=False)
def position_chart(lang: str, group: str, length: int):
    """Loss − floor by position in sequences of ``length`` tokens, mean over the seeds, for one group, in ``lang``."""
    data, names = results(), line_names(lang)
    bin_size = data["position_bin"]
    floor = np.array(data["floor"][str(length)]["by_position"])
    # bin b holds the losses of x_{t+1} for t = b·bin … (b+1)·bin − 1: drawn at the centre of its positions
    centres = [b * bin_size + (bin_size - 1) / 2 for b in range(len(floor))]

    def excess(runs: list[dict]) -> list[float]:
        return (np.mean([run["curves"][str(length)]["loss_by_position"] for run in runs], axis=0) - floor).tolist()

    series = [(key, names[key], excess(list(data["runs"][key].values()))) for key in lines(data, group)]
    references = [
        (name, centres, excess([{"curves": data["references"][ref]}]), dash)
        for ref, name, dash in (("uniform", "guess_name", "dash"), ("unigram", "unigram_name", "dashdot"))
    ]
    labels = chart_labels(lang, data, "excess")
    labels["x_title"] = text(lang, "extrapolation.position_axis")
    labels["y_title"] = text(lang, "extrapolation.excess_position_axis")
    references = [(labels[name], x, y, dash) for name, x, y, dash in references]
    labels["title"] = text(lang, "extrapolation.position_title", length=number(lang, length))
    return loss_by_position(centres, series, [0.0] * len(centres), None, data["train_len"], labels, references)


def table_rows(lang: str, group: str, view: str = "excess") -> tuple[list[str], list[list]]:
    """(column names, rows): each line's mean over seeds, lowest–highest, at multiples of the training length, and
    the references' values."""
    data, names = results(), line_names(lang)
    train = data["train_len"]
    lengths = [train * m for m in MULTIPLES[view] if train * m in data["lengths"]]
    metric = "excess_past" if view == "excess" else "loss"
    columns = [text(lang, "extrapolation.column_model")]
    columns += [text(lang, "extrapolation.column_length", multiple=n // train, length=number(lang, n)) for n in lengths]
    rows = []
    for key in lines(data, group):
        mean, low, high = spread(data, key, lengths, metric)
        rows.append([names[key], *(f"{m:.3f} ({lo:.3f}–{hi:.3f})" for m, lo, hi in zip(mean, low, high, strict=True))])
    guess_name = text(lang, "extrapolation.guess_name", vocab=data["task"]["vocab"])
    for ref, name in (("uniform", guess_name), ("unigram", text(lang, "extrapolation.unigram_name"))):
        rows.append([name, *(f"{v:.3f}" for v in reference(data, ref, lengths, metric))])
    if view == "loss":
        rows.append(
            [text(lang, "extrapolation.floor_name"), *(f"{data['floor'][str(n)]['loss']:.3f}" for n in lengths)]
        )
    return columns, rows


def ramp_rows(lang: str, train_len: int, dim: int = 16, base: float = 10000.0) -> tuple[list[str], list[list]]:
    """YaRN's two ramps pair by pair for the toy's RoPE (8 pairs): turns r_i = L·θ_i/2π in the training length L
    (``train_len``, the shipped results'), and the weight w_i on θ_i/s under transformers' rounded ramp and under the
    paper's (:func:`posenc.yarn_ramp`)."""
    turns = train_len * rope_inv_freq(dim, base, dtype=torch.float64) / (2 * math.pi)  # r_i, [P]
    ramps = [yarn_ramp(dim, base, train_len, form=form) for form in ("huggingface", "paper")]  # w_i, [P] each
    columns = [text(lang, f"extrapolation.ramp_{key}", train=train_len) for key in ("pair", "turns", "hf", "paper")]
    rows = [[i, f"{float(turns[i]):.2f}", f"{float(ramps[0][i]):.2f}", f"{float(ramps[1][i]):.2f}"]
            for i in range(dim // 2)]  # fmt: skip
    return columns, rows


def seed_range(values: list[float], digits: int = 2) -> str:
    """ "0.07" for one seed (or seeds that agree to ``digits``), "0.06–0.08" for the lowest to the highest."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}–{high}"


def claim_numbers(data: dict, lang: str) -> dict[str, str | int]:
    """Numbers the notices quote, measured from the file: each one a range over the training seeds (the sentences
    around them are checked for every seed in tests/test_toy_claims.py); lengths written as ``lang`` writes them."""
    train, longest = data["train_len"], max(data["lengths"])
    first = min(n for n in data["lengths"] if n > train)
    past = [n for n in data["lengths"] if n > train]

    def values(line: str, length: int, metric: str = "excess_past") -> list[float]:
        return seed_values(data, line, length, metric) if line in data["runs"] else [float("nan")]

    alibi = max(max(values("alibi", n)) for n in past)
    found = {
        "longest": number(lang, longest),
        "first": number(lang, first),
        "alibi_max": f"{math.ceil(alibi * 100) / 100:.2f}",  # rounded up: "within" stays true
        "none_within": seed_range(values("none", train, "excess_within")),
        "alibi_within": seed_range(values("alibi", train, "excess_within")),
        "none_long_within": seed_range(values("none_long", train, "excess_within")),
        "none_longest": seed_range(values("none", longest)),
        "none_long_longest": seed_range(values("none_long", longest)),
        "yarn_within": seed_range(values("yarn", 512, "excess_within")),
        "ntk_within": seed_range(values("ntk", 512, "excess_within")),
        "llama3_within": seed_range(values("llama3", 512, "excess_within")),
        "t5_first": seed_range(values("t5", first)),
        "t5c_first": seed_range(values("t5_clamped", first)),
        "t5_longest": seed_range(values("t5", longest)),
        "t5c_longest": seed_range(values("t5_clamped", longest)),
    }
    tuned = [n for n in past if n <= data["config"]["finetune_length"]]
    for method in FINETUNES:
        line = f"ft_{method}"
        if line not in data["runs"]:
            found |= dict.fromkeys((f"{line}_max", f"{line}_longest", f"{line}_within"), "–")
            continue
        found[f"{line}_max"] = f"{math.ceil(max(max(values(line, n)) for n in tuned) * 100) / 100:.2f}"
        found[f"{line}_longest"] = seed_range(values(line, longest))
        found[f"{line}_within"] = seed_range(values(line, train, "excess_within"))
    return found


@st.cache_data(show_spinner=False, max_entries=1)
def yarn_ablation_numbers(path: str = str(ASSETS / "yarn_ablation.json")) -> dict[str, str] | None:
    """The YaRN ablation's numbers (posenc.toy.yarn_ablation) as ranges over the seeds, or None without the file:
    excess on the first positions at 512 tokens with YaRN whole, its frequencies alone and its factor alone."""
    found = Path(path)
    if not found.exists():
        return None
    data = json.loads(found.read_text())
    seeds = data["seeds"].values()
    numbers = {f"{way}_within": seed_range([seed[way]["excess_within"] for seed in seeds]) for way in data["ways"]}
    return numbers | {"length": data["length"], "train": data["train_len"], "seeds": len(data["seeds"]),
                      "command": data["command"]}  # fmt: skip


@st.cache_resource(max_entries=16, show_spinner=False)
def model(name: str):
    """A shipped checkpoint (``pe`` or ``rope_finetuned_<method>``), read once per server; None if missing."""
    path = CHECKPOINTS / f"{name}.pt"
    return load_lm(path)[0] if path.exists() else None


def block_mean(maps: torch.Tensor, block: int) -> np.ndarray:
    """Average [H, L, L] attention over block × block cells -> [H, L/block, L/block] (block divides L)."""
    heads, length, _ = maps.shape
    cells = length // block
    return maps.reshape(heads, cells, block, cells, block).mean(dim=(2, 4)).numpy()


@st.cache_resource(max_entries=32, show_spinner="…")
def attention_chart(lang: str, pe: str, scaling: str, length: int, layer: int):
    """One layer's attention, head by head, of one model on the first evaluation sequence of ``length`` tokens;
    RoPE at ``scaling`` ("plain" or one of SCALINGS) with s = max(1, length / training length)."""
    found = model(pe)
    if found is None:
        return None
    tokens = evaluation_tokens(length, markov.make_source())[0, :length]  # [L]
    rope = None
    if pe == "rope" and scaling != "plain":
        rope = rope_scaling(scaling, max(1.0, length / found.config.max_len), found.config, length)
    maps = attention_maps(found, tokens, rope)[layer - 1]  # [H, L, L]
    block = max(1, length // MAX_CELLS)
    names = line_names(lang)
    title = text(lang, "extrapolation.attention_title", model=names[pe], layer=layer, length=length, block=block)
    if pe == "rope" and scaling != "plain":
        title = text(lang, "extrapolation.attention_title_scaled", scaling=names[scaling], layer=layer, length=length,
                     block=block)  # fmt: skip
    labels = words(lang, "weight", "head", query_title="query_axis", key_title="key_axis")
    return attention_heads(block_mean(maps, block), block, title, labels)


@st.cache_resource(max_entries=4, show_spinner=False)
def similarity_chart(lang: str):
    """The trained learned table's cosine similarity beside the sinusoid's, same size; None if not shipped."""
    learned = model("learned")
    if learned is None:
        return None
    table = learned.positions.table.weight.detach()  # [L, D]
    length, dim = table.shape
    labels = words(lang, "position", "other_position", "similarity", "learned_title", "sinusoid_title")
    labels["title"] = text(lang, "extrapolation.similarity_title", length=length, dim=dim)
    learned_sim = cosine_similarity_matrix(table).numpy()
    sinusoid_sim = cosine_similarity_matrix(sinusoidal(length, dim)).numpy()
    return similarity_pair(learned_sim, sinusoid_sim, labels)
