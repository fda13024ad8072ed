"""Transformer-XL, DeBERTa and NoPE: attention scores split into terms, position with no encoding, every family."""

import streamlit as st
import torch

from charts.relative_scores import (
    XL_VIEWS,
    chart,
    comparison_parts,
    deberta_live,
    length_evidence,
    no_pe_model,
    start_weight_gap,
    toy_decoder_maps,
)
from charts.toy_model import shipped_metrics
from figures import relative_scores as fig
from posenc.deberta import deberta_delta, deberta_scores
from posenc.nope import causal_first_token_weight, nope_identical_tokens
from posenc.transformer_xl import absolute_input_terms, transformer_xl_scores, xl_relative_encoding
from ui.code import show_code
from ui.figure import figure_chart, figure_part
from ui.language import current_language, t
from ui.live import live_chart, settled_values
from ui.notice import notice
from ui.relative_scores_questions import deberta_checkpoint, nope_checkpoint
from ui.sections import part, rerun_section, section
from ui.shared import use_shared_controls
from ui.table import table
from ui.words import Text, markdown, notice_words, words_part

TOY_EXAMPLES = ("9999+9999=", "345+678=", "907-45=", "111+11=")
DEBERTA_LIVE = "rs_deberta_live"  # the live δ chart's key


@section("rs_xl", uses=("length", "dim", "base"), whole=())  # its widgets rerun only this section
def xl_section(length: int, dim: int, base: float) -> None:
    st.subheader(t("relative_scores.xl_header"))
    view_col, scale_col = st.columns(2)  # the toggle's label needs half the column in Korean and Chinese
    # a dict, not a lambda calling t(): the options' names are fixed in this run's language when the widget is drawn
    view_names = {view: t(f"relative_scores.xl_view_{view}") for view in XL_VIEWS}
    label = t("relative_scores.xl_view_label")
    view = view_col.radio(label, XL_VIEWS, format_func=view_names.get, horizontal=True, key="rs_xl_view")
    hint = t("relative_scores.own_scale_help")
    own = scale_col.toggle(t("relative_scores.own_scale_label"), key="rs_xl_own_scale", help=hint)
    xl_picture(length, dim, base, view, own)
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
    xl_spread(length, dim, base, view, own)
    notice("relative_scores.xl_notice", r_distance="R_{i−j}")
    show_code(transformer_xl_scores, xl_relative_encoding, absolute_input_terms)


@figure_part("rs_xl_picture", uses=("length", "dim", "base"))
def xl_picture(length: int, dim: int, base: float, view: str, own: bool) -> dict:
    return {"rs_xl_terms": chart("xl", current_language(), length, dim, base, view, own)[0]}


@words_part("rs_xl_spread", uses=("length", "dim", "base"))
def xl_spread(length: int, dim: int, base: float, view: str, own: bool) -> Text:
    spreads = chart("xl", current_language(), length, dim, base, view, own)[1]
    spread = ", ".join(f"({letter}) **{value:.3g}**" for letter, value in zip("abcd", spreads, strict=True))
    return markdown(t("relative_scores.spread_line", spread=spread))


@section("rs_deberta", uses=("length", "dim"), whole=())  # its slider reruns only this section
def deberta_section(length: int, dim: int) -> None:
    st.subheader(t("relative_scores.deberta_header"))
    k = int(settled_values(DEBERTA_LIVE, {"k": 4})["k"])
    deberta_checkpoint(k)
    lang = current_language()
    deberta_delta_chart(length, k, lang)
    deberta_picture(length, dim, k, lang)  # follows the released k
    otherwise = t("relative_scores.latex_otherwise")
    st.latex(
        r"\delta(i,j) = \begin{cases} 0 & i-j \le -k \\ 2k-1 & i-j \ge k \\ i-j+k & \text{"
        + otherwise
        + r"}\end{cases}"
    )
    st.latex(
        r"\tilde A_{ij} = Q^c_i {K^c_j}^{\!\top} + Q^c_i {K^r_{\delta(i,j)}}^{\!\top}"
        r" + K^c_j {Q^r_{\delta(j,i)}}^{\!\top},\qquad \text{logit}_{ij} = \frac{\tilde A_{ij}}{\sqrt{3d}}"
    )
    notice("relative_scores.deberta_notice", two_k=2 * k)
    i, j = 2, 5  # one query–key pair whose two p2c rows differ for every k
    rows = {
        "paper_row": deberta_delta(torch.tensor(j - i), k).item(),
        "hf_row": deberta_delta(torch.tensor(i - j), k).item(),
    }
    st.markdown(t("relative_scores.deberta_hf_note", k=k, **rows))
    show_code(deberta_delta, deberta_scores)


