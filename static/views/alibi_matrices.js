// The relative page's ALiBi bias matrices (figures/relative.py `alibi_head_matrices`; follow data from
// charts/relative.py `alibi_follow`), redrawn by static/figure.js from the tab's store while the sidebar's length or
// heads moves: the steepest and the gentlest head side by side (one panel for one head), over the first W positions,
//
//   bias[h, i, j] = m_h · (j − i) for j ≤ i, the masked future (j > i) blank,  W = min(length, matrix window),
//   m_h = 2^(−8h/n) (and the interleaved slopes of a head count that is no power of two)      (arXiv 2108.12409 §3)
//
// with the twins of posenc.relative.relative_offsets, alibi_slopes and alibi_bias_per_offset (float32, as the server
// draws it); one colour range, symmetric about 0, for both panels; the panels' titles and the window note are the
// catalog's templates with their numbers filled.

const release = new URL(import.meta.url).search;
const { alibiBiasPerOffset, alibiSlopes, relativeOffsets } =
  await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** The first index of the largest (`sign` 1) or smallest (−1) value, as numpy's argmax / argmin pick it. */
function pick(values, sign) {
  let best = 0;
  values.forEach((v, k) => { if (sign * (v - values[best]) > 0) best = k; });
  return best;
}

/** The server's figure (Plotly's format) at the store's length and heads. */
export function view(data, values, figure) {
  const { length, heads } = values, window = Math.min(length, data.window);
  const slopes = Float32Array.from(alibiSlopes(heads));
  const picks = heads === 1 ? [pick(slopes, 1)] : [pick(slopes, 1), pick(slopes, -1)];
  const offsets = relativeOffsets(window - 1); // r = −(W − 1) … W − 1
  const perOffset = alibiBiasPerOffset(offsets, heads); // [H, 2W − 1]
  const matrices = picks.map((head) => Float32Array.from({ length: window * window }, (_, cell) => {
    const i = Math.floor(cell / window), j = cell % window;
    const bias = perOffset[head * offsets.length + (j - i) + window - 1];
    return Number.isFinite(bias) ? bias : NaN; // the masked future: blank
  }));
  let lowest = Infinity;
  for (const z of matrices) for (const v of z) if (v < lowest) lowest = v;
  if (!Number.isFinite(lowest)) lowest = -1;
  const [model] = figure.data, width = (1 - data.panel_gap * (picks.length - 1)) / picks.length;
  const layout = { ...figure.layout };
  delete layout.xaxis2;
  delete layout.yaxis2;
  const annotations = [];
  const traces = picks.map((head, n) => {
    const suffix = n === 0 ? "" : String(n + 1), domain = [n * (width + data.panel_gap), n * (width + data.panel_gap) + width];
    layout[`xaxis${suffix}`] = { ...figure.layout.xaxis, anchor: `y${suffix}`, domain };
    layout[`yaxis${suffix}`] = n === 0 ? { ...figure.layout.yaxis }
      : { ...figure.layout.yaxis, anchor: `x${suffix}`, matches: "y", showticklabels: false, title: { text: "" } };
    annotations.push({ ...figure.layout.annotations[0], text: data.names[n].replace("{head}", String(head + 1)),
      x: (domain[0] + domain[1]) / 2 });
    return { ...model, z: { values: matrices[n], shape: [window, window] }, zmin: lowest, zmax: -lowest,
      showscale: n === picks.length - 1, xaxis: `x${suffix}`, yaxis: `y${suffix}` };
  });
  const note = window < length ? data.window_note.replace("{last}", String(window - 1))
    .replace("{length}", String(length)) : null;
  layout.title = { ...figure.layout.title, text: note === null ? data.title : `${data.title}<br><sup>${note}</sup>` };
  layout.annotations = annotations;
  layout.margin = { ...figure.layout.margin, t: note === null ? data.margin_top : data.margin_top_noted };
  return { ...figure, data: traces, layout };
}
