// Figures drawn without Plotly: the server still builds every figure in Plotly's format (figures/, tested there), and
// this module draws the part of that format the lab uses — heatmaps, lines and markers, bars with error bars, side by
// side or stacked subplots (axis domains), linear, log, reversed and categorical axes, tick values and texts, shared
// and equal-unit axes, titles, annotations, line shapes, legends and colour bars — on one canvas (heatmap cells) and
// one SVG (everything else). The value under the pointer or finger is read out with the trace's hovertemplate, and
// the picture can be saved as a PNG. Streamlit's Plotly chunk (1.4 MB) is then never downloaded.
//
// A figure that depends on a shared value (base, dim, length, heads) may follow the tab's store (static/store.js)
// while the sidebar's thumb moves (`data.follow`, ui/figure.py): it names a view, static/views/<name>.js, loaded once
// with the release's ?v=…, whose `view(data, values, figure)` returns the server's figure at the store's values
// (new trace arrays, and any axis range or label that quotes a value, from the catalog's templates the server sent),
// computed with twins of posenc (static/twins.js). The figure is redrawn on the next animation frame, read-out and
// Save PNG included; one far off screen only notes the change and redraws when it comes near. The commit's rerun
// sends no new figure (`data.keep`: the new values and view data only), so the view keeps drawing from the server's
// last figure (tests/test_figure_follow.py holds the view to the figure the server would build at any values); a
// figure with nothing to redraw from (a new element) asks for the server's with the trigger `missing`. A figure the
// server built again sends only the arrays that changed; the others (`{kept: print}`) are put back from the last.
//
// Served from Streamlit's static folder; ui/figure.py's inline loader imports it with the release's version.

// Helpers from the same release: imported with this module's own ?v=… (ui/static_files.py), so a browser never
// mixes a cached old helper with a new module, and every module of the tab shares one instance of each.
const release = new URL(import.meta.url).search;
const helper = (name) => import(new URL(`./${name}${release}`, import.meta.url).href);
const { PALETTE, cellImage, escape, grouped, logTicks, niceTicks, sizeCanvas, svgPath } =
  await helper("draw.js");
const store = await helper("store.js"); // the tab's shared values, which a following figure redraws from
const { unpack, arrayBytes } = await helper("packed.js"); // the data as sent (ui/component_data.py)

let measure = null; // a 2-D context to measure text in the page's font (set per draw)
/** How wide `text` is drawn at `size` px in the figure's font. */
function textWidth(text, size) {
  measure.font = `${size}px ${measureFamily}`;
  return measure.measureText(String(text)).width;
}
let measureFamily = "sans-serif";

const instances = new WeakMap(); // parentElement -> its figure
const DTYPES = { f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, i1: Int8Array,
  u4: Uint32Array, u2: Uint16Array, u1: Uint8Array };
const MARGIN = { l: 80, r: 80, t: 100, b: 80 }; // Plotly's defaults

export function render(component) {
  const { parentElement, setTriggerValue } = component;
  const data = unpack(component.data);
  let figure = instances.get(parentElement);
  if (!figure) {
    figure = createFigure(parentElement);
    instances.set(parentElement, figure);
  }
  if (!data.said) {
    figure.update(data, setTriggerValue);
    return;
  }
  // a figure a commit builds (ui/figure.py figure_part): the newest of this run's and a commit's (sidebar's data)
  figure.said(data.said.key, setTriggerValue);
  store.say({ ...data.said, data });
  figure.update(store.saidOf(data.said.key).data, setTriggerValue);
}

// ---- data ------------------------------------------------------------------------------------------------------

/** A Plotly data array (a list, or a typed array {dtype, bdata or raw, shape}), or a view's computed {values, shape}, as
 * {values, shape}. */
export function decodeArray(array) {
  if (array == null) return null;
  if (ArrayBuffer.isView(array)) return { values: array, shape: [array.length] }; // a view's computed array
  if (ArrayBuffer.isView(array.values) || Array.isArray(array.values)) { // a view's {values, shape}, row-major
    return { values: array.values, shape: (array.shape ?? [array.values.length]).map(Number) };
  }
  if (Array.isArray(array)) {
    if (array.length && Array.isArray(array[0])) {
      return { values: array.flat().map((v) => (v == null ? NaN : v)), shape: [array.length, array[0].length] };
    }
    return { values: array, shape: [array.length] };
  }
  const values = new DTYPES[array.dtype](arrayBytes(array));
  const shape = array.shape ? String(array.shape).split(",").map(Number) : [values.length];
  return { values, shape };
}

function list(array) {
  const decoded = decodeArray(array);
  return decoded ? Array.from(decoded.values) : null;
}

// ---- text: Plotly's small HTML subset and hovertemplates ---------------------------------------------------------

/** Lines of plain text from Plotly's label HTML (<br> breaks lines; other tags are dropped). */
function lines(html) {
  return String(html ?? "").split(/<br\s*\/?>/i).map((line) => line.replace(/<[^>]*>/g, "").replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">"));
}

/** A number in d3-format's spec as hovertemplates use it: [,][.precision][f | e | g | % | d | s | r]. */
export function formatSpec(value, spec) {
  if (typeof value !== "number") return String(value);
  if (!Number.isFinite(value)) return "–";
  const match = /^(,)?(?:\.(\d+))?([efgdrs%])?$/.exec(spec ?? "");
  if (!match) return String(value);
  const [, comma, digits, type] = match;
  const precision = digits === undefined ? 6 : Number(digits);
  let text;
  if (type === "f") text = value.toFixed(precision);
  else if (type === "e") text = value.toExponential(precision);
  else if (type === "%") text = `${(value * 100).toFixed(precision)}%`;
  else if (type === "d") text = Math.round(value).toString();
  else if (type === "g" || type === "r" || type === "s") text = String(Number(value.toPrecision(Math.max(1, precision))));
  else text = digits === undefined ? String(value) : String(Number(value.toPrecision(Math.max(1, precision))));
  if (comma) {
    const [whole, fraction] = text.split(".");
    text = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (fraction !== undefined ? `.${fraction}` : "");
  }
  return text.replace("e+", "e");
}

/** A hovertemplate filled with a point's fields: %{x}, %{y}, %{z}, %{text}, %{customdata[k]}, each with :format. */
export function fillTemplate(template, point) {
  const body = String(template).replace(/<extra>[\s\S]*?<\/extra>/g, "");
  return body.replace(/%\{([^}:]+)(?::([^}]*))?\}/g, (whole, field, spec) => {
    const custom = /^customdata\[(\d+)\]$/.exec(field);
    const value = custom ? point.customdata?.[Number(custom[1])] : field === "customdata" ? point.customdata : point[field];
    return value === undefined ? "" : formatSpec(value, spec);
  });
}

// ---- the figure: axes, subplots, traces -------------------------------------------------------------------------

