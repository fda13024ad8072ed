"""A small encoder–decoder transformer whose attention logits come from :func:`posenc.attention_scores`.

Shape letters: B = batch, S = source length, T = decoder length, D = d_model, H = heads, Dh = D/H.

One switch, ``pe``, picks where position enters — with the same ``posenc`` functions the pages draw:
- ``"none"``: nowhere. The encoder is then a function of the *set* of tokens: two equal tokens get equal
  queries, keys and values, hence identical attention rows in every layer (exactly, bit for bit).
- ``"sinusoidal"`` (:func:`posenc.sinusoidal`) and ``"learned"`` (:class:`posenc.LearnedPositionalEmbedding`):
  added to the token embeddings of the encoder and of the decoder (x + PE).
- ``"rope"``, ``"t5"`` (:class:`posenc.T5RelativeBias`, one table for the encoder, one causal table for the
  decoder, each shared by all layers as in T5), ``"alibi"`` (symmetric −m·|i − j| in the encoder, causal in the
  decoder): inside every *self*-attention, through ``attention_scores(q, k, pe, …)``.

Cross-attention is content-only (``attention_scores(…, "none")``) for every choice. That is what T5 does (its
cross-attention has no position bias), and the natural one here: a decoder step and an encoder token have no
shared axis on which "distance" means something (the units digit sits at a different source position in every
expression). Absolute encodings still reach cross-attention, because they are part of the encoder's outputs;
relative ones reach it through what self-attention wrote into the tokens.

Architecture: pre-LayerNorm blocks (attention, then a GELU MLP), 2 encoder + 2 decoder layers, 4 heads, D = 64,
no dropout, so CPU training is deterministic. The decoder writes the answer least-significant digit first (see
:mod:`posenc.toy.data`). Source: Vaswani et al., arXiv 1706.03762 §3 (encoder–decoder); pre-LN: Xiong et al.,
arXiv 2002.04745.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from torch import nn

from posenc.absolute import LearnedPositionalEmbedding
from posenc.attention import attention_scores, attention_weights
from posenc.fast import sinusoidal_by_blocks
from posenc.relative import T5RelativeBias
from posenc.toy import data

PE_CHOICES = ("none", "sinusoidal", "learned", "rope", "t5", "alibi")
PE_LABELS = {
    "none": "No PE",
    "sinusoidal": "Sinusoidal",
    "learned": "Learned absolute",
    "rope": "RoPE",
    "t5": "T5 bias",
    "alibi": "ALiBi",
}


@dataclass(frozen=True)
class ToyConfig:
    """Size and positional encoding of the toy model."""

    pe: str = "none"  # one of PE_CHOICES
    d_model: int = 64  # 64 keeps a float16 checkpoint near 0.5 MB
    heads: int = 4  # 4 heads of 16 dimensions
    encoder_layers: int = 2
    decoder_layers: int = 2
    ff_mult: int = 4  # MLP hidden size = ff_mult · d_model
    max_len: int = 16  # positions the learned tables hold (sources ≤ 10 tokens, answers ≤ 7)

    def __post_init__(self) -> None:
        if self.pe not in PE_CHOICES:
            raise ValueError(f"pe must be one of {', '.join(PE_CHOICES)}; got {self.pe!r}.")
        if self.d_model % self.heads or (self.d_model // self.heads) % 2:
            raise ValueError(f"d_model / heads must be a whole even number; got {self.d_model} / {self.heads}.")


@dataclass
class ToyOutput:
    """Logits [B, T, vocab] and the attention weights of every layer: [B, H, Q, K] each."""

    logits: torch.Tensor
    encoder_self: list[torch.Tensor] = field(default_factory=list)  # [B, H, S, S] per encoder layer
    decoder_self: list[torch.Tensor] = field(default_factory=list)  # [B, H, T, T] per decoder layer
    cross: list[torch.Tensor] = field(default_factory=list)  # [B, H, T, S] per decoder layer


class Attention(nn.Module):
    """Multi-head attention: logits from ``attention_scores(q, k, method)``, then padding mask, softmax, α·V."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = (nn.Linear(d_model, d_model) for _ in range(3))
        self.out = nn.Linear(d_model, d_model)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        method: str,
        causal: bool = False,
        key_padding: torch.Tensor | None = None,
        position_bias: torch.Tensor | None = None,
        scale: float | None = None,
        rope_inv_freq: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """x [B, Q, D] attends to memory [B, K, D] -> (output [B, Q, D], weights [B, H, Q, K]).

        ``scale`` (default 1/√Dh) and ``rope_inv_freq`` (stretched RoPE frequencies, [Dh/2]) go to
        :func:`posenc.attention_scores` as they are."""
        q = self.query(x).unflatten(-1, (self.heads, -1)).transpose(1, 2)  # [B, Q, D] -> [B, H, Q, Dh]
        k = self.key(memory).unflatten(-1, (self.heads, -1)).transpose(1, 2)  # [B, H, K, Dh]
        v = self.value(memory).unflatten(-1, (self.heads, -1)).transpose(1, 2)  # [B, H, K, Dh]
        scores = attention_scores(q, k, method, causal=causal, position_bias=position_bias, scale=scale,
                                  rope_inv_freq=rope_inv_freq)  # [B, H, Q, K]  # fmt: skip
        if key_padding is not None:  # padding keys [B, K] never receive attention
            scores = scores.masked_fill(key_padding[:, None, None, :], -math.inf)
        weights = attention_weights(scores)  # softmax over keys, [B, H, Q, K]
        mixed = torch.matmul(weights, v)  # [B, H, Q, K] x [B, H, K, Dh] -> [B, H, Q, Dh]
        return self.out(mixed.transpose(1, 2).flatten(-2)), weights  # [B, Q, D]


