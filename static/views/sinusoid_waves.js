// The sinusoidal page's "chosen dimensions over position" (figures/absolute.py `waves_figure`; follow data from
// charts/sinusoidal.py `waves_follow`), redrawn by static/figure.js from the tab's store while the sidebar's length,
// dim or base moves. Each chosen column c of the table is one line over p = 0 … L − 1,
//
//   PE(p, c) = sin(p·ω_i) at the sine column of pair i, cos(p·ω_i) at its cosine column,  ω_i = base^(−2i/D)
//
// by the twin of posenc.absolute.sinusoidal (float32, as the server sends it), named "d{column} = {kind}, pair {pair}"
// from the catalog's template with the twin of posenc.absolute.sinusoid_pair_columns; a column the dim no longer has
// is left out, as the page leaves it out.

// twins.js of the same release (this view's own ?v=…): a plain `from "../twins.js"` would load a second copy
const release = new URL(import.meta.url).search;
const { sinusoidal, sinusoidPairColumns } = await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** figures.absolute.column_label: the column's name from the template, its kind and pair read from the pairs'
 * columns ([P, 2] flattened: sine column, cosine column of each pair). */
export function columnLabel(column, pairColumns, template) {
  const at = pairColumns.indexOf(column);
  const words = { column, kind: at % 2 === 0 ? "sin" : "cos", pair: at >> 1 };
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in words ? String(words[name]) : whole));
}

/** The server's figure (Plotly's format, one trace per chosen column) at the store's length, dim and base. */
export function view(data, values, figure) {
  const { length, dim, base } = values;
  const columns = data.columns.filter((column) => column < dim);
  const table = sinusoidal(length, dim, base, data.layout, "float32", columns); // [L, C]
  const pairs = sinusoidPairColumns(dim, data.layout);
  const traces = columns.map((column, k) => {
    const y = new Float32Array(length);
    for (let p = 0; p < length; p++) y[p] = table[p * columns.length + k];
    const sent = figure.data[data.columns.indexOf(column)];
    return { ...sent, y, name: columnLabel(column, pairs, data.column_label) };
  });
  return { ...figure, data: traces };
}
