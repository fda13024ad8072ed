"""Qwen2-VL's multimodal RoPE (M-RoPE): each token has three positions, (time, height, width), and the rotation pairs
are split among them by ``mrope_section``: pair i turns by m_a(i)·θ_i, a(i) the axis whose section holds pair i.

For text the three positions are equal, so M-RoPE is plain RoPE; for an image patch at row h and column w, the
height pairs see h and the width pairs see w, so patches the same number of rows apart share the same height angles.
Qwen2-VL's sections are contiguous (time on the fastest pairs, width on the slowest); Qwen3-VL's are interleaved
(``mrope_interleaved``): height on pairs 1, 4, 7, …, width on pairs 2, 5, 8, …, so every axis has fast and slow pairs.
Shape letters: L = tokens, P = pairs. Sources: Wang et al. 2024, "Qwen2-VL", arXiv 2409.12191 §2.1; transformers
``Qwen2VLRotaryEmbedding`` and ``Qwen3VLTextRotaryEmbedding`` (``recomposition_frequencies``).
"""

from __future__ import annotations

import torch

from posenc import _checks


def mrope_axis_of_pairs(section: tuple[int, ...], interleaved: bool = False) -> torch.Tensor:
    """a(i) for every pair, [P] int64 with P = sum(section). Contiguous (Qwen2-VL): 0 (time) for the first section[0]
    pairs, 1 (height) for the next, 2 (width) for the last. Interleaved (Qwen3-VL): 1 for pairs i ≡ 1 (mod 3) below
    3·section[1], 2 for pairs i ≡ 2 (mod 3) below 3·section[2], 0 for the rest."""
    parts = [_checks.positive_int("section part", part) if part else 0 for part in section]
    if not interleaved:
        return torch.repeat_interleave(torch.arange(len(parts)), torch.tensor(parts))
    axis = torch.zeros(sum(parts), dtype=torch.int64)
    for a in range(1, len(parts)):  # height, then width: every third pair from pair a
        axis[a : len(parts) * parts[a] : len(parts)] = a
    return axis


def mrope_angles(
    inv_freq: torch.Tensor, positions: torch.Tensor, section: tuple[int, ...], interleaved: bool = False
) -> torch.Tensor:
    """Angles φ[l, i] = positions[a(i), l]·θ_i of M-RoPE (a(i): :func:`mrope_axis_of_pairs`).
    Shapes: inv_freq [P], positions [3, L] -> [L, P]."""
    axis = mrope_axis_of_pairs(section, interleaved)
    if axis.numel() != inv_freq.numel():
        raise ValueError(f"mrope_section adds up to {axis.numel()} pairs; the frequencies have {inv_freq.numel()}.")
    chosen = positions.to(inv_freq.dtype)[axis]  # [P, L]: each pair's own position of every token
    return chosen.T * inv_freq


def image_positions(start: int, frames: int, rows: int, columns: int) -> torch.Tensor:
    """Qwen2-VL's (time, height, width) positions of an image's patches, in raster order after ``start`` text tokens:
    (start + t, start + h, start + w). Returns: [3, frames·rows·columns] int64."""
    t, h, w = torch.meshgrid(torch.arange(frames), torch.arange(rows), torch.arange(columns), indexing="ij")
    return torch.stack([t.flatten(), h.flatten(), w.flatten()]) + start
