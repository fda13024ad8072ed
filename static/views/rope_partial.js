// rope_practice's partial rotary score (charts/rope.py `partial_chart`; follow data from `partial_follow`), redrawn
// by static/figure.js from the tab's store while the sidebar's dim or base moves: the page's q and k (the first D
// features of the two float32 vectors sent) with their first r features rotated, r = int(D · fraction) rounded down
// to an even number,
//
//   s(r) = ⟨R_r q_[:r], k_[:r]⟩ + ⟨q_[r:], k_[r:]⟩,  θ_i = base^(−2i/r)     (GPT-NeoX, GPT-J and Phi's rotary_ndims)
//
// with the twins of posenc.rope_variants.partial_rotary_dim and partial_rope_score_parts; float32, as the server
// draws it: the sum, the rotated part, the passed part.

const release = new URL(import.meta.url).search;
const { partialRopeScoreParts, partialRotaryDim } =
  await import(new URL(`../twins.js${release}`, import.meta.url).href);
const { leadingFloat32 } = await import(new URL(`../packed.js${release}`, import.meta.url).href);

/** The server's figure (Plotly's format: total, rotated and passed) at the store's dim and base. */
export function view(data, values, figure) {
  const { dim, base } = values;
  const [q, k] = [leadingFloat32(data.q, dim), leadingFloat32(data.k, dim)];
  const distances = Float64Array.from({ length: data.distances + 1 }, (_, r) => r);
  const [rotated, passed] = partialRopeScoreParts(q, k, partialRotaryDim(dim, data.fraction), distances, base);
  const ys = [Float32Array.from(rotated, (v, r) => v + passed[r]), Float32Array.from(rotated),
    Float32Array.from(passed)];
  return { ...figure, data: figure.data.map((trace, n) => ({ ...trace, y: ys[n] })) };
}
