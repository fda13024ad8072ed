"""Toy transformer: small encoder–decoders trained on "21+211=232", one per positional encoding, opened up."""

import streamlit as st

from figures.toy import accuracy_bars, attention_grid, repeated_rows, training_curve
from posenc.attention import attention_scores
from posenc.toy.data import parse_expression
from posenc.toy.live import MAX_STEPS, LiveRun, describe
from posenc.toy.model import (
    PE_CHOICES,
    PE_LABELS,
    Attention,
    answer,
    repeated_token_differences,
    shipped_checkpoint,
    shipped_metrics,
)
from ui.code import show_code
from ui.shared import use_shared_controls

EXAMPLES = ("21+211=", "345+678=", "907-45=", "12-500=", "111+11=", "999+999=", "1234+5678=")
PARTS = {  # radio label -> (ToyAnswer field, query axis, key axis, query title, key title)
    "Encoder self-attention": ("encoder_self", "source", "source", "query token", "key token"),
    "Decoder self-attention": ("decoder_self", "target", "target", "answer step", "earlier step"),
    "Cross-attention": ("cross", "target", "source", "answer step", "expression token"),
}
SIDES = ("left", "right")


@st.cache_resource(max_entries=len(PE_CHOICES))
def load_model(pe: str):
    """Each shipped checkpoint is read once per server and shared by every visitor."""
    return shipped_checkpoint(pe)


@st.cache_data(max_entries=256, show_spinner=False)
def ask(pe: str, text: str):
    """The model's answer and maps (tens of milliseconds), or None when its checkpoint is missing."""
    try:
        return answer(load_model(pe), text)
    except ValueError:
        return None


@st.cache_resource
def live_run() -> LiveRun:
    """One training run per server, shared by every visitor."""
    return LiveRun()


def tokens_of(result, side: str) -> list[str]:
    return result.source_tokens if side == "source" else result.target_tokens


def answers_section():
    st.subheader("Ask the models")
    example = st.selectbox("Pick an example", EXAMPLES, key="toy_example")
    typed = st.text_input("…or type your own", "", key="toy_typed", max_chars=40, placeholder="e.g. 21+211=")
    try:
        expression = parse_expression(typed if typed.strip() else example)
    except ValueError as err:
        st.error(str(err))
        st.stop()
    results = {pe: ask(pe, expression.text) for pe in PE_CHOICES}
    rows = [
        {"model": PE_LABELS[pe], "answer": r.text, "right?": "yes" if r.correct else "no"}
        if r
        else {"model": PE_LABELS[pe], "answer": "(not trained yet)", "right?": "–"}
        for pe, r in results.items()
    ]
    st.dataframe(rows, hide_index=True)
    st.caption(
        f"**What to notice:** the true answer of {expression.text} is **{expression.result}**. The models write it "
        "backwards, units digit first, the way you add by hand (carry to the left); the page turns it around. "
        "4-digit numbers are longer than anything the models saw in training."
    )
    return results


def maps_section(results) -> tuple[str, str]:
    st.subheader("Attention maps, layer by layer and head by head")
    available = [pe for pe in PE_CHOICES if results[pe]]
    if len(available) < 2:
        st.info("Fewer than two trained models are shipped; train them with `python -m posenc.toy.train --pe …`.")
        st.stop()
    left_col, right_col, part_col = st.columns(3)
    left = left_col.selectbox("Left model", available, format_func=PE_LABELS.get, key="toy_left")
    default = available.index("sinusoidal") if "sinusoidal" in available else 1
    right = right_col.selectbox("Right model", available, default, format_func=PE_LABELS.get, key="toy_right")
    field, q_side, k_side, q_title, k_title = PARTS[part_col.radio("Attention", list(PARTS), key="toy_part")]
    for column, pe, side in zip(st.columns(2), (left, right), SIDES, strict=True):
        result = results[pe]
        maps, queries, keys = getattr(result, field), tokens_of(result, q_side), tokens_of(result, k_side)
        column.plotly_chart(
            attention_grid(maps, queries, keys, PE_LABELS[pe], q_title, k_title), key=f"toy_grid_{side}"
        )
    st.latex(r"\alpha_{ij} = \operatorname{softmax}_j\Big(\tfrac{q_i\cdot k_j}{\sqrt{d}} + b_{\text{PE}}(i, j)\Big)")
    st.caption(
        "**What to notice:** each square is one head: how much each row token (query) looks at each column token "
        "(key); every row sums to 1. Cross-attention uses content only in every model (as in T5): position reaches "
        "it through what the encoder wrote into its tokens. Decoder rows never look right, into the future."
    )
    return left, right