function createFigure(parent) {
  const root = document.createElement("div");
  root.className = "figure-root";
  root.innerHTML = `
    <div class="plot" role="img"><canvas></canvas><svg xmlns="http://www.w3.org/2000/svg"></svg>
      <div class="tip" hidden></div></div>
    <div class="tools"><button type="button" class="save"></button></div>`;
  parent.append(root);
  const state = {
    root, plot: root.querySelector(".plot"), canvas: root.querySelector("canvas"), svg: root.querySelector("svg"),
    tip: root.querySelector(".tip"), save: root.querySelector(".save"), data: null, drawn: null, frame: 0,
    follow: null, values: null, moved: false, draws: 0, drawnFor: null,
  };
  new ResizeObserver(() => { state.resized = true; schedule(state); }).observe(root);
  watchScreen(state);
  const unsubscribe = store.subscribe((name, value) => (root.isConnected ? followStore(state, name, value)
    : unsubscribe()));
  state.plot.addEventListener("pointermove", (event) => hover(state, event));
  state.plot.addEventListener("pointerdown", (event) => hover(state, event));
  state.plot.addEventListener("pointerleave", () => { state.tip.hidden = true; });
  state.save.addEventListener("click", () => savePng(state));
  state.canvas.posencFigure = {  // for the tests (read-only): what was drawn, and the figure as the server sent it
    get drawn() { return state.drawn && { ...state.drawn.summary }; },
    get figure() { return state.sent; },
    readout: (x, y) => state.drawn && readout(state.data.figure, state.drawn.axes, x, y),
    get traces() { return state.drawn && state.drawn.traces.map(traceCopy); }, // each drawn trace's name, x and y
    get drawnFor() { return state.drawnFor && { ...state.drawnFor }; }, // the followed values of the last picture
    get follows() { return state.follow && { ...state.follow.follows }; }, // the values the server's figure is at
    get draws() { return state.draws; }, // pictures drawn so far
  };
  let saidKey = null;
  let lastSend = null;
  let stopSaid = null;
  const update = (data, send) => {
    if (data === state.shownData) return;
    state.shownData = data;
    show(data, send);
  };
  return {
    update,
    /** Draw the newest pictures the tab's store gets for `key` (a commit's, static/shared_controls.js). */
    said(key, send) {
      saidKey = key;
      lastSend = send;
      stopSaid ??= store.onSaid((said) => {
        if (!root.isConnected) { stopSaid(); return; }
        if (said.key === saidKey) update(said.data, lastSend);
      });
    },
  };

  function show(data, send) {
    const ready = data.follow ? loadView(data.follow.view) : Promise.resolve();
    ready.then(() => {
      if (data.keep) {  // a commit's rerun: the server built no figure; the view redraws its last one at the values
        if (!state.sent) { send?.("missing", Date.now()); return; } // none here to redraw: the server sends it
        state.follow = data.follow;
        state.values = { ...data.follow.follows };
        for (const name of Object.keys(state.values)) followStore(state, name, store.get(name), true);
        state.moved = true; // drawn by the view, from the server's figure at the values it was drawn at
        schedule(state);
        return;
      }
      const sent = withHeldArrays(state, data.figure);
      if (!sent) { send?.("missing", Date.now()); return; } // a kept array this figure does not hold: sent whole
      state.sent = sent;
      state.arrays = arraysOf(sent);
      state.data = { ...data, figure: prepare(sent) };
      state.follow = data.follow ?? null;
      state.values = state.follow && { ...state.follow.follows }; // what the server drew
      state.moved = false;
      // the thumb moved on since the server drew (still held, or released again): the store's values, at once
      for (const name of Object.keys(state.values ?? {})) followStore(state, name, store.get(name), true);
      state.save.textContent = data.words?.save ?? "PNG";
      state.save.setAttribute("aria-label", `${data.words?.save ?? "PNG"}: ${state.data.figure.titleText}`);
      state.plot.setAttribute("aria-label", state.data.figure.titleText);
      schedule(state);
    });
  }
}

/** The figure the server sent, each array sent as `{kept: print}` (ui/figure.py with_arrays_kept: one this figure
 * was last sent) put back from the last figure's arrays; null when it holds no array of that print. */
function withHeldArrays(state, figure) {
  let missing = false;
  const put = (value) => {
    if (Array.isArray(value)) return value.map(put);
    if (!value || typeof value !== "object" || ArrayBuffer.isView(value)) return value; // an array's bytes: as is
    if (typeof value.kept === "string" && Object.keys(value).length === 1) {
      const held = state.arrays?.get(value.kept);
      if (!held) missing = true;
      return held;
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, put(item)]));
  };
  const whole = put(figure);
  return missing ? null : whole;
}

/** Every array of a figure as sent, by its print (figures/common.py with_array_prints). */
function arraysOf(figure, found = new Map()) {
  if (Array.isArray(figure)) figure.forEach((item) => arraysOf(item, found));
  else if (figure && typeof figure === "object") {
    if (typeof figure.print === "string" && figure.dtype) found.set(figure.print, figure);
    else Object.values(figure).forEach((item) => arraysOf(item, found));
  }
  return found;
}

// ---- following the store ----------------------------------------------------------------------------------------

const VIEWS = {}; // name -> a loaded view's `view(data, values, figure)`
const loading = {};
/** static/views/<name>.js with the release's version, loaded once. */
function loadView(name) {
  const url = new URL(`views/${name}.js`, import.meta.url);
  url.search = release;
  loading[name] ??= import(url.href).then((module) => { VIEWS[name] = module.view; });
  return loading[name];
}

/** The store's `name` is now `value`: a figure that follows it redraws on the next frame (`now`: the server's data
 * just arrived, and is drawn anyway). */
function followStore(state, name, value, now = false) {
  if (!state.follow || !(name in state.values) || typeof value !== "number" || state.values[name] === value) return;
  state.values[name] = value;
  state.moved = true;
  if (now) return;
  if (state.offscreen) state.stale = true;
  else scheduleFollow(state);
}

// Store-driven redraws take turns: one following figure is redrawn per animation frame, the one that waited longest,
// so two figures on screen (a phone shows one or two) each follow at half the screen's rate (30 a second at 60 Hz)
// and a drag frame stays within a phone's budget. The server's figure and a resize draw on the next frame, as ever.
const waiting = new Set();
let turn = 0;
function scheduleFollow(state) {
  waiting.add(state);
  if (!turn) turn = requestAnimationFrame(takeTurn);
}

function takeTurn() {
  turn = 0;
  for (const state of waiting) {
    waiting.delete(state);
    if (state.frame || !state.moved) continue; // a full draw is coming anyway, or nothing moved since
    draw(state);
    break;
  }
  if (waiting.size) turn = requestAnimationFrame(takeTurn);
}

/** Whether the figure is within a screen of the viewport (as static/live.js's `watchScreen`): a figure far off
 * screen skips the store's redraws and draws once when it comes near. */
function watchScreen(state) {
  if (typeof IntersectionObserver === "undefined") return; // Node tests and old browsers: always drawn
  new IntersectionObserver((entries) => {
    state.offscreen = !entries.some((entry) => entry.isIntersecting);
    if (!state.offscreen && state.stale) {
      state.stale = false;
      scheduleFollow(state);
    }
  }, { rootMargin: "100% 0px" }).observe(state.root);
}

/** The server's figure as the view computes it at the store's values, prepared for drawing. */
function followed(state) {
  const { follow, values, sent } = state;
  return prepare(VIEWS[follow.view](follow.data, { ...values }, sent));
}

/** A drawn trace as plain lists, for the tests. */
function traceCopy(trace) {
  const list = (a) => (a ? Array.from(a, (v) => (typeof v === "number" && !Number.isFinite(v) ? null : v)) : null);
  return { name: trace.name ?? null, type: trace.type, x: list(trace.xs), y: list(trace.ys),
    z: trace.cells ? list(trace.cells.values) : null };
}

function schedule(state) {
  if (!state.frame) state.frame = requestAnimationFrame(() => { state.frame = 0; draw(state); });
}

/** The figure's traces decoded once: numbers as arrays, heatmap cells with their shape, axis ids resolved. */
function prepare(figure) {
  const layout = figure.layout ?? {};
  const traces = (figure.data ?? []).map((trace, index) => {
    const type = trace.type ?? "scatter";
    const out = { ...trace, type, index, xaxis: trace.xaxis ?? "x", yaxis: trace.yaxis ?? "y" };
    if (type === "heatmap") {
      const z = decodeArray(trace.z);
      out.cells = { values: z.values, rows: z.shape[0], cols: z.shape[1] ?? z.values.length };
      out.xs = trace.x ? list(trace.x) : null;
      out.ys = trace.y ? list(trace.y) : null;
      const custom = decodeArray(trace.customdata);
      out.custom = custom && { values: custom.values, shape: custom.shape };
    } else {
      out.ys = list(trace.y) ?? [];
      out.xs = list(trace.x) ?? out.ys.map((_, k) => (trace.x0 ?? 0) + k * (trace.dx ?? 1));
      const custom = decodeArray(trace.customdata);
      out.custom = custom && { values: custom.values, shape: custom.shape };
      if (trace.error_y?.array) {
        out.errorUp = list(trace.error_y.array);
        out.errorDown = trace.error_y.symmetric === false && trace.error_y.arrayminus ? list(trace.error_y.arrayminus)
          : out.errorUp;
      }
    }
    return out;
  });
  return { traces, layout, titleText: lines(layout.title?.text ?? layout.title).join(" ") };
}