class Block(nn.Module):
    """Pre-LN block: x + SelfAttn(LN x) [+ CrossAttn(LN x, memory)] + MLP(LN x)."""

    def __init__(self, config: ToyConfig, cross: bool) -> None:
        super().__init__()
        d = config.d_model
        self.self_norm, self.self_attention = nn.LayerNorm(d), Attention(d, config.heads)
        self.cross_norm = nn.LayerNorm(d) if cross else None
        self.cross_attention = Attention(d, config.heads) if cross else None
        self.mlp_norm = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, config.ff_mult * d), nn.GELU(), nn.Linear(config.ff_mult * d, d))

    def forward(self, x, method, causal, padding, bias, memory=None, memory_padding=None):
        """Returns (x [B, Q, D], self weights [B, H, Q, Q], cross weights [B, H, Q, S] or None)."""
        h = self.self_norm(x)
        update, self_weights = self.self_attention(h, h, method, causal, padding, bias)
        x = x + update
        cross_weights = None
        if self.cross_attention is not None:
            # content-only cross-attention for every PE choice (see the module docstring)
            update, cross_weights = self.cross_attention(self.cross_norm(x), memory, "none", False, memory_padding)
            x = x + update
        return x + self.mlp(self.mlp_norm(x)), self_weights, cross_weights


