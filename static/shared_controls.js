// The sidebar's shared controls (base, dim, length, heads) as browser sliders: every input event sets the tab's store
// (static/store.js), so every live picture that shows the value follows while the thumb moves, with no message to
// the server. When a pointer lets go the values are committed at once; key presses, once their burst ends: over HTTP
// (ui/commit_http.py: no script runs when only the words and pictures the commit computes follow; the tab mirrors the
// values in its address), else as the trigger `commit` (ui/shared.py validates them as it does a link's, stores them,
// mirrors them in the URL and reruns what uses them).
//
// Each control is a native range input, so the keyboard works as on any slider (arrows, Home, End; Page Up and Page
// Down move a tenth of the range), a screen reader hears its label, its help and its value (aria-valuetext), and on a
// touch screen it is at least 44 px tall. A grid of values (base) moves over the indices of that grid.
//
// Served from Streamlit's static folder; ui/shared.py's inline loader imports it with the release's version.

// Helpers from the same release: imported with this module's own ?v=… (ui/static_files.py), so a browser never
// mixes a cached old helper with a new module, and every module of the tab shares one instance of each.
const release = new URL(import.meta.url).search;
const helper = (name) => import(new URL(`./${name}${release}`, import.meta.url).href);
const store = await helper("store.js");
const sections = await helper("sections.js"); // which of the page's sections are near the viewport
// a commit's rerun sends the values, not the labels and grids again; with a commit's figures, one binary message
const { whole, unpack } = await helper("packed.js");
const { folder } = await helper("class_poll.js"); // the routes beside the pages (ui/class_http.py, ui/commit_http.py)

const COMMIT_AFTER_MS = 150; // a burst of key presses is committed once, after it ends (a pointer's release at once)
const instances = new WeakMap(); // parentElement -> its controls
// The tab's last commit and the sidebar now on the page: a page switch mounts a new sidebar, and a commit let go of
// just before it (still waiting out its debounce, or sent as the old page went) is sent again by the new one.
// rerunFor: section -> the values whose commit reruns a fragment of it, as the last commit over HTTP answered (a
// page's first commit goes over HTTP; an answer "on the page" tells it too)
const last = { seq: 0, values: null, timer: 0, send: null, tab: null, rerunFor: {} };

export function render(component) {
  const { parentElement, setTriggerValue } = component;
  const data = unpack(component.data); // see ui/component_data.py
  let controls = instances.get(parentElement);
  if (!controls) {
    controls = createControls(parentElement);
    instances.set(parentElement, controls);
  }
  controls.update(data, setTriggerValue);
}

/** A value as the sidebar shows it: base with thousands separators (10,000), the others as whole numbers. */
export function shown(name, value) {
  return name === "base" ? Math.round(value).toLocaleString("en-US") : String(value);
}

function createControls(parent) {
  const root = document.createElement("div");
  root.className = "shared-controls";
  parent.append(root);
  const state = { root, inputs: {}, held: null, names: [], whole: {}, placed: false };
  const listener = (name, value, from) => {  // a live chart's slider or the teacher moved a shared value: follow it
    if (!root.isConnected) { stop(); return; }
    if (from === "teacher" && last.values) last.values[name] = value; // the class's value, not an older own commit
    const control = state.inputs[name];
    if (control && state.held !== name) place(control, value);
  };
  const stop = store.subscribe(listener);
  state.listener = listener;
  const commitNow = (name, near) => { // a live chart's shared slider let go: commit at once, naming its section
    if (!root.isConnected || !state.inputs[name]) return false;
    clearTimeout(last.timer);
    commit(state, last.seq + 1, near);
    return true;
  };
  return {
    update(sent, send) {
      last.send = send;
      store.setCommitter(commitNow);
      const data = whole(state.whole, sent, send); // labels, help and grids as last sent whole; values now
      if (!data) return;
      last.tab = data.tab ?? null; // what a commit over HTTP names (ui/shared.py tab_token)
      state.names = data.controls.map((spec) => spec.name);
      // a commit's words and pictures for the page (static/words.js, static/figure.js)
      for (const words of data.said ?? []) store.say(words);
      // sections a commit left stale out of sight: ask for each as it comes near; a follow's "later" ones in view,
      // or a little later (ui/sections.py)
      sections.watchStale(data.stale ?? [], askFor, data.later ?? []);
      for (const spec of data.controls) build(state, spec, data.words);
      // The server's values, unless the thumb is still held or a commit is waiting out its debounce (the inputs hold
      // newer values). When the server has not yet seen the last commit (a page switch just after a release, a
      // reconnect, a restarted replica whose new session started from the URL) and holds other values than it, the
      // commit is placed and sent again, so no value the student let go of is lost. When it holds the same values
      // (a fresh session on a restarted replica, started from the address), nothing is sent, and the tab numbers
      // its commits from the server's: a value the server took since (a teacher's, followed) is never overwritten
      // by an older commit of the tab's own.
      const first = !state.placed;
      state.placed = true;
      if (last.timer) {  // the store holds the student's newest values: a new sidebar (a page switch) shows them
        const shown = (name) => store.get(name) ?? data.values[name];
        if (first) for (const { name } of data.controls) place(state.inputs[name], shown(name));
        return;
      }
      const seq = data.seq ?? 0;
      const behind = seq < last.seq && differs(last.values, data.values);
      if (!behind) Object.assign(last, { seq, values: { ...data.values } }); // the server holds what the tab last sent
      const values = behind ? { ...data.values, ...last.values } : data.values;
      for (const spec of data.controls) {
        if (state.held === spec.name || !(spec.name in values)) continue;
        place(state.inputs[spec.name], values[spec.name]);
        store.set(spec.name, values[spec.name], behind ? state.listener : "server");
      }
      if (behind) send("commit", { values: last.values, seq: last.seq, near: sections.nearSections() });
    },
  };
}

