"""A small decoder-only (causal) language model whose attention logits come from :func:`posenc.attention_scores`.

Shape letters: B = batch, L = sequence length, D = d_model, H = heads, Dh = D/H, V = vocabulary, P = Dh/2.

The models of the "train short, test long" experiment (:mod:`posenc.toy.extrapolate`): identical except for
``pe``, which picks where position enters — with the same ``posenc`` functions the pages draw:
- ``"none"`` (NoPE): nowhere. Only the causal mask tells a token how many tokens came before it.
- ``"sinusoidal"`` (:func:`posenc.sinusoidal`, computed for any length) and ``"learned"``
  (:class:`posenc.LearnedPositionalEmbedding`, ``max_len`` rows): added to the token embeddings (x + PE).
  The learned table has no row past ``max_len − 1``; at longer lengths every later position reuses the last row
  (clamped: E[min(p, max_len − 1)]), a definition this module makes explicit, see :meth:`CausalLM.embed_positions`.
- ``"t5"`` (:class:`posenc.T5RelativeBias`, causal buckets, one table shared by all layers as in T5),
  ``"alibi"`` (causal −m_h·(i − j)), ``"rope"`` (q, k rotated): inside every self-attention.

RoPE can be evaluated with stretched frequencies (:func:`posenc.rope_scaled_inv_freq`): ``forward(…, rope=...)``
takes (inv_freq [P], attention_factor); the factor multiplies cos and sin, so the logits by its square (YaRN).

Architecture: pre-LayerNorm blocks (causal attention, then a GELU MLP), no dropout, no weight tying: the block of
the arithmetic model (:mod:`posenc.toy.model`) without cross-attention. Sources: Radford et al. 2019 (GPT-2,
decoder-only LM); pre-LN: Xiong et al., arXiv 2002.04745; the encodings: :mod:`posenc.attention`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from posenc.absolute import LearnedPositionalEmbedding, sinusoidal
from posenc.relative import T5RelativeBias
from posenc.toy.model import PE_CHOICES, Attention

RopeScaling = tuple[torch.Tensor, float]  # (inv_freq [P], attention factor) from posenc.rope_scaled_inv_freq


@dataclass(frozen=True)
class LMConfig:
    """Size and positional encoding of the causal toy LM."""

    pe: str = "none"  # one of PE_CHOICES
    vocab: int = 8  # symbols of the Markov source
    d_model: int = 64  # 64 keeps a float16 checkpoint near 0.2 MB
    heads: int = 4  # 4 heads of 16 dimensions (8 RoPE pairs)
    layers: int = 2
    ff_mult: int = 4  # MLP hidden size = ff_mult · d_model
    max_len: int = 64  # rows of the learned table = the training length
    rope_base: float = 10000.0  # θ_i = base^(−2i/Dh)

    def __post_init__(self) -> None:
        if self.pe not in PE_CHOICES:
            raise ValueError(f"pe must be one of {', '.join(PE_CHOICES)}; got {self.pe!r}.")
        if self.d_model % self.heads or (self.d_model // self.heads) % 2:
            raise ValueError(f"d_model / heads must be a whole even number; got {self.d_model} / {self.heads}.")


class LMBlock(nn.Module):
    """Pre-LN block: x + CausalAttn(LN x), then x + MLP(LN x)."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        d = config.d_model
        self.attention_norm, self.attention = nn.LayerNorm(d), Attention(d, config.heads)  # the toy model's
        self.mlp_norm = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, config.ff_mult * d), nn.GELU(), nn.Linear(config.ff_mult * d, d))

    def forward(self, x, pe, bias, rope):
        """Returns (x [B, L, D], attention weights [B, H, L, L]): causal self-attention, logits from
        ``attention_scores(q, k, pe, causal=True)``."""
        scale, inv_freq = None, None
        if rope is not None:
            inv_freq, factor = rope
            # cos, sin × factor on both q and k: the logits × factor² (YaRN's attention temperature)
            scale = factor**2 / math.sqrt(self.attention.query.out_features // self.attention.heads)
        h = self.attention_norm(x)
        update, weights = self.attention(h, h, pe, causal=True, position_bias=bias, scale=scale, rope_inv_freq=inv_freq)
        x = x + update
        return x + self.mlp(self.mlp_norm(x)), weights


@dataclass
class LMOutput:
    """Next-token logits [B, L, V] (row t predicts x_{t+1}) and each layer's attention weights [B, H, L, L]."""

    logits: torch.Tensor
    attention: list[torch.Tensor]


class CausalLM(nn.Module):
    """Decoder-only LM over a small vocabulary; any length for every ``pe`` (see the module docstring)."""

    def __init__(self, config: LMConfig) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        # the shared parts first, so that one seed gives every encoding the same initial weights for them
        self.embed = nn.Embedding(config.vocab, d)
        self.blocks = nn.ModuleList(LMBlock(config) for _ in range(config.layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, config.vocab)
        if config.pe == "learned":
            self.positions = LearnedPositionalEmbedding(config.max_len, d, init_std=0.5)
        if config.pe == "t5":
            self.bias = T5RelativeBias(config.heads, bidirectional=False)

    def embed_positions(self, length: int) -> torch.Tensor | None:
        """The absolute encoding added to the tokens, [L, D]; None for the encodings that act inside attention.

        Learned: E[min(p, max_len − 1)] — positions past the table reuse its last row (the table has nothing else
        to give; a model that never saw them cannot be told apart from one given the last position it knows).
        """
        if self.config.pe == "sinusoidal":
            return sinusoidal(length, self.config.d_model)  # PE(p), [L, D]
        if self.config.pe == "learned":
            positions = torch.arange(length).clamp(max=self.config.max_len - 1)  # [L]
            return self.positions(positions)  # E[min(p, max_len − 1)], [L, D]
        return None

    def forward(self, tokens: torch.Tensor, rope: RopeScaling | None = None) -> LMOutput:
        """tokens [B, L] -> logits [B, L, V]; ``rope`` = (inv_freq, attention factor) to stretch RoPE."""
        if rope is not None and self.config.pe != "rope":
            raise ValueError(f"RoPE scaling applies to the RoPE model only; this one uses {self.config.pe!r}.")
        length = tokens.shape[1]
        x = self.embed(tokens)  # [B, L, D]
        table = self.embed_positions(length)
        if table is not None:
            x = x + table  # x + PE, [B, L, D] + [L, D]
        bias = self.bias(length) if self.config.pe == "t5" else None  # [H, L, L], shared by the layers
        maps = []
        for block in self.blocks:
            x, weights = block(x, self.config.pe, bias, rope)
            maps.append(weights)
        return LMOutput(self.head(self.norm(x)), maps)


def token_losses(model: CausalLM, tokens: torch.Tensor, rope: RopeScaling | None = None) -> torch.Tensor:
    """Cross-entropy −log p_model(x_t | x_{<t}) for t = 1 … L−1. Shapes: tokens [B, L] -> [B, L − 1]."""
    logits = model(tokens[:, :-1], rope).logits  # [B, L − 1, V]
    return nn.functional.cross_entropy(logits.transpose(1, 2), tokens[:, 1:], reduction="none")  # [B, L − 1]


def save_lm(model: CausalLM, path: str | Path, extra: dict | None = None) -> None:
    """Write the config and a float16 state dict (≈ 0.2 MB for D = 64), plus ``extra`` (e.g. a fine-tune's RoPE)."""
    state = {name: tensor.detach().to(torch.float16) for name, tensor in model.state_dict().items()}
    torch.save({"config": asdict(model.config), "state_dict": state, "extra": extra or {}}, Path(path))


def load_lm(path: str | Path) -> tuple[CausalLM, dict]:
    """Read a checkpoint written by :func:`save_lm`: (float32 model in eval mode, its ``extra`` dict)."""
    saved = torch.load(Path(path), map_location="cpu", weights_only=True)
    model = CausalLM(LMConfig(**saved["config"]))
    model.load_state_dict({name: tensor.float() for name, tensor in saved["state_dict"].items()})
    return model.eval(), saved.get("extra", {})


def round_lm_to_float16(model: CausalLM) -> CausalLM:
    """Round every weight to float16 and back, in place: the model then equals what the checkpoint holds."""
    with torch.no_grad():
        for tensor in model.state_dict().values():
            if tensor.is_floating_point():
                tensor.copy_(tensor.half().float())
    return model


@torch.no_grad()
def attention_maps(model: CausalLM, tokens: torch.Tensor, rope: RopeScaling | None = None) -> list[torch.Tensor]:
    """Every layer's attention weights for one sequence: tokens [L] -> one [H, L, L] per layer (rows sum to 1)."""
    return [weights[0] for weights in model.eval()(tokens[None], rope).attention]


def cosine_similarity_matrix(table: torch.Tensor) -> torch.Tensor:
    """cos(PE_i, PE_j) = PE_i·PE_j / (|PE_i| |PE_j|) for every pair of rows: the PE·PEᵀ of unit-length rows.

    Shapes: table [L, D] -> [L, L]. For the sinusoid every row has length √(D/2), so this is PE·PEᵀ / (D/2).
    """
    unit = table / table.norm(dim=-1, keepdim=True).clamp_min(1e-12)  # [L, D]
    return unit @ unit.T  # [L, D] x [D, L] -> [L, L]
