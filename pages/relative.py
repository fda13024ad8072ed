"""Relative positions: Shaw et al.'s clipped table, T5's log buckets and ALiBi's linear bias."""

import streamlit as st

from figures import relative as fig
from posenc.relative import (
    ShawRelativeEmbeddings,
    T5RelativeBias,
    alibi_bias,
    alibi_bias_per_offset,
    alibi_power_of_two_heads,
    alibi_slope_exponents,
    alibi_slopes,
    relative_offsets,
    shaw_clip_index,
    shaw_relative_index,
    t5_bias_per_offset,
    t5_bucket_ranges,
    t5_illustrative_bias,
    t5_max_exact,
    t5_relative_bucket,
)
from ui.code import show_code
from ui.shared import use_shared_controls


@st.cache_data(max_entries=64)
def t5_tables(bidirectional: bool, num_buckets: int, max_distance: int):
    """Offsets ±2·max_distance and their buckets as numpy, and the bucket ranges as a display table."""
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    buckets = t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance)
    ranges = t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    return offsets.numpy(), buckets.numpy(), fig.t5_bucket_table(ranges, t5_max_exact(bidirectional, num_buckets))


# Built figures are cached too (building one costs milliseconds), keyed by the controls that shape them, so a move
# rebuilds only the charts it changes. A cached figure is shared by every session and is never modified.
@st.cache_resource(max_entries=32)
def shaw_figures(length: int, k: int):
    offsets = relative_offsets(length - 1)
    matrix = fig.shaw_index_matrix(shaw_relative_index(fig.window_length(length), k), k, length)
    return matrix, fig.shaw_index_curve(offsets, shaw_clip_index(offsets, k), k)


@st.cache_resource(max_entries=32)
def t5_curve_figure(bidirectional: bool, num_buckets: int, max_distance: int, length: int):
    offsets, buckets, _ = t5_tables(bidirectional, num_buckets, max_distance)
    max_exact = t5_max_exact(bidirectional, num_buckets)
    return fig.t5_bucket_curve(offsets, buckets, max_exact, max_distance, bidirectional, length)


@st.cache_resource(max_entries=32)
def t5_bias_figure(bidirectional: bool, num_buckets: int, max_distance: int, heads: int):
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    bias = t5_bias_per_offset(t5_illustrative_bias(heads, num_buckets, max_distance, bidirectional), offsets)
    return fig.t5_head_bias(offsets, bias.detach())


@st.cache_resource(max_entries=32)
def alibi_figures(length: int, heads: int):
    """Slopes bar, bias lines over the past offsets, windowed [H, W, W] bias matrices, and the slopes note."""
    slopes, exponents, power = alibi_slopes(heads), alibi_slope_exponents(heads), alibi_power_of_two_heads(heads)
    offsets = relative_offsets(length - 1, past_only=True)
    lines = fig.alibi_bias_lines(offsets, alibi_bias_per_offset(offsets, heads))
    matrices = fig.alibi_head_matrices(alibi_bias(fig.window_length(length), heads), slopes, length)
    return fig.alibi_slopes_bar(slopes, exponents, power), lines, matrices, fig.alibi_slopes_note(exponents, power)


@st.fragment  # on the server, this section's slider reruns only this section
def shaw_section(length: int) -> None:
    st.subheader("Shaw et al. (2018): a learned vector per clipped offset")
    hint = "In Shaw et al.'s translation ablation, clip distances beyond k ≈ 2 brought no clear gain."
    k = st.slider("clip distance k", 0, 64, 8, key="relative_shaw_k", help=hint)
    left, right = st.columns(2)
    matrix, curve = shaw_figures(length, k)
    left.plotly_chart(matrix, key="relative_shaw_matrix")
    right.plotly_chart(curve, key="relative_shaw_curve")
    st.latex(r"a_{ij} = w_{\operatorname{clip}(j-i,\,k)},\qquad \operatorname{clip}(x, k) = \max(-k, \min(k, x))")
    st.latex(
        r"e_{ij} = \frac{x_i W^Q \,(x_j W^K + a^K_{ij})^\top}{\sqrt{d}},"
        r"\qquad \text{table row} = \operatorname{clip}(j-i,\,k) + k"
    )
    st.caption(
        f"What to notice: the model learns only 2k + 1 vectors, one per offset from −{k} to +{k}. Every key more "
        f"than k = {k} positions away uses the same edge row, so the model knows *that* it is far, never *how* far: "
        "a key k + 1 back and a key 1000 back look identical. Every diagonal has one colour: only j − i matters, "
        "not where the pair sits in the sentence. With k = 0 every pair uses one row and the model sees no order."
    )
    show_code(shaw_relative_index, shaw_clip_index, ShawRelativeEmbeddings)


