// The RoPE page's layout experiment as attention (figures/rope.py `layout_attention`; follow data from charts/rope.py
// `layout_attention_follow`), redrawn by static/figure.js from the tab's store while the sidebar's dim or base moves:
// a head "trained" with one pairing to look r₀ tokens back, run with that pairing (left) and with the other (right),
//
//   s(m, n) = ⟨R_m q, R_n k⟩ = Re Σ_i q̃_i·conj(k̃_i)·e^{i(m − n)θ_i},  q̃_i = e^{−i·r₀·θ_i}, k̃_i = 1,
//   α_mn = softmax over n ≤ m of s(m, n)                                                    (arXiv 2104.09864 §3.2)
//
// with the twins of posenc.rope.rope_offset_detector and rope_scores_at (which reads the features with the pairing
// it is given) and posenc.attention.attention_weights (causal); float32, as the server draws it.

const release = new URL(import.meta.url).search;
const { attentionWeights, ropeOffsetDetector, ropeScoresAt } =
  await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** The causal attention of q, k read with `layout` over the first `length` positions: [L · L] float32, row-major. */
function attention(q, k, length, base, layout) {
  const distances = Float64Array.from({ length }, (_, r) => r); // s depends on m − n only: once per distance
  const byDistance = ropeScoresAt(q, k, distances, new Float64Array(length), base, layout);
  const scores = Array.from({ length }, (_, m) => Float64Array.from({ length },
    (_, n) => (n <= m ? byDistance[m - n] : -Infinity))); // the future (n > m) is masked
  const weights = new Float32Array(length * length);
  attentionWeights(scores, true).forEach((row, m) => weights.set(row, m * length));
  return weights;
}

/** The server's figure (Plotly's format: the two attention heatmaps) at the store's dim and base. */
export function view(data, values, figure) {
  const { dim, base } = values, { offset, trained, length } = data;
  const other = trained === "half" ? "interleaved" : "half";
  const [q, k] = ropeOffsetDetector(dim, offset, base, trained);
  const tables = [attention(q, k, length, base, trained), attention(q, k, length, base, other)];
  const data_ = figure.data.map((trace, n) => ({ ...trace, z: { values: tables[n], shape: [length, length] } }));
  return { ...figure, data: data_ };
}
