// Browser twins of posenc functions: each computes in the browser what the posenc function it is named after
// computes on the server, so a picture follows any value of its controls with nothing sent. posenc stays the
// reference: tests/test_twins.py runs every export of this file against its posenc function on seeded random inputs
// (float64: relative error ≤ 1e-9; whole numbers such as buckets and indices: equal, T5's float32 log included) and
// fails when an export has no parity case.

/** posenc.absolute.sinusoid_inv_freq: ω_i = base^(−2i/D) for i = 0 … D/2 − 1. Returns: [D/2] float64. */
export function sinusoidInvFreq(dim, base) {
  const omega = new Float64Array(dim / 2);
  for (let i = 0; i < omega.length; i++) omega[i] = base ** -((2 * i) / dim);
  return omega;
}

/** posenc.absolute.sinusoid_wavelengths: λ_i = 2π / ω_i = 2π·base^(2i/D), in positions. Returns: [D/2] float64. */
export function sinusoidWavelengths(dim, base) {
  return sinusoidInvFreq(dim, base).map((omega) => (2 * Math.PI) / omega);
}

/** posenc.absolute.sinusoid_pair_columns: where pair i sits in a row of the table, (sine column, cosine column):
 * interleaved (2i, 2i + 1), concat (i, i + D/2). Returns: [D/2, 2] int32, flattened. */
export function sinusoidPairColumns(dim, layout = "interleaved") {
  const pairs = dim / 2, out = new Int32Array(dim);
  for (let i = 0; i < pairs; i++) {
    out[2 * i] = layout === "interleaved" ? 2 * i : i;
    out[2 * i + 1] = layout === "interleaved" ? 2 * i + 1 : i + pairs;
  }
  return out;
}

/** posenc.absolute.sinusoidal: PE(p, sine column of pair i) = sin(p·ω_i), PE(p, its cosine column) = cos(p·ω_i)
 * (columns from sinusoidPairColumns), angles p·ω_i in float64, each entry held in `dtype` ("float32", posenc's
 * default, or "float64"). `columns`: only those columns of the table, in that order (the table's [:, columns]),
 * so a picture of a few columns never computes the rest. Returns: [L, columns.length] (default all D) float64. */
export function sinusoidal(length, dim, base, layout = "interleaved", dtype = "float32", columns = null) {
  const held = dtype === "float64" ? (x) => x : Math.fround;
  const omega = sinusoidInvFreq(dim, base), pairs = omega.length;
  const chosen = columns ?? Array.from({ length: dim }, (_, c) => c);
  const width = chosen.length, out = new Float64Array(length * width);
  chosen.forEach((column, k) => {
    const pair = layout === "interleaved" ? column >> 1 : column % pairs;
    const isCos = layout === "interleaved" ? (column & 1) === 1 : column >= pairs;
    for (let p = 0; p < length; p++) {
      const angle = p * omega[pair];
      out[p * width + k] = held(isCos ? Math.cos(angle) : Math.sin(angle));
    }
  });
  return out;
}

/** posenc.absolute.sinusoid_dot_by_offset: s(k) = PE(p)·PE(p + k) = Σ_i cos(k·ω_i) for each offset k.
 * Offsets evenly spaced (k_j = k_0 + j·h, as PE·PEᵀ draws them) turn each frequency's angle by h·ω_i per offset,
 * cos and sin by angle addition: two products per term instead of a cosine (PE·PEᵀ's dim drag: 512 × 512 terms a
 * frame). Returns: [K] float64. */
