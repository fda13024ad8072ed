"""The relative-scores page's two questions: DeBERTa's row for a key 10 positions back, and whether NoPE tells two
positions apart. The second quotes the dim, so it is a words part of its section (ui.words): a commit computes the
question again, and the browser draws it."""

from charts.checkpoints import deberta_row, nope_tells_apart
from ui.checkpoint import checkpoint
from ui.language import t
from ui.words import Question, words_part


def deberta_checkpoint(k: int) -> None:
    """Which row of the relative table does a key 10 positions back use? Asked above the δ charts, for this k."""
    asked = deberta_row(k)
    slips = asked.facts["why"]
    why = {row: t(f"relative_scores.cp_deberta_wrong_{slip}", **asked.facts) for row, slip in slips.items()}
    words = {row: t("relative_scores.cp_deberta_choice", row=row) for row in asked.choices}
    question = t("relative_scores.cp_deberta_question", **asked.facts)
    right = t("relative_scores.cp_deberta_right", **asked.facts)
    checkpoint("cp_rs_deberta", question, words, asked.correct, right, why)


@words_part("rs_nope_question", uses=("dim",))
def nope_checkpoint(dim: int, distinct: bool, gap: float) -> Question:
    """Do two positions get different outputs without any encoding? Asked above the NoPE charts, for these settings."""
    asked = nope_tells_apart(dim, distinct, gap)
    words = {c: t(f"relative_scores.cp_nope_{c}") for c in asked.choices}
    why = {c: t(f"relative_scores.cp_nope_wrong_{c}", **asked.facts) for c in asked.choices}
    right = t(f"relative_scores.cp_nope_right_{asked.correct}", **asked.facts)
    question = t("relative_scores.cp_nope_question", **asked.facts)
    return Question("cp_rs_nope", question, words, asked.correct, right, why)
