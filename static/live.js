// Live explorables: pictures that follow a slider while it is dragged, drawn in the browser. Most views compute
// their numbers here with twins of posenc's functions (static/twins.js, each held to its posenc function by
// tests/test_twins.py), from the words and settings the server sends (and seeded vectors, which no formula gives);
// the `slices` view still picks among arrays posenc computed on the server (ui/live.py `sliced`). Either way every
// number comes from posenc or from its twin.
//
// A view's controls are native range inputs (mouse, touch and arrow keys). While one is dragged the picture is
// redrawn once per animation frame, with no message to the server; when it is released (the input's `change`
// event) the settled values go to the server once, as the trigger `settled`, so the URL, the sidebar and the
// other pages follow.
//
// A view turns (data, control values) into panels: heatmaps and line charts, drawn side by side. Most views are
// `slices` (ui/live.py `sliced`): for every control, the server sent the picture's arrays at every value of that
// control with the others where the server drew them, and the browser picks the row of the moved control.
//
// The shared values (base, dim, length, heads) live in the tab's store (static/store.js), which the sidebar's sliders
// set on every input event: a chart's control that the server marked shared (`data.shared`) follows the store while
// the sidebar's thumb moves (the nearest value of its grid), and sets it while its own thumb moves. A shared value a
// picture depends on without a slider of its own (`data.follows`: name -> the value the server drew) follows the
// store too, so a view that computes from it (static/twins.js) redraws while the sidebar's thumb moves.
//
// Served once from Streamlit's static folder (/app/static/live.js); the component's inline loader imports it.

// Helpers from the same release: imported with this module's own ?v=… (ui/static_files.py), so a browser never
// mixes a cached old helper with a new module, and every module of the tab shares one instance of each.
const release = new URL(import.meta.url).search;
const helper = (name) => import(new URL(`./${name}${release}`, import.meta.url).href);
const store = await helper("store.js");
const { unpack, arrayBytes, whole } = await helper("packed.js"); // the data as sent (ui/component_data.py)
const twins = await helper("twins.js"); // the closed forms computed here, each held to its posenc function
const sections = await helper("sections.js"); // which of the page's sections are near the viewport
const { PALETTE, cellImage, escape, format, logTicks, niceCeiling, niceTicks, sizeCanvas, svgPath,
  textWidth } = await helper("draw.js");

const MAX_DRAWN = 512; // rows or columns painted at most: more than the pixels of a chart (send what is drawn)
const instances = new WeakMap(); // parentElement -> its view, so several live charts never share state

export function render(component) {
  const { parentElement, setTriggerValue } = component;
  const data = unpack(component.data);
  let view = instances.get(parentElement);
  if (!view) {
    view = createView(parentElement);
    instances.set(parentElement, view);
  }
  view.update(data, setTriggerValue);
}

// ---- arrays from the server -------------------------------------------------------------------------------

/** Float64Array or Float32Array of a {dtype: "f8" | "f4", bdata: base64} array (Plotly's typed-array form), or of
 * one unpacked from a binary message (its bytes in `raw`: static/packed.js). */
export function decode(array) {
  const bytes = arrayBytes(array);
  return array.dtype === "f8" ? new Float64Array(bytes) : new Float32Array(bytes);
}

/** `count` indices spread evenly over 0 … n − 1 (all of them when n ≤ count). */
export function spread(n, count = MAX_DRAWN) {
  if (n <= count) return Int32Array.from({ length: n }, (_, i) => i);
  return Int32Array.from({ length: count }, (_, k) => Math.round((k * (n - 1)) / (count - 1)));
}

/** The whole numbers low … high a curve is drawn at, as ui.live.spread_evenly picks them (the server's, held to it by
 * tests/test_live.py): every one when there are at most `count`, else `count` of them spread evenly, both ends
 * included (numpy's linspace, rounded half to even as np.rint rounds). Returns: increasing float64. */
export function spreadEvenly(low, high, count) {
  if (high - low + 1 <= count) return Float64Array.from({ length: high - low + 1 }, (_, k) => low + k);
  const step = (high - low) / (count - 1);
  const even = (x) => (x - Math.floor(x) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x)); // np.rint
  const picked = Array.from({ length: count }, (_, k) => (k === count - 1 ? high : even(k * step + low)));
  return Float64Array.from([...new Set(picked)].sort((a, b) => a - b));
}

/** The one control that is away from where the server drew, or the first control when none is; null when two
 * moved before the server answered (the view then keeps its last picture). */
function movedControl(data, values) {
  const names = Object.keys(data.controls);
  const moved = names.filter((name) => values[name] !== data.server[name]);
  return moved.length > 1 ? null : moved[0] ?? names[0];
}

// ---- views: (data, control values) -> {panels, picked} --------------------------------------------------------