export function sinusoidDotByOffset(offsets, dim, base) {
  const omega = sinusoidInvFreq(dim, base);
  const sums = new Float64Array(offsets.length);
  const step = offsets.length > 1 ? offsets[1] - offsets[0] : 0;
  if (offsets.length > 2 && offsets.every((k, j) => k === offsets[0] + j * step)) {
    for (let i = 0; i < omega.length; i++) {
      const turnCos = Math.cos(step * omega[i]), turnSin = Math.sin(step * omega[i]);
      let c = Math.cos(offsets[0] * omega[i]), s = Math.sin(offsets[0] * omega[i]);
      for (let j = 0; j < offsets.length; j++) {
        sums[j] += c;
        const next = c * turnCos - s * turnSin; // cos and sin of the next angle
        s = s * turnCos + c * turnSin;
        c = next;
      }
    }
    return sums;
  }
  offsets.forEach((k, j) => {
    let total = 0;
    for (let i = 0; i < omega.length; i++) total += Math.cos(k * omega[i]);
    sums[j] = total;
  });
  return sums;
}

/** posenc.absolute.integer_positions: PE(p, ·) = p, every feature of token p. Returns: [L, D] float64. */
export function integerPositions(length, dim = 1) {
  return Float64Array.from({ length: length * dim }, (_, j) => Math.floor(j / dim));
}

/** posenc.absolute.normalized_positions: PE(p, ·) = p / (L − 1) (0 for one token), computed in float64 and held
 * in `dtype` ("float32", posenc's default, or "float64"). Returns: [L, D] float64. */
export function normalizedPositions(length, dim = 1, dtype = "float32") {
  const held = dtype === "float64" ? (x) => x : Math.fround;
  return Float64Array.from({ length: length * dim }, (_, j) => held(Math.floor(j / dim) / Math.max(length - 1, 1)));
}

// ---- RoPE (posenc.rope) -----------------------------------------------------------------------------------------
// Layouts: "half" pairs feature i with i + D/2 (Hugging Face rotate_half), "interleaved" 2i with 2i + 1. A complex
// result is returned as its real view, [..., 2] (re, im) flattened, as torch.view_as_real lays it out.

/** posenc.rope.rope_inv_freq (float64): θ_i = base^(−2i/D), i = 0 … D/2 − 1. Returns: [D/2] float64. */
export function ropeInvFreq(dim, base) {
  return sinusoidInvFreq(dim, base);
}

/** posenc.decay.rope_decay_bound_at: RoFormer's relative upper bound at each distance r, (1/P) Σ_{j=1}^{P} |S_j(r)|,
 * S_j(r) = Σ_{k<j} e^{i·r·θ_k} (arXiv 2104.09864 §3.4.3), for any frequencies. Returns: [R] float64. */
export function ropeDecayBoundAt(distances, invFreq) {
  const pairs = invFreq.length, out = new Float64Array(distances.length);
  distances.forEach((r, t) => {
    let re = 0, im = 0, total = 0;
    for (let k = 0; k < pairs; k++) {
      re += Math.cos(r * invFreq[k]); // S_{k+1}(r) = S_k(r) + e^{i·r·θ_k}
      im += Math.sin(r * invFreq[k]);
      total += Math.sqrt(re * re + im * im); // |S| ≤ P: no overflow, and twice as fast as Math.hypot in V8
    }
    out[t] = pairs ? total / pairs : 0;
  });
  return out;
}

/** posenc.decay.rope_wavelengths: λ_i = 2π / θ_i, how far apart two tokens are when pair i has made one full turn.
 * Returns: [P] float64. */
export function ropeWavelengths(invFreq) {
  return Float64Array.from(invFreq, (theta) => (2 * Math.PI) / theta);
}

/** posenc.decay.full_turn_pairs: whether pair i makes a full turn within `length` tokens, (L − 1)·θ_i ≥ 2π.
 * Returns: [P] 1 or 0 (posenc's bool). */
export function fullTurnPairs(invFreq, length) {
  return Uint8Array.from(invFreq, (theta) => ((length - 1) * theta >= 2 * Math.PI ? 1 : 0));
}

/** Where pair i of x sits: the indices of its real and imaginary features, (i, i + D/2) or (2i, 2i + 1). */
function pairFeatures(dim, layout, i) {
  return layout === "interleaved" ? [2 * i, 2 * i + 1] : [i, i + dim / 2];
}