/** Axis layout key ("xaxis2") of a trace's axis id ("x2"). */
const axisKey = (id) => `${id[0]}axis${id.slice(1)}`;

/** Every axis the traces use, with its domain, type, range (data units; log axes in log10) and categories. */
function buildAxes(figure, plotBox) {
  const { layout, traces } = figure;
  const axes = {};
  const get = (id) => {
    if (!axes[id]) {
      const spec = layout[axisKey(id)] ?? {};
      axes[id] = { id, spec, letter: id[0], log: spec.type === "log", domain: spec.domain ?? [0, 1], low: Infinity,
        high: -Infinity, categories: null, hasBars: false };
    }
    return axes[id];
  };
  for (const trace of traces) {
    const xa = get(trace.xaxis), ya = get(trace.yaxis);
    if (trace.type === "heatmap") {
      extendCells(xa, trace.xs, trace.x0 ?? 0, trace.dx ?? 1, trace.cells.cols);
      extendCells(ya, trace.ys, trace.y0 ?? 0, trace.dy ?? 1, trace.cells.rows);
    } else {
      extendPoints(xa, trace.xs, null, null);
      extendPoints(ya, trace.ys, trace.errorUp, trace.errorDown);
      if (trace.type === "bar") ya.hasBars = true, xa.bars = true;
    }
  }
  for (const shape of layout.shapes ?? []) {  // a shape placed in data units widens the autorange, as in Plotly
    for (const [letter, ref, a, b] of [["x", shape.xref ?? "x", shape.x0, shape.x1], ["y", shape.yref ?? "y", shape.y0, shape.y1]]) {
      const axis = axes[ref];
      if (axis && axis.letter === letter && !axis.categories) extendPoints(axis, [a, b].filter(Number.isFinite), null, null);
    }
  }
  for (const axis of Object.values(axes)) finishRange(axis);
  for (const axis of Object.values(axes)) {  // `matches`: one range for both
    const other = axis.spec.matches && axes[axis.spec.matches];
    if (other) {
      const low = Math.min(axis.low, other.low), high = Math.max(axis.high, other.high);
      Object.assign(axis, { low, high }); Object.assign(other, { low, high });
    }
  }
  const width = plotBox.right - plotBox.left, height = plotBox.bottom - plotBox.top;
  for (const axis of Object.values(axes)) {
    const [d0, d1] = axis.domain;
    axis.start = axis.letter === "x" ? plotBox.left + d0 * width : plotBox.bottom - d0 * height;
    axis.end = axis.letter === "x" ? plotBox.left + d1 * width : plotBox.bottom - d1 * height;
  }
  for (const axis of Object.values(axes)) {  // scaleanchor: as many pixels per unit as the axis it names
    const other = axis.spec.scaleanchor && axes[axis.spec.scaleanchor];
    if (!other) continue;
    const perUnit = (a) => Math.abs(a.end - a.start) / Math.abs(a.high - a.low || 1);
    const unit = Math.min(perUnit(axis), perUnit(other));
    for (const a of [axis, other]) {
      const length = unit * Math.abs(a.high - a.low || 1), sign = Math.sign(a.end - a.start);
      if (a.letter === "x") a.end = a.start + sign * length;
      else { const mid = a.start; a.end = mid + sign * length; }
    }
  }
  for (const axis of Object.values(axes)) {
    // an axis that `matches` another takes its range, its direction included (as Plotly does)
    const reversed = ((axis.spec.matches && axes[axis.spec.matches]) || axis).spec.autorange === "reversed";
    const [lo, hi] = reversed ? [axis.high, axis.low] : [axis.low, axis.high];
    const f = axis.log ? Math.log10 : (v) => v;
    axis.toPixel = (value) => {
      const v = axis.categories ? categoryIndex(axis, value) : value;
      const at = axis.log && !axis.categories ? f(v) : v;
      return axis.start + ((at - lo) / (hi - lo || 1)) * (axis.end - axis.start);
    };
    axis.fromPixel = (pixel) => lo + ((pixel - axis.start) / (axis.end - axis.start || 1)) * (hi - lo);
  }
  return axes;
}

function categoryIndex(axis, value) {
  const k = axis.categories.indexOf(String(value));
  return k < 0 ? Number(value) : k;
}

/** A heatmap's cells along one axis: centres x0 + k·dx (or the given centres), a half cell past either end. */
function extendCells(axis, centres, start, step, count) {
  if (centres && typeof centres[0] === "string") {
    axis.categories = centres.map(String);
    axis.low = Math.min(axis.low, -0.5);
    axis.high = Math.max(axis.high, centres.length - 0.5);
    return;
  }
  const first = centres ? centres[0] : start, last = centres ? centres[count - 1] : start + (count - 1) * step;
  const half = count > 1 ? Math.abs(last - first) / (count - 1) / 2 : 0.5;
  axis.low = Math.min(axis.low, Math.min(first, last) - half);
  axis.high = Math.max(axis.high, Math.max(first, last) + half);
  axis.cells = true;
}

function extendPoints(axis, values, up, down) {
  if (values.length && typeof values[0] === "string") {
    axis.categories = [...new Set([...(axis.categories ?? []), ...values.map(String)])];
    axis.low = -0.5;
    axis.high = axis.categories.length - 0.5;
    return;
  }
  values.forEach((v, k) => {
    if (v == null || !Number.isFinite(v) || (axis.log && v <= 0)) return;
    const high = v + (up?.[k] ?? 0), low = v - (down?.[k] ?? 0);
    axis.low = Math.min(axis.low, axis.log ? v : low);
    axis.high = Math.max(axis.high, axis.log ? v : high);
  });
}

/** The axis range in drawing units (log10 for a log axis): the spec's range, or the data's (bars from 0). */
function finishRange(axis) {
  const { spec } = axis;
  if (Array.isArray(spec.range) && spec.range.length === 2 && !axis.categories) {
    [axis.low, axis.high] = spec.range;  // Plotly gives a log axis's range in log10 units already
    return;
  }
  if (!Number.isFinite(axis.low)) [axis.low, axis.high] = axis.log ? [1, 10] : [0, 1];
  if (axis.categories) return;
  if (axis.log) { [axis.low, axis.high] = [Math.log10(axis.low), Math.log10(axis.high)]; return; }
  if (axis.hasBars || spec.rangemode === "tozero") {
    axis.low = Math.min(axis.low, 0);
    axis.high = Math.max(axis.high, 0);
  }
  if (axis.hasBars) axis.high += (axis.high - axis.low) * 0.05;
  if (axis.high === axis.low) { axis.low -= 1; axis.high += 1; }
}

// ---- drawing ----------------------------------------------------------------------------------------------------

const STACK_BELOW = 480; // px: a figure narrower than this (a phone) shows its side-by-side panels one above another

/** On a phone, the figure with its panels (subplots side by side) one under another, each the full width and as
 * tall as it was, the panel titles (annotations over a panel) moved with them; otherwise the figure as it is. */
