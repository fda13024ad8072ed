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

// The words the server computed for the shared values (ui/words.py): each element's newest, by key. An element draws
// its own words when they are the newest; a commit's words come with the sidebar's data (static/shared_controls.js).
const said = new Map();
const sayListeners = new Set();

/** Keep `words` ({key, version, parts}) unless the store holds newer words for its key; tell every listener. */
export function say(words) {
  const held = said.get(words?.key);
  if (!words || typeof words.key !== "string" || (held && held.version >= words.version)) return;
  said.set(words.key, words);
  for (const listener of [...sayListeners]) listener(words);
}

/** The newest words of `key` (undefined before any). */
export function saidOf(key) {
  return said.get(key);
}

/** Call `listener(words)` on every newer words; returns the function that stops it. */
export function onSaid(listener) {
  sayListeners.add(listener);
  return () => sayListeners.delete(listener);
}

// The sidebar commits the shared values (static/shared_controls.js); a live chart's shared slider, let go, asks it to,
// so the server reruns the sidebar's fragment with what the values change, not the chart's section and then that.
let committer = null;

/** The sidebar now on the page commits with `commitNow(name, near)` (true when it shows the control `name`). */
export function setCommitter(commitNow) {
  committer = commitNow;
}

/** Ask the sidebar to commit the values now, naming `near` as near the viewport too; false when it cannot (no
 * sidebar, or none with that control): the caller then sends the values itself. */
export function commit(name, near = []) {
  return committer ? committer(name, near) : false;
}
