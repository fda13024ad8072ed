"""RoPE layer by layer: how today's models give each layer its own attention span and position scheme (RoPE with a
base, NoPE, a sliding window or chunks, a temperature), what a longer context asks of each kind of layer, and how
four designs allocate a head's frequencies (full, NeoX-style partial, proportional, MLA's decoupled dimensions), and
how three layouts share a head's pairs between the rows and columns of an image's patches (ui/patch_grid.py)."""

import streamlit as st

from charts.rope_layers import (
    FAR,
    STACK_MODELS,
    allocation_chart,
    allocation_counts_at,
    allocation_table,
    preset_text,
    reach_question,
    read_stack,
    stack_chart,
    stack_table,
)
from posenc.frequency_allocation import allocation_inv_freq, pair_kinds
from posenc.layer_stack import extension_need, layer_stack, temperature_scale
from posenc.model_config import MAX_CONFIG_CHARS, ConfigError
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart
from ui.i18n import number, shown_values
from ui.language import current_language, t
from ui.notice import notice
from ui.patch_grid import patch_section
from ui.shared import use_shared_controls
from ui.table import table

HEAD_DIMS = (64, 128, 256, 512)  # features per head to compare (Llama: 128, Gemma 3: 256, Gemma 4's global: 512)
BASES = (10_000.0, 500_000.0, 1_000_000.0)  # RoFormer's, Llama 3's, Gemma's global base
SHARES = (0.125, 0.25, 0.5, 0.75)  # rotated share p (GPT-NeoX and Gemma 4: 0.25; Phi-2: 0.4)
LENGTHS = tuple(2**k for k in range(10, 21))  # 1 024 … 1 048 576 tokens
CUSTOM = "custom"  # the model choice that opens the paste box


def reach_checkpoint() -> None:
    """Predict first: in how many of Llama 4 Scout's layers can a token see one a million tokens back?"""
    asked = reach_question()
    facts = shown_values(current_language(), asked.facts)
    why = {c: t("rope_layers.cp_reach_wrong_more" if c > asked.correct else "rope_layers.cp_reach_wrong_fewer",
                **facts) for c in asked.choices}  # fmt: skip
    checkpoint("cp_layers_reach", t("rope_layers.cp_reach_question", **facts), {c: f"{c}" for c in asked.choices},
               asked.correct, t("rope_layers.cp_reach_right", **facts), why)  # fmt: skip


def custom() -> bool:
    return st.session_state.get("rope_layers_model") == CUSTOM


def chosen_config() -> str | None:
    """The table's model: a shipped one, or a pasted config.json (its text; None, with a message, when it is empty
    or cannot be read, naming the field)."""
    names = STACK_MODELS | {CUSTOM: t("rope_layers.custom_option")}
    choice = st.selectbox(t("rope_layers.model_label"), list(names), format_func=names.get, key="rope_layers_model")
    if choice != CUSTOM:
        return preset_text(choice)
    text = st.text_area(t("rope_layers.paste_label"), key="rope_layers_text", height=200, max_chars=MAX_CONFIG_CHARS,
                        help=t("rope_layers.paste_help"))  # fmt: skip
    if not text.strip():
        st.info(t("rope_layers.paste_hint"))
        return None
    try:
        read_stack(text)
    except ConfigError as error:
        st.error(t(f"model_rope.error_{error.problem}", field=error.field, **error.params), icon=":material/error:")
        return None
    return text


def stack_section(lang: str) -> None:
    st.subheader(t("rope_layers.stack_header"))
    st.markdown(t("rope_layers.stack_intro"))
    reach_checkpoint()
    chart = st.container()  # drawn once the table's config is known: a pasted one gets its own row
    pasted = chosen_config()
    if pasted is not None:
        table(stack_table(lang, pasted))
    window, chunk = t("rope_layers.latex_window"), t("rope_layers.latex_chunk")
    st.latex(rf"\begin{{aligned}}&\text{{{window}}}:&&0\le m-n<W\\"
             rf"&\text{{{chunk}}}:&&\lfloor n/C\rfloor=\lfloor m/C\rfloor,\ n\le m\end{{aligned}}")  # fmt: skip
    st.latex(r"\begin{aligned}&\text{" + t("rope_layers.latex_temperature") + r"}:\\&q_m\leftarrow"
             r"\big(1+a\ln(1+\lfloor (m+1)/F\rfloor)\big)\,q_m,\quad a=0.1,\ F=8192\end{aligned}")  # fmt: skip
    notice("rope_layers.stack_notice", far=number(lang, FAR), at=f"{temperature_scale(FAR):.3f}")
    with chart:
        figure_chart(stack_chart(lang, pasted if custom() else None), key="rope_layers_stack_chart")
    show_code(layer_stack, extension_need)


