"""What the "RoPE layer by layer" page draws, cached: the layer stacks of six shipped presets (posenc.layer_stack), one
model's layers grouped into a table with what a longer context asks of each group, the predict-first question on
Llama 4 Scout's reach, and four frequency allocations (posenc.frequency_allocation) against a context length, with
the same counts for real models."""

from __future__ import annotations

import itertools
import json

import streamlit as st
import torch

from charts.checkpoints import Question
from charts.model_rope import presets
from figures.rope_layers import LABEL_KEYS, allocation_figure, layer_stack_figure
from figures.table import Table
from posenc.decay import rope_wavelengths
from posenc.frequency_allocation import ALLOCATIONS, allocation_counts, allocation_inv_freq, pair_kinds
from posenc.layer_stack import StackLayer, extension_need, layer_stack, temperature_scale
from posenc.model_config import RopeConfig, model_rope_inv_freq, rope_config_from_dict, rope_config_from_json
from ui.i18n import number, text

STACK_MODELS = {  # preset id -> its row's name (model names are not translated)
    "llama-3.1-8b": "Llama 3.1 8B",
    "llama-4-scout": "Llama 4 Scout",
    "gemma-3-4b": "Gemma 3 4B",
    "gemma-4-31b": "Gemma 4 31B",
    "smollm3-3b": "SmolLM3 3B",
    "gpt-oss-20b": "gpt-oss 20B",
}
ALLOCATION_MODELS = {  # preset id -> its allocation, for the table of real heads
    "llama-3.1-8b": "full",
    "gpt-neox-20b": "partial",
    "phi-2": "partial",
    "gemma-4-31b": "proportional",
    "deepseek-v3": "mla",
}
FAR = 1_000_000  # tokens back the reach question asks about


def words(lang: str, key: str, **params) -> str:
    return text(lang, f"rope_layers.{key}", **params)


def _stack(preset: str) -> tuple[RopeConfig, tuple[StackLayer, ...]]:
    config = presets()[preset]["config"]
    return rope_config_from_dict(config), layer_stack(config)


def preset_text(preset: str) -> str:
    """A shipped preset's config.json text, as a pasted config arrives."""
    return json.dumps(presets()[preset]["config"])


def read_stack(config_text: str) -> tuple[RopeConfig, tuple[StackLayer, ...], dict]:
    """A config.json's text read as the page reads it: its RoPE, its layers and the dict itself. Raises
    :class:`posenc.model_config.ConfigError` naming the field (text too long, not JSON, not an object, a bad
    field)."""
    rope = rope_config_from_json(config_text)  # checks the length, the JSON and the RoPE fields
    config = json.loads(config_text)
    return rope, layer_stack(config), config


