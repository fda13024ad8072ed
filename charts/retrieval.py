"""What the needle section of "train short, test long" draws, cached: the measured accuracy of every training seed
(``assets/toy/retrieval.json``, read once per server), as a needle-in-a-haystack heatmap for one line and beside
the Markov task's excess loss for a group of lines; each value the mean over seeds with the lowest and highest.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import streamlit as st

from charts.extrapolation import GROUP_LINES, line_names, seed_range
from charts.extrapolation import results as markov_results
from figures.retrieval import accuracy_beside_loss, needle_grid
from posenc.toy.model import ASSETS
from posenc.toy.retrieval import RetrievalConfig, sequences_per_cell
from ui.i18n import number, text

RESULTS = ASSETS / "retrieval.json"
FT_LINES = ("ft_linear", "ft_yarn", "ft_plain")
# the Markov groups' lines, with YaRN's frequencies without its attention factor beside YaRN
NEEDLE_LINES = {
    group: tuple(line for found in lines for line in ((found, "yarn_no_factor") if found == "yarn" else (found,)))
    for group, lines in GROUP_LINES.items()
}


@st.cache_data(show_spinner=False, max_entries=1)
def results(path: str = str(RESULTS)) -> dict | None:
    """The measured accuracies, or None when the file is not there (the section then says how to make it)."""
    found = Path(path)
    return json.loads(found.read_text()) if found.exists() else None


def trained_at(data: dict | None) -> int:
    """The needle models' training length: the shipped results' (or, before the experiment has run, its setting)."""
    return data["config"]["train_len"] if data is not None else RetrievalConfig().train_len


def names(lang: str) -> dict[str, str]:
    """Every line's name in ``lang``: the Markov page's names and YaRN without its attention factor."""
    return line_names(lang) | {"yarn_no_factor": text(lang, "extrapolation.line_yarn_no_factor")}


def group_lines(data: dict, group: str) -> list[str]:
    """The lines of a group that the file holds, in drawing order."""
    return [line for line in NEEDLE_LINES[group] if line in data["runs"]]


def cells(data: dict, line: str, length: int) -> np.ndarray:
    """Accuracy per seed and depth at ``length``: [seeds, depths]."""
    return np.array([run[str(length)]["accuracy"] for run in data["runs"][line].values()], dtype=np.float64)


def mean_accuracy(data: dict, line: str, length: int) -> list[float]:
    """One number per training seed: the accuracy at ``length`` averaged over the needle depths."""
    return cells(data, line, length).mean(1).tolist()


def seeds_label(data: dict, lines: list[str]) -> str:
    """How many seeds the lines hold: "3", or "1–3" when they differ."""
    counts = [len(data["runs"][line]) for line in lines]
    return str(min(counts)) if min(counts) == max(counts) else f"{min(counts)}–{max(counts)}"


@st.cache_resource(max_entries=24, show_spinner=False)
def needle_chart(lang: str, line: str):
    """Accuracy over context length × needle depth for one line, mean over seeds (the hover gives their range)."""
    data = results()
    lengths, depths = data["lengths"], data["depths"]
    per_seed = np.stack([cells(data, line, n) for n in lengths], axis=-1)  # [seeds, depths, lengths]
    labels = {key: text(lang, f"extrapolation.needle_{key}")
              for key in ("x_title", "y_title", "accuracy", "length_hover", "depth_hover")}  # fmt: skip
    labels["spread"] = text(lang, "extrapolation.spread")
    labels["title"] = text(lang, "extrapolation.needle_title", model=names(lang)[line], seeds=len(per_seed),
                           train=data["config"]["train_len"])  # fmt: skip
    return needle_grid(per_seed.mean(0), per_seed.min(0), per_seed.max(0), lengths, depths, labels)


@st.cache_resource(max_entries=12, show_spinner=False)
def beside_chart(lang: str, group: str):
    """The group's lines against context length: the Markov task's excess loss past the training length (left) and
    the needle's accuracy averaged over depths (right), each the mean over seeds with the lowest and highest."""
    data, markov, line_name = results(), markov_results(), names(lang)
    train = data["config"]["train_len"]
    markov_series = []
    if markov is not None:
        past = [n for n in markov["lengths"] if n > train]
        for line in [line for line in NEEDLE_LINES[group] if line in markov["runs"]]:
            per_seed = np.array([[run["curves"][str(n)]["excess_past"] for n in past]
                                 for run in markov["runs"][line].values()])  # fmt: skip
            markov_series.append((line, line_name[line], past, per_seed.mean(0), (per_seed.min(0), per_seed.max(0))))
    needle_series = []
    for line in group_lines(data, group):
        per_seed = np.array([mean_accuracy(data, line, n) for n in data["lengths"]]).T  # [seeds, lengths]
        needle_series.append(
            (line, line_name[line], data["lengths"], per_seed.mean(0), (per_seed.min(0), per_seed.max(0)))
        )
    labels = {key: text(lang, f"extrapolation.beside_{key}")
              for key in ("markov_title", "needle_title", "excess_axis", "accuracy_axis", "chance_name")}  # fmt: skip
    # the Markov panel's excess is past the Markov models' own training length (the same 64 in the shipped files)
    labels["markov_title"] = text(lang, "extrapolation.beside_markov_title",
                                  train=markov["train_len"] if markov is not None else train)  # fmt: skip
    labels |= {"spread": text(lang, "extrapolation.spread"), "x_title": text(lang, "extrapolation.length_axis"),
               "length_hover": text(lang, "extrapolation.length_hover")}  # fmt: skip
    labels["title"] = text(lang, "extrapolation.beside_title", seeds=seeds_label(data, group_lines(data, group)))
    return accuracy_beside_loss(markov_series, needle_series, data["task"]["chance"], train, labels)


