"""posenc.patch_grid: a patch grid's RoPE similarity under chunked M-RoPE (Qwen2-VL), interleaved M-RoPE (Qwen3-VL)
and axial 2-D RoPE (Qwen2-VL's vision encoder), against transformers' rotary embeddings applied to all-ones q and k,
against a by-hand numpy formula written from the papers' descriptions, and against the properties that follow."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc.patch_grid import LAYOUTS, patch_angles, patch_axes, patch_scores

ROWS, COLUMNS = 5, 7


def raster(rows: int, columns: int) -> tuple[torch.Tensor, torch.Tensor]:
    row, column = torch.meshgrid(torch.arange(rows), torch.arange(columns), indexing="ij")
    return row.flatten(), column.flatten()


def scores_from_rotated(q_embed: torch.Tensor, k_embed: torch.Tensor, index: int) -> torch.Tensor:
    """q_embed[index]·k_embed[n] / q·q for every n, with q = k = ones: the score the function promises."""
    dim = q_embed.shape[-1]
    return (k_embed.double() @ q_embed[index].double()) / dim


def rotated_ones_mrope(name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """All-ones q and k rotated by transformers' Qwen2-VL (chunked) or Qwen3-VL (interleaved) text rotary embedding."""
    row, column = raster(ROWS, COLUMNS)
    positions = torch.stack([torch.zeros_like(row), row, column])[:, None, :]  # [3, 1, N]: t = 0
    if name == "chunked":
        from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
        from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding, apply_rotary_pos_emb

        config = Qwen2VLTextConfig(hidden_size=3584, num_attention_heads=28, rope_parameters={
            "rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]})  # fmt: skip
        rotary = Qwen2VLRotaryEmbedding(config)
    else:
        from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
        from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding, apply_rotary_pos_emb

        config = Qwen3VLTextConfig(hidden_size=4096, num_attention_heads=32, head_dim=128, rope_parameters={
            "rope_type": "default", "rope_theta": 5000000.0, "mrope_section": [24, 20, 20],
            "mrope_interleaved": True})  # fmt: skip
        rotary = Qwen3VLTextRotaryEmbedding(config)
    ones = torch.ones(1, 1, ROWS * COLUMNS, 128, dtype=torch.float64)  # [batch, heads, N, head_dim]
    cos, sin = rotary(ones.float(), positions)
    q, k = apply_rotary_pos_emb(ones, ones, cos.double(), sin.double())
    return q[0, 0], k[0, 0]


def rotated_ones_axial() -> tuple[torch.Tensor, torch.Tensor]:
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import (
        Qwen2VLVisionRotaryEmbedding,
        apply_rotary_pos_emb_vision,
    )

    rotary = Qwen2VLVisionRotaryEmbedding(Qwen2VLVisionConfig())  # embed_dim 1280, 16 heads: head_dim 80
    row, column = raster(ROWS, COLUMNS)
    cos, sin = rotary(torch.zeros(1), torch.stack([row, column], dim=1))  # [N, 2]: (h, w) per patch
    ones = torch.ones(ROWS * COLUMNS, 1, 80)  # [N, heads, head_dim]
    q, k = apply_rotary_pos_emb_vision(ones, ones, cos, sin)
    return q[:, 0], k[:, 0]


@pytest.mark.parametrize("name", ["chunked", "interleaved", "axial"])
@pytest.mark.parametrize("row, column", [(0, 0), (2, 3), (4, 6)])
def test_scores_are_transformers_rotations_of_all_ones(name, row, column):
    q, k = rotated_ones_axial() if name == "axial" else rotated_ones_mrope(name)
    expected = scores_from_rotated(q, k, row * COLUMNS + column).reshape(ROWS, COLUMNS)
    ours = patch_scores(name, ROWS, COLUMNS, row, column)
    torch.testing.assert_close(ours, expected, atol=2e-5, rtol=0)  # transformers computes cos and sin in float32
    assert ours[row, column] == pytest.approx(1.0)


def by_hand(name: str, rows: int, columns: int, row: int, column: int) -> np.ndarray:
    """The papers' description in loops: which position each pair turns with, and its frequency."""
    if name == "axial":  # 20 pairs on the row, then 20 on the column, both with 10 000^(−j/20)
        turns = [("row", 1e4 ** (-j / 20)) for j in range(20)] + [("column", 1e4 ** (-j / 20)) for j in range(20)]
    elif name == "chunked":  # 16 time, 24 height, 24 width pairs, in that order, of 1 000 000^(−i/64)
        turns = [("time" if i < 16 else "row" if i < 40 else "column", 1e6 ** (-i / 64)) for i in range(64)]
    else:  # pair i: height if i mod 3 = 1, width if i mod 3 = 2, below 60 = 3·20; time otherwise; 5 000 000^(−i/64)
        turns = [({1: "row", 2: "column"}.get(i % 3, "time") if i < 60 else "time", 5e6 ** (-i / 64))
                 for i in range(64)]  # fmt: skip
    out = np.zeros((rows, columns))
    for r in range(rows):
        for c in range(columns):
            delta = {"time": 0, "row": r - row, "column": c - column}
            out[r, c] = sum(math.cos(delta[axis] * theta) for axis, theta in turns) / len(turns)
    return out


@pytest.mark.parametrize("name", ["chunked", "interleaved", "axial"])
def test_scores_match_a_by_hand_formula(name):
    np.testing.assert_allclose(patch_scores(name, 6, 9, 1, 5).numpy(), by_hand(name, 6, 9, 1, 5), atol=1e-12)


def test_which_axis_owns_which_pairs():
    chunked, interleaved, axial = (patch_axes(name).tolist() for name in ("chunked", "interleaved", "axial"))
    assert chunked == [0] * 16 + [1] * 24 + [2] * 24  # time on the fastest pairs, width on the slowest
    assert interleaved[:6] == [0, 1, 2, 0, 1, 2] and interleaved[60:] == [0] * 4
    assert [interleaved.count(axis) for axis in range(3)] == [24, 20, 20]
    assert axial == [1] * 20 + [2] * 20 and 0 not in axial


def test_the_time_pairs_of_an_image_never_turn():
    """t = 0 for every patch: chunked's 16 time pairs add 16/64 to every score; the angles of time pairs are 0."""
    angles = patch_angles("chunked", 4, 4)
    assert angles[:, :16].abs().max() == 0
    assert patch_scores("chunked", 9, 9, 4, 4).min() > 16 / 64 - 24 / 64 - 24 / 64


def test_axial_scores_are_the_mean_of_a_row_and_a_column_curve():
    """Half the pairs see only Δrow, half only Δcolumn, with the same frequencies: s = (f(Δrow) + f(Δcolumn))/2, so
    the grid is symmetric under swapping rows and columns."""
    scores = patch_scores("axial", 8, 8, 3, 3)
    torch.testing.assert_close(scores, scores.T)
    one_d = patch_scores("axial", 1, 8, 0, 3)[0]  # Δrow = 0: (1 + f(Δcolumn))/2
    f = 2 * one_d - 1
    torch.testing.assert_close(scores, (f[:, None] + f[None, :]) / 2)


def test_chunked_puts_width_on_the_slow_pairs_so_columns_look_alike():
    """Qwen2-VL: width has the slowest 24 pairs, height the middle 24, so one column away changes the score less than
    one row away; interleaving gives both axes fast and slow pairs, and the two steps cost almost the same."""
    chunked = patch_scores("chunked", 3, 3, 1, 1)
    assert 1 - chunked[1, 2] < 1 - chunked[2, 1]
    interleaved = patch_scores("interleaved", 3, 3, 1, 1)
    assert interleaved[1, 2] == pytest.approx(float(interleaved[2, 1]), abs=0.05)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: patch_scores("spiral", 4, 4, 0, 0), "layout"),
        (lambda: patch_scores("axial", 0, 4, 0, 0), "rows"),
        (lambda: patch_scores("axial", 4, 65, 0, 0), "at most 64"),
        (lambda: patch_scores("axial", 4, 4, 4, 0), "outside"),
        (lambda: patch_scores("axial", 4, 4, -1, 0), "row"),
    ],
)
def test_bad_arguments_get_one_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_layouts_are_the_three():
    assert set(LAYOUTS) == {"chunked", "interleaved", "axial"}
