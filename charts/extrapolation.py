"""What the "train short, test long" page draws, cached: the measured curves (``assets/toy/extrapolation.json``,
read once per server), the shipped causal LMs (read once), their attention on a long input (computed at run time)
and the learned position table beside the sinusoid, keyed by scalar inputs and the language.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import streamlit as st
import torch

from figures.extrapolation import attention_heads, loss_by_length, loss_by_position, similarity_pair
from posenc.absolute import sinusoidal
from posenc.toy import markov
from posenc.toy.extrapolate import SCALINGS, evaluation_tokens, rope_scaling
from posenc.toy.lm import attention_maps, cosine_similarity_matrix, load_lm
from posenc.toy.model import ASSETS, PE_CHOICES
from ui.i18n import text

RESULTS = ASSETS / "extrapolation.json"
CHECKPOINTS = ASSETS / "extrapolation"
GROUPS = ("encodings", "rope")  # the six encodings; RoPE with context extension
ATTENTION_LENGTHS = (64, 128, 256, 512)
MAX_CELLS = 64  # an attention map is averaged over blocks down to at most 64 × 64 cells (≈ 4 px each in a panel)
MULTIPLES = (1, 2, 4, 8)  # the table's columns: evaluation length ÷ training length


def words(lang: str, *keys: str, **renamed: str) -> dict[str, str]:
    """extrapolation.<key> in ``lang`` under its own name, or under a new name."""
    own = {key: text(lang, f"extrapolation.{key}") for key in keys}
    return own | {name: text(lang, f"extrapolation.{key}") for name, key in renamed.items()}


@st.cache_data(max_entries=1)
def results(path: str = str(RESULTS)) -> dict | None:
    """The measured curves, or None when the file is not there (the page then says how to make it)."""
    found = Path(path)
    return json.loads(found.read_text()) if found.exists() else None


def line_names(lang: str) -> dict[str, str]:
    """Every line's name in ``lang``: the six encodings, RoPE + each scaling, RoPE fine-tuned with each."""
    names = {pe: text(lang, f"toy.pe_{pe}") for pe in PE_CHOICES}
    names |= {method: text(lang, f"extrapolation.scaling_{method}") for method in SCALINGS}
    names |= {f"ft_{m}": text(lang, f"extrapolation.finetuned_{m}") for m in ("linear", "yarn", "plain")}
    return names


def lines(data: dict, group: str) -> dict[str, dict]:
    """{line key: {length: summary}} of a group, in drawing order (lines missing from the file are left out)."""
    if group == "encodings":
        return {pe: data["models"][pe]["curves"] for pe in PE_CHOICES if pe in data["models"]}
    found = {"rope": data["models"]["rope"]["curves"]} if "rope" in data["models"] else {}
    found |= {m: v["curves"] for m, v in data.get("rope_scaling", {}).items()}
    return found | {f"ft_{m}": v["curves"] for m, v in data.get("rope_finetuned", {}).items()}


def guess_loss(data: dict) -> float:
    """log V: the loss of a model that knows nothing and spreads its bets evenly over the V symbols."""
    return math.log(data["task"]["vocab"])


@st.cache_resource(max_entries=8, show_spinner=False)
def length_chart(lang: str, group: str):
    """Mean loss against evaluation length for one group of lines, in ``lang``."""
    data, names = results(), line_names(lang)
    found = lines(data, group)
    lengths = data["eval_lengths"]
    series = [(key, names[key], [curves[str(n)]["loss"] for n in lengths]) for key, curves in found.items()]
    floor = [next(iter(found.values()))[str(n)]["floor"] for n in lengths]
    labels = words(lang, "loss", "floor_name", "guess_name", "length_hover", "train_mark", x_title="length_axis",
                   y_title="loss_axis")  # fmt: skip
    labels["title"] = text(lang, f"extrapolation.length_title_{group}")
    labels["train_mark"] = labels["train_mark"].format(length=data["train_len"])
    labels["guess_name"] = labels["guess_name"].format(vocab=data["task"]["vocab"])
    return loss_by_length(lengths, series, floor, guess_loss(data), data["train_len"], labels)


@st.cache_resource(max_entries=16, show_spinner=False)
def position_chart(lang: str, group: str, length: int):
    """Loss by position in sequences of ``length`` tokens, for one group of lines, in ``lang``."""
    data, names = results(), line_names(lang)
    found = lines(data, group)
    bin_size = data["position_bin"]
    first = next(iter(found.values()))[str(length)]
    # bin b holds the losses of x_{t+1} for t = b·bin … (b+1)·bin − 1: drawn at the centre of its positions
    centres = [b * bin_size + (bin_size - 1) / 2 for b in range(len(first["loss_by_position"]))]
    series = [(key, names[key], curves[str(length)]["loss_by_position"]) for key, curves in found.items()]
    labels = words(lang, "loss", "floor_name", "guess_name", "position_hover", "train_mark", x_title="position_axis",
                   y_title="loss_axis")  # fmt: skip
    labels["title"] = text(lang, "extrapolation.position_title", length=length)
    labels["train_mark"] = labels["train_mark"].format(length=data["train_len"])
    labels["guess_name"] = labels["guess_name"].format(vocab=data["task"]["vocab"])
    guess = guess_loss(data)
    return loss_by_position(centres, series, first["floor_by_position"], guess, data["train_len"], labels)


def table_rows(lang: str, group: str) -> tuple[list[str], list[list]]:
    """(column names, rows): each line's loss at 1×, 2×, 4×, 8× the training length, and the floor's."""
    data, names = results(), line_names(lang)
    found = lines(data, group)
    train = data["train_len"]
    lengths = [train * m for m in MULTIPLES if str(train * m) in next(iter(found.values()))]
    columns = [text(lang, "extrapolation.column_model")]
    columns += [text(lang, "extrapolation.column_length", multiple=n // train, length=n) for n in lengths]
    rows = [[names[key], *(f"{curves[str(n)]['loss']:.3f}" for n in lengths)] for key, curves in found.items()]
    floor = next(iter(found.values()))
    rows.append([text(lang, "extrapolation.floor_name"), *(f"{floor[str(n)]['floor']:.3f}" for n in lengths)])
    return columns, rows


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
