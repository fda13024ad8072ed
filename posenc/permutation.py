"""Why attention needs positions: without them, self-attention is permutation-equivariant.

Reorder the tokens and every token's output is only moved, never changed: A(P X) = P A(X) for any permutation P.
So "Tom likes apple, but hates orange" and "Tom hates orange, but likes apple" give "likes" the very same output.
Shape letters: L = tokens, D = model dimension.

Source: Vaswani et al., arXiv 1706.03762 §3.5 ("since our model contains no recurrence and no convolution, in order
for the model to make use of the order of the sequence, we must inject some information about … position").
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import torch

from posenc import _checks
from posenc._random import gaussian
from posenc.absolute import sinusoidal
from posenc.attention import attention_scores, attention_weights

# A Chinese character is a token of its own (written Chinese has no spaces); other words run to the next space or
# punctuation mark, so Korean words keep their particles ("사과를"). ASCII and full-width punctuation are tokens.
CJK_IDEOGRAPH = "\u3400-\u9fff\uf900-\ufaff"
WORD_PATTERN = re.compile(rf"[{CJK_IDEOGRAPH}]|[^\W{CJK_IDEOGRAPH}]+|[.,!?;:，。！？；：、]")
MAX_TOKENS = 24


def split_words(text: str, max_tokens: int = MAX_TOKENS) -> list[str]:
    """Split a sentence into word and punctuation tokens ("apple," -> "apple", ","; "苹果" -> "苹", "果").

    Anything else (markup, symbols) is dropped.

    Raises ValueError for an empty sentence or one longer than ``max_tokens`` tokens.
    """
    tokens = WORD_PATTERN.findall(text or "")
    if not tokens:
        raise ValueError("Type a sentence with at least one word.")
    if len(tokens) > max_tokens:
        raise ValueError(f"Use at most {max_tokens} words and punctuation marks; this sentence has {len(tokens)}.")
    return [token[:40] for token in tokens]


def token_embeddings(tokens: list[str], dim: int, seed: int = 0) -> torch.Tensor:
    """A fixed random vector per distinct token, x ~ N(0, 1) per entry: equal tokens get equal vectors.

    The generator is seeded from the token's text, so "likes" has the same vector in every sentence and session.
    Returns: [L, D] float64.
    """
    dim = _checks.positive_int("dim", dim)
    rows = []
    for token in tokens:
        generator = torch.Generator().manual_seed(zlib.crc32(token.encode()) ^ seed)
        rows.append(gaussian(generator, dim))
    return torch.stack(rows)


@dataclass(frozen=True)
class SelfAttentionResult:
    """One head of self-attention: ``outputs`` [L, D] and ``weights`` [L, L] (rows sum to 1)."""

    outputs: torch.Tensor
    weights: torch.Tensor


def single_head_self_attention(
    tokens: list[str], dim: int = 64, with_positions: bool = False, seed: int = 0
) -> SelfAttentionResult:
    """z_i = Σ_j softmax_j(q_i·k_j/√D) v_j with q, k, v = (x + PE) W_{q,k,v}; PE is the sinusoid or nothing.

    W_q, W_k, W_v are fixed random [D, D] matrices (seeded), so two sentences are run by the very same "model".
    Returns outputs [L, D] and weights [L, L]. Source: arXiv 1706.03762 §3.2.1, §3.5.
    """
    dim = _checks.even_dim("dim", dim)
    x = token_embeddings(tokens, dim, seed)  # [L, D]
    if with_positions:
        x = x + sinusoidal(len(tokens), dim, dtype=torch.float64)  # entries of both are of order 1
    generator = torch.Generator().manual_seed(seed + 1)
    w_q, w_k, w_v = gaussian(generator, 3, dim, dim, std=dim**-0.5)
    q, k, v = (x @ w_q)[None], (x @ w_k)[None], x @ w_v  # [1, L, D] (one head), [1, L, D], [L, D]
    weights = attention_weights(attention_scores(q, k, "none"))[0]  # [L, L]
    return SelfAttentionResult(outputs=weights @ v, weights=weights)


def output_differences(
    tokens_a: list[str], tokens_b: list[str], dim: int = 64, with_positions: bool = False
) -> list[tuple[str, float]]:
    """For each token of sentence A: ‖z_A(token) − z_B(same token)‖ / ‖z_A(token)‖, matching repeats in order.

    Zero (up to float rounding, ~1e-16) for every token when there are no positions and B is a reordering of A.
    Returns [(token, relative difference)].
    Raises ValueError if B is not a reordering of A (then there is nothing to match).
    """
    if sorted(tokens_a) != sorted(tokens_b):
        raise ValueError("The two sentences must use exactly the same words, only in a different order.")
    out_a = single_head_self_attention(tokens_a, dim, with_positions).outputs
    out_b = single_head_self_attention(tokens_b, dim, with_positions).outputs
    remaining = list(range(len(tokens_b)))
    differences = []
    for i, token in enumerate(tokens_a):
        j = next(j for j in remaining if tokens_b[j] == token)  # the same occurrence of the token in sentence B
        remaining.remove(j)
        differences.append((token, ((out_a[i] - out_b[j]).norm() / out_a[i].norm()).item()))
    return differences
