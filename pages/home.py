"""Home: why attention needs positions — reorder a sentence and, without positions, nothing changes but the order."""

import streamlit as st

from figures.home import attention_pair, output_change_bars
from posenc.permutation import output_differences, single_head_self_attention, split_words
from ui.code import show_code
from ui.shared import use_shared_controls

use_shared_controls()
st.title("Why do transformers need positions?")
st.write(
    "Self-attention compares every token with every other token, but nothing in that comparison says *where* a "
    "token is. This page shows what that means on a real sentence pair, and the other pages show how each family "
    "of positional encodings fixes it."
)

st.subheader("Same words, different order, same outputs")
left, right = st.columns(2)
text_a = left.text_input("Sentence A", "Tom likes apple, but hates orange", key="home_sentence_a", max_chars=200)
text_b = right.text_input("Sentence B", "Tom hates orange, but likes apple", key="home_sentence_b", max_chars=200)


@st.cache_data(max_entries=256)
def compare(text_a: str, text_b: str):
    """Tokens, attention maps without positions, and per-token output changes without / with positions."""
    tokens_a, tokens_b = split_words(text_a), split_words(text_b)
    without_pe = output_differences(tokens_a, tokens_b, with_positions=False)
    with_pe = output_differences(tokens_a, tokens_b, with_positions=True)
    maps = [single_head_self_attention(tokens).weights.numpy() for tokens in (tokens_a, tokens_b)]
    return tokens_a, tokens_b, maps, without_pe, with_pe


try:
    tokens_a, tokens_b, (map_a, map_b), without_pe, with_pe = compare(text_a, text_b)
except ValueError as err:
    st.info(f"{err} Try the default pair: *Tom likes apple, but hates orange* / *Tom hates orange, but likes apple*.")
    st.stop()

st.plotly_chart(
    attention_pair(map_a, tokens_a, map_b, tokens_b, "One attention head, no positional encoding"),
    key="home_attention",
)
st.caption(
    "**What to notice:** each word attends to the same words with the same weights in both sentences — sentence B's "
    "map is sentence A's map with its rows and columns shuffled. The head only sees *which* words are there."
)
st.latex(
    r"\operatorname{Attention}(PX) = P\,\operatorname{Attention}(X)"
    r"\quad\text{for every permutation matrix } P"
)
st.plotly_chart(output_change_bars(without_pe, with_pe), key="home_changes")
largest = max(difference for _, difference in without_pe)
st.markdown(
    f"Without positions the largest change of any word's output is **{largest:.1e}** — floating-point rounding, "
    "i.e. zero: *likes* means exactly the same thing whether Tom likes the apple or the orange. Adding the "
    "sinusoidal encoding to the word vectors (x + PE) makes every output depend on where the word stands."
)
show_code(single_head_self_attention, output_differences)

st.subheader("Where to next")
PAGE_MAP = [
    (
        "pages/sinusoidal.py",
        "Sinusoidal encoding",
        ":material/waves:",
        "The original fixed waves added to the input: why sines, why *add*, why not 0, 1, 2, …",
    ),
    (
        "pages/relative.py",
        "Relative positions",
        ":material/compare_arrows:",
        "Shaw et al., T5 buckets and ALiBi: tell attention *how far apart* two tokens are.",
    ),
    (
        "pages/rope.py",
        "RoPE in the complex plane",
        ":material/rotate_right:",
        "Rotate queries and keys so that their dot product depends only on m − n.",
    ),
    (
        "pages/decay.py",
        "Long-range decay and context",
        ":material/trending_down:",
        "Why far tokens count less, and how RoPE is stretched to longer contexts.",
    ),
]
for path, title, icon, answer in PAGE_MAP:
    st.page_link(path, label=title, icon=icon)
    st.caption(answer)
st.caption(
    "The sliders in the sidebar (base, dim, length, heads) are shared between pages and kept in the address bar, "
    "so a link opens exactly the view you see."
)
