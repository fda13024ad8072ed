"""RoPE at inference time: angles in low precision, attention temperature, and the KV cache as transformers and servers
fill it (padding, dynamic NTK, LongRoPE's switch, cached chunks moved to a new offset)."""

import streamlit as st

from charts.inference import (
    PRECISION_POSITIONS,
    precision_chart,
    precision_question,
    temperature_chart,
    temperature_question,
)
from charts.kv_cache import (
    KV_CASES,
    kv_cache_chart,
    kv_question,
    longrope_facts,
    move_chart,
    move_cost_table,
    move_facts,
    move_question,
)
from posenc.kv_cache import (
    cached_scores,
    longrope_cache_inv_freq,
    move_cached_keys,
    recompute_flops,
    rerotate_keys,
    rerotation_flops,
)
from posenc.precision import rope_angle_error, rope_pair_angle_error
from posenc.temperature import logit_temperature, weight_on_match
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart
from ui.i18n import number, shown_values
from ui.language import current_language, t
from ui.notice import notice
from ui.sections import section
from ui.shared import use_shared_controls
from ui.table import table


@section("inference_precision", uses=("dim", "base"))
def precision_section(dim: int, base: float) -> None:
    """RoPE's angles at long positions in bfloat16, float16 and float32; a fragment (its slider reruns only it)."""
    st.subheader(t("inference.precision_header"))
    asked, lang = precision_question(), current_language()
    facts = shown_values(lang, asked.facts)
    words = {c: t("inference.cp_precision_choice", offset=number(lang, c)) for c in asked.choices}
    wrong = {c: "true" if c == asked.facts["gap"] else "spacing" for c in asked.choices if c != asked.correct}
    why = {c: t(f"inference.cp_precision_wrong_{reason}", **facts) for c, reason in wrong.items()}
    checkpoint("cp_infer_precision", t("inference.cp_precision_question", **facts), words, asked.correct,
               t("inference.cp_precision_right", **facts), why)  # fmt: skip
    position = st.select_slider(t("inference.precision_position_label"), PRECISION_POSITIONS, value=100_000,
                                format_func=lambda m: number(lang, m), key="inference_precision_position")  # fmt: skip
    figure_chart(precision_chart(lang, dim, base, position), key="inference_precision_chart")
    st.latex(
        r"\tilde\varphi_{m,i}=\mathrm{fl}\big(\mathrm{fl}(m)\cdot\mathrm{fl}(\theta_i)\big),\qquad"
        r"\text{" + t("inference.latex_precision_error") + r"}=\big|\tilde\varphi_{m,i}-m\,\theta_i\big|_{\bmod 2\pi}"
    )
    notice("inference.precision_notice")
    show_code(rope_angle_error, rope_pair_angle_error)


@st.fragment
def temperature_section() -> None:
    """Attention temperature: the weight a softmax leaves on one matching key as the keys multiply; a fragment."""
    st.subheader(t("inference.temperature_header"))
    gap = st.slider(t("inference.temperature_gap_label"), 1.0, 16.0, 10.0, step=1.0, key="inference_temperature_gap",
                    help=t("inference.temperature_gap_help"))  # fmt: skip
    asked, lang = temperature_question(gap), current_language()
    facts = shown_values(lang, asked.facts)
    words = {c: t("inference.cp_temperature_never") if c == "never" else
             t("inference.cp_temperature_keys", keys=number(lang, c)) for c in asked.choices}  # fmt: skip
    why = {c: t("inference.cp_temperature_wrong_never" if c == "never" else "inference.cp_temperature_wrong_linear",
                **facts) for c in asked.choices if c != asked.correct}  # fmt: skip
    checkpoint("cp_infer_temperature", t("inference.cp_temperature_question", **facts), words, asked.correct,
               t("inference.cp_temperature_right", **facts), why)  # fmt: skip
    figure_chart(temperature_chart(lang, gap), key="inference_temperature_chart")
    st.latex(
        r"w=\frac{e^{\tau g}}{e^{\tau g}+n-1}\qquad\begin{aligned}&\text{YaRN: }\tau=(0.1\ln s+1)^2\\"
        r"&\text{Qwen-1 logn: }\tau=\max\!\big(1,\ln p/\ln L_\text{train}\big)\\"
        r"&\text{Llama 4: }\tau=1+0.1\ln\!\big(1+\lfloor p/8192\rfloor\big)\end{aligned}"
    )
    notice("inference.temperature_notice")
    show_code(logit_temperature, weight_on_match)


@section("inference_kv", uses=("dim", "base"))
def kv_cache_section(dim: int, base: float) -> None:
    """RoPE and the KV cache: what a cache of rotated keys gets wrong when positions or frequencies change; a
    fragment."""
    st.subheader(t("inference.kv_header"))
    asked, lang = kv_question(dim, base), current_language()
    facts = shown_values(lang, asked.facts)
    words = {c: t(f"inference.cp_kv_{c}") for c in asked.choices}
    why = {c: t(f"inference.cp_kv_wrong_{c}", **facts) for c in asked.choices if c != asked.correct}
    checkpoint("cp_infer_kv", t("inference.cp_kv_question", **facts), words, asked.correct,
               t("inference.cp_kv_right", **facts), why)  # fmt: skip
    names = {case: t(f"inference.kv_case_{case}") for case in KV_CASES}  # a dict: options stay in this run's language
    case = st.radio(t("inference.kv_case_label"), KV_CASES, format_func=names.get, horizontal=True,
                    key="inference_kv_case")  # fmt: skip
    figure_chart(kv_cache_chart(lang, dim, base, case), key="inference_kv_chart")
    st.latex(
        r"s_n=\big(R_m(\theta')\,q\big)\cdot\big(R_n(\theta^{(n)})\,k_n\big),\qquad"
        r"\theta^{(n)}=\theta\big(\max(n+1,P)\big)"
    )
    notice("inference.kv_notice")
    notice("inference.kv_longrope_notice", **shown_values(lang, longrope_facts()))
    show_code(cached_scores, longrope_cache_inv_freq)


@st.fragment
def move_section() -> None:
    """Serving: a cached chunk reused at a new offset, moved by rotating its keys; a fragment."""
    st.subheader(t("inference.move_header"))
    asked, lang = move_question(), current_language()
    facts, numbers = shown_values(lang, asked.facts), shown_values(lang, move_facts())
    words = {c: t(f"inference.cp_move_{c}", **facts) for c in asked.choices}
    why = {c: t(f"inference.cp_move_wrong_{c}", **facts) for c in asked.choices if c != asked.correct}
    checkpoint("cp_infer_move", t("inference.cp_move_question", **facts), words, asked.correct,
               t("inference.cp_move_right", **facts), why)  # fmt: skip
    figure_chart(move_chart(lang), key="inference_move_chart")
    st.latex(
        r"\begin{aligned}R_{p+\Delta}(\theta)\,k&=R_\Delta(\theta)\,R_p(\theta)\,k\\"
        r"R_{p+\Delta}(\theta')\,k&=R\big((p+\Delta)\,\theta'-p\,\theta\big)\,R_p(\theta)\,k\end{aligned}"
    )
    notice("inference.move_notice", **numbers)
    table(move_cost_table(lang))
    notice("inference.move_cost_notice", **numbers)
    show_code(rerotate_keys, move_cached_keys, rerotation_flops, recompute_flops)


shared = use_shared_controls("base", "dim", by_section=True)
st.title(t("inference.title"))
st.markdown(t("inference.intro"))
precision_section(shared["dim"], shared["base"])
temperature_section()
kv_cache_section(shared["dim"], shared["base"])
move_section()