// The picture's arrays at the control values, picked from the slices posenc computed (ui/live.py `sliced`): array
// `key` along control `name` is arrays[`${key}@${name}`], one row per value of the control's grid (or one row for
// all of them when it is the same all along, widths {same: length}).
function slices(data, values) {
  const name = movedControl(data, values);
  if (name === null) return null;
  const row = data.controls[name].values.indexOf(values[name]);
  if (row < 0) return null;
  const picked = {};
  for (const key of data.keys) {
    const slice = `${key}@${name}`;
    const width = data.widths[slice];
    if (width.same !== undefined) { picked[key] = data.arrays[slice]; continue; } // the same all along the grid
    const length = Array.isArray(width) ? width[row] : width;
    const stride = Array.isArray(width) ? Math.max(...width) : width;
    picked[key] = data.arrays[slice].subarray(row * stride, row * stride + length);
  }
  for (const key of data.fixed ?? []) picked[key] = data.arrays[key]; // the same for every value: sent once
  return { panels: data.panels.map((spec) => resolve(spec, picked)), picked };
}

/** A panel spec from the server (arrays named by key) with the picked arrays in place of the names (a view of
 * static/views/ that computes its arrays resolves the server's panel specs with this too). */
export function resolve(spec, picked) {
  if (spec.kind === "heatmap") {
    const z = picked[spec.z];
    const scalar = (v) => (typeof v === "string" ? picked[v][0] : v); // zmin / zmax: a number or a picked key
    spec = { ...spec, zmin: scalar(spec.zmin), zmax: scalar(spec.zmax) };
    if (spec.toeplitz) { // z[i, j] = f(j − i): f is sent for j − i = −(n − 1) … n − 1
      const n = (z.length + 1) / 2, out = new Float64Array(n * n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = z[j - i + n - 1];
      return heatmapPanel(spec, out, n, n);
    }
    const cols = typeof spec.cols === "string" ? picked[spec.cols].length : spec.cols; // a number, or an axis's key
    return heatmapPanel(spec, z, z.length / cols, cols);
  }
  const series = [];
  for (const line of spec.series ?? []) {
    series.push({ ...line, x: picked[line.x ?? spec.x], y: picked[line.y] });
  }
  if (spec.family) { // one line per row of a matrix, named from a template ("head {row}", rows counted from 1)
    const x = picked[spec.x], all = picked[spec.family.y], width = x.length;
    for (let r = 0; r * width < all.length; r++) {
      const y = all.subarray(r * width, (r + 1) * width);
      if (!y.some(Number.isFinite)) continue; // a padding row: this picture has fewer lines
      series.push({ x, y, name: spec.family.name.replace("{row}", r + 1), color: PALETTE[r % PALETTE.length],
                    mode: spec.family.mode ?? "lines" });
    }
  }
  const marks = (spec.marks ?? []).map((mark) => ({ ...mark, x: picked[mark.x][0] }));
  return { ...spec, kind: "lines", series, marks };
}

export function heatmapPanel(spec, values, nr, nc) {
  const rows = Int32Array.from({ length: nr }, (_, i) => i), cols = Int32Array.from({ length: nc }, (_, i) => i);
  return { ...spec, kind: "heatmap", rows, cols, values, xCount: nc, yCount: nr };
}

// The sinusoid table PE(p, column): sin(p·ω_i) or cos(p·ω_i), ω_i from posenc.absolute.sinusoid_inv_freq.
// Interleaved layout: column 2i = sin, 2i + 1 = cos; concat: column i = sin, i + D/2 = cos.
function sinusoidTable(data, values) {
  const omega = twins.sinusoidInvFreq(values.dim, values.base); // any base and dim, held to posenc
  const pairs = omega.length;
  const rows = spread(values.length);
  const cols = spread(2 * pairs);
  const out = new Float64Array(rows.length * cols.length);
  for (let c = 0; c < cols.length; c++) {
    const column = cols[c];
    const concat = data.layout === "concat";
    const pair = concat ? column % pairs : column >> 1;
    const isCos = concat ? column >= pairs : (column & 1) === 1;
    for (let r = 0; r < rows.length; r++) {
      const angle = rows[r] * omega[pair];
      out[r * cols.length + c] = isCos ? Math.cos(angle) : Math.sin(angle);
    }
  }
  const panel = { kind: "heatmap", rows, cols, values: out, zmin: -1, zmax: 1, xCount: 2 * pairs, yCount: values.length };
  return { panels: [{ square: data.square, ...panel }] };
}

// PE·PEᵀ: S[p, q] = s(|q − p|), s(k) = Σ_i cos(k·ω_i) summed here by the twin of
// posenc.absolute.sinusoid_dot_by_offset, for any base, dim and length. Positions are drawn every `stride` (at most
// MAX_DRAWN of them).
function sinusoidSimilarity(data, values) {
  const stride = Math.ceil(values.length / MAX_DRAWN);
  const count = Math.ceil(values.length / stride);
  // s(j·stride) for the drawn offsets, at any base, dim and length (twins.sinusoidDotByOffset, held to posenc)
  const sums = twins.sinusoidDotByOffset(Array.from({ length: count }, (_, j) => j * stride), values.dim, values.base);
  const rows = Int32Array.from({ length: count }, (_, j) => j * stride);
  // row r is s(|r − c|) for c = 0 … count − 1: a window onto s(count − 1), …, s(1), s(0), s(1), …, s(count − 1)
  const both = new Float64Array(2 * count - 1);
  for (let j = 0; j < count; j++) both[count - 1 - j] = both[count - 1 + j] = sums[j];
  const out = new Float64Array(count * count);
  for (let r = 0; r < count; r++) out.set(both.subarray(count - 1 - r, 2 * count - 1 - r), r * count);
  const half = values.dim / 2;  // s(0) = |PE(p)|² = D/2, the largest entry
  const panel = { kind: "heatmap", rows, cols: rows, values: out, zmin: -half, zmax: half, xCount: values.length,
                  yCount: values.length };
  return { panels: [{ square: data.square, ...panel }] };
}

const VIEWS = { slices, sinusoid_table: sinusoidTable, sinusoid_similarity: sinusoidSimilarity };

/** A view of its own for one page, in static/views/<name>.js (exported as `view`), loaded once when first used. */
const loaded = {};
function loadView(name) {
  const url = new URL(`views/${name}.js`, import.meta.url);
  url.search = new URL(import.meta.url).search; // the release's version (?v=…), so a new release's view is fetched
  loaded[name] ??= import(url.href).then((module) => {
    VIEWS[name] = module.view;
  });
  return loaded[name];
}

// ---- the chart: controls, readouts, panels ----------------------------------------------------------------------

function createView(parent) {
  const root = document.createElement("div"); // a child of its own: the parent also holds the component's <style>
  root.className = "live";
  root.innerHTML = `
      <div class="controls"></div>
      <p class="readouts" aria-live="polite"></p>
      <div class="panels"></div>
      <p class="hint"></p>`;
  parent.append(root);
  touchStyle(parent);
  const state = {
    root, data: null, values: null, send: null, frame: 0, draws: 0, drawn: null, drawnAt: 0,
    updates: 0, updatedAt: 0, fresh: false, held: null, playing: null, figures: [], whole: {},
    controls: root.querySelector(".controls"), panels: root.querySelector(".panels"),
    readouts: root.querySelector(".readouts"), hint: root.querySelector(".hint"),
  };
  figureFor(state, 0);
  watchScreen(state);
  state.listener = (name, value) => follow(state, name, value);
  const unsubscribe = store.subscribe((...args) => (root.isConnected ? state.listener(...args) : unsubscribe()));
  // What was painted, for the real-browser tests and the benchmark (read-only), on the first panel's canvas.
  state.figures[0].canvas.posencLive = {
    get values() { return { ...state.values }; }, // where the sliders are now
    get drawn() { return state.drawn && drawnCopy(state.drawn); }, // the last picture (plain arrays), at: the values
    get drawnFor() { return state.drawn && { ...state.drawn.at }; }, // the control values of the last picture
    get draws() { return state.draws; }, // pictures painted so far, and when the last one was (performance.now())
    get drawnAt() { return state.drawnAt; },
    get updates() { return state.updates; }, // pictures painted from newly arrived server data, and when
    get updatedAt() { return state.updatedAt; },
  };
  return {
    update(data, send) {
      state.send = send;
      // a rerun may send only where the sliders stand and what the chart follows: the rest is what it holds
      const decoded = whole(state.whole, data, send, (sent) => ({ ...sent, arrays:
        Object.fromEntries(Object.entries(sent.arrays ?? {}).map(([k, a]) => [k, decode(a)])) }));
      if (!decoded) return;
      const held = state.held; // a slider still under the finger keeps its place when the server answers
      const ready = VIEWS[decoded.view] ? Promise.resolve() : loadView(decoded.view);
      ready.then(() => {
        state.data = decoded;
        state.shared = new Set(decoded.shared ?? []);
        state.follows = new Set(Object.keys(decoded.follows ?? {}));
        state.values = { ...decoded.follows, ...decoded.server,
                         ...(held && state.values ? { [held]: state.values[held] } : {}) };
        state.fresh = true;
        buildControls(state);
        limitControls(state);
        schedule(state);
      });
    },
  };
}

// On a phone or tablet (a coarse pointer): every slider and button is at least 44 px tall, a finger dragging a
// slider moves it and never scrolls the page (a vertical swipe over a chart still does), and in a narrow chart
// each control takes a row of its own, its words above the slider when they need the room.
const TOUCH_CSS = `
.live { container-type: inline-size; }
.live .controls input { touch-action: none; }
@media (pointer: coarse) {
  .live .controls { row-gap: 0.25rem; }
  .live .controls input { height: 44px; margin: 0; }
  .live .controls button.play { min-height: 44px; min-width: 44px; }
}
@container (max-width: 560px) {
  .live .controls label { flex: 1 1 100%; flex-wrap: wrap; white-space: normal; column-gap: 0.5rem; }
  .live .controls input { flex: 1 1 9rem; }
  .live .controls output { min-width: 3.5rem; text-align: right; }
}`;

/** TOUCH_CSS, once in the document or shadow root that holds the chart (the component's styles are its own). */
function touchStyle(parent) {
  const holder = parent.getRootNode();
  const target = holder instanceof ShadowRoot ? holder : document.head;
  if (target.querySelector("style[data-live-touch]")) return;
  const style = document.createElement("style");
  style.dataset.liveTouch = "";
  style.textContent = TOUCH_CSS;
  target.append(style);
}

/** The figure (canvas for heatmap cells, SVG for lines, axes and words, a legend) of panel `k`, made once. */
function figureFor(state, k) {
  if (!state.figures[k]) {
    const element = document.createElement("div");
    element.className = "figure";
    element.innerHTML = "<canvas></canvas><svg></svg><div class=\"legend\"></div>";
    state.panels.append(element);
    const figure = {
      element, canvas: element.querySelector("canvas"), svg: element.querySelector("svg"),
      legend: element.querySelector(".legend"), width: 0,
    };
    new ResizeObserver(([entry]) => {  // its width kept here: reading clientWidth in a drag frame forced a layout
      figure.width = Math.round(entry.contentRect.width);
      schedule(state);
    }).observe(element);
    state.figures[k] = figure;
  }
  return state.figures[k];
}

/** One labelled range input per control, made once and updated on new data: a rebuilt input would lose the
 * keyboard focus (and a drag) every time the server answers a release. */
function buildControls(state) {
  const { data } = state;
  state.hint.textContent = data.words.hint || "";
  state.inputs ??= {};
  for (const [name, spec] of Object.entries(data.controls)) {
    let control = state.inputs[name];
    if (!control) {
      control = { label: document.createElement("label"), input: document.createElement("input"),
                  shown: document.createElement("output"), text: document.createTextNode("") };
      control.input.type = "range";
      control.input.name = name;
      control.label.append(control.text, control.input, control.shown);
      state.controls.append(control.label);
      state.inputs[name] = control;
    }
    const { input, shown } = control;
    control.text.data = `${data.words[name]} `;
    input.setAttribute("aria-label", data.words[name]);
    if (spec.values) {  // a grid of values: the input moves over their indices
      Object.assign(input, { min: 0, max: spec.values.length - 1, step: 1 });
      if (state.held !== name) input.value = spec.values.indexOf(data.server[name]);
    } else {
      Object.assign(input, { min: spec.min, max: spec.max, step: spec.step });
      if (state.held !== name) input.value = data.server[name];
    }
    input.onpointerdown = () => { stop(state, false); state.held = name; }; // grabbed: the release will send
    input.onpointerup = input.onpointercancel = () => { state.held = null; };
    const read = () => (spec.values ? spec.values[Number(input.value)] : Number(input.value));
    const show = (value) => { shown.textContent = format(value) + (spec.unit ?? ""); };
    Object.assign(control, { spec, read, show });
    show(read());
    const share = () => { if (state.shared.has(name)) store.set(name, state.values[name], state.listener); };
    input.oninput = () => {  // every drag step: redraw in the browser (and the sidebar follows), nothing sent
      state.values[name] = read();
      show(state.values[name]);
      share();
      schedule(state);
    };
    input.onchange = () => {  // released (or a key press): the settled values go to the server once
      stop(state, false);
      state.values[name] = read();
      share();
      // a shared control is the sidebar's to commit (one fragment rerun on the server); a chart's own, the chart's
      const own = sections.sectionOf(state.root);
      if (state.shared.has(name) && store.commit(name, own ? [own] : [])) return;
      state.send("settled", settledValues(state));
    };
    if (spec.play_ms) playButton(state, control, spec.play_ms);
  }
}

/** A control whose grid reaches only as far as a followed value allows (`upto: {of, per}`: the dim's d / 2 pairs):
 * its slider ends there, its value is held within, and it is hidden while one value is all there is. */
function limitControls(state) {
  for (const [name, spec] of Object.entries(state.data.controls)) {
    const control = state.inputs[name];
    if (!spec.upto || !spec.values || !control) continue;
    const count = Math.max(1, Math.min(spec.values.length, Math.floor(state.values[spec.upto.of] / spec.upto.per)));
    control.input.max = count - 1;
    if (spec.values.indexOf(state.values[name]) > count - 1) state.values[name] = spec.values[count - 1];
    if (state.held !== name) control.input.value = spec.values.indexOf(state.values[name]);
    control.show(state.values[name]);
    control.label.style.display = count <= 1 ? "none" : ""; // (the label's flex display would beat `hidden`)
  }
}

/** The store's `name` moved (the sidebar's thumb, or another chart's): a shared control of this chart follows, to
 * the nearest value of its grid or range, and the picture is redrawn on the next frame. */
function follow(state, name, value) {
  if (state.follows?.has(name) && !state.inputs?.[name] && typeof value === "number") {
    state.values[name] = value; // no slider here: the picture is computed at the store's value
    limitControls(state);
    scheduleFollowed(state);
    return;
  }
  const control = state.inputs?.[name];
  if (!control || !state.shared.has(name) || state.held === name || typeof value !== "number") return;
  const { spec, input } = control;
  if (spec.values) {
    input.value = store.nearest(spec.values, value);
  } else {
    input.value = Math.min(spec.max, Math.max(spec.min, value));
  }
  state.values[name] = control.read();
  control.show(state.values[name]);
  scheduleFollowed(state);
}

/** A ▶ button beside a control: while it plays, the slider steps one value of its grid every `ms` milliseconds and
 * the picture follows, with nothing sent. Pressed again or at the slider's end it stops, and the values it stopped
 * at go to the server once, as a release does; a slider touched while playing stops it and sends on its release. */
function playButton(state, control, ms) {
  control.button ??= control.label.appendChild(document.createElement("button"));
  const { button, input } = control;
  button.type = "button";
  button.className = "play";
  const label = () => { button.textContent = state.playing ? state.data.words.pause : state.data.words.play; };
  label();
  button.onclick = () => {
    if (state.playing) { stop(state, true); return; }
    if (Number(input.value) >= Number(input.max)) input.value = input.min; // at the end: play from the start
    state.playing = { timer: setInterval(() => {
      input.value = Number(input.value) + 1;
      input.dispatchEvent(new Event("input"));
      if (Number(input.value) >= Number(input.max)) stop(state, true);
    }, ms), label };
    label();
  };
}

/** Stop playing (if it plays); `send`: the values it stopped at go to the server, as a release. */
function stop(state, send) {
  if (!state.playing) return;
  clearInterval(state.playing.timer);
  const { label } = state.playing;
  state.playing = null;
  label();
  if (send) state.send("settled", settledValues(state));
}

/** The values a release sends: the chart's own sliders' (a followed value is the sidebar's to commit); a chart with
 * shared controls also names the sections near the viewport, which a commit reruns (static/sections.js). */
function settledValues(state) {
  const values = Object.fromEntries(Object.entries(state.values).filter(([name]) => !state.follows.has(name)));
  if (!state.shared.size) return values;
  const near = sections.nearSections(); // and the chart's own section, wherever it is: the student is at it
  const own = sections.sectionOf(state.root);
  return { ...values, near: near && own && !near.includes(own) ? [...near, own] : near };
}

function schedule(state) {
  if (!state.frame) state.frame = requestAnimationFrame(() => { state.frame = 0; draw(state); });
}

/** Redraw for a value the store moved: a chart far off screen only notes it and redraws when it comes near the
 * viewport (on a phone one chart of a page shows at a time, so a sidebar drag redraws that one, not every chart of
 * the page). The server's data and the chart's own sliders always redraw at once. */
function scheduleFollowed(state) {
  if (state.offscreen) state.stale = true;
  else schedule(state);
}

/** Watch whether the chart is within a screen of the viewport (schedule reads it); a stale one redraws on arrival. */
function watchScreen(state) {
  if (typeof IntersectionObserver === "undefined") return; // Node tests and old browsers: always drawn
  const seen = new IntersectionObserver((entries) => {
    state.offscreen = !entries.some((entry) => entry.isIntersecting);
    if (!state.offscreen && state.stale) {
      state.stale = false;
      schedule(state);
    }
  }, { rootMargin: "100% 0px" });
  seen.observe(state.root);
}

function draw(state) {
  const { data, values } = state;
  if (!data) return;
  const picture = VIEWS[data.view](data, values);
  if (!picture) return;
  const panels = picture.panels;
  const fill = (template) => fillIn(template, values, picture.picked);
  panels.forEach((panel, k) => {
    const figure = figureFor(state, k);
    const width = figure.width || figure.element.clientWidth || 600;
    const height = panel.height ?? data.height ?? 420;
    const words = { ...data.words, ...(panel.words ?? {}) };
    if (panel.kind === "heatmap") {
      const box = { left: 64, right: width - 90, top: 40, bottom: height - 48 };
      if (panel.square) box.right = Math.min(box.right, box.left + (box.bottom - box.top)); // a cell per pair
      paint(figure.canvas, panel, box, width, height, panel.colorscale ?? data.colorscale);
      axes(figure.svg, panel, box, width, height, words, fill);
      figure.legend.replaceChildren();
    } else {
      clear(figure.canvas, width, height);
      const box = panel.bare ? { left: 8, right: width - 8, top: 40, bottom: height - 8 }
        : { left: 64, right: width - 24, top: 40, bottom: height - 48 };
      const used = lineChart(figure.svg, panel, box, width, height, words, fill);
      if (used < height) clear(figure.canvas, width, used); // a square panel on a narrow screen: no empty band
      legend(figure.legend, panel.series.filter((line) => line.name));
    }
  });
  const shown = (data.readouts ?? []).filter((readout) => typeof readout === "string" || picture.picked[readout.when]?.[0]);
  state.readouts.textContent = shown.map((readout) => fill(readout.text ?? readout)).join("   ·   ");
  const notes = (data.notes ?? []).filter((note) => picture.picked[note.when]?.[0]).map((note) => fill(note.text));
  state.readouts.classList.toggle("warning", notes.length > 0);
  if (notes.length) state.readouts.textContent = notes.join(" ");
  state.drawn = { panels, picked: picture.picked, at: { ...values }, readouts: state.readouts.textContent };
  state.draws += 1;
  state.drawnAt = performance.now();
  if (state.fresh) {
    state.fresh = false;
    state.updates += 1;
    state.updatedAt = state.drawnAt;
  }
}

/** The last picture as plain arrays, made only when read (not on every frame): the first panel's data at the top
 * level, every panel's in `panels`, the picked arrays, the control values (`at`) and the readouts. */
function drawnCopy({ panels, picked, at, readouts }) {
  const arrays = picked && Object.fromEntries(Object.entries(picked).map(([k, a]) => [k, Array.from(a)]));
  return { ...panelCopy(panels[0]), panels: panels.map(panelCopy), picked: arrays, at, readouts };
}

/** What a panel drew, as plain arrays (NaN as null) for the tests: rows, cols and values of a heatmap, or each
 * line's x and y (and the first line's as x, y). */
function panelCopy(panel) {
  const list = (a) => Array.from(a, (v) => (Number.isFinite(v) ? v : null));
  if (panel.kind === "heatmap") {
    return { kind: "heatmap", rows: list(panel.rows), cols: list(panel.cols), values: list(panel.values) };
  }
  const series = panel.series.map((line) => ({ name: line.name ?? null, x: list(line.x), y: list(line.y) }));
  return { kind: "lines", series, x: series[0]?.x, y: series[0]?.y };
}

/** A template's {placeholders} filled from the control values, else from the picked arrays' first entries
 * (`{name:deg}`: radians shown in degrees; `{name:4}`: four decimals). */
function fillIn(template, values, picked) {
  return template.replace(/\{(\w+)(?::(\w+))?\}/g, (placeholder, name, how) => {
    const value = name in values ? values[name] : picked?.[name]?.[0];
    if (value === undefined) return placeholder;
    if (how === "deg") return `${((value * 180) / Math.PI).toFixed(1)}°`;
    if (how && /^\d+$/.test(how)) return value.toFixed(Number(how));
    return format(value);
  });
}

function paint(canvas, matrix, box, width, height, colorscale) {
  const ratio = window.devicePixelRatio || 1;
  sizeCanvas(canvas, width, height, ratio);
  const nr = matrix.rows.length, nc = matrix.cols.length;
  const cells = cellImage(matrix.values, nr, nc, matrix.zmin, matrix.zmax, colorscale);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, box.left, box.top, box.right - box.left, box.bottom - box.top);
  const bar = ctx.createLinearGradient(0, box.bottom, 0, box.top);  // the colour bar, zmin at the bottom
  for (const [stop, color] of colorscale) bar.addColorStop(stop, color);
  ctx.fillStyle = bar;
  ctx.fillRect(box.right + 24, box.top, 14, box.bottom - box.top);
}

