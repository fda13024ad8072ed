"""What the home page draws, cached: the token split, the attention maps without positions and the per-token output
changes of two sentences, keyed by the two sentences (its only words come from the page, not from here).
"""

import streamlit as st

from posenc.permutation import output_differences, single_head_self_attention, split_words


@st.cache_data(max_entries=256)
def compare(text_a: str, text_b: str):
    """Tokens, attention maps without positions, and per-token output changes without / with positions."""
    tokens_a, tokens_b = split_words(text_a), split_words(text_b)
    without_pe = output_differences(tokens_a, tokens_b, with_positions=False)
    with_pe = output_differences(tokens_a, tokens_b, with_positions=True)
    maps = [single_head_self_attention(tokens).weights.numpy() for tokens in (tokens_a, tokens_b)]
    return tokens_a, tokens_b, maps, without_pe, with_pe
