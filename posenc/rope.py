"""Rotary position embedding (RoPE): rotate each pair of query/key features by position × frequency.

Shape letters: L = sequence length, D = rotated dimension (even), P = D/2 pairs, "..." = any leading dims
(batch, heads). Pair i turns at angular frequency θ_i = base^(−2i/D): a token at position m has pair i rotated
by the angle m·θ_i, so ⟨R_m q, R_n k⟩ depends on m − n only.

Two pairings appear in the wild, and ``layout`` names them:
- ``"half"``: feature i pairs with i + D/2 (GPT-NeoX; Hugging Face ``rotate_half``, also in its Llama port);
- ``"interleaved"``: feature 2i pairs with 2i + 1 (the paper, GPT-J ``rotate_every_two``, Meta's own Llama code,
  which multiplies complex numbers: ``precompute_freqs_cis``, ``view_as_complex``).
They give identical scores up to a fixed permutation of features (:func:`rope_layout_permutation`). That is how one
Llama checkpoint runs in both: Hugging Face's ``convert_llama_weights_to_hf.py`` reorders the rows of W_q and W_k per
head (:func:`posenc.rope_variants.hf_llama_permute`), so its ``rotate_half`` on the converted weights gives Meta's
interleaved scores.

Source: Su et al., "RoFormer", arXiv 2104.09864, §3.2 (eq. 13–16), §3.4.3 (long-term decay, Figure 2);
meta-llama/llama ``apply_rotary_emb``; Hugging Face ``apply_rotary_pos_emb``.
"""

from __future__ import annotations

import torch

from posenc import _checks
from posenc.absolute import sinusoid_inv_freq

ROPE_LAYOUTS = ("half", "interleaved")


def rope_inv_freq(
    dim: int, base: float = 10000.0, dtype: torch.dtype = torch.float32, device: torch.device | str | None = None
) -> torch.Tensor:
    """Rotation frequency of each pair: θ_i = base^(−2i/D), i = 0 … D/2 − 1.

    These are the sinusoid's frequencies ω_i (:func:`posenc.absolute.sinusoid_inv_freq`), which RoFormer reuses on
    purpose; only the default dtype differs (float32, as models store them).
    Returns: [D/2]. Source: arXiv 2104.09864 §3.2.2 (Θ = {θ_i = 10000^(−2(i−1)/d), i ∈ [1, 2, …, d/2]}).
    """
    return sinusoid_inv_freq(dim, base, dtype, device)