export function stacked(figure, width, below = () => 0) {
  const { layout } = figure;
  const traces = figure.traces ?? figure.data ?? []; // prepared (the page) or as sent (the tests)
  const used = new Set(traces.map((trace) => `xaxis${(trace.xaxis ?? "x").slice(1)}`));
  const xs = Object.keys(layout).filter((key) => /^xaxis\d*$/.test(key) && layout[key].domain && used.has(key));
  const starts = new Set(xs.map((key) => layout[key].domain[0].toFixed(3)));
  if (width >= STACK_BELOW || starts.size < 2) return figure;
  const panels = xs.map((key) => {
    const id = `x${key.slice(5)}`, x = layout[key];
    const yid = x.anchor ?? "y", y = layout[`yaxis${yid.slice(1)}`] ?? {};
    return { key, id, yid, x: x.domain, y: y.domain ?? [0, 1] };
  }).sort((a, b) => b.y[1] - a.y[1] || a.x[0] - b.x[0]);
  const margin = { ...MARGIN, ...(layout.margin ?? {}) };
  const plotHeight = (layout.height ?? 450) - margin.t - margin.b;
  const rowHeight = Math.max(160, plotHeight * Math.max(...panels.map((p) => p.y[1] - p.y[0])));
  const titleLines = Math.max(0, ...(layout.annotations ?? []).map((note) => lines(note.text).length));
  // between two panels: the upper one's tick texts and axis title (`below`, px, measured by the caller), and the
  // lower one's title
  const gap = Math.max(66, ...panels.map((p) => below(p.key) + 22)) + 22 * titleLines;
  const total = panels.length * rowHeight + (panels.length - 1) * gap;
  const out = { ...layout, height: Math.round(margin.t + margin.b + total) };
  panels.forEach((panel, k) => {
    const top = 1 - (k * (rowHeight + gap)) / total, bottom = k === panels.length - 1 ? 0 : top - rowHeight / total;
    out[panel.key] = { ...layout[panel.key], domain: [0, 1] };
    const ykey = `yaxis${panel.yid.slice(1)}`;
    out[ykey] = { ...(layout[ykey] ?? {}), domain: [Math.max(0, bottom), Math.min(1, top)] };
    Object.assign(panel, { top, bottom });
  });
  out.annotations = (layout.annotations ?? []).map((note) => {  // a panel's title: over the panel it named
    if ((note.xref ?? "x") !== "paper" || (note.yref ?? "y") !== "paper") return note;
    const panel = panels.find((p) => Math.abs((p.x[0] + p.x[1]) / 2 - note.x) < 0.02 && Math.abs(p.y[1] - note.y) < 0.02);
    if (!panel) return note;
    const scale = (panel.top - panel.bottom) / (panel.y[1] - panel.y[0]);
    return { ...note, x: 0.5, y: panel.top + (note.y - panel.y[1]) * scale };
  });
  return { ...figure, layout: out };
}

function draw(state) {
  if (!state.data) return;
  // A redraw because the store moved (a thumb is being dragged): the view's figure (the read-out and the PNG use it
  // too), drawn with what the last full draw read from the page (its style, the fitted text sizes), so a drag frame
  // forces no style or layout pass of the page. The server's figure, a resize or a new width draws in full.
  const following = state.moved && Boolean(state.look) && !state.resized;
  state.resized = false;
  if (state.moved) {
    state.moved = false;
    state.data = { ...state.data, figure: followed(state) };
  }
  const { data } = state;
  const width = following ? state.look.width : state.root.clientWidth || 600;
  if (!following) {
    const style = getComputedStyle(state.root);
    state.look = { width, family: style.fontFamily || "sans-serif", fitted: new Map(), shifts: [],
      presenting: style.getPropertyValue("--posenc-presenting").trim() === "1" };
  }
  const { look } = state;
  let figure = stacked(data.figure, width);
  if (figure !== data.figure) {  // stacked: measure what each panel's x axis needs under it, then stack with that
    measure ??= new OffscreenCanvas(1, 1).getContext("2d");
    measureFamily = look.family;
    const size = figure.layout.font?.size ?? 12, margin = { ...MARGIN, ...(figure.layout.margin ?? {}) };
    const trial = buildAxes(figure, { left: margin.l, right: width - margin.r, top: margin.t,
      bottom: figure.layout.height - margin.b });
    for (const axis of Object.values(trial)) Object.assign(axis, { maxLabel: width * 0.33, figureWidth: width });
    figure = stacked(data.figure, width, (key) => {  // categories may turn upright in the narrower final plot
      const axis = trial[`x${key.slice(5)}`];
      if (!axis) return 0;
      const upright = axis.categories ? Math.max(...axis.categories.map((c) => textWidth(lines(c).join(" "), size))) : 0;
      return outside(axis, size) + upright;
    });
  }
  // presenter mode (ui/presenter.py sets --posenc-presenting): thicker lines, tick texts at least 15 px
  const { presenting } = look;
  if (presenting) {
    const larger = Object.fromEntries(Object.entries(figure.layout).filter(([key]) => /^[xy]axis\d*$/.test(key))
      .map(([key, spec]) => [key, { ...spec, tickfont: { ...spec.tickfont, size: Math.max(15, spec.tickfont?.size ?? 0) } }]));
    figure = { ...figure, layout: { ...figure.layout, ...larger } };
  }
  const { layout } = figure;
  const height = layout.height ?? 450;
  const margin = { ...MARGIN, ...(layout.margin ?? {}) };
  const fontSize = layout.font?.size ?? 12;
  measure ??= new OffscreenCanvas(1, 1).getContext("2d");
  measureFamily = look.family;
  const plotBox = { left: margin.l, right: width - margin.r, top: margin.t, bottom: height - margin.b };
  const scale = figure.traces.find((trace) => trace.type === "heatmap" && trace.showscale !== false);
  if (scale) plotBox.right = Math.min(plotBox.right, width - 96);  // room for the colour bar, as Plotly makes it
  const legend = legendLayout(figure.traces, layout, width, height, fontSize);
  if (legend.atBottom) plotBox.bottom -= legend.height;  // a legend under the x axis takes its rows off the plot
  let axes = buildAxes(figure, plotBox);
  for (const axis of Object.values(axes)) Object.assign(axis, { maxLabel: width * 0.33, figureWidth: width });
  // Room for the tick texts and axis titles (Streamlit's Plotly template sets automargin): the plot gives way.
  const edge = (a) => (axes[a.spec.anchor ?? (a.letter === "x" ? "y" : "x")]?.domain?.[0] ?? 0) < 1e-6;
  const need = (letter) => Math.max(0, ...Object.values(axes).filter((a) => a.letter === letter && edge(a))
    .map((a) => outside(a, fontSize)));
  // twice: a plot made narrower may turn its x labels upright, which then need more room below
  const start = { left: plotBox.left, bottom: plotBox.bottom };
  for (let pass = 0; pass < 2; pass++) {
    const grow = { left: Math.min(width * 0.35, Math.max(0, need("y") - margin.l)),
      bottom: Math.min(height * 0.5, Math.max(0, need("x") - margin.b)) };
    plotBox.left = Math.max(plotBox.left, start.left + grow.left);
    plotBox.bottom = Math.min(plotBox.bottom, start.bottom - grow.bottom);
    axes = buildAxes(figure, plotBox);
    for (const axis of Object.values(axes)) Object.assign(axis, { maxLabel: width * 0.33, figureWidth: width });
  }
  const ratio = window.devicePixelRatio || 1;
  sizeCanvas(state.canvas, width, height, ratio);
  const ctx = state.canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const parts = [];
  const heatmaps = figure.traces.filter((trace) => trace.type === "heatmap");
  for (const trace of heatmaps) paintHeatmap(ctx, trace, axes[trace.xaxis], axes[trace.yaxis]);
  for (const axis of Object.values(axes)) parts.push(...axisParts(axis, axes, fontSize));
  const bars = figure.traces.filter((trace) => trace.type === "bar");
  let previous = null; // the scatter trace before: a "tonexty" fill reaches down (or up) to it
  for (const trace of figure.traces) {
    if (trace.type === "scatter") {
      const thick = presenting && trace.line?.width !== 0 ? { ...trace, line: { ...trace.line, width: 1.6 * (trace.line?.width ?? 2) } } : trace;
      parts.push(...lineParts(thick, axes[trace.xaxis], axes[trace.yaxis], previous));
      previous = trace;
    }
    if (trace.type === "bar") parts.push(...barParts(trace, axes[trace.xaxis], axes[trace.yaxis], bars));
  }
  for (const shape of layout.shapes ?? []) parts.push(...shapeParts(shape, axes, plotBox));
  for (const note of layout.annotations ?? []) parts.push(...annotationParts(note, axes, plotBox, fontSize));
  if (scale) parts.push(...colorBar(ctx, scale, layout, plotBox, width, fontSize));
  parts.push(...titleParts(layout, width, height, fontSize));
  parts.push(...legend.parts);
  const svg = state.svg;
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.style.fontSize = `${fontSize}px`;
  svg.innerHTML = parts.join("");
  // Text fitted to its room, measured in the page (a layout pass); a drag frame reuses what the last full draw measured
  // for the same text and room (the titles), and moves each annotation as that draw moved it.
  const fit = (element, key, size) => {
    if (!look.fitted.has(key)) look.fitted.set(key, size());
    const fitted = look.fitted.get(key);
    if (fitted) element.setAttribute("font-size", fitted);
  };
  for (const title of svg.querySelectorAll(".ytitle")) {  // a y title longer than its axis: smaller, not over the next
    const room = Number(title.dataset.room);
    fit(title, `y|${title.textContent}|${room}|${fontSize}`, () => {
      const used = title.getComputedTextLength();
      return used > room && Math.max(9, Math.floor((fontSize * room) / used));
    });
  }
  svg.querySelectorAll(".note").forEach((note, k) => {  // an annotation near an edge: moved in, not cut
    if (following && look.shifts[k]) {
      const [dx, dy] = look.shifts[k];
      note.setAttribute("x", Number(note.getAttribute("x")) + dx);
      note.setAttribute("y", Number(note.getAttribute("y")) + dy);
      return;
    }
    const box = note.getBBox(), over = box.x + box.width - (width - 2), under = 2 - box.x;
    const dx = over > 0 ? -over : under > 0 ? under : 0;
    const dy = (box.y < 2 ? 2 - box.y : 0) - (box.y + box.height > height - 2 ? box.y + box.height - height + 2 : 0);
    note.setAttribute("x", Number(note.getAttribute("x")) + dx);
    note.setAttribute("y", Number(note.getAttribute("y")) + dy);
    look.shifts[k] = [dx, dy];
  });
  for (const heading of svg.querySelectorAll(".title")) {  // a long title in a narrow column: smaller, not cut
    const room = width - heading.getAttribute("x") - 4, size = heading.getAttribute("font-size");
    fit(heading, `t|${heading.textContent}|${room}|${size}`, () => {
      const used = heading.getComputedTextLength();
      return used > room && Math.max(9, Math.floor((size * room) / used));
    });
  }
  state.drawn = { axes, width, height, traces: figure.traces, summary: { width, height, traces: figure.traces.length,
    title: figure.titleText, axes: Object.keys(axes) } };
  state.drawnFor = state.values && { ...state.values };
  state.draws += 1;
}

