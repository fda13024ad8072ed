"""Relative positions: Shaw et al.'s clipped table, T5's log buckets and ALiBi's linear bias."""

import streamlit as st

from charts.checkpoints import alibi_last_slope, t5_bucket_of_distance
from charts.relative import (
    alibi_follow,
    alibi_live,
    alibi_matrices,
    alibi_note,
    figure_labels,
    shaw_live,
    t5_bias_figure,
    t5_live,
    t5_ranges,
)
from figures import relative as fig
from posenc.relative import (
    ShawRelativeEmbeddings,
    T5RelativeBias,
    alibi_bias,
    alibi_bias_per_offset,
    alibi_slope_exponents,
    alibi_slopes,
    shaw_clip_index,
    shaw_relative_index,
    t5_bucket_ranges,
    t5_max_exact,
    t5_relative_bucket,
)
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart, figure_part
from ui.language import current_language, t
from ui.live import live_chart, settled_values
from ui.notice import notice
from ui.sections import section
from ui.shared import use_shared_controls
from ui.table import table
from ui.words import Question, Text, caption, markdown, words_part


def t5_checkpoint(bidirectional: bool, num_buckets: int, max_distance: int) -> None:
    """Which bucket holds distance 40? Asked above the T5 chart at its current settings (none when they are invalid:
    the section says why)."""
    try:
        asked = t5_bucket_of_distance(bidirectional, num_buckets, max_distance)
    except ValueError:
        return
    spans = asked.facts["spans"]
    words = {b: t("relative.cp_t5_choice", bucket=b) for b in asked.choices}
    why = {b: t("relative.cp_t5_wrong", bucket=b, **spans[b]) for b in asked.choices}
    right = t("relative.cp_t5_right", **asked.facts, **spans[asked.correct])
    question = t("relative.cp_t5_question", num_buckets=num_buckets, **asked.facts)
    checkpoint("cp_rel_t5", question, words, asked.correct, right, why)


@words_part("relative_alibi_question", uses=("heads",))
def alibi_checkpoint(heads: int) -> Question:
    """The last head's slope, for the current number of heads; asked above the ALiBi charts."""
    asked = alibi_last_slope(heads)
    words = {e: f"2^−{e:g} ≈ {2**-e:.4g}" for e in asked.choices}  # a formula: the same in every language
    owner = asked.facts["owner"]
    why = {e: t("relative.cp_alibi_wrong_head", head=owner[e], heads=heads) if owner[e] else
           t("relative.cp_alibi_wrong_none", heads=heads) for e in asked.choices}  # fmt: skip
    right = t("relative.cp_alibi_right", **{k: v for k, v in asked.facts.items() if k != "owner"})
    return Question("cp_rel_alibi", t("relative.cp_alibi_question", heads=heads), words, asked.correct, right, why)


@section("relative_shaw", uses=("length",), whole=())  # a release of the live k slider reruns only this section
def shaw_section(length: int) -> None:
    st.subheader(t("relative.shaw_header"))
    k = settled_values("relative_shaw_live", {"k": 8})["k"]
    live_chart(shaw_live(current_language(), length, k), key="relative_shaw_live")  # live: k
    window_note(length)
    st.caption(t("relative.shaw_k_help"))
    st.latex(r"a_{ij} = w_{\operatorname{clip}(j-i,\,k)},\qquad \operatorname{clip}(x, k) = \max(-k, \min(k, x))")
    st.latex(
        r"e_{ij} = \frac{x_i W^Q \,(x_j W^K + a^K_{ij})^\top}{\sqrt{d}},"
        rf"\qquad \text{{{t('relative.table_row')}}} = \operatorname{{clip}}(j-i,\,k) + k"
    )
    notice("relative.shaw_notice", k=k)
    show_code(shaw_relative_index, shaw_clip_index, ShawRelativeEmbeddings)


