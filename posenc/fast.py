"""Faster forms of a few posenc functions, for the app's largest sizes: the same values, computed with tricks a
student need not read. Each one is tested equal to its textbook function (``tests/test_fast.py``), and the pages'
"show the code" shows the textbook one.

- :func:`sinusoidal_by_blocks` = :func:`posenc.absolute.sinusoidal` (to ~1e-7): positions in √L blocks, angle addition;
  :func:`sinusoidal_columns` and :func:`sinusoidal_row_by_blocks` are some of its columns or one of its rows alone
  (the same float32 values), and :func:`sinusoid_shift_dots_by_blocks` the dot products PE(p)·PE(p + k) on its
  float64 table, formed a few blocks of positions at a time (:class:`_SinusoidBlocks`);
- :func:`sinusoidal_shift_residual_by_pairs` = :func:`posenc.absolute.sinusoidal_shift_residual`: the shift map
  applied pair by pair (4·L·D/2 multiplies instead of L·D²), a few blocks of positions at a time;
- :func:`sinusoidal_similarity_row_by_blocks` = :func:`posenc.absolute.sinusoidal_similarity_row` and
  :func:`sinusoid_offset_similarity_by_blocks` = :func:`posenc.absolute.sinusoid_offset_similarity` (to ~1e-13 of
  D/2): a row of PE·PEᵀ without the [L, D] table, and its closed form summed once per distance;
- :func:`embedding_pe_cosines_by_chunks` = :func:`posenc.absolute.embedding_pe_cosines` and
  :func:`word_position_mix_by_dots` = :func:`posenc.embedding_scale.word_position_mix` (the same draws, to ~1e-13):
  no [S, D] or [N, L, D] float64 intermediates;
- :func:`rope_decay_bound_by_blocks` = :func:`posenc.decay.rope_decay_bound_at`, :func:`rope_ones_score_by_blocks` =
  :func:`posenc.decay.rope_ones_score_at` and :func:`rope_random_score_moments_by_blocks` =
  :func:`posenc.decay.rope_random_score_moments` (to ~1e-12): no [R, P] table and no trig per entry, by angle
  addition from two small tables (:class:`_Rotations`);
- :func:`xl_illustration_view_by_vocabulary` = one view of :func:`posenc.transformer_xl.xl_illustration` (to
  ~1e-12): only that view, the V token embeddings projected once, W_{k,R} taken on the query side;
- :func:`nope_drawn_both_ways` = what the page draws of :func:`posenc.nope.nope_identical_tokens`, causal and not
  (to ~1e-13): from the three distinct scores of [f, x, …, x], never the [L, L] weights;
- :func:`rope_signed_scores_by_phase` = :func:`posenc.rope_variants.rope_signed_scores` (to ~1e-13): its closed form,
  once per distinct phase.

Shape letters: L = positions, D = dimension, P = D/2 pairs, R = distances, V = vocabulary, N = 2L − 1 offsets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch

from posenc import _checks
from posenc._random import BLOCK_DIM, gaussian, padded, standard_draws
from posenc.absolute import (
    SINUSOID_LAYOUTS,
    sinusoid_inv_freq,
    sinusoid_pair_columns,
    sinusoidal,
    sinusoidal_shift_matrix,
    word_positions,
)
from posenc.decay import _distances, _frequencies, _similarity
from posenc.nope import nope_first_and_x, nope_length
from posenc.rope import rope_inv_freq, to_complex_pairs
from posenc.rope_variants import signed_inputs
from posenc.transformer_xl import ScoreTerms, illustration_draws, xl_relative_encoding


def sinusoidal_by_blocks(
    length: int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """:func:`posenc.absolute.sinusoidal` (same arguments, same [L, D] table to ~1e-7 in float32), ~10× faster.

    Write p = a·B + b and use the shift property the paper points out: PE(aB + b) is PE(aB) with each (sin, cos)
    pair rotated by b·ω_i. Sines and cosines are taken in float64 on two small tables, [A, P] and [B, P]; only one
    multiply-add per output entry runs in ``dtype``. Source: arXiv 1706.03762 §3.5.
    """
    blocks = _SinusoidBlocks(length, dim, base, layout, dtype, device)
    return blocks.rows(0, blocks.count)[:length]  # [A·B, D] -> [L, D]


def sinusoidal_columns(
    length: int, dim: int, columns: Sequence[int], base: float = 10000.0, layout: str = "interleaved"
) -> torch.Tensor:
    """``sinusoidal_by_blocks(length, dim, base, layout)[:, columns]`` (float32, the same values), without the
    other columns: a few waves of a [4096, 1024] table cost L·len(columns) multiply-adds instead of L·D.
    Returns: [L, len(columns)] float32."""
    blocks = _SinusoidBlocks(length, dim, base, layout, torch.float32, columns=columns)
    return blocks.rows(0, blocks.count)[:length]


def sinusoidal_row_by_blocks(
    position: int, dim: int, base: float = 10000.0, layout: str = "interleaved"
) -> torch.Tensor:
    """``sinusoidal_by_blocks(position + 1, dim, base, layout)[-1]`` (PE(position), float32, the same values) without
    the rows before it: only the last block of positions is formed. Returns: [D] float32."""
    position = _checks.non_negative_int("position", position)
    blocks = _SinusoidBlocks(position + 1, dim, base, layout, torch.float32)
    last = blocks.count - 1  # the block holding the position
    return blocks.rows(last, last + 1)[position - last * blocks.block]


class _SinusoidBlocks:
    """The small tables of :func:`sinusoidal_by_blocks` (B = ⌈√L⌉ positions per block, A blocks) and the rows of
    its table block by block, so that a computation over the whole table can run on a few blocks at a time (in
    cache) and see the very same numbers. ``columns``: only these columns of each row (default all D)."""

    def __init__(self, length, dim, base, layout, dtype, device=None, columns: Sequence[int] | None = None):
        length = _checks.positive_int("length", length)
        layout = _checks.choice("layout", layout, SINUSOID_LAYOUTS)
        inv_freq = sinusoid_inv_freq(dim, base).to(device)  # ω_i, [P] float64
        self.block = max(1, math.isqrt(length - 1) + 1)  # B = ⌈√L⌉, so A·B ≥ L with both tables small
        coarse = torch.outer(torch.arange(0, length, self.block, dtype=torch.float64, device=device), inv_freq)
        fine = torch.outer(torch.arange(self.block, dtype=torch.float64, device=device), inv_freq)  # b·ω, [B, P]
        sin_a, cos_a, sin_b, cos_b = torch.sin(coarse), torch.cos(coarse), torch.sin(fine), torch.cos(fine)
        keep = slice(None) if columns is None else torch.as_tensor(list(columns), dtype=torch.long)

        def join(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:  # two [N, P] -> [N, D] in `layout`
            if layout == "concat":
                return torch.cat((first, second), dim=-1)[:, keep]
            return torch.stack((first, second), dim=-1).flatten(-2)[:, keep]

        # sin(α+β) = sin α cos β + cos α sin β;  cos(α+β) = cos α cos β − sin α sin β
        self.start, self.swapped = join(sin_a, cos_a).to(dtype), join(cos_a, sin_a).to(dtype)  # [A, D]
        self.cos_part, self.sin_part = join(cos_b, cos_b).to(dtype), join(sin_b, -sin_b).to(dtype)  # [B, D]
        self.count = self.start.shape[0]  # A

    def rows(self, first: int, last: int) -> torch.Tensor:
        """Blocks ``first`` … ``last`` − 1 of the table: positions first·B … last·B − 1, [(last − first)·B, D]."""
        start, swapped = self.start[first:last, None, :], self.swapped[first:last, None, :]
        out = torch.empty(start.shape[0], self.block, start.shape[-1], dtype=start.dtype, device=start.device)
        torch.mul(start, self.cos_part[None, :, :], out=out)
        out.addcmul_(swapped, self.sin_part[None, :, :])
        return out.flatten(0, 1)


def sinusoidal_shift_residual_by_pairs(
    offset: int,
    length: int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """:func:`posenc.absolute.sinusoidal_shift_residual` (r[p] = max_d |PE(p + k) − M_k · PE(p)|_d, the same
    rounding-sized values), faster: M_k is zero outside its 2×2 block per pair, so the product is taken block by
    block (4·L·D/2 multiplies instead of L·D²: milliseconds instead of ~0.2 s at L = 4096, D = 1024), on a few
    blocks of positions of the table at a time (:class:`_SinusoidBlocks`; the table's numbers, without the table).
    Returns: [L] float64 for p = 0 … L − 1. Source: arXiv 1706.03762 §3.5.
    """
    offset = _checks.non_negative_int("offset", offset)
    length = _checks.positive_int("length", length)
    blocks = _SinusoidBlocks(length + offset, dim, base, layout, dtype)  # PE(0 … L + k − 1), block by block
    matrix = sinusoidal_shift_matrix(offset, dim, base, layout=layout).to(dtype)  # M_k, [D, D]
    sin_at, cos_at = sinusoid_pair_columns(dim, layout).unbind(-1)  # the columns of each pair, [P] each
    half = sin_at.numel()
    # M_k on pair i: [[M_ss, M_sc], [M_cs, M_cc]], [P] each
    m_ss, m_sc = matrix[sin_at, sin_at], matrix[sin_at, cos_at]
    m_cs, m_cc = matrix[cos_at, sin_at], matrix[cos_at, cos_at]
    residual = torch.empty(length, dtype=torch.float64)
    group = _blocks_per_step(blocks, dtype)
    ahead = -(-offset // blocks.block)  # the further blocks PE(p + k) reaches into
    for first in range(0, -(-length // blocks.block), group):
        table = blocks.rows(first, min(first + group + ahead, blocks.count))  # PE(first·B …), [N, D]
        at, count = first * blocks.block, min(group * blocks.block, length - first * blocks.block)
        # the rows seen pair by pair, without a copy: [..., i, 0] = sin(pω_i), [..., i, 1] = cos(pω_i), [N, P, 2]
        pairs = table.view(-1, half, 2) if layout == "interleaved" else table.view(-1, 2, half).transpose(1, 2)
        (now_sin, now_cos), (later_sin, later_cos) = pairs[:count].unbind(-1), pairs[offset : offset + count].unbind(-1)
        # M_k · PE(p) on pair i: [[M_ss, M_sc], [M_cs, M_cc]] · [sin(pω_i), cos(pω_i)], compared with PE(p + k)
        shifted_sin = torch.addcmul(m_ss * now_sin, m_sc, now_cos)  # [n, P]
        shifted_cos = torch.addcmul(m_cs * now_sin, m_cc, now_cos)  # [n, P]
        error_sin = shifted_sin.sub_(later_sin).abs_().amax(dim=-1)  # [n]
        error_cos = shifted_cos.sub_(later_cos).abs_().amax(dim=-1)  # [n]
        residual[at : at + count] = torch.maximum(error_sin, error_cos)
    return residual


def sinusoid_shift_dots_by_blocks(offset: int, length: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """PE(p)·PE(p + k) for p = 0 … L − 1 − k on the float64 table of :func:`sinusoidal_by_blocks` (that is
    ``(T[:L − k] * T[k:]).sum(-1)`` of ``T = sinusoidal(length, dim, base, dtype=torch.float64)`` to ~1e-13), on a
    few blocks of positions at a time instead of the whole [L, D] table. Returns: [L − k] float64."""
    offset = _checks.non_negative_int("offset", offset)
    length = _checks.positive_int("length", length)
    blocks = _SinusoidBlocks(length, dim, base, "interleaved", torch.float64)  # the layout does not change a dot
    dots = torch.empty(max(length - offset, 0), dtype=torch.float64)
    group, ahead = _blocks_per_step(blocks, torch.float64), -(-offset // blocks.block)
    for first in range(0, -(-dots.numel() // blocks.block), group):
        table = blocks.rows(first, min(first + group + ahead, blocks.count))  # PE(first·B …), [N, D]
        at = first * blocks.block
        count = min(group * blocks.block, dots.numel() - at)
        dots[at : at + count] = torch.linalg.vecdot(table[:count], table[offset : offset + count])  # [n]
    return dots


_STEP_BYTES = 2**20  # the table one step of a block-by-block computation forms: ~1 MB, which stays in cache


def _blocks_per_step(blocks: _SinusoidBlocks, dtype: torch.dtype) -> int:
    """Blocks of positions one step of a block-by-block computation takes (at least one)."""
    block_bytes = blocks.block * blocks.start.shape[-1] * torch.finfo(dtype).bits // 8
    return max(1, _STEP_BYTES // block_bytes)


def sinusoidal_similarity_row_by_blocks(position: int, length: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """:func:`posenc.absolute.sinusoidal_similarity_row` (s[q] = PE(p)·PE(q) by dot products, the same values to
    ~1e-13 of D/2) without the [L, D] table: with q = aB + b and angle addition, PE(q)·PE(p) =
    Σ_i cos(bω_i)·(sin(aBω_i) sin(pω_i) + cos(aBω_i) cos(pω_i)) + sin(bω_i)·(cos(aBω_i) sin(pω_i) −
    sin(aBω_i) cos(pω_i)): two [A, P] × [P, B] products. Returns: [L] float64. Source: arXiv 1706.03762 §3.5."""
    position = _checks.non_negative_int("position", position)
    length = _checks.positive_int("length", length)
    inv_freq = sinusoid_inv_freq(dim, base)  # ω_i, [P] float64
    here = position * inv_freq  # pω_i, [P]
    sin_p, cos_p = torch.sin(here), torch.cos(here)
    block = max(1, math.isqrt(length - 1) + 1)  # B = ⌈√L⌉
    coarse = torch.outer(torch.arange(0, length, block, dtype=torch.float64), inv_freq)  # aB·ω, [A, P]
    fine = torch.outer(torch.arange(block, dtype=torch.float64), inv_freq)  # b·ω, [B, P]
    sin_a, cos_a, sin_b, cos_b = torch.sin(coarse), torch.cos(coarse), torch.sin(fine), torch.cos(fine)
    along_cos = torch.addcmul(sin_a * sin_p, cos_a, cos_p)  # what multiplies cos(bω_i), [A, P]
    along_sin = torch.addcmul(cos_a * sin_p, sin_a, -cos_p)  # what multiplies sin(bω_i), [A, P]
    dots = along_cos @ cos_b.T + along_sin @ sin_b.T  # [A, B]: q = aB + b
    return dots.flatten()[:length]


def sinusoid_offset_similarity_by_blocks(position: int, length: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """:func:`posenc.absolute.sinusoid_offset_similarity` (s(q − p) = Σ_i cos((q − p)·ω_i), the same values to
    ~1e-12 of D/2): cos is even, so s(q − p) = s(|q − p|), summed once per distance 0 … max |q − p| by angle
    addition (:class:`_Rotations`) instead of a [L, P] table of cosines. Returns: [L] float64."""
    position = _checks.non_negative_int("position", position)
    length = _checks.positive_int("length", length)
    distances = (torch.arange(length) - position).abs()  # |q − p|, [L]
    sums = _cosine_sums(np.arange(int(distances.max()) + 1), sinusoid_inv_freq(dim, base).numpy())  # s(r), [R]
    return torch.from_numpy(sums)[distances]


def embedding_pe_cosines_by_chunks(
    dims: Sequence[int], samples: int = 2000, max_position: int = 512, base: float = 10000.0, seed: int = 0
) -> torch.Tensor:
    """:func:`posenc.absolute.embedding_pe_cosines` (cos(w, PE(p)) for the same seeded draws, to ~1e-14): the words
    are read from posenc's cached float32 draw (:func:`posenc._random.standard_draws`) and widened to float64 a few
    hundred at a time, and |PE(p)| is taken once per position, instead of [S, D] float64 copies.
    Returns: [len(dims), samples] float64."""
    samples = _checks.positive_int("samples", samples)
    max_position = _checks.positive_int("max_position", max_position)
    seed = _checks.non_negative_int("seed", seed)
    positions = word_positions(samples, max_position, seed)  # p, [S]
    cosines = torch.empty(len(dims), samples, dtype=torch.float64)
    for row, dim in enumerate(dims):
        dim = _checks.even_dim("dim", dim)
        (drawn,) = standard_draws(seed, ((samples, padded(dim, BLOCK_DIM)),))  # w: its first D features, [S, ≥ D]
        table = sinusoidal_by_blocks(max_position, dim, base, dtype=torch.float64)  # PE, [max_position, D]
        norms = torch.linalg.vector_norm(table, dim=-1)  # |PE(p)|, [max_position]
        step = max(1, 2**18 // dim)  # words per step: ~2 MB of float64
        for at in range(0, samples, step):
            word, where = drawn[at : at + step, :dim].to(torch.float64), positions[at : at + step]  # [n, D], [n]
            # cos(w, PE(p)) = w·PE(p) / (|w| |PE(p)|)
            dots = torch.linalg.vecdot(word, table[where])
            cosines[row, at : at + step] = dots / (torch.linalg.vector_norm(word, dim=-1) * norms[where])
    return cosines


def word_position_mix_by_dots(
    dim: int, scaled: bool, words: int = 256, length: int = 64, base: float = 10000.0, seed: int = 0
) -> dict[str, float]:
    """:func:`posenc.embedding_scale.word_position_mix` (the same draws, the same means to ~1e-13) from the [N, L]
    dot products c·w·PE(p) instead of the [N, L, D] sums x = c·w + PE(p): |x|² = |c·w|² + 2 c·w·PE(p) + |PE(p)|²,
    x·c·w = |c·w|² + c·w·PE(p) and x·PE(p) = c·w·PE(p) + |PE(p)|² (~70× less work at d = 1024)."""
    dim = _checks.even_dim("dim", dim)
    embeddings = gaussian(torch.Generator().manual_seed(seed), words, dim, std=1 / math.sqrt(dim))  # w, [N, D]
    word = embeddings * (math.sqrt(dim) if scaled else 1.0)  # c·w, [N, D]
    pe = sinusoidal(length, dim, base, dtype=torch.float64)  # [L, D]
    cross = word @ pe.T  # c·w·PE(p), [N, L]
    word_sq, pe_sq = word.pow(2).sum(-1)[:, None], pe.pow(2).sum(-1)[None]  # |c·w|² [N, 1], |PE(p)|² [1, L]
    norm_x = (word_sq + 2 * cross + pe_sq).sqrt()  # |x|, [N, L]
    cos_word = (word_sq + cross) / (norm_x * word_sq.sqrt())
    cos_position = (cross + pe_sq) / (norm_x * pe_sq.sqrt())
    share = word_sq / norm_x.pow(2)
    return {"cos_word": cos_word.mean().item(), "cos_position": cos_position.mean().item(),
            "word_share": share.mean().item()}  # fmt: skip


def rope_decay_bound_by_blocks(distances: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """:func:`posenc.decay.rope_decay_bound_at` (same values to ~1e-12) without an [R, P] table or trig per entry.

    The partial sums S_j grow one pair at a time (S_{j+1} = S_j + e^{i·r·θ_j}, a vector over the distances that
    stays in cache) and e^{i·r·θ_j} comes from two small tables by angle addition (:class:`_Rotations`).
    Shapes: distances [R], inv_freq [P] -> [R] float64. Source: arXiv 2104.09864 §3.4.3.
    """
    distances, inv_freq = _distances(distances), _frequencies(inv_freq)
    if distances.numel() == 0 or inv_freq.numel() == 0:
        return torch.zeros(distances.shape, dtype=torch.float64)
    rotations = _rotations(distances.numpy(), inv_freq.numpy())
    partial_sum = np.zeros(rotations.size, dtype=np.complex128)  # S_j(r), growing with j
    total = np.zeros(rotations.size)  # Σ_j |S_j(r)|
    magnitude = np.empty(rotations.size)
    for pair in range(inv_freq.numel()):
        partial_sum += rotations.row(pair)  # S_{j+1}(r) = S_j(r) + e^{i·r·θ_j}
        total += np.abs(partial_sum, out=magnitude)
    # (1/P) Σ_j |S_j(r)|
    return torch.from_numpy(rotations.pick(total) / inv_freq.numel())


def rope_ones_score_by_blocks(distances: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """:func:`posenc.decay.rope_ones_score_at` (s(r) = 2 Σ_i cos(r·θ_i), same values to ~1e-12) by angle addition
    (:class:`_Rotations`). Shapes: distances [R], inv_freq [P] -> [R] float64."""
    distances, inv_freq = _distances(distances), _frequencies(inv_freq)
    return torch.from_numpy(2 * _cosine_sums(distances.numpy(), inv_freq.numpy()))


def rope_random_score_moments_by_blocks(
    dim: int, base: float = 10000.0, max_distance: int = 256, similarity: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`posenc.decay.rope_random_score_moments` (E[s(r)] = 2ρ Σ_i cos(r·θ_i), Var[s(r)] = D + 2ρ² Σ_i
    cos(2r·θ_i); same values to ~1e-12) with the cosine sums by angle addition (:class:`_Rotations`).
    Shapes: -> (mean [max_distance + 1], std [max_distance + 1]) float64."""
    dim = _checks.even_dim("dim", dim)
    distances = np.arange(_checks.non_negative_int("max_distance", max_distance) + 1)
    similarity = _similarity(similarity)
    freqs = rope_inv_freq(dim, base, dtype=torch.float64).numpy()
    mean = 2 * similarity * _cosine_sums(distances, freqs)
    variance = dim + 2 * similarity**2 * _cosine_sums(distances, 2 * freqs)
    return torch.from_numpy(mean), torch.from_numpy(np.sqrt(np.maximum(variance, 0.0)))


class _Rotations:
    """e^{i·r·θ_k} for integer distances r = a·B + b, B = ⌊√r_max⌋ + 1, by angle addition from two small tables:
    e^{i·r·θ_k} = e^{i·aB·θ_k} · e^{i·b·θ_k}. Builds P·(A + B) complex numbers instead of R·P, with no trig per
    entry. When the distances are 0 … r_max (``dense``) the results cover the A·B ≥ R distances 0 … A·B − 1 and
    :meth:`pick` keeps the asked ones; otherwise they follow ``distances``.
    """

    _TABLE_LIMIT = 2**22  # sparse distances: a [P, R] table up to this many entries (64 MB) is built at once

    def __init__(self, distances: np.ndarray, freqs: np.ndarray):
        top = int(distances.max())
        self.width = math.isqrt(top) + 1  # B: B² > r_max
        self.rows = top // self.width + 1  # A: A·B > r_max
        self.coarse = _unit(np.outer(freqs, self.width * np.arange(self.rows)))  # e^{i·aB·θ_k}, [P, A]
        self.fine = _unit(np.outer(freqs, np.arange(self.width)))  # e^{i·b·θ_k}, [P, B]
        self.dense = distances.size == top + 1 and bool((distances == np.arange(top + 1)).all())
        self.count = distances.size
        self.a, self.b = np.divmod(distances, self.width)
        self.size = self.rows * self.width if self.dense else distances.size
        self._buffer = np.empty((self.rows, self.width), dtype=np.complex128)
        self._table = None
        if not self.dense and freqs.size * distances.size <= self._TABLE_LIMIT:
            # e^{i·r·θ_k}, [P, R]
            self._table = np.take(self.coarse, self.a, axis=1) * np.take(self.fine, self.b, axis=1)

    def row(self, pair: int) -> np.ndarray:
        """e^{i·r·θ_pair} at every distance, [size] complex128 (a reused buffer when dense: read it, don't keep it)."""
        if self.dense:
            return np.multiply.outer(self.coarse[pair], self.fine[pair], out=self._buffer).reshape(-1)
        if self._table is not None:
            return self._table[pair]
        return self.coarse[pair].take(self.a) * self.fine[pair].take(self.b)

    def real_sums(self, weights: np.ndarray) -> np.ndarray:
        """Re Σ_k w_k · e^{i·r·θ_k} for each row of ``weights`` [S, P] complex, at the asked distances: [S, R]."""
        weights = np.asarray(weights, dtype=np.complex128)
        w_re, w_im = np.ascontiguousarray(weights.real), np.ascontiguousarray(weights.imag)  # BLAS needs contiguous
        if not self.dense:
            table = self._table if self._table is not None else np.stack([self.row(k) for k in range(weights.shape[1])])
            return _matmul(w_re, np.ascontiguousarray(table.real)) - _matmul(w_im, np.ascontiguousarray(table.imag))
        c_re, c_im = np.ascontiguousarray(self.coarse.real.T), np.ascontiguousarray(self.coarse.imag.T)  # [A, P]
        f_re, f_im = np.ascontiguousarray(self.fine.real), np.ascontiguousarray(self.fine.imag)  # [P, B]
        samples, pairs = weights.shape
        out = np.empty((samples, self.rows, self.width))
        chunk = max(1, 2**20 // max(1, weights.size))  # coarse rows at once: keeps [S, chunk, P] near 8 MB
        for start in range(0, self.rows, chunk):
            rows = slice(start, start + chunk)
            # g = w_k · e^{i·aB·θ_k}, [S, chunk, P]
            g_re = w_re[:, None, :] * c_re[None, rows] - w_im[:, None, :] * c_im[None, rows]
            g_im = w_re[:, None, :] * c_im[None, rows] + w_im[:, None, :] * c_re[None, rows]
            # Re Σ_k g_k · e^{i·b·θ_k} as two real matrix products, [S·chunk, B]
            block = _matmul(g_re.reshape(-1, pairs), f_re) - _matmul(g_im.reshape(-1, pairs), f_im)
            out[:, rows] = block.reshape(samples, -1, self.width)
        return self.pick(out.reshape(samples, -1))

    def pick(self, values: np.ndarray) -> np.ndarray:
        """Values over this table's distances ([..., size]) at the asked distances ([..., R])."""
        return values[..., : self.count] if self.dense else values


def _unit(angles: np.ndarray) -> np.ndarray:
    """e^{i·angle} (cos and sin separately: numpy's complex exp is several times slower for large angles)."""
    out = np.empty(angles.shape, dtype=np.complex128)
    out.real, out.imag = np.cos(angles), np.sin(angles)
    return out


def _matmul(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """left @ right through torch, which keeps to torch's thread setting (the server's one thread); numpy's BLAS
    starts its own threads, which stall for tens of milliseconds on a busy machine."""
    return (torch.from_numpy(left) @ torch.from_numpy(right)).numpy()


def _rotations(distances: np.ndarray, freqs: np.ndarray) -> _Rotations:
    return _Rotations(np.asarray(distances, dtype=np.int64), np.asarray(freqs, dtype=np.float64))


def _cosine_sums(distances: np.ndarray, freqs: np.ndarray) -> np.ndarray:
    """Σ_i cos(r·θ_i) at each distance: [R] float64 (0 for no frequencies)."""
    if distances.size == 0 or freqs.size == 0:
        return np.zeros(distances.shape)
    return _rotations(distances, freqs).real_sums(np.ones((1, freqs.size), dtype=np.complex128))[0]


XL_VIEWS = ("relative", "absolute")  # the two scores of XLIllustration: Transformer-XL's, and that of x + U


def xl_illustration_view_by_vocabulary(
    view: str, length: int, dim: int, base: float = 10000.0, seed: int = 0, vocab: int = 8
) -> ScoreTerms:
    """One view of :func:`posenc.transformer_xl.xl_illustration` (``.relative`` or ``.absolute``: the same draws,
    the same terms to ~1e-12), computing only that view and reading each [D, D] weight at most once: the V
    embeddings are projected once (W_q E, W_k E: V = 8 rows, not L) and picked by token, with the positions U in the
    same pass for the absolute view; Transformer-XL's (b) and (d) apply W_{k,R} on the query's side,
    q_iᵀ(W_{k,R} R_r) = (q_iᵀ W_{k,R}) R_r, to the V projected embeddings and v in one pass (a query is its token's
    projected embedding). Source: arXiv 1901.02860 §3.3.
    """
    view = _checks.choice("view", view, XL_VIEWS)
    # the same draws, the three [D, D] weights N(0, 1) here (views, not copies): their 1/√D is applied to what they
    # project, (W/√D)·x = (W·x)/√D, up to rounding
    embeddings, w_q, w_k, w_kr, u, v, tokens = illustration_draws(length, dim, seed, vocab, weights_scaled=False)
    scale = 1.0 / math.sqrt(dim)
    rows = embeddings  # E, [V, D]
    if view == "absolute":  # and the positions U (the sinusoid, concat layout), [L, D]: [V + L, D]
        rows = torch.cat((embeddings, sinusoidal(length, dim, base, layout="concat", dtype=torch.float64)))
    # W_q and W_k applied to each embedding once (and to each position): [V (+ L), D] x [D, D]ᵀ -> [1, V (+ L), D]
    q_rows, k_rows = (rows @ w_q[0].T * scale)[None], (rows @ w_k[0].T * scale)[None]
    q, k = q_rows[:, tokens], k_rows[:, tokens]  # q_i = W_q E_{x_i}, k_j = W_{k,E} E_{x_j}: [1, L, D]
    a = q @ k.transpose(-1, -2) * scale  # (a) q_i·k_j, [1, L, L]

    if view == "absolute":  # x + U: the three terms that hold a projected position U
        q_position, k_position = q_rows[:, vocab:], k_rows[:, vocab:]  # W_q U_i, W_k U_j: [1, L, D]
        b = q @ k_position.transpose(-1, -2) * scale  # W_q x_i · W_k U_j
        c = q_position @ k.transpose(-1, -2) * scale  # W_q U_i · W_k x_j
        d = q_position @ k_position.transpose(-1, -2) * scale  # W_q U_i · W_k U_j
        return ScoreTerms(a, b, c, d, a + b + c + d)

    # Transformer-XL: R_r for every offset r = i − j, [N, D], and the row entry (i, j) reads, [L, L]
    table = xl_relative_encoding(torch.arange(-(length - 1), length), dim, base, torch.float64)
    index = torch.arange(length)[:, None] - torch.arange(length)[None, :] + (length - 1)
    # (W_q E_v)ᵀ W_{k,R} for each of the V embeddings and vᵀ W_{k,R}, in one pass: [1, V + 1, D] x [1, D, D], then
    # x Rᵀ -> [1, V + 1, N]; query i reads its token's row (V + 1 rows through W_{k,R}, not L + 1)
    by_offset = (torch.cat((q_rows[:, :vocab], v[:, None, :]), dim=1) @ w_kr * scale) @ table.T
    b = torch.gather(by_offset[:, tokens], -1, index[None]) * scale  # (b) q_iᵀ W_{k,R} R_{i−j}
    c = torch.einsum("hd,hkd->hk", u, k)[:, None, :].expand_as(a) * scale  # (c) u·k_j, the same for every query i
    d = by_offset[:, vocab][:, index] * scale  # (d) vᵀ W_{k,R} R_{i−j}: one number per offset, on the diagonals
    return ScoreTerms(a, b, c, d, a + b + c + d)


class NoPEDrawn(NamedTuple):
    """What the NoPE page draws of one :class:`posenc.nope.NoPEDemo`."""

    window: torch.Tensor  # α_ij for i, j < W, [W, W]
    first: torch.Tensor  # α_i0, the weight on the first token, [L]
    distance: torch.Tensor  # max_d |o_i,d − o_{L−1},d| (posenc.nope.distance_from_last), [L]


def nope_drawn_both_ways(
    length: int,
    dim: int = 16,
    distinct_first: bool = True,
    first_logit_gap: float = 0.0,
    window: int = 48,
    seed: int = 0,
) -> tuple[NoPEDrawn, NoPEDrawn]:
    """What the page draws of :func:`posenc.nope.nope_identical_tokens`, causal and not (the same numbers to
    rounding), from the demo's structure instead of [L, L] products: the tokens are [f, x, x, …, x], so with
    s_ab = a·b/√D the row of a query x reads s_xf on key 0 and s_xx on every other key, and the first query's row
    s_ff, then s_fx. Row i then weighs key 0 by α_i0 = e^{s_xf} / (e^{s_xf} + n_i·e^{s_xx}), where n_i keys are x
    (i causal, L − 1 not), and o_i = α_i0 f + (1 − α_i0) x, the rest of the weight on x: its distance from the last
    output is |α_i0 − α_{L−1,0}|·‖f − x‖_∞ (O(L + D), no [L, D] outputs).
    Returns: (causal, bidirectional). Source: arXiv 2203.16634 §5.
    """
    length = nope_length(length)
    f, x = nope_first_and_x(dim, distinct_first, first_logit_gap, seed)  # the first token and x: [D] each
    window = min(_checks.positive_int("window", window), length)
    scale = 1.0 / math.sqrt(dim)
    s_ff, s_fx, s_xx = (f @ f) * scale, (f @ x) * scale, (x @ x) * scale
    positions = torch.arange(length, dtype=torch.float64)
    apart = (f - x).abs().max()  # ‖f − x‖_∞
    drawn = []
    for causal in (True, False):
        others = positions if causal else torch.full((length,), length - 1.0, dtype=torch.float64)  # x keys a row reads
        top = torch.maximum(s_fx, s_xx)
        on_first, on_x = torch.exp(s_fx - top), torch.exp(s_xx - top)  # a query x: key 0, every other key
        first = on_first / (on_first + others * on_x)  # α_i0, [L]
        each = on_x / (on_first + others * on_x)  # α_ij on each x key j ≥ 1 that row i reads, [L]
        top0 = torch.maximum(s_ff, s_fx)  # the first query: key 0 is f itself
        self0, each0 = torch.exp(s_ff - top0), torch.exp(s_fx - top0)
        first[0] = self0 / (self0 + others[0] * each0)
        each[0] = each0 / (self0 + others[0] * each0)
        rows = torch.arange(window)[:, None]
        keys = torch.arange(window)[None, :]
        weights = torch.where(keys == 0, first[:window, None], each[:window, None].expand(window, window))
        if causal:
            weights = torch.where(keys > rows, torch.zeros((), dtype=torch.float64), weights)  # nothing after i
        # o_i = α_i0 f + (1 − α_i0) x, so o_i − o_{L−1} = (α_i0 − α_{L−1,0})(f − x): no [L, D] outputs
        drawn.append(NoPEDrawn(weights, first, (first - first[-1]).abs() * apart))
    return drawn[0], drawn[1]


def rope_signed_scores_by_phase(
    q: torch.Tensor,
    k: torch.Tensor,
    q_positions: torch.Tensor,
    k_positions: torch.Tensor,
    q_sign: int = 1,
    k_sign: int = 1,
    base: float = 10000.0,
    layout: str = "half",
) -> torch.Tensor:
    """:func:`posenc.rope_variants.rope_signed_scores` (the same to ~1e-13) as its closed form,
    s_t = Re Σ_i q̃_i conj(k̃_i) e^{i φ_t θ_i} with φ_t = σ_q m_t − σ_k n_t, evaluated once per distinct φ: no [T, D]
    rotations, and a relative convention (φ = ±(m − n), the same at every shift) costs one row.
    Shapes: q, k [D], q_positions [T], k_positions [T] -> [T] float64. Source: arXiv 2104.09864 §3.2.
    """
    q, k, q_positions, k_positions, q_sign, k_sign = signed_inputs(q, k, q_positions, k_positions, q_sign, k_sign)
    pairs = to_complex_pairs(q, layout) * to_complex_pairs(k, layout).conj()  # q̃_i conj(k̃_i), [P]
    phases, where = torch.unique(q_sign * q_positions - k_sign * k_positions, return_inverse=True)  # φ: [U], [T]
    angles = phases.to(torch.float64)[:, None] * rope_inv_freq(q.shape[0], base, dtype=torch.float64)  # φθ_i, [U, P]
    # Re(z e^{iα}) = Re z cos α − Im z sin α, summed over the pairs: [U], then one per t
    return (pairs.real * torch.cos(angles) - pairs.imag * torch.sin(angles)).sum(dim=-1)[where]
