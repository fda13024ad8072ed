// Drawing helpers shared by the live charts (static/live.js) and the figures (static/figure.js): the qualitative
// palette, colour tables interpolated along a colour scale, round ticks on linear and log axes, and number format.
// Drawing geometry only: no number here is a result the lab teaches (those come from posenc, or from a twin of it).

export const PALETTE = ["#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880",
  "#ff97ff", "#fecb52"]; // Plotly's qualitative colours: the app's Plotly charts use them too

const tables = new Map(); // colour scale (as JSON) -> its 256-entry table
export function colorTable(colorscale) {  // 256 RGBA entries interpolated along the scale, as Plotly interpolates it
  const key = JSON.stringify(colorscale);
  if (tables.has(key)) return tables.get(key);
  const stops = colorscale.map(([at, color]) => [at, rgb(color)]);
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

/** Heatmap cells as RGBA pixels, one a cell, written into `pixels` (a Uint32Array over the image's bytes; a cell
 * past the end of `values` is missing): cell v takes the colour table's entry round(255·(v − zmin)/(zmax − zmin)),
 * clamped to 0 … 255; a missing (non-finite) cell is transparent. A whole pixel at a time: 512 × 512 cells take
 * ≈ 2.5 ms in Node, against ≈ 10 ms copying 4 bytes a cell. */
export function cellPixels(values, zmin, zmax, colorscale, pixels) {
  const lut = new Uint32Array(colorTable(colorscale).buffer);
  const span = zmax - zmin || 1;
  for (let i = 0; i < pixels.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) { pixels[i] = 0; continue; }
    const t = Math.round(((v - zmin) / span) * 255);
    pixels[i] = lut[t < 0 ? 0 : t > 255 ? 255 : t];
  }
  return pixels;
}

/** Give `canvas` a backing store of width × height CSS px at `ratio` device pixels a px, only when that changes: a
 * canvas given its own size again is reallocated, so a drag frame keeps it and clears it instead. */
export function sizeCanvas(canvas, width, height, ratio = 1) {
  const pixelsWide = Math.round(width * ratio), pixelsHigh = Math.round(height * ratio);
  if (canvas.width === pixelsWide && canvas.height === pixelsHigh) return;
  Object.assign(canvas, { width: pixelsWide, height: pixelsHigh });
  Object.assign(canvas.style, { width: `${width}px`, height: `${height}px` });
}

const scratch = new Map(); // "cols×rows" -> a cell image and its canvas, reused frame after frame

/** A heatmap's cells (rows × cols, row-major) as a canvas one pixel a cell, coloured by cellPixels. The canvas is
 * reused by the next call of the same size: draw it at once. */
export function cellImage(values, rows, cols, zmin, zmax, colorscale) {
  const key = `${cols}x${rows}`;
  let held = scratch.get(key);
  if (!held) {
    if (scratch.size >= 8) scratch.clear();
    const canvas = new OffscreenCanvas(cols, rows), image = new ImageData(cols, rows);
    held = { canvas, image, context: canvas.getContext("2d"), pixels: new Uint32Array(image.data.buffer) };
    scratch.set(key, held);
  }
  cellPixels(values, zmin, zmax, colorscale, held.pixels);
  held.context.putImageData(held.image, 0, 0);
  return held.canvas;
}

/** An SVG path through [x, y] pixel points; a null point lifts the pen (a gap in the line). */
export function svgPath(points) {
  let path = "", pen = false;
  for (const p of points) {
    if (!p) { pen = false; continue; }
    path += `${pen ? "L" : "M"}${p[0].toFixed(1)},${p[1].toFixed(1)}`;
    pen = true;
  }
  return path;
}

export function rgb(color) {  // "rgb(1,2,3)" or "#0a0b0c"
  if (color.startsWith("#")) return [1, 3, 5].map((k) => parseInt(color.slice(k, k + 2), 16));
  return color.match(/\d+/g).map(Number);
}


/** The smallest of 1, 2, 2.5, 5 × 10^k at or above ``value``: the top of an axis. */
export function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value || 1));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((v) => v >= value);
}

/** About `count` round values covering low … high (1, 2 or 5 × 10^k apart). */
export function niceTicks(low, high, count = 5) {
  if (!(high > low)) return [low];
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let t = Math.floor(low / step) * step; t <= high + step * 1e-9; t += step) {
    out.push(Math.abs(t) < step * 1e-9 ? 0 : Number(t.toPrecision(12)));
  }
  return out;
}

/** Ticks of a log axis from low to high: the powers of ten, and 2 and 5 times them when fewer than three fit. */
export function logTicks(low, high) {
  const powers = [];
  for (let k = Math.floor(Math.log10(low)); k <= Math.ceil(Math.log10(high)); k++) powers.push(10 ** k);
  const inside = (ticks) => ticks.filter((t) => t >= low * (1 - 1e-9) && t <= high * (1 + 1e-9));
  const plain = inside(powers);
  if (plain.length >= 3) return plain;
  return inside(powers.flatMap((p) => [p, 2 * p, 5 * p])).map((t) => Number(t.toPrecision(12)));
}


const GROUPED = new Intl.NumberFormat("en-US"); // made once: toLocaleString made one per call, per tick label

/** A whole number with thousands separators (12,345), as toLocaleString("en-US") writes it, without its cost. */
export function grouped(value) {
  return GROUPED.format(value);
}

export function format(value) {
  if (!Number.isFinite(value)) return "–";
  return Number.isInteger(value) ? grouped(value) : Number(value.toPrecision(3)).toString();
}

/** About how wide `text` is at `size` px: wide (CJK) characters one em, others 0.6 em. */
export function textWidth(text, size) {
  let em = 0;
  for (const c of String(text)) em += /[\u1100-\u11ff\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef]/.test(c) ? 1 : 0.6;
  return em * size;
}


export function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}
