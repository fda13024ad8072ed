// The decay page's YaRN ramp (charts/decay.py `yarn_ramp_chart`; follow data from `ramp_follow`), redrawn by
// static/figure.js from the tab's store while the sidebar's dim or base moves:
//
//   w_i for i = 0 … D/2 − 1, in each of posenc.rope_scaling.yarn_ramp's forms (Hugging Face's rounded ends, unrounded,
//   the paper's ramp in turns), at the section's training length L_train
//
// by the twin of posenc.rope_scaling.yarn_ramp. The pairs are the x axis: 0, 1, 2, … as Plotly's x0 and dx when there
// are more than two (figures/common.py `lines_figure`), else the pairs themselves.

const release = new URL(import.meta.url).search;
const { yarnRamp } = await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** The server's figure (one curve per form, in `data.forms` order) at the store's dim and base. */
export function view(data, values, figure) {
  const pairs = Math.floor(values.dim / 2);
  const axis = pairs > 2 ? { x0: 0, dx: 1 } : { x: Float32Array.from({ length: pairs }, (_, i) => i) };
  const traces = figure.data.map((trace, k) => {
    const { x, x0, dx, ...rest } = trace; // eslint-disable-line no-unused-vars
    return { ...rest, ...axis, y: Float32Array.from(yarnRamp(values.dim, values.base, data.train, 32, 1, data.forms[k])) };
  });
  return { ...figure, data: traces };
}