function paintHeatmap(ctx, trace, xa, ya) {
  const { values, rows, cols } = trace.cells;
  let zmin = trace.zmin, zmax = trace.zmax;
  if (zmin === undefined || zmax === undefined) {
    let low = Infinity, high = -Infinity;
    for (const v of values) if (Number.isFinite(v)) { low = Math.min(low, v); high = Math.max(high, v); }
    zmin ??= low; zmax ??= high;
    if (trace.zmid !== undefined) {
      const reach = Math.max(Math.abs(zmax - trace.zmid), Math.abs(trace.zmid - zmin));
      [zmin, zmax] = [trace.zmid - reach, trace.zmid + reach];
    }
  }
  trace.range = [zmin, zmax];
  const cells = cellImage(values, rows, cols, zmin, zmax, scaleOf(trace));
  // the first and last cell's outer edges, in pixels (a reversed axis puts row 0 at the top)
  const edge = (axis, centres, start, step, count, k) => {
    if (axis.categories) return axis.toPixel(k === 0 ? -0.5 : count - 0.5);
    const first = centres ? centres[0] : start, last = centres ? centres[count - 1] : start + (count - 1) * step;
    const half = count > 1 ? (last - first) / (count - 1) / 2 : 0.5;
    return axis.toPixel(k === 0 ? first - half : last + half);
  };
  const x0 = edge(xa, trace.xs, trace.x0 ?? 0, trace.dx ?? 1, cols, 0), x1 = edge(xa, trace.xs, trace.x0 ?? 0, trace.dx ?? 1, cols, 1);
  const y0 = edge(ya, trace.ys, trace.y0 ?? 0, trace.dy ?? 1, rows, 0), y1 = edge(ya, trace.ys, trace.y0 ?? 0, trace.dy ?? 1, rows, 1);
  ctx.save();
  ctx.imageSmoothingEnabled = false;
  ctx.translate(x0, y0);
  ctx.scale(Math.sign(x1 - x0) || 1, Math.sign(y1 - y0) || 1);
  ctx.drawImage(cells, 0, 0, Math.abs(x1 - x0), Math.abs(y1 - y0));
  ctx.restore();
}

function scaleOf(trace) {
  const scale = trace.colorscale;
  return Array.isArray(scale) && scale.length > 1 ? scale : [[0, "#440154"], [0.5, "#21918c"], [1, "#fde725"]];
}

/** The colour bar of the figure's first heatmap that shows one: right of the plot area, its title above. */
function colorBar(ctx, trace, layout, plotBox, width, fontSize) {
  const left = plotBox.right + 12, barWidth = 14, top = plotBox.top, bottom = plotBox.bottom;
  const gradient = ctx.createLinearGradient(0, bottom, 0, top);
  for (const [stop, color] of scaleOf(trace)) gradient.addColorStop(stop, color);
  ctx.fillStyle = gradient;
  ctx.fillRect(left, top, barWidth, bottom - top);
  const [zmin, zmax] = trace.range;
  const parts = [];
  for (const tick of niceTicks(zmin, zmax).filter((t) => t >= zmin - 1e-12 && t <= zmax + 1e-12)) {
    const y = bottom - ((tick - zmin) / (zmax - zmin || 1)) * (bottom - top);
    parts.push(`<text x="${left + barWidth + 4}" y="${y + 4}" font-size="${fontSize - 1}">${escape(tickText(tick))}</text>`);
  }
  const title = trace.colorbar?.title?.text ?? trace.colorbar?.title;
  if (typeof title === "string" && title) {  // turned, right of the tick texts (Plotly's side: "right")
    const x = width - 0.9 * fontSize, mid = (top + bottom) / 2;
    parts.push(`<text transform="translate(${x} ${mid}) rotate(90)" text-anchor="middle" font-size="${fontSize - 1}">${escape(lines(title).join(" "))}</text>`);
  }
  return parts;
}

/** An axis's ticks as [value, text], its tick font size and angle: the spec's tick values, or round values, or
 * categories (every k-th when they would overlap; x categories turned upright when they do not fit across). */
function tickList(axis, fontSize) {
  const { spec } = axis;
  const size = spec.tickfont?.size ?? fontSize;
  let ticks, angle = spec.tickangle ?? 0;
  if ((spec.tickmode ?? "array") === "array" && spec.tickvals) {  // as in Plotly, tick values alone mean "array"
    const texts = spec.ticktext ?? spec.tickvals;
    ticks = list(spec.tickvals).map((value, k) => [value, lines(texts[k] ?? value).join(" ")]);
    if (axis.letter === "x" && axis.toPixel) {  // a narrow panel keeps every tick that does not touch the last kept
      let right = -Infinity;
      ticks = ticks.filter(([value, label]) => {
        const at = axis.toPixel(value), half = textWidth(label, size) / 2 + 3;
        if (!Number.isFinite(at) || at - half < right) return false;
        right = at + half;
        return true;
      });
    }
  } else if (axis.categories) {
    const n = axis.categories.length, room = Math.abs(axis.end - axis.start) / Math.max(n, 1);
    const widest = Math.max(...axis.categories.map((c) => textWidth(c, size)));
    if (axis.letter === "x" && spec.tickangle === undefined && widest + 4 > room) angle = -90;
    const across = axis.letter === "x" && angle === 0 ? widest + 6 : size + 3;
    const every = Math.max(1, Math.ceil(across / Math.max(room, 1)));
    ticks = axis.categories.filter((_, k) => k % every === 0).map((c) => [c, lines(c).join(" ")]);
  } else if (axis.log) {
    ticks = logTicks(10 ** axis.low, 10 ** axis.high).map((v) => [v, tickText(v)]);
  } else {  // about five round values, fewer when the axis is short (a phone, a narrow subplot)
    const length = Math.abs(axis.end - axis.start);
    const label = axis.letter === "x" ? Math.max(textWidth(tickText(axis.low), size), textWidth(tickText(axis.high), size)) + 14
      : size * 1.8;
    const count = Math.max(1.5, Math.min(5, length / label));
    ticks = niceTicks(axis.low, axis.high, count).filter((v) => v >= axis.low - 1e-9 && v <= axis.high + 1e-9)
      .map((v) => [v, tickText(v)]);
  }
  if (axis.letter === "x" && spec.tickangle === undefined && angle === 0 && ticks.length > 1) {
    const at = ticks.map(([value]) => axis.toPixel?.(value) ?? 0).sort((a, b) => a - b);
    const gap = Math.min(...at.slice(1).map((p, k) => p - at[k]));
    if (Math.max(...ticks.map(([, text]) => textWidth(text, size))) + 8 > gap) angle = -90;  // crowded: upright
  }
  let fitted = size;  // y tick texts wider than a third of the figure: a smaller font, not cut at the edge
  if (axis.letter === "y" && axis.maxLabel) {
    const widest = Math.max(0, ...ticks.map(([, text]) => textWidth(text, size)));
    if (widest > axis.maxLabel) fitted = Math.max(11, Math.floor((size * axis.maxLabel) / widest));
  }
  if (spec.showticklabels === false) ticks = ticks.map(([value]) => [value, ""]);
  return { ticks, size: fitted, angle };
}