class ToyTransformer(nn.Module):
    """Encoder–decoder over the 16-token arithmetic vocabulary; every attention map is returned."""

    def __init__(self, config: ToyConfig) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.embed = nn.Embedding(data.VOCAB_SIZE, d)
        if config.pe == "learned":
            self.source_positions = LearnedPositionalEmbedding(config.max_len, d, init_std=0.5)
            self.target_positions = LearnedPositionalEmbedding(config.max_len, d, init_std=0.5)
        if config.pe == "sinusoidal":
            # posenc.sinusoidal by its fast form (equal to ~1e-7), the one the shipped checkpoints were trained with,
            # so that retraining reproduces them bit for bit
            self.register_buffer("table", sinusoidal_by_blocks(config.max_len, d), persistent=False)  # [max_len, D]
        if config.pe == "t5":
            self.source_bias = T5RelativeBias(config.heads, bidirectional=True)
            self.target_bias = T5RelativeBias(config.heads, bidirectional=False)
        self.encoder = nn.ModuleList(Block(config, cross=False) for _ in range(config.encoder_layers))
        self.decoder = nn.ModuleList(Block(config, cross=True) for _ in range(config.decoder_layers))
        self.encoder_norm, self.decoder_norm = nn.LayerNorm(d), nn.LayerNorm(d)
        self.head = nn.Linear(d, data.VOCAB_SIZE)

    def _embed(self, tokens: torch.Tensor, side: str) -> torch.Tensor:
        """Token embeddings [B, L, D], plus the absolute encoding when ``pe`` is sinusoidal or learned."""
        x = self.embed(tokens)
        length = tokens.shape[1]
        if length > self.config.max_len:
            raise ValueError(f"sequences of at most {self.config.max_len} tokens; got {length}.")
        if self.config.pe == "sinusoidal":
            x = x + self.table[:length]  # x + PE, [B, L, D] + [L, D]
        elif self.config.pe == "learned":
            table = self.source_positions if side == "source" else self.target_positions
            x = x + table(length)  # x + E[p], [B, L, D] + [L, D]
        return x

    def _bias(self, side: str, length: int) -> torch.Tensor | None:
        """The T5 bias [H, L, L] of one side, computed once per forward and shared by its layers."""
        if self.config.pe != "t5":
            return None
        return (self.source_bias if side == "source" else self.target_bias)(length)

    def encode(self, source: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """source [B, S] -> (memory [B, S, D], encoder self-attention weights [B, H, S, S] per layer)."""
        padding = source == data.PAD
        x, maps = self._embed(source, "source"), []
        bias = self._bias("source", source.shape[1])
        for block in self.encoder:
            x, weights, _ = block(x, self.config.pe, False, padding, bias)
            maps.append(weights)
        return self.encoder_norm(x), maps

    def decode(self, target: torch.Tensor, memory: torch.Tensor, source: torch.Tensor):
        """target [B, T] (starting with <s>) -> (logits [B, T, vocab], self maps, cross maps)."""
        memory_padding = source == data.PAD
        x, self_maps, cross_maps = self._embed(target, "target"), [], []
        bias = self._bias("target", target.shape[1])
        for block in self.decoder:
            x, weights, cross = block(x, self.config.pe, True, None, bias, memory, memory_padding)
            self_maps.append(weights)
            cross_maps.append(cross)
        return self.head(self.decoder_norm(x)), self_maps, cross_maps

    def forward(self, source: torch.Tensor, target: torch.Tensor) -> ToyOutput:
        """Teacher-forced pass: source [B, S], decoder input [B, T] -> logits [B, T, vocab] and all maps."""
        memory, encoder_maps = self.encode(source)
        logits, self_maps, cross_maps = self.decode(target, memory, source)
        return ToyOutput(logits, encoder_maps, self_maps, cross_maps)

    @torch.no_grad()
    def generate(self, source: torch.Tensor, max_steps: int = data.MAX_TARGET_LEN + 1) -> torch.Tensor:
        """Greedy decoding: source [B, S] -> tokens [B, ≤ max_steps] after <s> (argmax each step)."""
        memory, _ = self.encode(source)
        target = torch.full((source.shape[0], 1), data.BOS, dtype=torch.long)
        for _ in range(max_steps):
            logits, _, _ = self.decode(target, memory, source)
            target = torch.cat((target, logits[:, -1].argmax(-1, keepdim=True)), dim=1)
            if bool((target == data.EOS).any(dim=1).all()):
                break
        return target[:, 1:]


@dataclass
class ToyAnswer:
    """The model's answer to one expression, with every attention map of the pass that produced it.

    ``source_tokens`` label the encoder axis; ``target_tokens`` label the decoder axis (<s> and the answer as
    written, digits reversed). Maps: ``encoder_self`` [H, S, S], ``decoder_self`` [H, T, T], ``cross`` [H, T, S],
    one per layer.
    """

    expression: data.Expression
    text: str
    correct: bool
    source_tokens: list[str]
    target_tokens: list[str]
    encoder_self: list[torch.Tensor]
    decoder_self: list[torch.Tensor]
    cross: list[torch.Tensor]


@contextmanager
def single_thread() -> Iterator[None]:
    """Run torch on one CPU thread inside the block, then restore the previous count.

    With several threads, a matrix product splits its rows between threads whose kernels round differently, so
    two equal rows of x can come out of x·W differing in the last bit (≈ 1e-7). On one thread every row gets the
    same arithmetic, and equal tokens stay bit-for-bit equal — the exact statement the no-PE demonstration makes.
    The thread count is the process's: a server answering for several sessions at once serialises the blocks
    (``ui.toy_training.answer_alone``).
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@torch.no_grad()
def answer(model: ToyTransformer, expression: str | data.Expression) -> ToyAnswer:
    """Greedy answer to one expression ("21+211=" or a parsed Expression) and all its attention maps.

    Runs on one thread (see :func:`single_thread`), so without PE equal tokens get bit-identical attention rows.
    Raises ``ValueError`` (from :func:`posenc.toy.data.parse_expression`) for text outside the grammar.
    """
    if isinstance(expression, str):
        expression = data.parse_expression(expression)
    with single_thread():
        return _answer(model, expression)


def _answer(model: ToyTransformer, expression: data.Expression) -> ToyAnswer:
    """The body of :func:`answer`, for a parsed expression."""
    model.eval()
    source = torch.tensor([data.encode_source(expression)])  # [1, S]
    written = model.generate(source)[0].tolist()
    if data.EOS in written:
        written = written[: written.index(data.EOS) + 1]
    text = data.decode_answer(written)
    # decoder input = <s> + the answer tokens it wrote; row t of each decoder map is the step that wrote token t
    target = torch.tensor([[data.BOS, *(t for t in written if t != data.EOS)]])  # [1, T]
    output = model(source, target)  # one pass over the whole answer gives every map at once
    return ToyAnswer(
        expression=expression,
        text=text,
        correct=text == str(expression.result),
        source_tokens=[data.TOKENS[t] for t in source[0].tolist()],
        target_tokens=[data.TOKENS[t] for t in target[0].tolist()],
        encoder_self=[m[0] for m in output.encoder_self],
        decoder_self=[m[0] for m in output.decoder_self],
        cross=[m[0] for m in output.cross],
    )


@torch.no_grad()
def exact_match(model: ToyTransformer, expressions: list[data.Expression], batch_size: int = 1000) -> float:
    """Fraction of expressions whose greedy answer equals the true one, character for character."""
    model.eval()
    right = 0
    for start in range(0, len(expressions), batch_size):
        chunk = expressions[start : start + batch_size]
        written = model.generate(data.make_batch(chunk).source).tolist()
        right += sum(data.decode_answer(w) == str(e.result) for w, e in zip(written, chunk, strict=True))
    return right / max(len(expressions), 1)


def save_checkpoint(model: ToyTransformer, path: str | Path) -> None:
    """Write the config and a float16 state dict (≈ 0.5 MB for D = 64)."""
    state = {name: tensor.detach().to(torch.float16) for name, tensor in model.state_dict().items()}
    torch.save({"config": asdict(model.config), "state_dict": state}, Path(path))


def load_checkpoint(path: str | Path) -> ToyTransformer:
    """Read a checkpoint written by :func:`save_checkpoint` into a float32 model in eval mode."""
    saved = torch.load(Path(path), map_location="cpu", weights_only=True)
    model = ToyTransformer(ToyConfig(**saved["config"]))
    model.load_state_dict({name: tensor.float() for name, tensor in saved["state_dict"].items()})
    return model.eval()


def round_to_float16(model: ToyTransformer) -> ToyTransformer:
    """Round every weight to float16 and back, in place: the model then equals what the checkpoint holds."""
    with torch.no_grad():
        for tensor in model.state_dict().values():
            if tensor.is_floating_point():
                tensor.copy_(tensor.half().float())
    return model


@dataclass(frozen=True)
class RepeatedToken:
    """A token that occurs more than once in the source, and how different its encoder attention rows are.

    ``max_difference[l]`` = max over heads h, keys k and pairs of occurrences (i, j) of |α^l_h[i, k] − α^l_h[j, k]|.
    """

    token: str
    positions: list[int]
    max_difference: list[float]


def repeated_token_differences(result: ToyAnswer) -> list[RepeatedToken]:
    """For each repeated source token (most repeated first), the largest gap between its occurrences' rows, per layer.

    Without PE every gap is exactly 0: equal embeddings give equal queries, so equal rows. Shapes: each encoder
    map [H, S, S]; rows are compared across all H heads and S keys.
    """
    found = []
    for token in dict.fromkeys(result.source_tokens):
        positions = [i for i, t in enumerate(result.source_tokens) if t == token]
        if len(positions) < 2:
            continue
        gaps = []
        for weights in result.encoder_self:  # [H, S, S]
            rows = weights[:, positions, :]  # [H, n, S]: the rows of every occurrence
            # max_{h, i, j, k} |α_h[i, k] − α_h[j, k]| = max_{h, k} (max_i α_h[i, k] − min_i α_h[i, k])
            gaps.append(float((rows.max(dim=1).values - rows.min(dim=1).values).max()))
        found.append(RepeatedToken(token, positions, gaps))
    return sorted(found, key=lambda repeated: -len(repeated.positions))  # the most repeated token first


ASSETS = Path(__file__).resolve().parents[2] / "assets" / "toy"


def shipped_checkpoint(pe: str, directory: Path = ASSETS) -> ToyTransformer:
    """The trained model shipped for ``pe`` (``assets/toy/<pe>.pt``); ValueError if it is not there."""
    if pe not in PE_CHOICES:
        raise ValueError(f"pe must be one of {', '.join(PE_CHOICES)}; got {pe!r}.")
    path = Path(directory) / f"{pe}.pt"
    if not path.exists():
        raise ValueError(f"No trained model for {PE_LABELS[pe]} yet: run python -m posenc.toy.train --pe {pe}.")
    return load_checkpoint(path)


def shipped_metrics(directory: Path = ASSETS) -> list[dict]:
    """The metrics file of every shipped checkpoint, in the order of PE_CHOICES (missing ones left out)."""
    found = []
    for pe in PE_CHOICES:
        path = Path(directory) / f"{pe}.json"
        if path.exists():
            found.append(json.loads(path.read_text()))
    return found
