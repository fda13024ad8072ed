"""Seeded Gaussian draws for the illustrations (random, untrained weights and vectors).

torch draws float32 normals about 6× faster than float64 ones (a [1024, 1024] draw: ~4 ms against ~22 ms on one
core), and the pages redraw up to a few million of them when a slider moves. The values are drawn in float32 and
widened to float64, so everything computed from them is still float64: only the random inputs have float32
resolution, which no illustration can show.
"""

from __future__ import annotations

import torch


def gaussian(generator: torch.Generator, *shape: int, std: float = 1.0) -> torch.Tensor:
    """N(0, std²) values of ``shape`` from ``generator`` (drawn as float32), returned as float64."""
    # scaled in place: a [1024, 1024] draw makes one float64 tensor, not two (~1.3 ms less, the same values)
    return torch.randn(*shape, generator=generator, dtype=torch.float32).to(torch.float64).mul_(std)
