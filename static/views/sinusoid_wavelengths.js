// The sinusoidal page's wavelengths (figures/absolute.py `wavelength_figure`; follow data from charts/sinusoidal.py
// `wavelength_follow`), redrawn by static/figure.js from the tab's store while the sidebar's length, dim or base
// moves:
//
//   λ_i = 2π / ω_i = 2π·base^(2i/D)  for each pair i, on a log axis, with a dashed line at the length L
//
// by the twin of posenc.absolute.sinusoid_wavelengths (float32, as the server sends it); the line's label is the
// catalog's template with {length} filled, and the y range (log10 units) spans the wavelengths and L, 0.2 beyond.

const release = new URL(import.meta.url).search;
const { sinusoidWavelengths } = await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** The server's figure (Plotly's format: the wavelengths' trace, the length's line and its label) at the store's
 * length, dim and base. */
export function view(data, values, figure) {
  const { length, dim, base } = values;
  const y = Float32Array.from(sinusoidWavelengths(dim, base));
  const low = Math.log10(Math.min(...y, length)), high = Math.log10(Math.max(...y, length));
  const { layout } = figure;
  const [line, ...shapes] = layout.shapes;
  const [label, ...notes] = layout.annotations;
  return {
    ...figure,
    data: [{ ...figure.data[0], y }],
    layout: {
      ...layout,
      yaxis: { ...layout.yaxis, range: [low - 0.2, high + 0.2] },
      shapes: [{ ...line, y0: length, y1: length }, ...shapes],
      annotations: [{ ...label, y: Math.log10(length), text: data.length_line.replace("{length}", String(length)) },
        ...notes],
    },
  };
}