def describe_layer(lang: str, layer: StackLayer, rope: RopeConfig) -> str:
    """One layer in a few words: its attention, then its position (RoPE with base and scaling, proportional, NoPE),
    then Llama 4's temperature when it applies, joined by " · "."""
    parts = [words(lang, f"desc_{layer.attention}", span=number(lang, layer.span))]
    base = number(lang, layer.base, ".10g")
    if not layer.rope:
        parts.append(words(lang, "desc_nope"))
    elif layer.rope_type == "proportional":
        parts.append(words(lang, "desc_prope", base=base, pairs=layer.rotated_pairs,
                           unrotated=layer.head_dim // 2 - layer.rotated_pairs))  # fmt: skip
    elif layer.rope_type == "default":
        parts.append(words(lang, "desc_rope", base=base, pairs=layer.rotated_pairs))
    else:
        parts.append(words(lang, "desc_rope_scaled", base=base, pairs=layer.rotated_pairs, method=layer.rope_type,
                           factor=f"{rope.factor:g}"))  # fmt: skip
    if layer.temperature:
        parts.append(words(lang, "desc_temperature"))
    return " · ".join(parts)


@st.cache_resource(show_spinner=False, max_entries=16)
def stack_chart(lang: str, pasted: str | None = None):
    """The six models' stacks, one row each, under a pasted config's (``pasted``: its text, already read without
    error) when there is one."""
    stacks = {}
    if pasted is not None:
        rope, stack, _ = read_stack(pasted)
        stacks[words(lang, "your_model")] = [(layer.kind, describe_layer(lang, layer, rope)) for layer in stack]
    for preset, name in STACK_MODELS.items():
        rope, stack = _stack(preset)
        stacks[name] = [(layer.kind, describe_layer(lang, layer, rope)) for layer in stack]
    return layer_stack_figure(stacks, {key: words(lang, key) for key in LABEL_KEYS})


def layer_list(lang: str, indices: list[int], total: int) -> str:
    """Layer numbers in few words: all of them, an evenly spaced run ("3, 7, …, 47"; zh "3、7、…、47"), all but such a
    run, or the list, joined as the language joins a list (``layer_separator``)."""
    between = words(lang, "layer_separator")

    def run(values: list[int]) -> str | None:
        steps = {b - a for a, b in itertools.pairwise(values)}
        if len(values) > 5 and len(steps) == 1:
            return between.join([str(values[0]), str(values[1]), "…", str(values[-1])])
        return between.join(map(str, values)) if len(values) <= 5 else None

    if len(indices) == total:
        return words(lang, "layers_all", count=total)
    shown = run(indices)
    others = [index for index in range(total) if index not in indices]
    if (shown is None or len(indices) > 5) and run(others) is not None:
        return words(lang, "layers_all_but", which=run(others))
    return shown or between.join(map(str, indices))


def need_text(lang: str, layer: StackLayer, rope: RopeConfig, config: dict) -> str:
    """What a longer context asks of this kind of layer, in a sentence (posenc.layer_stack.extension_need)."""
    need = extension_need(layer, rope)
    train = number(lang, rope.training_length)
    if need == "nothing_window":
        return words(lang, "need_nothing_window", reach=number(lang, layer.reach), span=number(lang, layer.span))
    if need == "frequencies":
        if rope.is_scaled:
            return words(lang, "need_frequencies_scaled", train=train, method=rope.rope_type, factor=f"{rope.factor:g}")
        return words(lang, "need_frequencies_unscaled", train=train)
    if need == "no_new_angles":
        slowest = float(rope_wavelengths(model_rope_inv_freq(rope, scaled=False)[0])[-1])
        return words(lang, "need_no_new_angles", train=train, slowest=number(lang, slowest, ".0f"))
    if layer.temperature:
        floor, scale = config.get("floor_scale", 8192), config.get("attn_scale", 0.1)
        at = temperature_scale(FAR, floor, scale)
        return words(lang, "need_nope_tuned", scale=f"{scale:g}", floor=number(lang, floor), far=number(lang, FAR),
                     at=f"{at:.3f}")  # fmt: skip
    return words(lang, "need_nope")


@st.cache_data(show_spinner=False, max_entries=32)
def stack_table(lang: str, config_text: str) -> Table:
    """One row per kind of layer of one model (its config.json's text, read without error): which layers, their
    attention and position, how far back a query sees, and what a longer context asks of them (the layers name
    the row)."""
    rope, stack, config = read_stack(config_text)
    groups: dict[str, list[StackLayer]] = {}
    for layer in stack:
        groups.setdefault(describe_layer(lang, layer, rope), []).append(layer)
    rows = []
    for description, layers in groups.items():
        first = layers[0]
        shown = words(lang, "reach_any") if first.reach is None else number(lang, first.reach)
        reach = shown if first.reach is None else words(lang, "reach_up_to", reach=shown)
        rows.append({words(lang, "column_layers"): layer_list(lang, [layer.index for layer in layers], len(stack)),
                     words(lang, "column_kind"): description, words(lang, "column_reach"): reach,
                     words(lang, "column_need"): need_text(lang, first, rope, config)})  # fmt: skip
    return Table.of_records(rows, row_headers=True)


def reach_question() -> Question:
    """In how many of Llama 4 Scout's layers can the last token of a FAR-token text attend to the first? Choices:
    none, the NoPE layers' count, the RoPE layers' count, all. Facts (numbers, for ``ui.i18n.shown_values``): the
    counts, the chunk, the distance."""
    _, stack = _stack("llama-4-scout")
    count = sum(layer.reach is None or layer.reach >= FAR - 1 for layer in stack)
    nope = sum(not layer.rope for layer in stack)
    chunk = max(layer.span for layer in stack)
    facts = {"count": count, "layers": len(stack), "nope": nope, "rope": len(stack) - nope, "chunk": chunk,
             "far": FAR, "back": FAR - 1}  # fmt: skip
    return Question(tuple(sorted({0, nope, len(stack) - nope, len(stack)})), count, facts)


@st.cache_resource(show_spinner=False, max_entries=32)
def allocation_chart(lang: str, head_dim: int, base: float, share: float, length: int):
    """The four allocations of one head of ``head_dim`` features (rotated share ``share``, base ``base``) against a
    context of ``length`` tokens: the wavelengths of the rotated pairs and what each does."""
    rows = {}
    for kind in ALLOCATIONS:
        freq = allocation_inv_freq(kind, head_dim, base, 1.0 if kind == "full" else share)
        rotated = freq[freq > 0]
        unrotated = head_dim // 2 - rotated.numel()
        name = words(lang, f"row_{kind}", rotated=rotated.numel(), unrotated=unrotated)
        rows[name] = (rope_wavelengths(rotated).numpy(), pair_kinds(rotated, length))
    return allocation_figure(rows, length, {key: words(lang, key) for key in LABEL_KEYS})


def allocation_counts_at(head_dim: int, base: float, share: float, length: int) -> dict[str, dict[str, int]]:
    """{allocation: {pair kind: count}} for the chart's head (posenc.frequency_allocation.allocation_counts)."""
    return {kind: allocation_counts(allocation_inv_freq(kind, head_dim, base, 1.0 if kind == "full" else share), length)
            for kind in ALLOCATIONS}  # fmt: skip


@st.cache_data(show_spinner=False, max_entries=8)
def allocation_table(lang: str) -> Table:
    """Real heads side by side: features per head, rotated pairs, base, training context, and how many pairs turn
    fully, turn part of the way, stay under a quarter turn or are not rotated within that context: one column per
    model (named in the header row), one row per field (named by its first cell), so it fits the page's column."""
    rows = []
    for preset, kind in ALLOCATION_MODELS.items():
        rope = rope_config_from_dict(presets()[preset]["config"])
        freq, _ = model_rope_inv_freq(rope, scaled=False, dtype=torch.float64)
        freq = torch.cat([freq, torch.zeros(rope.head_dim // 2 - rope.pairs, dtype=torch.float64)])
        counts = allocation_counts(freq, rope.training_length)
        rows.append({words(lang, "column_model"): presets()[preset]["name"].split(" (")[0],
                     words(lang, "column_allocation"): words(lang, f"kind_name_{kind}"),
                     words(lang, "column_head"): f"{rope.head_dim}",
                     words(lang, "column_base"): number(lang, rope.base, ".10g"),
                     words(lang, "column_train"): number(lang, rope.training_length),
                     **{words(lang, f"column_{pair}"): f"{counts[pair]}" for pair in counts}})  # fmt: skip
    return Table.of_records(rows).transposed(corner=words(lang, "column_model"))
