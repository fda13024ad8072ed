"""What the home page draws, cached: the token split, the attention maps without positions and the per-token output
changes of two sentences, and the two figures built from them, keyed by the two sentences and the language.
"""

from typing import NamedTuple

import streamlit as st

from figures.common import ReadOnlyFigure
from figures.home import attention_pair, output_change_bars
from posenc.permutation import output_differences, single_head_self_attention, split_words
from ui.i18n import text

ATTENTION_WORDS = ("sentence_a", "sentence_b", "key_axis", "query_axis", "weight")
CHANGE_WORDS = ("changes_title", "changes_x", "changes_hover", "bar_without", "bar_with")


class Comparison(NamedTuple):
    attention: ReadOnlyFigure  # the two attention maps without positions, side by side
    changes: ReadOnlyFigure  # per token: how much its output changed, without and with positions
    largest_change_without_pe: float  # the largest of those changes without positions (rounding-sized)


# A cached figure is shared by every session: it is never modified.
@st.cache_resource(show_spinner=False, max_entries=64)
def comparison(lang: str, text_a: str, text_b: str) -> Comparison:
    """The home page's two figures in ``lang``.

    Raises ValueError for a pair that cannot be compared (empty, too long, or not the same words).
    """
    tokens_a, tokens_b = split_words(text_a), split_words(text_b)
    without_pe = output_differences(tokens_a, tokens_b, with_positions=False)
    with_pe = output_differences(tokens_a, tokens_b, with_positions=True)
    map_a, map_b = (single_head_self_attention(tokens).weights.numpy() for tokens in (tokens_a, tokens_b))
    words = {key: text(lang, f"home.{key}") for key in ATTENTION_WORDS + CHANGE_WORDS}
    attention = attention_pair(map_a, tokens_a, map_b, tokens_b, text(lang, "home.attention_title"), words)
    changes = output_change_bars(without_pe, with_pe, words)
    return Comparison(attention, changes, max(difference for _, difference in without_pe))
