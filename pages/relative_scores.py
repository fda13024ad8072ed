"""Transformer-XL, DeBERTa and NoPE: attention scores split into terms, position with no encoding, every family."""

import streamlit as st

from figures import relative_scores as fig
from posenc.deberta import (
    DEBERTA_TERM_LABELS,
    deberta_delta,
    deberta_illustration,
    deberta_relative_index,
    deberta_scores,
)
from posenc.nope import causal_first_token_weight, distance_from_last, nope_identical_tokens
from posenc.relative import relative_offsets
from posenc.toy.model import answer, shipped_checkpoint, shipped_metrics
from posenc.transformer_xl import (
    ABSOLUTE_TERM_LABELS,
    XL_TERM_LABELS,
    absolute_input_terms,
    diagonal_spread,
    transformer_xl_scores,
    xl_illustration,
    xl_relative_encoding,
)
from ui.code import show_code
from ui.shared import use_shared_controls

XL_VIEWS = ("Transformer-XL: R of the distance i − j", "Input + PE: absolute U_i and U_j")
TOY_EXAMPLES = ("9999+9999=", "345+678=", "907-45=", "111+11=")


@st.cache_data(max_entries=64)
def xl_tables(length: int, dim: int, base: float):
    """Both decompositions (4 terms + sum, as numpy [W, W]) and the diagonal spread of each term."""
    shown = xl_illustration(fig.window_length(length), dim, base)
    tables = {}
    for view, scores in zip(XL_VIEWS, (shown.relative, shown.absolute), strict=True):
        parts = (*scores.terms(), scores.total)
        tables[view] = ([part[0].numpy() for part in parts], [diagonal_spread(part) for part in scores.terms()])
    return tables


@st.cache_data(max_entries=64)
def deberta_tables(length: int, dim: int, k: int):
    scores = deberta_illustration(fig.window_length(length), dim, k)
    return [part[0].numpy() for part in (*scores.terms(), scores.total)]


@st.cache_data(max_entries=64)
def nope_tables(length: int, dim: int, distinct_first: bool, gap: float):
    demos = [nope_identical_tokens(length, dim, causal, distinct_first, gap) for causal in (True, False)]
    return [(d.weights.numpy(), distance_from_last(d.outputs).numpy()) for d in demos]


@st.cache_resource(max_entries=1)
def no_pe_model():
    return shipped_checkpoint("none")


@st.cache_data(max_entries=16)
def toy_decoder_maps(text: str):
    result = answer(no_pe_model(), text)
    return [m.numpy() for m in result.decoder_self], result.target_tokens, result.text, result.expression.result