/** posenc.rope.rope_rotation_factors: e^{i·m·θ_i} for every position m and pair i. Returns: [L, P, 2] float64. */
export function ropeRotationFactors(positions, invFreq) {
  const pairs = invFreq.length, out = new Float64Array(positions.length * pairs * 2);
  positions.forEach((m, t) => {
    for (let i = 0; i < pairs; i++) {
      const angle = m * invFreq[i];
      out[2 * (t * pairs + i)] = Math.cos(angle);
      out[2 * (t * pairs + i) + 1] = Math.sin(angle);
    }
  });
  return out;
}

/** posenc.rope.rope_pair_points: pair i of one vector x [D] at each position p, z_i(p) = x̃_i · e^{i·p·θ_i}.
 * Returns: [L, 2] float64. */
export function ropePairPoints(x, positions, pair, base = 10000, layout = "half") {
  const [re, im] = pairFeatures(x.length, layout, pair), a = x[re], b = x[im];
  const theta = ropeInvFreq(x.length, base)[pair];
  const out = new Float64Array(2 * positions.length);
  positions.forEach((p, t) => {
    const c = Math.cos(p * theta), s = Math.sin(p * theta);
    out[2 * t] = a * c - b * s;
    out[2 * t + 1] = a * s + b * c;
  });
  return out;
}

/** posenc.rope.rope_scores_at: s_t = ⟨R_{m_t} q, R_{n_t} k⟩ (all D/2 pairs summed). Computed as what it equals,
 * Re Σ_i q̃_i·conj(k̃_i)·e^{i·(m_t − n_t)·θ_i} (RoFormer eq. 16: two cosines and sines a pair, once per distinct
 * m_t − n_t, instead of turning q and k apart); the parity test holds it to posenc's rotate-then-dot at independent
 * m_t, n_t. Returns: [T] float64. */
export function ropeScoresAt(q, k, qPositions, kPositions, base = 10000, layout = "half") {
  const dim = q.length, theta = ropeInvFreq(dim, base), pairs = theta.length;
  const real = new Float64Array(pairs), imag = new Float64Array(pairs); // q̃_i·conj(k̃_i) = (ac + bd) + i(bc − ad)
  for (let i = 0; i < pairs; i++) {
    const [re, im] = pairFeatures(dim, layout, i), [a, b, c, d] = [q[re], q[im], k[re], k[im]];
    real[i] = a * c + b * d;
    imag[i] = b * c - a * d;
  }
  const byDistance = new Map();
  return Float64Array.from(qPositions, (m, t) => {
    const r = m - kPositions[t];
    if (!byDistance.has(r)) {
      let total = 0;
      for (let i = 0; i < pairs; i++) total += real[i] * Math.cos(r * theta[i]) - imag[i] * Math.sin(r * theta[i]);
      byDistance.set(r, total);
    }
    return byDistance.get(r);
  });
}

/** posenc.rope.rope_pair_angles_at: α_t = arg(z^q_i(m_t) · conj(z^k_i(n_t))) in (−π, π]. Returns: [T] float64. */
export function ropePairAnglesAt(q, k, qPositions, kPositions, pair, base = 10000, layout = "half") {
  const zq = ropePairPoints(q, qPositions, pair, base, layout), zk = ropePairPoints(k, kPositions, pair, base, layout);
  return Float64Array.from(qPositions, (_, t) => {
    const [a, b, c, d] = [zq[2 * t], zq[2 * t + 1], zk[2 * t], zk[2 * t + 1]];
    return Math.atan2(b * c - a * d, a * c + b * d);
  });
}

/** posenc.rope.rope_offset_detector: q̃_i = e^{−i·r₀·θ_i}, k̃_i = 1, written into features with `layout`.
 * Returns: [q [D], k [D]] float64. */
export function ropeOffsetDetector(dim, offset, base = 10000, layout = "half") {
  const theta = ropeInvFreq(dim, base), q = new Float64Array(dim), k = new Float64Array(dim);
  theta.forEach((t, i) => {
    const [re, im] = pairFeatures(dim, layout, i);
    [q[re], q[im], k[re], k[im]] = [Math.cos(-offset * t), Math.sin(-offset * t), 1, 0];
  });
  return [q, k];
}

