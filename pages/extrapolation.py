"""Train short, test long: six small causal LMs trained on 64 tokens, three seeds each, evaluated out to 2048."""

import streamlit as st

from charts.ablations import captions
from charts.checkpoints import far_needle, learned_past_table, surviving_encodings
from charts.extrapolation import (
    ATTENTION_LENGTHS,
    GROUPS,
    SCALINGS,
    VIEWS,
    attention_chart,
    claim_numbers,
    intro_numbers,
    length_chart,
    line_names,
    position_chart,
    ramp_rows,
    results,
    similarity_chart,
    table_rows,
    yarn_ablation_numbers,
)
from charts.retrieval import accuracy_rows, beside_chart, group_lines, names, needle_chart, needle_numbers, trained_at
from charts.retrieval import recipe_caption as needle_recipe
from charts.retrieval import results as needle_results
from figures.table import Table
from posenc.toy.lm import CausalLM, LMBlock, cosine_similarity_matrix
from posenc.toy.markov import true_loss
from posenc.toy.model import PE_CHOICES, Attention
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart
from ui.i18n import number, sentences
from ui.language import current_language, t
from ui.notice import notice
from ui.shared import use_shared_controls
from ui.table import table


def survive_checkpoint(data: dict) -> None:
    """Which encodings keep their loss at 4× the training length? Asked above the curves, read from the results."""
    asked, names = surviving_encodings(data), line_names(current_language())
    losses = asked.facts["losses"]

    def listed(pes: tuple) -> str:
        return t("extrapolation.cp_list_separator").join(names[pe] for pe in pes) or t("extrapolation.cp_none")

    def loss_of(pes: tuple) -> str:
        return t("extrapolation.cp_list_separator").join(f"{names[pe]} {losses[pe][0]} → {losses[pe][1]}" for pe in pes)

    why = {}
    for choice, (failing, missing) in asked.facts["why"].items():
        parts = (t(f"extrapolation.cp_survive_{kind}", models=loss_of(pes)) if pes else ""
                 for kind, pes in (("failing", failing), ("missing", missing)))  # fmt: skip
        why[choice] = sentences(*parts)  # joined as the language writes: no space after 。
    words = {choice: listed(choice) for choice in asked.choices}
    facts = {k: asked.facts[k] for k in ("factor", "train", "long", "seed")}
    right = t("extrapolation.cp_survive_right", models=loss_of(tuple(losses)), **facts)
    checkpoint("cp_extrap_survive", t("extrapolation.cp_survive_question", **facts), words, asked.correct, right, why)


def learned_checkpoint() -> None:
    """What the learned table gives past its last row; asked above the table's similarity chart."""
    asked = learned_past_table()
    words = {c: t(f"extrapolation.cp_learned_{c}", **asked.facts) for c in asked.choices}
    why = {c: t(f"extrapolation.cp_learned_wrong_{c}", **asked.facts) for c in asked.choices}
    key = "extrapolation.cp_learned_right_last" if asked.correct == "last" else "extrapolation.cp_learned_right_other"
    right = t(key, answer=words[asked.correct], **asked.facts)
    question = t("extrapolation.cp_learned_question", **asked.facts)
    checkpoint("cp_extrap_learned", question, words, asked.correct, right, why)


def length_section(data: dict) -> str:
    st.subheader(t("extrapolation.length_header"))
    survive_checkpoint(data)
    groups = {group: t(f"extrapolation.group_{group}") for group in GROUPS}
    group_col, view_col = st.columns(2)
    group = group_col.radio(t("extrapolation.group_label"), GROUPS, format_func=groups.get, horizontal=True,
                            key="extrap_group")  # fmt: skip
    views = {view: t(f"extrapolation.view_{view}") for view in VIEWS}
    view = view_col.radio(t("extrapolation.view_label"), VIEWS, format_func=views.get, horizontal=True,
                          key="extrap_view")  # fmt: skip
    figure_chart(length_chart(current_language(), group, view), key="extrap_length_chart")
    table(Table.of(*table_rows(current_language(), group, view), row_headers=True))  # cells wrap: fits
    train, config, steps = data["train_len"], data["config"], number(current_language(), data["config"]["steps"])
    st.latex(
        rf"\text{{excess}}(L)=\frac{{1}}{{L-{train}}}\sum_{{p={train}}}^{{L-1}}\Big(\overline{{\ell_\theta}}(p)-"
        r"\overline{\ell_{\text{source}}}(p)\Big),\qquad\ell(p)=-\log p\left(x_{p+1}\mid x_{\le p}\right)"
    )
    st.caption(t("extrapolation.recipe_note", seeds=len(data["seeds"]), steps=steps, train=train,
                 minutes=round(data["recipe"]["cpu_seconds"] / 60), command=data["recipe"]["command"]))  # fmt: skip
    if len(data["seeds"]) == 1:  # the words speak of one run; two seeds already draw the bars
        st.info(t("extrapolation.seeds_missing", seeds=1))
    if group == "rope":
        table(Table.of(*ramp_rows(current_language(), train), row_headers=True))  # cells wrap: fits
        if (ablation := yarn_ablation_numbers()) is not None:
            st.caption(t("extrapolation.yarn_ablation_note", **ablation))
    for caption in captions(current_language(), group):  # one per ablation of this group's explanations
        st.caption(caption)
    notice(f"extrapolation.length_notice_{group}", train=train, last=train - 1, steps=steps,
           ft=config["finetune_steps"], **claim_numbers(data, current_language()))  # fmt: skip
    return group


