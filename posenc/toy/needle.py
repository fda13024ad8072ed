"""The retrieval task: a needle (a marker and its value) hidden in Markov text, asked for at the end.

Shape letters: B = batch, T = tokens per sequence (the model reads T − 1 of them and predicts each next one).

A sequence is Markov text (:mod:`posenc.toy.markov`, symbols 0 … V − 1) with two insertions:
- the needle: the MARKER token at position n, then a value token at n + 1 (one of ``VALUES`` value tokens that
  appear nowhere else);
- the question: the MARKER again as the last input token (position T − 2); the answer is the needle's value, the
  sequence's last token (T − 1).

Nothing else in the text tells the value: the answer can only come from reading the needle, ``T − 3 − n`` tokens
back from the question. The needle's *depth* d ∈ [0, 1] places it from the first position (d = 0) to the last one
before the question (d = 1): n = round(d · (T − 4)). The Markov task (:mod:`posenc.toy.extrapolate`) can be solved
from the last three tokens; this one cannot, so it shows whether a model *uses* far tokens, not only whether it
stays calm past its training length (Kamradt 2023's needle in a haystack; Hsieh et al. 2024, RULER, arXiv
2404.06654). Chance accuracy is 1 / VALUES.
"""

from __future__ import annotations

import torch

from posenc.toy import markov

VALUES = 8  # value tokens: chance = 1/8
MARKER = markov.VOCAB  # the token id right after the Markov symbols
FIRST_VALUE = MARKER + 1
VOCAB = FIRST_VALUE + VALUES  # the model's vocabulary: V symbols, the marker, the values


def needle_position(depth: float, tokens: int) -> int:
    """n = round(d · (T − 4)): depth 0 → the first position, 1 → the last one before the question (T − 4)."""
    if not 0.0 <= depth <= 1.0:
        raise ValueError(f"depth must lie in [0, 1]; got {depth}.")
    if tokens < 5:
        raise ValueError(f"a needle sequence needs at least 5 tokens; got {tokens}.")
    return round(depth * (tokens - 4))


def needle_batch(
    source: markov.MarkovSource, batch: int, tokens: int, generator: torch.Generator, depth: float | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(sequences [B, T], needle positions [B], values [B]): Markov text with the needle at ``depth`` (uniform over
    every position when None) and the question at the end; the last token of each row is its answer."""
    text = markov.sample(source, batch, tokens, generator)  # [B, T]
    values = FIRST_VALUE + torch.randint(0, VALUES, (batch,), generator=generator)  # [B]
    if depth is None:
        positions = torch.randint(0, tokens - 3, (batch,), generator=generator)  # n ∈ [0, T − 4]
    else:
        positions = torch.full((batch,), needle_position(depth, tokens))
    rows = torch.arange(batch)
    text[rows, positions] = MARKER
    text[rows, positions + 1] = values
    text[:, -2] = MARKER
    text[:, -1] = values
    return text, positions, values


def answer_distance(position: int, tokens: int) -> int:
    """Tokens from the question back to the needle's value: (T − 2) − (n + 1)."""
    return tokens - 3 - position
