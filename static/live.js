// Live explorables: pictures that follow a slider while it is dragged, drawn in the browser from arrays posenc
// computed on the server (ui/live.py sends them). The browser only selects among those arrays and evaluates the
// documented elementwise step of a view; everything else (frequencies, sums, scaling rules) comes from posenc.
//
// A view's controls are native range inputs (mouse, touch and arrow keys). While one is dragged the picture is
// redrawn once per animation frame, with no message to the server; when it is released (the input's `change`
// event) the settled values go to the server once, as the trigger `settled`, so the URL, the sidebar and the
// other pages follow.
//
// Served once from Streamlit's static folder (/app/static/live.js); the component's inline loader imports it.

const MAX_DRAWN = 512; // rows or columns painted at most: more than the pixels of a chart (send what is drawn)
const instances = new WeakMap(); // parentElement -> its view, so several live charts never share state

export function render(component) {
  const { data, parentElement, setTriggerValue } = component;
  let view = instances.get(parentElement);
  if (!view) {
    view = createView(parentElement);
    instances.set(parentElement, view);
  }
  view.update(data, setTriggerValue);
}

// ---- arrays from the server -------------------------------------------------------------------------------

/** Float64Array or Float32Array of a {dtype: "f8" | "f4", bdata: base64} array (Plotly's typed-array form). */
export function decode(array) {
  const bytes = Uint8Array.from(atob(array.bdata), (c) => c.charCodeAt(0));
  return array.dtype === "f8" ? new Float64Array(bytes.buffer) : new Float32Array(bytes.buffer);
}

/** `count` indices spread evenly over 0 … n − 1 (all of them when n ≤ count). */
export function spread(n, count = MAX_DRAWN) {
  if (n <= count) return Int32Array.from({ length: n }, (_, i) => i);
  return Int32Array.from({ length: count }, (_, k) => Math.round((k * (n - 1)) / (count - 1)));
}

// ---- views: (data, control values) -> the matrix to paint ----------------------------------------------------

// The sinusoid table PE(p, column): sin(p·ω_i) or cos(p·ω_i), ω_i from posenc.absolute.sinusoid_inv_freq.
// Interleaved layout: column 2i = sin, 2i + 1 = cos; concat: column i = sin, i + D/2 = cos.
function sinusoidTable(data, values) {
  const omega = frequencies(data, values);
  if (!omega) return null;
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
  return { rows, cols, values: out, zmin: -1, zmax: 1, xCount: 2 * pairs, yCount: values.length };
}

// PE·PEᵀ: S[p, q] = s(|q − p|), s(k) = Σ_i cos(k·ω_i) summed by posenc (posenc.absolute.sinusoid_dot_by_offset):
// the browser only picks entries. Positions are drawn every `stride` (at most MAX_DRAWN of them); the base and dim
// slices hold s at the server's drawn offsets j·stride, the length slice s(k) for every k.
function sinusoidSimilarity(data, values) {
  const at = data.server;
  const stride = Math.ceil(values.length / MAX_DRAWN);
  const count = Math.ceil(values.length / stride);
  const { sums_by_base: byBase, sums_by_dim: byDim, sums_by_length: every } = data.arrays;
  let s; // j -> s(j·stride)
  if (values.length === at.length && values.dim === at.dim) {
    const row = data.controls.base.values.indexOf(values.base) * count;
    s = (j) => byBase[row + j];
  } else if (values.length === at.length && values.base === at.base) {
    const row = data.controls.dim.values.indexOf(values.dim) * count;
    s = (j) => byDim[row + j];
  } else if (values.base === at.base && values.dim === at.dim) {
    s = (j) => every[j * stride];
  } else {
    return null; // two sliders moved before the server answered: keep the last picture
  }
  const rows = Int32Array.from({ length: count }, (_, j) => j * stride);
  const out = new Float64Array(count * count);
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < count; c++) out[r * count + c] = s(Math.abs(r - c));
  }
  const half = values.dim / 2;  // s(0) = |PE(p)|² = D/2, the largest entry
  return { rows, cols: rows, values: out, zmin: -half, zmax: half, xCount: values.length, yCount: values.length };
}

