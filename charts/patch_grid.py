"""What the 2-D positions section draws, cached: one query patch's RoPE score over a grid (posenc.patch_grid) under a
layout, the strip of which axis owns each pair, and the predict-first question on chunked M-RoPE's smallest score."""

from __future__ import annotations

import streamlit as st

from charts.checkpoints import Question
from figures.patch_grid import LABEL_KEYS, axes_figure, similarity_figure
from posenc.patch_grid import patch_axes, patch_scores
from ui.i18n import text

QUESTION_SIDE = 16  # the question's grid: 16 × 16 patches, the query in the middle
DROPS = (0.01, 0.2, 0.6)  # the answers' bounds on 1 − (the smallest score)


def labels(lang: str) -> dict:
    return {key: text(lang, f"patch_grid.{key}") for key in LABEL_KEYS}


@st.cache_data(show_spinner=False, max_entries=64)
def grid_chart(lang: str, layout: str, side: int, row: int, column: int):
    scores = patch_scores(layout, side, side, row, column).numpy()
    return similarity_figure(scores, row, column, labels(lang))


@st.cache_data(show_spinner=False, max_entries=8)
def axes_chart(lang: str, layout: str):
    return axes_figure(patch_axes(layout).numpy(), labels(lang))


def lowest_score(layout: str, side: int, row: int, column: int) -> float:
    return float(patch_scores(layout, side, side, row, column).min())


def axis_counts(layout: str) -> dict[str, int]:
    """Pairs per axis: {"time": …, "row": …, "column": …}."""
    axes = patch_axes(layout)
    return {name: int((axes == number).sum()) for number, name in enumerate(("time", "row", "column"))}


def drop_question() -> Question:
    """How far below 1 does chunked M-RoPE's score fall anywhere on a 16 × 16 grid, the query in the middle? Choices:
    the drop's band (0: under 0.01, 1: 0.01–0.2, 2: 0.2–0.6, 3: over 0.6)."""
    middle = QUESTION_SIDE // 2
    drop = 1 - lowest_score("chunked", QUESTION_SIDE, middle, middle)
    band = sum(drop >= bound for bound in DROPS)
    axial = 1 - lowest_score("axial", QUESTION_SIDE, middle, middle)
    facts = {"side": QUESTION_SIDE, "drop": f"{drop:.4f}", "axial": f"{axial:.2f}"}
    return Question(choices=(0, 1, 2, 3), correct=band, facts=facts)