def repeats_section(results, left: str, right: str) -> None:
    st.subheader("The repeated-digit test")
    repeats = repeated_token_differences(results[left])
    if not repeats:
        st.info("This expression has no repeated token. Try 21+211= or 111+11=.")
        return
    layer_col, head_col, token_col = st.columns(3)
    layer = layer_col.slider("Layer", 1, len(results[left].encoder_self), 1, key="toy_layer")
    head = head_col.slider("Head", 1, results[left].encoder_self[0].shape[0], 1, key="toy_head")
    token = token_col.selectbox("Repeated token", [r.token for r in repeats], key="toy_token")
    for column, pe, side in zip(st.columns(2), (left, right), SIDES, strict=True):
        found = next(r for r in repeated_token_differences(results[pe]) if r.token == token)
        title = f"{PE_LABELS[pe]}: rows of '{token}', layer {layer}, head {head}"
        weights = results[pe].encoder_self[layer - 1][head - 1]
        column.plotly_chart(
            repeated_rows(weights, results[pe].source_tokens, found.positions, title), key=f"toy_rows_{side}"
        )
        gaps = ", ".join(f"layer {i + 1}: **{gap:.3g}**" for i, gap in enumerate(found.max_difference))
        column.markdown(f"max |difference| between the rows of '{token}' (all heads) — {gaps}")
    st.latex(r"x_i = x_j \;\Rightarrow\; q_i = q_j \;\Rightarrow\; \alpha_{i\cdot} = \alpha_{j\cdot}")
    st.caption(
        "**What to notice:** without positional encoding the rows are *exactly* equal (difference 0, bit for bit): "
        "equal tokens give equal queries, so the encoder cannot know which '1' is the units digit. With any "
        "encoding the rows differ, and that difference is all the model has to know a digit's place."
    )


def accuracy_section() -> None:
    st.subheader("How well does each encoding learn the task?")
    metrics = shipped_metrics()
    held, longer = [m["held_out_accuracy"] for m in metrics], [m["out_of_length_accuracy"] for m in metrics]
    st.plotly_chart(accuracy_bars([m["label"] for m in metrics], held, longer), key="toy_accuracy")
    st.dataframe(
        [
            {
                "model": m["label"],
                "held-out 3-digit": f"{m['held_out_accuracy']:.2%}",
                "4-digit": f"{m['out_of_length_accuracy']:.2%}",
                "steps": m["steps"],
                "training time (s)": m["seconds"],
            }
            for m in metrics
        ],
        hide_index=True,
    )
    st.caption(
        "**What to notice:** every model had the same budget (steps, seed, size; training stops early at 99.5 % "
        "on a held-out sample). Held-out expressions use operand pairs never seen in training. Without positions "
        "the model is right only by luck (about 2 %). No model handles 4-digit numbers — not even their units "
        "digit: their inputs are longer and their answers have digit places that never occurred in training "
        "(learned tables have untrained rows there, T5's buckets for distances of 8 or more were never used). "
        "Knowing distances is not enough: the model must also have learned what to do with them."
    )


def train_section() -> None:
    st.subheader("Train it yourself")
    st.write(
        "Train a fresh, smaller model (d_model 32, batches of 64) for a minute or two and watch the loss fall. One "
        "run at a time per server: if someone else's run is going, you watch theirs."
    )
    run = live_run()
    pe_col, steps_col = st.columns(2)
    pe = pe_col.selectbox("Encoding to train", PE_CHOICES, 3, format_func=PE_LABELS.get, key="toy_train_pe")
    steps = steps_col.slider("Steps", 20, MAX_STEPS, 300, step=20, key="toy_train_steps")
    if st.button("Start training", key="toy_train_start", icon=":material/play_arrow:") and not run.start(pe, steps):
        st.info("Another run is going on this server; its progress is below. Start yours when it ends.")
    running = run.snapshot().running
    st.session_state["toy_train_was_running"] = running
    st.fragment(run_every=1.0 if running else None)(show_progress)(run)


def show_progress(run: LiveRun) -> None:
    status = run.snapshot()
    st.progress(status.step / max(status.steps, 1), text=describe(status))
    if status.error:
        st.error(status.error)
    if status.losses:
        st.plotly_chart(training_curve(status.losses, status.held_out, status.steps), key="toy_train_curve")
        st.caption(
            "**What to notice:** the loss falls within a few dozen steps (the model learns which tokens answers "
            "use), yet exact answers stay rare: every digit and carry must be right, and the shipped models needed "
            "2,000–3,000 steps of 256 problems each (5–9 minutes) to get there. The curve shows the start of that."
        )
    if st.session_state.get("toy_train_was_running") and not status.running:
        st.session_state["toy_train_was_running"] = False
        st.rerun()  # the run ended: redraw the page once, without the timer


use_shared_controls()
st.title("Attention with and without positional encoding")
st.write(
    "Six small transformers learned the same task — add or subtract two numbers below 1000 — and differ only in "
    "their positional encoding. Type a problem and look inside: without positions, the model cannot tell the "
    "tens-place 1 of 211 from its units-place 1."
)
answers = answers_section()
left_model, right_model = maps_section(answers)
repeats_section(answers, left_model, right_model)
accuracy_section()
train_section()
show_code(attention_scores, Attention.forward, repeated_token_differences)