/** The room an axis's tick texts and title take outside the plot (px): across for y, down for x. */
function outside(axis, fontSize) {
  const { ticks, size, angle } = tickList(axis, fontSize);
  const widest = Math.max(0, ...ticks.map(([, text]) => textWidth(text, size)));
  const title = axis.spec.title?.text ?? (typeof axis.spec.title === "string" ? axis.spec.title : "");
  const titleRoom = title ? lines(title).length * (fontSize + 2) + 8 : 0;
  if (axis.letter === "y") return Math.min(widest, axis.maxLabel ?? Infinity) + 10 + titleRoom;
  const turned = Math.abs(Math.sin((angle * Math.PI) / 180));
  return 1.35 * size + 20 + widest * turned + (title ? lines(title).length * (1.15 * fontSize + 4) : 0);
}

/** Ticks, tick texts, grid lines and the title of one axis. */
function axisParts(axis, axes, fontSize) {
  const { spec } = axis;
  const parts = [];
  const other = axes[spec.anchor ?? (axis.letter === "x" ? "y" : "x")] ?? Object.values(axes).find((a) => a.letter !== axis.letter);
  const crossAt = other ? (axis.letter === "x" ? Math.max(other.start, other.end) : Math.min(other.start, other.end)) : 0;
  const from = other ? Math.min(other.start, other.end) : 0, to = other ? Math.max(other.start, other.end) : 0;
  const { ticks, size, angle } = tickList(axis, fontSize);
  const show = spec.showticklabels !== false;
  for (const [value, text] of ticks) {
    const at = axis.toPixel(value);
    if (!Number.isFinite(at)) continue;
    if (axis.letter === "x") {
      if (!axis.cells && !axis.bars) parts.push(`<line class="grid" x1="${at}" x2="${at}" y1="${from}" y2="${to}"/>`);
      if (show) {
        const y = crossAt + size + 14;
        const turn = angle ? ` transform="rotate(${angle} ${at} ${y - size / 2})"` : "";
        const anchor = angle ? (angle < 0 ? "end" : "start") : "middle";
        if (angle) { // a turned label hangs from its tick
          parts.push(`<text x="${at + size / 3}" y="${crossAt + 10}" text-anchor="end" font-size="${size}" transform="rotate(${angle} ${at + size / 3} ${crossAt + 10})">${escape(text)}</text>`);
          continue;
        }
        // a label on the plot's left corner reads rightwards, clear of the y axis's lowest label
        const corner = Math.abs(at - Math.min(axis.start, axis.end)) < 2 && !axis.categories;
        parts.push(`<text x="${corner ? at - 2 : at}" y="${y}" text-anchor="${corner ? "start" : anchor}" font-size="${size}"${turn}>${escape(text)}</text>`);
      }
    } else {
      if (!axis.cells && !axis.categories) parts.push(`<line class="grid" x1="${from}" x2="${to}" y1="${at}" y2="${at}"/>`);
      if (show) {  // a label wider than the room: broken at spaces into lines, centred on its tick
        const rows = wrapText(text, axis.maxLabel ?? Infinity, size), step = Math.ceil(size * 1.3);
        const top = at + size * 0.3 - ((rows.length - 1) * step) / 2;
        rows.forEach((row, k) => parts.push(`<text x="${crossAt - 6}" y="${top + k * step}" text-anchor="end" font-size="${size}">${escape(row)}</text>`));
      }
    }
  }
  const title = spec.title?.text ?? (typeof spec.title === "string" ? spec.title : "");
  if (title) {
    const words = lines(title);
    if (axis.letter === "x") {
      const widest = Math.max(0, ...ticks.map(([, label]) => textWidth(label, size)));
      const mid = (axis.start + axis.end) / 2;
      const y = crossAt + 1.35 * size + 18 + 1.15 * fontSize + widest * Math.abs(Math.sin((angle * Math.PI) / 180));
      words.forEach((line, k) => {  // centred under its axis, but never past the figure's edge
        const room = Math.abs(axis.end - axis.start) + 24, fit = Math.max(10, Math.min(fontSize, Math.floor((fontSize * room) / textWidth(line, fontSize))));
        const half = textWidth(line, fit) / 2, at = Math.max(half + 2, Math.min(axis.figureWidth - half - 2, mid));
        parts.push(`<text x="${at}" y="${y + k * (fontSize + 2)}" text-anchor="middle" font-size="${fit}">${escape(line)}</text>`);
      });
    } else {
      const mid = (axis.start + axis.end) / 2;
      const longest = Math.max(0, ...ticks.map(([, text]) => textWidth(text, size)));
      const x = Math.max(fontSize, crossAt - longest - 14 - (words.length - 1) * (fontSize + 2));
      const room = Math.abs(axis.end - axis.start);
      words.forEach((line, k) => parts.push(`<text class="ytitle" data-room="${room}" transform="translate(${x + k * (fontSize + 2)} ${mid}) rotate(-90)" text-anchor="middle">${escape(line)}</text>`));
    }
  }
  return parts;
}

/** `text` broken at spaces into lines no wider than `room` px (a word longer than that stands alone). */
function wrapText(text, room, size) {
  if (textWidth(text, size) <= room) return [text];
  const rows = [];
  let row = "";
  for (const word of String(text).split(" ")) {
    const next = row ? `${row} ${word}` : word;
    if (row && textWidth(next, size) > room) { rows.push(row); row = word; } else row = next;
  }
  return [...rows, row];
}

/** A tick's text: whole numbers with thousands separators, others with at most 3 significant digits. */
function tickText(value) {
  if (Number.isInteger(value)) return Math.abs(value) >= 1e6 ? value.toExponential(0).replace("e+", "e") : grouped(value);
  const text = Number(value.toPrecision(3));
  return Math.abs(text) < 1e-3 && text !== 0 ? text.toExponential(1).replace("e-", "e−") : String(text);
}

const DASHES = { dash: "6 4", dot: "2 3", dashdot: "6 3 2 3", longdash: "10 4", longdashdot: "10 4 2 4" };

function color(trace) {
  return trace.line?.color ?? (typeof trace.marker?.color === "string" ? trace.marker.color : PALETTE[trace.index % PALETTE.length]);
}