def meaning_checkpoint(lang: str, head_dim: int, base: float, share: float, length: int) -> None:
    """Predict first: how many pairs of a full RoPE head stay under a quarter turn over the context?"""
    counts = allocation_counts_at(head_dim, base, share, length)
    correct, pairs = counts["full"]["meaning"], head_dim // 2
    facts = shown_values(lang, {"count": correct, "pairs": pairs, "length": length, "base": base, "head": head_dim,
                                "turns": counts["full"]["turns"]})  # fmt: skip
    choices = tuple(sorted({correct, 0, pairs // 4, pairs // 2}))
    why = {c: t("rope_layers.cp_meaning_wrong", **facts) for c in choices}
    checkpoint("cp_layers_meaning", t("rope_layers.cp_meaning_question", **facts), {c: f"{c}" for c in choices},
               correct, t("rope_layers.cp_meaning_right", **facts), why)  # fmt: skip


def allocation_section(lang: str) -> None:
    st.subheader(t("rope_layers.allocation_header"))
    st.markdown(t("rope_layers.allocation_intro"))
    left, right = st.columns(2)
    head_dim = left.select_slider(t("rope_layers.head_label"), HEAD_DIMS, 128, key="rope_layers_head")
    share = left.select_slider(t("rope_layers.share_label"), SHARES, 0.25, format_func="{:.1%}".format,
                               key="rope_layers_share")  # fmt: skip
    base = right.select_slider(t("rope_layers.base_label"), BASES, 10_000.0,
                               format_func=lambda b: number(lang, b, ".0f"), key="rope_layers_base")  # fmt: skip
    length = right.select_slider(t("rope_layers.length_label"), LENGTHS, 4096, format_func=lambda n: number(lang, n),
                                 key="rope_layers_length")  # fmt: skip
    meaning_checkpoint(lang, head_dim, base, share, length)
    figure_chart(allocation_chart(lang, head_dim, base, share, length), key="rope_layers_allocation_chart")
    name = {key: t(f"rope_layers.latex_{key}") for key in ("full", "neox_mla", "proportional", "otherwise")}
    st.latex(
        rf"\begin{{aligned}}&\text{{{name['full']}}}:&&\theta_i=b^{{-2i/H}},\ i<H/2\\"
        rf"&\text{{{name['neox_mla']}}}:&&\theta_i=b^{{-2i/D}},\ i<D/2,\ D=pH\\"
        rf"&\text{{{name['proportional']}}}:&&\theta_i=b^{{-2i/H}},\ i<\lfloor pH/2\rfloor;\ \ \theta_i=0"
        rf"\text{{ {name['otherwise']}}}\end{{aligned}}"
    )
    turns, meaning = t("rope_layers.pairs_turns"), t("rope_layers.pairs_meaning")
    st.latex(rf"\begin{{aligned}}&\varphi_i=(L-1)\,\theta_i\\&\varphi_i\ge2\pi:&&\text{{{turns}}}\\"
             rf"&0<\varphi_i<\pi/2:&&\text{{{meaning}}}\end{{aligned}}")  # fmt: skip
    counts = allocation_counts_at(head_dim, base, share, length)
    notice("rope_layers.allocation_notice", length=number(lang, length), full_meaning=counts["full"]["meaning"],
           partial_meaning=counts["partial"]["meaning"], unrotated=counts["proportional"]["unrotated"],
           proportional_turns=counts["proportional"]["turns"],
           proportional_rotated=head_dim // 2 - counts["proportional"]["unrotated"])  # fmt: skip
    st.markdown(t("rope_layers.table_intro"))
    table(allocation_table(lang))  # one column per model: fits the column
    show_code(allocation_inv_freq, pair_kinds)


use_shared_controls()
st.title(t("rope_layers.title"))
st.markdown(t("rope_layers.intro"))
language = current_language()
stack_section(language)
allocation_section(language)
patch_section(language)
