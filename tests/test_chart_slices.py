"""Live slices made cheaper for a class moving the shared controls (issue 25) send the same numbers: checked against
closed forms computed here with numpy, at settings off the sliders' grids and past 512 positions."""

import base64

import numpy as np
import pytest
import torch

from charts.rope import OFFSETS, layout_curves_at_offsets
from charts.sinusoidal import LIVE_MAX_DRAWN, live_similarity
from posenc.rope import rope_offset_detector, rope_scores_at
from ui.limits import LIMITS
from ui.live import live_dims


def _decoded(array: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(array["bdata"]), dtype="<f4" if array["dtype"] == "f4" else "<f8")


def _dot_by_offset(offsets: np.ndarray, dim: int, base: float) -> np.ndarray:
    """PE(p)·PE(p + k) = Σ_i cos(k·ω_i), ω_i = base^(−2i/d) (Vaswani et al.'s table, summed in closed form)."""
    omega = base ** (-2 * np.arange(dim // 2) / dim)
    return np.cos(offsets[:, None] * omega[None, :]).sum(axis=1)


@pytest.mark.parametrize("length, dim, base", [(40, 16, 10000.0), (1046, 130, 50.0), (4096, 1024, 1e6), (513, 6, 3.0)])
def test_every_slice_of_the_live_similarity_is_the_closed_form(length, dim, base):
    data = live_similarity.__wrapped__(length, dim, base, "en")
    stride = -(-length // LIVE_MAX_DRAWN)
    drawn = np.arange(0, length, stride)  # what static/live.js draws: every stride-th position
    arrays = {name: _decoded(array) for name, array in data["arrays"].items()}
    bases, dims = LIMITS.base_options, live_dims(dim)
    assert data["controls"]["dim"]["values"] == dims and dim in dims  # the current dim joins the grid
    by_base = arrays["sums_by_base"].reshape(len(bases), len(drawn))
    by_dim = arrays["sums_by_dim"].reshape(len(dims), len(drawn))
    for row, b in enumerate(bases):
        np.testing.assert_allclose(by_base[row], _dot_by_offset(drawn, dim, b), rtol=2e-6, atol=2e-4)
    for row, d in enumerate(dims):
        np.testing.assert_allclose(by_dim[row], _dot_by_offset(drawn, d, base), rtol=2e-6, atol=2e-4)
    every = _dot_by_offset(np.arange(LIMITS.length_max), dim, base)
    np.testing.assert_allclose(arrays["sums_by_length"], every, rtol=2e-6, atol=2e-3)


def test_lengths_with_one_stride_share_their_rows():
    short, long = (live_similarity.__wrapped__(n, 64, 500.0, "en") for n in (100, 512))
    a, b = (_decoded(d["arrays"]["sums_by_base"]).reshape(len(LIMITS.base_options), -1) for d in (short, long))
    np.testing.assert_array_equal(a, b[:, :100])  # the first 100 offsets of the longer one


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