// RoFormer's relative upper bound B(r) = (1/P) Σ_j |S_j(r)| against distance r, computed by posenc
// (posenc.decay.rope_decay_bound_at) at the drawn distances for every base and every dim of the sliders: the
// browser picks the curve.
function decayBound(data, values) {
  const at = data.server;
  const { distances, bound_by_base: byBase, bound_by_dim: byDim } = data.arrays;
  const count = distances.length;
  let row;
  if (values.dim === at.dim) row = byBase.subarray(...span(data.controls.base.values.indexOf(values.base), count));
  else if (values.base === at.base) row = byDim.subarray(...span(data.controls.dim.values.indexOf(values.dim), count));
  else return null; // both moved before the server answered: keep the last picture
  return { kind: "line", x: distances, y: row, logX: data.log_x };
}

function span(k, count) {
  return [k * count, (k + 1) * count];
}

const VIEWS = { sinusoid_table: sinusoidTable, sinusoid_similarity: sinusoidSimilarity, decay_bound: decayBound };

/** ω for the current (base, dim): along the base slice when only base moved, the dim slice when only dim moved. */
function frequencies(data, values) {
  const at = data.server;
  if (values.dim === at.dim) {
    const k = data.controls.base.values.indexOf(values.base);
    const pairs = at.dim / 2;
    return data.arrays.omega_by_base.subarray(k * pairs, (k + 1) * pairs);
  }
  if (values.base === at.base) {
    const j = data.controls.dim.values.indexOf(values.dim);
    const start = data.offsets.omega_by_dim[j];
    return data.arrays.omega_by_dim.subarray(start, start + values.dim / 2);
  }
  return null; // both moved before the server answered: keep the last picture
}

// ---- drawing ------------------------------------------------------------------------------------------------

function createView(parent) {
  const root = document.createElement("div"); // a child of its own: the parent also holds the component's <style>
  root.className = "live";
  root.innerHTML = `
      <div class="controls"></div>
      <div class="figure"><canvas></canvas><svg></svg></div>
      <p class="hint"></p>`;
  parent.append(root);
  const state = {
    root, data: null, values: null, send: null, frame: 0, draws: 0, drawn: null, drawnAt: 0,
    updates: 0, updatedAt: 0, fresh: false, held: null,
    controls: root.querySelector(".controls"), canvas: root.querySelector("canvas"), svg: root.querySelector("svg"),
    figure: root.querySelector(".figure"), hint: root.querySelector(".hint"),
  };
  new ResizeObserver(() => schedule(state)).observe(state.figure);
  // What was painted, for the real-browser tests and the benchmark (read-only).
  state.canvas.posencLive = {
    get values() { return { ...state.values }; }, // where the sliders are now
    get drawn() { return state.drawn; }, // the last picture: {rows, cols, values, at: the control values}
    get draws() { return state.draws; }, // pictures painted so far, and when the last one was (performance.now())
    get drawnAt() { return state.drawnAt; },
    get updates() { return state.updates; }, // pictures painted from newly arrived server data, and when
    get updatedAt() { return state.updatedAt; },
  };
  return {
    update(data, send) {
      state.send = send;
      const decoded = { ...data, arrays: Object.fromEntries(Object.entries(data.arrays).map(([k, a]) => [k, decode(a)])) };
      state.data = decoded;
      const held = state.held; // a slider still under the finger keeps its place when the server answers
      state.values = { ...data.server, ...(held ? { [held]: state.values[held] } : {}) };
      state.fresh = true;
      buildControls(state);
      schedule(state);
    },
  };
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
    input.onpointerdown = () => { state.held = name; };
    input.onpointerup = input.onpointercancel = () => { state.held = null; };
    const read = () => (spec.values ? spec.values[Number(input.value)] : Number(input.value));
    shown.textContent = format(read());
    input.oninput = () => {  // every drag step: redraw in the browser, nothing sent
      state.values[name] = read();
      shown.textContent = format(state.values[name]);
      schedule(state);
    };
    input.onchange = () => {  // released (or a key press): the settled values go to the server once
      state.values[name] = read();
      state.send("settled", { ...state.values });
    };
  }
}

