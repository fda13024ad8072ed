"""Seeded Gaussian draws for the illustrations (random, untrained weights and vectors).

torch draws float32 normals about 6× faster than float64 ones (a [1024, 1024] draw: ~4 ms against ~22 ms on one
core), and the pages redraw up to a few million of them when a slider moves. The values are drawn in float32 and
widened to float64, so everything computed from them is still float64: only the random inputs have float32
resolution, which no illustration can show.
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def gaussian(generator: torch.Generator, *shape: int, std: float = 1.0) -> torch.Tensor:
    """N(0, std²) values of ``shape`` from ``generator`` (drawn as float32), returned as float64."""
    # scaled in place: a [1024, 1024] draw makes one float64 tensor, not two (~1.3 ms less, the same values)
    return torch.randn(*shape, generator=generator, dtype=torch.float32).to(torch.float64).mul_(std)


# The largest sizes the app draws an illustration at (ui.limits: dim ≤ 1024; score windows ≤ 64 positions; DeBERTa's
# table ≤ 2 · 64 rows): an illustration's random inputs are leading blocks of draws at least this large.
BLOCK_DIM = 1024
BLOCK_ROWS = 128


def padded(size: int, least: int) -> int:
    """The size of the draw a block of ``size`` is cut from: max(size, least)."""
    return max(int(size), least)


def draw_standard(seed: int, shapes: tuple[tuple[int, ...], ...]) -> tuple[torch.Tensor, ...]:
    """N(0, 1) float32 values of each shape in turn, from one generator seeded ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*shape, generator=generator, dtype=torch.float32) for shape in shapes)


def draw_standard64(seed: int, shapes: tuple[tuple[int, ...], ...]) -> tuple[torch.Tensor, ...]:
    """:func:`draw_standard`'s values widened to float64 (exactly: the same numbers)."""
    return tuple(draw.to(torch.float64) for draw in draw_standard(seed, shapes))


# what the illustrations read; the app has it remember its draws (remember_draws)
_DRAW = {"standard": draw_standard, "standard64": draw_standard64}


def remember_draws(memo: Callable[[Callable], Callable]) -> None:
    """Make each seeded draw once per process: ``memo`` wraps :func:`draw_standard` (the app passes
    ``ui.once.computed_once(maxsize=16)``, which has one thread compute an entry while the others wait; a [1024, 1024]
    draw is 4 MB), and so of :func:`draw_standard64` (8 MB). posenc itself keeps no cache: in a notebook every call
    draws anew, the same values."""
    _DRAW["standard"] = memo(draw_standard)
    _DRAW["standard64"] = memo(draw_standard64)


def standard_draws(seed: int, shapes: tuple[tuple[int, ...], ...]) -> tuple[torch.Tensor, ...]:
    """:func:`draw_standard`, remembered when the app asked for it (:func:`remember_draws`): read the values, never
    modify them (:func:`leading_blocks` copies what it returns)."""
    return _DRAW["standard"](seed, shapes)


def leading_blocks(
    seed: int, draws: tuple[tuple[int, ...], ...], blocks: tuple[tuple[int, ...], ...], stds: tuple[float, ...]
) -> tuple[torch.Tensor, ...]:
    """N(0, std²) values (float64): each block is ``draw[:a, :b, …]`` of a seeded N(0, 1) draw of the shape in
    ``draws``, the draws made in turn from one generator seeded ``seed``. With draw shapes fixed (see
    :func:`padded`), a larger dim or length only adds rows and columns to the same values, and in the app the draws
    are made once per process (:func:`remember_draws`)."""
    _check_fits(draws, blocks)
    cut = zip(standard_draws(seed, draws), blocks, stds, strict=True)
    # each block a new float64 tensor (never a view of the cached draw), scaled in place
    return tuple(draw[tuple(slice(0, n) for n in block)].to(torch.float64).mul_(std) for draw, block, std in cut)


def leading_views(
    seed: int, draws: tuple[tuple[int, ...], ...], blocks: tuple[tuple[int, ...], ...]
) -> tuple[torch.Tensor, ...]:
    """N(0, 1) float64 values: each block is ``draw[:a, :b, …]`` of a seeded draw, as :func:`leading_blocks` cuts it
    (the same numbers, unscaled), but a view of the remembered float64 draw, not a copy: a [D, D] weight costs
    nothing to cut, where widening and scaling it costs ~1 ms per million values. Read the views, never modify them;
    scale what is computed from them (W·x·std = (std·W)·x, up to rounding)."""
    _check_fits(draws, blocks)
    whole = _DRAW["standard64"](seed, draws)
    return tuple(draw[tuple(slice(0, n) for n in block)] for draw, block in zip(whole, blocks, strict=True))


def _check_fits(draws: tuple[tuple[int, ...], ...], blocks: tuple[tuple[int, ...], ...]) -> None:
    if any(
        len(b) != len(d) or any(n > m for n, m in zip(b, d, strict=True)) for b, d in zip(blocks, draws, strict=True)
    ):
        raise ValueError(f"each block must fit in its draw; got blocks {blocks} of draws {draws}.")