/** posenc.rope.rope_convert_layout: features reordered so a vector written for `source` pairing means the same
 * under `target` (half -> interleaved: x[perm], perm = [0, P, 1, P + 1, …]; back: x[argsort(perm)]).
 * Returns: [D] float64. */
export function ropeConvertLayout(x, source, target) {
  if (source === target) return Float64Array.from(x);
  const dim = x.length, out = new Float64Array(dim);
  for (let i = 0; i < dim / 2; i++) {
    const [half, inter] = [[i, i + dim / 2], [2 * i, 2 * i + 1]];
    const [from, to] = source === "half" ? [half, inter] : [inter, half];
    out[to[0]] = x[from[0]];
    out[to[1]] = x[from[1]];
  }
  return out;
}

// ---- RoPE as real models use it (posenc.rope_variants) ------------------------------------------------------------

/** posenc.rope_variants.rope_reflect_pairs: every pair (a, b) -> (a, −b), i.e. x̃_i conjugated. Returns: [D] float64. */
export function ropeReflectPairs(x, layout = "half") {
  const dim = x.length, out = Float64Array.from(x);
  for (let i = 0; i < dim / 2; i++) out[pairFeatures(dim, layout, i)[1]] *= -1;
  return out;
}

/** posenc.rope_variants.partial_rotary_dim: int(D · fraction) rounded down to an even number, at least 2. */
export function partialRotaryDim(dim, fraction) {
  return Math.max(2, Math.floor(Math.trunc(dim * fraction) / 2) * 2);
}

/** posenc.rope_variants.partial_rope_score_parts: s(r) = ⟨R_r q_rot, k_rot⟩ + ⟨q_pass, k_pass⟩ for the first
 * `rotaryDim` features rotated (half pairing, θ_i = base^(−2i/rotaryDim)) and the rest passed through, the query at
 * r and the key at 0. Returns: [rotated [R], passed [R]] float64. */
export function partialRopeScoreParts(q, k, rotaryDim, distances, base = 10000) {
  const rotated = ropeScoresAt(q.slice(0, rotaryDim), k.slice(0, rotaryDim), distances,
    new Float64Array(distances.length), base, "half");
  let dot = 0;
  for (let j = rotaryDim; j < q.length; j++) dot += q[j] * k[j];
  return [rotated, new Float64Array(distances.length).fill(dot)];
}

// ---- Shaw, T5, ALiBi (posenc.relative) and DeBERTa (posenc.deberta) ----------------------------------------------

/** posenc.relative.relative_offsets: r = −max_offset … max_offset (… 0 when `pastOnly`). Returns: [R] float64. */
export function relativeOffsets(maxOffset, pastOnly = false) {
  const count = (pastOnly ? 1 : 2) * maxOffset + 1;
  return Float64Array.from({ length: count }, (_, j) => j - maxOffset);
}

/** posenc.relative.shaw_clip_index: clip(r, −k, k) + k for each offset r. Returns: [R] float64 (whole numbers). */
export function shawClipIndex(relative, k) {
  return Float64Array.from(relative, (r) => Math.min(Math.max(r, -k), k) + k);
}

/** posenc.relative.t5_max_exact: n_exact = B'/2, B' = B/2 when bidirectional, B when causal. A number. */
export function t5MaxExact(bidirectional = true, numBuckets = 32) {
  if (bidirectional && (numBuckets < 4 || numBuckets % 2)) throw new RangeError("num_buckets: an even number ≥ 4");
  if (!bidirectional && numBuckets < 2) throw new RangeError("num_buckets: at least 2");
  return Math.floor((bidirectional ? numBuckets / 2 : numBuckets) / 2);
}

