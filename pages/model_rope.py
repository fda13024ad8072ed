"""Your model's RoPE: paste a config.json (or pick a public model) and see its pairs' wavelengths against its context
windows, what its rope_scaling does to them, and RoFormer's decay bound before and after."""

import json

import streamlit as st

from charts.checkpoints import slowest_pair_under_scaling
from charts.model_rope import (
    DEFAULT_PRESET,
    bound_chart,
    chunked_rope,
    model_turning_pairs,
    preset_name,
    preset_source,
    presets,
    summary_counts,
    wavelength_chart,
)
from posenc.decay import rope_decay_bound_at
from posenc.model_config import (
    MAX_CONFIG_CHARS,
    ConfigError,
    RopeConfig,
    beyond_training_angles,
    longrope_attention_factor,
    model_rope_inv_freq,
    rope_config_from_dict,
    rope_config_from_json,
    rope_config_to_dict,
    softmax_scale_factor,
)
from posenc.rope_scaling import rope_scaled_inv_freq
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart
from ui.i18n import shown_values
from ui.language import current_language, t
from ui.model_link import CUSTOM, read_link, write_link
from ui.model_rope_summary import describe
from ui.notice import notice
from ui.shared import use_shared_controls

CHOICE, TEXT = "model_rope_choice", "model_rope_text"  # kept for the session (widgets are seeded from them)
CHOICE_WIDGET, TEXT_WIDGET = "model_rope_choice_widget", "model_rope_text_widget"


def init_state() -> None:
    """On the session's first visit, open the link's model (or the default) and warn once about a bad link."""
    if CHOICE in st.session_state:
        return
    choice, carried, link_notice = read_link(presets(), DEFAULT_PRESET)
    st.session_state[CHOICE] = choice
    st.session_state[TEXT] = "" if carried is None else json.dumps(rope_config_to_dict(carried), indent=2)
    if link_notice:
        st.warning(t(link_notice), icon=":material/link_off:")


def commit_choice() -> None:
    chosen, before = st.session_state[CHOICE_WIDGET], st.session_state[CHOICE]
    if chosen == CUSTOM and not st.session_state[TEXT].strip() and before in presets():
        st.session_state[TEXT] = json.dumps(presets()[before]["config"], indent=2)  # start from the model shown
    st.session_state[CHOICE] = chosen


def commit_text() -> None:
    st.session_state[TEXT] = st.session_state[TEXT_WIDGET]


def chosen_config() -> tuple[str, RopeConfig | None, str]:
    """The model picker (and the paste box): (choice, its RoPE or None, its name); a config that cannot be read is
    explained in the page, naming the field."""
    lang = current_language()
    names = {key: preset_name(lang, key) for key in presets()} | {CUSTOM: t("model_rope.custom_option")}
    st.session_state[CHOICE_WIDGET] = st.session_state[CHOICE]
    choice = st.selectbox(t("model_rope.source_label"), list(names), format_func=names.get, key=CHOICE_WIDGET,
                          on_change=commit_choice)  # fmt: skip
    if choice != CUSTOM:
        st.caption(t("model_rope.source_caption", source=preset_source(lang, choice)))
        return choice, rope_config_from_dict(presets()[choice]["config"]), names[choice]
    st.session_state[TEXT_WIDGET] = st.session_state[TEXT]
    st.text_area(t("model_rope.paste_label"), key=TEXT_WIDGET, height=220, max_chars=MAX_CONFIG_CHARS,
                 on_change=commit_text, help=t("model_rope.paste_help"))  # fmt: skip
    st.caption(t("model_rope.link_note"))
    if not st.session_state[TEXT].strip():
        st.info(t("model_rope.paste_hint"))
        return choice, None, names[choice]
    try:
        return choice, rope_config_from_json(st.session_state[TEXT]), t("model_rope.your_model")
    except ConfigError as error:
        st.error(t(f"model_rope.error_{error.problem}", field=error.field, **error.params), icon=":material/error:")
        return choice, None, names[choice]


