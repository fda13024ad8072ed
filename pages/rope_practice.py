"""RoPE in real models: Meta's and Hugging Face's Llama (one model, two pairings), partial rotary, values that are
never rotated, and the sign of the rotation. The rotation itself is drawn on the page before (pages/rope.py)."""

import streamlit as st

from charts.rope import (
    LLAMA_M,
    LLAMA_N,
    PARTIAL_FRACTIONS,
    llama_conversion,
    llama_table,
    partial_chart,
    partial_follow,
    sign_chart,
    sign_follow,
    values_table,
)
from figures import rope as figs
from figures.table import Table
from posenc.rope_variants import (
    apply_partial_rope,
    hf_llama_permute,
    partial_rope_score_parts,
    partial_rotary_dim,
    rope_attention_output,
    rope_reflect_pairs,
    rope_signed_scores,
)
from ui.code import show_code
from ui.figure import figure_chart
from ui.language import current_language, t
from ui.notice import notice
from ui.rope_page import open_rope_page
from ui.sections import section
from ui.words import Text, markdown, notice_words, words_part


@section("rope_llama", uses=("base",), whole=())
def llama_section(base: float) -> None:
    st.subheader(t("rope.llama_header"))
    st.markdown(t("rope.llama_intro"))
    st.latex(
        r"W'_{c\cdot d/2+i} = W_{2i+c}\ \ (c = 0, 1),\qquad"
        r"\operatorname{rope}_{\mathrm{half}}(W'x)_{c\cdot d/2+i} = \operatorname{rope}_{\mathrm{inter}}(Wx)_{2i+c}"
    )
    llama_numbers(base)
    notice("rope.llama_notice")
    show_code(hf_llama_permute)


@words_part("rope_llama_numbers", uses=("base",))
def llama_numbers(base: float) -> list:
    data = llama_conversion(base)
    scores = {name: f"{data[name]:.6f}" for name in ("meta", "hf", "wrong")}
    return [markdown(t("rope.llama_rows", rows=figs.index_list_text(data["rows"]), m=LLAMA_M)),
            llama_table(current_language(), base),  # one row per feature: fits the column
            markdown(t("rope.llama_scores", m=LLAMA_M, n=LLAMA_N, **scores))]  # fmt: skip


@section("rope_partial", uses=("dim", "base"), whole=())
def partial_section(dim: int, base: float) -> None:
    st.subheader(t("rope.partial_header"))
    fraction = st.select_slider(t("rope.partial_label"), PARTIAL_FRACTIONS, 0.25, format_func="{:.0%}".format,
                                key="rope_partial_fraction")  # fmt: skip
    partial_picture(dim, base, fraction)
    st.latex(r"q\cdot k \;=\; \langle R_m\, q_{[:r]},\ R_n\, k_{[:r]}\rangle \;+\; \langle q_{[r:]},\ k_{[r:]}\rangle,"
             r"\qquad \theta_i = \mathrm{base}^{-2i/r},\ \ i < r/2")  # fmt: skip
    partial_notice(dim, fraction)
    show_code(apply_partial_rope, partial_rope_score_parts)


def partial_picture(dim: int, base: float, fraction: float) -> None:
    """Follows the store's dim and base in the browser (not rerun for them)."""
    lang = current_language()
    picture = lambda: partial_chart(lang, dim, base, fraction)  # noqa: E731  built only when sent
    figure_chart(picture, key="rope_partial_chart", follow=partial_follow(dim, base, fraction))


@words_part("rope_partial_numbers", uses=("dim",))
def partial_notice(dim: int, fraction: float) -> Text:
    rotary = partial_rotary_dim(dim, fraction)
    return notice_words("rope.partial_notice", rotary=rotary, dim=dim, passed=dim - rotary)


@section("rope_values", uses=("dim", "base"), whole=())
def values_section(dim: int, base: float) -> None:
    st.subheader(t("rope.values_header"))
    values_numbers(dim, base)
    st.latex(
        r"o_m = \sum_n \alpha_{mn}\, v_n,\qquad "
        r"\alpha_{mn} = \operatorname{softmax}_n\!\Big(\tfrac{1}{\sqrt d}\,\langle R_m q_m,\ R_n k_n\rangle\Big)"
    )
    notice("rope.values_notice")
    show_code(rope_attention_output)


@words_part("rope_values_numbers", uses=("dim", "base"))
def values_numbers(dim: int, base: float) -> Table:
    return values_table(current_language(), dim, base)


@section("rope_sign", uses=("dim", "base"), whole=())
def sign_section(dim: int, base: float) -> None:
    st.subheader(t("rope.sign_header"))
    sign_picture(dim, base)
    st.latex(
        r"\langle R_{-m} q,\,R_{-n} k\rangle = \operatorname{Re}\sum_i \tilde q_i\overline{\tilde k_i}\,"
        r"e^{-\mathrm{i}(m-n)\theta_i} = \langle R_m \bar q,\,R_n \bar k\rangle,\qquad "
        r"\langle R_{m} q,\,R_{-n} k\rangle = \operatorname{Re}\sum_i \tilde q_i\overline{\tilde k_i}\,"
        r"e^{\mathrm{i}(m+n)\theta_i}"
    )
    notice("rope.sign_notice")
    show_code(rope_signed_scores, rope_reflect_pairs)


def sign_picture(dim: int, base: float) -> None:
    """Follows the store's dim and base in the browser (not rerun for them)."""
    lang = current_language()
    figure_chart(lambda: sign_chart(lang, dim, base), key="rope_sign_chart", follow=sign_follow(dim, base))


base, dim = open_rope_page("rope.practice_title", "rope.practice_intro")
llama_section(base)
partial_section(dim, base)
values_section(dim, base)
sign_section(dim, base)