/** posenc.relative.t5_relative_bucket: bucket(r) = sign part + (n if n < n_exact, else
 * min(n_exact + ⌊log(n / n_exact) / log(max_distance / n_exact) · (B' − n_exact)⌋, B' − 1)), with n = |r|
 * (bidirectional, B' = B/2, r > 0 adding B') or max(−r, 0) (causal, B' = B); the log term in float32, as posenc
 * and the reference compute it. Throws a RangeError where posenc raises (max_distance ≤ n_exact).
 * Returns: [R] float64 (whole numbers). */
export function t5RelativeBucket(relative, bidirectional = true, numBuckets = 32, maxDistance = 128) {
  const exact = t5MaxExact(bidirectional, numBuckets), buckets = bidirectional ? numBuckets / 2 : numBuckets;
  if (maxDistance <= exact) throw new RangeError("max_distance must be larger than the exact range");
  const f = Math.fround, logRange = f(Math.log(maxDistance / exact)), span = buckets - exact;
  return Float64Array.from(relative, (r) => {
    const sign = bidirectional && r > 0 ? buckets : 0;
    const n = bidirectional ? Math.abs(r) : Math.max(-r, 0);
    if (n < exact) return sign + n;
    const scaled = f(f(f(Math.log(f(n / exact))) / logRange) * span);
    return sign + Math.min(exact + Math.trunc(scaled), buckets - 1);
  });
}

/** posenc.relative.alibi_slopes (float64): m_h = 2^(−e_h), e_h = 8h/p for h = 1 … p (p = 2^⌊log2 n⌋), then
 * 8h/(2p) for h = 1, 3, 5, … for the other n − p heads. Returns: [H] float64. */
export function alibiSlopes(heads) {
  const p = 2 ** Math.floor(Math.log2(heads));
  const exponents = Array.from({ length: heads }, (_, h) => (h < p ? (8 * (h + 1)) / p : (8 * (2 * (h - p) + 1)) / (2 * p)));
  return Float64Array.from(exponents, (e) => 2 ** -e);
}

/** posenc.relative.alibi_bias_per_offset (float64): bias[h, r] = m_h · r, future offsets (r > 0) −∞ when `causal`;
 * −m_h · |r| when not. Returns: [H, R] float64. */
export function alibiBiasPerOffset(relative, heads, causal = true) {
  const slopes = alibiSlopes(heads), out = new Float64Array(heads * relative.length);
  slopes.forEach((m, h) => relative.forEach((r, j) => {
    out[h * relative.length + j] = causal ? (r > 0 ? -Infinity : m * r) : -m * Math.abs(r);
  }));
  return out;
}

/** posenc.deberta.deberta_delta: δ(r) = clamp(r + k, 0, 2k − 1) for offsets r = i − j. Returns: [R] float64. */
export function debertaDelta(relative, k) {
  return Float64Array.from(relative, (r) => Math.min(Math.max(r + k, 0), 2 * k - 1));
}

// ---- Attention (posenc.attention) --------------------------------------------------------------------------------

/** posenc.attention.attention_weights: α_ij = exp(e_ij) / Σ_j' exp(e_ij') over each row of `scores` (a list of
 * [K] rows), keys after the query (j > i) weighted 0 when `causal`; computed from each row's largest score, as
 * torch's softmax is. Returns: [Q] rows of [K] float64. */
export function attentionWeights(scores, causal = false) {
  return Array.from(scores, (row, i) => {
    const seen = causal ? Math.min(row.length, i + 1) : row.length, out = new Float64Array(row.length);
    let top = -Infinity, total = 0;
    for (let j = 0; j < seen; j++) top = Math.max(top, row[j]);
    for (let j = 0; j < seen; j++) total += (out[j] = Math.exp(row[j] - top));
    for (let j = 0; j < seen; j++) out[j] /= total;
    return out;
  });
}

// ---- Context extension (posenc.rope_scaling, posenc.decay) --------------------------------------------------------

/** posenc.decay.rope_ones_score_at: the score of q = k = all ones at distance r, s(r) = 2 Σ_i cos(r·θ_i).
 * Returns: [R] float64. */
