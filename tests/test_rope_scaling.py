"""Context-extension frequencies, each checked frequency by frequency with Python's math module."""

import math

import pytest
import torch

import posenc

DIM, BASE = 128, 10000.0


def plain_thetas(dim=DIM, base=BASE):
    return [base ** (-2 * i / dim) for i in range(dim // 2)]


def test_linear_divides_every_frequency():
    freqs, attention = posenc.rope_scaled_inv_freq(DIM, BASE, "linear", factor=4.0, dtype=torch.float64)
    assert attention == 1.0
    assert freqs.tolist() == pytest.approx([t / 4 for t in plain_thetas()], rel=1e-12)


@pytest.mark.parametrize("seq_len, growth", [(None, 1.0), (1000, 1.0), (2048, 1.0), (4096, 5.0), (8192, 13.0)])
def test_dynamic_ntk_grows_the_base_only_past_training_length(seq_len, growth):
    """base' = base · (s·L/L_train − (s − 1))^(D/(D−2)): s = 4, L_train = 2048, L = 4096 gives 8 − 3 = 5."""
    freqs, _ = posenc.rope_scaled_inv_freq(
        DIM, BASE, "dynamic", 4.0, original_max_position=2048, seq_len=seq_len, dtype=torch.float64
    )
    new_base = BASE * growth ** (DIM / (DIM - 2))
    assert freqs.tolist() == pytest.approx(plain_thetas(base=new_base), rel=1e-12)
    assert freqs[0].item() == 1.0  # the fastest pair never changes


def yarn_by_hand(dim, base, factor, trained, beta_fast=32.0, beta_slow=1.0):
    def pair_with_rotations(rotations):
        # wavelength 2π·base^(2i/D) = trained / rotations  ⇔  i = D·ln(trained / (2π·rotations)) / (2 ln base)
        return dim * math.log(trained / (2 * math.pi * rotations)) / (2 * math.log(base))

    low = max(math.floor(pair_with_rotations(beta_fast)), 0)
    high = min(math.ceil(pair_with_rotations(beta_slow)), dim - 1)
    out = []
    for i, theta in enumerate(plain_thetas(dim, base)):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 0 below `low`: keep; 1 above `high`: interpolate
        out.append(theta * (1 - ramp) + theta / factor * ramp)
    return out


@pytest.mark.parametrize("factor, trained", [(4.0, 4096), (8.0, 2048), (2.0, 8192)])
def test_yarn_matches_the_ramp_formula(factor, trained):
    freqs, attention = posenc.rope_scaled_inv_freq(
        DIM, BASE, "yarn", factor, original_max_position=trained, dtype=torch.float64
    )
    assert attention == pytest.approx(0.1 * math.log(factor) + 1)
    assert freqs.tolist() == pytest.approx(yarn_by_hand(DIM, BASE, factor, trained), rel=1e-12)
    assert freqs[0].item() == 1.0  # fast pairs untouched
    assert freqs[-1].item() == pytest.approx(plain_thetas()[-1] / factor)  # slow pairs interpolated


def test_llama3_matches_the_wavelength_rule():
    factor, trained, low, high = 8.0, 8192, 1.0, 4.0
    freqs, attention = posenc.rope_scaled_inv_freq(
        DIM, 500000.0, "llama3", factor, original_max_position=trained, dtype=torch.float64
    )
    assert attention == 1.0
    seen = set()
    for got, theta in zip(freqs.tolist(), plain_thetas(base=500000.0), strict=True):
        wavelength = 2 * math.pi / theta
        if wavelength < trained / high:
            expected, kind = theta, "kept"
        elif wavelength > trained / low:
            expected, kind = theta / factor, "scaled"
        else:
            smooth = (trained / wavelength - low) / (high - low)
            expected, kind = (1 - smooth) * theta / factor + smooth * theta, "blended"
        seen.add(kind)
        assert got == pytest.approx(expected, rel=1e-12)
    assert seen == {"kept", "scaled", "blended"}


def test_scaled_frequencies_plug_into_apply_rope():
    freqs, _ = posenc.rope_scaled_inv_freq(16, BASE, "linear", factor=2.0, dtype=torch.float64)
    x = torch.randn(5, 16, dtype=torch.float64)
    # linear interpolation at position 2m is plain RoPE at position m
    torch.testing.assert_close(
        posenc.apply_rope(x, torch.arange(0, 10, 2), inv_freq=freqs), posenc.apply_rope(x, torch.arange(5))
    )


@pytest.mark.parametrize("method", ["linear", "dynamic", "yarn", "llama3"])
def test_two_dimensions_have_one_pair_turning_at_frequency_one_or_its_interpolation(method):
    freqs, _ = posenc.rope_scaled_inv_freq(2, BASE, method, 4.0, original_max_position=64, seq_len=1000)
    assert freqs.shape == (1,)
    assert freqs.item() in (1.0, 0.25)


def test_yarn_ramp_forms_against_hand_computed_ends():
    """d = 128, base 10 000, L = 4096: pair i turns L·10000^(−2i/128)/(2π) times; 32 turns at i ≈ 20.94, one at
    i ≈ 45.03. HF rounds the ramp's ends out to 20 and 46; unrounded keeps 20.94 … 45.03; the paper ramps in turns."""
    import math

    from posenc.rope_scaling import yarn_ramp

    turns = [4096 * 10000 ** (-2 * i / 128) / (2 * math.pi) for i in range(64)]
    exact = [128 * math.log(4096 / (2 * math.pi * beta)) / (2 * math.log(10000)) for beta in (32, 1)]
    assert math.floor(exact[0]) == 20 and math.ceil(exact[1]) == 46
    forms = ("huggingface", "unrounded", "paper")
    hf, unrounded, paper = (yarn_ramp(128, 10000.0, 4096, form=form).tolist() for form in forms)
    for i in range(64):
        assert math.isclose(hf[i], min(max((i - 20) / 26, 0), 1), abs_tol=1e-12)
        assert math.isclose(unrounded[i], min(max((i - exact[0]) / (exact[1] - exact[0]), 0), 1), abs_tol=1e-12)
        assert math.isclose(paper[i], 1 - min(max((turns[i] - 1) / 31, 0), 1), abs_tol=1e-12)
    assert hf[21] > unrounded[21] and hf[45] < unrounded[45] < 1.0  # HF starts earlier and ends later