def xl_section(length: int, dim: int, base: float) -> None:
    st.subheader("Transformer-XL and XLNet (2019): the score as four terms")
    view_col, scale_col = st.columns([3, 1])
    view = view_col.radio("Decomposition", XL_VIEWS, horizontal=True, key="rs_xl_view")
    hint = "Off: one scale, so sizes compare. On: each term's own pattern shows, however small it is."
    own = scale_col.toggle("one colour scale per panel", key="rs_xl_own_scale", help=hint)
    parts, spreads = xl_tables(length, dim, base)[view]
    labels = XL_TERM_LABELS if view == XL_VIEWS[0] else ABSOLUTE_TERM_LABELS
    panels = [*zip(labels, parts[:4], strict=True), ("sum: the attention logit", parts[4])]
    grid = fig.score_grid(panels, f"{view.split(':')[0]}, one head", length, cols=3, shared_scale=not own)
    st.plotly_chart(grid, key="rs_xl_terms")
    st.latex(
        r"A^{\text{rel}}_{ij} = \underbrace{q_i^\top k_j}_{(a)} + \underbrace{q_i^\top W_{k,R} R_{i-j}}_{(b)}"
        r" + \underbrace{u^\top k_j}_{(c)} + \underbrace{v^\top W_{k,R} R_{i-j}}_{(d)},\qquad"
        r" R_r = [\sin(r\omega) \,\|\, \cos(r\omega)]"
    )
    st.latex(
        r"\begin{aligned} A^{\text{abs}}_{ij} &= (x_i + U_i)^\top W_q^\top W_k (x_j + U_j) \\"
        r" &= \underbrace{x_i^\top W_q^\top W_k x_j}_{(a)} + \underbrace{x_i^\top W_q^\top W_k U_j}_{(b)}"
        r" + \underbrace{U_i^\top W_q^\top W_k x_j}_{(c)} + \underbrace{U_i^\top W_q^\top W_k U_j}_{(d)}"
        r" \end{aligned}"
    )
    spread = ", ".join(f"{label.split(')')[0]}) **{value:.3g}**" for label, value in zip(labels, spreads, strict=True))
    st.markdown(f"Largest change along one diagonal (0 = depends only on i − j): {spread}.")
    st.caption(
        "What to notice: both scores share term (a). Adding PE to the input mixes the query's own position U_i into "
        "(c) and (d), so (d) changes along a diagonal: the same distance scores differently at different places. "
        "Transformer-XL replaces U_j by the sinusoid of the distance R_{i−j} and the query's position by two "
        "learned vectors u and v, so (c) is the same for every query (vertical stripes) and (d) depends only on "
        "i − j (diagonal stripes, spread 0). That is what lets it reuse a cached segment at new positions. "
        "Weights are random and untrained (seed 0), scaled by 1/√d."
    )
    show_code(transformer_xl_scores, xl_relative_encoding, absolute_input_terms)


def deberta_section(length: int, dim: int) -> None:
    st.subheader("DeBERTa (2020): content and position as two vectors")
    k = st.slider("maximum relative distance k", 1, 64, 4, key="rs_deberta_k")
    left, right = st.columns(2)
    left.plotly_chart(fig.delta_matrix(deberta_relative_index(fig.window_length(length), k), k, length), key="rs_dk")
    offsets = relative_offsets(fig.offset_span(length))
    right.plotly_chart(fig.delta_curve(offsets, deberta_delta(offsets, k), k), key="rs_deberta_delta")
    parts = deberta_tables(length, dim, k)
    panels = [*zip(DEBERTA_TERM_LABELS, parts[:3], strict=True), ("sum ÷ √(3d): the attention logit", parts[3])]
    st.plotly_chart(fig.score_grid(panels, "DeBERTa's three terms, one head", length), key="rs_deberta_terms")
    st.latex(r"\delta(i,j) = \begin{cases} 0 & i-j \le -k \\ 2k-1 & i-j \ge k \\ i-j+k & \text{otherwise}\end{cases}")
    st.latex(
        r"\tilde A_{ij} = Q^c_i {K^c_j}^{\!\top} + Q^c_i {K^r_{\delta(i,j)}}^{\!\top}"
        r" + K^c_j {Q^r_{\delta(j,i)}}^{\!\top},\qquad \text{logit}_{ij} = \frac{\tilde A_{ij}}{\sqrt{3d}}"
    )
    st.caption(
        f"What to notice: only 2k = {2 * k} rows of position vectors exist. Keys k or more positions ahead all use "
        "row 0, and keys k − 1 or more behind all use row 2k − 1 (the formula makes i − j = k − 1 and ≥ k share it). "
        "Content → position asks “does this word care about that distance?”, position → content asks “does "
        "that word care about being at this distance from me?” The sum is divided by √(3d), not √d, because "
        "three terms are added. Weights are random and untrained (seed 0)."
    )
    show_code(deberta_delta, deberta_scores)