def rope_angles(positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Rotation angle of every pair at every position: φ[m, i] = m · θ_i, formed in float64.

    Shapes: positions [L], inv_freq [P] -> [L, P] float64.
    """
    positions = torch.as_tensor(positions)
    if positions.dim() != 1:
        raise ValueError(f"positions must be a 1-D tensor [seq]; got shape {tuple(positions.shape)}.")
    inv_freq = torch.as_tensor(inv_freq)
    if inv_freq.dim() != 1:
        raise ValueError(f"inv_freq must be a 1-D tensor [dim/2]; got shape {tuple(inv_freq.shape)}.")
    return torch.outer(positions.to(torch.float64), inv_freq.to(device=positions.device, dtype=torch.float64))


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """(x1, x2) -> (−x2, x1) on the two halves of the last dimension: multiplication by i for ``layout="half"``.

    Shapes: [..., D] -> [..., D]. Source: GPT-NeoX / Hugging Face ``rotate_half`` (Llama, after the weight permutation).
    """
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor | None = None,
    base: float = 10000.0,
    layout: str = "half",
    inv_freq: torch.Tensor | None = None,
) -> torch.Tensor:
    """Rotate pair i of the token at position m by m·θ_i: (a, b) -> (a cos φ − b sin φ, a sin φ + b cos φ).

    ``positions`` defaults to 0 … L−1 and may be fractional (position interpolation). ``inv_freq`` overrides
    the frequencies (for scaled RoPE); otherwise θ_i = base^(−2i/D). The math runs in float32 (float64 if ``x`` is
    float64) and the result comes back in ``x``'s dtype.

    Shapes: x [..., L, D], positions [L], inv_freq [D/2] -> [..., L, D].
    Source: arXiv 2104.09864 §3.4.2 eq. (34); Hugging Face ``apply_rotary_pos_emb``.
    """
    layout = _checks.choice("layout", layout, ROPE_LAYOUTS)
    if x.dim() < 2:
        raise ValueError(f"x must have shape [..., seq, dim]; got shape {tuple(x.shape)}.")
    seq, dim = x.shape[-2], x.shape[-1]
    dim = _checks.even_dim("the last dimension of x", dim)
    if positions is None:
        positions = torch.arange(seq, device=x.device)
    positions = torch.as_tensor(positions, device=x.device)
    if positions.shape != (seq,):
        raise ValueError(
            f"positions must have shape [{seq}] to match x [..., {seq}, {dim}]; got {tuple(positions.shape)}."
        )
    if inv_freq is None:
        inv_freq = rope_inv_freq(dim, base, dtype=torch.float64, device=x.device)
    if inv_freq.shape != (dim // 2,):
        raise ValueError(
            f"inv_freq must have shape [{dim // 2}] (one frequency per pair); got {tuple(inv_freq.shape)}."
        )

    compute = torch.float64 if x.dtype == torch.float64 else torch.float32
    angles = rope_angles(positions, inv_freq)  # [L, P] float64
    cos, sin = torch.cos(angles).to(compute), torch.sin(angles).to(compute)
    xc = x.to(compute)
    if layout == "half":
        a, b = xc[..., : dim // 2], xc[..., dim // 2 :]  # pair i = (x_i, x_{i+P}), each [..., L, P]
        # (a cos φ − b sin φ, a sin φ + b cos φ), the halves side by side: [..., L, D]
        rotated = torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
    else:
        pairs = xc.unflatten(-1, (dim // 2, 2))  # [..., L, P, 2]
        a, b = pairs[..., 0], pairs[..., 1]  # pair i = (x_2i, x_2i+1)
        # (a cos φ − b sin φ, a sin φ + b cos φ), each pair kept together: [..., L, P, 2] -> [..., L, D]
        rotated = torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
    return rotated.to(x.dtype)


def rope_layout_permutation(dim: int) -> torch.Tensor:
    """The feature order that turns a "half" layout into an "interleaved" one: perm = [0, P, 1, P+1, …, P−1, D−1].

    For any x: ``apply_rope(x, layout="half")[..., perm] == apply_rope(x[..., perm], layout="interleaved")``; a
    permutation of features leaves every dot product unchanged, so the two layouts give identical attention
    scores once W_q and W_k columns are permuted the same way. The rotated pairs need not be adjacent.
    Returns: [D] long.
    """
    dim = _checks.even_dim("dim", dim)
    half = dim // 2
    return torch.stack((torch.arange(half), torch.arange(half) + half), dim=-1).flatten()  # [P, 2] -> [D]


def to_complex_pairs(x: torch.Tensor, layout: str = "half") -> torch.Tensor:
    """View each feature pair (a, b) as the complex number a + i·b.

    Shapes: [..., D] real -> [..., D/2] complex (complex128 for float64 input, else complex64).
    """
    layout = _checks.choice("layout", layout, ROPE_LAYOUTS)
    dim = _checks.even_dim("the last dimension of x", x.shape[-1])
    real = x.to(torch.float64 if x.dtype == torch.float64 else torch.float32)
    if layout == "half":
        return torch.complex(real[..., : dim // 2], real[..., dim // 2 :])
    return torch.view_as_complex(real.unflatten(-1, (dim // 2, 2)).contiguous())


def from_complex_pairs(z: torch.Tensor, layout: str = "half") -> torch.Tensor:
    """Inverse of :func:`to_complex_pairs`. Shapes: [..., D/2] complex -> [..., D] real."""
    layout = _checks.choice("layout", layout, ROPE_LAYOUTS)
    if layout == "half":
        return torch.cat((z.real, z.imag), dim=-1)
    return torch.view_as_real(z).flatten(-2)


def rope_rotation_factors(positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """The unit complex numbers e^{i·m·θ_i} that rotate pair i at position m.

    Shapes: positions [L], inv_freq [P] -> [L, P] complex128. Source: meta-llama ``precompute_freqs_cis``.
    """
    angles = rope_angles(positions, inv_freq)
    # cos + i·sin, built from the two real parts: equal to torch.polar(1, angles) to 1e-16 and ~3× faster on CPU
    return torch.complex(torch.cos(angles), torch.sin(angles))


def apply_rope_complex(
    x: torch.Tensor,
    positions: torch.Tensor | None = None,
    base: float = 10000.0,
    layout: str = "half",
    inv_freq: torch.Tensor | None = None,
) -> torch.Tensor:
    """The same rotation in the complex plane: z_i(m) = (a_i + i·b_i) · e^{i·m·θ_i}.

    This is what the complex-plane page draws: each pair is a point that turns by m·θ_i.
    Shapes: x [..., L, D] real -> [..., L, D/2] complex. Source: arXiv 2104.09864 §3.2.1 eq. (12).
    """
    seq, dim = x.shape[-2], _checks.even_dim("the last dimension of x", x.shape[-1])
    if positions is None:
        positions = torch.arange(seq)
    if inv_freq is None:
        inv_freq = rope_inv_freq(dim, base, dtype=torch.float64)
    z = to_complex_pairs(x, layout)  # [..., L, P]
    factors = rope_rotation_factors(torch.as_tensor(positions), inv_freq).to(z.dtype)  # [L, P]
    return z * factors


def rope_decay_bound(dim: int, base: float = 10000.0, max_distance: int = 256) -> torch.Tensor:
    """RoFormer's relative upper bound on |q·k| at distance r: (1/(D/2)) Σ_{j=1}^{D/2} |S_j|, S_j = Σ_{k<j} e^{i·r·θ_k}.

    It is the factor by which the score of two vectors of bounded features can shrink with distance (Abel
    summation, §3.4.3). At D = 128, base = 10000 it starts at 32.5 for r = 0 and falls to about 6.5 at r = 256.
    Returns: [max_distance + 1] float64 for r = 0 … max_distance. Source: arXiv 2104.09864 §3.4.3, Figure 2.
    """
    max_distance = _checks.non_negative_int("max_distance", max_distance)
    inv_freq = rope_inv_freq(dim, base, dtype=torch.float64)  # θ_k, [P]
    distance = torch.arange(max_distance + 1, dtype=torch.float64)  # r, [R]
    partial_sums = torch.cumsum(rope_rotation_factors(distance, inv_freq), dim=-1)  # S_j = Σ_{k<j} e^{i r θ_k}, [R, P]
    return partial_sums.abs().mean(dim=-1)  # (1/P) Σ_j |S_j|, [R]


def rope_relative_scores(
    q: torch.Tensor, k: torch.Tensor, max_distance: int, base: float = 10000.0, inv_freq: torch.Tensor | None = None
) -> torch.Tensor:
    """The rotated score at each distance: s(r) = ⟨R_r q, R_0 k⟩ = Re Σ_i q̃_i · conj(k̃_i) · e^{i·r·θ_i}.

    Because the score depends on m − n only, one query rotated by r against an unrotated key is the score of any
    pair of positions r apart. Shapes: q, k [..., D] -> [..., max_distance + 1] float64 (``half`` layout).
    Source: arXiv 2104.09864 §3.4.3.
    """
    max_distance = _checks.non_negative_int("max_distance", max_distance)
    dim = _checks.even_dim("the last dimension of q", q.shape[-1])
    if k.shape[-1] != dim:
        raise ValueError(f"q and k must have the same last dimension; got {dim} and {k.shape[-1]}.")
    if inv_freq is None:
        inv_freq = rope_inv_freq(dim, base, dtype=torch.float64)
    products = to_complex_pairs(q.double()) * to_complex_pairs(k.double()).conj()  # q̃_i · conj(k̃_i), [..., P]
    factors = rope_rotation_factors(torch.arange(max_distance + 1), inv_freq)  # [R, P]
    return torch.einsum("...p,rp->...r", products, factors).real  # [..., R]


# ---- One pair over positions, scores at chosen positions, and the two layouts compared ----


def rope_pair_points(
    x: torch.Tensor, positions: torch.Tensor, pair: int, base: float = 10000.0, layout: str = "half"
) -> torch.Tensor:
    """Pair i of one vector placed at each position, as a point of the complex plane: z_i(p) = x̃_i · e^{i·p·θ_i}.

    x̃_i = x_i + i·x_{i+D/2} (``half``) or x_{2i} + i·x_{2i+1} (``interleaved``).
    Shapes: x [D], positions [L] -> [L] complex128. Source: arXiv 2104.09864 §3.2.1 eq. (12).
    """
    x = _one_vector("x", x)
    index = _pair_index(x.shape[0], pair)
    z = to_complex_pairs(x.double(), layout)[index]  # x̃_i, scalar complex128
    theta = rope_inv_freq(x.shape[0], base, dtype=torch.float64)[index : index + 1]  # [1]
    return z * rope_rotation_factors(torch.as_tensor(positions), theta)[:, 0]  # x̃_i · e^{i p θ_i}, [L]


def rope_scores_at(
    q: torch.Tensor,
    k: torch.Tensor,
    q_positions: torch.Tensor,
    k_positions: torch.Tensor,
    base: float = 10000.0,
    layout: str = "half",
) -> torch.Tensor:
    """The rotated dot product for each pair of positions: s_t = ⟨R_{m_t} q, R_{n_t} k⟩ (all D/2 pairs summed).

    Shapes: q, k [D], q_positions [T], k_positions [T] -> [T] float64. Source: arXiv 2104.09864 §3.2.
    """
    q, k = _one_vector("q", q), _one_vector("k", k)
    _same_dim(q, k)
    q_positions, k_positions = _paired_positions(q_positions, k_positions)
    rotated_q = apply_rope(q.double().expand(q_positions.shape[0], -1), q_positions, base, layout)  # R_{m_t} q, [T, D]
    rotated_k = apply_rope(k.double().expand(k_positions.shape[0], -1), k_positions, base, layout)  # R_{n_t} k, [T, D]
    return (rotated_q * rotated_k).sum(dim=-1)  # ⟨·,·⟩ per t, [T]


def rope_pair_angles_at(
    q: torch.Tensor,
    k: torch.Tensor,
    q_positions: torch.Tensor,
    k_positions: torch.Tensor,
    pair: int,
    base: float = 10000.0,
    layout: str = "half",
) -> torch.Tensor:
    """Angle from key to query in pair i: α_t = arg(z^q_i(m_t) · conj(z^k_i(n_t))).

    Equal to arg q̃_i − arg k̃_i + (m_t − n_t)·θ_i, wrapped to (−π, π]. Pair i's share of the score is
    |q̃_i|·|k̃_i|·cos α_t, so it depends on m − n only.
    Shapes: q, k [D], q_positions [T], k_positions [T] -> [T] float64 radians. Source: arXiv 2104.09864 §3.2.1.
    """
    q, k = _one_vector("q", q), _one_vector("k", k)
    _same_dim(q, k)
    q_positions, k_positions = _paired_positions(q_positions, k_positions)
    zq = rope_pair_points(q, q_positions, pair, base, layout)  # [T]
    zk = rope_pair_points(k, k_positions, pair, base, layout)  # [T]
    return torch.angle(zq * zk.conj())


def rope_offset_detector(
    dim: int, offset: int, base: float = 10000.0, layout: str = "half"
) -> tuple[torch.Tensor, torch.Tensor]:
    """A query and key that a model "trained" with ``layout`` would use to attend ``offset`` tokens back.

    q̃_i = e^{−i·r₀·θ_i}, k̃_i = 1, so s(r) = ⟨R_r q, R_0 k⟩ = Σ_i cos((r − r₀)·θ_i), largest (= D/2) at r = r₀.
    Written into features with ``layout``; run with the other layout they give a different score curve.
    Returns: (q [D], k [D]) float64. Source: arXiv 2104.09864 §3.2 (the score is Re Σ q̃_i conj(k̃_i) e^{i r θ_i}).
    """
    offset = _checks.non_negative_int("offset", offset)
    theta = rope_inv_freq(dim, base, dtype=torch.float64)  # θ_i, [P]
    # q̃_i = e^{−i r₀ θ_i}, k̃_i = 1
    q_pairs = torch.polar(torch.ones_like(theta), -offset * theta)
    k_pairs = torch.ones_like(q_pairs)
    return from_complex_pairs(q_pairs, layout), from_complex_pairs(k_pairs, layout)


def rope_convert_layout(x: torch.Tensor, source: str, target: str) -> torch.Tensor:
    """Reorder features so a vector written for ``source`` pairing means the same under ``target`` pairing.

    half -> interleaved: x[..., perm]; interleaved -> half: x[..., argsort(perm)], perm = rope_layout_permutation(D).
    Then apply_rope(convert(x), layout=target) = convert(apply_rope(x, layout=source)). Shapes: [..., D] -> [..., D].
    """
    source = _checks.choice("source", source, ROPE_LAYOUTS)
    target = _checks.choice("target", target, ROPE_LAYOUTS)
    if source == target:
        return x
    perm = rope_layout_permutation(x.shape[-1]).to(x.device)  # interleaved feature j = half feature perm[j]
    return x[..., perm] if source == "half" else x[..., torch.argsort(perm)]


def rope_score_table(
    q: torch.Tensor, k: torch.Tensor, length: int, base: float = 10000.0, layout: str = "half"
) -> torch.Tensor:
    """Scores of one query and one key placed at every pair of positions: S[m, n] = ⟨R_m q, R_n k⟩, m, n < L.

    S is constant along each diagonal (it depends on m − n only). Shapes: q, k [D] -> [L, L] float64.
    Source: arXiv 2104.09864 §3.2.
    """
    q, k = _one_vector("q", q), _one_vector("k", k)
    _same_dim(q, k)
    length = _checks.positive_int("length", length)
    rotated_q = apply_rope(q.double().expand(length, -1), None, base, layout)  # R_m q, [L, D]
    rotated_k = apply_rope(k.double().expand(length, -1), None, base, layout)  # R_n k, [L, D]
    return rotated_q @ rotated_k.T  # [L, D] x [D, L] -> [L, L]


def rope_feature_pairs(dim: int, layout: str = "half") -> torch.Tensor:
    """Which pair each feature belongs to: pair(j) = j mod D/2 (``half``) or ⌊j / 2⌋ (``interleaved``).

    Returns: [D] long. Source: Hugging Face ``rotate_half`` / RoFormer eq. (34).
    """
    dim = _checks.even_dim("dim", dim)
    layout = _checks.choice("layout", layout, ROPE_LAYOUTS)
    features = torch.arange(dim)
    return features % (dim // 2) if layout == "half" else features // 2


def _pair_index(dim: int, pair: object) -> int:
    dim = _checks.even_dim("dim", dim)
    index = _checks.non_negative_int("pair", pair)
    if index >= dim // 2:
        raise ValueError(f"pair must be between 0 and {dim // 2 - 1} (dim {dim} has {dim // 2} pairs); got {index}.")
    return index


def _one_vector(name: str, x: torch.Tensor) -> torch.Tensor:
    x = torch.as_tensor(x)
    if x.dim() != 1:
        raise ValueError(f"{name} must be one vector of shape [dim]; got shape {tuple(x.shape)}.")
    _checks.even_dim(f"the length of {name}", x.shape[0])
    return x


def _same_dim(q: torch.Tensor, k: torch.Tensor) -> None:
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape; got {tuple(q.shape)} and {tuple(k.shape)}.")


def _paired_positions(q_positions: torch.Tensor, k_positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    q_positions, k_positions = torch.as_tensor(q_positions), torch.as_tensor(k_positions)
    if q_positions.dim() != 1 or q_positions.shape != k_positions.shape:
        raise ValueError(
            "q_positions and k_positions must be 1-D and of the same length; "
            f"got {tuple(q_positions.shape)} and {tuple(k_positions.shape)}."
        )
    return q_positions, k_positions
