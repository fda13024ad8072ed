"""posenc.precision against independent references: numpy's float16 and float32 arithmetic, a bfloat16 rounding
written out on float32 bit patterns (round to nearest, ties to even, on the top 16 bits), and Hugging Face's own
rotary embedding run in bfloat16 (transformers computes the angles in float32 and rounds cos and sin)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import LlamaConfig  # test-only: requirements-dev.txt
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

from posenc.precision import PRECISION_MODES, position_as_stored, rope_angle_error, rope_pair_angle_error
from posenc.rope import rope_inv_freq

THETA = rope_inv_freq(128, 10000.0, dtype=torch.float64)


def bfloat16_by_bits(values: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 by hand: keep the top 16 bits of the float32 pattern, rounding the dropped
    16 to nearest, ties to even (finite inputs)."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32)


def reference_error(positions: np.ndarray, mode: str) -> np.ndarray:
    theta = THETA.numpy()
    exact = positions[:, None].astype(np.float64) * theta
    if mode == "float16":
        with np.errstate(over="ignore", invalid="ignore"):
            approx = (positions.astype(np.float16)[:, None] * theta.astype(np.float16)).astype(np.float64)
    elif mode == "float32":
        approx = (positions.astype(np.float32)[:, None] * theta.astype(np.float32)).astype(np.float64)
    else:  # bfloat16: each operand rounded, the product rounded
        product = bfloat16_by_bits(positions.astype(np.float32))[:, None] * bfloat16_by_bits(theta.astype(np.float32))
        approx = bfloat16_by_bits(product).astype(np.float64)
    with np.errstate(invalid="ignore"):
        error = np.abs(np.remainder(approx - exact + math.pi, 2 * math.pi) - math.pi)
    return np.where(np.isfinite(approx), error, np.nan)


@settings(max_examples=30, deadline=None)
@given(start=st.integers(1, 2_000_000), mode=st.sampled_from(["bfloat16", "float16", "float32"]))
def test_angle_errors_match_numpy_and_a_bit_level_bfloat16(start, mode):
    positions = np.arange(start, start + 16)
    ours = rope_angle_error(torch.from_numpy(positions), THETA, mode).numpy()
    np.testing.assert_allclose(ours, reference_error(positions, mode), rtol=1e-9, atol=1e-12)


def test_hugging_face_rounds_only_cos_and_sin():
    """LlamaRotaryEmbedding on a bfloat16 input: its cos/sin are ours computed in float32 and rounded to bfloat16,
    for its own θ_i (transformers' float32 base^(−2i/d), which differs from float64's in the last bit)."""
    rotary = LlamaRotaryEmbedding(LlamaConfig(hidden_size=4096, num_attention_heads=32, rope_theta=10000.0))
    theta = rotary.inv_freq.double()
    positions = torch.arange(999_900, 1_000_000)
    cos, sin = rotary(torch.zeros(1, dtype=torch.bfloat16), positions[None])
    assert cos.dtype == torch.bfloat16
    angle = torch.atan2(sin[0, :, :64].double(), cos[0, :, :64].double())
    hf_error = (torch.remainder(angle - positions[:, None].double() * theta + math.pi, 2 * math.pi) - math.pi).abs()
    torch.testing.assert_close(rope_angle_error(positions, theta, "float32_then_bfloat16"), hf_error, rtol=0, atol=1e-9)
    with torch.autocast("cpu", dtype=torch.bfloat16):  # no autocast-off block in 5.x: an elementwise float32 product,
        under_autocast = rotary(torch.zeros(1, dtype=torch.bfloat16), positions[None])  # which autocast leaves alone
    assert torch.equal(under_autocast[0], cos) and torch.equal(under_autocast[1], sin)


def test_which_pairs_suffer():
    """bfloat16 scrambles the fast pairs already at 10³ and puts every pair above its θ_i; float16 overflows past
    65 504; float32 grows to ~0.03 rad at 10⁶ yet stays below every θ_i; rounding cos and sin adds ~10⁻³ rad."""
    at = {mode: rope_pair_angle_error(1000, THETA, mode) for mode in PRECISION_MODES}
    assert at["bfloat16"][:4].min() > 0.5 and at["bfloat16"][-1] < 1e-3 and (at["bfloat16"] > THETA).all()
    assert torch.isnan(rope_pair_angle_error(65_505, THETA, "float16")).all()
    far = rope_pair_angle_error(1_000_000, THETA, "float32")
    assert 0.01 < far.max() < 0.05 and (far < THETA).all() and far[0] == 0
    for position in (1000, 1_000_000):
        rounded = rope_pair_angle_error(position, THETA, "float32_then_bfloat16") - rope_pair_angle_error(
            position, THETA, "float32"
        )
        assert rounded.abs().max() < 2e-3


STORED = [(1_000_000, "bfloat16", 999_424), (1_000_100, "bfloat16", 999_424), (256, "bfloat16", 256),
          (257, "bfloat16", 256), (70_000, "float16", math.inf), (1_000_001, "float32", 1_000_001)]  # fmt: skip


@pytest.mark.parametrize("position, mode, stored", STORED)
def test_positions_as_stored(position, mode, stored):
    assert position_as_stored(position, mode) == stored
