"""How far RoPE's rotation is off when the angle m·θ_i is computed in a low-precision dtype.

An implementation that builds the angles in the model's dtype computes φ̃ = fl(fl(m)·fl(θ_i)) there: in bfloat16 (8
significant bits) the position itself is rounded to a multiple of 2^(⌊log2 m⌋ − 7) (4 096 near 10⁶), float16 holds no
position past 65 504, and even float32 (24 bits) is off by up to about m·θ_i·2⁻²⁴ (θ_i and the product each rounded
once; about half that on average). Reference implementations compute the angles in float32: Hugging Face's rotary
embeddings multiply ``position_ids.float()`` by ``inv_freq`` elementwise (which autocast leaves in float32) and round
only cos and sin to the model's dtype, some 6·10⁻⁴ rad in bfloat16, an error that does not grow with m; Meta's
``precompute_freqs_cis`` / ``apply_rotary_emb`` rotate q and k in complex64 and round the rotated vectors instead.
Every number here comes from torch's own dtypes; the exact angle is float64. Shape letters: M = positions, P = pairs.
"""

from __future__ import annotations

import math

import torch

from posenc import _checks

PRECISION_MODES = ("bfloat16", "float16", "float32", "float32_then_bfloat16")  # the last: HF's bf16 models
_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}


def wrapped(angle: torch.Tensor) -> torch.Tensor:
    """An angle difference brought into (−π, π]: (a + π) mod 2π − π."""
    return torch.remainder(angle + math.pi, 2 * math.pi) - math.pi


def rope_angle_error(positions: torch.Tensor, inv_freq: torch.Tensor, mode: str) -> torch.Tensor:
    """|φ̃ − m·θ_i| wrapped to [0, π]: the error of each pair's rotation angle at each position when computed in
    ``mode`` (a dtype name: φ̃ = fl(m)·fl(θ_i) in it; ``"float32_then_bfloat16"``: φ in float32, then cos φ and sin φ
    rounded to bfloat16, φ̃ = atan2 of them). NaN where the dtype cannot hold the position (float16 past 65 504).
    Shapes: positions [M] (integers), inv_freq [P] -> [M, P] float64 radians."""
    mode = _checks.choice("mode", mode, PRECISION_MODES)
    exact = positions.to(torch.float64)[:, None] * inv_freq.to(torch.float64)  # m·θ_i, [M, P]
    if mode == "float32_then_bfloat16":
        angle = positions.to(torch.float32)[:, None] * inv_freq.to(torch.float32)
        cos, sin = angle.cos().to(torch.bfloat16), angle.sin().to(torch.bfloat16)
        approx = torch.atan2(sin.to(torch.float64), cos.to(torch.float64))
    else:
        dtype = _DTYPES[mode]
        approx = (positions.to(dtype)[:, None] * inv_freq.to(dtype)).to(torch.float64)
    error = wrapped(approx - exact).abs()
    return torch.where(torch.isfinite(approx), error, torch.nan)


def rope_pair_angle_error(start: int, inv_freq: torch.Tensor, mode: str, window: int = 256) -> torch.Tensor:
    """Mean |angle error| of each pair over the positions start … start + window − 1 (NaN where any position
    overflows the dtype). Shapes: inv_freq [P] -> [P] float64 radians."""
    start = _checks.positive_int("start", start)
    window = _checks.positive_int("window", window)
    positions = torch.arange(start, start + window, dtype=torch.int64)
    return rope_angle_error(positions, inv_freq, mode).mean(dim=0)


def position_as_stored(position: int, mode: str) -> float:
    """The position an implementation actually rotates by when it holds m in ``mode``'s dtype (float32 for
    ``"float32_then_bfloat16"``): fl(m), inf past the dtype's range."""
    mode = _checks.choice("mode", mode, PRECISION_MODES)
    dtype = torch.float32 if mode == "float32_then_bfloat16" else _DTYPES[mode]
    return torch.tensor(position, dtype=torch.int64).to(dtype).item()