export function ropeOnesScoreAt(distances, invFreq) {
  return Float64Array.from(distances, (r) => {
    let sum = 0;
    for (const theta of invFreq) sum += Math.cos(r * theta);
    return 2 * sum;
  });
}

/** posenc.decay.rope_random_score_moments: the exact mean and standard deviation of s(r) = ⟨R_r q, k⟩ over random
 * q ~ N(0, I_D), k = ρq + √(1 − ρ²)ε: E s(r) = 2ρ Σ_i cos(r·θ_i), Var s(r) = D + 2ρ² Σ_i cos(2r·θ_i), at r = 0 …
 * maxDistance, or at `distances` when given (θ = `invFreq`, or base^(−2i/D)); with them, from the same cosines, the
 * all-ones score 2 Σ_i cos(r·θ_i) (posenc.decay.rope_ones_score_at: the decay page draws the three together).
 * Returns: {mean, std, ones} each [R] float64. */
export function ropeRandomScoreMoments(dim, base, maxDistance, similarity = 0, invFreq = null, distances = null) {
  const theta = invFreq ?? ropeInvFreq(dim, base);
  const at = distances ?? Float64Array.from({ length: maxDistance + 1 }, (_, r) => r);
  const mean = new Float64Array(at.length), std = new Float64Array(at.length), ones = new Float64Array(at.length);
  at.forEach((r, j) => {
    let first = 0, second = 0;
    for (const t of theta) {
      const c = Math.cos(r * t);
      first += c;
      second += 2 * c * c - 1; // cos(2x) = 2cos²x − 1: one cosine a pair (posenc: cos(2·angles), equal to ~1e-16)
    }
    mean[j] = 2 * similarity * first;
    std[j] = Math.sqrt(Math.max(0, dim + 2 * similarity ** 2 * second));
    ones[j] = 2 * first;
  });
  return { mean, std, ones };
}

/** posenc.decay.distance_grid: 0 … maxDistance, every one when they fit in maxPoints, else 0 and
 * round(maxDistance^(j/(n − 2))) for j = 0 … n − 2 (torch.logspace, rounded half to even), each once.
 * Returns: [R] float64 (whole numbers). */
export function distanceGrid(maxDistance, maxPoints = 2048) {
  if (maxDistance + 1 <= maxPoints) return Float64Array.from({ length: maxDistance + 1 }, (_, r) => r);
  const count = maxPoints - 1, step = Math.log10(maxDistance) / (count - 1);
  const even = (x) => (x - Math.floor(x) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x)); // torch.round
  const spaced = Array.from({ length: count }, (_, j) => even(10 ** (j === count - 1 ? Math.log10(maxDistance)
    : j * step)));
  return Float64Array.from([0, ...[...new Set(spaced)].sort((a, b) => a - b)]);
}

/** posenc.rope_scaling.yarn_ramp: YaRN's interpolation weight of each pair, w_i ∈ [0, 1] (θ'_i = w_i·θ_i/s +
 * (1 − w_i)·θ_i); "huggingface" (ends rounded outwards to whole pairs), "unrounded" or "paper" (linear in the
 * turns r_i = L_train·θ_i/2π). Returns: [D/2] float64. */
export function yarnRamp(dim, base, originalMaxPosition, betaFast = 32, betaSlow = 1, form = "huggingface") {
  const pairs = dim / 2;
  if (form === "paper") {
    const theta = ropeInvFreq(dim, base);
    return theta.map((t) => 1 - clamp((originalMaxPosition * t / (2 * Math.PI) - betaSlow) / (betaFast - betaSlow)));
  }
  const correction = (rotations) => dim * Math.log(originalMaxPosition / (rotations * 2 * Math.PI))
    / (2 * Math.log(base));
  let low = correction(betaFast), high = correction(betaSlow);
  if (form === "huggingface") [low, high] = [Math.floor(low), Math.ceil(high)];
  [low, high] = [Math.max(low, 0), Math.min(high, dim - 1)];
  if (low === high) high += 0.001; // the reference's guard against a zero-width ramp
  return Float64Array.from({ length: pairs }, (_, i) => clamp((i - low) / (high - low)));
}

