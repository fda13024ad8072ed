"""The toy transformer's budget: one answer with its attention maps, as the page makes it for a typed expression."""

from __future__ import annotations

import statistics
import time

from bench.budgets import TOY_ANSWER_MS, Row
from charts.toy_model import PARTS, labels_in, model_names_in
from figures.toy import attention_grid
from posenc.toy.model import answer, shipped_checkpoint

# Distinct expressions (each one is a fresh answer, as when a student types a new one), all within the model's range.
EXPRESSIONS = tuple(f"{a}+{b}=" for a, b in zip(range(101, 999, 37), range(998, 100, -41), strict=False))


def one_answer(model, name: str, expression: str, words: dict):
    """The model's answer and maps (greedy decoding), and the attention grid of its encoder (the page's default)."""
    result = answer(model, expression)
    q_side, k_side, _, _ = PARTS["encoder_self"]
    tokens = {"source": result.source_tokens, "target": result.target_tokens}
    return result, attention_grid(result.encoder_self, tokens[q_side], tokens[k_side], name, words)


def toy_rows(count: int, pe: str = "rope") -> list[Row]:
    """Median time of one answer with its attention grid over ``count`` distinct expressions (one untimed first)."""
    try:
        model = shipped_checkpoint(pe)
    except (OSError, ValueError) as err:
        return [Row("toy: one answer with its attention maps", float("nan"), "ms", None, f"skipped: {err}")]
    words = labels_in("en", "weight", query_title="query_token", key_title="key_token", head="grid_head",
                      layer="grid_layer", layer_head="grid_layer_head", axes="grid_axes")  # fmt: skip
    name = model_names_in("en")[pe]
    times = []
    for number, expression in enumerate(EXPRESSIONS[: count + 1]):
        started = time.perf_counter()
        one_answer(model, name, expression, words)
        if number:
            times.append((time.perf_counter() - started) * 1000.0)
    note = f"{pe} model, {len(times)} distinct expressions: answer (greedy decoding) + encoder attention grid"
    return [Row("toy: one answer with its attention maps", statistics.median(times), "ms", TOY_ANSWER_MS, note)]
