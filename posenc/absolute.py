"""Absolute positional encodings: the sinusoid, a learned table, and the naive ones they replace.

Shape letters: L = sequence length (positions 0 … L−1), D = model dimension, P = D/2 frequency pairs.

Source: Vaswani et al., "Attention Is All You Need", arXiv 1706.03762, §3.5; learned absolute positions as in
BERT (Devlin et al., arXiv 1810.04805, §3 "Input/Output Representations", Figure 2) and the Hugging Face
``BertEmbeddings.position_embeddings``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from posenc import _checks
from posenc._random import BLOCK_DIM, leading_blocks, padded

SINUSOID_LAYOUTS = ("interleaved", "concat")


def sinusoid_inv_freq(
    dim: int, base: float = 10000.0, dtype: torch.dtype = torch.float64, device: torch.device | str | None = None
) -> torch.Tensor:
    """Angular frequency of each (sin, cos) pair: ω_i = base^(−2i/D) for i = 0 … D/2 − 1.

    RoPE turns its pairs at these very frequencies (:func:`posenc.rope.rope_inv_freq` is this function).
    Returns: [D/2]. Source: arXiv 1706.03762 §3.5 (the wavelengths form a geometric progression 2π … base·2π).
    """
    dim = _checks.even_dim("dim", dim)
    base = _checks.base_above_one("base", base)
    exponents = torch.arange(0, dim, 2, dtype=torch.float64, device=device) / dim  # 2i/D, [P]
    return torch.pow(base, -exponents).to(dtype)


def sinusoid_wavelengths(dim: int, base: float = 10000.0) -> torch.Tensor:
    """Wavelength of each pair in positions: λ_i = 2π · base^(2i/D). Returns: [D/2] float64."""
    return 2 * math.pi / sinusoid_inv_freq(dim, base)


def sinusoidal(
    length: int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """The fixed sinusoid: PE(p, 2i) = sin(p / base^(2i/D)), PE(p, 2i+1) = cos(p / base^(2i/D)).

    ``layout="interleaved"`` is the paper's (sine at even columns 2i, cosine at odd columns 2i + 1);
    ``layout="concat"`` puts all D/2 sines first and then all cosines with the same frequencies: the column order of
    tensor2tensor's ``get_timing_signal_1d`` and fairseq's ``SinusoidalPositionalEmbedding`` ([sin, cos] joined;
    their frequencies step by base^(−1/(D/2 − 1)) instead of base^(−2/D), so the numbers differ slightly).
    Angles are formed in float64, so long positions keep full precision, then cast to ``dtype``. The app draws its
    largest tables with :func:`posenc.fast.sinusoidal_by_blocks`, equal to this one to ~1e-7 and several times faster.

    Returns: [L, D]. Source: arXiv 1706.03762 §3.5.
    """
    length = _checks.positive_int("length", length)
    layout = _checks.choice("layout", layout, SINUSOID_LAYOUTS)
    positions = torch.arange(length, dtype=torch.float64, device=device)  # p, [L]
    angles = torch.outer(positions, sinusoid_inv_freq(dim, base, device=device))  # p·ω_i, [L, P] float64
    sin, cos = torch.sin(angles), torch.cos(angles)
    if layout == "concat":
        return torch.cat((sin, cos), dim=-1).to(dtype)  # (sin … sin, cos … cos), [L, D]
    return torch.stack((sin, cos), dim=-1).flatten(-2).to(dtype)  # (sin, cos, sin, cos, …): [L, P, 2] -> [L, D]


def sinusoidal_shift_matrix(
    offset: float, dim: int, base: float = 10000.0, layout: str = "interleaved"
) -> torch.Tensor:
    """The fixed linear map M_k with PE(p + k) = M_k · PE(p) for every p: one 2×2 rotation per frequency.

    For pair i with angle a = p·ω_i and b = k·ω_i: [sin(a+b), cos(a+b)] = [[cos b, sin b], [−sin b, cos b]] ·
    [sin a, cos a]. M_k depends on k only, never on p — the reason the paper expected relative offsets to be
    easy to learn. Returns: [D, D] float64 in the same ``layout`` as :func:`sinusoidal`.
    Source: arXiv 1706.03762 §3.5 ("PE_{pos+k} can be represented as a linear function of PE_{pos}").
    """
    offset = _checks.finite_float("offset", offset)
    layout = _checks.choice("layout", layout, SINUSOID_LAYOUTS)
    inv_freq = sinusoid_inv_freq(dim, base)  # [P]
    half = inv_freq.numel()
    shift = offset * inv_freq  # b_i, [P]
    cos_b, sin_b = torch.cos(shift), torch.sin(shift)
    # index of the sine and cosine of pair i in the chosen layout
    pair = torch.arange(half)
    sin_at, cos_at = (2 * pair, 2 * pair + 1) if layout == "interleaved" else (pair, pair + half)
    matrix = torch.zeros(2 * half, 2 * half, dtype=torch.float64)
    matrix[sin_at, sin_at] = cos_b
    matrix[sin_at, cos_at] = sin_b
    matrix[cos_at, sin_at] = -sin_b
    matrix[cos_at, cos_at] = cos_b
    return matrix


def integer_positions(length: int, dim: int = 1, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The naive encoding PE(p, ·) = p: every feature of token p holds the number p itself.

    It grows without bound, so at position 500 it dwarfs word embeddings whose entries are about ±1.
    Returns: [L, D].
    """
    length = _checks.positive_int("length", length)
    dim = _checks.positive_int("dim", dim)
    return torch.arange(length, dtype=dtype).unsqueeze(-1).expand(length, dim).clone()


