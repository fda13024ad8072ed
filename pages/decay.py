"""Long-range decay and context length: how RoPE scores fade with distance, and how long-context methods stretch it.
What changes at inference time (precision, attention temperature, the KV cache) is pages/inference.py."""

import streamlit as st

from charts.checkpoints import decay_half, turning_pairs
from charts.decay import (
    KINDS,
    LENGTHS,
    base_chart,
    base_follow,
    live_bound,
    live_extension,
    raised_base_table,
    ramp_follow,
    score_chart,
    score_follow,
    wavelength_chart,
    wavelength_follow,
    yarn_ramp_chart,
)
from posenc.decay import (
    far_half_ones_score,
    full_turn_pairs,
    rope_context_extension,
    rope_decay_bound_at,
    rope_extension_decay,
    rope_ones_score_at,
    rope_random_score_moments,
    rope_wavelengths,
)
from posenc.rope_scaling import rope_scaled_inv_freq, yarn_ramp
from ui.code import show_code
from ui.figure import figure_chart
from ui.i18n import number, shown_values
from ui.language import current_language, t
from ui.live import live_chart, settled_values
from ui.notice import notice
from ui.sections import section
from ui.shared import use_shared_controls
from ui.table import table
from ui.words import Question, words_part


def words(key: str, tail: str = "") -> str:
    """Translated words for a formula: ``\\text{…}`` (inside it, ``$…$`` is math again)."""
    return r"\text{" + t(key) + tail + "}"


@words_part("decay_half_question", uses=("dim", "base"))
def half_checkpoint(lang: str, dim: int, base: float) -> Question:
    """Where does the bound first fall below half its start? Asked above the bound, for the current dim and base."""
    asked = decay_half(dim, base)
    facts = shown_values(lang, asked.facts)
    words = {c: t("decay.cp_half_never", **facts) if c == "never" else t("decay.cp_half_range", low=number(lang, c[0]),
             high=number(lang, c[1])) for c in asked.choices}  # fmt: skip
    why = {c: t(f"decay.cp_half_wrong_{reason}", **facts) for c, reason in facts["why"].items()}
    right = t("decay.cp_half_right_never" if asked.correct == "never" else "decay.cp_half_right", **facts)
    question = t("decay.cp_half_question", dim=dim, base=number(lang, base, ".0f"), **facts)
    return Question("cp_decay_half", question, words, asked.correct, right, why)


@words_part("decay_turns_question", uses=("dim", "base"))
def turns_checkpoint(lang: str, dim: int, base: float, train: int) -> Question:
    """How many pairs turn fully within the training context? Asked above the wavelength chart."""
    asked = turning_pairs(dim, base, train)
    count, facts = asked.correct, shown_values(lang, asked.facts)
    words = {c: f"{c}" for c in asked.choices}
    why = {c: t("decay.cp_turns_wrong_fewer" if c > count else "decay.cp_turns_wrong_more", **facts)
           for c in asked.choices}  # fmt: skip
    right = t("decay.cp_turns_right", **facts)
    return Question("cp_decay_turns", t("decay.cp_turns_question", dim=dim, **facts), words, count, right, why)


@section("decay_bound", uses=("dim", "base"), whole=())  # the pictures follow the store
def decay_sections(dim: int, base: float) -> None:
    """The first two sections (the second reuses the first one's distances); a fragment, so their widgets rerun
    only them on the server."""
    lang = current_language()
    max_distance, log_x = bound_and_scores(lang, dim, base)
    base_and_wavelengths(lang, dim, base, max_distance, log_x)


def bound_and_scores(lang: str, dim: int, base: float) -> tuple[int, bool]:
    st.subheader(t("decay.bound_header"))
    max_distance = settled_values("decay_bound_live", {"max_distance": 256})["max_distance"]
    half_checkpoint(lang, dim, base)
    log_x = st.toggle(t("decay.log_x_label"), key="decay_log_x")
    # live: its base and dim sliders move the shared controls, so their release reruns the whole page
    live_chart(live_bound(lang, dim, base, max_distance, log_x), key="decay_bound_live", shared=True)
    similarity = st.slider(
        t("decay.similarity_label"), 0.0, 1.0, 0.0, step=0.1, key="decay_similarity", help=t("decay.similarity_help")
    )
    scores = (dim, base, max_distance, similarity, log_x)  # the figure follows the sidebar (built lazily)
    figure_chart(lambda: score_chart(lang, *scores), key="decay_score_chart", follow=score_follow(*scores))
    st.latex(
        r"\begin{aligned}(R_m q)^\top(R_n k)&=\mathrm{Re}\sum_{i=0}^{d/2-1}h_i\,e^{\mathrm{i}\,r\theta_i},\quad r=m-n,"
        r"\quad h_i=\tilde q_i\overline{\tilde k_i},\quad\theta_i=\text{base}^{-2i/d}\\"
        r"\big|(R_m q)^\top(R_n k)\big|&\le\big(\max_{0\le i<d/2}|h_{i+1}-h_i|\big)\sum_{j=1}^{d/2}|S_j(r)|,"
        r"\quad S_j(r)=\sum_{k=0}^{j-1}e^{\mathrm{i}\,r\theta_k},\quad h_{d/2}=0\\"
        + words("decay.latex_left_chart")
        + r"&=\tfrac{1}{d/2}\textstyle\sum_{j=1}^{d/2}|S_j(r)|\\"
        + words("decay.latex_right_chart", ", ")
        + r"q=k=\mathbf 1&:\ s(r)=2\textstyle\sum_i\cos(r\theta_i)\\"
        r"k=\rho\,q+\sqrt{1-\rho^2}\,\varepsilon&:\ \operatorname{E}s(r)=2\rho\textstyle\sum_i\cos(r\theta_i),\quad"
        r"\operatorname{Var}s(r)=d+2\rho^2\textstyle\sum_i\cos(2r\theta_i)\end{aligned}"
    )
    notice("decay.bound_notice")
    show_code(rope_decay_bound_at, rope_ones_score_at, rope_random_score_moments)
    return max_distance, log_x


