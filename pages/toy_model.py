"""Toy transformer: small encoder–decoders trained on "21+211=232", one per positional encoding, opened up."""

import streamlit as st

from charts.checkpoints import models_above_half, weakest_model
from charts.toy_model import (
    PARTS,
    accuracy_chart,
    ask,
    expression_problem,
    grid_chart,
    live_run,
    model_names_in,
    progress_line,
    repeats_of,
    rows_chart,
    shipped_accuracy,
    training_chart,
)
from figures.table import Table
from posenc.attention import attention_scores
from posenc.toy.data import parse_expression
from posenc.toy.model import PE_CHOICES, Attention, repeated_token_differences
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart
from ui.language import current_language, t
from ui.notice import notice
from ui.shared import use_shared_controls
from ui.table import table
from ui.toy_training import MAX_STEPS, LiveRun

EXAMPLES = ("21+211=", "345+678=", "907-45=", "12-500=", "111+11=", "999+999=", "1234+5678=")
SIDES = ("left", "right")


def weakest_checkpoint() -> None:
    """Which model learned the least? Asked before any answer or chart, from the shipped models' metrics."""
    models, names = shipped_accuracy(), model_names_in(current_language())
    asked = weakest_model({m.pe: m.held_out for m in models})
    share = {m.pe: f"{m.held_out:.1%}" for m in models}
    why = {pe: t("toy.cp_weakest_wrong", model=names[pe], share=share[pe]) for pe in asked.choices}
    right = t("toy.cp_weakest_right", model=names[asked.correct], **asked.facts)
    checkpoint("cp_toy_weakest", t("toy.cp_weakest_question"), names, asked.correct, right, why)


def longer_checkpoint() -> None:
    """How many models solve 4-digit problems? Asked above the accuracy chart."""
    models, names = shipped_accuracy(), model_names_in(current_language())
    asked = models_above_half({m.pe: m.longer for m in models})
    facts = asked.facts | {"best": names[asked.facts["best"]], "count": asked.correct}
    words = {n: f"{n}" for n in asked.choices}
    checkpoint("cp_toy_longer", t("toy.cp_longer_question", models=len(models)), words, asked.correct,
               t("toy.cp_longer_right", **facts), t("toy.cp_longer_wrong", **facts))  # fmt: skip


def answers_section():
    st.subheader(t("toy.answers_header"))
    weakest_checkpoint()
    example = st.selectbox(t("toy.example_label"), EXAMPLES, key="toy_example")
    placeholder = t("toy.typed_placeholder")
    typed = st.text_input(t("toy.typed_label"), "", key="toy_typed", max_chars=40, placeholder=placeholder)
    try:
        expression = parse_expression(typed if typed.strip() else example)
    except ValueError:
        key, values = expression_problem(typed)
        st.error(t("toy.bad_expression", detail=t(key, **values)))
        st.stop()
    results = {pe: ask(pe, expression.text) for pe in PE_CHOICES}
    names = model_names_in(current_language())
    columns = [t(f"toy.column_{name}") for name in ("model", "answer", "right")]
    cells = [
        (names[pe], r.text, t("toy.right_yes") if r.correct else t("toy.right_no"))
        if r
        else (names[pe], t("toy.not_trained"), "–")
        for pe, r in results.items()
    ]
    table(Table.of(columns, cells, row_headers=True))
    notice("toy.answers_notice", expression=expression.text, result=expression.result)
    return results


@st.fragment
def comparison_sections(results) -> None:
    """The maps and the repeated-token sections (the second compares the models picked in the first); a fragment,
    so their widgets rerun only them on the server (the repeated-token section, a fragment inside it, reruns alone
    when only its own widgets move)."""
    left, right = maps_section(results)
    repeats_section(results, left, right)


def maps_section(results) -> tuple[str, str]:
    st.subheader(t("toy.maps_header"))
    available = [pe for pe in PE_CHOICES if results[pe]]
    if len(available) < 2:
        st.info(t("toy.too_few_models"))
        st.stop()
    # plain dicts as format_func: the options stay in this run's language wherever Streamlit formats them
    names, parts = model_names_in(current_language()), {part: t(f"toy.part_{part}") for part in PARTS}
    left_col, right_col, part_col = st.columns(3)
    left = left_col.selectbox(t("toy.left_model"), available, format_func=names.get, key="toy_left")
    default = available.index("sinusoidal") if "sinusoidal" in available else 1
    right = right_col.selectbox(t("toy.right_model"), available, default, format_func=names.get, key="toy_right")
    field = part_col.radio(t("toy.part_label"), list(PARTS), format_func=parts.get, key="toy_part")
    text, lang = results[left].expression.text, current_language()
    for pe, side in zip((left, right), SIDES, strict=True):  # one above the other: side by side, a 1024-px
        figure_chart(grid_chart(lang, pe, text, field), key=f"toy_grid_{side}")  # projector crushed the heads
    st.latex(r"\alpha_{ij} = \operatorname{softmax}_j\Big(\tfrac{q_i\cdot k_j}{\sqrt{d}} + b_{\text{PE}}(i, j)\Big)")
    st.caption(t("toy.logit_bias_note"))
    notice("toy.maps_notice")
    return left, right


