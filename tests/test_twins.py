"""The browser's twins of posenc functions (``static/twins.js``) against posenc, on seeded random inputs, in Node.

Every export of static/twins.js must have a parity case here (its name is the posenc function's, in camel case),
and every case must hold in float64 to a relative error of 1e-9 (a sum, to 1e-9 of its largest term's total).
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from system_packages import require_system_packages

from posenc.absolute import (
    SINUSOID_LAYOUTS,
    integer_positions,
    normalized_positions,
    sinusoid_dot_by_offset,
    sinusoid_inv_freq,
    sinusoid_pair_columns,
    sinusoid_wavelengths,
    sinusoidal,
)
from posenc.attention import attention_weights
from posenc.deberta import deberta_delta
from posenc.decay import (
    distance_grid,
    full_turn_pairs,
    rope_context_extension,
    rope_decay_bound_at,
    rope_extension_decay,
    rope_ones_score_at,
    rope_random_score_moments,
    rope_wavelengths,
)
from posenc.relative import (
    alibi_bias_per_offset,
    alibi_slopes,
    relative_offsets,
    shaw_clip_index,
    t5_max_exact,
    t5_relative_bucket,
)
from posenc.rope import (
    ROPE_LAYOUTS,
    rope_convert_layout,
    rope_inv_freq,
    rope_offset_detector,
    rope_pair_angles_at,
    rope_pair_points,
    rope_rotation_factors,
    rope_scores_at,
)
from posenc.rope_scaling import ROPE_SCALING_METHODS, YARN_RAMP_FORMS, rope_scaled_inv_freq, yarn_ramp
from posenc.rope_variants import partial_rope_score_parts, partial_rotary_dim, rope_reflect_pairs
from ui.limits import LIMITS

ROOT = Path(__file__).resolve().parents[1]
TWINS = ROOT / "static" / "twins.js"
NODE = shutil.which("node")


def twin(name: str, calls: list[list]) -> list:
    """``name`` from static/twins.js applied to each argument list of ``calls``, in Node: each result as a float64
    numpy array (a list of them for a tuple, a dict of them for an object), or the name of the error it threw (a
    string)."""
    require_system_packages(nodejs=NODE is not None)
    source = (
        f"const twins = await import({json.dumps(TWINS.as_uri())});\n"
        "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
        "const calls = JSON.parse(Buffer.concat(chunks).toString());\n"
        "const number = (v) => (Number.isFinite(v) ? v : String(v)); // JSON has no ±Infinity or NaN\n"
        "const plain = (x) => (ArrayBuffer.isView(x) ? Array.from(x, number)\n"
        "  : Array.isArray(x) ? x.map(plain) : x !== null && typeof x === 'object'\n"
        "  ? { value: Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)])) } : number(x));\n"
        f"const run = (args) => {{ try {{ return plain(twins.{name}(...args)); }}\n"
        "  catch (e) { return { error: e.name }; } };\n"
        "console.log(JSON.stringify(calls.map(run)));"
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=json.dumps(calls), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr

    def back(x):
        if isinstance(x, dict):
            return {key: back(value) for key, value in x["value"].items()} if "value" in x else x["error"]
        if isinstance(x, list) and x and isinstance(x[0], list):
            return [back(part) for part in x]
        return np.asarray([float(v) for v in x] if isinstance(x, list) else float(x), dtype=np.float64)

    return [back(result) for result in json.loads(done.stdout)]


def random_settings(seed: int, count: int = 40) -> list[tuple[int, float]]:
    """(dim, base) pairs a student can reach: any even dim, any base of the slider, and bases between them."""
    rng = random.Random(seed)
    dims = [rng.randrange(LIMITS.dim_min, LIMITS.dim_max + 1, 2) for _ in range(count)]
    bases = [rng.choice(LIMITS.base_options) if k % 2 else 10 ** rng.uniform(1.01, 6) for k in range(count)]
    return list(zip(dims, bases, strict=True))


PARITY = {  # twin (camel case of the posenc function) -> its case
    "sinusoidInvFreq": "test_sinusoid_frequencies",
    "sinusoidDotByOffset": "test_sinusoid_dot_by_offset",
    "sinusoidWavelengths": "test_sinusoid_frequencies",
    "sinusoidPairColumns": "test_sinusoid_pair_columns",
    "sinusoidal": "test_sinusoidal",
    "integerPositions": "test_integer_and_normalized_positions",
    "normalizedPositions": "test_integer_and_normalized_positions",
    "ropeInvFreq": "test_rope_inv_freq",
    "ropeDecayBoundAt": "test_rope_decay_bound_at",
    "ropeWavelengths": "test_rope_wavelengths_and_full_turn_pairs",
    "fullTurnPairs": "test_rope_wavelengths_and_full_turn_pairs",
    "ropeRotationFactors": "test_rope_rotation_factors",
    "ropePairPoints": "test_rope_pair_points",
    "ropeScoresAt": "test_rope_scores_at",
    "ropePairAnglesAt": "test_rope_pair_angles_at",
    "ropeOffsetDetector": "test_rope_offset_detector",
    "ropeConvertLayout": "test_rope_convert_layout",
    "relativeOffsets": "test_relative_offsets",
    "shawClipIndex": "test_shaw_clip_index",
    "t5MaxExact": "test_t5_max_exact",
    "t5RelativeBucket": "test_t5_relative_bucket",
    "alibiSlopes": "test_alibi_slopes",
    "alibiBiasPerOffset": "test_alibi_bias_per_offset",
    "debertaDelta": "test_deberta_delta",
    "ropeOnesScoreAt": "test_rope_ones_score_at",
    "ropeRandomScoreMoments": "test_rope_random_score_moments",
    "distanceGrid": "test_distance_grid",
    "yarnRamp": "test_yarn_ramp",
    "ropeScaledInvFreq": "test_rope_scaled_inv_freq",
    "ropeContextExtension": "test_rope_context_extension_and_decay",
    "ropeExtensionDecay": "test_rope_context_extension_and_decay",
    "attentionWeights": "test_attention_weights",
    "ropeReflectPairs": "test_rope_reflect_pairs",
    "partialRotaryDim": "test_partial_rope",
    "partialRopeScoreParts": "test_partial_rope",
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("name", "reference"), [("sinusoidInvFreq", sinusoid_inv_freq),
                                                 ("sinusoidWavelengths", sinusoid_wavelengths)])  # fmt: skip
def test_sinusoid_frequencies(name, reference, seed):
    """ω_i = base^(−2i/d) and λ_i = 2π/ω_i at random (dim, base)."""
    settings = random_settings(seed)
    got = twin(name, [[dim, base] for dim, base in settings])
    for (dim, base), values in zip(settings, got, strict=True):
        np.testing.assert_allclose(values, reference(dim, base).numpy(), rtol=1e-9, atol=0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sinusoid_dot_by_offset(seed):
    rng = random.Random(seed)
    settings = random_settings(seed, count=12)
    offsets = [sorted(rng.sample(range(LIMITS.length_max), 64)) for _ in settings]
    got = twin("sinusoidDotByOffset", [[k, dim, base] for k, (dim, base) in zip(offsets, settings, strict=True)])
    for k, (dim, base), sums in zip(offsets, settings, got, strict=True):
        expected = sinusoid_dot_by_offset(k, dim, base).numpy()
        np.testing.assert_allclose(sums, expected, rtol=0, atol=1e-9 * dim / 2)  # s(0) = D/2: the scale of the sum


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sinusoid_dot_by_evenly_spaced_offsets(seed):
    """PE·PEᵀ's offsets, 0, h, 2h … up to the length (the twin turns each angle by h·ω_i instead of a cosine)."""
    rng = random.Random(seed)
    settings = random_settings(seed, count=12)
    offsets = [list(range(start, LIMITS.length_max, rng.choice([1, 2, 3, 8]))) for start in (0, 5, 0, 17) * 3]
    got = twin("sinusoidDotByOffset", [[k, dim, base] for k, (dim, base) in zip(offsets, settings, strict=True)])
    for k, (dim, base), sums in zip(offsets, settings, got, strict=True):
        expected = sinusoid_dot_by_offset(k, dim, base).numpy()
        np.testing.assert_allclose(sums, expected, rtol=0, atol=1e-9 * dim / 2)  # s(0) = D/2: the scale of the sum


