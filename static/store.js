// The shared values of this tab (base, dim, length, heads): one store that the sidebar's controls and every live
// picture read and write, so a picture follows a shared control while its thumb moves, with nothing sent.
//
// Every module imports it as "./store.js?v=<release>" (the version of its own URL), so the sidebar
// (static/shared_controls.js) and the live charts (static/live.js) share one instance in the tab. The server stays the reference: on a release the
// sidebar commits the values once (ui/shared.py validates and stores them, as it does a link's), and what the server
// drew comes back as `set(name, value, "server")`.

const values = {};
const listeners = new Set();

/** The store's value of `name` (undefined before anything set it). */
export function get(name) {
  return values[name];
}

/** Every value in the store, as a plain copy. */
export function all() {
  return { ...values };
}

/** Set `name` to `value` and tell every listener but the one that set it (`from`: a listener, or "server"). */
export function set(name, value, from = null) {
  if (values[name] === value) return;
  values[name] = value;
  for (const listener of [...listeners]) {
    if (listener !== from) listener(name, value, from);
  }
}

/** Call `listener(name, value, from)` on every change; returns the function that stops it. */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The index of the grid value nearest `value`, by ratio (a shared value and its grids are positive; base's grid is
 * geometric): where a control on a coarser grid stands while the sidebar's value moves between its points. */
export function nearest(grid, value) {
  let best = 0;
  grid.forEach((v, i) => { if (Math.abs(Math.log(v / value)) < Math.abs(Math.log(grid[best] / value))) best = i; });
  return best;
}
