"""Stretching RoPE past its training length: position interpolation, dynamic NTK, YaRN and Llama 3 scaling.

Each method returns new per-pair frequencies θ'_i (and an attention factor that multiplies cos/sin, i.e. scales
the logits by its square) to be passed to :func:`posenc.apply_rope` as ``inv_freq``. Shape letter: P = D/2.

Sources: Chen et al. 2023, "Extending Context Window … via Positional Interpolation", arXiv 2306.15595;
bloc97's "NTK-aware scaled RoPE" (2023) and its dynamic variant; Peng et al. 2023, "YaRN", arXiv 2309.00071 §3;
Meta's Llama 3.1 ``apply_scaling`` (``rope_type: "llama3"``; the app's "Llama 3" curve). The formulas agree with
Hugging Face ``transformers/modeling_rope_utils.py``
(``_compute_linear_scaling_rope_parameters``, ``_compute_dynamic_ntk_parameters``, ``_compute_yarn_parameters``,
``_compute_llama3_parameters``).
"""

from __future__ import annotations

import math

import torch

from posenc import _checks
from posenc.rope import rope_inv_freq

ROPE_SCALING_METHODS = ("linear", "dynamic", "yarn", "llama3")
YARN_RAMP_FORMS = ("huggingface", "unrounded", "paper")


