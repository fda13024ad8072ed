// The decay page's bound for several bases (charts/decay.py `base_chart`, figures/decay.py `curves_figure`; follow
// data from charts/decay.py `base_follow`), redrawn by static/figure.js from the tab's store while the sidebar's dim
// or base moves: for the compared bases (10,000 and 500,000) and the sidebar's base when it is another one,
//
//   B(r) = (1/P) Σ_{j=1}^{P} |Σ_{k<j} e^{i·r·θ_k}|,  θ_k = base^(−2k/D)      (RoFormer, arXiv 2104.09864 §3.4.3)
//
// with the twins of posenc.rope.rope_inv_freq and posenc.decay.rope_decay_bound_at, at the distances the server
// draws (charts.decay.live_distances, the section's own max distance and axis: fixed here), each curve named from
// the catalog's template with its base written as the sidebar writes it (10,000).

const release = new URL(import.meta.url).search;
const { ropeDecayBoundAt, ropeInvFreq } = await import(new URL(`../twins.js${release}`, import.meta.url).href);
const { liveDistances } = await import(new URL(`./decay_bound.js${release}`, import.meta.url).href);

// Curves computed lately, by distances, dim and base: while the sidebar's base moves, the compared bases' curves
// are the same from frame to frame and only the moving base's is computed.
const computed = new Map();
function boundCurve(distances, key, dim, base) {
  const at = `${key}|${dim}|${base}`;
  if (!computed.has(at)) {
    if (computed.size >= 64) computed.delete(computed.keys().next().value); // the oldest goes
    computed.set(at, Float32Array.from(ropeDecayBoundAt(distances, ropeInvFreq(dim, base))));
  }
  return computed.get(at);
}

/** The server's figure (Plotly's format: one curve per base) at the store's dim and base. */
export function view(data, values, figure) {
  const distances = liveDistances(data.max_distance, data.log_x, data.points);
  const x = Float32Array.from(distances);
  const bases = [...new Set([...data.compared, values.base])];
  const [first] = figure.data; // every curve is drawn alike: the first one's style, its name and colour replaced
  const key = `${data.max_distance}|${data.log_x}|${data.points}`;
  const traces = bases.map((base, k) => {
    const y = boundCurve(distances, key, values.dim, base);
    const name = data.curve.replace("{base}", Math.round(base).toLocaleString("en-US"));
    return { ...first, x, y, name, line: { ...first.line, color: data.colors[k % data.colors.length] },
      hovertemplate: first.hovertemplate.replace(first.name, name) };
  });
  return { ...figure, data: traces };
}
