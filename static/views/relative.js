// The relative-positions page's live views (pages/relative.py; data from charts/relative.py `shaw_live`, `t5_live`,
// `alibi_live`), loaded by static/live.js as the view "relative". Every number is computed here, at whatever the
// sliders say, by a twin of the posenc function named beside it (static/twins.js, held to posenc by
// tests/test_twins.py):
//
//   Shaw et al.'s table row (posenc.relative.shaw_clip_index):  clip(r, −k, k) + k, at r = −(W − 1) … W − 1
//     (posenc.relative.relative_offsets) and at the offsets beyond the matrix window that the server chose,
//   T5's bucket (posenc.relative.t5_relative_bucket, float32 log as in the reference) at r = ±2·max_distance, and
//     its exact range n_exact (posenc.relative.t5_max_exact),
//   ALiBi's slopes m_h (posenc.relative.alibi_slopes) and bias m_h·r (posenc.relative.alibi_bias_per_offset).
//
// The server sends only the words and the panels' layout. The shared length, which no slider of these charts moves,
// is followed from the tab's store while the sidebar's thumb moves (static/live.js `follows`): the matrix window,
// the offsets each curve is drawn at (live.js spreadEvenly, as ui.live.spread_evenly picks them) and the marks at
// ±(length − 1) follow it.

const release = new URL(import.meta.url).search; // the same release's modules (one instance of each in the tab)
const twins = await import(new URL(`../twins.js${release}`, import.meta.url).href);
const { resolve, spreadEvenly } = await import(new URL(`../live.js${release}`, import.meta.url).href);

export function view(data, values) {
  const picked = { shaw: shawArrays, t5: t5Arrays, alibi: alibiArrays }[data.picture](data, values);
  return { panels: data.panels.map((spec) => resolve(spec, picked)), picked };
}

// The matrix window's row f(r) = clip(r, −k, k) + k at r = −(W − 1) … W − 1, W = min(length, matrix_window) (the
// browser lays it along the diagonals: a_ij = f(j − i)); beyond the window, out to ±(length − 1), at far_points
// offsets on either side (charts.relative.SHAW_FAR_POINTS; none when the window holds the whole sequence); the
// colour range's top and the marks ±k.
function shawArrays(data, values) {
  const { k, length } = values, window = Math.min(length, data.matrix_window);
  const offsets = twins.relativeOffsets(window - 1);
  const right = length > window ? spreadEvenly(window - 1, length - 1, data.far_points) : new Float64Array(0);
  const left = right.map((r) => -r).reverse();
  return {
    offsets, window: twins.shawClipIndex(offsets, k), far_left_offsets: left, far_right_offsets: right,
    far_left: twins.shawClipIndex(left, k), far_right: twins.shawClipIndex(right, k),
    zmax: [Math.max(2 * k, 1)], left_edge: [-k], right_edge: [k],
  };
}

/** The indices where a run of equal values starts or ends (and the last): the line through them is the step
 * function at every whole offset. */
function runEnds(values) {
  const keep = [0];
  for (let j = 1; j < values.length; j++) if (values[j] !== values[j - 1]) keep.push(j - 1, j);
  keep.push(values.length - 1);
  return [...new Set(keep)];
}

// T5's bucket b(r) over r = −2·max_distance … 2·max_distance (figures.relative.t5_offset_span), drawn through the
// ends of each run of equal buckets; "invalid" is 1 (and nothing is drawn) where posenc refuses the pair.
function t5Arrays(data, values) {
  const { num_buckets: buckets, max_distance: distance, length } = values;
  const marks = { edge: [distance], back_edge: [-distance], reach: [length - 1], back_reach: [1 - length] };
  const maxExact = [twins.t5MaxExact(data.bidirectional, buckets)];
  const offsets = twins.relativeOffsets(2 * distance);
  let bucket;
  try {
    bucket = twins.t5RelativeBucket(offsets, data.bidirectional, buckets, distance);
  } catch (error) { // max_distance ≤ n_exact: the chart says why instead
    if (!(error instanceof RangeError)) throw error;
    return { offsets: [NaN], buckets: [NaN], invalid: [1], max_exact: maxExact, ...marks };
  }
  const keep = runEnds(bucket);
  return { offsets: Float64Array.from(keep, (j) => offsets[j]), buckets: Float64Array.from(keep, (j) => bucket[j]),
           invalid: [0], max_exact: maxExact, ...marks };
}

// ALiBi's slopes (bars over heads 1 … rows) and each head's bias line over the past offsets −(length − 1) … 0, at
// most line_points of them (charts.relative.ALIBI_LINE_POINTS: the lines are straight); rows past the head count are
// NaN (not drawn).
function alibiArrays(data, values) {
  const { heads, length } = values, rows = data.rows, offsets = spreadEvenly(1 - length, 0, data.line_points);
  const slopes = new Float64Array(rows).fill(NaN), bias = new Float64Array(rows * offsets.length).fill(NaN);
  slopes.set(twins.alibiSlopes(heads));
  bias.set(twins.alibiBiasPerOffset(offsets, heads));
  return { head: Float64Array.from({ length: rows }, (_, h) => h + 1), offsets, slopes, bias };
}
