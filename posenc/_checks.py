"""Argument checks shared by every encoding.

Each check raises ``ValueError`` with a message that says what was wrong and what is allowed, so a bad
slider value or URL parameter fails at the door with a sentence, never later with a shape error.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable


def positive_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` ≥ 1, or raise ``ValueError``."""
    number = _as_int(name, value)
    if number <= 0:
        raise ValueError(f"{name} must be a positive whole number (1, 2, 3, …); got {number}.")
    return number


def non_negative_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` ≥ 0, or raise ``ValueError``."""
    number = _as_int(name, value)
    if number < 0:
        raise ValueError(f"{name} must be 0 or more (a distance cannot be negative); got {number}.")
    return number


def even_dim(name: str, value: object) -> int:
    """Return ``value`` as a positive even ``int``: encodings that work on (sin, cos) or rotation pairs need it."""
    number = positive_int(name, value)
    if number % 2:
        raise ValueError(
            f"{name} must be even, because dimensions are used in pairs; got {number}. "
            f"Try {number - 1 if number > 1 else 2} or {number + 1}."
        )
    return number


def base_above_one(name: str, value: object) -> float:
    """Return ``value`` as a finite ``float`` > 1 (a frequency base; base ≤ 1 would make no wavelengths grow)."""
    number = finite_float(name, value)
    if number <= 1.0:
        raise ValueError(f"{name} must be greater than 1 (10000 is the usual choice); got {number:g}.")
    return number


def positive_float(name: str, value: object) -> float:
    """Return ``value`` as a finite ``float`` > 0."""
    number = finite_float(name, value)
    if number <= 0:
        raise ValueError(f"{name} must be greater than 0; got {number:g}.")
    return number


def finite_float(name: str, value: object) -> float:
    """Return ``value`` as a finite ``float``."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number; got {value!r}.")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}.") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number; got {number}.")
    return number


def choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise ``ValueError`` listing the allowed values."""
    options = tuple(allowed)
    if value not in options:
        listed = ", ".join(repr(option) for option in options)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}.")
    return value  # type: ignore[return-value]


def qk_shapes(q, k) -> tuple[int, int, int, int]:
    """(heads, q_len, k_len, dim) of q [..., H, Q, D] and k [..., H, K, D], or a ValueError saying what is off."""
    if q.dim() < 3 or k.dim() < 3:
        raise ValueError(f"q and k must have shape [..., heads, seq, dim]; got {tuple(q.shape)} and {tuple(k.shape)}.")
    heads, q_len, dim = q.shape[-3:]
    if k.shape[-3] != heads or k.shape[-1] != dim:
        raise ValueError(
            f"q and k must agree in heads and dim: q is [..., {heads}, {q_len}, {dim}], k is {tuple(k.shape)}."
        )
    return heads, q_len, k.shape[-2], dim


def _as_int(name: str, value: object) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number; got {value!r}.")
    try:
        return operator.index(value)  # accepts int, numpy and torch integer scalars, not 2.5
    except TypeError:
        pass
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValueError(f"{name} must be a whole number; got {value!r}.")
