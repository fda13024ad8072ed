// "Why not 0, 1, 2, …?" on the sinusoidal page: integer positions, normalised positions p / (L − 1) and the
// sinusoid, for a short input (its own slider) and a long one (the shared length), with the band of word-embedding
// entries (±2). The server (charts/sinusoidal.py `live_naive`) sent from posenc:
//   norm_short: normalized_positions(s) for every short length s of the slider, one after another (starts.short);
//   positions, integers, norm_long: the positions drawn, integer_positions(L) and normalized_positions(L) there,
//     for every long length L of the length slider (starts.long);
//   omega: ω_i = base^(−2i/D) of the pair drawn (posenc.absolute.sinusoid_inv_freq).
// The browser only picks the rows of the two slider values and evaluates the documented elementwise step
// PE(p, 2i) = sin(p·ω_i) at the positions it draws (every one of the short input, at most 512 of the long one).

// live.js of the same release (this view's own ?v=…): a plain `from "../live.js"` would load a second, unversioned copy
const { spread } = await import(new URL(`../live.js${new URL(import.meta.url).search}`, import.meta.url).href);

const LONG = "#636efa", SHORT = "#ef553b"; // the long input and the short one

function row(array, starts, k) {
  return array.subarray(starts[k], starts[k + 1]);
}

export function view(data, values) {
  const s = data.controls.short.values.indexOf(values.short);
  const l = data.controls.length.values.indexOf(values.length);
  if (s < 0 || l < 0) return null;
  const { arrays, starts, names, band } = data;
  const normShort = row(arrays.norm_short, starts.short, s);
  const positions = row(arrays.positions, starts.long, l);
  const integers = row(arrays.integers, starts.long, l);
  const normLong = row(arrays.norm_long, starts.long, l);
  const omega = arrays.omega[0];
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
    panel("integer", [{ ...long, x: positions, y: integers, name: named(names.integer, values.length) }]),
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
    last: integers.subarray(integers.length - 1),
  };
  return { panels, picked };
}