/** Whether the server's `values` (every shared value) differ from the tab's last commit `mine` in any value. */
export function differs(mine, values) {
  return Object.entries(mine ?? {}).some(([name, value]) => values[name] !== value);
}

/** One labelled slider, made once (a rebuilt input would lose the keyboard focus and a drag), updated on new data. */
function build(state, spec, words) {
  let control = state.inputs[spec.name];
  if (!control) {
    const id = `shared-${spec.name}`;
    const row = document.createElement("div");
    row.className = "control";
    row.innerHTML = `
      <div class="head">
        <label for="${id}"></label>
        <button type="button" class="help-toggle" aria-expanded="false" aria-controls="${id}-help">?</button>
        <output for="${id}" aria-hidden="true"></output>
      </div>
      <input type="range" id="${id}" aria-describedby="${id}-help">
      <p class="help" id="${id}-help" hidden></p>`;
    state.root.append(row);
    control = {
      spec, row, label: row.querySelector("label"), input: row.querySelector("input"),
      output: row.querySelector("output"), help: row.querySelector(".help"), toggle: row.querySelector(".help-toggle"),
    };
    state.inputs[spec.name] = control;
    wire(state, control);
  }
  control.spec = spec;
  control.label.textContent = spec.label;
  control.help.textContent = spec.help;
  control.toggle.setAttribute("aria-label", `${words.help}: ${spec.label}`);
  control.toggle.title = spec.help;
  const { input } = control;
  input.name = spec.name;
  if (spec.values) Object.assign(input, { min: 0, max: spec.values.length - 1, step: 1 });
  else Object.assign(input, { min: spec.min, max: spec.max, step: spec.step });
}

/** The value the input stands at (a grid's value for base). */
function read(control) {
  const { spec, input } = control;
  return spec.values ? spec.values[Number(input.value)] : Number(input.value);
}

/** Move the input to `value` (the nearest point of a grid) and show it. */
function place(control, value) {
  const { spec, input } = control;
  if (spec.values) {
    input.value = store.nearest(spec.values, value);
  } else {
    input.value = value;
  }
  label(control);
}

function label(control) {
  const text = shown(control.spec.name, read(control));
  control.output.textContent = text;
  control.input.setAttribute("aria-valuetext", text);
}