def yarn_ramp(
    dim: int,
    base: float,
    original_max_position: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    form: str = "huggingface",
) -> torch.Tensor:
    """YaRN's interpolation weight of each pair, w_i ∈ [0, 1]: θ'_i = w_i·θ_i/s + (1 − w_i)·θ_i.

    i(β) = D·ln(L_train / (2π·β)) / (2·ln base) is the (fractional) pair that turns β times within L_train.
    - ``"huggingface"`` (what :func:`rope_scaled_inv_freq` uses): w_i = clamp((i − lo)/(hi − lo), 0, 1) with
      lo = max(⌊i(β_fast)⌋, 0), hi = min(⌈i(β_slow)⌉, D − 1): HF ``find_correction_range`` rounds the ends outwards
      (its default ``truncate=True``), so the ramp starts and ends on whole pairs;
    - ``"unrounded"``: the same ramp between the exact i(β_fast) and i(β_slow) (HF with ``truncate=False``);
    - ``"paper"``: w_i = 1 − γ(r_i), γ(r) = clamp((r − β_slow)/(β_fast − β_slow), 0, 1), r_i = L_train/λ_i: linear
      in the number of turns r, not in the pair index (arXiv 2309.00071 §3.2, eqs. 17–18, α = 1, β = 32).
    Returns: [D/2] float64. Sources: arXiv 2309.00071 §3.2; HF ``_compute_yarn_parameters``.
    """
    form = _checks.choice("form", form, YARN_RAMP_FORMS)
    dim = _checks.even_dim("dim", dim)
    base = _checks.base_above_one("base", base)
    trained = _checks.positive_int("original_max_position", original_max_position)
    beta_fast = _checks.positive_float("beta_fast", beta_fast)
    beta_slow = _checks.positive_float("beta_slow", beta_slow)
    pairs = torch.arange(dim // 2, dtype=torch.float64)  # i, [P]
    if form == "paper":
        turns = trained * rope_inv_freq(dim, base, dtype=torch.float64) / (2 * math.pi)  # r_i = L/λ_i, [P]
        gamma = ((turns - beta_slow) / (beta_fast - beta_slow)).clamp(0, 1)  # 1 → keep θ_i, 0 → θ_i / s
        return 1 - gamma

    def correction_dim(rotations: float) -> float:
        # the pair index whose wavelength fits `rotations` times into the training context
        return dim * math.log(trained / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if form == "huggingface":
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # the reference's guard against a zero-width ramp
    return ((pairs - low) / (high - low)).clamp(0, 1)  # 0 → keep θ_i, 1 → θ_i / s


def rope_scaled_inv_freq(
    dim: int,
    base: float = 10000.0,
    method: str = "linear",
    factor: float = 2.0,
    original_max_position: int | None = None,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    dtype: torch.dtype = torch.float32,
    yarn_ramp_form: str = "huggingface",
) -> tuple[torch.Tensor, float]:
    """Scaled RoPE frequencies for a context ``factor`` times longer than ``original_max_position``.

    - ``"linear"`` (position interpolation): θ'_i = θ_i / s — positions are squeezed back into the trained range.
    - ``"dynamic"`` (dynamic NTK): base' = base · ((s·L/L_train) − (s − 1))^(D/(D−2)) with L = max(seq_len,
      L_train); θ'_i = base'^(−2i/D). Unchanged until the sequence outgrows the training length.
    - ``"yarn"``: pairs turning more than β_fast times over L_train keep θ_i, pairs turning fewer than β_slow times
      get θ_i / s, a linear ramp between, as Hugging Face computes it: linear in the pair index, its ends rounded
      outwards to whole pairs (:func:`yarn_ramp`, ``form="huggingface"``; the paper's ramp is linear in the number
      of turns instead); attention factor 0.1·ln(s) + 1 on cos and sin, so the logits grow by (0.1·ln(s) + 1)²,
      the paper's √(1/t) = 0.1·ln(s) + 1 (§3.4). ``yarn_ramp_form="unrounded"`` leaves the ramp's ends fractional
      (transformers' ``truncate: false``, gpt-oss).
    - ``"llama3"``: Llama 3.1's ``rope_type: "llama3"`` (Llama 3 itself, 8 192 tokens, used no scaling): wavelengths
      shorter than L_train/high_freq_factor keep θ_i, longer than L_train/low_freq_factor get θ_i / s, and a smooth
      blend between (none when the two factors are equal, as in Llama 4 Scout's config: a step).

    Returns: (inv_freq [D/2], attention_factor). Sources: module docstring.
    """
    method = _checks.choice("method", method, ROPE_SCALING_METHODS)
    dim = _checks.even_dim("dim", dim)
    base = _checks.base_above_one("base", base)
    factor = _checks.finite_float("factor", factor)
    if factor < 1.0:
        raise ValueError(f"factor must be at least 1 (how many times longer the new context is); got {factor:g}.")
    inv_freq = rope_inv_freq(dim, base, dtype=torch.float64)  # θ_i, [P]

    if method == "linear":
        return (inv_freq / factor).to(dtype), 1.0

    if original_max_position is None:
        raise ValueError(f"method {method!r} needs original_max_position (the training context length).")
    trained = _checks.positive_int("original_max_position", original_max_position)

    if method == "dynamic":
        length = trained if seq_len is None else max(_checks.positive_int("seq_len", seq_len), trained)
        if dim == 2:
            return inv_freq.to(dtype), 1.0  # the single pair has θ_0 = base^0 = 1 whatever the base
        # NTK-aware base growth, so the lowest frequency is interpolated and the highest is left alone
        new_base = base * ((factor * length / trained) - (factor - 1)) ** (dim / (dim - 2))
        return rope_inv_freq(dim, new_base, dtype=dtype), 1.0

    if method == "yarn":
        beta_fast = _checks.positive_float("beta_fast", beta_fast)
        beta_slow = _checks.positive_float("beta_slow", beta_slow)
        attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0

        ramp = yarn_ramp(dim, base, trained, beta_fast, beta_slow, form=yarn_ramp_form)  # 0 → keep θ_i, 1 → θ_i / s
        extrapolation_weight = 1 - ramp
        new = inv_freq / factor * (1 - extrapolation_weight) + inv_freq * extrapolation_weight
        return new.to(dtype), attention_factor

    # llama3
    low_freq_factor = _checks.positive_float("low_freq_factor", low_freq_factor)
    high_freq_factor = _checks.positive_float("high_freq_factor", high_freq_factor)
    if high_freq_factor < low_freq_factor:
        raise ValueError(
            f"high_freq_factor ({high_freq_factor:g}) must be at least low_freq_factor ({low_freq_factor:g})."
        )
    wavelength = 2 * math.pi / inv_freq  # [P]
    low_freq_wavelength = trained / low_freq_factor  # longer than this: interpolate fully
    high_freq_wavelength = trained / high_freq_factor  # shorter than this: leave alone
    scaled = torch.where(wavelength > low_freq_wavelength, inv_freq / factor, inv_freq)
    if high_freq_factor == low_freq_factor:  # no blend band (Llama 4 Scout: 1 and 1): a step at L_train / low
        return scaled.to(dtype), 1.0
    smooth = (trained / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = (wavelength >= high_freq_wavelength) & (wavelength <= low_freq_wavelength)
    return torch.where(is_medium, blended, scaled).to(dtype), 1.0
