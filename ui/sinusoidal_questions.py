"""The sinusoidal page's questions. The two that quote its table are words parts of their sections (ui.words): a
commit of the shared values computes the question again, and the browser draws it."""

from charts.checkpoints import dot_depends_on_p, fastest_pair
from charts.embedding_scale import word_share_question
from ui.checkpoint import checkpoint
from ui.language import current_language, t
from ui.words import Question, words_part


@words_part("sin_fastest_question", uses=("dim", "base"))
def fastest_checkpoint(dim: int, base: float, layout: str) -> Question:
    """Which columns change fastest? Asked above the table, for the current dim, base and layout."""
    asked = fastest_pair(dim, base, layout, current_language())
    words = {c: t("sinusoidal.cp_fastest_same") if c == "same" else t("sinusoidal.cp_fastest_pair", **asked.facts[c])
             for c in asked.choices}  # fmt: skip
    why = {c: t("sinusoidal.cp_fastest_wrong_same") if c == "same" else
           t("sinusoidal.cp_fastest_wrong_pair", **asked.facts[c]) for c in asked.choices}  # fmt: skip
    right = t("sinusoidal.cp_fastest_right", **asked.facts[asked.correct]) if asked.correct != "same" else ""
    return Question("cp_sin_fastest", t("sinusoidal.cp_fastest_question"), words, asked.correct, right, why)


@words_part("sin_dot_question", uses=("length", "dim", "base"))
def dot_checkpoint(length: int, dim: int, base: float) -> Question:
    """Is PE(p)·PE(p+k) the same for every p? Asked above PE·PEᵀ, measured on the current table."""
    asked = dot_depends_on_p(length, dim, base)
    words = {c: t(f"sinusoidal.cp_dot_{c}") for c in asked.choices}
    why = {c: t(f"sinusoidal.cp_dot_wrong_{c}", **asked.facts) for c in asked.choices}
    right = t(f"sinusoidal.cp_dot_right_{asked.correct}", **asked.facts)
    return Question("cp_sin_dot", t("sinusoidal.cp_dot_question", **asked.facts), words, asked.correct, right, why)


def scale_checkpoint() -> None:
    """Without Vaswani et al.'s ×√d_model before adding PE(p): what share of |x|² is the word's?"""
    asked = word_share_question()
    words = {c: t(f"sinusoidal.cp_scale_{c}", **asked.facts) for c in asked.choices}
    why = {c: t(f"sinusoidal.cp_scale_wrong_{c}", **asked.facts) for c in asked.choices if c != asked.correct}
    checkpoint("cp_sin_scale", t("sinusoidal.cp_scale_question", **asked.facts), words, asked.correct,
               t("sinusoidal.cp_scale_right", **asked.facts), why)  # fmt: skip