def needle_checkpoint(needle: dict, markov: dict) -> None:
    """Predict first: does ALiBi, whose loss stays flat, find a needle at the very start of 2048 tokens?"""
    asked = far_needle(needle, markov, sep=t("extrapolation.cp_list_separator"))
    facts = asked.facts | {key: number(current_language(), asked.facts[key]) for key in ("length", "back")}
    words = {c: t(f"extrapolation.cp_far_{c}", **facts) for c in asked.choices}
    right = t(f"extrapolation.cp_far_right_{asked.correct}", **facts)
    why = t("extrapolation.cp_far_wrong", **facts)
    checkpoint("cp_extrap_far_needle", t("extrapolation.cp_far_question", **facts), words, asked.correct, right, why)


def needle_section(markov: dict, group: str) -> None:
    """The retrieval task beside the Markov task: does a model use far tokens, not only stay calm past 64?"""
    st.subheader(t("extrapolation.needle_header"))
    needle = needle_results()
    st.write(t("extrapolation.needle_intro", train=trained_at(needle)))
    if needle is None:
        st.info(t("extrapolation.needle_missing"))
        return
    needle_checkpoint(needle, markov)
    figure_chart(beside_chart(current_language(), group), key="extrap_beside_chart")
    line_name = names(current_language())
    shown = group_lines(needle, group)
    line = st.selectbox(t("extrapolation.needle_line_label"), shown, shown.index("alibi") if "alibi" in shown else 0,
                        format_func=line_name.get, key="extrap_needle_line")  # fmt: skip
    figure_chart(needle_chart(current_language(), line), key="extrap_needle_chart")
    table(Table.of(*accuracy_rows(current_language(), group), row_headers=True))  # cells wrap: fits
    st.caption(needle_recipe(needle, current_language()))
    notice(f"extrapolation.needle_notice_{group}", **needle_numbers(needle, current_language()))
    for caption in captions(current_language(), f"needle_{group}"):
        st.caption(caption)


def position_section(data: dict, group: str) -> None:
    st.subheader(t("extrapolation.position_header"))
    lengths = [n for n in data["lengths"] if n >= data["train_len"]]
    length = st.select_slider(t("extrapolation.position_length_label"), lengths, 512, key="extrap_pos_len")
    figure_chart(position_chart(current_language(), group, length), key="extrap_position_chart")
    notice("extrapolation.position_notice", train=data["train_len"])


def attention_section() -> None:
    st.subheader(t("extrapolation.attention_header"))
    names = line_names(current_language())
    model_col, length_col, layer_col = st.columns(3)
    pe = model_col.selectbox(t("extrapolation.model_label"), PE_CHOICES, 5, format_func=names.get, key="extrap_pe")
    length = length_col.select_slider(t("extrapolation.attention_length_label"), ATTENTION_LENGTHS, 256,
                                      key="extrap_att_len")  # fmt: skip
    layer = layer_col.radio(t("extrapolation.layer_label"), (1, 2), horizontal=True, key="extrap_layer")
    scaling = "plain"
    if pe == "rope":
        options = {"plain": t("extrapolation.scaling_plain")} | {m: names[m] for m in SCALINGS}
        scaling = st.radio(t("extrapolation.scaling_label"), list(options), format_func=options.get, horizontal=True,
                           key="extrap_scaling")  # fmt: skip
    chart = attention_chart(current_language(), pe, scaling, length, layer)
    if chart is None:
        st.info(t("extrapolation.missing_model", model=names[pe]))
        return
    figure_chart(chart, key="extrap_attention_chart")
    notice("extrapolation.attention_notice")
    for caption in captions(current_language(), "attention"):  # the maps are seed 0's; every seed in numbers
        st.caption(caption)


def similarity_section(data: dict) -> None:
    st.subheader(t("extrapolation.similarity_header"))
    learned_checkpoint()
    chart = similarity_chart(current_language())
    if chart is None:
        st.info(t("extrapolation.missing_model", model=t("toy.pe_learned")))
        return
    figure_chart(chart, key="extrap_similarity_chart")
    notice("extrapolation.similarity_notice", train=data["train_len"], last=data["train_len"] - 1,
           lines=t("extrapolation.group_label"), group=t("extrapolation.group_encodings"))  # fmt: skip
    for caption in captions(current_language(), "similarity"):
        st.caption(caption)


use_shared_controls()
st.title(t("extrapolation.title"))
measured = results()
st.write(t("extrapolation.intro", **intro_numbers(measured)))
if measured is None:
    st.info(t("extrapolation.missing"))
    st.stop()
chosen = length_section(measured)
needle_section(measured, chosen)
position_section(measured, chosen)
attention_section()
similarity_section(measured)
show_code(CausalLM.embed_positions, LMBlock.forward, Attention.forward, true_loss, cosine_similarity_matrix)