def sequence_counts(data: dict, lang: str) -> dict[str, str]:
    """What one seed's heatmap cell counts: {count} sequences up to {full_longest} tokens, {long_count} past it, where
    one answer moves the cell by {long_step} = 1 / long_count (the file's config, the recipe's rule)."""
    config = RetrievalConfig(eval_sequences=data["config"]["eval_sequences"],
                             long_eval_sequences=data["config"]["long_eval_sequences"])  # fmt: skip
    full = [n for n in data["lengths"] if sequences_per_cell(n, config) == config.eval_sequences]
    return {"count": number(lang, config.eval_sequences), "full_longest": number(lang, max(full)),
            "long_count": number(lang, config.long_eval_sequences),
            "long_step": f"{1 / config.long_eval_sequences:g}"}  # fmt: skip


def recipe_caption(data: dict, lang: str) -> str:
    """The caption under the heatmap and table: seeds, steps, sequences per cell, the command and its CPU minutes."""
    config = data["config"]
    return text(lang, "extrapolation.needle_recipe", seeds=len(config["seeds"]), steps=number(lang, config["steps"]),
                train=config["train_len"], minutes=round(data["recipe"]["cpu_seconds"] / 60),
                command=data["recipe"]["command"], **sequence_counts(data, lang))  # fmt: skip


def accuracy_rows(lang: str, group: str) -> tuple[list[str], list[list]]:
    """(column names, rows): each line's accuracy averaged over depths at every length, the mean over seeds with the
    lowest–highest seed."""
    data, line_name = results(), names(lang)
    train = data["config"]["train_len"]
    columns = [text(lang, "extrapolation.column_model")]
    columns += [text(lang, "extrapolation.column_length", multiple=n // train, length=number(lang, n))
                for n in data["lengths"]]  # fmt: skip
    rows = []
    for line in group_lines(data, group):
        values = [mean_accuracy(data, line, n) for n in data["lengths"]]
        rows.append([line_name[line], *(f"{np.mean(v):.2f}" + ("" if min(v) == max(v) else f" ({seed_range(v)})")
                                         for v in values)])  # fmt: skip
    return columns, rows


def needle_numbers(needle: dict, lang: str) -> dict[str, str]:
    """Numbers the needle notices quote, measured from the file: accuracies as ranges over the training seeds (the
    sentences around them are checked for every seed in tests/test_needle_claims.py), the longest length as ``lang``
    writes it and the last position training saw (train − 1)."""
    lengths, runs = needle["lengths"], needle["runs"]
    train, longest = needle["config"]["train_len"], max(lengths)

    def at(line: str, length: int, depth: int | None = None) -> list[float]:
        """Per seed: the accuracy at one depth (index), or the mean over depths."""
        if line not in runs:
            return [float("nan")]
        cell = [run[str(length)]["accuracy"] for run in runs[line].values()]
        return [sum(c) / len(c) if depth is None else c[depth] for c in cell]

    def lowest(lines: tuple[str, ...], lengths_: list[int]) -> str:
        """The lowest accuracy of these lines at any seed, depth and listed length."""
        values = [a for line in lines if line in runs for run in runs[line].values() for n in lengths_
                  for a in run[str(n)]["accuracy"]]  # fmt: skip
        return f"{min(values):.2f}" if values else "–"

    found = {"train": train, "last": train - 1, "longest": number(lang, longest)}  # last: the table's last row
    found["at_train"] = lowest(tuple(runs), [train])
    found["stretch_min"] = lowest(("linear", "yarn", "yarn_paper", "llama3"), lengths)
    found["no_factor_min"] = lowest(("yarn_no_factor",), lengths)
    for line in ("none", "rope", "sinusoidal", "learned", "t5", "t5_clamped", "ntk", *FT_LINES):
        found[f"{line}_longest"] = seed_range(at(line, longest))
    found["alibi_far"] = seed_range(at("alibi", longest, 0))
    found["alibi_near"] = seed_range(at("alibi", longest, -1))
    found["t5c_longest"] = found.pop("t5_clamped_longest")
    found["ft_max"] = lowest(FT_LINES, [n for n in lengths if n <= needle["config"]["finetune_length"]])
    return found
