"""The "train short, test long" task: text from a fixed random Markov source of order 3.

Shape letters: B = batch, L = sequence length, V = vocabulary size, K = order (context length).

The source: for every context c = (x_{t−3}, x_{t−2}, x_{t−1}) ∈ V³ a next-token distribution p(· | c) drawn once
from a Dirichlet(α) with small α (so most contexts have two or three likely continuations); the first K tokens of a
sequence are uniform. A sequence is x_0 … x_{L−1}; the model predicts x_t from x_0 … x_{t−1}.

Why this task for length extrapolation:
- position matters: the next token depends on *which* token is one, two and three places back — a bag of the
  previous tokens cannot predict it, so a model has to locate its neighbours;
- the answer depends on a bounded window (the last K tokens) at every position, so a model that found its
  neighbours by *relative* offset can, in principle, predict equally well at position 500 as at position 50;
- the best possible loss is known exactly: −log p(x_t | c) under the true source, the floor every curve is drawn
  against, at every length;
- it is offline, deterministic (a seed gives the source and every sequence) and cheap on a CPU.

Source of the idea: Markov-chain probes of in-context learning and position use (e.g. Edelman et al. 2024,
"The evolution of statistical induction heads", arXiv 2402.11004); here the table is fixed, not drawn per sequence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

VOCAB = 8  # V: 8 symbols
ORDER = 3  # K: the next token depends on the previous 3
ALPHA = 0.3  # Dirichlet concentration: small α makes each context's continuation sharply peaked
SOURCE_SEED = 1234  # the one source every model learns


@dataclass(frozen=True)
class MarkovSource:
    """A fixed order-K Markov source: ``table`` [V^K, V], row c = p(· | context c) (base-V index, oldest first)."""

    table: torch.Tensor
    vocab: int = VOCAB
    order: int = ORDER

    @property
    def log_table(self) -> torch.Tensor:
        """log p(· | c): [V^K, V]."""
        return self.table.log()


def make_source(seed: int = SOURCE_SEED, vocab: int = VOCAB, order: int = ORDER, alpha: float = ALPHA) -> MarkovSource:
    """The source: each of the V^K rows drawn from Dirichlet(α, …, α) with a generator seeded by ``seed``.

    Returns a MarkovSource whose ``table`` is [V^K, V] float64, each row summing to 1.
    """
    rows = vocab**order
    # numpy's Dirichlet sampler with its own seeded PCG64 stream: the same table on every machine
    weights = torch.from_numpy(np.random.default_rng(seed).dirichlet([alpha] * vocab, size=rows)) + 1e-12
    return MarkovSource(weights / weights.sum(-1, keepdim=True), vocab, order)


def context_index(tokens: torch.Tensor, order: int = ORDER, vocab: int = VOCAB) -> torch.Tensor:
    """Base-V index of the K tokens before each position t ≥ K: Σ_k x_{t−K+k} · V^(K−1−k).

    Shapes: tokens [B, L] -> [B, L − K] long (entry t − K is the context of x_t).
    """
    length = tokens.shape[-1]
    index = torch.zeros((*tokens.shape[:-1], length - order), dtype=torch.long)
    for k in range(order):  # oldest token first
        index = index * vocab + tokens[..., k : length - order + k]
    return index


def sample(source: MarkovSource, batch: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """``batch`` sequences of ``length`` tokens from the source (first K uniform). Returns: [B, L] long."""
    tokens = torch.empty(batch, length, dtype=torch.long)
    tokens[:, : source.order] = torch.randint(0, source.vocab, (batch, min(source.order, length)), generator=generator)
    cumulative = source.table.cumsum(-1)  # [V^K, V]
    for t in range(source.order, length):
        context = context_index(tokens[:, t - source.order : t + 1], source.order, source.vocab)[:, 0]  # [B]
        u = torch.rand(batch, 1, generator=generator, dtype=torch.float64)
        # inverse-CDF draw: the first symbol whose cumulative probability exceeds u
        tokens[:, t] = (cumulative[context] < u).sum(-1).clamp(max=source.vocab - 1)
    return tokens


def true_loss(source: MarkovSource, tokens: torch.Tensor) -> torch.Tensor:
    """The source's own per-token loss −log p(x_t | x_{<t}) for t = 1 … L−1 (log V for t < K).

    This is the floor no model can beat on average. Shapes: tokens [B, L] -> [B, L − 1] float64, entry t − 1 for x_t.
    """
    batch, length = tokens.shape
    loss = torch.full((batch, length - 1), math.log(source.vocab), dtype=torch.float64)
    if length > source.order:
        context = context_index(tokens, source.order, source.vocab)  # [B, L − K]
        log_p = source.log_table[context, tokens[:, source.order :]]  # [B, L − K]
        loss[:, source.order - 1 :] = -log_p
    return loss
