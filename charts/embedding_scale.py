"""What the sinusoidal page's "×√d_model" chart draws, cached: posenc's word_position_mix over the model widths (by
its equal fast form, ``posenc.fast.word_position_mix_by_dots``: ~1 s less on a fresh server)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from charts.checkpoints import Question
from figures.embedding_scale import embedding_scale_figure
from posenc.fast import word_position_mix_by_dots
from ui.i18n import text
from ui.once import computed_once

SCALE_DIMS = (8, 16, 32, 64, 128, 256, 512, 1024)  # model widths d drawn
SCALE_LABELS = ("scale_title", "scale_axis_x", "scale_axis_y", "scale_word", "scale_position")
QUESTION_DIM = 512  # the base Transformer's d_model


@computed_once(maxsize=4)
def mixes(scaled: bool) -> dict[str, np.ndarray]:
    """posenc's word_position_mix at every width of SCALE_DIMS: {"cos_word", "cos_position", "word_share"} -> [K]."""
    rows = [word_position_mix_by_dots(dim, scaled) for dim in SCALE_DIMS]
    return {key: np.array([row[key] for row in rows]) for key in rows[0]}


@st.cache_resource(show_spinner=False, max_entries=8)
def embedding_scale_chart(lang: str):
    curves = {text(lang, f"sinusoidal.scale_{name}"): mixes(scaled) for name, scaled in
              (("plain", False), ("scaled", True))}  # fmt: skip
    labels = {key: text(lang, f"sinusoidal.{key}") for key in SCALE_LABELS}
    return embedding_scale_figure(np.array(SCALE_DIMS), curves, labels)


@computed_once(maxsize=2)
def word_share_question() -> Question:
    """d_model = 512, embeddings of standard deviation 1/√512, no √d factor: the word's share of |x|²? Choices
    (percent, rounded): the measured share without the factor (right), with it, and one half."""
    plain = word_position_mix_by_dots(QUESTION_DIM, scaled=False)["word_share"]
    scaled = word_position_mix_by_dots(QUESTION_DIM, scaled=True)["word_share"]
    choices = ("plain", "half", "scaled")
    facts = {"dim": QUESTION_DIM, "plain": f"{100 * plain:.1f}", "scaled": f"{100 * scaled:.0f}", "half": "50"}
    return Question(choices, "plain", facts)
