// DeBERTa's relative table row on the "Transformer-XL, DeBERTa and NoPE" page (pages/relative_scores.py; data from
// charts/relative_scores.py `deberta_live`), loaded by static/live.js as the view "deberta". The server sent the
// offsets r = i − j the curve is drawn at and the size of the matrix window; the browser evaluates the documented
// elementwise step of posenc.deberta.deberta_delta,
//
//   δ(r) = clamp(r + k, 0, 2k − 1)      (arXiv 2006.03654 §3.1, eq. 3)
//
// at every offset of the curve and at every cell (i, j) of the window, r = i − j.

// live.js of the same release (this view's own ?v=…): a plain `from "../live.js"` would load a second, unversioned copy
const { heatmapPanel } = await import(new URL(`../live.js${new URL(import.meta.url).search}`, import.meta.url).href);

export function view(data, values) {
  const k = values.k;
  const delta = (r) => Math.min(Math.max(r + k, 0), 2 * k - 1);
  const n = data.window;
  const cells = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) cells[i * n + j] = delta(i - j);
  const offsets = data.arrays.offsets;
  const matrix = heatmapPanel({ zmin: 0, zmax: Math.max(2 * k - 1, 1), colorscale: data.colorscale, square: true,
                                words: data.matrix_words }, cells, n, n);
  const curve = {
    kind: "lines", words: data.curve_words,
    series: [{ x: offsets, y: offsets.map(delta), color: data.color, mode: "lines+markers", size: 2.5 }],
    marks: [{ x: -k, label: "−k" }, { x: k - 1, label: "k − 1" }], // where the rows stop changing: math, not words
  };
  return { panels: [matrix, curve], picked: { k: [k], last_row: [2 * k - 1] } };
}
