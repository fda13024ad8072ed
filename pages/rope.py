"""RoPE in the complex plane: each feature pair is a point that turns by position × θ_i."""

import streamlit as st

from charts.rope import (
    MAX_POSITION,
    clock_chart,
    layout_charts,
    layout_experiment,
    pair_chart,
    pair_frames,
    shift_chart,
    shift_data,
)
from figures import rope as figs
from posenc.rope import (
    ROPE_LAYOUTS,
    rope_convert_layout,
    rope_inv_freq,
    rope_layout_mixup,
    rope_layout_permutation,
    rope_offset_detector,
    rope_pair_angles_at,
    rope_pair_points,
    rope_pair_timing,
    rope_rotation_factors,
    rope_scores_at,
)
from ui.code import show_code
from ui.language import current_language, t
from ui.shared import use_shared_controls

CLOCK_STEPS = (1, 10, 100, 1000, 10000)


def notice(sentence: str) -> str:
    """A "What to notice" caption: the bold lead-in, then ``sentence`` (already translated)."""
    return f"**{t('common.what_to_notice')}** {sentence}"


@st.fragment
def pair_and_shift_sections(dim: int, base: float) -> None:
    """The first two sections; a fragment, so their sliders rerun only them on the server (the shift section,
    a fragment inside it, reruns alone when only its own slider moves)."""
    pair, m, n, seed = one_pair_section(dim, base)
    shift_section(dim, base, pair, m, n, seed)


def one_pair_section(dim: int, base: float) -> tuple[int, int, int, int]:
    st.subheader(t("rope.pair_header"))
    cols = st.columns(4)
    pairs = dim // 2
    if pairs > 1:
        pair = cols[0].slider(t("rope.pair_label"), 0, pairs - 1, 0, key="rope_pair", help=t("rope.pair_help"))
    else:
        pair = 0
        cols[0].caption(t("rope.single_pair"))
    m = cols[1].slider(t("rope.query_position"), 0, MAX_POSITION, 5, key="rope_m")
    n = cols[2].slider(t("rope.key_position"), 0, MAX_POSITION, 2, key="rope_n")
    seed = cols[3].slider(t("rope.seed_label"), 0, 99, 0, key="rope_seed", help=t("rope.seed_help"))
    st.plotly_chart(pair_chart(current_language(), dim, base, seed, pair, m, n), key="rope_pair_chart")
    st.latex(
        r"\theta_i = \mathrm{base}^{-2i/d},\quad \tilde q_i = q_i + \mathrm{i}\,q_{i+d/2},\quad "
        r"z^q_i(m) = \tilde q_i\,e^{\mathrm{i}\,m\theta_i},\quad z^k_i(n) = \tilde k_i\,e^{\mathrm{i}\,n\theta_i}"
    )
    timing = pair_frames(dim, base, seed, pair, m, n)["timing"]
    speed = {"theta": f"{timing.theta:.3g}", "period": f"{timing.period:,.1f}", "step": f"{timing.step:,}"}
    st.caption(notice(t("rope.pair_notice", pair=pair, **speed)))
    show_code(rope_pair_points, rope_pair_timing)
    return pair, m, n, seed


@st.fragment
def shift_section(dim: int, base: float, pair: int, m: int, n: int, seed: int) -> None:
    st.subheader(t("rope.shift_header"))
    s = st.slider(t("rope.shift_label"), 0, MAX_POSITION, 100, key="rope_shift")
    data = shift_data(dim, base, seed, pair, m, n, s)
    cols = st.columns(5)
    cols[0].metric(t("rope.angle_before", pair=pair), figs.degrees_text(data["angles"][0]))
    cols[1].metric(t("rope.angle_after", pair=pair), figs.degrees_text(data["angles"][1]))
    cols[2].metric(t("rope.score_before"), f"{data['both'][0]:.4f}")
    cols[3].metric(t("rope.score_after"), f"{data['both'][1]:.4f}")
    cols[4].metric(t("rope.score_query_only"), f"{data['query_only'][1]:.4f}", help=t("rope.score_query_only_help"))
    st.plotly_chart(shift_chart(current_language(), dim, base, seed, pair, m, n, s), key="rope_shift_chart")
    st.latex(
        r"\langle R_m q,\,R_n k\rangle = \operatorname{Re}\sum_{i=0}^{d/2-1} z^q_i(m)\,\overline{z^k_i(n)}"
        r"= \operatorname{Re}\sum_{i} \tilde q_i\,\overline{\tilde k_i}\;e^{\mathrm{i}\,(m-n)\,\theta_i},\qquad "
        r"\alpha_i = \arg\tilde q_i - \arg\tilde k_i + (m-n)\,\theta_i"
    )
    st.caption(notice(t("rope.shift_notice")))
    show_code(rope_scores_at, rope_pair_angles_at)