function axes(svg, matrix, box, width, height, words, fill) {
  const x = (i) => box.left + ((i + 0.5) / matrix.xCount) * (box.right - box.left);
  const y = (i) => box.top + ((i + 0.5) / matrix.yCount) * (box.bottom - box.top);
  const [x0, y0] = [matrix.x0 ?? 0, matrix.y0 ?? 0]; // what the first column and row are called
  const parts = [];
  for (const tick of ticks(matrix.xCount)) {
    parts.push(`<text x="${x(tick)}" y="${box.bottom + 16}" text-anchor="middle">${format(tick + x0)}</text>`);
  }
  for (const tick of ticks(matrix.yCount)) {
    parts.push(`<text x="${box.left - 6}" y="${y(tick) + 4}" text-anchor="end">${format(tick + y0)}</text>`);
  }
  const mid = (box.top + box.bottom) / 2, barX = box.right + 44;
  for (const [value, at] of [[matrix.zmax, box.top + 4], [(matrix.zmax + matrix.zmin) / 2, mid + 4], [matrix.zmin, box.bottom]]) {
    parts.push(`<text x="${barX}" y="${at}">${format(value)}</text>`);
  }
  finish(svg, parts, box, width, height, words, fill);
}

/** The axis titles and the chart title (its {placeholders} filled) around ``parts``. */
function finish(svg, parts, box, width, height, words, fill) {
  const mid = (box.top + box.bottom) / 2;
  if (words.x) parts.push(`<text x="${(box.left + box.right) / 2}" y="${height - 8}" text-anchor="middle">${escape(words.x)}</text>`);
  if (words.y) parts.push(`<text transform="translate(14 ${mid}) rotate(-90)" text-anchor="middle">${escape(words.y)}</text>`);
  parts.push(`<text class="title" x="${box.left}" y="22">${escape(fill(words.title))}</text>`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.innerHTML = parts.join("");
  const heading = svg.querySelector(".title"); // shrink a long title (Korean, Chinese, a narrow column) to fit
  const room = width - box.left - 4, used = titleWidth(svg, heading.textContent);
  if (used > room) heading.style.fontSize = `${Math.max(10, Math.floor((15 * room) / used))}px`;
}

let measure = null; // a 2-D context that measures text without a layout pass
const titleWidths = new Map(); // "font|text" -> px: a title is measured once, not on every drag frame
/** How wide `text` is drawn as the SVG's 15 px title, measured on a canvas in the SVG's own font (the SVG's
 * getComputedTextLength forced a layout pass on every frame: a third of a phone's drag frame on the relative page). */
function titleWidth(svg, text) {
  svg.titleFont ??= `15px ${getComputedStyle(svg).fontFamily}`;
  const key = `${svg.titleFont}|${text}`;
  if (titleWidths.has(key)) return titleWidths.get(key);
  measure ??= document.createElement("canvas").getContext("2d");
  measure.font = svg.titleFont;
  const width = measure.measureText(text).width;
  if (document.fonts?.status === "loaded") { // kept once the page's fonts are in: a fallback font's width is not
    if (titleWidths.size > 500) titleWidths.clear();
    titleWidths.set(key, width);
  }
  return width;
}

function clear(canvas, width, height) {
  sizeCanvas(canvas, width, height);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, width, height);
}