@section("rs_nope", uses=("length", "dim"), whole=())  # its widgets rerun only this section
def nope_section(length: int, dim: int) -> None:
    st.subheader(t("relative_scores.nope_header"))
    toggle, gap_col = st.columns(2)
    distinct = toggle.toggle(t("relative_scores.nope_bos_label"), value=True, key="rs_nope_bos")
    gap = gap_col.slider(t("relative_scores.nope_gap_label"), -3.0, 3.0, 0.0, step=0.5, key="rs_nope_gap")
    nope_checkpoint(dim, distinct, gap)
    nope_pictures(length, dim, distinct, gap)
    st.latex(
        r"\alpha_{i0} = \frac{e^{g}}{e^{g} + i}\;\big(= \tfrac{1}{i+1} \text{ "
        + t("relative_scores.latex_for")
        + r" } g = 0\big),\qquad"
        r" o_i = \alpha_{i0}\, v_{\langle s\rangle} + (1 - \alpha_{i0})\, v_x"
    )
    nope_notice(length)
    st.info(t("relative_scores.nope_name_info"), icon=":material/help:")
    show_code(nope_identical_tokens, causal_first_token_weight)


@part("rs_deberta_delta", uses=("length",))  # its offsets and window; a release of k reruns the whole section
def deberta_delta_chart(length: int, k: int, lang: str) -> None:
    live_chart(deberta_live(lang, length, k), key=DEBERTA_LIVE, on_settled=lambda _: rerun_section("rs_deberta"))
    if length > fig.window_length(length):
        st.caption(t("relative_scores.window_note", last=fig.window_length(length) - 1, length=length))


@figure_part("rs_deberta_picture", uses=("length", "dim"))
def deberta_picture(length: int, dim: int, k: int, lang: str) -> dict:
    return {"rs_deberta_terms": chart("deberta", lang, length, dim, k)}


@figure_part("rs_nope_pictures", uses=("length", "dim"))
def nope_pictures(length: int, dim: int, distinct: bool, gap: float) -> dict:
    attention, signal = chart("nope", current_language(), length, dim, distinct, gap)
    return {"rs_nope_attention": attention, "rs_nope_signal": signal}


@words_part("rs_nope_numbers", uses=("length",))
def nope_notice(length: int) -> Text:
    return notice_words("relative_scores.nope_notice", n=fig.nope_length(length))


@st.fragment  # the toy model's widgets rerun only this part (it ends the NoPE section)
def toy_nope() -> None:
    st.markdown(f"**{t('relative_scores.toy_header')}**")
    metrics = {m["pe"]: m for m in shipped_metrics()}
    try:
        no_pe_model()
    except ValueError as err:
        st.info(t("relative_scores.toy_model_missing", error=str(err)))
        return
    left, right = st.columns(2)
    example = left.selectbox(t("relative_scores.toy_expression_label"), TOY_EXAMPLES, key="rs_nope_example")
    maps, _, written, truth = toy_decoder_maps(example)
    layers = range(1, len(maps) + 1)
    layer = right.radio(t("relative_scores.toy_layer_label"), layers, horizontal=True, key="rs_nope_layer")
    figure_chart(chart("toy", current_language(), example, layer), key="rs_nope_toy")
    held = t("relative_scores.toy_unknown_share")
    if "none" in metrics:
        held = f"{metrics['none']['held_out_accuracy']:.1%}"
    gap = f"{start_weight_gap(maps[0]):.2f}"  # layer 1: how far the weight on <s> strays from 1/(t + 1)
    st.caption(t("relative_scores.toy_notice", text=example, written=written, truth=truth, held=held, gap=gap))


def comparison_section() -> None:
    st.subheader(t("relative_scores.comparison_header"))
    for family, shown in comparison_parts(current_language()).items():
        st.markdown(f"**{t(f'relative_scores.comparison_{family}')}**")
        table(shown)  # cells wrap
    evidence = length_evidence()
    train, longest = evidence[:2] if evidence else ("–", "–")
    st.caption(t("relative_scores.comparison_notice", train=train, long=longest))


shared = use_shared_controls("base", "dim", "length", by_section=True)
st.title(t("relative_scores.title"))
st.markdown(t("relative_scores.intro"))
xl_section(shared["length"], shared["dim"], shared["base"])
deberta_section(shared["length"], shared["dim"])
nope_section(shared["length"], shared["dim"])
toy_nope()
comparison_section()
