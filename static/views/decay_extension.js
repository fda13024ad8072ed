// The live context-extension chart on the "Long-range decay" page (pages/decay.py; data from charts/decay.py
// `live_extension`), loaded by static/live.js as the view "decay_extension". The server sends the words, the
// panels' settings and the curve kind; the browser computes, at any training length L and factor s of the chart's
// sliders and at the sidebar's dim and base (which it follows while their thumbs move), every method's
//
//   θ'_i / θ_i against λ_i = 2π/θ_i  (PI, dynamic NTK, YaRN, Llama 3.1: posenc.decay.rope_context_extension)
//   and its decay curve × attention factor² over 0 … s·L  (posenc.decay.rope_extension_decay)
//
// with the twins of those functions (static/twins.js, held to posenc by tests/test_twins.py), at data.points pairs
// (spread evenly, live.js spreadEvenly as ui.live.spread_evenly picks them) and distances.

// live.js and twins.js of the same release (this view's own ?v=…): a plain `from "../live.js"` would load a second,
// unversioned copy
const release = new URL(import.meta.url).search;
const { resolve, spreadEvenly } = await import(new URL(`../live.js${release}`, import.meta.url).href);
const twins = await import(new URL(`../twins.js${release}`, import.meta.url).href);

export function view(data, values) {
  const { dim, base, train, factor } = values;
  const target = Math.round(train * factor); // whole factors: no half to round
  const methods = twins.ropeContextExtension(dim, base, train, target);
  const pairs = spreadEvenly(0, dim / 2 - 1, data.points);
  const original = pairs.map((i) => methods.original[0][i]);
  const [distances, curves] = twins.ropeExtensionDecay(dim, base, train, target, data.kind, data.points);
  const picked = { wavelength: original.map((theta) => (2 * Math.PI) / theta), distances,
                   train_length: Float64Array.of(train), target: Float64Array.of(target) };
  for (const method of data.methods) {
    picked[`ratio_${method}`] = pairs.map((i, k) => methods[method][0][i] / original[k]);
    picked[`decay_${method}`] = curves[method];
  }
  return { panels: data.panels.map((spec) => resolve(spec, picked)), picked };
}