@st.fragment
def clocks_section(dim: int, base: float) -> None:
    st.subheader(t("rope.clock_header"))
    cols = st.columns(2)
    start = cols[0].slider(t("rope.clock_position_label"), 0, 4096, 0, key="rope_clock_position")
    step = cols[1].select_slider(t("rope.clock_step_label"), CLOCK_STEPS, 1, key="rope_clock_step")
    st.plotly_chart(clock_chart(current_language(), dim, base, start, step), key="rope_clock_chart")
    hand, turn = t("rope.clock_formula_hand"), t("rope.clock_formula_turn")
    st.latex(rf"\text{{{hand}}}\ e^{{\mathrm{{i}}\,p\,\theta_i}},\qquad "
             rf"\text{{{turn}}}\ 2\pi/\theta_i = 2\pi\cdot\mathrm{{base}}^{{2i/d}}")  # fmt: skip
    st.caption(notice(t("rope.clock_notice")))
    show_code(rope_inv_freq, rope_rotation_factors)


@st.fragment
def layout_section(dim: int, base: float) -> None:
    st.subheader(t("rope.layout_header"))
    cols = st.columns(2)
    shown = {"half": t("rope.layout_option_half"), "interleaved": t("rope.layout_option_interleaved")}
    trained = cols[0].radio(
        t("rope.trained_label"), ROPE_LAYOUTS, format_func=shown.get, key="rope_trained_layout", horizontal=True
    )
    offset = cols[1].slider(t("rope.offset_label"), 0, 16, 3, key="rope_offset")
    pairing, curves, attention = layout_charts(current_language(), dim, base, offset, trained)
    st.plotly_chart(pairing, key="rope_pairing_chart")
    half, inter = t("rope.formula_half_pair"), t("rope.formula_interleaved_pair")
    st.latex(
        rf"\text{{{half} }} i = (x_i,\ x_{{i+d/2}}),\qquad \text{{{inter} }} i = (x_{{2i}},\ x_{{2i+1}}),\qquad "
        r"x^{\mathrm{inter}}_j = x^{\mathrm{half}}_{\pi(j)},\ \pi = (0,\ \tfrac d2,\ 1,\ \tfrac d2{+}1,\ \dots,\ d{-}1)"
    )
    perm = layout_experiment(dim, base, offset, trained)["perm"]
    st.markdown(t("rope.permutation_text", dim=dim, perm=figs.index_list_text(perm)))
    st.plotly_chart(curves, key="rope_curve_chart")
    st.plotly_chart(attention, key="rope_attention_chart")
    st.latex(r"\tilde q_i = e^{-\mathrm{i}\,r_0\theta_i},\ \ \tilde k_i = 1"
             r"\ \Rightarrow\ s(r) = \sum_i \cos\big((r-r_0)\,\theta_i\big),\ "
             rf"\text{{{t('rope.formula_largest_at')} }} r = r_0")  # fmt: skip
    st.caption(notice(t("rope.layout_notice")))
    show_code(rope_layout_permutation, rope_convert_layout, rope_offset_detector, rope_layout_mixup)


shared = use_shared_controls("base", "dim")
st.title(t("rope.title"))
st.markdown(t("rope.intro"))
base, dim = float(shared["base"]), int(shared["dim"])
try:
    rope_inv_freq(dim, base)
except ValueError:
    st.error(t("rope.bad_settings", dim=dim, base=f"{base:g}"))
    st.stop()
pair_and_shift_sections(dim, base)
clocks_section(dim, base)
layout_section(dim, base)