def nope_section(length: int, dim: int) -> None:
    st.subheader("NoPE (2022): no encoding, but a causal mask")
    toggle, gap_col = st.columns(2)
    distinct = toggle.toggle("first token differs (a start token <s>)", value=True, key="rs_nope_bos")
    gap = gap_col.slider("score advantage g of the first token", -3.0, 3.0, 0.0, step=0.5, key="rs_nope_gap")
    n = fig.nope_length(length)
    (causal_w, causal_d), (both_w, both_d) = nope_tables(n, dim, distinct, gap)
    st.plotly_chart(fig.nope_attention_pair(causal_w, both_w, length), key="rs_nope_attention")
    closed = causal_first_token_weight(n, gap) if distinct else None  # the closed form needs a distinct first token
    signal = fig.nope_position_signal(causal_w[:, 0], both_w[:, 0], closed, causal_d, both_d)
    st.plotly_chart(signal, key="rs_nope_signal")
    st.latex(
        r"\alpha_{i0} = \frac{e^{g}}{e^{g} + i}\;\big(= \tfrac{1}{i+1} \text{ for } g = 0\big),\qquad"
        r" o_i = \alpha_{i0}\, v_{\langle s\rangle} + (1 - \alpha_{i0})\, v_x"
    )
    st.caption(
        "What to notice: the tokens after the first are identical and nothing encodes position. Bidirectional, every "
        "one of them sees the same set of keys, so all get exactly the same output (distance 0). With a causal mask, "
        "position i sees only i + 1 keys, so the first token's share falls like 1/(i + 1) and every position's output "
        "is different: the model can read its position from that. Turn the first token off: with nothing to count "
        f"against, causal outputs are identical too. Curves cover the first {n} positions."
    )
    show_code(nope_identical_tokens, causal_first_token_weight)
    toy_nope()


def toy_nope() -> None:
    st.markdown("**Which toy model shows it: the No-PE model's decoder**")
    metrics = {m["pe"]: m for m in shipped_metrics()}
    try:
        no_pe_model()
    except ValueError as err:
        st.info(f"{err} Until then this part is empty.")
        return
    left, right = st.columns(2)
    text = left.selectbox("Expression", TOY_EXAMPLES, key="rs_nope_example")
    maps, tokens, written, truth = toy_decoder_maps(text)
    layer = right.radio("Decoder layer", range(1, len(maps) + 1), horizontal=True, key="rs_nope_layer")
    reference = causal_first_token_weight(len(tokens))
    st.plotly_chart(fig.toy_first_step_weight(maps[layer - 1], tokens, reference, layer), key="rs_nope_toy")
    held = f"{metrics['none']['held_out_accuracy']:.1%}" if "none" in metrics else "an unknown share"
    st.caption(
        f"What it shows (for {text} this model answers {written}; the true answer is {truth}): every toy decoder is "
        "causal. In layer 1 of the model trained with no positional encoding, the heads spread their weight almost "
        "evenly over the steps they may see, so the weight on <s> follows 1/(t + 1): the mask alone tells each "
        "step how far into the answer it is. Layer 2's heads pick particular steps instead. What it does not show: "
        "a working model. The encoder is bidirectional and has no positions, so it cannot tell the units digit of a "
        f"number from its hundreds digit — the No-PE model gets only {held} of held-out problems right."
    )


def comparison_section() -> None:
    st.subheader("Every family in the app, side by side")
    st.dataframe(fig.comparison_table(shipped_metrics()), hide_index=True)
    st.caption(
        "The two toy columns are measured, read from the shipped assets/toy/*.json: exact-match accuracy of the "
        "toy transformer on held-out 3-digit problems, and on 4-digit problems, longer than anything it was trained "
        "on. The extrapolation column summarises the papers, for full-size language models."
    )


shared = use_shared_controls("base", "dim", "length")
st.title("Transformer-XL, DeBERTa and NoPE")
st.markdown(
    "Relative encodings can also be built into the attention score as separate terms: Transformer-XL splits it into "
    "four, DeBERTa into three. And a decoder with no encoding at all can still work out where it is, because its "
    "causal mask lets each position see a different number of tokens."
)
xl_section(shared["length"], shared["dim"], shared["base"])
deberta_section(shared["length"], shared["dim"])
nope_section(shared["length"], shared["dim"])
comparison_section()
