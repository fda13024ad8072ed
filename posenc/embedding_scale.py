"""Vaswani et al. (2017, §3.4) multiply the token embedding by √d_model before adding the sinusoid: how much of
x = c·w + PE(p) is the word and how much the position, with and without that factor.

The embedding is drawn as tensor2tensor initialises it, w ~ N(0, I/d) (standard deviation d^(−1/2), so |w| ≈ 1),
and PE(p) is the sinusoid, |PE(p)|² = d/2 exactly (one sin² + cos² = 1 per pair). Without the factor (c = 1) the
position outweighs the word by √(d/2); with c = √d, |c·w| ≈ √d and the two are of one size: x keeps both, which is
what "add instead of concatenate" relies on. Shape letters: N = words, L = positions.
"""

from __future__ import annotations

import math

import torch

from posenc import _checks
from posenc._random import gaussian
from posenc.absolute import sinusoidal


def word_position_mix(dim: int, scaled: bool, words: int = 256, length: int = 64, base: float = 10000.0,
                      seed: int = 0) -> dict[str, float]:  # fmt: skip
    """Means over ``words`` random embeddings w ~ N(0, I/d) and positions 0 … length − 1 of cos(x, c·w),
    cos(x, PE(p)) and the word's share |c·w|² / |x|², x = c·w + PE(p), c = √d when ``scaled`` else 1."""
    dim = _checks.even_dim("dim", dim)
    embeddings = gaussian(torch.Generator().manual_seed(seed), words, dim, std=1 / math.sqrt(dim))  # w, [N, D]
    word = embeddings * (math.sqrt(dim) if scaled else 1.0)  # c·w, [N, D]
    pe = sinusoidal(length, dim, base, dtype=torch.float64)  # [L, D]
    x = word[:, None, :] + pe[None, :, :]  # [N, L, D]
    norm_x = x.norm(dim=-1)
    cos_word = (x * word[:, None, :]).sum(-1) / (norm_x * word.norm(dim=-1)[:, None])
    cos_position = (x * pe[None]).sum(-1) / (norm_x * pe.norm(dim=-1)[None])
    share = word.pow(2).sum(-1)[:, None] / norm_x.pow(2)
    return {"cos_word": cos_word.mean().item(), "cos_position": cos_position.mean().item(),
            "word_share": share.mean().item()}  # fmt: skip
