"""NoPE under a causal mask: a decoder without positional encoding can still tell positions apart.

Shape letters: L = sequence length, D = embedding dimension.

Haviv et al. 2022 (arXiv 2203.16634 §4–5): with identical tokens, bidirectional attention sees the same set of keys
from every position, so every position gets the same output. Under a causal mask, position i sees only keys 0 … i,
i + 1 of them: with a distinct first token (a start token <s>) and equal scores, the weight on it is 1/(i + 1), and
the output o_i = α_i0·v_<s> + (1 − α_i0)·v_x changes with i. Later layers can read the position from it.

The demonstration uses no projections (q = k = v = the token embedding), which changes nothing essential; the
first token is e_<s> = e_x·(1 + g·√D / |e_x|²) + z with z ⟂ e_x, so its score from an x query is exactly g higher
than an x key's (g = ``first_logit_gap``) while its value still differs. Scores and weights come from
:func:`posenc.attention.attention_scores` and :func:`posenc.attention.attention_weights` (method ``"none"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posenc import _checks
from posenc._random import gaussian
from posenc.attention import attention_scores, attention_weights


@dataclass(frozen=True)
class NoPEDemo:
    """Attention weights [L, L] and outputs [L, D] of one content-only attention over [first, x, x, …, x]."""

    weights: torch.Tensor  # α_ij, [L, L]
    outputs: torch.Tensor  # o_i = Σ_j α_ij v_j, [L, D]


def nope_tokens(length: int, dim: int, distinct_first: bool = True, first_logit_gap: float = 0.0, seed: int = 0):
    """The embeddings of [first, x, x, …, x]: e_x ~ N(0, 1)^D seeded, e_first = e_x·(1 + g√D/|e_x|²) + z, z ⟂ e_x.

    ``distinct_first=False``: every token is x (the first one too). Returns: [L, D] float64.
    """
    length = nope_length(length)
    first, e_x = nope_first_and_x(dim, distinct_first, first_logit_gap, seed)
    tokens = e_x.expand(length, dim).clone()  # [L, D]
    tokens[0] = first
    return tokens


def nope_length(length: int) -> int:
    """``length`` checked for :func:`nope_tokens`: a whole number, at least 2 (a first token and one more)."""
    length = _checks.positive_int("length", length)
    if length < 2:
        raise ValueError(f"length must be at least 2 (a first token and one more); got {length}.")
    return length


def nope_first_and_x(dim: int, distinct_first: bool = True, first_logit_gap: float = 0.0, seed: int = 0):
    """The two distinct embeddings of :func:`nope_tokens`: (e_first, e_x), [D] float64 each (equal when not
    ``distinct_first``)."""
    dim = _checks.positive_int("dim", dim)
    if dim < 2:
        raise ValueError(f"dim must be at least 2 (the first token differs in a second direction); got {dim}.")
    gap = _checks.finite_float("first_logit_gap", first_logit_gap)
    generator = torch.Generator().manual_seed(_checks.non_negative_int("seed", seed))
    e_x, other = gaussian(generator, 2, dim)  # [D] each
    if not distinct_first:
        return e_x, e_x
    # z = the part of a random vector orthogonal to e_x, scaled to the length of e_x
    z = other - (other @ e_x) / (e_x @ e_x) * e_x
    z = z * (e_x.norm() / z.norm())
    # e_first · e_x = |e_x|² + g√D, so (e_first · e_x)/√D is g above (e_x · e_x)/√D
    return e_x * (1.0 + gap * math.sqrt(dim) / (e_x @ e_x)) + z, e_x


def nope_identical_tokens(
    length: int,
    dim: int = 16,
    causal: bool = True,
    distinct_first: bool = True,
    first_logit_gap: float = 0.0,
    seed: int = 0,
) -> NoPEDemo:
    """α = softmax(q kᵀ/√D) (causal or not) over [first, x, …, x] with q = k = v = the embeddings; o = α v.

    Shapes: -> weights [L, L], outputs [L, D] (float64). Source: arXiv 2203.16634 §5.
    """
    tokens = nope_tokens(length, dim, distinct_first, first_logit_gap, seed)  # [L, D]
    q = k = v = tokens[None]  # one head, [1, L, D]
    scores = attention_scores(q, k, "none", causal=causal)  # q_i·k_j/√D, masked above the diagonal if causal
    weights = attention_weights(scores, causal=causal)[0]  # [L, L]
    # o_i = Σ_j α_ij v_j: [L, L] x [L, D] -> [L, D]
    return NoPEDemo(weights, weights @ v[0])


def causal_first_token_weight(length: int, first_logit_gap: float = 0.0) -> torch.Tensor:
    """The weight a causal x query at position i puts on the first token: e^g / (e^g + i) (1/(i + 1) when g = 0).

    Row 0 is the first token itself (weight 1). Returns: [L] float64. Source: arXiv 2203.16634 §5.
    """
    length = _checks.positive_int("length", length)
    gap = _checks.finite_float("first_logit_gap", first_logit_gap)
    # position i sees the first token (score g higher) and i copies of x: e^g / (e^g + i·e^0)
    return math.exp(gap) / (math.exp(gap) + torch.arange(length, dtype=torch.float64))


def distance_from_last(outputs: torch.Tensor) -> torch.Tensor:
    """How far each position's output is from the last position's: ‖o_i − o_{L−1}‖_∞. Returns: [L].

    All zeros (from position 1 on) means the positions cannot be told apart from their outputs.
    """
    if outputs.dim() != 2:
        raise ValueError(f"outputs must have shape [length, dim]; got {tuple(outputs.shape)}.")
    # max_d |o_i,d − o_{L−1},d|
    return (outputs - outputs[-1]).abs().amax(dim=-1)
