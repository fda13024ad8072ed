// The RoPE page's live views (pages/rope.py; data from charts/rope.py `live_pair`, `live_shift`, `live_clocks`), loaded by
// static/live.js as the view "rope". posenc computed every array; the browser only evaluates one documented
// elementwise step and selects:
//
//   the rotation of one pair (posenc.rope.rope_pair_points):  z_i(p) = x̃_i · e^{i·p·θ_i}, i.e.
//     Re z = a·cos(p·θ_i) − b·sin(p·θ_i),  Im z = a·sin(p·θ_i) + b·cos(p·θ_i)   for x̃_i = a + i·b,
//   the angle from k to q in that pair (posenc.rope.rope_pair_angles_at):  α_i = arg(z^q_i(m) · conj(z^k_i(n))),
//
// with q̃_i, k̃_i (posenc.rope.to_complex_pairs of rope_example_qk) and θ_i (posenc.rope.rope_inv_freq) as sent,
//
//   and every pair's clock hand (posenc.rope.rope_rotation_factors):  e^{i·p·θ_i} = (cos p·θ_i, sin p·θ_i).
// The score ⟨R_m q, R_n k⟩ is a sum over all pairs, so it is never summed here: posenc sent s(r) for every
// distance r = m − n the sliders reach (posenc.rope.rope_scores_at), and the views pick s at the current r.

const CIRCLE_POINTS = 65; // the dotted path of an arrow's tip: a circle of radius |x̃_i| (drawing geometry only)

export function view(data, values) {
  const pictures = { pair: pairPicture, shift: shiftPicture, clocks: clocksPicture };
  return pictures[data.picture](data, values);
}

/** x̃ · e^{i·p·θ} as [re, im]. */
function turn([a, b], p, theta) {
  const c = Math.cos(p * theta), s = Math.sin(p * theta);
  return [a * c - b * s, a * s + b * c];
}

/** arg(zq · conj(zk)) in [−π, π]. */
function angleBetween(zq, zk) {
  return Math.atan2(zq[1] * zk[0] - zq[0] * zk[1], zq[0] * zk[0] + zq[1] * zk[1]);
}

/** s(r) from the scores posenc sent for r = first_distance, first_distance + 1, … */
function score(data, r) {
  return data.arrays.scores[r - data.first_distance];
}

function circle(radius) {
  const x = new Float64Array(CIRCLE_POINTS), y = new Float64Array(CIRCLE_POINTS);
  for (let j = 0; j < CIRCLE_POINTS; j++) {
    x[j] = radius * Math.cos((2 * Math.PI * j) / (CIRCLE_POINTS - 1));
    y[j] = radius * Math.sin((2 * Math.PI * j) / (CIRCLE_POINTS - 1));
  }
  return { x, y };
}

// Pair i of q at position m and of k at position n as arrows from the origin. θ_i: every pair's at the server's
// base, or this pair's at every base of the base slider; the score: s(m − n) at the server's base, or the score at
// the server's (m, n) for every base. Null (keep the last picture) if base and another control moved at once.
function pairPicture(data, values) {
  const at = data.server, A = data.arrays;
  const pair = values.pair ?? at.pair;
  let theta, value;
  if (values.base === at.base) {
    theta = A.theta[pair];
    value = score(data, values.m - values.n);
  } else {
    if (pair !== at.pair || values.m !== at.m || values.n !== at.n) return null;
    const row = data.controls.base.values.indexOf(values.base);
    if (row < 0) return null;
    theta = A.theta_by_base[row];
    value = A.score_by_base[row];
  }
  const q = [A.q_re[pair], A.q_im[pair]], k = [A.k_re[pair], A.k_im[pair]];
  const zq = turn(q, values.m, theta), zk = turn(k, values.n, theta);
  const words = data.words, colors = data.colors;
  const arrow = (z, name, color) => ({ x: Float64Array.of(0, z[0]), y: Float64Array.of(0, z[1]), name, color,
                                       mode: "lines+markers", width: 4, size: 5 });
  const path = (x, name, color) => ({ ...circle(Math.hypot(x[0], x[1])), name, color, dash: true, width: 1.5 });
  const panel = {
    kind: "lines", square: true, marks: [], words: { title: words.title, x: words.x, y: words.y },
    series: [path(q, words.path_q, colors.q), path(k, words.path_k, colors.k),
             arrow(zq, words.arrow_q, colors.q), arrow(zk, words.arrow_k, colors.k)],
  };
  const picked = { pair: [pair], angle: [angleBetween(zq, zk)], score: [value], theta: [theta],
                   q_point: zq, k_point: zk };
  return { panels: [panel], picked };
}