function schedule(state) {
  if (!state.frame) state.frame = requestAnimationFrame(() => { state.frame = 0; draw(state); });
}

function draw(state) {
  const { data, values } = state;
  if (!data) return;
  const matrix = VIEWS[data.view](data, values);
  if (!matrix) return;
  const width = state.figure.clientWidth || 600;
  const height = data.height;
  if (matrix.kind === "line") {
    const box = { left: 64, right: width - 24, top: 40, bottom: height - 48 };
    clear(state.canvas, width, height);
    lineChart(state.svg, matrix, box, width, height, data.words, values);
    state.drawn = { x: Array.from(matrix.x), y: Array.from(matrix.y), at: { ...values } };
  } else {
    const box = { left: 64, right: width - 90, top: 40, bottom: height - 48 };
    if (data.square) box.right = Math.min(box.right, box.left + (box.bottom - box.top)); // a cell per position pair
    paint(state.canvas, matrix, box, width, height, data.colorscale);
    axes(state.svg, matrix, box, width, height, data.words, values);
    state.drawn = { ...matrix, rows: Array.from(matrix.rows), cols: Array.from(matrix.cols), at: { ...values } };
  }
  state.draws += 1;
  state.drawnAt = performance.now();
  if (state.fresh) {
    state.fresh = false;
    state.updates += 1;
    state.updatedAt = state.drawnAt;
  }
}

