"""Long-range behaviour of RoPE: how scores fade with distance, which pairs turn within a context, and how the
context-extension methods move the frequencies and the decay.

Shape letters: P = D/2 rotation pairs, R = number of distances, S = random samples. Distances are r = m − n ≥ 0
(scores depend on m − n only). Pair i turns at θ_i = base^(−2i/D); its wavelength is λ_i = 2π/θ_i positions.

Sources: Su et al., "RoFormer", arXiv 2104.09864 §3.4.3 (long-term decay, Figure 2); Barbero et al., "Round and
Round We Go! What makes Rotary Positional Encodings useful?", arXiv 2410.06205 §3 (random q, k do not decay on
average); Peng et al., "YaRN", arXiv 2309.00071 §3.2 (wavelengths against the training context), §3.3 (Dynamic NTK).
"""

from __future__ import annotations

import math

import torch

from posenc import _checks
from posenc._random import gaussian
from posenc.rope import rope_angles, rope_inv_freq, rope_relative_scores
from posenc.rope_scaling import ROPE_SCALING_METHODS, rope_scaled_inv_freq

CONTEXT_METHODS = ("original", *ROPE_SCALING_METHODS)
DECAY_KINDS = ("bound", "ones")


def rope_wavelengths(inv_freq: torch.Tensor) -> torch.Tensor:
    """Wavelength of each pair in positions: λ_i = 2π / θ_i (how far apart two tokens are when pair i has made one
    full turn). Shapes: inv_freq [P] -> [P] float64. Source: arXiv 2309.00071 §3.2 (eq. 13)."""
    inv_freq = _frequencies(inv_freq)
    return 2 * math.pi / inv_freq


def full_turn_pairs(inv_freq: torch.Tensor, length: int) -> torch.Tensor:
    """Which pairs make at least one full turn inside a context of ``length`` tokens: (length − 1)·θ_i ≥ 2π.

    The largest distance in a context of L tokens is L − 1. Pairs that never complete a turn were only ever seen at
    a fraction of their circle during training (YaRN's "r < 1" pairs). Shapes: inv_freq [P] -> [P] bool.
    Source: arXiv 2309.00071 §3.2.
    """
    length = _checks.positive_int("length", length)
    # (L − 1)·θ_i ≥ 2π  ⇔  λ_i ≤ L − 1
    return (length - 1) * _frequencies(inv_freq) >= 2 * math.pi


def distance_grid(max_distance: int, max_points: int = 2048) -> torch.Tensor:
    """Distances 0 … max_distance at which to evaluate a curve: every integer when they fit in ``max_points``,
    otherwise geometrically spaced integers (dense near 0, sparse far away: even on a log axis).

    Returns: [R] int64, strictly increasing, from 0 to max_distance, R ≤ max_points.
    """
    max_distance = _checks.non_negative_int("max_distance", max_distance)
    max_points = _checks.positive_int("max_points", max_points)
    if max_points < 3:
        raise ValueError(f"max_points must be at least 3 (0, 1 and the last distance); got {max_points}.")
    if max_distance + 1 <= max_points:
        return torch.arange(max_distance + 1)
    # 0, then round(max_distance^(j / (n − 2))) for j = 0 … n − 2; roundings that coincide near 0 are merged
    geometric = torch.logspace(0, math.log10(max_distance), max_points - 1, dtype=torch.float64)
    return torch.cat((torch.zeros(1, dtype=torch.float64), torch.unique(torch.round(geometric)))).long()


