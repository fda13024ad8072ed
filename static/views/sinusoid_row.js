// One row of the sinusoidal page's PE·PEᵀ (figures/absolute.py `similarity_row_figure`; follow data from
// charts/sinusoidal.py `similarity_row_follow`), redrawn by static/figure.js from the tab's store while the sidebar's
// length, dim or base moves:
//
//   PE(p)·PE(q) = Σ_i cos((q − p)·ω_i),  ω_i = base^(−2i/D),  q = 0 … L − 1      (arXiv 1706.03762 §3.5)
//
// by the twin of posenc.absolute.sinusoid_dot_by_offset (float32, as the server draws it). The server's two lines,
// the dot products of the table's rows and the closed form, agree to float32 (sin a sin b + cos a cos b = cos(a − b)),
// so both are drawn from the closed form. The row p is the section's own slider; a length that leaves it out sends
// it back to its default, L // 2, as Streamlit does, and the row's name, title and mark follow.

const release = new URL(import.meta.url).search;
const { sinusoidDotByOffset } = await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** The server's figure (Plotly's format: the dot products, then the closed form) at the store's length, dim and
 * base. */
export function view(data, values, figure) {
  const { length } = values;
  const position = data.position < length ? data.position : Math.floor(length / 2);
  const offsets = Float64Array.from({ length }, (_, q) => q - position);
  const y = Float32Array.from(sinusoidDotByOffset(offsets, values.dim, values.base));
  const traces = figure.data.map((trace) => ({ ...trace, y }));
  if (position === data.position) return { ...figure, data: traces };
  const fill = (template) => template.replace("{position}", String(position));
  traces[0] = { ...traces[0], name: fill(data.words.dots) };
  const { layout } = figure;
  return { ...figure, data: traces, layout: { ...layout, title: { ...layout.title, text: fill(data.words.title) },
    shapes: layout.shapes.map((shape) => ({ ...shape, x0: position, x1: position })),
    annotations: layout.annotations.map((note) => ({ ...note, x: position, text: `p = ${position}` })) } };
}