def test_sinusoid_pair_columns():
    cases = [[dim, layout] for dim in (2, 4, 6, 128, 130, 1024) for layout in SINUSOID_LAYOUTS]
    for (dim, layout), got in zip(cases, twin("sinusoidPairColumns", cases), strict=True):
        np.testing.assert_array_equal(got, sinusoid_pair_columns(dim, layout).flatten().numpy())


@pytest.mark.parametrize("layout", SINUSOID_LAYOUTS)
def test_sinusoidal(layout):
    """The whole table at small sizes, and chosen columns (the table's [:, columns], in their order) at any size the
    sidebar reaches: float64 to 1e-9 (entries lie in [−1, 1]); float32, posenc's default, to one rounding."""
    rng = random.Random(len(layout))
    whole = [[length, dim, base, layout] for length, (dim, base) in zip((1, 7, 64), random_settings(3, 3), strict=True)]
    picked = []
    for dim, base in random_settings(4, 8):
        length = rng.randint(LIMITS.length_min, LIMITS.length_max)
        picked.append([length, dim, base, layout, rng.sample(range(dim), min(dim, 4))])
    for dtype, atol in ((torch.float64, 1e-9), (torch.float32, 1.2e-7)):
        name = str(dtype).removeprefix("torch.")
        calls = [[*args, name] for args in whole] + [[*args[:4], name, args[4]] for args in picked]
        for args, got in zip(calls, twin("sinusoidal", calls), strict=True):
            length, dim, base = args[:3]
            table = sinusoidal(length, dim, base, layout=layout, dtype=dtype).numpy()
            expected = table[:, args[5]] if len(args) > 5 else table
            np.testing.assert_allclose(got, expected.flatten(), rtol=0, atol=atol)