/** Lines (and markers, bars) y(x) in SVG: linear or logarithmic axes (log: only values > 0 drawn), vertical marks,
 * a y axis from the spec's y_min / y_max or from the data (with 0 in it when linear); `square`: one unit is as long
 * on both axes, around the origin; `equal`: one unit is as long on both axes over the spec's x and y ranges;
 * `bare`: no ticks, grid or axis titles (a picture, not a plot); `texts`: words at points ({x, y, text}). */
function lineChart(svg, panel, box, width, height, words, fill) {
  const fx = panel.log_x ? Math.log10 : (x) => x;
  const fy = panel.log_y ? Math.log10 : (y) => y;
  const usable = (x) => Number.isFinite(x) && (!panel.log_x || x >= 1);
  const usableY = (y) => Number.isFinite(y) && (!panel.log_y || y > 0);
  const xs = [], ys = [];
  for (const line of panel.series) {
    for (let k = 0; k < line.x.length; k++) {
      if (usable(line.x[k]) && usableY(line.y[k])) { xs.push(line.x[k]); ys.push(line.y[k]); }
    }
  }
  if (!xs.length) { finish(svg, [], box, width, height, words, fill); return; }
  let [xLow, xHigh] = [panel.x_min ?? Math.min(...xs), panel.x_max ?? Math.max(...xs)];
  const floor = panel.log_y ? [] : [0];
  let [yLow, yHigh] = [panel.y_min ?? Math.min(...floor, ...ys), panel.y_max ?? Math.max(...floor, ...ys)];
  if (panel.square) { // the complex plane: a square box around the origin, as far as the longest arrow
    const reach = niceCeiling(Math.max(...xs.map(Math.abs), ...ys.map(Math.abs)) * 1.1);
    [xLow, xHigh, yLow, yHigh] = [-reach, reach, -reach, reach];
    const side = Math.min(box.right - box.left, box.bottom - box.top);
    box = { ...box, right: box.left + side, bottom: box.top + side };
    height = Math.min(height, box.bottom + 48); // narrower than tall (a phone): the chart ends under the square
  } else if (panel.equal) { // as many pixels per unit across as down: the box shrinks on one side
    const perUnit = Math.min((box.right - box.left) / (xHigh - xLow), (box.bottom - box.top) / (yHigh - yLow));
    box = { ...box, right: box.left + perUnit * (xHigh - xLow), bottom: box.top + perUnit * (yHigh - yLow) };
  } else if (!panel.log_y && (panel.y_max === undefined || panel.y_min === undefined)) {
    const yTicks = niceTicks(yLow, yHigh);
    [yLow, yHigh] = [Math.min(yLow, yTicks[0]), Math.max(yHigh, yTicks[yTicks.length - 1])];
  }
  const [x0, x1] = [fx(xLow), fx(xHigh)];
  const [y0, y1] = [fy(yLow), fy(yHigh)];
  const px = (x) => box.left + ((fx(x) - x0) / (x1 - x0 || 1)) * (box.right - box.left);
  const py = (y) => box.bottom - ((fy(y) - y0) / (y1 - y0 || 1)) * (box.bottom - box.top);
  const yTicks = panel.bare ? [] : panel.log_y ? logTicks(yLow, yHigh) : niceTicks(yLow, yHigh);
  const parts = [];
  for (const y of yTicks) {
    parts.push(`<line x1="${box.left}" x2="${box.right}" y1="${py(y)}" y2="${py(y)}" stroke="currentColor" opacity="0.12"/>`);
    parts.push(`<text x="${box.left - 6}" y="${py(y) + 4}" text-anchor="end">${format(y)}</text>`);
  }
  const span = xHigh - xLow; // a round tick just outside the data (−400 for −299 … 299) is left out
  const xTicks = panel.bare ? [] : panel.log_x ? logTicks(xLow, xHigh)
    : niceTicks(xLow, xHigh).filter((t) => t >= xLow - 1e-9 * span && t <= xHigh + 1e-9 * span);
  for (const tick of xTicks) {
    parts.push(`<text x="${px(tick)}" y="${box.bottom + 16}" text-anchor="middle">${format(tick)}</text>`);
  }
  if (panel.square) {
    parts.push(`<line x1="${px(0)}" x2="${px(0)}" y1="${box.top}" y2="${box.bottom}" stroke="currentColor" opacity="0.3"/>`);
    parts.push(`<line x1="${box.left}" x2="${box.right}" y1="${py(0)}" y2="${py(0)}" stroke="currentColor" opacity="0.3"/>`);
  }
  for (const { x, y, text } of panel.texts ?? []) {
    parts.push(`<text x="${px(x)}" y="${py(y)}" text-anchor="middle" font-size="11">${escape(text)}</text>`);
  }
  const rows = []; // the label rows under the top edge: the spans taken in each, so close marks never overlap
  for (const mark of panel.marks ?? []) {
    if (!usable(mark.x) || mark.x < xLow || mark.x > xHigh) continue;
    parts.push(`<line x1="${px(mark.x)}" x2="${px(mark.x)}" y1="${box.top}" y2="${box.bottom}" stroke="currentColor" stroke-dasharray="4 4" opacity="0.6"/>`);
    const right = px(mark.x) > (box.left + box.right) / 2; // a label near the right edge reads leftwards
    const label = fill(mark.label), at = px(mark.x) + (right ? -4 : 4), wide = textWidth(label, 12);
    const span = right ? [at - wide, at] : [at, at + wide];
    let row = rows.findIndex((taken) => taken.every(([a, b]) => span[1] + 4 < a || span[0] - 4 > b));
    if (row < 0) row = rows.push([]) - 1;
    rows[row].push(span);
    parts.push(`<text x="${at}" y="${box.top + 12 + 15 * row}" text-anchor="${right ? "end" : "start"}">${escape(label)}</text>`);
  }
  panel.series.forEach((line, n) => {
    const color = line.color ?? PALETTE[n % PALETTE.length];
    const points = [];
    for (let k = 0; k < line.x.length; k++) {
      if (usable(line.x[k]) && usableY(line.y[k])) points.push([px(line.x[k]), py(line.y[k])]);
      else points.push(null);
    }
    const mode = line.mode ?? "lines";
    if (mode === "bars") {
      const step = (box.right - box.left) / Math.max(points.length, 1) * 0.7;
      const ground = panel.log_y ? box.bottom : py(0); // a log axis has no 0: bars stand on the axis
      for (const p of points) {
        if (p) parts.push(`<rect x="${p[0] - step / 2}" y="${Math.min(p[1], ground)}" width="${step}" height="${Math.abs(ground - p[1])}" fill="${color}"/>`);
      }
      return;
    }
    if (mode.includes("lines")) {
      const path = svgPath(points);
      const dash = line.dash ? ' stroke-dasharray="6 4"' : "";
      parts.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="${line.width ?? 2.5}"${dash}/>`);
    }
    if (mode.includes("markers")) {
      for (const p of points) if (p) parts.push(`<circle cx="${p[0]}" cy="${p[1]}" r="${line.size ?? 4}" fill="${color}"/>`);
    }
  });
  finish(svg, parts, box, width, height, words, fill);
  return height;
}

function legend(element, lines) {
  element.replaceChildren(...lines.map((line, n) => {
    const item = document.createElement("span");
    const swatch = document.createElement("i");
    swatch.style.background = line.color ?? PALETTE[n % PALETTE.length];
    if (line.dash) swatch.classList.add("dash");
    item.append(swatch, document.createTextNode(line.name));
    return item;
  }));
}

/** About six round tick positions in 0 … n − 1. */
function ticks(n) {
  const raw = Math.max(1, (n - 1) / 6);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let t = 0; t <= n - 1; t += step) out.push(t);
  return out;
}