function paint(canvas, matrix, box, width, height, colorscale) {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = width * ratio;
  canvas.height = height * ratio;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const nr = matrix.rows.length, nc = matrix.cols.length;
  const image = new ImageData(nc, nr);
  const lut = colorTable(colorscale);
  const span = matrix.zmax - matrix.zmin || 1;
  for (let i = 0; i < nr * nc; i++) {
    const t = Math.min(255, Math.max(0, Math.round(((matrix.values[i] - matrix.zmin) / span) * 255)));
    image.data.set(lut.subarray(4 * t, 4 * t + 4), 4 * i);
  }
  const cells = new OffscreenCanvas(nc, nr);
  cells.getContext("2d").putImageData(image, 0, 0);
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

const tables = new Map();
function colorTable(colorscale) {  // 256 RGBA entries interpolated along the scale, as Plotly interpolates it
  const key = JSON.stringify(colorscale);
  if (tables.has(key)) return tables.get(key);
  const stops = colorscale.map(([at, color]) => [at, color.match(/\d+/g).map(Number)]);
  const lut = new Uint8ClampedArray(256 * 4);
  for (let t = 0; t < 256; t++) {
    const x = t / 255;
    let k = 1;
    while (k < stops.length - 1 && stops[k][0] < x) k++;
    const [a, ca] = stops[k - 1], [b, cb] = stops[k];
    const f = b > a ? (x - a) / (b - a) : 0;
    for (let c = 0; c < 3; c++) lut[4 * t + c] = ca[c] + f * (cb[c] - ca[c]);
    lut[4 * t + 3] = 255;
  }
  tables.set(key, lut);
  return lut;
}

function axes(svg, matrix, box, width, height, words, values) {
  const x = (i) => box.left + ((i + 0.5) / matrix.xCount) * (box.right - box.left);
  const y = (i) => box.top + ((i + 0.5) / matrix.yCount) * (box.bottom - box.top);
  const parts = [];
  for (const tick of ticks(matrix.xCount)) {
    parts.push(`<text x="${x(tick)}" y="${box.bottom + 16}" text-anchor="middle">${tick}</text>`);
  }
  for (const tick of ticks(matrix.yCount)) {
    parts.push(`<text x="${box.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`);
  }
  const mid = (box.top + box.bottom) / 2, barX = box.right + 44;
  for (const [value, at] of [[matrix.zmax, box.top + 4], [(matrix.zmax + matrix.zmin) / 2, mid + 4], [matrix.zmin, box.bottom]]) {
    parts.push(`<text x="${barX}" y="${at}">${format(value)}</text>`);
  }
  finish(svg, parts, box, width, height, words, values);
}

/** The axis titles and the chart title (its {placeholders} filled with the sliders' values) around ``parts``. */
function finish(svg, parts, box, width, height, words, values) {
  const mid = (box.top + box.bottom) / 2;
  parts.push(`<text x="${(box.left + box.right) / 2}" y="${height - 8}" text-anchor="middle">${escape(words.x)}</text>`);
  parts.push(`<text transform="translate(14 ${mid}) rotate(-90)" text-anchor="middle">${escape(words.y)}</text>`);
  const title = words.title.replace(/\{(\w+)\}/g, (_, name) => format(values[name]));
  parts.push(`<text class="title" x="${box.left}" y="22">${escape(title)}</text>`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.innerHTML = parts.join("");
  const heading = svg.querySelector(".title"); // shrink a long title (Korean, Chinese, a narrow column) to fit
  const room = width - box.left - 4, used = heading.getComputedTextLength();
  if (used > room) heading.style.fontSize = `${Math.max(10, Math.floor((15 * room) / used))}px`;
}

function clear(canvas, width, height) {
  canvas.width = width;
  canvas.height = height;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
}

/** A curve y(x) in SVG, with linear or logarithmic x (x ≥ 1 then) and a y axis from 0. */
function lineChart(svg, line, box, width, height, words, values) {
  const xs = Array.from(line.x), ys = Array.from(line.y);
  const shown = xs.map((x, k) => k).filter((k) => !line.logX || xs[k] >= 1);
  const fx = line.logX ? Math.log10 : (x) => x;
  const [x0, x1] = [fx(xs[shown[0]]), fx(xs[shown[shown.length - 1]])];
  const top = niceCeiling(Math.max(...shown.map((k) => ys[k])));
  const px = (x) => box.left + ((fx(x) - x0) / (x1 - x0 || 1)) * (box.right - box.left);
  const py = (y) => box.bottom - (y / top) * (box.bottom - box.top);
  const path = shown.map((k, i) => `${i ? "L" : "M"}${px(xs[k]).toFixed(1)},${py(ys[k]).toFixed(1)}`).join("");
  const parts = [`<path d="${path}" fill="none" stroke="var(--st-primary-color, #d6336c)" stroke-width="2.5"/>`];
  const xTicks = line.logX
    ? [1, 10, 100, 1000, 10000].filter((t) => t <= xs[xs.length - 1])
    : ticks(xs[xs.length - 1] + 1);
  for (const tick of xTicks) {
    parts.push(`<text x="${px(tick)}" y="${box.bottom + 16}" text-anchor="middle">${format(tick)}</text>`);
  }
  for (let k = 0; k <= 4; k++) {
    const y = (top * k) / 4;
    parts.push(`<line x1="${box.left}" x2="${box.right}" y1="${py(y)}" y2="${py(y)}" stroke="currentColor" opacity="0.12"/>`);
    parts.push(`<text x="${box.left - 6}" y="${py(y) + 4}" text-anchor="end">${format(y)}</text>`);
  }
  finish(svg, parts, box, width, height, words, values);
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above ``value``: the top of a y axis. */
function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value || 1));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((v) => v >= value);
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

function format(value) {
  return Number.isInteger(value) ? value.toLocaleString("en-US") : Number(value.toPrecision(3)).toString();
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}
