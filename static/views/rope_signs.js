// rope_practice's sign conventions (charts/rope.py `sign_chart`; follow data from `sign_follow`), redrawn by
// static/figure.js from the tab's store while the sidebar's dim or base moves: the page's q and k (the first D
// features of the two float32 vectors sent) scored at (m + t, n + t) for every shift t, rotated each way,
//
//   s_t = ⟨R(σ_q·(m + t)) q, R(σ_k·(n + t)) k⟩:  (+, +), (−, −), (+, +) of the reflected pairs, and (+, −)
//                                                                                      (arXiv 2104.09864 §3.2)
//
// with the twins of posenc.rope.rope_scores_at (a rotation by σ·m is one to the position σ·m) and
// posenc.rope_variants.rope_reflect_pairs; float32, as the server draws it.

const release = new URL(import.meta.url).search;
const { ropeReflectPairs, ropeScoresAt } = await import(new URL(`../twins.js${release}`, import.meta.url).href);
const { leadingFloat32 } = await import(new URL(`../packed.js${release}`, import.meta.url).href);

/** The server's figure (Plotly's format: the four score curves) at the store's dim and base. */
export function view(data, values, figure) {
  const { dim, base } = values;
  const [q, k] = [leadingFloat32(data.q, dim), leadingFloat32(data.k, dim)];
  const shifts = Array.from({ length: data.shifts + 1 }, (_, t) => t);
  const scores = ([qSign, kSign], [a, b] = [q, k]) => Float32Array.from(ropeScoresAt(a, b,
    shifts.map((t) => qSign * (data.m + t)), shifts.map((t) => kSign * (data.n + t)), base, "half"));
  const reflected = [ropeReflectPairs(q), ropeReflectPairs(k)];
  const ys = [scores([1, 1]), scores([-1, -1]), scores([1, 1], reflected), scores([1, -1])];
  return { ...figure, data: figure.data.map((trace, n) => ({ ...trace, y: ys[n] })) };
}
