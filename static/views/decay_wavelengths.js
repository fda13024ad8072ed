// The decay page's wavelengths against the training length (figures/decay.py `wavelength_figure`; follow data from
// charts/decay.py `wavelength_follow`), redrawn by static/figure.js from the tab's store while the sidebar's dim or
// base moves:
//
//   λ_i = 2π / θ_i,  θ_i = base^(−2i/D) held in float32 (posenc.rope.rope_inv_freq's default, as the server draws it);
//   pair i turns fully within L training tokens when (L − 1)·θ_i ≥ 2π
//
// by the twins of posenc.rope.rope_inv_freq, posenc.decay.rope_wavelengths and posenc.decay.full_turn_pairs; the two
// groups' names are the catalog's templates with their {count} filled. The training length is the section's own
// slider: the server's, fixed here.

const release = new URL(import.meta.url).search;
const { fullTurnPairs, ropeInvFreq, ropeWavelengths } =
  await import(new URL(`../twins.js${release}`, import.meta.url).href);

/** The server's figure (Plotly's format: the pairs that turn, then those that never do) at the store's dim and
 * base. */
export function view(data, values, figure) {
  const theta = Float64Array.from(ropeInvFreq(values.dim, values.base), Math.fround);
  const wavelengths = Float32Array.from(ropeWavelengths(theta));
  const turns = fullTurnPairs(theta, data.train);
  const groups = [[1, data.turned], [0, data.never_turned]];
  const traces = groups.map(([turned, template], k) => {
    const pairs = [];
    turns.forEach((turn, i) => { if (turn === turned) pairs.push(i); });
    const x = Int32Array.from(pairs), y = Float32Array.from(pairs, (i) => wavelengths[i]);
    return { ...figure.data[k], x, y, name: template.replace("{count}", String(pairs.length)) };
  });
  return { ...figure, data: traces };
}
