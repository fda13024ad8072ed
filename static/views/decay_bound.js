// The live decay bound on the "Long-range decay" page (pages/decay.py; data from charts/decay.py `live_bound`),
// loaded by static/live.js as the view "decay_bound". The server sends only the words and the settings; the browser
// computes, at any base, dim and max distance (the sidebar's base and dim while their thumbs move),
//
//   B(r) = (1/P) Σ_{j=1}^{P} |Σ_{k<j} e^{i·r·θ_k}|,  θ_k = base^(−2k/D)      (RoFormer, arXiv 2104.09864 §3.4.3)
//
// with the twins of posenc.rope.rope_inv_freq and posenc.decay.rope_decay_bound_at (static/twins.js, held to posenc
// by tests/test_twins.py), at the distances charts/decay.py `live_distances` draws (at most data.points of them:
// spread evenly over 0 … max distance, or log-spaced from 1 on a logarithmic axis).

// live.js and twins.js of the same release (this view's own ?v=…): a plain `from "../live.js"` would load a second,
// unversioned copy
const release = new URL(import.meta.url).search;
const { resolve, spreadEvenly } = await import(new URL(`../live.js${release}`, import.meta.url).href);
const { ropeDecayBoundAt, ropeInvFreq } = await import(new URL(`../twins.js${release}`, import.meta.url).href);

const rint = (x) => (x - Math.floor(x) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x)); // numpy's rint

/** charts.decay.live_distances: every distance up to `points`, else `points` of them over 0 … maxDistance, evenly
 * (a linear axis) or log-spaced from 1 (numpy's geomspace, ends exact), rounded, each once. */
export function liveDistances(maxDistance, logX, points) {
  if (maxDistance < points || !logX) return spreadEvenly(0, maxDistance, points);
  const step = Math.log10(maxDistance) / (points - 1);
  const spaced = Array.from({ length: points }, (_, k) => (k === 0 ? 1 : k === points - 1 ? maxDistance
    : rint(10 ** (k * step))));
  return Float64Array.from([...new Set(spaced)].sort((a, b) => a - b));
}

export function view(data, values) {
  const distances = liveDistances(values.max_distance, data.log_x, data.points);
  const bound = ropeDecayBoundAt(distances, ropeInvFreq(values.dim, values.base));
  const picked = { distances, bound };
  return { panels: data.panels.map((spec) => resolve(spec, picked)), picked };
}
