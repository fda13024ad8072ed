// The decay page's actual scores (figures/decay.py `score_figure`; follow data from charts/decay.py `score_follow`),
// redrawn by static/figure.js from the tab's store while the sidebar's dim or base moves: for q = k = all ones, and
// the mean ± one standard deviation over random q, k = ρq + √(1 − ρ²)ε,
//
//   s_ones(r) = 2 Σ_i cos(r·θ_i),   E s(r) = 2ρ Σ_i cos(r·θ_i),   Var s(r) = D + 2ρ² Σ_i cos(2r·θ_i)
//
// by the twins of posenc.rope.rope_inv_freq and posenc.decay.rope_random_score_moments, whose cosines give the
// all-ones score (rope_ones_score_at) too: one cosine a pair and distance for the three curves (float32, as the server
// draws them), at the distances the server draws (charts.decay.live_distances). The similarity ρ, the max distance and
// the axis are the section's own sliders: the server's, fixed here.

const release = new URL(import.meta.url).search;
const { ropeInvFreq, ropeRandomScoreMoments } =
  await import(new URL(`../twins.js${release}`, import.meta.url).href);
const { liveDistances } = await import(new URL(`./decay_bound.js${release}`, import.meta.url).href);

/** The server's figure (Plotly's format: the band's lower and upper edge, the mean, the all-ones score) at the
 * store's dim and base. */
export function view(data, values, figure) {
  const distances = liveDistances(data.max_distance, data.log_x, data.points);
  const theta = ropeInvFreq(values.dim, values.base);
  const moments = ropeRandomScoreMoments(values.dim, values.base, 0, data.similarity, theta, distances);
  const x = Float32Array.from(distances), m = Float32Array.from(moments.mean), s = Float32Array.from(moments.std);
  const lower = m.map((v, j) => v - s[j]), upper = m.map((v, j) => v + s[j]); // float32 arithmetic, as numpy's
  const ones = Float32Array.from(moments.ones);
  const [low, high, middle, all] = figure.data;
  return { ...figure, data: [{ ...low, x, y: lower }, { ...high, x, y: upper }, { ...middle, x, y: m, customdata: s },
    { ...all, x, y: ones }] };
}