def test_integer_and_normalized_positions():
    """Every length of the page's sliders and a few features: equal, in float32 (posenc's default) and float64."""
    cases = [[length, dim] for length in (1, 2, 3, 5, 63, 64, 300, 1536, 4095, 4096) for dim in (1, 3)]
    for (length, dim), got in zip(cases, twin("integerPositions", cases), strict=True):
        np.testing.assert_array_equal(got, integer_positions(length, dim).flatten().numpy())
    for dtype in (torch.float32, torch.float64):
        calls = [[length, dim, str(dtype).removeprefix("torch.")] for length, dim in cases]
        for (length, dim), got in zip(cases, twin("normalizedPositions", calls), strict=True):
            np.testing.assert_array_equal(got, normalized_positions(length, dim, dtype).flatten().double().numpy())


def random_vectors(rng: random.Random, dim: int) -> tuple[list[float], list[float]]:
    """A query and a key ~ N(0, 1)^D, as the page's are, from ``rng``."""
    return [rng.gauss(0, 1) for _ in range(dim)], [rng.gauss(0, 1) for _ in range(dim)]


def as_long(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.long)


def f64(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)  # torch.tensor of Python floats would be float32


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_inv_freq(seed):
    settings = random_settings(seed)
    got = twin("ropeInvFreq", [[dim, base] for dim, base in settings])
    for (dim, base), theta in zip(settings, got, strict=True):
        np.testing.assert_allclose(theta, rope_inv_freq(dim, base, torch.float64).numpy(), rtol=1e-9, atol=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_decay_bound_at(seed):
    """Any frequencies (the slider's, or scaled ones: each θ_i divided by a random factor) and distances up to the
    chart's 8 192: (1/P) Σ_j |S_j(r)| to 1e-9 of P, the largest |S_j| can be."""
    rng = random.Random(seed)
    cases = []
    for k, (dim, base) in enumerate(random_settings(seed, count=12)):
        theta = rope_inv_freq(dim, base, torch.float64)
        if k % 3 == 2:
            theta = theta / torch.tensor([rng.uniform(1, 32) for _ in range(dim // 2)], dtype=torch.float64)
        distances = sorted({0, 8192, *(rng.randrange(0, 8193) for _ in range(40))})
        cases.append([distances, theta.tolist()])
    for (distances, theta), got in zip(cases, twin("ropeDecayBoundAt", cases), strict=True):
        expected = rope_decay_bound_at(as_long(distances), f64(theta)).numpy()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * len(theta))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rope_wavelengths_and_full_turn_pairs(seed):
    """At the sidebar's dims and bases, for every training length of the decay page and at the edge of a turn."""
    rng = random.Random(seed)
    settings = random_settings(seed, count=12)
    frequencies = [rope_inv_freq(dim, base).tolist() for dim, base in settings]
    for theta, got in zip(frequencies, twin("ropeWavelengths", [[f] for f in frequencies]), strict=True):
        np.testing.assert_allclose(got, rope_wavelengths(torch.tensor(theta)).numpy(), rtol=1e-9, atol=0)
    cases = [[theta, rng.choice([2, 512, 4096, 131072])] for theta in frequencies]
    cases += [[[2 * math.pi / 9, 2 * math.pi / 10, 2 * math.pi / 11], 11]]  # λ = 9, 10 turn within 11 tokens; 11 not
    for (theta, length), got in zip(cases, twin("fullTurnPairs", cases), strict=True):
        np.testing.assert_array_equal(got, full_turn_pairs(torch.tensor(theta), length).numpy().astype(np.float64))


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_rotation_factors(seed):
    """Positions up to the clocks' 10⁶, where an angle is 10⁶ radians: e^{i·m·θ_i} still to 1e-9 of its length 1."""
    rng = random.Random(seed)
    cases = []
    for dim, base in random_settings(seed, count=10):
        positions = [rng.randrange(0, 10 ** rng.randrange(1, 7)) for _ in range(20)] + [0, 1_000_000]
        cases.append([positions, rope_inv_freq(dim, base, torch.float64).tolist()])
    for (positions, theta), got in zip(cases, twin("ropeRotationFactors", cases), strict=True):
        expected = torch.view_as_real(rope_rotation_factors(as_long(positions), f64(theta))).flatten()
        np.testing.assert_allclose(got, expected.numpy(), rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_pair_points(seed):
    rng = random.Random(seed)
    cases = []
    for dim, base in random_settings(seed, count=16):
        x, _ = random_vectors(rng, dim)
        positions = [rng.randrange(0, 4097) for _ in range(12)]
        cases.append([x, positions, rng.randrange(dim // 2), base, rng.choice(ROPE_LAYOUTS)])
    for (x, positions, pair, base, layout), got in zip(cases, twin("ropePairPoints", cases), strict=True):
        expected = torch.view_as_real(rope_pair_points(f64(x), as_long(positions), pair, base, layout))
        np.testing.assert_allclose(got, expected.flatten().numpy(), rtol=0, atol=1e-9 * max(map(abs, x)))


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_scores_at(seed):
    """A sum over D/2 pairs: to 1e-9 of Σ|q_j|·|k_j|, the largest it can be."""
    rng = random.Random(seed)
    cases = []
    for dim, base in random_settings(seed, count=12):
        q, k = random_vectors(rng, dim)
        m = [rng.randrange(0, 1025) for _ in range(24)]
        n = [rng.randrange(0, 1025) for _ in range(24)]
        cases.append([q, k, m, n, base, rng.choice(ROPE_LAYOUTS)])
    for (q, k, m, n, base, layout), got in zip(cases, twin("ropeScoresAt", cases), strict=True):
        expected = rope_scores_at(f64(q), f64(k), as_long(m), as_long(n), base, layout).numpy()
        scale = float(np.abs(q) @ np.abs(k))
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * scale)


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_pair_angles_at(seed):
    rng = random.Random(seed)
    cases = []
    for dim, base in random_settings(seed, count=12):
        q, k = random_vectors(rng, dim)
        m, n = [rng.randrange(0, 1025) for _ in range(16)], [rng.randrange(0, 1025) for _ in range(16)]
        cases.append([q, k, m, n, rng.randrange(dim // 2), base, rng.choice(ROPE_LAYOUTS)])
    for (q, k, m, n, pair, base, layout), got in zip(cases, twin("ropePairAnglesAt", cases), strict=True):
        q, k = f64(q), f64(k)
        expected = rope_pair_angles_at(q, k, as_long(m), as_long(n), pair, base, layout).numpy()
        np.testing.assert_allclose(np.angle(np.exp(1j * (got - expected))), 0, atol=1e-9)  # the same angle


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_offset_detector(seed):
    rng = random.Random(seed)
    cases = [[dim, rng.randrange(0, 600), base, rng.choice(ROPE_LAYOUTS)] for dim, base in random_settings(seed, 16)]
    for (dim, offset, base, layout), (q, k) in zip(cases, twin("ropeOffsetDetector", cases), strict=True):
        expected_q, expected_k = rope_offset_detector(dim, offset, base, layout)
        np.testing.assert_allclose(q, expected_q.numpy(), rtol=0, atol=1e-9)
        np.testing.assert_array_equal(k, expected_k.numpy())


def test_rope_convert_layout():
    rng = random.Random(0)
    cases = []
    for dim, _ in random_settings(0, count=12):
        x, _ = random_vectors(rng, dim)
        cases += [[x, source, target] for source in ROPE_LAYOUTS for target in ROPE_LAYOUTS]
    for (x, source, target), got in zip(cases, twin("ropeConvertLayout", cases), strict=True):
        np.testing.assert_array_equal(got, rope_convert_layout(f64(x), source, target).numpy())


def test_relative_offsets():
    cases = [[n, past] for n in (0, 1, 2, 63, 127, 4095) for past in (False, True)]
    for (n, past), got in zip(cases, twin("relativeOffsets", cases), strict=True):
        np.testing.assert_array_equal(got, relative_offsets(n, past).numpy())


def test_shaw_clip_index():
    rng = random.Random(0)
    cases = [[[rng.randrange(-4095, 4096) for _ in range(64)], k] for k in range(65)]
    for (offsets, k), got in zip(cases, twin("shawClipIndex", cases), strict=True):
        np.testing.assert_array_equal(got, shaw_clip_index(as_long(offsets), k).numpy())


def posenc_or_error(function, *args):
    """``function(*args)`` as numpy, or "RangeError" where posenc refuses the arguments (ValueError)."""
    try:
        result = function(*args)
    except ValueError:
        return "RangeError"
    return np.asarray(result.numpy() if isinstance(result, torch.Tensor) else result, dtype=np.float64)


def test_t5_max_exact():
    cases = [[bidirectional, b] for bidirectional in (True, False) for b in range(1, 70)]
    for (bidirectional, b), got in zip(cases, twin("t5MaxExact", cases), strict=True):
        expected = posenc_or_error(t5_max_exact, bidirectional, b)
        assert got == expected if isinstance(expected, str) else got.item() == expected.item(), (bidirectional, b)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_relative_bucket(bidirectional):
    """Whole buckets, equal at every offset of ±2·max_distance: every num_buckets the page's slider offers, with
    every max_distance of its slider and random ones (the float32 log of posenc and the reference, boundaries
    included); where posenc refuses a pair, so does the twin."""
    from charts.relative import T5_MAX_DISTANCES, T5_NUM_BUCKETS

    rng = random.Random(int(bidirectional))
    cases = []
    for b in T5_NUM_BUCKETS:
        for distance in {*T5_MAX_DISTANCES, *(rng.randrange(2, 1025) for _ in range(6))}:
            cases.append([list(range(-2 * distance, 2 * distance + 1)), bidirectional, b, distance])
    for (offsets, _, b, distance), got in zip(cases, twin("t5RelativeBucket", cases), strict=True):
        expected = posenc_or_error(t5_relative_bucket, as_long(offsets), bidirectional, b, distance)
        if isinstance(expected, str):
            assert got == expected, (b, distance)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"num_buckets {b}, max_distance {distance}")


def test_alibi_slopes():
    cases = [[heads] for heads in range(1, 65)]
    for (heads,), got in zip(cases, twin("alibiSlopes", cases), strict=True):
        np.testing.assert_allclose(got, alibi_slopes(heads, torch.float64).numpy(), rtol=1e-9, atol=0)


def test_alibi_bias_per_offset():
    rng = random.Random(0)
    cases = [[[rng.randrange(-4095, 64) for _ in range(40)], rng.randrange(1, 17), causal] for causal in (True, False)
             for _ in range(12)]  # fmt: skip
    for (offsets, heads, causal), got in zip(cases, twin("alibiBiasPerOffset", cases), strict=True):
        expected = alibi_bias_per_offset(as_long(offsets), heads, causal, torch.float64).flatten().numpy()
        np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))  # the future, masked (causal)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=0)


def test_deberta_delta():
    rng = random.Random(0)
    cases = [[[rng.randrange(-4095, 4096) for _ in range(64)], k] for k in range(1, 65)]
    for (offsets, k), got in zip(cases, twin("debertaDelta", cases), strict=True):
        np.testing.assert_array_equal(got, deberta_delta(as_long(offsets), k).numpy())


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_ones_score_at(seed):
    """2 Σ_i cos(r·θ_i): to 1e-9 of D, its largest value."""
    rng = random.Random(seed)
    cases = [[sorted(rng.sample(range(131073), 30)), rope_inv_freq(dim, base, torch.float64).tolist()]
             for dim, base in random_settings(seed, count=12)]  # fmt: skip
    for (distances, theta), got in zip(cases, twin("ropeOnesScoreAt", cases), strict=True):
        expected = rope_ones_score_at(as_long(distances), f64(theta)).numpy()
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * 2 * len(theta))


@pytest.mark.parametrize("seed", [0, 1])
def test_rope_random_score_moments(seed):
    """E = 2ρ Σ cos(rθ_i) and √(D + 2ρ² Σ cos(2rθ_i)) at r = 0 … R, and at chosen distances: to 1e-9 of D; and, from
    the same cosines, the all-ones score 2 Σ cos(rθ_i), posenc's ``rope_ones_score_at``."""
    rng = random.Random(seed)
    settings = [(dim, base, rng.randrange(0, 600), round(rng.uniform(0, 1), 3)) for dim, base in
                random_settings(seed, count=10)]  # fmt: skip
    got = twin("ropeRandomScoreMoments", [list(case) for case in settings])
    for (dim, base, up_to, rho), moments in zip(settings, got, strict=True):
        mean, std = rope_random_score_moments(dim, base, up_to, rho)
        np.testing.assert_allclose(moments["mean"], mean.numpy(), rtol=0, atol=1e-9 * dim)
        np.testing.assert_allclose(moments["std"], std.numpy(), rtol=0, atol=1e-9 * dim)
        ones = rope_ones_score_at(torch.arange(up_to + 1), rope_inv_freq(dim, base, torch.float64)).numpy()
        np.testing.assert_allclose(moments["ones"], ones, rtol=0, atol=1e-9 * dim)
    picked = [sorted(rng.sample(range(8193), 20)) for _ in settings]
    calls = [[dim, base, 0, rho, None, at] for (dim, base, _, rho), at in zip(settings, picked, strict=True)]
    for (dim, base, _, rho, _, at), moments in zip(calls, twin("ropeRandomScoreMoments", calls), strict=True):
        mean, std = rope_random_score_moments(dim, base, max(at), rho)
        np.testing.assert_allclose(moments["mean"], mean.numpy()[at], rtol=0, atol=1e-9 * dim)
        np.testing.assert_allclose(moments["std"], std.numpy()[at], rtol=0, atol=1e-9 * dim)
        ones = rope_ones_score_at(as_long(at), rope_inv_freq(dim, base, torch.float64)).numpy()
        np.testing.assert_allclose(moments["ones"], ones, rtol=0, atol=1e-9 * dim)


def test_distance_grid():
    """Every distance, or posenc's geometric grid, exactly (the curves are drawn at these distances)."""
    rng = random.Random(0)
    cases = [[m, p] for m, p in [(0, 3), (10, 11), (10, 12), (255, 128), (256, 128), (131072, 128), (8192, 2048)]]
    cases += [[rng.randrange(1, 131073), rng.randrange(3, 300)] for _ in range(40)]
    for (max_distance, points), got in zip(cases, twin("distanceGrid", cases), strict=True):
        np.testing.assert_array_equal(got, distance_grid(max_distance, points).numpy())


@pytest.mark.parametrize("form", YARN_RAMP_FORMS)
def test_yarn_ramp(form):
    rng = random.Random(len(form))
    cases = []
    for dim, base in random_settings(3, count=20):
        trained = rng.choice([256, 2048, 4096, 8192, 32768, 131072])
        cases.append([dim, base, trained, rng.choice([32, 16, 64]), rng.choice([1, 2]), form])
    for args, got in zip(cases, twin("yarnRamp", cases), strict=True):
        np.testing.assert_allclose(got, yarn_ramp(*args).numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ROPE_SCALING_METHODS)
def test_rope_scaled_inv_freq(method):
    """Every method in float64, with its attention factor; the llama3 blend with distinct and equal factors."""
    rng = random.Random(method)
    cases = []
    for dim, base in random_settings(4, count=16):
        trained = rng.choice([256, 2048, 8192, 32768])
        factor = rng.choice([1.0, 2.0, 8.0, 32.0, rng.uniform(1, 40)])
        seq_len = rng.choice([None, trained // 2, trained * 3, trained * 40])
        low, high = rng.choice([(1.0, 4.0), (1.0, 1.0), (2.0, 8.0)])
        cases.append([dim, base, method, factor, trained, seq_len, 32.0, 1.0, low, high, rng.choice(YARN_RAMP_FORMS)])
    for args, (theta, attention) in zip(cases, twin("ropeScaledInvFreq", cases), strict=True):
        expected, factor = rope_scaled_inv_freq(*args[:10], dtype=torch.float64, yarn_ramp_form=args[10])
        np.testing.assert_allclose(theta, expected.numpy(), rtol=1e-9, atol=0)
        assert float(attention) == pytest.approx(factor, rel=1e-12)


@pytest.mark.parametrize("kind", ["bound", "ones"])
def test_rope_context_extension_and_decay(kind):
    """The decay page's extension chart: every method's frequencies and decay curve (times its attention factor²)
    from the training length to the target, at the distances posenc draws."""
    rng = random.Random(kind)
    cases = []
    for dim, base in random_settings(5, count=8):
        trained = rng.choice([256, 4096, 32768])
        cases.append([dim, base, trained, trained * rng.choice([1, 2, 8, 32]), kind, 128])
    extension = twin("ropeContextExtension", [args[:4] for args in cases])
    for args, methods, (distances, curves) in zip(cases, extension, twin("ropeExtensionDecay", cases), strict=True):
        reference = rope_context_extension(*args[:4])
        assert set(methods) == set(reference)
        for name, (theta, factor) in reference.items():
            np.testing.assert_allclose(methods[name][0], theta.numpy(), rtol=1e-9, atol=0)
            assert float(methods[name][1]) == pytest.approx(factor, rel=1e-12)
        expected_distances, expected = rope_extension_decay(*args)
        np.testing.assert_array_equal(distances, expected_distances.numpy())
        for name, curve in expected.items():
            np.testing.assert_allclose(curves[name], curve.numpy(), rtol=0, atol=1e-9 * args[0] * 1.5**2)


def test_every_twin_has_a_parity_case():
    exported = set(re.findall(r"^export function (\w+)", TWINS.read_text(), re.M))
    assert exported == set(PARITY), exported ^ set(PARITY)
    for case in PARITY.values():
        assert case in globals()


@pytest.mark.parametrize("causal", [False, True])
def test_attention_weights(causal):
    """Rows of any width and spread, square and not (more keys than queries: the causal mask reads j > i)."""
    rng = np.random.default_rng(int(causal))
    cases = [[(rng.standard_normal((q, k)) * spread).tolist(), causal]
             for q, k, spread in [(1, 1, 1.0), (5, 5, 3.0), (48, 48, 20.0), (7, 30, 0.1), (30, 7, 400.0)]]  # fmt: skip
    cases.append([[[0.0, 1e300, -1e300], [5.0, 5.0, 5.0]], causal])  # huge and equal scores
    for (scores, _), got in zip(cases, twin("attentionWeights", cases), strict=True):
        expected = attention_weights(torch.tensor(scores, dtype=torch.float64), causal=causal).numpy()
        got = np.asarray(got).reshape(expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-300)
        if causal:
            assert not np.triu(got, k=1).any()  # nothing after the query


def test_rope_reflect_pairs():
    rng = random.Random(3)
    cases = [[random_vectors(rng, dim)[0], layout] for dim, _ in random_settings(3, count=8) for layout in ROPE_LAYOUTS]
    for (x, layout), got in zip(cases, twin("ropeReflectPairs", cases), strict=True):
        np.testing.assert_array_equal(got, rope_reflect_pairs(f64(x), layout).numpy())


@pytest.mark.parametrize("seed", [0, 1])
def test_partial_rope(seed):
    """The rotated features at every fraction of the page (and odd products), and the score's two parts."""
    rng = random.Random(seed)
    fractions = (0.25, 0.4, 0.5, 1.0, 0.33, 0.01)
    sizes = [[dim, fraction] for dim, _ in random_settings(seed, 8) for fraction in fractions] + [[2, 0.25], [6, 0.4]]
    for (dim, fraction), got in zip(sizes, twin("partialRotaryDim", sizes), strict=True):
        assert float(got) == partial_rotary_dim(dim, fraction)
    cases = []
    for dim, base in random_settings(seed + 10, count=10):
        q, k = random_vectors(rng, dim)
        distances = [rng.randrange(0, 2000) for _ in range(20)]
        cases.append([q, k, partial_rotary_dim(dim, rng.choice(fractions)), distances, base])
    for (q, k, rotary, distances, base), (rotated, passed) in zip(cases, twin("partialRopeScoreParts", cases),
                                                                  strict=True):  # fmt: skip
        want_rotated, want_passed = partial_rope_score_parts(f64(q), f64(k), rotary, as_long(distances), base)
        scale = float(np.abs(np.asarray(q) * np.asarray(k)).sum())  # the largest either part can be
        np.testing.assert_allclose(rotated, want_rotated.numpy(), rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(passed, want_passed.numpy(), rtol=0, atol=1e-9 * scale)
