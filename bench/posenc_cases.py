"""Timings of the math core: the sinusoid table (the app's fast form against its budget, the textbook form beside it)
and three ways to rotate queries with RoPE, in the same run."""

from __future__ import annotations

import torch

from bench.budgets import SINUSOIDAL_MS, Row
from bench.timing import median_ms
from posenc.absolute import sinusoidal
from posenc.fast import sinusoidal_by_blocks
from posenc.rope import apply_rope, apply_rope_complex, rope_inv_freq, rotate_half

SIZES = {"sinusoid": (8192, 2048), "rope": (1, 8, 8192, 64)}  # the sizes the issue names (--quick too)


def rotate_half_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """The common formulation (Hugging Face ``apply_rotary_pos_emb``), angles included as in ``apply_rope``.

    emb = cat(m·θ, m·θ) over the full dimension; x·cos(emb) + rotate_half(x)·sin(emb).
    """
    seq, dim = x.shape[-2], x.shape[-1]
    freqs = torch.outer(torch.arange(seq, dtype=torch.float32), rope_inv_freq(dim, base))  # [L, D/2]
    emb = torch.cat((freqs, freqs), dim=-1)  # [L, D]
    return x * emb.cos() + rotate_half(x) * emb.sin()


def posenc_rows(repeats: int, sizes: dict = SIZES) -> list[Row]:
    """sinusoidal(8192, 2048) as the app computes it (posenc.fast) against its budget, and the textbook form the
    pages show; apply_rope against rotate_half (budget: not slower)."""
    # RoPE first: the textbook sinusoid below allocates 134 MB of float64, and the heap it leaves behind made every
    # later allocation of the RoPE rows page-fault (apply_rope measured 5.6 ms alone, 20 ms after it)
    x = torch.randn(*sizes["rope"], generator=torch.Generator().manual_seed(0))
    shape = "×".join(str(n) for n in x.shape)
    reference = median_ms(lambda: rotate_half_rope(x), repeats)
    ours = median_ms(lambda: apply_rope(x), repeats)
    complex_form = median_ms(lambda: apply_rope_complex(x), repeats)
    rows = [
        Row(f"rotate_half formulation on [{shape}]", reference, "ms", None, "reference, measured in this run"),
        Row(f"posenc apply_rope on [{shape}]", ours, "ms", reference, "budget: not slower than rotate_half"),
        Row(f"posenc apply_rope_complex on [{shape}]", complex_form, "ms", None, "complex pairs out, for reference"),
    ]
    length, dim = sizes["sinusoid"]
    budget = SINUSOIDAL_MS if sizes["sinusoid"] == SIZES["sinusoid"] else None
    table_ms = median_ms(lambda: sinusoidal_by_blocks(length, dim), repeats)
    textbook_ms = median_ms(lambda: sinusoidal(length, dim), repeats)
    rows += [
        Row(f"posenc sinusoidal({length}, {dim})", table_ms, "ms", budget, "sinusoidal_by_blocks, as the app draws it"),
        Row(f"posenc sinusoidal({length}, {dim}) textbook", textbook_ms, "ms", None, "the form the page shows"),
    ]
    return rows
