"""The term base ``locales/terms.toml``: the approved word for each concept in every language. No Streamlit.

``term_label("ko", "logit")`` is the word the glossary shows, with its gloss in the language's own brackets:
"로짓(소프트맥스 이전 점수)", "logit (score before softmax)", "logit（softmax 之前的分数）".
"""

from __future__ import annotations

import tomllib

from ui.i18n import LOCALES
from ui.once import computed_once

TERM_BASE = LOCALES / "terms.toml"
GLOSS_FORMAT = {"en": "{term} ({note})", "ko": "{term}({note})", "zh": "{term}（{note}）"}


@computed_once
def term_base() -> dict[str, dict]:
    """Every concept of the term base, in file order: {concept: {"en": …, "ko_avoid": […], …}}."""
    with open(TERM_BASE, "rb") as handle:
        return tomllib.load(handle)["terms"]


def glossary_concepts() -> list[str]:
    """The concepts the glossary lists, in the term base's order (those not marked ``glossary = false``)."""
    return [concept for concept, entry in term_base().items() if entry.get("glossary", True)]


def term_label(lang: str, concept: str) -> str:
    """The approved word for ``concept`` in ``lang``, followed by its gloss if it has one."""
    entry = term_base()[concept]
    note = entry.get(f"{lang}_note")
    return GLOSS_FORMAT[lang].format(term=entry[lang], note=note) if note else entry[lang]