@st.fragment  # on the server, this section's widgets rerun only this section
def t5_section(length: int, heads: int) -> None:
    st.subheader("T5 (2020): one learned scalar per bucket of offsets")
    toggle, buckets_col, distance_col = st.columns([1, 2, 2])
    bidirectional = toggle.toggle("bidirectional (encoder)", value=True, key="relative_t5_bidirectional")
    num_buckets = buckets_col.slider("num_buckets", 4, 64, 32, step=2, key="relative_t5_num_buckets")
    max_distance = distance_col.slider("max_distance", 2, 1024, 128, key="relative_t5_max_distance")
    try:
        max_exact = t5_max_exact(bidirectional, num_buckets)
        table = t5_tables(bidirectional, num_buckets, max_distance)[2]
    except ValueError as err:
        st.error(f"{err} Raise max_distance or lower num_buckets.", icon=":material/error:")
        return
    st.plotly_chart(t5_curve_figure(bidirectional, num_buckets, max_distance, length), key="relative_t5_buckets")
    st.latex(
        r"b(n) = \begin{cases} n & n < n_{\text{exact}} \\ \min\!\left(B'-1,\; n_{\text{exact}} + \left\lfloor"
        r" \frac{\ln(n / n_{\text{exact}})}{\ln(\text{max\_distance} / n_{\text{exact}})}\,(B' - n_{\text{exact}})"
        r" \right\rfloor\right) & \text{otherwise} \end{cases}"
    )
    direction = "|r|, and r > 0 adds B/2" if bidirectional else "max(−r, 0): only the past counts"
    st.markdown(
        f"Here B' = {'B/2' if bidirectional else 'B'} buckets per direction, n = {direction}, and "
        f"n_exact = B'/2 = **{max_exact}**."
    )
    st.caption(
        "What to notice: near the query every distance has its own bucket (exact); farther out, buckets grow "
        "geometrically (log), because “5 vs 6 tokens away” matters more than “105 vs 106”; from max_distance on, "
        "everything shares the last bucket (capped). A causal model puts every key ahead in bucket 0."
    )
    st.markdown("**Bucket boundaries, as computed by `t5_bucket_ranges`**")
    st.dataframe(table, hide_index=True, height=300)
    st.caption(
        "A bucket is “never used” when no offset lands in it: bidirectional bucket B/2 would mean “0 positions "
        "ahead”, and when max_distance is close to n_exact the log step jumps over buckets. The last bucket of "
        "each direction starts inside the log region and then also takes everything past max_distance."
    )
    st.plotly_chart(t5_bias_figure(bidirectional, num_buckets, max_distance, heads), key="relative_t5_bias")
    st.caption(
        "These bias values are random and untrained (N(0, 1), fixed seed 0): only the bucket structure — which "
        "offsets share one value — is T5's. Each row is one head; every offset in a bucket gets the same colour."
    )
    st.info(
        "T5 learns this table once (in the first layer) and every layer reuses it: one table shared by all "
        "layers, but each head has its own column, so each head can prefer near or far keys.",
        icon=":material/layers:",
    )
    show_code(t5_relative_bucket, t5_bucket_ranges, T5RelativeBias)


def alibi_section(length: int, heads: int) -> None:
    st.subheader("ALiBi (2021): a fixed linear penalty, a different slope per head")
    bar, lines, matrices, note = alibi_figures(length, heads)
    left, right = st.columns(2)
    left.plotly_chart(bar, key="relative_alibi_slopes")
    right.plotly_chart(lines, key="relative_alibi_lines")
    st.latex(
        r"\operatorname{softmax}\!\left(q_i K^\top + m_h \cdot [-(i-1), \dots, -2, -1, 0]\right),"
        r"\qquad m_h = 2^{-8h/n},\; h = 1, \dots, n"
    )
    st.markdown(note)
    st.plotly_chart(matrices, key="relative_alibi_matrix")
    st.caption(
        "What to notice: nothing is learned. Each head subtracts slope × distance from its logits, so a steep head "
        "attends almost only to its neighbours and a gentle head still sees far back. The "
        "penalty keeps growing with distance, which is why ALiBi extrapolates to sequences longer than in training."
    )
    show_code(alibi_slopes, alibi_bias)


shared = use_shared_controls("length", "heads")
st.title("Relative positions")
st.markdown(
    "Attention compares every query with every key, so a model can be told *how far apart* two tokens are instead "
    "of *where* each one is. This page shows three ways to do it: Shaw et al.'s clipped table of vectors, T5's "
    "log-spaced buckets of scalars, and ALiBi's fixed linear penalty."
)
shaw_section(shared["length"])
t5_section(shared["length"], shared["heads"])
alibi_section(shared["length"], shared["heads"])