function lineParts(trace, xa, ya, previous) {
  const mode = trace.mode ?? (trace.xs.length > 20 ? "lines" : "lines+markers");
  const points = trace.xs.map((x, k) => {
    const y = trace.ys[k];
    const ok = x != null && y != null && Number.isFinite(xa.categories ? 0 : x) && Number.isFinite(y)
      && !(xa.log && x <= 0) && !(ya.log && y <= 0);
    return ok ? [xa.toPixel(x), ya.toPixel(y)] : null;
  });
  const stroke = color(trace), parts = [];
  if (trace.fill === "tonexty" && previous) {  // the band between this line and the one before
    const pixel = (t, k) => [xa.toPixel(t.xs[k]), ya.toPixel(t.ys[k])];
    const ok = (t, k) => t.ys[k] != null && Number.isFinite(t.ys[k]) && !(ya.log && t.ys[k] <= 0);
    const upper = trace.xs.map((_, k) => (ok(trace, k) ? pixel(trace, k) : null)).filter(Boolean);
    const lower = previous.xs.map((_, k) => (ok(previous, k) ? pixel(previous, k) : null)).filter(Boolean).reverse();
    const ring = [...upper, ...lower];
    if (ring.length > 2) {
      const path = svgPath(ring);
      parts.push(`<path d="${path}Z" fill="${trace.fillcolor ?? stroke}" stroke="none"/>`);
    }
  }
  if (trace.fill === "tozeroy" || trace.fill === "toself") {
    const kept = points.filter(Boolean);
    if (kept.length) {
      const base = trace.fill === "tozeroy" ? ya.toPixel(ya.log ? 10 ** ya.low : 0) : null;
      let path = svgPath(kept);
      if (base !== null) path += `L${kept.at(-1)[0].toFixed(1)},${base}L${kept[0][0].toFixed(1)},${base}`;
      parts.push(`<path d="${path}Z" fill="${trace.fillcolor ?? stroke}" fill-opacity="${trace.fillcolor ? 1 : 0.3}" stroke="none"/>`);
    }
  }
  if (mode.includes("lines")) {
    const path = svgPath(points);
    const dash = DASHES[trace.line?.dash] ? ` stroke-dasharray="${DASHES[trace.line.dash]}"` : "";
    parts.push(`<path class="line" d="${path}" fill="none" stroke="${stroke}" stroke-width="${trace.line?.width ?? 2}"${dash}/>`);
  }
  if (trace.errorUp) {  // error bars: from y − minus to y + plus at each point
    trace.xs.forEach((x, k) => {
      const y = trace.ys[k];
      if (!points[k]) return;
      const hi = ya.toPixel(y + (trace.errorUp[k] ?? 0)), lo = ya.toPixel(Math.max(y - (trace.errorDown[k] ?? 0), ya.log ? 1e-300 : -Infinity));
      const at = points[k][0], w = trace.error_y?.width ?? 4;
      parts.push(`<path d="M${at},${lo}V${hi}M${at - w},${hi}H${at + w}M${at - w},${lo}H${at + w}" stroke="${stroke}" stroke-width="${trace.error_y?.thickness ?? 1.5}" fill="none"/>`);
    });
  }
  if (mode.includes("markers")) {
    const size = (trace.marker?.size ?? 6) / 2;
    const colors = Array.isArray(trace.marker?.color) ? trace.marker.color : null;
    points.forEach((p, k) => {
      if (p) parts.push(`<circle class="marker" cx="${p[0].toFixed(1)}" cy="${p[1].toFixed(1)}" r="${size}" fill="${colors?.[k] ?? stroke}"/>`);
    });
  }
  return parts;
}

/** Bars of one trace, grouped beside the other bar traces of its axes (Plotly's barmode "group"). */
function barParts(trace, xa, ya, bars) {
  const group = bars.filter((b) => b.xaxis === trace.xaxis && b.yaxis === trace.yaxis);
  const slot = group.indexOf(trace), n = group.length;
  const step = Math.abs(xa.toPixel(1) - xa.toPixel(0)) || 10;
  const width = (step * 0.8) / n;
  const fill = trace.marker?.color && typeof trace.marker.color === "string" ? trace.marker.color : PALETTE[trace.index % PALETTE.length];
  const ground = ya.toPixel(ya.log ? 10 ** ya.low : 0);
  const parts = [];
  trace.xs.forEach((x, k) => {
    const y = trace.ys[k];
    if (y == null || !Number.isFinite(y)) return;
    const centre = xa.toPixel(x) - (step * 0.8) / 2 + (slot + 0.5) * width;
    const top = ya.toPixel(y);
    parts.push(`<rect class="bar" x="${centre - width / 2}" y="${Math.min(top, ground)}" width="${width}" height="${Math.abs(ground - top)}" fill="${fill}"/>`);
    if (trace.errorUp) {
      const hi = ya.toPixel(y + (trace.errorUp[k] ?? 0)), lo = ya.toPixel(y - (trace.errorDown[k] ?? 0)), w = Math.min(6, width / 3);
      parts.push(`<path d="M${centre},${lo}V${hi}M${centre - w},${hi}H${centre + w}M${centre - w},${lo}H${centre + w}" stroke="currentColor" stroke-width="1.2" fill="none"/>`);
    }
  });
  return parts;
}

/** A point given in a reference: "paper" (0 … 1 of the plot area), an axis id ("x2") or its domain ("x2 domain").
 * `range`: an annotation's position, which Plotly gives on a log axis as log10 of the value (a shape's is the value). */
function place(value, ref, letter, axes, plotBox, range = false) {
  ref ??= letter; // Plotly's default reference: the first axis
  const axis = axes[String(ref).split(" ")[0]];
  if (axis && !String(ref).endsWith("domain")) return axis.toPixel(range && axis.log ? 10 ** value : value);
  if (axis) return axis.start + value * (axis.end - axis.start);
  return letter === "x" ? plotBox.left + value * (plotBox.right - plotBox.left)
    : plotBox.bottom - value * (plotBox.bottom - plotBox.top);
}

function shapeParts(shape, axes, plotBox) {
  if (shape.type !== "line") return [];
  const x0 = place(shape.x0, shape.xref, "x", axes, plotBox), x1 = place(shape.x1, shape.xref, "x", axes, plotBox);
  const y0 = place(shape.y0, shape.yref, "y", axes, plotBox), y1 = place(shape.y1, shape.yref, "y", axes, plotBox);
  const dash = DASHES[shape.line?.dash] ? ` stroke-dasharray="${DASHES[shape.line.dash]}"` : "";
  return [`<line x1="${x0}" x2="${x1}" y1="${y0}" y2="${y1}" stroke="${shape.line?.color ?? "currentColor"}" stroke-width="${shape.line?.width ?? 2}"${dash}/>`];
}

function annotationParts(note, axes, plotBox, fontSize) {
  const x = place(note.x, note.xref, "x", axes, plotBox, true), y = place(note.y, note.yref, "y", axes, plotBox, true);
  const size = note.font?.size ?? fontSize;
  // a panel's title (placed in paper units over a subplot): its lines broken to the panel's width
  const panel = (note.xref ?? "x") === "paper" && Object.values(axes).find((a) => a.letter === "x"
    && Math.abs((a.domain[0] + a.domain[1]) / 2 - note.x) < 0.02 && a.domain[1] - a.domain[0] < 0.9);
  const words = panel ? lines(note.text).flatMap((line) => wrapText(line, Math.abs(panel.end - panel.start), size))
    : lines(note.text);
  const anchor = { left: "start", right: "end" }[note.xanchor] ?? "middle";
  const step = Math.round(size * 1.3), height = words.length * step;
  // a note standing on a line (a panel title on its plot) keeps the tick texts' half line clear
  const top = note.yanchor === "bottom" ? y - height - 0.5 * size : note.yanchor === "top" ? y : y - height / 2;
  return words.map((line, k) => `<text class="note" x="${x}" y="${top + k * step + size}" text-anchor="${anchor}" font-size="${size}">${escape(line)}</text>`);
}