def turns_checkpoint(config: RopeConfig, name: str) -> None:
    """How many of the model's pairs turn fully in training? Asked before the summary that says it."""
    asked = model_turning_pairs(config)
    count, facts = asked.correct, shown_values(current_language(), asked.facts) | {"name": name}
    chunked = "_chunked" if chunked_rope(config) else ""  # Llama 4 Scout: within a chunk, not a training context
    why = {c: t(f"model_rope.cp_turns_wrong_fewer{chunked}" if c > count else "model_rope.cp_turns_wrong_more",
                **facts) for c in asked.choices}  # fmt: skip
    words = {c: f"{c}" for c in asked.choices}
    checkpoint("cp_model_turns", t(f"model_rope.cp_turns_question{chunked}", **facts), words, count,
               t(f"model_rope.cp_turns_right{chunked}", **facts), why)  # fmt: skip


def slowest_checkpoint(config: RopeConfig, name: str) -> None:
    """What the model's scaling does to its slowest pair; asked above the wavelength chart."""
    asked = slowest_pair_under_scaling(config)
    method = t(f"model_rope.type_{config.rope_type}") if config.is_scaled else ""
    turns = (config.training_length - 1) / summary_counts(config)["slowest"]  # (L − 1)/λ of the slowest pair
    turned = "_turned" if turns >= 1 else ""  # Gemma 4: even its slowest rotated pair turns fully in training
    whole = {"turns": round(turns)} if turned else {}  # then the question counts whole turns, not a fraction of one
    facts = shown_values(current_language(), asked.facts | whole) | {"name": name, "method": method}
    words = {c: t(f"model_rope.cp_slowest_{c}") for c in asked.choices}
    why = {c: t(f"model_rope.cp_slowest_wrong_{c}", **facts) for c in asked.choices}
    outcome = "longrope" if config.rope_type == "longrope" and asked.correct == "other" else asked.correct
    outcome += "_chunked" if chunked_rope(config) and outcome == "divides" else ""  # Scout: no angle is ever new
    right = t(f"model_rope.cp_slowest_right_{'default' + turned if not method else outcome}", **facts)
    question = t(f"model_rope.cp_slowest_question{turned}", **facts)
    checkpoint("cp_model_slowest", question, words, asked.correct, right, why)


use_shared_controls()
st.title(t("model_rope.title"))
st.markdown(t("model_rope.intro"))
init_state()
choice, config, name = chosen_config()
write_link(choice, config)
if config is None:
    st.stop()
turns_checkpoint(config, name)
describe(config, name)

lang = current_language()
slowest_checkpoint(config, name)
figure_chart(wavelength_chart(lang, config), key="model_rope_wavelength_chart")
st.latex(
    r"\theta_i=\text{base}^{-2i/d_\text{rot}},\quad d_\text{rot}=\lfloor d_\text{head}\cdot p\rfloor,"
    r"\quad\lambda_i=\frac{2\pi}{\theta_i}"
)
if config.rope_type == "proportional":  # Gemma 4's global layers: the exponent over the whole head
    st.latex(rf"\text{{{t('model_rope.latex_proportional')}}}:\ \theta_i=\text{{base}}^{{-2i/d_\text{{head}}}}"
             r"\ \ (i<d_\text{rot}/2),\qquad\theta_i=0\ \ (d_\text{rot}/2\le i<d_\text{head}/2)")  # fmt: skip
st.latex(rf"\text{{{t('model_rope.latex_turns_fully')}}}\iff(L_\text{{train}}-1)\,\theta_i\ge2\pi")
st.latex(
    r"\begin{aligned}&\text{" + t("model_rope.latex_beyond") + r"}\iff\\"
    r"&(L_\text{train}-1)\,\theta_i<2\pi\ \wedge\ (L-1)\,\theta'_i\ge L_\text{train}\,\theta_i\end{aligned}"
)
st.caption(t("model_rope.beyond_caption"))
figure_chart(bound_chart(lang, config), key="model_rope_bound_chart")
st.latex(
    r"\text{"
    + t("model_rope.latex_bound")
    + r"}=a^2\cdot\frac1P\sum_{j=1}^{P}\Big|\sum_{k<j}e^{\mathrm i\,r\theta'_k}\Big|"
)
notice("model_rope.notice")
show_code(rope_config_from_dict, model_rope_inv_freq, rope_scaled_inv_freq, longrope_attention_factor,
          softmax_scale_factor, beyond_training_angles, rope_decay_bound_at)  # fmt: skip