def base_and_wavelengths(lang: str, dim: int, base: float, max_distance: int, log_x: bool) -> None:
    st.subheader(t("decay.base_header"))
    train = st.select_slider(t("decay.train_label"), LENGTHS, 4096, format_func=lambda n: number(lang, n),
                           key="decay_train")  # fmt: skip
    turns_checkpoint(lang, dim, base, train)
    # one above the other (titles fit), each following the sidebar's dim and base in the browser (``follow``)
    bases = (lang, dim, base, max_distance, log_x)
    figure_chart(lambda: base_chart(*bases), key="decay_base_chart", follow=base_follow(*bases))
    figure_chart(lambda: wavelength_chart(lang, dim, base, train), key="decay_wavelength_chart",
                 follow=wavelength_follow(lang, dim, base, train))  # fmt: skip
    st.latex(
        r"\lambda_i=\frac{2\pi}{\theta_i}=2\pi\,\text{base}^{2i/d},\qquad"
        + words("decay.latex_turns_fully")
        + r"\iff(L-1)\,\theta_i\ge 2\pi"
    )
    notice("decay.base_notice")
    show_code(rope_wavelengths, full_turn_pairs)


def raised_base_section() -> None:
    st.subheader(t("decay.raised_header"))
    table(raised_base_table(current_language()))  # cells wrap: the table fits the column at 1024 px
    st.latex(
        r"\lambda_{d/2-1}=2\pi\,\text{base}^{1-2/d},\qquad \bar s=\frac{1}{L/2+1}\sum_{r=L/2}^{L}"
        r"2\sum_i\cos(r\theta_i)\quad(q=k=\mathbf 1,\ d=128)"
    )
    notice("decay.raised_notice")
    show_code(rope_ones_score_at, full_turn_pairs, rope_wavelengths, far_half_ones_score)


@section("decay_extension", uses=("dim", "base"), whole=())  # the pictures follow the store
def context_extension(dim: int, base: float) -> None:
    """The context-extension section; a fragment, so its widgets rerun only it on the server."""
    st.subheader(t("decay.extension_header"))
    kind = st.radio(
        t("decay.kind_label"), list(KINDS), format_func={kind: t(f"decay.{key}") for kind, key in KINDS.items()}.get,
        horizontal=True, key="decay_ext_kind",
    )  # fmt: skip
    chosen = settled_values("decay_extension_live", {"train": 4096, "factor": 8})
    live_chart(live_extension(current_language(), dim, base, kind, **chosen), key="decay_extension_live")
    st.latex(
        "".join(
            (
                r"\begin{aligned}&s=L_\text{target}/L_\text{train}\\&",
                words("decay.latex_linear", ": "),
                r"\theta'_i=\theta_i/s\qquad",
                words("decay.latex_dynamic", ": "),
                r"\theta'_i=\big(\text{base}\cdot s^{d/(d-2)}\big)^{-2i/d}\\"
                r"&\text{YaRN: }\theta'_i=w_i\,\theta_i/s+(1-w_i)\,\theta_i,\quad "
                r"w_i=\mathrm{clamp}\Big(\frac{i-\lfloor i_{32}\rfloor}"
                r"{\lceil i_{1}\rceil-\lfloor i_{32}\rfloor},0,1\Big)"
                r"\\&\qquad i_\beta=",
                words("decay.latex_turns_beta"),
                r";\quad",
                words("decay.latex_logits"),
                r"\times(0.1\ln s+1)^2\\"
                r"&\text{Llama 3.1: }\theta'_i=\begin{cases}\theta_i&\lambda_i<L_\text{train}/4\\"
                r"\theta_i/s&\lambda_i>L_\text{train}\\(1-\sigma_i)\,\theta_i/s+\sigma_i\,\theta_i,\ "
                r"\sigma_i=\frac{L_\text{train}/\lambda_i-1}{3}&",
                words("decay.latex_otherwise"),
                r"\end{cases}\end{aligned}",
            )
        )
    )
    notice("decay.extension_notice")
    ramp = (current_language(), dim, base, chosen["train"])  # the figure follows the sidebar (built lazily)
    figure_chart(lambda: yarn_ramp_chart(*ramp), key="decay_ramp_chart", follow=ramp_follow(*ramp[1:]))
    notice("decay.ramp_notice")
    show_code(rope_scaled_inv_freq, yarn_ramp, rope_context_extension, rope_extension_decay)


shared = use_shared_controls("base", "dim", by_section=True)
st.title(t("decay.title"))
st.markdown(t("decay.intro"))
decay_sections(shared["dim"], shared["base"])
raised_base_section()
context_extension(shared["dim"], shared["base"])
