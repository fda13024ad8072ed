"""Attention temperature: multiplying the logits by τ > 1 as the context grows, so that one matching key keeps its
share of a softmax over ever more keys.

A query that matches one of n keys by a logit gap g over the n − 1 others (logit 0) gives it the weight
w = e^(τg) / (e^(τg) + n − 1): without a temperature (τ = 1) the weight halves once n − 1 ≈ e^g, whatever the model
learned (the page's n: the number of keys, the query's own position p counted from 1). Three published
temperatures, as multipliers τ(p) of the logits of the query at position p (1 = the first token; a temperature t in
the usual sense divides the logits, so τ = 1/t):
- YaRN (Peng et al. 2023, arXiv 2309.00071 §3.4): √(1/t) = 0.1·ln s + 1 on cos and sin, so τ = (0.1·ln s + 1)², the
  same at every position, s the context's scale factor;
- Qwen's ``logn`` (Qwen-7B's ``use_logn_attn``): the query times log_L(p) past the training length L,
  τ = max(1, ln p / ln L);
- Llama 4's ``attn_temperature_tuning`` (NoPE layers only): τ = 1 + attn_scale·ln(1 + ⌊p/floor_scale⌋),
  attn_scale = 0.1, floor_scale = 8192 (transformers ``Llama4TextAttention``).
"""

from __future__ import annotations

import math

import torch

from posenc import _checks

TEMPERATURES = ("none", "yarn", "logn", "llama4")


def logit_temperature(positions: torch.Tensor, kind: str, training_length: int = 4096, factor: float = 32.0,
                      attn_scale: float = 0.1, floor_scale: int = 8192) -> torch.Tensor:  # fmt: skip
    """τ(p) of ``kind`` for 1-based query positions p (see the module docstring). Shapes: positions [N] -> [N]
    float64."""
    kind = _checks.choice("kind", kind, TEMPERATURES)
    trained = _checks.positive_int("training_length", training_length)
    p = positions.to(torch.float64)
    if kind == "none":
        return torch.ones_like(p)
    if kind == "yarn":
        factor = _checks.finite_float("factor", factor)
        return torch.full_like(p, (0.1 * math.log(factor) + 1.0) ** 2 if factor > 1 else 1.0)
    if kind == "logn":
        return torch.where(p > trained, p.log() / math.log(trained), torch.ones_like(p)) if trained > 1 else p * 0 + 1
    return 1.0 + attn_scale * torch.log1p(torch.floor(p / floor_scale))


def weight_on_match(keys: torch.Tensor, gap: float, temperature: torch.Tensor) -> torch.Tensor:
    """Softmax weight on the one key whose logit is ``gap`` above ``keys − 1`` others at logit 0, all logits times
    τ: w = 1 / (1 + (keys − 1)·e^(−τ·gap)). Shapes: keys [N] (≥ 1), temperature [N] -> [N] float64."""
    gap = _checks.finite_float("gap", gap)
    others = keys.to(torch.float64) - 1
    return torch.sigmoid(temperature.to(torch.float64) * gap - torch.log(others.clamp(min=1e-300))).where(
        others > 0, torch.ones_like(others)
    )