function wire(state, control) {
  const { input, toggle, help } = control;
  const name = () => control.spec.name;
  toggle.onclick = () => {
    help.hidden = !help.hidden;
    toggle.setAttribute("aria-expanded", String(!help.hidden));
  };
  input.onpointerdown = () => { state.held = name(); state.pointer = true; };
  input.onpointerup = input.onpointercancel = () => { state.held = null; };
  input.oninput = () => {  // every drag step: the store, so every picture follows on its next frame; nothing sent
    label(control);
    store.set(name(), read(control), state.listener);
  };
  input.onchange = () => {  // released: commit now; a key pressed: once the burst of presses ends
    const released = state.pointer;
    Object.assign(state, { held: null, pointer: false });
    label(control);
    store.set(name(), read(control), state.listener);
    commitSoon(state, released ? 0 : COMMIT_AFTER_MS);
  };
  input.onkeydown = (event) => {  // Page Up / Page Down: a tenth of the range, as Streamlit's sliders move
    state.pointer = false; // a key's change waits for the burst, even after a press of the thumb that moved nothing
    if (event.key !== "PageUp" && event.key !== "PageDown") return;
    event.preventDefault();
    const steps = Math.max(1, Math.round((Number(input.max) - Number(input.min)) / Number(input.step) / 10));
    const by = (event.key === "PageUp" ? 1 : -1) * steps * Number(input.step);
    input.value = Math.min(Number(input.max), Math.max(Number(input.min), Number(input.value) + by));
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new Event("change"));
  };
}

/** Commit every control's value `after` ms from now (0: at once), unless another release comes first. */
function commitSoon(state, after) {
  clearTimeout(last.timer);
  if (after > 0) last.timer = setTimeout(() => commit(state, last.seq + 1), after);
  else commit(state, last.seq + 1);
}

/** Send every control's value once, numbered `seq`; the server echoes the last number it stored. `also`: sections
 * to name as near besides those near the viewport. Over HTTP unless a near section has a fragment to rerun for a
 * value that changed (`rerunFor`), through the sidebar's trigger then. */
function commit(state, seq, also = []) {
  last.timer = 0;
  const values = {};
  for (const name of state.names) values[name] = read(state.inputs[name]);
  const held = last.values; // what the server holds, or will once the last commit arrives
  Object.assign(last, { seq, values });
  const near = sections.nearSections(); // the server reruns the near sections (and `also`: a chart's own)
  const body = { values, seq, near: near && [...new Set([...near, ...also])] };
  if (last.tab && !rerunsFragment(held, values, body.near)) sendOverHttp(body);
  else last.send?.("commit", body);
}

/** Whether a commit of `values` over `held` reruns a fragment of one of the sections `near` (null: any section). */
export function rerunsFragment(held, values, near, rerunFor = last.rerunFor) {
  const changed = Object.keys(values).filter((name) => !held || held[name] !== values[name]);
  return (near ?? Object.keys(rerunFor)).some((key) => (rerunFor[key] ?? []).some((name) => changed.includes(name)));
}

/** Ask for stale sections that came near the viewport (`keys`): over HTTP unless one has a fragment to rerun (a
 * stale section's `rerunFor` names every value it uses then), through the sidebar's trigger `refresh` then. */
function askFor(keys) {
  if (last.tab && !keys.some((key) => (last.rerunFor[key] ?? []).length)) sendOverHttp({ refresh: keys }, "refresh");
  else last.send?.("refresh", keys);
}

/** Commit over HTTP; when the server answers that the commit reruns a fragment after all (with `rerun_for`), does
 * not know the tab (409), or cannot be reached, through the sidebar's trigger instead. */
async function sendOverHttp(body, event = "commit") {
  try {
    const response = await fetch(`${folder(window.location)}shared/commit`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tab: last.tab, ...body }),
    });
    const json = (response.headers.get("Content-Type") ?? "").startsWith("application/json");
    if (response.ok && !json) {
      committed(unpack(new Uint8Array(await response.arrayBuffer())));
      return;
    }
    if (response.ok) last.rerunFor = (await response.json()).rerun_for ?? last.rerunFor; // commit on the page
  } catch { /* the websocket's way below */ }
  last.send?.(event, event === "refresh" ? body.refresh : body);
}

/** What a commit over HTTP answered: the sidebar's data as a commit's rerun would have sent it. */
function committed(data) {
  for (const words of data.said ?? []) store.say(words);
  sections.watchStale(data.stale ?? [], askFor, data.later ?? []);
  last.rerunFor = data.rerun_for ?? {};
  if (!last.timer && data.seq === last.seq) last.values = { ...data.values }; // the values the server now holds
  mirrorInUrl(data.values);
}

/** Write `values` into the address's query as the server's rerun does (ui/shared.py mirror_in_url): one
 * history.replaceState, only when something changed. */
function mirrorInUrl(values) {
  const url = new URL(window.location.href);
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, String(value));
  if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
}
