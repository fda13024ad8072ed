"""Defaults and bounds of every shared control, in one place. Plain Python: no Streamlit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SharedLimits:
    """Bounds keep every setting cheap enough for a classroom server; defaults open on a readable picture."""

    dim_default: int = 128  # the RoPE paper's Figure 2 uses d = 128; also a typical head dimension
    dim_min: int = 2  # one (sin, cos) / rotation pair
    dim_max: int = 1024  # a 4096 × 1024 table is ~16 MB in float32: the most one rerun should compute
    dim_step: int = 2  # dimensions come in pairs, so odd values cannot be chosen
    length_default: int = 64  # short enough that every position is its own heatmap row
    length_min: int = 2  # one position has no neighbour to compare with
    length_max: int = 4096  # longer contexts are shown on the decay page as distances, not tables
    base_default: float = 10000.0  # Vaswani et al. and RoFormer
    # 1, 1.5, 2, 3, 5, 7 in every decade from 10 to 1 000 000: the paper's 10 000, Llama 3's 500 000, and small bases
    # that show the effect, close enough together that a live chart moves smoothly while base is dragged
    base_options: tuple[float, ...] = (*(float(m * 10**k) for k in range(1, 6) for m in (1, 1.5, 2, 3, 5, 7)), 1e6)
    heads_default: int = 8  # ALiBi's paper example: slopes 1/2 … 1/256
    heads_min: int = 1
    heads_max: int = 16  # enough to show non-power-of-two slopes (e.g. 12) without unreadable grids


LIMITS = SharedLimits()

SHARED_NAMES = ("base", "dim", "length", "heads")


def shared_default(name: str) -> float | int:
    """The default value of shared control ``name``."""
    return getattr(LIMITS, f"{name}_default")
