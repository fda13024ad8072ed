"""posenc.temperature against independent references: an explicit softmax over all the keys, transformers' YaRN
attention factor, Qwen-7B's logn list (math.log(i, seq_length)) and transformers' Llama 4 attention layer run on a
small model whose attention weights can be read off."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import Llama4TextConfig, LlamaConfig  # test-only: requirements-dev.txt
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama4.modeling_llama4 import Llama4TextAttention

from posenc.temperature import TEMPERATURES, logit_temperature, weight_on_match


@settings(max_examples=40, deadline=None)
@given(keys=st.integers(1, 5000), gap=st.floats(-5, 20), tau=st.floats(0.5, 3))
def test_weight_on_match_is_a_softmax_over_all_the_keys(keys, gap, tau):
    logits = torch.zeros(keys, dtype=torch.float64)
    logits[0] = gap
    expected = torch.softmax(tau * logits, dim=0)[0]
    got = weight_on_match(torch.tensor([keys]), gap, torch.tensor([tau], dtype=torch.float64))[0]
    assert got.item() == pytest.approx(expected.item(), rel=1e-9, abs=1e-300)


def test_yarn_temperature_is_the_square_of_transformers_attention_factor():
    scaling = {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096}
    config = LlamaConfig(hidden_size=4096, num_attention_heads=32, max_position_embeddings=131072, rope_scaling=scaling)
    _, attention = ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    tau = logit_temperature(torch.tensor([1, 10**6]), "yarn", 4096, 32.0)
    torch.testing.assert_close(tau, torch.full((2,), attention**2, dtype=torch.float64))


def test_logn_is_qwens_list():
    """Qwen-7B: logn_list = [math.log(i, seq_length) if i > seq_length else 1 for i in range(1, 32768)]."""
    seq_length = 2048
    qwen = torch.tensor(
        [math.log(i, seq_length) if i > seq_length else 1 for i in range(1, 32768)], dtype=torch.float64
    )
    ours = logit_temperature(torch.arange(1, 32768), "logn", seq_length)
    torch.testing.assert_close(ours, qwen, rtol=1e-12, atol=0)


def test_llama4_temperature_is_what_its_nope_layers_multiply_the_logits_by():
    """A one-head Llama 4 NoPE layer with q = k = v = the input: its eager attention weights, read off with one-hot
    values, equal a causal softmax of τ(p)·q·k/√d with our τ (floor_scale shrunk to 3 so a short input crosses it)."""
    length, dim = 12, 16
    config = Llama4TextConfig(hidden_size=dim, num_attention_heads=1, num_key_value_heads=1, head_dim=dim,
                              num_hidden_layers=4, no_rope_layers=[1, 1, 1, 0], floor_scale=3, attn_scale=0.1,
                              use_qk_norm=False, attn_implementation="eager")  # fmt: skip
    layer = Llama4TextAttention(config, layer_idx=3)
    assert not layer.use_rope
    with torch.no_grad():
        for projection in (layer.q_proj, layer.k_proj, layer.v_proj, layer.o_proj):
            projection.weight.copy_(torch.eye(dim))
    x = torch.randn(1, length, dim, generator=torch.Generator().manual_seed(0))
    mask = torch.full((length, length), float("-inf")).triu(1)[None, None]
    _, weights = layer(x, position_embeddings=None, attention_mask=mask)
    tau = logit_temperature(torch.arange(1, length + 1), "llama4", floor_scale=3).float()
    logits = tau[:, None] * (x[0] @ x[0].T) / math.sqrt(dim) + mask[0, 0]
    torch.testing.assert_close(weights[0, 0], torch.softmax(logits, dim=-1), rtol=1e-5, atol=1e-6)


def test_every_temperature_is_one_within_the_training_length_but_yarn():
    positions = torch.arange(1, 4097)
    for kind in TEMPERATURES:
        tau = logit_temperature(positions, kind, 4096, 32.0)
        assert torch.all(tau == 1) == (kind != "yarn")
