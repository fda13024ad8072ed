"""Live slices made cheaper for a class moving the shared controls (issue 25) send the same numbers: checked against
closed forms computed here with numpy, at settings off the sliders' grids. (PE·PEᵀ and the RoPE layout curves send none
now: the browser computes them with twins of posenc's, tests/test_twins.py.)"""

import json

import numpy as np
import pytest
import torch
from live_views import view_pictures

from charts.rope import OFFSETS, live_layout
from posenc.rope import rope_offset_detector, rope_scores_at


@pytest.mark.parametrize("dim, base, trained", [(128, 10000.0, "half"), (94, 300.0, "interleaved"), (2, 10.0, "half")])
def test_the_layout_curves_of_every_offset_are_the_rotated_scores(dim, base, trained):
    """The browser's layout curves (static/views/rope.js, run in Node) at every offset are posenc's rope_scores_at of
    each offset's query and key, and the trained curve is the detector's closed form s(r) = Σ_i cos((r − r₀)·θ_i)."""
    other = "interleaved" if trained == "half" else "half"
    data = json.loads(json.dumps(live_layout("en", dim, base, 0, trained)))  # as the browser gets it
    pictures = view_pictures(data, [{"offset": offset} for offset in OFFSETS])
    r = torch.arange(48)
    theta = base ** (-2 * np.arange(dim // 2) / dim)
    for offset, picture in zip(OFFSETS, pictures, strict=True):
        right, converted, wrong = (picture["picked"][name] for name in ("right", "converted", "wrong"))
        q, k = rope_offset_detector(dim, offset, base, trained)
        closed = np.cos((np.arange(48)[:, None] - offset) * theta[None, :]).sum(axis=1)
        np.testing.assert_allclose(right, closed, atol=1e-9)
        np.testing.assert_allclose(converted, closed, atol=1e-9)  # reordered for the other layout: same
        expected = rope_scores_at(q, k, r, torch.zeros(48, dtype=torch.long), base, other)
        np.testing.assert_allclose(wrong, expected.numpy(), atol=1e-9)
