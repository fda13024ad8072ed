"""posenc.embedding_scale against independent references: |PE(p)|² = d/2 from numpy's own sines and cosines, and
the same means measured on numpy's random generator (another source of Gaussian words) within sampling error."""

from __future__ import annotations

import numpy as np
import pytest

from posenc.embedding_scale import word_position_mix


def numpy_mix(dim: int, scaled: bool, words: int = 2000, length: int = 64) -> dict[str, float]:
    rng = np.random.default_rng(7)
    w = rng.normal(0, 1 / np.sqrt(dim), (words, dim)) * (np.sqrt(dim) if scaled else 1.0)
    p, i = np.arange(length)[:, None], np.arange(dim // 2)[None]
    pe = np.zeros((length, dim))
    pe[:, 0::2], pe[:, 1::2] = np.sin(p / 10000 ** (2 * i / dim)), np.cos(p / 10000 ** (2 * i / dim))
    assert np.allclose((pe**2).sum(-1), dim / 2)  # one sin² + cos² = 1 per pair
    x = w[:, None] + pe[None]
    nx = np.linalg.norm(x, axis=-1)
    return {
        "cos_word": float(((x * w[:, None]).sum(-1) / (nx * np.linalg.norm(w, axis=-1)[:, None])).mean()),
        "cos_position": float(((x * pe[None]).sum(-1) / (nx * np.linalg.norm(pe, axis=-1)[None])).mean()),
        "word_share": float(((w**2).sum(-1)[:, None] / nx**2).mean()),
    }


@pytest.mark.parametrize("dim", [16, 128, 512])
@pytest.mark.parametrize("scaled", [False, True])
def test_means_agree_with_an_independent_draw(dim, scaled):
    ours, reference = word_position_mix(dim, scaled), numpy_mix(dim, scaled)
    for key in ours:
        assert ours[key] == pytest.approx(reference[key], abs=0.03)


def test_the_factor_makes_word_and_position_one_size():
    plain, scaled = word_position_mix(512, False), word_position_mix(512, True)
    assert plain["word_share"] == pytest.approx(1 / (1 + 256), rel=0.2)
    assert scaled["word_share"] == pytest.approx(2 / 3, abs=0.02)