function clamp(x) {
  return Math.min(Math.max(x, 0), 1);
}

/** posenc.rope_scaling.rope_scaled_inv_freq in float64: "linear" θ_i/s; "dynamic" base' = base·((s·L/L_train) −
 * (s − 1))^(D/(D−2)), L = max(seqLen, L_train); "yarn" the ramp between θ_i and θ_i/s, attention factor
 * 0.1·ln s + 1; "llama3" θ_i below L_train/highFreqFactor in wavelength, θ_i/s above L_train/lowFreqFactor, a
 * blend between. Returns: [inv_freq [D/2] float64, attention_factor]. */
export function ropeScaledInvFreq(dim, base, method, factor, originalMaxPosition, seqLen = null, betaFast = 32,
                                  betaSlow = 1, lowFreqFactor = 1, highFreqFactor = 4, yarnRampForm = "huggingface") {
  const theta = ropeInvFreq(dim, base), trained = originalMaxPosition;
  if (method === "linear") return [theta.map((t) => t / factor), 1];
  if (method === "dynamic") {
    const length = seqLen === null ? trained : Math.max(seqLen, trained);
    if (dim === 2) return [theta, 1];
    return [ropeInvFreq(dim, base * ((factor * length / trained) - (factor - 1)) ** (dim / (dim - 2))), 1];
  }
  if (method === "yarn") {
    const attention = factor > 1 ? 0.1 * Math.log(factor) + 1 : 1;
    const ramp = yarnRamp(dim, base, trained, betaFast, betaSlow, yarnRampForm);
    return [theta.map((t, i) => (t / factor) * ramp[i] + t * (1 - ramp[i])), attention];
  }
  const low = trained / lowFreqFactor, high = trained / highFreqFactor; // llama3: wavelengths
  return [theta.map((t) => {
    const wavelength = 2 * Math.PI / t;
    const scaled = wavelength > low ? t / factor : t;
    if (highFreqFactor === lowFreqFactor || wavelength < high || wavelength > low) return scaled;
    const smooth = (trained / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
    return (1 - smooth) * scaled / factor + smooth * scaled;
  }), 1];
}

const SCALING_METHODS = ["linear", "dynamic", "yarn", "llama3"]; // posenc.rope_scaling.ROPE_SCALING_METHODS

/** posenc.decay.rope_context_extension: every method's frequencies from trainedLength to targetLength tokens
 * (s = target/trained; dynamic NTK read at L = target with HF factor 1). Returns: {method: [inv_freq, factor]}. */
export function ropeContextExtension(dim, base, trainedLength, targetLength) {
  const factor = targetLength / trainedLength;
  const result = { original: [ropeInvFreq(dim, base), 1] };
  for (const method of SCALING_METHODS) {
    result[method] = method === "dynamic" && dim === 2 ? result.original
      : ropeScaledInvFreq(dim, base, method, method === "dynamic" ? 1 : factor, trainedLength, targetLength);
  }
  return result;
}

/** posenc.decay.rope_extension_decay: every method's decay curve over distanceGrid(targetLength, maxPoints), the
 * bound ("bound") or the all-ones score ("ones"), times attention_factor². Returns: [distances, {method: [R]}]. */
export function ropeExtensionDecay(dim, base, trainedLength, targetLength, kind = "bound", maxPoints = 2048) {
  const curve = kind === "bound" ? ropeDecayBoundAt : ropeOnesScoreAt;
  const distances = distanceGrid(targetLength, maxPoints);
  const methods = ropeContextExtension(dim, base, trainedLength, targetLength);
  const curves = Object.fromEntries(Object.entries(methods).map(([name, [freqs, factor]]) => [
    name, curve(distances, freqs).map((v) => v * factor ** 2)]));
  return [distances, curves];
}
