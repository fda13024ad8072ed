"""The arithmetic task: "i+j=" → i+j and "i-j=" → i−j for 0 ≤ i, j < 1000, as character tokens.

Shape letters: B = batch, S = source (expression) length, T = target (answer) length.

- Source: the expression exactly as a person writes it, one token per character: ``21+211=`` → 2 1 + 2 1 1 =.
  No leading zeros and no padding inside the numbers, so the tens-place "1" and the units-place "1" of 211 are
  the same token — only positional information can tell them apart.
- Target: the answer with its digits reversed (least significant first), after a "-" sign when negative:
  232 → 2 3 2, −190 → - 0 9 1. Written this way, each digit depends only on digits already written plus one
  carry or borrow, the order in which people add by hand (see the module docstring of :mod:`posenc.toy.model`).
- Splits: a pair (i, j) is *held out* — never trained on, for "+" or "−" — when a fixed hash of it falls in the
  lowest 1 %; the out-of-length split uses 4-digit operands (1000–9999), longer than anything in training.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import torch

PAD, BOS, EOS = 0, 1, 2
SYMBOLS = "0123456789+-="
TOKENS = ("<pad>", "<s>", "</s>", *SYMBOLS)  # token id -> text
TOKEN_ID = {text: index for index, text in enumerate(TOKENS)}
VOCAB_SIZE = len(TOKENS)  # 16

MAX_OPERAND = 1000  # training operands are 0 … 999
MAX_DIGITS = 4  # what parse_expression accepts: 3-digit numbers, plus 4-digit ones for the length test
MAX_SOURCE_LEN = 2 * MAX_DIGITS + 2  # "9999+9999=" -> 10 tokens
MAX_TARGET_LEN = MAX_DIGITS + 2  # "-" + up to 5 digits ("9999+9999" = 19998), before the end token
HELD_OUT_PER_MILLE = 10  # 1 % of the operand pairs are held out
OPERATORS = ("+", "-")

_EXPRESSION = re.compile(r"(\d+)([+-])(\d+)=?")


@dataclass(frozen=True)
class Expression:
    """One problem ``left op right =``; ``op`` is "+" or "-"."""

    left: int
    op: str
    right: int

    @property
    def text(self) -> str:
        """The expression as the model reads it, e.g. "21+211="."""
        return f"{self.left}{self.op}{self.right}="

    @property
    def result(self) -> int:
        """The true answer, from Python's integer arithmetic."""
        return self.left + self.right if self.op == "+" else self.left - self.right


def parse_expression(text: str) -> Expression:
    """Read a typed expression such as "21+211=" (the "=" is optional, spaces are ignored).

    Accepts ``a+b`` or ``a-b`` with whole numbers a, b of 1 to 4 digits and no leading zeros. Raises
    ``ValueError`` with a sentence saying what the model accepts for anything else.
    """
    accepted = (
        'The model reads expressions like "21+211=" or "907-45=": two whole numbers of 1 to 4 digits '
        '(0–9999) with "+" or "-" between them.'
    )
    if not isinstance(text, str):
        raise ValueError(f"Type an expression. {accepted}")
    compact = "".join(text.split())
    if not compact:
        raise ValueError(f"The expression is empty. {accepted}")
    if len(compact) > 40:
        raise ValueError(f"The expression is too long ({len(compact)} characters). {accepted}")
    stray = sorted({char for char in compact if char not in SYMBOLS})
    if stray:
        shown = ", ".join(repr(char) for char in stray[:5])
        raise ValueError(f"Only digits, '+', '-' and '=' are allowed; found {shown}. {accepted}")
    match = _EXPRESSION.fullmatch(compact)
    if match is None:
        raise ValueError(
            f'"{compact}" is not of the form number, "+" or "-", number, "=" (one operator, no sign in front of '
            f"a number, one '=' at the end). {accepted}"
        )
    left, op, right = match.groups()
    for number in (left, right):
        if len(number) > MAX_DIGITS:
            raise ValueError(
                f"{number} has {len(number)} digits; the model accepts at most {MAX_DIGITS} (it was trained on "
                f"0–999; 4-digit numbers test whether it generalizes to longer inputs). {accepted}"
            )
        if len(number) > 1 and number[0] == "0":
            raise ValueError(f"Write {number} without leading zeros ({int(number)}). {accepted}")
    return Expression(int(left), op, int(right))


def encode_source(expression: Expression) -> list[int]:
    """Token ids of the expression text: "21+211=" -> [5, 4, 13, 5, 4, 4, 15]."""
    return [TOKEN_ID[char] for char in expression.text]


def answer_tokens(result: int) -> list[int]:
    """Token ids of an answer, digits reversed: 232 -> "2 3 2", −190 -> "- 0 9 1" (no start/end tokens)."""
    sign = [TOKEN_ID["-"]] if result < 0 else []
    return sign + [TOKEN_ID[char] for char in reversed(str(abs(result)))]


