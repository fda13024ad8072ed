// The RoPE page's live views (pages/rope.py; data from charts/rope.py `live_pair`, `live_shift`, `live_clocks`,
// `live_layout`), loaded by static/live.js as the view "rope". Every number is computed here by a twin of the posenc
// function named beside it (static/twins.js, held to posenc by tests/test_twins.py), at whatever the sliders say:
//
//   the rotation of one pair (posenc.rope.rope_pair_points):  z_i(p) = x̃_i · e^{i·p·θ_i},  θ_i = base^(−2i/d)
//     (posenc.rope.rope_inv_freq),
//   the angle from k to q in that pair (posenc.rope.rope_pair_angles_at):  α_i = arg(z^q_i(m) · conj(z^k_i(n))),
//   the score (posenc.rope.rope_scores_at):  ⟨R_m q, R_n k⟩, every pair of q turned by m·θ_i and of k by n·θ_i,
//   every pair's clock hand (posenc.rope.rope_rotation_factors):  e^{i·p·θ_i},
//   the layout experiment (posenc.rope.rope_offset_detector, rope_convert_layout, rope_scores_at): a head trained
//     with one pairing to look r₀ back, run with its own, converted, and with the other pairing.
//
// The server sends only what no formula gives: the page's seeded q and k (posenc._random), and the words. The shared
// base and dim a chart has no slider for are followed from the tab's store (static/live.js `follows`): every picture
// here follows both while the sidebar's thumb moves (q and k are sent at the app's largest dim; a dim draws their
// first features, and the pair slider reaches the dim's last pair: static/live.js `upto`).

const release = new URL(import.meta.url).search; // the same release's modules (one instance of each in the tab)
const twins = await import(new URL(`../twins.js${release}`, import.meta.url).href);
const { resolve } = await import(new URL(`../live.js${release}`, import.meta.url).href);

const CIRCLE_POINTS = 65; // the dotted path of an arrow's tip: a circle of radius |x̃_i| (drawing geometry only)

export function view(data, values) {
  const pictures = { pair: pairPicture, shift: shiftPicture, clocks: clocksPicture, layout: layoutPicture };
  return pictures[data.picture](data, values);
}

function circle(radius) {
  const x = new Float64Array(CIRCLE_POINTS), y = new Float64Array(CIRCLE_POINTS);
  for (let j = 0; j < CIRCLE_POINTS; j++) {
    x[j] = radius * Math.cos((2 * Math.PI * j) / (CIRCLE_POINTS - 1));
    y[j] = radius * Math.sin((2 * Math.PI * j) / (CIRCLE_POINTS - 1));
  }
  return { x, y };
}

/** The page's q and k at the dim drawn: the first `dim` features of those sent at the app's largest dim. */
function atDim(data, dim) {
  const { q, k } = data.arrays;
  return [Float64Array.from(q.subarray(0, dim)), Float64Array.from(k.subarray(0, dim))];
}

// Pair i of q at position m and of k at position n as arrows from the origin, at any base, pair, m, n and dim.
function pairPicture(data, values) {
  const { pair, m, n, base, dim } = values, [q, k] = atDim(data, dim);
  const zq = twins.ropePairPoints(q, [m], pair, base), zk = twins.ropePairPoints(k, [n], pair, base);
  const words = data.words, colors = data.colors;
  const arrow = (z, name, color) => ({ x: Float64Array.of(0, z[0]), y: Float64Array.of(0, z[1]), name, color,
                                       mode: "lines+markers", width: 4, size: 5 });
  const path = (z, name, color) => ({ ...circle(Math.hypot(z[0], z[1])), name, color, dash: true, width: 1.5 });
  const panel = {
    kind: "lines", square: true, marks: [], words: { title: words.title, x: words.x, y: words.y },
    series: [path(zq, words.path_q, colors.q), path(zk, words.path_k, colors.k),
             arrow(zq, words.arrow_q, colors.q), arrow(zk, words.arrow_k, colors.k)],
  };
  const picked = {
    pair: [pair], angle: twins.ropePairAnglesAt(q, k, [m], [n], pair, base),
    score: twins.ropeScoresAt(q, k, [m], [n], base), theta: [twins.ropeInvFreq(q.length, base)[pair]],
    q_point: zq, k_point: zk,
  };
  return { panels: [panel], picked };
}

