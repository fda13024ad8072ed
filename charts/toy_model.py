"""What the toy-transformer page draws, cached: the shipped models (read once per server), their answers and
attention maps for an expression, the attention grids of two models side by side, the encoder rows of a repeated
token, the accuracy bars, and the one live training run, keyed by scalar inputs and the language. Also the page's
words that depend on data (why a typed expression cannot be read, the training progress line and curve), from the
catalog of the language passed in.

Built figures are cached too (a grid costs milliseconds to build), keyed by the inputs that shape them and by the
language of their labels, so a slider rebuilds only the chart it changes. A cached figure is never modified.
"""

import re
from typing import NamedTuple

import streamlit as st

from figures.toy import accuracy_bars, attention_grid, repeated_rows, training_curve
from posenc.toy import model as toy_models
from posenc.toy.data import MAX_DIGITS, SYMBOLS
from posenc.toy.model import PE_CHOICES, repeated_token_differences, shipped_checkpoint
from ui import i18n  # not `text`: the cached functions below name their expression `text`
from ui.toy_training import LiveRun, LiveStatus, answer_alone

PARTS = {  # ToyAnswer field -> (query axis, key axis, query title key, key title key)
    "encoder_self": ("source", "source", "query_token", "key_token"),
    "decoder_self": ("target", "target", "answer_step", "earlier_step"),
    "cross": ("target", "source", "answer_step", "expression_token"),
}


def model_names_in(lang: str) -> dict[str, str]:
    """Each model's name in ``lang``."""
    return {pe: i18n.text(lang, f"toy.pe_{pe}") for pe in PE_CHOICES}


def labels_in(lang: str, *names: str, **renamed: str) -> dict:
    """Words for a figure builder in ``lang``: toy.<name> under its own name, or toy.<key> under a new name."""
    own = {name: i18n.text(lang, f"toy.{name}") for name in names}
    return own | {name: i18n.text(lang, f"toy.{key}") for name, key in renamed.items()}


class Accuracy(NamedTuple):
    """How well one shipped model learned the task (from its metrics file)."""

    pe: str
    held_out: float  # exact match on held-out 3-digit problems, 0 … 1
    longer: float  # exact match on 4-digit problems, longer than any in training, 0 … 1
    steps: int  # training steps taken
    seconds: float  # wall-clock training time


def shipped_accuracy() -> list[Accuracy]:
    """Every shipped model's accuracy, in the order of PE_CHOICES."""
    return [
        Accuracy(m["pe"], m["held_out_accuracy"], m["out_of_length_accuracy"], m["steps"], m["seconds"])
        for m in shipped_metrics()
    ]


@st.cache_data(show_spinner=False, max_entries=1)
def shipped_metrics() -> list[dict]:
    """Every shipped model's metrics file (``posenc.toy.model.shipped_metrics``), read from disk once per server
    instead of on every rerun: the files change only when the models are retrained, and the server restarts then."""
    return toy_models.shipped_metrics()


@st.cache_resource(show_spinner=False, max_entries=len(PE_CHOICES))
def load_model(pe: str):
    """Each shipped checkpoint is read once per server and shared by every visitor."""
    return shipped_checkpoint(pe)


@st.cache_resource(max_entries=256, show_spinner=False)
def ask(pe: str, text: str):
    """The model's answer and maps (milliseconds), or None when its checkpoint is missing. The shipped models are
    deterministic, so one answer per (model, expression) is shared by every session, uncopied: never modified."""
    try:
        return answer_alone(load_model(pe), text)
    except ValueError:
        return None


@st.cache_resource(max_entries=256, show_spinner=False)
def repeats_of(pe: str, text: str):
    """The repeated source tokens of the model's answer and how far apart their attention rows are."""
    return repeated_token_differences(ask(pe, text))


def tokens_of(result, side: str) -> list[str]:
    return result.source_tokens if side == "source" else result.target_tokens


def grid_figure(result, lang: str, pe: str, field: str):
    """The attention grid of one answer's ``field`` maps (an uncached build: ``grid_chart`` caches it)."""
    q_side, k_side, q_title, k_title = PARTS[field]
    words = labels_in(
        lang,
        "weight",
        query_title=q_title,
        key_title=k_title,
        head="grid_head",
        layer="grid_layer",
        layer_head="grid_layer_head",
        axes="grid_axes",
    )
    maps, queries, keys = getattr(result, field), tokens_of(result, q_side), tokens_of(result, k_side)
    return attention_grid(maps, queries, keys, model_names_in(lang)[pe], words)