def rope_decay_bound_at(distances: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """RoFormer's relative upper bound at chosen distances and any frequencies: (1/P) Σ_{j=1}^{P} |S_j(r)|,
    S_j(r) = Σ_{k<j} e^{i·r·θ_k}.

    :func:`posenc.rope_decay_bound` for scaled frequencies (``inv_freq`` from :func:`posenc.rope_scaled_inv_freq`)
    and sparse distances. Shapes: distances [R], inv_freq [P] -> [R] float64. Source: arXiv 2104.09864 §3.4.3.
    """
    distances, inv_freq = _distances(distances), _frequencies(inv_freq)
    angles = rope_angles(distances, inv_freq)  # r·θ_k, [R, P]
    # S_j(r) = Σ_{k<j} e^{i·r·θ_k}: running sums over the pairs of its real and imaginary parts, [R, P] each
    real, imaginary = torch.cos(angles).cumsum(dim=-1), torch.sin(angles).cumsum(dim=-1)
    # (1/P) Σ_j |S_j(r)|, [R]
    return torch.hypot(real, imaginary).mean(dim=-1)


def rope_ones_score_at(distances: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """The score of q = k = all ones at distance r: s(r) = Σ_i |1 + i|²·cos(r·θ_i) = 2 Σ_i cos(r·θ_i).

    Each pair of an all-ones vector is the complex number 1 + i (either layout), so every pair adds 2·cos(r·θ_i).
    Shapes: distances [R], inv_freq [P] -> [R] float64. Source: arXiv 2104.09864 §3.4.3.
    """
    distances, inv_freq = _distances(distances), _frequencies(inv_freq)
    # 2 Σ_i cos(r·θ_i): [R, P] summed over the pairs
    return 2 * torch.cos(rope_angles(distances, inv_freq)).sum(dim=-1)


def far_half_ones_score(inv_freq: torch.Tensor, length: int) -> float:
    """The all-ones score averaged over the far half of a context of L tokens: (1/|R|) Σ_{r=L/2}^{L} 2 Σ_i cos(r·θ_i).

    What is left, far away, of a score that starts at D for r = 0 (:func:`rope_ones_score_at`); a larger base keeps
    it high over a longer context. Shapes: inv_freq [P] -> a number. Source: arXiv 2104.09864 §3.4.3; the raised
    bases of Xiong et al., arXiv 2309.16039.
    """
    length = _checks.positive_int("length", length)
    return rope_ones_score_at(torch.arange(length // 2, length + 1), inv_freq).mean().item()


def rope_random_score_moments(
    dim: int,
    base: float = 10000.0,
    max_distance: int = 256,
    similarity: float = 0.0,
    inv_freq: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Exact mean and standard deviation of the rotated score s(r) = ⟨R_r q, k⟩ over random q, k, r = 0 … max_distance:
    E[s(r)] = 2ρ Σ_i cos(r·θ_i),  Var[s(r)] = D + 2ρ² Σ_i cos(2r·θ_i).

    The distribution of :func:`rope_random_score_stats` without sampling: q ~ N(0, I_D), k = ρ·q + √(1 − ρ²)·ε.
    Per pair h_i = q̃_i·conj(k̃_i) has E[Re h] = 2ρ, Var[Re h] = 2 + 2ρ², Var[Im h] = 2 − 2ρ², Cov = 0, and
    pairs are independent, so s(r) = Σ_i Re h_i·cos(rθ_i) − Im h_i·sin(rθ_i) has the moments above.
    Shapes: -> (mean [max_distance + 1], std [max_distance + 1]) float64. Source: arXiv 2410.06205 §3.
    """
    dim = _checks.even_dim("dim", dim)
    max_distance = _checks.non_negative_int("max_distance", max_distance)
    similarity = _similarity(similarity)
    freqs = rope_inv_freq(dim, base, dtype=torch.float64) if inv_freq is None else _frequencies(inv_freq)
    angles = rope_angles(torch.arange(max_distance + 1), freqs)  # r·θ_i, [R, P]
    # E[s(r)] = 2ρ Σ_i cos(r·θ_i)
    mean = 2 * similarity * torch.cos(angles).sum(dim=-1)
    # Var[s(r)] = Σ_i (2 + 2ρ²)·cos²(rθ_i) + (2 − 2ρ²)·sin²(rθ_i) = D + 2ρ² Σ_i cos(r·2θ_i)
    variance = dim + 2 * similarity**2 * torch.cos(2 * angles).sum(dim=-1)
    return mean, variance.clamp(min=0.0).sqrt()


def rope_random_score_stats(
    dim: int,
    base: float = 10000.0,
    max_distance: int = 256,
    similarity: float = 0.0,
    samples: int = 128,
    seed: int = 0,
    inv_freq: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and standard deviation over random pairs of the rotated score s(r) = ⟨R_r q, k⟩, r = 0 … max_distance.

    q ~ N(0, I_D) and k = ρ·q + √(1 − ρ²)·ε with ε ~ N(0, I_D) independent, ρ = ``similarity`` ∈ [0, 1] (the
    correlation of each feature of q and k). Then E[s(r)] = 2ρ Σ_i cos(r·θ_i): unrelated vectors (ρ = 0) have mean 0
    at every distance, with spread √D that does not shrink — the decay is an average over queries that resemble their
    keys. Deterministic for a given ``seed`` (its own torch.Generator; the global RNG is untouched).
    Shapes: -> (mean [max_distance + 1], std [max_distance + 1]) float64, std over ``samples`` with Bessel's
    correction. Source: arXiv 2104.09864 §3.4.3; arXiv 2410.06205 §3.
    """
    dim = _checks.even_dim("dim", dim)
    max_distance = _checks.non_negative_int("max_distance", max_distance)
    similarity = _similarity(similarity)
    samples = _checks.positive_int("samples", samples)
    if samples < 2:
        raise ValueError(f"samples must be at least 2 to measure a spread; got {samples}.")
    freqs = rope_inv_freq(dim, base, dtype=torch.float64) if inv_freq is None else _frequencies(inv_freq)
    if freqs.numel() != dim // 2:
        raise ValueError(f"inv_freq must hold dim/2 = {dim // 2} frequencies; got {freqs.numel()}.")
    generator = torch.Generator().manual_seed(_checks.non_negative_int("seed", seed))
    q = gaussian(generator, samples, dim)  # [S, D]
    noise = gaussian(generator, samples, dim)  # [S, D]
    # k = ρ·q + √(1 − ρ²)·ε: each feature of k has variance 1 and correlation ρ with q
    k = similarity * q + math.sqrt(1.0 - similarity**2) * noise
    # s(r) = Re Σ_i q̃_i·conj(k̃_i)·e^{i·r·θ_i} for each sample, [S, R]
    scores = rope_relative_scores(q, k, max_distance, inv_freq=freqs)
    return scores.mean(dim=0), scores.std(dim=0, correction=1)


def rope_context_extension(
    dim: int, base: float, trained_length: int, target_length: int
) -> dict[str, tuple[torch.Tensor, float]]:
    """The frequencies of every context-extension method for going from ``trained_length`` to ``target_length``.

    factor s = target_length / trained_length for "linear", "yarn" and "llama3". "dynamic" is Dynamic NTK as YaRN
    §3.3 defines it: NTK-aware base growth base' = base·(L/L_train)^(D/(D−2)) with L the current length, read here at
    L = target_length (below the training length it is the original). In Hugging Face's parameters that is
    factor = 1: a larger HF factor s grows the base faster, by (s·L/L_train − (s − 1)). With D = 2 the only pair has
    θ_0 = base^0 = 1 for every base, so a change of base leaves it unchanged. Keys: :data:`CONTEXT_METHODS`.
    Returns: {method: (inv_freq [P] float64, attention_factor)}. Source: :mod:`posenc.rope_scaling`.
    """
    dim = _checks.even_dim("dim", dim)
    trained = _checks.positive_int("trained_length", trained_length)
    target = _checks.positive_int("target_length", target_length)
    if target < trained:
        raise ValueError(
            f"target_length ({target}) must be at least the training length ({trained}): "
            "context extension makes the context longer, not shorter."
        )
    factor = target / trained
    result = {"original": (rope_inv_freq(dim, base, dtype=torch.float64), 1.0)}
    for method in ROPE_SCALING_METHODS:
        if method == "dynamic" and dim == 2:
            result[method] = result["original"]  # base'^0 = 1: rope_scaled_inv_freq would divide by D − 2 = 0
            continue
        # Dynamic NTK scales by the current length alone: HF factor 1 at seq_len = target gives s = target / trained
        method_factor = 1.0 if method == "dynamic" else factor
        result[method] = rope_scaled_inv_freq(
            dim, base, method, method_factor, original_max_position=trained, seq_len=target, dtype=torch.float64
        )
    return result


def rope_extension_decay(
    dim: int,
    base: float,
    trained_length: int,
    target_length: int,
    kind: str = "bound",
    max_points: int = 2048,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Decay curve of every context-extension method over distances 0 … target_length.

    ``kind="bound"``: the relative upper bound (:func:`rope_decay_bound_at`); ``kind="ones"``: the all-ones score
    (:func:`rope_ones_score_at`). Each is multiplied by attention_factor², because YaRN scales cos and sin (so both
    q and k) by its attention factor, which multiplies every logit by its square.
    Returns: (distances [R] int64 from :func:`distance_grid`, {method: [R] float64}). Source: module docstring.
    """
    kind = _checks.choice("kind", kind, DECAY_KINDS)
    curve = rope_decay_bound_at if kind == "bound" else rope_ones_score_at
    distances = distance_grid(target_length, max_points)
    methods = rope_context_extension(dim, base, trained_length, target_length)
    # logits scale by the attention factor squared (q and k are both scaled)
    return distances, {name: curve(distances, freqs) * factor**2 for name, (freqs, factor) in methods.items()}


def _distances(distances: torch.Tensor) -> torch.Tensor:
    distances = torch.as_tensor(distances)
    if distances.dim() != 1:
        raise ValueError(f"distances must be a 1-D tensor [R]; got shape {tuple(distances.shape)}.")
    if distances.numel() and distances.min() < 0:
        raise ValueError("distances must be 0 or more (a distance cannot be negative).")
    if distances.is_floating_point() and distances.numel() and not bool((distances == distances.round()).all()):
        raise ValueError("distances must be whole numbers of positions (r = m − n).")
    return distances.long()


def _frequencies(inv_freq: torch.Tensor) -> torch.Tensor:
    inv_freq = torch.as_tensor(inv_freq, dtype=torch.float64)
    if inv_freq.dim() != 1:
        raise ValueError(f"inv_freq must be a 1-D tensor [dim/2]; got shape {tuple(inv_freq.shape)}.")
    if inv_freq.numel() and not bool((inv_freq > 0).all()):
        raise ValueError("inv_freq must be positive (a frequency of 0 would never turn).")
    return inv_freq


def _similarity(similarity: float) -> float:
    similarity = _checks.finite_float("similarity", similarity)
    if not 0.0 <= similarity <= 1.0:
        raise ValueError(f"similarity must be between 0 and 1 (a correlation); got {similarity:g}.")
    return similarity