// The score against the shift t (every t of the shift slider): both positions moved, ⟨R_{m+t} q, R_{n+t} k⟩, and only
// the query moved, ⟨R_{m+t} q, R_n k⟩; the current shift marked. At the store's base and dim, in the pair the page
// chose (the last the dim has, when it has fewer).
function shiftPicture(data, values) {
  const { m, n, shift, base, dim } = values, [q, k] = atDim(data, dim), pair = Math.min(data.pair, dim / 2 - 1);
  const shifts = Float64Array.from(data.controls.shift.values);
  const scores = (qAt, kAt) => twins.ropeScoresAt(q, k, qAt, kAt, base);
  const both = scores(shifts.map((t) => m + t), shifts.map((t) => n + t));
  const queryOnly = scores(shifts.map((t) => m + t), shifts.map(() => n));
  const angle = (qAt, kAt) => twins.ropePairAnglesAt(q, k, [qAt], [kAt], pair, base);
  const after = scores([m + shift], [n + shift]);
  const words = data.words, colors = data.colors;
  const panel = {
    kind: "lines", marks: [{ x: shift, label: "s = {shift}" }],
    words: { title: words.title, x: words.x, y: words.y },
    series: [
      { x: shifts, y: both, name: words.both, color: colors.q, width: 4 },
      { x: shifts, y: queryOnly, name: words.query, color: colors.k, width: 2 },
      { x: Float64Array.of(shift), y: after, name: words.marker, color: colors.q, mode: "markers", size: 7 },
    ],
  };
  const picked = {
    before: scores([m], [n]), after, query_only: scores([m + shift], [n]), pair: [pair],
    angle_before: angle(m, n), angle_after: angle(m + shift, n + shift),
  };
  return { panels: [panel], picked };
}

/** The pairs that get a dial: all D/2, or `most` evenly spaced ones (the nearest pair), the first and last kept. */
function clockPairs(dim, most) {
  const pairs = dim / 2, count = Math.min(pairs, most);
  if (count === 1) return [0];
  return [...new Set(Array.from({ length: count }, (_, j) => Math.round((j * (pairs - 1)) / (count - 1))))];
}

// Every pair as a clock hand at position p: hand i is e^{i·p·θ_i} drawn from the dial's centre, for every pair, or
// dials.most evenly spaced ones (then "clipped", and the readout says how many of how many).
function clocksPicture(data, values) {
  const { position: p, dim, base } = values, g = data.dials;
  const pairs = clockPairs(dim, g.most);
  const every = twins.ropeInvFreq(dim, base);
  const hands = twins.ropeRotationFactors([p], pairs.map((i) => every[i])); // e^{i·p·θ_i}: (cos, sin) per hand
  const dialX = [], dialY = [], handX = [], handY = [], tipX = [], tipY = [], texts = [];
  const dial = circle(g.radius);
  pairs.forEach((pair, k) => {
    const cx = k % g.columns, cy = -g.row_spacing * Math.floor(k / g.columns);
    for (let j = 0; j < CIRCLE_POINTS; j++) { dialX.push(cx + dial.x[j]); dialY.push(cy + dial.y[j]); }
    dialX.push(NaN); dialY.push(NaN);
    const [x, y] = [g.hand * hands[2 * k], g.hand * hands[2 * k + 1]]; // as long as the dial allows
    handX.push(cx, cx + x, NaN); handY.push(cy, cy + y, NaN);
    tipX.push(cx + x); tipY.push(cy + y);
    texts.push({ x: cx, y: cy - g.radius - 0.16, text: `i=${pair}` });
  });
  const rows = Math.ceil(pairs.length / g.columns);
  const panel = {
    kind: "lines", bare: true, equal: true, texts, marks: [], words: { title: data.words.title },
    height: g.top + g.row_height * rows,
    x_min: -0.6, x_max: g.columns - 0.4, y_min: -g.row_spacing * (rows - 1) - 0.75, y_max: 0.6,
    series: [
      { x: Float64Array.from(dialX), y: Float64Array.from(dialY), color: data.colors.dial, width: 1.5 },
      { x: Float64Array.from(handX), y: Float64Array.from(handY), color: data.colors.q, width: 3 },
      { x: Float64Array.from(tipX), y: Float64Array.from(tipY), color: data.colors.q, mode: "markers", size: 3.5 },
    ],
  };
  const clipped = pairs.length < dim / 2 ? 1 : 0;
  return { panels: [panel], picked: { position: [p], pairs, clipped: [clipped], shown: [pairs.length],
                                      total: [dim / 2] } };
}

// The layout experiment's three score curves over r = 0 … L − 1 (the query at r, the key at 0), for the offset r₀
// of the slider: the head trained with `trained` pairing run right, converted to the other pairing, and run wrong.
function layoutPicture(data, values) {
  const { trained, length } = data, { offset, dim, base } = values;
  const other = trained === "half" ? "interleaved" : "half";
  const [q, k] = twins.ropeOffsetDetector(dim, offset, base, trained);
  const distances = Float64Array.from({ length }, (_, r) => r), zero = new Float64Array(length);
  const convert = (x) => twins.ropeConvertLayout(x, trained, other);
  const picked = {
    distances, offset: [offset],
    right: twins.ropeScoresAt(q, k, distances, zero, base, trained),
    converted: twins.ropeScoresAt(convert(q), convert(k), distances, zero, base, other),
    wrong: twins.ropeScoresAt(q, k, distances, zero, base, other),
  };
  return { panels: data.panels.map((spec) => resolve(spec, picked)), picked };
}
