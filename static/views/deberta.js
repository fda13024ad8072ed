// DeBERTa's relative table row on the "Transformer-XL, DeBERTa and NoPE" page (pages/relative_scores.py; data from
// charts/relative_scores.py `deberta_live`), loaded by static/live.js as the view "deberta". The server sent the
// offsets r = i − j the curve is drawn at and the size of the matrix window; the browser computes, at any k, the
// twin of posenc.deberta.deberta_delta (static/twins.js, held to posenc by tests/test_twins.py),
//
//   δ(r) = clamp(r + k, 0, 2k − 1)      (arXiv 2006.03654 §3.1, eq. 3)
//
// at every offset of the curve and at every cell (i, j) of the window, r = i − j.

// live.js and twins.js of the same release (this view's own ?v=…): a plain `from "../live.js"` would load a second,
// unversioned copy
const release = new URL(import.meta.url).search;
const { heatmapPanel } = await import(new URL(`../live.js${release}`, import.meta.url).href);
const { debertaDelta } = await import(new URL(`../twins.js${release}`, import.meta.url).href);

export function view(data, values) {
  const k = values.k;
  const n = data.window;
  const cells = debertaDelta(Float64Array.from({ length: n * n }, (_, c) => Math.floor(c / n) - (c % n)), k); // i − j
  const offsets = data.arrays.offsets;
  const matrix = heatmapPanel({ zmin: 0, zmax: Math.max(2 * k - 1, 1), colorscale: data.colorscale, square: true,
                                words: data.matrix_words }, cells, n, n);
  const curve = {
    kind: "lines", words: data.curve_words,
    series: [{ x: offsets, y: debertaDelta(offsets, k), color: data.color, mode: "lines+markers", size: 2.5 }],
    marks: [{ x: -k, label: "−k" }, { x: k - 1, label: "k − 1" }], // where the rows stop changing: math, not words
  };
  return { panels: [matrix, curve], picked: { k: [k], last_row: [2 * k - 1] } };
}