def normalized_positions(length: int, dim: int = 1, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The naive encoding PE(p, ·) = p / (L − 1), squeezed into [0, 1] (0 for a one-token sequence).

    Bounded, but the step between neighbours is 1/(L − 1): "0.5" is token 2 of 5 or token 50 of 101, so the same
    value means different things in sentences of different length. Returns: [L, D].
    """
    length = _checks.positive_int("length", length)
    dim = _checks.positive_int("dim", dim)
    steps = torch.arange(length, dtype=torch.float64) / max(length - 1, 1)
    return steps.to(dtype).unsqueeze(-1).expand(length, dim).clone()


class LearnedPositionalEmbedding(nn.Module):
    """A trained table of ``max_len`` position vectors, added to the token embeddings (BERT, GPT-2).

    ``forward(positions)`` looks rows up: E[p] for p in ``positions``. A position ≥ ``max_len`` has no row at
    all — the table cannot say anything about lengths it never saw — so it raises ``ValueError``.
    Shapes: positions [L] (or an int L meaning 0 … L−1) -> [L, D]. Source: arXiv 1810.04805 §3 (Figure 2).
    """

    def __init__(self, max_len: int, dim: int, init_std: float = 0.02) -> None:
        super().__init__()
        self.max_len = _checks.positive_int("max_len", max_len)
        self.dim = _checks.positive_int("dim", dim)
        self.table = nn.Embedding(self.max_len, self.dim)
        nn.init.normal_(self.table.weight, std=_checks.positive_float("init_std", init_std))

    def forward(self, positions: torch.Tensor | int) -> torch.Tensor:
        if not isinstance(positions, torch.Tensor):
            positions = torch.arange(_checks.positive_int("length", positions), device=self.table.weight.device)
        outside = positions[(positions < 0) | (positions >= self.max_len)]
        if outside.numel():
            raise ValueError(
                f"positions must lie in 0 … {self.max_len - 1}: this learned table was trained for "
                f"{self.max_len} positions and has no vector for position {int(outside[0])}."
            )
        return self.table(positions)


def sinusoid_pair_columns(dim: int, layout: str = "interleaved") -> torch.Tensor:
    """Where pair i lives in a row of :func:`sinusoidal`: its sine column and its cosine column.

    Interleaved: (2i, 2i + 1); concat: (i, i + D/2). Returns: [P, 2] int64 (sine column, cosine column).
    """
    dim = _checks.even_dim("dim", dim)
    layout = _checks.choice("layout", layout, SINUSOID_LAYOUTS)
    pair = torch.arange(dim // 2)  # i, [P]
    if layout == "interleaved":
        return torch.stack((2 * pair, 2 * pair + 1), dim=-1)
    return torch.stack((pair, pair + dim // 2), dim=-1)


def sinusoidal_similarity(length: int, dim: int, base: float = 10000.0, block: int = 1) -> torch.Tensor:
    """The Gram matrix S = PE · PEᵀ, S[p, q] = PE(p)·PE(q), averaged over block × block squares of positions.

    With ``block = B > 1`` entry [a, b] is the mean of PE(p)·PE(q) over p in block a and q in block b. Because the
    dot product is bilinear, that mean equals (mean of PE over block a)·(mean of PE over block b), so the reduced
    matrix is exact and costs L·D + (L/B)²·D instead of L²·D. The last block may be shorter. The layout does not
    matter (it only reorders the dimensions of both vectors).
    Returns: [⌈L/B⌉, ⌈L/B⌉] float32. Source: arXiv 1706.03762 §3.5.
    """
    block = _checks.positive_int("block", block)
    table = sinusoidal(length, dim, base, dtype=torch.float64)  # [L, D]
    block_of = torch.arange(table.shape[0]) // block  # which block each position falls in, [L]
    count = int(block_of[-1]) + 1  # N = ⌈L/B⌉
    sums = torch.zeros(count, table.shape[1], dtype=torch.float64).index_add_(0, block_of, table)  # [N, D]
    # P̄_a = (1/|a|) Σ_{p in a} PE(p)
    means = sums / torch.bincount(block_of, minlength=count).to(torch.float64)[:, None]  # [N, D]
    # S̄ = P̄ · P̄ᵀ: [N, D] x [D, N] -> [N, N]
    return (means @ means.T).to(torch.float32)


def sinusoidal_similarity_row(position: int, length: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """One row of PE · PEᵀ by dot products: s[q] = PE(position)·PE(q) for q = 0 … L − 1.

    Returns: [L] float64. Source: arXiv 1706.03762 §3.5.
    """
    position = _checks.non_negative_int("position", position)
    length = _checks.positive_int("length", length)
    table = sinusoidal(max(length, position + 1), dim, base, dtype=torch.float64)  # [max(L, p+1), D]
    # [L, D] x [D] -> [L]
    return table[:length] @ table[position]


def sinusoid_offset_similarity(position: int, length: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The same row in closed form: PE(p)·PE(q) = Σ_i cos((q − p)·ω_i), a function of the offset q − p alone.

    From sin a sin b + cos a cos b = cos(a − b), one term per (sin, cos) pair. Returns: [L] float64.
    Source: arXiv 1706.03762 §3.5.
    """
    position = _checks.non_negative_int("position", position)
    length = _checks.positive_int("length", length)
    return sinusoid_dot_by_offset(torch.arange(length) - position, dim, base)  # s(q − p), [L]


def sinusoid_dot_by_offset(offsets: torch.Tensor | Sequence[int], dim: int, base: float = 10000.0) -> torch.Tensor:
    """s(k) = PE(p)·PE(p + k) = Σ_i cos(k·ω_i) for each offset k: the same for every position p.

    From sin a sin b + cos a cos b = cos(a − b), one term per (sin, cos) pair; the whole of PE·PEᵀ is
    S[p, q] = s(q − p). ``offsets``: [K] integers. Returns: [K] float64. Source: arXiv 1706.03762 §3.5.
    """
    offsets = torch.as_tensor(offsets, dtype=torch.float64)  # k, [K]
    # Σ_i cos(k·ω_i): [K, P] summed over P
    return torch.cos(torch.outer(offsets, sinusoid_inv_freq(dim, base))).sum(dim=-1)


def sinusoidal_shift_residual(
    offset: int,
    length: int,
    dim: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """How far one fixed map is from the truth at each position: r[p] = max_d |PE(p + k) − M_k · PE(p)|_d.

    M_k is :func:`sinusoidal_shift_matrix` (built once, for all p). In exact arithmetic r = 0 for every p; in
    ``dtype`` it is rounding, ~1e-7 in float32. Returns: [L] float64 for p = 0 … L − 1.
    Source: arXiv 1706.03762 §3.5.
    """
    offset = _checks.non_negative_int("offset", offset)
    length = _checks.positive_int("length", length)
    table = sinusoidal(length + offset, dim, base, layout=layout, dtype=dtype)  # PE(0 … L + k − 1), [L + k, D]
    matrix = sinusoidal_shift_matrix(offset, dim, base, layout=layout).to(dtype)  # M_k, [D, D]
    # M_k · PE(p) for every p at once: [L, D] x [D, D] -> [L, D]
    shifted = table[:length] @ matrix.T
    # max_d |PE(p + k) − M_k · PE(p)|_d, [L]
    return (table[offset:] - shifted).abs().amax(dim=-1).to(torch.float64)


def embedding_pe_cosines(
    dims: Sequence[int], samples: int = 2000, max_position: int = 512, base: float = 10000.0, seed: int = 0
) -> torch.Tensor:
    """cos(w, PE(p)) for random word vectors w ~ N(0, I_D) and random positions p ~ U{0 … max_position − 1}.

    A fixed vector and a random Gaussian one in D dimensions have cosine ≈ N(0, 1/D): nearly orthogonal once D is
    large, which is why adding PE to a word embedding loses little of either. Deterministic for a given ``seed``:
    the words at D are the first D features of the same words at the app's largest dim (posenc._random
    .leading_blocks), and the positions are the same for every D. Returns: [len(dims), samples] float64, row j for
    D = dims[j].
    """
    samples = _checks.positive_int("samples", samples)
    max_position = _checks.positive_int("max_position", max_position)
    seed = _checks.non_negative_int("seed", seed)
    positions = word_positions(samples, max_position, seed)  # p, [S]
    rows = []
    for dim in dims:
        dim = _checks.even_dim("dim", dim)
        (words,) = leading_blocks(seed, ((samples, padded(dim, BLOCK_DIM)),), ((samples, dim),), (1.0,))  # w, [S, D]
        encodings = sinusoidal(max_position, dim, base, dtype=torch.float64)[positions]  # PE(p), [S, D]
        # cos(w, PE(p)) = w·PE(p) / (|w| |PE(p)|)
        rows.append(torch.nn.functional.cosine_similarity(words, encodings, dim=-1))
    return torch.stack(rows)


def word_positions(samples: int, max_position: int, seed: int = 0) -> torch.Tensor:
    """The positions p of :func:`embedding_pe_cosines`' words: uniform below ``max_position``, from a generator
    seeded ``seed + 1`` (the words' own is ``seed``). Returns: [S] int64."""
    return torch.randint(max_position, (samples,), generator=torch.Generator().manual_seed(seed + 1))


def seeded_learned_embedding(
    max_len: int, dim: int, seed: int = 0, init_std: float = 0.02
) -> LearnedPositionalEmbedding:
    """A :class:`LearnedPositionalEmbedding` whose table starts from N(0, init_std²) drawn with ``seed``.

    The same seed gives the same table on every call (no global random state). Before training its rows are
    noise; training on sequences of up to ``max_len`` tokens fills them. Source: arXiv 1810.04805 §3 (Figure 2).
    """
    module = LearnedPositionalEmbedding(max_len, dim, init_std)
    generator = torch.Generator().manual_seed(_checks.non_negative_int("seed", seed))
    with torch.no_grad():
        nn.init.normal_(module.table.weight, std=init_std, generator=generator)
    return module
