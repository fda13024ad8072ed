"""Live slices made cheaper for a class moving the shared controls (issue 25) send the same numbers: checked against
closed forms computed here with numpy, at settings off the sliders' grids. (PE·PEᵀ sends none now: the browser sums
it with a twin of posenc's, tests/test_twins.py.)"""

import base64

import numpy as np
import pytest
import torch

from charts.rope import OFFSETS, layout_curves_at_offsets
from posenc.rope import rope_offset_detector, rope_scores_at


def _decoded(array: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(array["bdata"]), dtype="<f4" if array["dtype"] == "f4" else "<f8")


def _dot_by_offset(offsets: np.ndarray, dim: int, base: float) -> np.ndarray:
    """PE(p)·PE(p + k) = Σ_i cos(k·ω_i), ω_i = base^(−2i/d) (Vaswani et al.'s table, summed in closed form)."""
    omega = base ** (-2 * np.arange(dim // 2) / dim)
    return np.cos(offsets[:, None] * omega[None, :]).sum(axis=1)


@pytest.mark.parametrize("dim, base, trained", [(128, 10000.0, "half"), (94, 300.0, "interleaved"), (2, 10.0, "half")])
def test_the_layout_curves_of_every_offset_are_the_rotated_scores(dim, base, trained):
    """All offsets at once give posenc's rope_scores_at of each offset's query and key, and the trained curve is the
    detector's closed form s(r) = Σ_i cos((r − r₀)·θ_i)."""
    other = "interleaved" if trained == "half" else "half"
    right, converted, wrong = layout_curves_at_offsets(dim, OFFSETS, 48, base, trained)
    r = torch.arange(48)
    theta = base ** (-2 * np.arange(dim // 2) / dim)
    for n, offset in enumerate(OFFSETS):
        q, k = rope_offset_detector(dim, offset, base, trained)
        closed = np.cos((np.arange(48)[:, None] - offset) * theta[None, :]).sum(axis=1)
        np.testing.assert_allclose(right[n].numpy(), closed, atol=1e-9)
        np.testing.assert_allclose(converted[n].numpy(), closed, atol=1e-9)  # reordered for the other layout: same
        expected = rope_scores_at(q, k, r, torch.zeros(48, dtype=torch.long), base, other)
        np.testing.assert_allclose(wrong[n].numpy(), expected.numpy(), atol=1e-12)