function titleParts(layout, width, height, fontSize) {
  const title = layout.title ?? {};
  const text = typeof title === "string" ? title : title.text;
  if (!text) return [];
  const size = title.font?.size ?? Math.round(fontSize * 1.2);
  const x = (title.x ?? 0.05) * width, anchor = { left: "start", right: "end", center: "middle" }[title.xanchor] ?? "start";
  let y = (title.yref === "paper" ? 0 : Math.max(0, (1 - (title.y ?? 0.98)) * height)) + 6;
  return String(text).split(/<br\s*\/?>/i).map((part, k) => {  // a <sup> line is Plotly's 70 % subtitle
    const lineSize = /^\s*<sup>/i.test(part) ? Math.round(size * 0.7) : size;
    y += k === 0 ? lineSize * 0.85 : lineSize * 1.35;
    const kind = lineSize < size ? "title sub" : "title";
    return `<text class="${kind}" x="${x}" y="${y}" text-anchor="${anchor}" font-size="${lineSize}">${escape(lines(part)[0])}</text>`;
  });
}

/** The legend: one swatch and name per named line or bar trace, in rows from its anchor (Plotly's "container"
 * coordinates: 0 at the bottom of the figure, 1 at the top, or the plot area's). Returns its SVG parts, its height and
 * whether it sits under the plot (then the plot gives it room). */
function legendLayout(traces, layout, width, height, fontSize) {
  const shown = traces.filter((t) => t.type !== "heatmap" && t.name && t.showlegend !== false);
  if (!shown.length || layout.showlegend === false) return { parts: [], height: 0, atBottom: false };
  const legend = layout.legend ?? {};
  const size = legend.font?.size ?? fontSize;
  const left = 8 + (legend.x ?? 0) * (width - 16);
  const items = [];
  let x = left, row = 0;
  for (const trace of shown) {
    const fit = Math.max(9, Math.min(size, Math.floor((size * (width - left - 48)) / textWidth(trace.name, size))));
    const w = 30 + textWidth(trace.name, fit) + 16;
    if (x + w > width - 4 && x > left) { x = left; row += 1; }
    items.push({ trace, x, row, fit });
    x += w;
  }
  const lineHeight = size + 8, block = (row + 1) * lineHeight + 4;
  const container = legend.yref === "container";
  const anchorY = container ? (1 - (legend.y ?? 1)) * height : 0;
  const top = legend.yanchor === "bottom" ? anchorY - block : anchorY;
  const parts = items.flatMap(({ trace, x: at, row: r, fit }) => {
    const y = top + r * lineHeight + lineHeight / 2 + 2;
    const dash = DASHES[trace.line?.dash] ? ` stroke-dasharray="${DASHES[trace.line.dash]}"` : "";
    const swatch = trace.type === "bar" || trace.fill ? `<rect x="${at}" y="${y - 5}" width="22" height="10" fill="${trace.fillcolor ?? color(trace)}"/>`
      : `<line x1="${at}" x2="${at + 22}" y1="${y}" y2="${y}" stroke="${color(trace)}" stroke-width="3"${dash}/>`;
    return [swatch, `<text x="${at + 28}" y="${y + size / 3}" font-size="${fit}">${escape(trace.name)}</text>`];
  });
  return { parts, height: block, atBottom: container && (legend.y ?? 1) <= 0.1 };
}

// ---- the value under the pointer --------------------------------------------------------------------------------

function hover(state, event) {
  const drawn = state.drawn, figure = state.data?.figure;
  if (!drawn || !figure) return;
  const box = state.plot.getBoundingClientRect();
  const px = event.clientX - box.left, py = event.clientY - box.top;
  const text = readout(figure, drawn.axes, px, py);
  if (!text) { state.tip.hidden = true; return; }
  state.tip.replaceChildren(...text.split("\n").flatMap((line, k) => (k ? [document.createElement("br"), line] : [line])));
  state.tip.hidden = false;
  const right = px > drawn.width / 2;
  state.tip.style.left = right ? "" : `${px + 14}px`;
  state.tip.style.right = right ? `${drawn.width - px + 14}px` : "";
  state.tip.style.top = `${Math.max(0, py - 10)}px`;
}

/** What the trace under (px, py) says there, from its hovertemplate (or x, y, z). */
export function readout(figure, axes, px, py) {
  let best = null;
  for (const trace of figure.traces) {
    if (trace.hoverinfo === "skip" || trace.hoverinfo === "none") continue;
    const xa = axes[trace.xaxis], ya = axes[trace.yaxis];
    const inside = (a, p) => p >= Math.min(a.start, a.end) - 1 && p <= Math.max(a.start, a.end) + 1;
    if (!inside(xa, px) || !inside(ya, py)) continue;
    if (trace.type === "heatmap") {
      const { rows, cols, values } = trace.cells;
      const index = (axis, p, centres, start, step, count) => {
        const v = axis.fromPixel(p);
        if (axis.categories) return Math.round(v);
        if (centres) return centres.reduce((b, c, k) => (Math.abs(c - v) < Math.abs(centres[b] - v) ? k : b), 0);
        return Math.round((v - start) / step);
      };
      const c = index(xa, px, trace.xs, trace.x0 ?? 0, trace.dx ?? 1, cols);
      const r = index(ya, py, trace.ys, trace.y0 ?? 0, trace.dy ?? 1, rows);
      if (c < 0 || c >= cols || r < 0 || r >= rows) continue;
      const point = { x: trace.xs ? trace.xs[c] : (trace.x0 ?? 0) + c * (trace.dx ?? 1),
        y: trace.ys ? trace.ys[r] : (trace.y0 ?? 0) + r * (trace.dy ?? 1), z: values[r * cols + c],
        customdata: customAt(trace.custom, r, c, cols) };
      return text(trace, point);
    }
    trace.xs.forEach((x, k) => {
      const y = trace.ys[k];
      if (y == null || !Number.isFinite(y) || (ya.log && y <= 0) || (xa.log && x <= 0)) return;
      const distance = Math.hypot(xa.toPixel(x) - px, (ya.toPixel(y) - py) * (trace.type === "bar" ? 0 : 1));
      if (!best || distance < best.distance) best = { distance, trace, point: { x, y, customdata: customAt(trace.custom, k) } };
    });
  }
  return best && best.distance < 60 ? text(best.trace, best.point) : null;
}

function customAt(custom, row, col, cols) {
  if (!custom) return undefined;
  const { values, shape } = custom;
  const width = shape.length === 3 ? shape[2] : shape.length === 2 && cols === undefined ? shape[1] : 1;
  const at = cols === undefined ? row : row * cols + col;
  return shape.length === 1 && cols !== undefined ? [values[at]] : Array.from(values.slice(at * width, at * width + width));
}

function text(trace, point) {
  if (trace.hovertemplate) return lines(fillTemplate(trace.hovertemplate, point)).join("\n").trim();
  const parts = [`x: ${formatSpec(point.x)}`, `y: ${formatSpec(point.y)}`];
  if (point.z !== undefined) parts.push(`z: ${formatSpec(point.z, ".4g")}`);
  return (trace.name ? `${trace.name}\n` : "") + parts.join(", ");
}

// ---- saving the picture -----------------------------------------------------------------------------------------

/** The cells and the SVG drawn on one canvas (twice the pixels, on the page's background), saved as a PNG. */
function savePng(state) {
  const { drawn } = state;
  if (!drawn) return;
  const style = getComputedStyle(state.root);
  const svg = state.svg.cloneNode(true);
  svg.setAttribute("color", style.color);
  svg.setAttribute("font-family", style.fontFamily);
  svg.insertAdjacentHTML("afterbegin", `<style>${SVG_STYLE}</style>`);
  const image = new Image();
  image.onload = () => {
    const out = document.createElement("canvas");
    out.width = drawn.width * 2;
    out.height = drawn.height * 2;
    const ctx = out.getContext("2d");
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor || "#fff";
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(state.canvas, 0, 0, out.width, out.height);
    ctx.drawImage(image, 0, 0, out.width, out.height);
    out.toBlob((blob) => {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = `${(state.data.figure.titleText || "figure").replace(/[^\p{L}\p{N}]+/gu, "_").slice(0, 60)}.png`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    }, "image/png");
  };
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
}

// What the component's CSS says about the SVG, again inside it, so a saved PNG looks like the page.
export const SVG_STYLE = `text { fill: currentColor; } .title { font-weight: 600; } .title.sub { font-weight: 400; }
.grid { stroke: currentColor; stroke-opacity: 0.12; }`;