@section("relative_t5", uses=("length", "heads"), whole=())  # the toggle, a live slider's release: only this
def t5_section(length: int, heads: int) -> None:
    st.subheader(t("relative.t5_header"))
    bidirectional = st.toggle(
        t("relative.t5_bidirectional_label"),
        value=True,
        key="relative_t5_bidirectional",
        help=t("relative.t5_bidirectional_help"),
    )
    values = settled_values("relative_t5_live", {"num_buckets": 32, "max_distance": 128})
    num_buckets, max_distance = values["num_buckets"], values["max_distance"]
    t5_checkpoint(bidirectional, num_buckets, max_distance)
    live_chart(t5_live(current_language(), bidirectional, length, num_buckets, max_distance), key="relative_t5_live")
    st.caption(
        " ".join(t(f"relative.{key}") for key in ("t5_num_buckets_help", "t5_max_distance_help", "t5_live_follows"))
    )
    max_exact = t5_max_exact(bidirectional, num_buckets)  # the slider keeps num_buckets even and ≥ 4: always valid
    try:
        ranges = t5_ranges(bidirectional, num_buckets, max_distance)
    except ValueError:  # the only error left: max_distance inside the exact range (the chart's note says it too)
        message = t("relative.t5_error", max_exact=max_exact, max_distance=max_distance)
        st.error(message, icon=":material/error:")
        return
    st.latex(
        r"b(n) = \begin{cases} n & n < n_{\text{exact}} \\ \min\!\left(B'-1,\; n_{\text{exact}} + \left\lfloor"
        r" \frac{\ln(n / n_{\text{exact}})}{\ln(\text{max\_distance} / n_{\text{exact}})}\,(B' - n_{\text{exact}})"
        r" \right\rfloor\right) & \text{" + t("relative.otherwise") + r"} \end{cases}"
    )
    if bidirectional:
        st.markdown(t("relative.t5_symbols_bidirectional", max_exact=max_exact))
    else:
        st.markdown(t("relative.t5_symbols_causal", max_exact=max_exact))
    notice("relative.t5_notice")
    st.markdown(t("relative.t5_table_header"))
    table(fig.t5_bucket_table(ranges, max_exact, figure_labels(current_language())), height=300)  # 300 px: it scrolls
    st.caption(t("relative.t5_table_notice"))
    t5_bias(bidirectional, num_buckets, max_distance, heads)
    st.caption(t("relative.t5_bias_notice"))
    st.info(t("relative.t5_shared_info"), icon=":material/layers:")
    show_code(t5_relative_bucket, t5_bucket_ranges, T5RelativeBias)


@section("relative_alibi", uses=("length", "heads"), whole=())
def alibi_section(length: int, heads: int) -> None:
    """Its live heads slider is the shared control: a release reruns every section that uses it."""
    st.subheader(t("relative.alibi_header"))
    alibi_checkpoint(heads)
    live_chart(alibi_live(current_language(), length, heads), key="relative_alibi_live", shared=True)
    lang = current_language()
    st.latex(
        r"\operatorname{softmax}\!\left(q_i K^\top + m_h \cdot [-(i-1), \dots, -2, -1, 0]\right),"
        r"\qquad m_h = 2^{-8h/n},\; h = 1, \dots, n"
    )
    alibi_words(heads, lang)
    matrices = (length, heads, lang)  # built only when the browser needs the server's figure (ui.figure)
    figure_chart(lambda: alibi_matrices(*matrices), "relative_alibi_matrix", follow=alibi_follow(*matrices))
    notice("relative.alibi_notice")
    show_code(alibi_slope_exponents, alibi_slopes, alibi_bias_per_offset, alibi_bias)


@words_part("relative_window_note", uses=("length",))
def window_note(length: int) -> list[Text]:
    if length <= fig.window_length(length):
        return []
    return [caption(t("relative.window_note", last=fig.window_length(length) - 1, length=length))]


@figure_part("relative_t5_picture", uses=("heads",))
def t5_bias(bidirectional: bool, num_buckets: int, max_distance: int, heads: int) -> dict:
    return {"relative_t5_bias": t5_bias_figure(bidirectional, num_buckets, max_distance, heads, current_language())}


@words_part("relative_alibi_words", uses=("heads",))
def alibi_words(heads: int, lang: str) -> Text:
    return markdown(alibi_note(heads, lang))


shared = use_shared_controls("length", "heads", by_section=True)
st.title(t("relative.title"))
st.markdown(t("relative.intro"))
shaw_section(shared["length"])
t5_section(shared["length"], shared["heads"])
alibi_section(shared["length"], shared["heads"])