@st.cache_resource(max_entries=16, show_spinner=False)
def grid_chart(lang: str, pe: str, text: str, field: str):
    """The attention grid of one model's ``field`` maps for the expression, in ``lang``."""
    return grid_figure(ask(pe, text), lang, pe, field)


@st.cache_resource(max_entries=16, show_spinner=False)
def rows_chart(lang: str, pe: str, text: str, layer: int, head: int, token: str):
    """The encoder rows of every occurrence of ``token`` in one head of one layer, in ``lang``."""
    result = ask(pe, text)
    found = next(r for r in repeats_of(pe, text) if r.token == token)
    title = i18n.text(lang, "toy.rows_title", model=model_names_in(lang)[pe], token=token, layer=layer, head=head)
    words = labels_in(lang, "row_name", "query", "key", "key_axis", "weight_axis", "weight")
    weights = result.encoder_self[layer - 1][head - 1]
    return repeated_rows(weights, result.source_tokens, found.positions, title, words)


@st.cache_resource(max_entries=4, show_spinner=False)
def accuracy_chart(lang: str, names: tuple[str, ...], held: tuple[float, ...], longer: tuple[float, ...]):
    """The accuracy bars of the shipped models, in ``lang``."""
    words = labels_in(
        lang,
        "exact_hover",
        title="accuracy_title",
        x_title="accuracy_x",
        y_title="accuracy_y",
        held_name="bar_held",
        longer_name="bar_longer",
    )
    return accuracy_bars(list(names), list(held), list(longer), words)


@st.cache_resource(show_spinner=False)
def live_run() -> LiveRun:
    """One training run per server, shared by every visitor."""
    return LiveRun()


def expression_problem(typed: str) -> tuple[str, dict]:
    """Why ``posenc.toy.data.parse_expression`` cannot read ``typed``, as a toy.problem_* catalog key and its values,
    checked in parse_expression's order (tests/test_page_toy.py checks the two agree)."""
    compact = "".join(typed.split())
    stray = sorted({char for char in compact if char not in SYMBOLS})
    match = re.fullmatch(r"(\d+)([+-])(\d+)=?", compact)
    numbers = match.group(1, 3) if match else ()
    if not compact:
        return "toy.problem_empty", {}
    if len(compact) > 40:
        return "toy.problem_long", {"length": len(compact)}
    if stray:
        return "toy.problem_symbols", {"found": ", ".join(repr(char) for char in stray[:5])}
    for number in numbers:
        if len(number) > MAX_DIGITS:
            return "toy.problem_digits", {"number": number, "digits": len(number), "max_digits": MAX_DIGITS}
        if len(number) > 1 and number[0] == "0":
            return "toy.problem_zeros", {"number": number, "value": int(number)}
    return "toy.problem_form", {"expression": compact}


def progress_line(lang: str, status: LiveStatus) -> str:
    """The training run's progress line in ``lang``: which model, how far, the last loss and held-out accuracy."""
    if status.pe is None:
        return i18n.text(lang, "toy.train_none")
    stage = "held" if status.held_out else "loss" if status.losses else "start"
    return i18n.text(
        lang,
        f"toy.train_status_{stage}",
        model=model_names_in(lang)[status.pe],
        step=status.step,
        steps=status.steps,
        loss=f"{status.losses[-1]:.3f}" if status.losses else "",
        held=f"{status.held_out[-1][1]:.1%}" if status.held_out else "",
        seconds=f"{status.seconds:.0f}",
    )


def training_chart(lang: str, status: LiveStatus):
    """The run's loss and held-out accuracy so far, in ``lang`` (not cached: it grows every second)."""
    words = labels_in(
        lang,
        "loss",
        "step_hover",
        "exact_hover",
        title="curve_title",
        x_title="curve_x",
        y_title="curve_y",
        loss_name="curve_loss_name",
        held_name="curve_held_name",
    )
    return training_curve(status.losses, status.held_out, status.steps, words)
