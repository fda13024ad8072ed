"""A patch grid (one image, t = 0) under three 2-D position layouts: the angle of every rotary pair at every patch,
and how alike RoPE makes a query patch and every key patch: s(q, n) = (1/P)·Σ_i cos(φ_i(n) − φ_i(q)).

s is q·R(φ(n) − φ(q))·k / q·q for all-ones q = k: each pair of ones gives 2·cos of its angle, and q·q = 2P.
- ``chunked`` (Qwen2-VL's language model, M-RoPE): pairs in three contiguous sections, time (the fastest 16),
  height (the next 24), width (the slowest 24); θ_i = 1 000 000^(−2i/128).
- ``interleaved`` (Qwen3-VL, ``mrope_interleaved``): height on pairs 1, 4, …, 58, width on 2, 5, …, 59, time on the
  rest; θ_i = 5 000 000^(−2i/128).
- ``axial`` (Qwen2-VL's vision encoder, head_dim 80): the first 20 pairs turn with the row, the last 20 with the
  column, both halves with the same frequencies θ_j = 10 000^(−2j/40), j < 20.
Sources: Wang et al. 2024, "Qwen2-VL", arXiv 2409.12191 §2.1; transformers ``Qwen2VLRotaryEmbedding``,
``Qwen3VLTextRotaryEmbedding`` and ``Qwen2VLVisionRotaryEmbedding``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posenc import _checks
from posenc.mrope import image_positions, mrope_axis_of_pairs

TIME, ROW, COLUMN = 0, 1, 2  # the axis numbers of mrope_axis_of_pairs: time, height, width
MAX_SIDE = 64  # patches per side at most (a 896-pixel image in 14-pixel patches)


@dataclass(frozen=True)
class PatchLayout:
    """One layout: its pairs per head, RoPE base and (time, height, width) pairs per axis."""

    pairs: int
    base: float
    section: tuple[int, int, int]
    interleaved: bool = False
    axial: bool = False


LAYOUTS = {
    "chunked": PatchLayout(64, 1_000_000.0, (16, 24, 24)),  # Qwen2-VL 7B's text config
    "interleaved": PatchLayout(64, 5_000_000.0, (24, 20, 20), interleaved=True),  # Qwen3-VL's text config
    "axial": PatchLayout(40, 10_000.0, (0, 20, 20), axial=True),  # Qwen2-VL's vision encoder (embed 1280, 16 heads)
}


def _layout(name: str) -> PatchLayout:
    return LAYOUTS[_checks.choice("layout", name, LAYOUTS)]


def patch_axes(name: str) -> torch.Tensor:
    """The axis each pair turns with (0 time, 1 row, 2 column), [P] int64."""
    layout = _layout(name)
    if layout.axial:
        return torch.repeat_interleave(torch.tensor([ROW, COLUMN]), torch.tensor(layout.section[1:]))
    return mrope_axis_of_pairs(layout.section, layout.interleaved)


def patch_inv_freq(name: str) -> torch.Tensor:
    """θ_i of every pair, [P] float64: base^(−2i/2P) for M-RoPE; axial: base^(−2j/P) with j = i mod P/2."""
    layout = _layout(name)
    if layout.axial:
        half = layout.pairs // 2
        return (layout.base ** (-torch.arange(half, dtype=torch.float64) / half)).repeat(2)
    return layout.base ** (-torch.arange(layout.pairs, dtype=torch.float64) / layout.pairs)


def patch_angles(name: str, rows: int, columns: int) -> torch.Tensor:
    """φ[n, i] = p_{a(i)}(n)·θ_i for the patches n of a rows × columns grid in raster order, p = (0, row, column).
    Returns: [rows·columns, P] float64."""
    rows, columns = (_checks.positive_int(label, value) for label, value in (("rows", rows), ("columns", columns)))
    if max(rows, columns) > MAX_SIDE:
        raise ValueError(f"A grid side must be at most {MAX_SIDE} patches; got {rows} × {columns}.")
    positions = image_positions(0, 1, rows, columns).to(torch.float64)  # [3, N]
    return positions[patch_axes(name)].T * patch_inv_freq(name)


def patch_scores(name: str, rows: int, columns: int, row: int, column: int) -> torch.Tensor:
    """s(q, n) = (1/P)·Σ_i cos(φ_i(n) − φ_i(q)) of the query patch q = (row, column) against every patch n.
    Returns: [rows, columns] float64, 1 at the query itself."""
    angles = patch_angles(name, rows, columns)
    row, column = _checks.non_negative_int("row", row), _checks.non_negative_int("column", column)
    if row >= rows or column >= columns:
        raise ValueError(f"The query patch ({row}, {column}) is outside the {rows} × {columns} grid.")
    query = angles[row * columns + column]
    return torch.cos(angles - query).mean(dim=1).reshape(rows, columns)