def decode_answer(tokens: list[int]) -> str:
    """Inverse of :func:`answer_tokens`, read up to the end token: [14, 3, 12, 4] -> "-190".

    Returns the text in the usual order, or "?" + the raw text when the tokens are not a number.
    """
    chars = []
    for token in tokens:
        if token == EOS:
            break
        chars.append(TOKENS[token] if 0 <= token < VOCAB_SIZE else "?")
    sign = "-" if chars[:1] == ["-"] else ""
    digits = chars[1:] if sign else chars
    if not digits or not all(char.isdigit() for char in digits):
        return "?" + "".join(chars)
    return sign + "".join(reversed(digits))


def is_held_out(left, right) -> np.ndarray:
    """True where the pair (left, right) belongs to the held-out split: a splitmix64 hash of 10000·i + j below 1 %.

    Works on ints or integer arrays (broadcast); the answer never depends on the operator or on the run.
    """
    key = np.asarray(left, dtype=np.uint64) * np.uint64(10_000) + np.asarray(right, dtype=np.uint64)
    with np.errstate(over="ignore"):  # the hash multiplies modulo 2^64 on purpose
        z = key + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(1000)) < np.uint64(HELD_OUT_PER_MILLE)


def held_out_pairs() -> np.ndarray:
    """Every held-out operand pair (i, j), 0 ≤ i, j < 1000, in order. Returns: [N, 2] int64 (N ≈ 10,000)."""
    grid = np.stack(np.meshgrid(np.arange(MAX_OPERAND), np.arange(MAX_OPERAND), indexing="ij"), -1).reshape(-1, 2)
    return grid[is_held_out(grid[:, 0], grid[:, 1])].astype(np.int64)


def held_out_expressions(limit: int | None = None, seed: int = 0) -> list[Expression]:
    """The held-out split: every held-out pair with "+" and with "-" (≈ 20,000 expressions).

    ``limit`` takes a fixed random sample of that many (drawn with ``seed``), for quick evaluation.
    """
    pairs = held_out_pairs()
    items = [Expression(int(i), op, int(j)) for i, j in pairs for op in OPERATORS]
    if limit is not None and limit < len(items):
        order = torch.randperm(len(items), generator=torch.Generator().manual_seed(seed))[:limit]
        items = [items[index] for index in order.tolist()]
    return items


def out_of_length_expressions(count: int = 2000, seed: int = 1) -> list[Expression]:
    """A fixed sample of expressions with two 4-digit operands (1000–9999): longer than every training input."""
    generator = torch.Generator().manual_seed(seed)
    numbers = torch.randint(1000, 10_000, (count, 2), generator=generator).tolist()
    ops = torch.randint(0, 2, (count,), generator=generator).tolist()
    return [Expression(i, OPERATORS[o], j) for (i, j), o in zip(numbers, ops, strict=True)]


def sample_training(batch_size: int, generator: torch.Generator) -> list[Expression]:
    """``batch_size`` training expressions drawn uniformly from the pairs that are not held out (deterministic)."""
    chosen: list[Expression] = []
    while len(chosen) < batch_size:
        numbers = torch.randint(0, MAX_OPERAND, (batch_size, 2), generator=generator).numpy()
        ops = torch.randint(0, 2, (batch_size,), generator=generator).tolist()
        keep = ~is_held_out(numbers[:, 0], numbers[:, 1])
        chosen.extend(
            Expression(int(i), OPERATORS[o], int(j))
            for (i, j), o, k in zip(numbers.tolist(), ops, keep.tolist(), strict=True)
            if k
        )
    return chosen[:batch_size]


@dataclass(frozen=True)
class Batch:
    """Padded token tensors: ``source`` [B, S]; decoder input ``<s> answer`` and output ``answer </s>``, [B, T+1]."""

    source: torch.Tensor
    decoder_input: torch.Tensor
    decoder_output: torch.Tensor


def make_batch(expressions: list[Expression]) -> Batch:
    """Tokenize and right-pad a list of expressions with their true answers (for teacher-forced training)."""
    sources = [encode_source(e) for e in expressions]
    answers = [answer_tokens(e.result) for e in expressions]
    source = _pad(sources)
    decoder_input = _pad([[BOS, *a] for a in answers])
    decoder_output = _pad([[*a, EOS] for a in answers])
    return Batch(source, decoder_input, decoder_output)


def _pad(rows: list[list[int]]) -> torch.Tensor:
    """Right-pad token lists with PAD into one [B, max length] long tensor."""
    width = max(len(row) for row in rows)
    return torch.tensor([row + [PAD] * (width - len(row)) for row in rows], dtype=torch.long)
