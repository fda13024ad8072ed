"""Relative positions: Shaw et al.'s clipped table, T5's log buckets and ALiBi's linear bias."""

import streamlit as st

from charts.relative import alibi_figures, figure_labels, shaw_figures, t5_bias_figure, t5_curve_figure, t5_tables
from figures import relative as fig
from posenc.relative import (
    ShawRelativeEmbeddings,
    T5RelativeBias,
    alibi_bias,
    alibi_slopes,
    shaw_clip_index,
    shaw_relative_index,
    t5_bucket_ranges,
    t5_max_exact,
    t5_relative_bucket,
)
from ui.code import show_code
from ui.language import current_language, t
from ui.shared import use_shared_controls


@st.fragment  # on the server, this section's slider reruns only this section
def shaw_section(length: int) -> None:
    st.subheader(t("relative.shaw_header"))
    k = st.slider(t("relative.shaw_k_label"), 0, 64, 8, key="relative_shaw_k", help=t("relative.shaw_k_help"))
    left, right = st.columns(2)
    matrix, curve = shaw_figures(length, k, current_language())
    left.plotly_chart(matrix, key="relative_shaw_matrix")
    right.plotly_chart(curve, key="relative_shaw_curve")
    st.latex(r"a_{ij} = w_{\operatorname{clip}(j-i,\,k)},\qquad \operatorname{clip}(x, k) = \max(-k, \min(k, x))")
    st.latex(
        r"e_{ij} = \frac{x_i W^Q \,(x_j W^K + a^K_{ij})^\top}{\sqrt{d}},"
        rf"\qquad \text{{{t('relative.table_row')}}} = \operatorname{{clip}}(j-i,\,k) + k"
    )
    st.caption(f"**{t('common.what_to_notice')}** {t('relative.shaw_notice', k=k)}")
    show_code(shaw_relative_index, shaw_clip_index, ShawRelativeEmbeddings)


@st.fragment  # on the server, this section's widgets rerun only this section
def t5_section(length: int, heads: int) -> None:
    st.subheader(t("relative.t5_header"))
    toggle, buckets_col, distance_col = st.columns([1, 2, 2])
    bidirectional = toggle.toggle(
        t("relative.t5_bidirectional_label"),
        value=True,
        key="relative_t5_bidirectional",
        help=t("relative.t5_bidirectional_help"),
    )
    num_buckets = buckets_col.slider(
        t("relative.t5_num_buckets_label"),
        4,
        64,
        32,
        step=2,
        key="relative_t5_num_buckets",
        help=t("relative.t5_num_buckets_help"),
    )
    max_distance = distance_col.slider(
        t("relative.t5_max_distance_label"),
        2,
        1024,
        128,
        key="relative_t5_max_distance",
        help=t("relative.t5_max_distance_help"),
    )
    max_exact = t5_max_exact(bidirectional, num_buckets)  # the slider keeps num_buckets even and ≥ 4: always valid
    try:
        ranges = t5_tables(bidirectional, num_buckets, max_distance)[2]
    except ValueError:  # the only error left: max_distance inside the exact range
        message = t("relative.t5_error", max_exact=max_exact, max_distance=max_distance)
        st.error(message, icon=":material/error:")
        return
    curve = t5_curve_figure(bidirectional, num_buckets, max_distance, length, current_language())
    st.plotly_chart(curve, key="relative_t5_buckets")
    st.latex(
        r"b(n) = \begin{cases} n & n < n_{\text{exact}} \\ \min\!\left(B'-1,\; n_{\text{exact}} + \left\lfloor"
        r" \frac{\ln(n / n_{\text{exact}})}{\ln(\text{max\_distance} / n_{\text{exact}})}\,(B' - n_{\text{exact}})"
        r" \right\rfloor\right) & \text{" + t("relative.otherwise") + r"} \end{cases}"
    )
    if bidirectional:
        st.markdown(t("relative.t5_symbols_bidirectional", max_exact=max_exact))
    else:
        st.markdown(t("relative.t5_symbols_causal", max_exact=max_exact))
    st.caption(f"**{t('common.what_to_notice')}** {t('relative.t5_notice')}")
    st.markdown(t("relative.t5_table_header"))
    st.dataframe(fig.t5_bucket_table(ranges, max_exact, figure_labels(current_language())), hide_index=True, height=300)
    st.caption(t("relative.t5_table_notice"))
    bias = t5_bias_figure(bidirectional, num_buckets, max_distance, heads, current_language())
    st.plotly_chart(bias, key="relative_t5_bias")
    st.caption(t("relative.t5_bias_notice"))
    st.info(t("relative.t5_shared_info"), icon=":material/layers:")
    show_code(t5_relative_bucket, t5_bucket_ranges, T5RelativeBias)


def alibi_section(length: int, heads: int) -> None:
    st.subheader(t("relative.alibi_header"))
    bar, lines, matrices, note = alibi_figures(length, heads, current_language())
    left, right = st.columns(2)
    left.plotly_chart(bar, key="relative_alibi_slopes")
    right.plotly_chart(lines, key="relative_alibi_lines")
    st.latex(
        r"\operatorname{softmax}\!\left(q_i K^\top + m_h \cdot [-(i-1), \dots, -2, -1, 0]\right),"
        r"\qquad m_h = 2^{-8h/n},\; h = 1, \dots, n"
    )
    st.markdown(note)
    st.plotly_chart(matrices, key="relative_alibi_matrix")
    st.caption(f"**{t('common.what_to_notice')}** {t('relative.alibi_notice')}")
    show_code(alibi_slopes, alibi_bias)


shared = use_shared_controls("length", "heads")
st.title(t("relative.title"))
st.markdown(t("relative.intro"))
shaw_section(shared["length"])
t5_section(shared["length"], shared["heads"])
alibi_section(shared["length"], shared["heads"])
