"""What the page "RoPE at inference time" draws, cached: RoPE's angles at long positions in bfloat16, float16 and
float32, and the softmax weight a matching key keeps as the keys multiply, under each attention temperature; keyed by
scalar inputs and the language. The KV-cache sections are charts/kv_cache.py.
"""

import math

import streamlit as st
import torch

from charts import SHARED_ENTRIES
from charts.checkpoints import Question
from figures.inference import precision_figure, temperature_figure
from posenc.precision import PRECISION_MODES, position_as_stored, rope_pair_angle_error
from posenc.rope import rope_inv_freq
from posenc.temperature import TEMPERATURES, logit_temperature, weight_on_match
from ui.i18n import number, text
from ui.once import computed_once

PRECISION_POSITIONS = (1_000, 10_000, 100_000, 1_000_000)  # where the precision chart looks
PRECISION_WINDOW = 256  # positions averaged per pair
PRECISION_KEYS = ("pair_axis", "precision_axis", "precision_theta_name")


@st.cache_resource(show_spinner=False, max_entries=SHARED_ENTRIES)
def precision_chart(lang: str, dim: int, base: float, position: int):
    """How far each pair's angle is off near ``position`` when computed in bfloat16, float16, float32, and in float32
    with cos/sin rounded to bfloat16 (posenc's ``rope_pair_angle_error``), beside each pair's θ_i."""
    theta = rope_inv_freq(dim, base, dtype=torch.float64)
    errors = {text(lang, f"inference.precision_mode_{mode}"): rope_pair_angle_error(position, theta, mode,
              PRECISION_WINDOW).numpy() for mode in PRECISION_MODES}  # fmt: skip
    labels = {key: text(lang, f"inference.{key}") for key in PRECISION_KEYS}
    title = text(lang, "inference.precision_title", position=number(lang, position), window=PRECISION_WINDOW)
    return precision_figure(errors, theta.numpy(), title, labels)


@computed_once(maxsize=4)
def precision_question(position: int = 1_000_000, gap: int = 100) -> Question:
    """Tokens at ``position`` and ``position + gap`` with positions held in bfloat16: which offset does RoPE see?
    Choices: the true gap, the offset bfloat16 gives, and bfloat16's spacing of numbers near ``position``. Facts:
    whole numbers, which the page groups as the student's language does (``ui.i18n.shown_values``)."""
    near, far = position_as_stored(position, "bfloat16"), position_as_stored(position + gap, "bfloat16")
    seen = int(far - near)
    spacing = int(torch.finfo(torch.bfloat16).eps * 2 ** math.floor(math.log2(position)))
    choices = tuple(dict.fromkeys(sorted((gap, seen, spacing))))
    facts = {"position": position, "later": position + gap, "gap": gap, "seen": seen, "near": round(near),
             "far": round(far), "spacing": spacing}  # fmt: skip
    return Question(choices, seen, facts)


TEMPERATURE_TRAIN = 4096  # the training length the temperatures are drawn for (Qwen's logn starts past it)
TEMPERATURE_FACTOR = 32.0  # YaRN's scale factor: 4 096 → 131 072 tokens
TEMPERATURE_KEYS = ("temperature_axis_x", "temperature_axis_y", "mark_training")


def temperature_positions() -> torch.Tensor:
    """1 … 10⁶ keys, 64 per decade on a log axis (whole numbers, repeats dropped)."""
    return torch.unique(torch.logspace(0, 6, 385, dtype=torch.float64).round().to(torch.int64))


@st.cache_resource(show_spinner=False, max_entries=SHARED_ENTRIES)
def temperature_chart(lang: str, gap: float):
    """The weight on one key ``gap`` above the rest, over the number of keys, for each temperature of
    posenc.temperature (``logit_temperature``, ``weight_on_match``)."""
    positions = temperature_positions()
    weights = {
        text(lang, f"inference.temperature_{kind}"): weight_on_match(positions, gap, logit_temperature(
            positions, kind, TEMPERATURE_TRAIN, TEMPERATURE_FACTOR)).numpy()
        for kind in TEMPERATURES
    }  # fmt: skip
    labels = {key: text(lang, f"inference.{key}") for key in TEMPERATURE_KEYS}
    labels["training"] = str(TEMPERATURE_TRAIN)
    title = text(lang, "inference.temperature_title", gap=f"{gap:g}")
    return temperature_figure(positions.numpy(), weights, title, labels)


@computed_once(maxsize=32)
def temperature_question(gap: float) -> Question:
    """With no temperature, from how many keys on does a key ``gap`` above the rest get less than half the weight?
    Choices: ``gap`` keys (a linear guess), the true count (posenc's weight_on_match, searched), "never"."""
    keys = torch.arange(1, 10**7, dtype=torch.int64)
    below = torch.nonzero(weight_on_match(keys, gap, torch.ones(len(keys), dtype=torch.float64)) < 0.5)
    count = int(keys[below[0]].item()) if len(below) else 0
    linear = max(2, round(gap))
    choices = tuple(dict.fromkeys([linear, count if count else "never", "never"]))
    facts = {"gap": f"{gap:g}", "count": count, "exp_gap": round(math.exp(gap))}  # the page groups the whole numbers
    return Question(choices, count if count else "never", facts)
