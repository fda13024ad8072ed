"""RoPE in the complex plane: each feature pair is a point that turns by position × θ_i. How real models use it
(Meta vs Hugging Face, partial rotary, values, the sign) is the next page, pages/rope_practice.py."""

import streamlit as st

from charts.checkpoints import rope_shift_effect, rope_slowest_turn
from charts.rope import (
    layout_attention_chart,
    layout_attention_follow,
    live_clocks,
    live_layout,
    live_pair,
    live_shift,
    pair_speed,
    pairing_chart,
)
from figures import rope as figs
from posenc.absolute import sinusoid_inv_freq
from posenc.decay import rope_wavelengths
from posenc.rope import (
    ROPE_LAYOUTS,
    rope_convert_layout,
    rope_inv_freq,
    rope_layout_permutation,
    rope_offset_detector,
    rope_pair_angles_at,
    rope_pair_points,
    rope_rotation_factors,
    rope_score_table,
    rope_scores_at,
)
from ui.code import show_code
from ui.figure import figure_chart, figure_part
from ui.i18n import number, shown_values
from ui.language import current_language, t
from ui.live import live_chart, settled_values
from ui.notice import notice
from ui.rope_page import open_rope_page
from ui.sections import section
from ui.words import Question, Text, caption, markdown, notice_words, words_part

PAIR_LIVE, SHIFT_LIVE, LAYOUT_LIVE = "rope_pair_live", "rope_shift_live", "rope_layout_live"  # the live charts' keys
CLOCK_LIVE = "rope_clock_live"
POSITION_DEFAULTS = {"pair": 0, "m": 5, "n": 2}  # where the complex-plane chart's own sliders start


def positions() -> dict:
    """The pair and the positions m, n the complex-plane chart (or the shift chart: m, n) was last let go at."""
    return settled_values(PAIR_LIVE, POSITION_DEFAULTS)


def keep_positions(values: dict) -> bool:
    """The shift chart's released m, n become the complex-plane chart's too (one m and one n on the page)."""
    released = st.session_state.get(f"{SHIFT_LIVE}__values", {})
    moved = {name: released[name] for name in ("m", "n") if name in released}
    st.session_state[f"{PAIR_LIVE}__values"] = st.session_state.get(f"{PAIR_LIVE}__values", {}) | moved
    return False  # nothing shared changed: the fragment's rerun is enough


@section("rope_pair_shift", uses=("dim", "base"), whole=())  # the charts follow the store's dim and base
def pair_and_shift_sections(dim: int, base: float) -> None:
    """The first two sections; one section, so a release of their sliders (or the seed) reruns only them on the
    server (a release of the base slider, a shared control, reruns every section that uses it)."""
    seed = one_pair_section(dim, base)
    shift_section(dim, base, seed)


@words_part("rope_shift_question", uses=("dim", "base"))
def shift_checkpoint(dim: int, base: float, m: int, n: int) -> Question:
    """Both positions shifted by the same t: asked above the shift chart, computed for the current m, n, dim, base."""
    asked = rope_shift_effect(dim, base, m, n)
    words = {c: t(f"rope.cp_shift_{c}") for c in asked.choices}
    why = {c: t(f"rope.cp_shift_wrong_{c}", **asked.facts) for c in asked.choices}
    right = t("rope.cp_shift_numbers", **asked.facts)
    if asked.correct == "same":
        right += " " + t("rope.cp_shift_why")
    return Question("cp_rope_shift", t("rope.cp_shift_question", **asked.facts), words, asked.correct, right, why)


@words_part("rope_slowest_question", uses=("dim", "base"))
def slowest_checkpoint(dim: int, base: float) -> Question:
    """How long the slowest pair's turn is; asked above the clocks."""
    asked, lang = rope_slowest_turn(dim, base), current_language()
    words, facts = {v: number(lang, v) for v in asked.choices}, shown_values(lang, asked.facts)
    why = {v: t(f"rope.cp_slowest_wrong_{reason}", **facts) for v, reason in asked.facts["why"].items()}
    question = t("rope.cp_slowest_question", base=number(lang, base, ".0f"), dim=dim)
    return Question("cp_rope_slowest", question, words, asked.correct, t("rope.cp_slowest_right", **facts), why)