@st.fragment
def repeats_section(results, left: str, right: str) -> None:
    st.subheader(t("toy.repeats_header"))
    text, lang = results[left].expression.text, current_language()
    repeats = repeats_of(left, text)
    if not repeats:
        st.info(t("toy.no_repeats"))
        return
    layer_col, head_col, token_col = st.columns(3)
    layer = layer_col.slider(t("toy.layer_label"), 1, len(results[left].encoder_self), 1, key="toy_layer")
    head = head_col.slider(t("toy.head_label"), 1, results[left].encoder_self[0].shape[0], 1, key="toy_head")
    token = token_col.selectbox(t("toy.token_label"), [r.token for r in repeats], key="toy_token")
    for pe, side in zip((left, right), SIDES, strict=True):  # one above the other, like the maps above
        found = next(r for r in repeats_of(pe, text) if r.token == token)
        figure_chart(rows_chart(lang, pe, text, layer, head, token), key=f"toy_rows_{side}")
        gaps = t("toy.gap_separator").join(
            t("toy.layer_gap", layer=i + 1, gap=f"{gap:.3g}") for i, gap in enumerate(found.max_difference)
        )
        st.markdown(t("toy.rows_gap", token=token, gaps=gaps))
    st.latex(r"x_i = x_j \;\Rightarrow\; q_i = q_j \;\Rightarrow\; \alpha_{i\cdot} = \alpha_{j\cdot}")
    notice("toy.repeats_notice")


def accuracy_section() -> None:
    st.subheader(t("toy.accuracy_header"))
    longer_checkpoint()
    models, lang = shipped_accuracy(), current_language()
    names = tuple(model_names_in(lang)[m.pe] for m in models)
    chart = accuracy_chart(lang, names, tuple(m.held_out for m in models), tuple(m.longer for m in models))
    figure_chart(chart, key="toy_accuracy")
    columns = [t(f"toy.column_{name}") for name in ("model", "held", "longer", "steps", "seconds")]
    rows = [(n, f"{m.held_out:.2%}", f"{m.longer:.2%}", m.steps, f"{m.seconds:.1f}")
            for n, m in zip(names, models, strict=True)]  # fmt: skip
    table(Table.of(columns, rows, row_headers=True))
    held = {m.pe: f"{m.held_out:.1%}" for m in models}
    best_longer = f"{max((m.longer for m in models), default=0.0):.1%}"
    notice("toy.accuracy_notice", none_held=held.get("none", t("toy.unknown_share")), best_longer=best_longer)


@st.fragment
def train_section() -> None:
    """A fragment, so its controls rerun only it on the server (the progress, a fragment inside it, reruns alone
    every second while a run is going)."""
    st.subheader(t("toy.train_header"))
    st.write(t("toy.train_intro"))
    run, names = live_run(), model_names_in(current_language())
    pe_col, steps_col = st.columns(2)
    pe = pe_col.selectbox(t("toy.train_pe_label"), PE_CHOICES, 3, format_func=names.get, key="toy_train_pe")
    steps = steps_col.slider(t("toy.train_steps_label"), 20, MAX_STEPS, 300, step=20, key="toy_train_steps")
    start = st.button(t("toy.train_start"), key="toy_train_start", icon=":material/play_arrow:")
    if start and not run.start(pe, steps):
        st.info(t("toy.train_busy"))
    running = run.snapshot().running
    st.session_state["toy_train_was_running"] = running
    st.fragment(run_every=1.0 if running else None)(show_progress)(run)


def show_progress(run: LiveRun) -> None:
    status, lang = run.snapshot(), current_language()
    st.progress(status.step / max(status.steps, 1), text=progress_line(lang, status))
    if status.error:  # the exception's own words (ui.toy_training keeps them as they were raised)
        st.error(t("toy.train_error", detail=status.error))
    if status.losses:
        figure_chart(training_chart(lang, status), key="toy_train_curve")
        notice("toy.train_notice")
    if st.session_state.get("toy_train_was_running") and not status.running:
        st.session_state["toy_train_was_running"] = False
        st.rerun()  # the run ended: redraw the page once, without the timer


use_shared_controls()
st.title(t("toy.title"))
st.write(t("toy.intro"))
answers = answers_section()
comparison_sections(answers)
accuracy_section()
train_section()
show_code(attention_scores, Attention.forward, repeated_token_differences)
