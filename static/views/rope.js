// The RoPE page's live views (pages/rope.py; data from charts/rope.py `live_pair`, `live_shift`), loaded by
// static/live.js as the view "rope". posenc computed every array; the browser only evaluates one documented
// elementwise step and selects:
//
//   the rotation of one pair (posenc.rope.rope_pair_points):  z_i(p) = x̃_i · e^{i·p·θ_i}, i.e.
//     Re z = a·cos(p·θ_i) − b·sin(p·θ_i),  Im z = a·sin(p·θ_i) + b·cos(p·θ_i)   for x̃_i = a + i·b,
//   the angle from k to q in that pair (posenc.rope.rope_pair_angles_at):  α_i = arg(z^q_i(m) · conj(z^k_i(n))),
//
// with q̃_i, k̃_i (posenc.rope.to_complex_pairs of rope_example_qk) and θ_i (posenc.rope.rope_inv_freq) as sent.
// The score ⟨R_m q, R_n k⟩ is a sum over all pairs, so it is never summed here: posenc sent s(r) for every
// distance r = m − n the sliders reach (posenc.rope.rope_scores_at), and the views pick s at the current r.

const CIRCLE_POINTS = 65; // the dotted path of an arrow's tip: a circle of radius |x̃_i| (drawing geometry only)

export function view(data, values) {
  return data.picture === "pair" ? pairPicture(data, values) : shiftPicture(data, values);
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
