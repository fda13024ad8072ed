// "Why not 0, 1, 2, …?" on the sinusoidal page: integer positions, normalised positions p / (L − 1) and the
// sinusoid, for a short input (its own slider) and a long one (the shared length), with the band of word-embedding
// entries (±2). Computed here at any short and long length (charts/sinusoidal.py `live_naive` sends the words, the
// dim and the pair drawn) by twins of posenc's functions (static/twins.js, held to posenc by tests/test_twins.py):
//   p and p / (L − 1): posenc.absolute.integer_positions and normalized_positions (float32, as posenc's), every
//     position of the short input, and of the long one at most line_points spread evenly (position 1 among them:
//     the readout's token; live.js spreadEvenly, as ui.live.spread_evenly picks them);
//   the sinusoid PE(p, 2i) = sin(p·ω_i) of the pair drawn, ω_i from posenc.absolute.sinusoid_inv_freq at the
//     sidebar's base, which it follows while the thumb moves (static/live.js `follows`), at most 512 positions.

// live.js and twins.js of the same release (this view's own ?v=…): a plain `from "../live.js"` would load a second,
// unversioned copy
const release = new URL(import.meta.url).search;
const { spread, spreadEvenly } = await import(new URL(`../live.js${release}`, import.meta.url).href);
const twins = await import(new URL(`../twins.js${release}`, import.meta.url).href);

const LONG = "#636efa", SHORT = "#ef553b"; // the long input and the short one

export function view(data, values) {
  const { names, band } = data;
  const normShort = twins.normalizedPositions(values.short);
  const positions = Float64Array.from(new Set([...spreadEvenly(0, values.length - 1, data.line_points), 1]))
    .sort();
  const integers = twins.integerPositions(values.length), normalized = twins.normalizedPositions(values.length);
  const integersAt = positions.map((p) => integers[p]), normLong = positions.map((p) => normalized[p]);
  const omega = twins.sinusoidInvFreq(data.dim, values.base)[data.pair];
  const shortX = Float64Array.from({ length: values.short }, (_, p) => p);
  const longX = Float64Array.from(spread(values.length, 512));
  const sine = (x) => x.map((p) => Math.sin(p * omega)); // PE(p, 2i) = sin(p·ω_i)
  const named = (template, length) => template.replace("{length}", length.toLocaleString("en-US"));
  const long = { color: LONG, width: 2 };
  const short = { color: SHORT, mode: "lines+markers", width: 3, size: 5 };
  const last = values.length - 1;
  const bandLines = [band, -band].map((y, k) => ({
    x: Float64Array.of(0, last), y: Float64Array.of(y, y), color: "#999999", dash: true, width: 1.5,
    ...(k === 0 ? { name: names.band } : {}),
  }));
  const panel = (name, series) => ({ kind: "lines", series: [...series, ...bandLines], marks: [],
                                     words: data.panel_words[name] });
  const panels = [
    panel("integer", [{ ...long, x: positions, y: integersAt, name: named(names.integer, values.length) }]),
    panel("normalised", [
      { ...long, x: positions, y: normLong, name: named(names.normalised, values.length) },
      { ...short, x: shortX, y: normShort, name: named(names.normalised, values.short) },
    ]),
    panel("sinusoid", [
      { ...long, x: longX, y: sine(longX), name: named(names.sinusoid, values.length) },
      { ...short, x: shortX, y: sine(shortX), name: named(names.sinusoid, values.short) },
    ]),
  ];
  const picked = {
    token_short: normShort.subarray(1, 2), // token 1 of each input
    token_long: normLong.subarray(positions.indexOf(1), positions.indexOf(1) + 1),
    last: integersAt.subarray(integersAt.length - 1),
  };
  return { panels, picked };
}