// The score against the shift t (every t of the shift slider): both positions moved, s((m + t) − (n + t)), and only
// the query moved, s(m + t − n); the current shift marked. All picked from s(r) at the server's base.
function shiftPicture(data, values) {
  const { m, n, shift } = values;
  const shifts = Float64Array.from(data.controls.shift.values);
  const both = shifts.map((t) => score(data, (m + t) - (n + t)));
  const queryOnly = shifts.map((t) => score(data, m + t - n));
  const [qa, qb, ka, kb, theta] = data.arrays.one_pair;
  const angleAt = (p, r) => angleBetween(turn([qa, qb], p, theta), turn([ka, kb], r, theta));
  const words = data.words, colors = data.colors;
  const after = score(data, (m + shift) - (n + shift));
  const panel = {
    kind: "lines", marks: [{ x: shift, label: "s = {shift}" }],
    words: { title: words.title, x: words.x, y: words.y },
    series: [
      { x: shifts, y: both, name: words.both, color: colors.q, width: 4 },
      { x: shifts, y: queryOnly, name: words.query, color: colors.k, width: 2 },
      { x: Float64Array.of(shift), y: Float64Array.of(after), name: words.marker, color: colors.q, mode: "markers",
        size: 7 },
    ],
  };
  const picked = {
    before: [score(data, m - n)], after: [after], query_only: [score(data, m + shift - n)],
    angle_before: [angleAt(m, n)], angle_after: [angleAt(m + shift, n + shift)],
  };
  return { panels: [panel], picked };
}

// Every pair as a clock hand at position p (charts/rope.py `live_clocks`): hand i points at the angle p·θ_i, so it is
// e^{i·p·θ_i} drawn from the dial's centre; the pairs sent are all of them, or MAX_CLOCKS evenly spaced ones.
function clocksPicture(data, values) {
  const p = values.position, { theta, pairs } = data.arrays, g = data.dials;
  const dialX = [], dialY = [], handX = [], handY = [], tipX = [], tipY = [], texts = [];
  const dial = circle(g.radius);
  for (let k = 0; k < theta.length; k++) {
    const cx = k % g.columns, cy = -g.row_spacing * Math.floor(k / g.columns);
    for (let j = 0; j < CIRCLE_POINTS; j++) { dialX.push(cx + dial.x[j]); dialY.push(cy + dial.y[j]); }
    dialX.push(NaN); dialY.push(NaN);
    const [x, y] = turn([g.hand, 0], p, theta[k]); // the hand: e^{i·p·θ_i}, as long as the dial allows
    handX.push(cx, cx + x, NaN); handY.push(cy, cy + y, NaN);
    tipX.push(cx + x); tipY.push(cy + y);
    texts.push({ x: cx, y: cy - g.radius - 0.16, text: `i=${pairs[k]}` });
  }
  const rows = Math.ceil(theta.length / g.columns);
  const panel = {
    kind: "lines", bare: true, equal: true, texts, marks: [], words: { title: data.words.title },
    x_min: -0.6, x_max: g.columns - 0.4, y_min: -g.row_spacing * (rows - 1) - 0.75, y_max: 0.6,
    series: [
      { x: Float64Array.from(dialX), y: Float64Array.from(dialY), color: data.colors.dial, width: 1.5 },
      { x: Float64Array.from(handX), y: Float64Array.from(handY), color: data.colors.q, width: 3 },
      { x: Float64Array.from(tipX), y: Float64Array.from(tipY), color: data.colors.q, mode: "markers", size: 3.5 },
    ],
  };
  return { panels: [panel], picked: { position: [p] } };
}
