"""Every promised ValueError: the message names the argument and says what is allowed."""

import pytest
import torch

import posenc

BAD_CALLS = [
    (lambda: posenc.sinusoidal(10, 7), "dim must be even"),
    (lambda: posenc.sinusoidal(10, 0), "dim must be a positive whole number"),
    (lambda: posenc.sinusoidal(0, 8), "length must be a positive whole number"),
    (lambda: posenc.sinusoidal(-3, 8), "length must be a positive whole number"),
    (lambda: posenc.sinusoidal(10, 8, base=1.0), "base must be greater than 1"),
    (lambda: posenc.sinusoidal(10, 8, base=-5), "base must be greater than 1"),
    (lambda: posenc.sinusoidal(10, 8, base=float("nan")), "base must be a finite number"),
    (lambda: posenc.sinusoidal(10, 8, base="abc"), "base must be a number"),
    (lambda: posenc.sinusoidal(10, 8, layout="half"), "layout must be one of 'interleaved', 'concat'"),
    (lambda: posenc.sinusoidal(2.5, 8), "length must be a whole number"),
    (lambda: posenc.sinusoidal(True, 8), "length must be a whole number"),
    (lambda: posenc.rope_inv_freq(5), "dim must be even"),
    (lambda: posenc.apply_rope(torch.randn(4, 5)), "last dimension of x must be even"),
    (lambda: posenc.apply_rope(torch.randn(4, 6), layout="adjacent"), "layout must be one of 'half', 'interleaved'"),
    (lambda: posenc.apply_rope(torch.randn(4, 6), torch.arange(3)), r"positions must have shape \[4\]"),
    (lambda: posenc.apply_rope(torch.randn(6)), r"x must have shape \[..., seq, dim\]"),
    (lambda: posenc.apply_rope(torch.randn(4, 6), inv_freq=torch.ones(2)), r"inv_freq must have shape \[3\]"),
    (lambda: posenc.rope_decay_bound(128, max_distance=-1), "max_distance must be 0 or more"),
    (lambda: posenc.rope_decay_bound(127), "dim must be even"),
    (lambda: posenc.rope_layout_permutation(3), "dim must be even"),
    (lambda: posenc.shaw_relative_index(5, -2), "max_relative_position must be 0 or more"),
    (lambda: posenc.t5_relative_bucket(torch.arange(3), num_buckets=0), "num_buckets must be a positive"),
    (lambda: posenc.t5_relative_bucket(torch.arange(3), num_buckets=31), "num_buckets must be an even number"),
    (lambda: posenc.t5_relative_bucket(torch.arange(3), max_distance=4), "max_distance must be larger"),
    (lambda: posenc.t5_relative_bucket(torch.rand(3)), "relative_position must hold whole numbers"),
    (lambda: posenc.alibi_slopes(0), "n_heads must be a positive whole number"),
    (lambda: posenc.alibi_bias(0, 4), "q_len must be a positive whole number"),
    (lambda: posenc.rope_scaled_inv_freq(64, method="ntk"), "method must be one of 'linear', 'dynamic', 'yarn'"),
    (lambda: posenc.rope_scaled_inv_freq(64, method="yarn"), "needs original_max_position"),
    (lambda: posenc.rope_scaled_inv_freq(64, factor=0.5), "factor must be at least 1"),
    (
        lambda: posenc.rope_scaled_inv_freq(64, method="llama3", original_max_position=8, high_freq_factor=0.5),
        "high_freq_factor",
    ),
    (lambda: posenc.attention_scores(torch.randn(1, 2, 4), torch.randn(1, 2, 4), "xl"), "method must be one of"),
    (lambda: posenc.attention_scores(torch.randn(2, 4), torch.randn(2, 4)), r"\[..., heads, seq, dim\]"),
    (lambda: posenc.attention_scores(torch.randn(2, 3, 4), torch.randn(2, 3, 6)), "must agree in heads and dim"),
    (lambda: posenc.attention_scores(torch.randn(2, 3, 4), torch.randn(2, 3, 4), "t5"), "needs position_bias"),
    (lambda: posenc.attention_scores(torch.randn(2, 3, 4), torch.randn(2, 3, 4), "shaw"), "needs relative_keys"),
    (lambda: posenc.attention_scores(torch.randn(2, 3, 5), torch.randn(2, 3, 5), "rope"), "must be even"),
    (lambda: posenc.LearnedPositionalEmbedding(0, 4), "max_len must be a positive"),
    (lambda: posenc.T5RelativeBias(4, num_buckets=8, max_distance=2), "max_distance must be larger"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS, ids=[message for _, message in BAD_CALLS])
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