def one_pair_section(dim: int, base: float) -> int:
    st.subheader(t("rope.pair_header"))
    settled = positions()
    pair, m, n = min(int(settled["pair"]), dim // 2 - 1), int(settled["m"]), int(settled["n"])
    left, right = st.columns([3, 1])
    with right:
        single_pair_note(dim)
    seed = left.slider(t("rope.seed_label"), 0, 99, 0, key="rope_seed", help=t("rope.seed_help"))
    live_chart(live_pair(current_language(), dim, base, seed, pair, m, n), key=PAIR_LIVE, shared=True)
    st.latex(
        r"\theta_i = \mathrm{base}^{-2i/d},\quad \tilde q_i = q_i + \mathrm{i}\,q_{i+d/2},\quad "
        r"z^q_i(m) = \tilde q_i\,e^{\mathrm{i}\,m\theta_i},\quad z^k_i(n) = \tilde k_i\,e^{\mathrm{i}\,n\theta_i}"
    )
    pair_notice(dim, base, pair)
    show_code(rope_pair_points, rope_wavelengths)
    return seed


@words_part("rope_single_pair", uses=("dim",))
def single_pair_note(dim: int) -> list[Text]:
    return [caption(t("rope.single_pair"))] if dim == 2 else []  # one pair: the chart has no pair slider


@words_part("rope_pair_numbers", uses=("dim", "base"))
def pair_notice(dim: int, base: float, pair: int) -> Text:
    """The pair's θ_i and its turn's length in positions (the dim's last pair, when the dim has fewer)."""
    pair = min(pair, dim // 2 - 1)
    theta, period = pair_speed(dim, pair, base)
    period = number(current_language(), period, ".1f")
    return notice_words("rope.pair_notice", pair=pair, theta=f"{theta:.3g}", period=period)


def shift_section(dim: int, base: float, seed: int) -> None:
    st.subheader(t("rope.shift_header"))
    settled = positions()
    pair, m, n = min(int(settled["pair"]), dim // 2 - 1), int(settled["m"]), int(settled["n"])
    shift = int(settled_values(SHIFT_LIVE, {"shift": 100})["shift"])
    shift_checkpoint(dim, base, m, n)
    live_chart(live_shift(current_language(), dim, base, seed, pair, m, n, shift), key=SHIFT_LIVE,
               on_settled=keep_positions)  # fmt: skip
    st.latex(
        r"\langle R_m q,\,R_n k\rangle = \operatorname{Re}\sum_{i=0}^{d/2-1} z^q_i(m)\,\overline{z^k_i(n)}"
        r"= \operatorname{Re}\sum_{i} \tilde q_i\,\overline{\tilde k_i}\;e^{\mathrm{i}\,(m-n)\,\theta_i},\qquad "
        r"\alpha_i = \arg\tilde q_i - \arg\tilde k_i + (m-n)\,\theta_i"
    )
    notice("rope.shift_notice")
    show_code(rope_scores_at, rope_pair_angles_at)


@section("rope_clocks", uses=("dim", "base"), whole=())
def clocks_section(dim: int, base: float) -> None:
    st.subheader(t("rope.clock_header"))
    slowest_checkpoint(dim, base)
    position = int(settled_values(CLOCK_LIVE, {"position": 0})["position"])
    live_chart(live_clocks(current_language(), dim, base, position), key=CLOCK_LIVE)  # live: p, and ▶
    hand, turn = t("rope.clock_formula_hand"), t("rope.clock_formula_turn")
    st.latex(rf"\text{{{hand}}}\ e^{{\mathrm{{i}}\,p\,\theta_i}},\qquad "
             rf"\text{{{turn}}}\ 2\pi/\theta_i = 2\pi\cdot\mathrm{{base}}^{{2i/d}}")  # fmt: skip
    notice("rope.clock_notice")
    show_code(rope_inv_freq, sinusoid_inv_freq, rope_rotation_factors)


@section("rope_layout", uses=("dim", "base"), whole=())
def layout_section(dim: int, base: float) -> None:
    st.subheader(t("rope.layout_header"))
    shown = {"half": t("rope.layout_option_half"), "interleaved": t("rope.layout_option_interleaved")}
    trained = st.radio(
        t("rope.trained_label"), ROPE_LAYOUTS, format_func=shown.get, key="rope_trained_layout", horizontal=True
    )
    offset = int(settled_values(LAYOUT_LIVE, {"offset": 3})["offset"])
    lang = current_language()
    pairing_part(dim, lang)
    half, inter = t("rope.formula_half_pair"), t("rope.formula_interleaved_pair")
    st.latex(  # three lines: on one, it needed twice the column at 1024 px
        rf"\begin{{aligned}}&\text{{{half} }} i = (x_i,\ x_{{i+d/2}}),\\"
        rf"&\text{{{inter} }} i = (x_{{2i}},\ x_{{2i+1}}),\\"
        r"&x^{\mathrm{inter}}_j = x^{\mathrm{half}}_{\pi(j)},"
        r"\ \pi = (0,\ \tfrac d2,\ 1,\ \tfrac d2{+}1,\ \dots,\ d{-}1)\end{aligned}"
    )
    permutation_part(dim)
    live_chart(live_layout(lang, dim, base, offset, trained), key=LAYOUT_LIVE)  # a release reruns this fragment
    attention_part(dim, base, offset, trained, lang)  # follows the released offset
    st.latex(r"\tilde q_i = e^{-\mathrm{i}\,r_0\theta_i},\ \ \tilde k_i = 1"
             r"\ \Rightarrow\ s(r) = \sum_i \cos\big((r-r_0)\,\theta_i\big),\ "
             rf"\text{{{t('rope.formula_largest_at')} }} r = r_0")  # fmt: skip
    notice("rope.layout_notice")
    show_code(rope_layout_permutation, rope_convert_layout, rope_offset_detector, rope_score_table)


@figure_part("rope_pairing_picture", uses=("dim",))
def pairing_part(dim: int, lang: str) -> dict:
    return {"rope_pairing_chart": pairing_chart(lang, dim)}


@words_part("rope_permutation", uses=("dim",))
def permutation_part(dim: int) -> Text:
    return markdown(t("rope.permutation_text", dim=dim, perm=figs.index_list_text(rope_layout_permutation(dim))))


def attention_part(dim: int, base: float, offset: int, trained: str, lang: str) -> None:
    """The head run both ways, as attention: follows the store's dim and base in the browser (not rerun for them)."""
    follow = layout_attention_follow(dim, base, offset, trained)
    picture = lambda: layout_attention_chart(lang, dim, base, offset, trained)  # noqa: E731  built only when sent
    figure_chart(picture, key="rope_attention_chart", follow=follow)


base, dim = open_rope_page("rope.title", "rope.intro")
pair_and_shift_sections(dim, base)
clocks_section(dim, base)
layout_section(dim, base)
st.page_link("pages/rope_practice.py", label=t("rope.practice_link"), icon=":material/arrow_forward:")
