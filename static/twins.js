// Browser twins of posenc functions: each computes in the browser what the posenc function it is named after
// computes on the server, so a picture follows any value of its controls with nothing sent. posenc stays the
// reference: tests/test_twins.py runs every export of this file against its posenc function on seeded random inputs
// (float64: relative error ≤ 1e-9) and fails when an export has no parity case.

/** posenc.absolute.sinusoid_inv_freq: ω_i = base^(−2i/D) for i = 0 … D/2 − 1. Returns: [D/2] float64. */
export function sinusoidInvFreq(dim, base) {
  const omega = new Float64Array(dim / 2);
  for (let i = 0; i < omega.length; i++) omega[i] = base ** -((2 * i) / dim);
  return omega;
}

/** posenc.absolute.sinusoid_dot_by_offset: s(k) = PE(p)·PE(p + k) = Σ_i cos(k·ω_i) for each offset k.
 * Returns: [K] float64. */
export function sinusoidDotByOffset(offsets, dim, base) {
  const omega = sinusoidInvFreq(dim, base);
  const sums = new Float64Array(offsets.length);
  offsets.forEach((k, j) => {
    let total = 0;
    for (let i = 0; i < omega.length; i++) total += Math.cos(k * omega[i]);
    sums[j] = total;
  });
  return sums;
}
