"""Formulas and charts that fit the column, in every language and at every window size, phones included (issues 17,
27 and 30); the app's own CSS.

KaTeX draws a display formula on one line at a fixed size, so on a 1024-px projector with the sidebar open (a main
column of ~535 px) or on a phone (~358 px) many of the app's formulas were cut at the right. A formula's width
depends on the language of its words and on the window, so no size chosen in Python fits everywhere. This
component, placed once per run by ``navigation.py``, installs one small script per browser tab: whenever the page
changes or the window is resized,

- each display formula wider than its column is set in a smaller font, down to :data:`WRAP_SCALE` of its size;
  one still too wide breaks into lines after its relations and operators (KaTeX's own break points, as inline
  math breaks) and, only where one piece is still too wide, shrinks further, never below :data:`SMALLEST_SCALE`;
  a piece that cannot break (one row of an aligned block) scrolls sideways instead of being cut;
- a Plotly figure whose panels stand side by side shows them one above the other when the chart is narrower than
  :data:`STACK_BELOW` pixels (a phone): each panel keeps the full width and its own axes, titles move with it;
- the page's language is set on ``<html lang>``, so Korean breaks lines between words (``word-break: keep-all``)
  and never inside one, and tables too wide for a phone scroll sideways inside their own box.

The component takes no space: it hides its own empty element.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from ui.component_data import component_data
from ui.language import current_language

SMALLEST_SCALE = 0.6  # below 60 % of KaTeX's size a formula is no longer readable (back of a room, a phone)
WRAP_SCALE = 0.8  # a formula shrinks this far on one line; below that it breaks into lines first
STACK_BELOW = 480  # px: a chart narrower than this (a phone) stacks its side-by-side panels

CSS = """
.katex-display { overflow-x: auto; overflow-y: hidden; }  /* the last resort: scroll sideways, never cut */
.katex-display.posenc-wrap > .katex, .katex-display.posenc-wrap > .katex > .katex-html { white-space: normal; }
.katex-display.posenc-wrap > .katex > .katex-html > .base { margin: 0.15em 0; }
.katex-display > .katex > .posenc-rows, .katex-display.posenc-rows > .katex > .katex-html { display: none; }
.katex-display.posenc-rows > .katex > .posenc-rows { display: block; white-space: normal; text-align: left; }
.posenc-rows > .posenc-row { display: block; margin: 0.3em 0; }
/* Korean breaks between words, never inside one (a title broke as 「…시험 / 하기」); tables set their own */
html[lang="ko"] body, html[lang="ko"] body * { word-break: keep-all !important; overflow-wrap: break-word; }
@media (pointer: coarse) {  /* a touch screen: Plotly's mode bar stood on the chart titles, too small for a finger */
  .js-plotly-plot .modebar-container { display: none; }
  /* a checkpoint's options and buttons (and class mode's) take a finger: 44 px high, the whole line tappable */
  [data-testid="stButton"] button, [data-testid="stFormSubmitButton"] button { min-height: 44px; min-width: 44px; }
  [data-testid="stRadio"] label, [data-testid="stCheckbox"] label { min-height: 44px; align-items: center; }
}
[data-testid="stSidebarNav"] a span { white-space: normal; text-overflow: clip; }  /* a long page name wraps */
@media (max-width: 640px) {  /* a phone: a wide table scrolls sideways inside its own box, not the page */
  [data-testid="stMarkdownContainer"] table { display: block; overflow-x: auto; max-width: 100%; }
  [data-testid="stMainBlockContainer"] { padding-left: 0.5rem; padding-right: 0.5rem; }  /* the width to the text */
}
""" + (Path(__file__).resolve().parents[1] / "static" / "table.css").read_text(encoding="utf-8")

FIT_JS = """
export default function (component) {
  const data = Array.isArray(component.data) ? component.data[0] : component.data; // see ui/component_data.py
  const lang = data && data.lang;
  if (lang) document.documentElement.lang = lang;  // Korean: word-break keep-all (the CSS below)
  const host = component.parentElement.getRootNode().host || component.parentElement;
  const container = host.closest('[data-testid="stElementContainer"]');
  if (container) container.style.display = "none";  // an empty element: no gap in the page
  if (window.__posencFitFormulas) return;  // once per browser tab: the page is a single-page app
  window.__posencFitFormulas = true;
  const smallest = __SMALLEST__, wrapAt = __WRAP__, stackBelow = __STACK__;
  const style = document.createElement("style");
  style.textContent = __CSS__;
  document.head.appendChild(style);

  // ---- formulas --------------------------------------------------------------------------------------------
  function need(display, formula) {  // the width the formula needs: its widest piece once it may break
    const pieces = display.classList.contains("posenc-rows") ? formula.querySelectorAll(".posenc-row > .base")
      : display.classList.contains("posenc-wrap") ? formula.querySelectorAll(":scope > .katex-html > .base") : null;
    if (!pieces) return formula.scrollWidth;
    return Math.max(0, ...[...pieces].map((piece) => piece.getBoundingClientRect().width));
  }
  function shrink(display, formula, room, floor) {
    let scale = parseFloat(formula.dataset.scale || "1");
    for (let step = 0; step < 4 && need(display, formula) > room + 1 && scale > floor; step++) {
      scale = Math.max(floor, scale * (room / need(display, formula)) * 0.99);
      formula.style.fontSize = (1.21 * scale).toFixed(3) + "em";
      formula.dataset.scale = scale;
    }
  }
  /** An aligned block (one KaTeX table, no brackets around it) as lines we own, one per row, each broken into
   * pieces after its relations, punctuation and spaces, so a row wider than a phone breaks there; KaTeX's own
   * nodes are hidden, not changed (Streamlit's renderer owns them). Returns false where there is no such table. */
  function unroll(formula) {
    const html = formula.querySelector(":scope > .katex-html:not(.posenc-rows)");
    const bases = html ? html.querySelectorAll(":scope > .base") : [];
    const table = bases.length === 1 ? bases[0].querySelector(".mtable") : null;
    if (!table || table.closest(".minner")) return false;  // cases, matrices: their brackets hold the rows
    const signature = html.textContent;
    let rows = formula.querySelector(":scope > .posenc-rows");
    if (rows && rows.dataset.of === signature) return true;
    if (rows) rows.remove();
    const columns = [...table.children].filter((column) => /col-align/.test(column.className)).map((column) =>
      [...column.querySelectorAll(":scope > .vlist-t > .vlist-r > .vlist > span")]
        .map((row) => row.querySelector(":scope > .pstrut + *")).filter(Boolean));
    if (!columns.length) return false;
    rows = document.createElement("span");
    rows.className = "katex-html posenc-rows";
    rows.setAttribute("aria-hidden", "true");
    rows.dataset.of = signature;
    for (let i = 0; i < Math.max(...columns.map((cells) => cells.length)); i++) {
      const line = document.createElement("span");
      line.className = "posenc-row";
      let piece = null, previous = "";
      for (const cells of columns) {
        if (!cells[i]) continue;
        for (const atom of atoms(cells[i].cloneNode(true))) {
          if (!piece) line.append(piece = Object.assign(document.createElement("span"), {className: "base"}));
          piece.append(atom);
          const kind = atom.nodeType === 1 ? atom.className : "";
          // a line may break after a comma, after the space that follows a relation (=, ≤), or at a \\quad
          const wide = kind === "mspace" && parseFloat(atom.style.marginRight) >= 0.5;
          if (kind === "mpunct" || wide || (kind === "mspace" && previous === "mrel")) piece = null;
          if (kind !== "mspace") previous = kind.split(" ")[0];
        }
      }
      rows.append(line);
    }
    formula.append(rows);
    return true;
  }
  /** A cell's atoms in order, looking inside the plain groups ({…}) that hold relations or spaces. */
  function atoms(node) {
    const breaks = ":scope > .mrel, :scope > .mbin, :scope > .mpunct, :scope > .mspace";
    return [...node.childNodes].flatMap((child) =>
      child.nodeType === 1 && child.className === "mord" && child.querySelector(breaks) ? atoms(child) : [child]);
  }
  function fit(display) {
    const formula = display.querySelector(":scope > .katex");
    if (!formula) return;
    formula.style.fontSize = "";  // KaTeX's own size (1.21em), then shrink only what does not fit
    formula.dataset.scale = 1;
    display.classList.remove("posenc-wrap", "posenc-rows");
    const room = display.clientWidth;
    if (room === 0) return;  // hidden (a closed expander): fitted when it opens and the page changes
    shrink(display, formula, room, wrapAt);
    if (formula.scrollWidth <= room + 1) return;
    const bases = formula.querySelectorAll(":scope > .katex-html > .base").length;
    if (bases > 1 || unroll(formula)) {  // break into lines at full size
      formula.style.fontSize = "";
      formula.dataset.scale = 1;
      display.classList.add(bases > 1 ? "posenc-wrap" : "posenc-rows");
    }
    shrink(display, formula, room, smallest);
  }

  // ---- charts: side-by-side panels stack on a narrow screen -------------------------------------------------
  const original = new WeakMap();  // chart -> the layout values stacking changed, to put back when it widens
  const sized = new MutationObserver(() => soon());  // Streamlit may put a stacked chart's boxes' height back
  function stack(gd) {
    const Plotly = window.Plotly, full = gd._fullLayout;
    if (!Plotly || !full || !full._plots || !gd.layout) return;
    const width = gd.clientWidth;
    if (!width) return;
    const cells = Object.values(full._plots).map((plot) => ({
      x: plot.xaxis, y: plot.yaxis, xd: plot.xaxis.domain.slice(), yd: plot.yaxis.domain.slice(),
    }));
    const columns = new Set(cells.map((cell) => cell.xd[0].toFixed(3)));
    // Streamlit gives the chart's box, its full-screen frame and its element the figure's own height
    const boxes = ["stPlotlyChart", "stFullScreenFrame", "stElementContainer"]
      .map((id) => gd.closest(`[data-testid="${id}"]`));
    if (columns.size > 1) original.delete(gd);  // a new figure from the server, side by side
    if (width >= stackBelow) {  // wide again (a phone turned sideways): the figure as the server drew it
      if (original.has(gd)) { const back = original.get(gd); original.delete(gd); Plotly.react(gd, gd.data, back); }
      for (const box of boxes) if (box) box.style.height = box.style.flexBasis = "";
      return;
    }
    if (cells.length < 2 || columns.size < 2) {  // one panel, or panels already one above the other
      const height = full.height + "px";  // stacked: Streamlit may have put its boxes' own height back
      if (!original.has(gd)) return;
      for (const box of boxes) if (box && box.style.height !== height) box.style.height = box.style.flexBasis = height;
      return;
    }
    cells.sort((a, b) => b.yd[1] - a.yd[1] || a.xd[0] - b.xd[0]);  // rows from the top, left to right
    const size = full._size, oldH = size.h;
    const cellH = Math.round(Math.max(200, Math.min(320, ...cells.map((c) => (c.yd[1] - c.yd[0]) * oldH))));
    const gap = panelGap(gd, cells);  // px between panels: the upper one's x ticks and title, the lower one's title
    const plotH = cells.length * cellH + (cells.length - 1) * gap;
    const update = {height: plotH + size.t + size.b};
    const domains = cells.map((cell, k) => {
      const top = k * (cellH + gap);
      return [1 - (top + cellH) / plotH, 1 - top / plotH];
    });
    const axisKey = (axis) => axis._name;  // "xaxis2"
    cells.forEach((cell, k) => {
      update[axisKey(cell.x) + ".domain"] = [0, 1];
      update[axisKey(cell.y) + ".domain"] = domains[k];
      update[axisKey(cell.x) + ".showticklabels"] = true;
      update[axisKey(cell.y) + ".showticklabels"] = true;
    });
    const moveY = (y, from, to) => {  // a paper y near a panel: the same pixels above (or below) it
      if (y >= from[1]) return to[1] + ((y - from[1]) * oldH) / plotH;
      if (y <= from[0]) return to[0] - ((from[0] - y) * oldH) / plotH;
      return to[0] + ((y - from[0]) / (from[1] - from[0])) * (to[1] - to[0]);
    };
    (gd.layout.annotations || []).forEach((note, i) => {
      if ((note.xref || "paper") !== "paper" || (note.yref || "paper") !== "paper") return;
      const x = note.x ?? 0.5, y = note.y ?? 0.5;
      const holders = cells.map((cell, k) => [cell, k])
        .filter(([cell]) => x >= cell.xd[0] - 1e-6 && x <= cell.xd[1] + 1e-6);
      if (!holders.length) {  // above or below all the panels (a note across the figure)
        update[`annotations[${i}].y`] = y >= 1 ? 1 + ((y - 1) * oldH) / plotH : y <= 0 ? (y * oldH) / plotH : y;
        return;
      }
      const distance = ([cell]) => (y > cell.yd[1] ? y - cell.yd[1] : y < cell.yd[0] ? cell.yd[0] - y : 0);
      const [cell, k] = holders.sort((a, b) => distance(a) - distance(b))[0];
      update[`annotations[${i}].x`] = (x - cell.xd[0]) / (cell.xd[1] - cell.xd[0] || 1);
      update[`annotations[${i}].y`] = moveY(y, cell.yd, domains[k]);
    });
    const legend = gd.layout.legend || {};
    if (legend.y !== undefined && (legend.y > 1 || legend.y < 0))
      update["legend.y"] = legend.y > 1 ? 1 + ((legend.y - 1) * oldH) / plotH : (legend.y * oldH) / plotH;
    // Plotly.react, not relayout: Streamlit answers a relayout event by putting the figure's own height back
    const copy = JSON.parse(JSON.stringify(gd.layout));
    original.set(gd, JSON.parse(JSON.stringify(gd.layout)));
    for (const [key, value] of Object.entries(update)) {
      const path = key.split(/\\.|\\[|\\]\\.?/).filter(Boolean);
      let at = copy;
      for (const part of path.slice(0, -1)) at = at[part] ??= {};
      at[path[path.length - 1]] = value;
    }
    Plotly.react(gd, gd.data, copy);
    for (const box of boxes) if (box) box.style.height = box.style.flexBasis = update.height + "px";  // a flex item
    for (const box of boxes) if (box) sized.observe(box, {attributes: true, attributeFilter: ["style", "class"]});
  }

  /** The room a panel needs below it (its x tick labels and title) and above it (its title), as drawn now. */
  function panelGap(gd, cells) {
    const svg = gd.querySelector(".main-svg").getBoundingClientRect();
    let below = 0, above = 0;
    for (const cell of cells) {
      const bottom = svg.top + cell.y._offset + cell.y._length, top = svg.top + cell.y._offset;
      const left = svg.left + cell.x._offset, right = left + cell.x._length;
      const owned = gd.querySelectorAll(`.subplot.${cell.x._id}${cell.y._id} .xtick text, .g-${cell.x._id}title text`);
      for (const text of owned) below = Math.max(below, text.getBoundingClientRect().bottom - bottom);
      for (const note of gd.querySelectorAll(".annotation")) {  // a title standing on this panel
        const r = note.getBoundingClientRect(), middle = (r.left + r.right) / 2;
        const standing = middle >= left && middle <= right && r.bottom <= top + 2 && r.bottom >= top - 40;
        if (standing) above = Math.max(above, top - r.top);
      }
    }
    return Math.ceil(Math.max(60, below + above + 32));  // tick labels may turn once the panel is wider
  }

  /** A chart title or axis title wider than the chart (a phone): a smaller font, never below 11 px. */
  function fitTitles(gd) {
    const Plotly = window.Plotly, full = gd._fullLayout;
    if (!Plotly || !full || !gd.layout) return;
    const frame = gd.getBoundingClientRect();
    const update = {};
    const shrink = (selector, key, room, font) => {
      const text = gd.querySelector(selector);
      if (!text || !font) return;
      const r = text.getBoundingClientRect(), used = key.startsWith("yaxis") ? r.height : r.width;
      if (!(used > room + 1 && font > 11)) return;
      let size = Math.floor((font * room) / used);
      const axis = key.startsWith("yaxis") ? key.split(".")[0] : null;
      const words = axis && full[axis].title.text;
      if (size < 11 && words && !/<br>/i.test(words)) {  // a y title too long even at 11 px: two lines
        const middle = words.length / 2, spaces = [...words.matchAll(/ /g)].map((m) => m.index);
        const at = spaces.length ? spaces.reduce((a, b) => (Math.abs(b - middle) < Math.abs(a - middle) ? b : a))
          : Math.round(middle);
        update[`${axis}.title.text`] = words.slice(0, at) + "<br>" + words.slice(at).trimStart();
        size = Math.min(font, Math.floor((2 * font * room) / used));
      }
      update[key] = Math.max(11, size);
    };
    shrink(".gtitle", "title.font.size", frame.width - 8, full.title.font.size);
    for (const axis of Object.values(full._plots || {}).map((plot) => plot.yaxis)) {
      const middle = frame.top + axis._offset + axis._length / 2;  // a y title is centred on its axis
      const heading = gd.querySelector(".gtitle"), top = heading ? heading.getBoundingClientRect().bottom : frame.top;
      const room = 2 * Math.min(middle - top, frame.bottom - middle) - 8;
      shrink(`.g-${axis._id}title text`, `${axis._name}.title.font.size`, room, axis.title.font.size);
    }
    for (const [id, plot] of Object.entries(full._plots || {})) {  // crowded x ticks: upright
      const axis = plot.xaxis;  // the subplot "x2y2" holds its own x axis's tick labels
      const ticks = [...gd.querySelectorAll(`.subplot.${id} .xtick text`)]
        .map((text) => text.getBoundingClientRect()).sort((a, b) => a.left - b.left);
      const crowded = ticks.some((r, k) => k > 0 && ticks[k - 1].right > r.left + 1 && ticks[k - 1].bottom > r.top + 1);
      if (crowded && Math.abs(axis.tickangle) !== 90) update[`${axis._name}.tickangle`] = -90;
    }
    const names = [...gd.querySelectorAll(".legendtext")].map((text) => text.getBoundingClientRect());
    const over = Math.max(0, ...names.map((r) => r.right - (frame.right - 4)));  // a legend entry past the edge
    const font = full.legend && full.legend.font && full.legend.font.size;
    if (over > 1 && font > 10) {
      const widest = names.reduce((a, b) => (b.right > a.right ? b : a));
      update["legend.font.size"] = Math.max(10, Math.floor((font * (widest.width - over)) / widest.width));
    }
    for (const note of gd.querySelectorAll(".annotation")) {  // a note wider than the chart (a phone)
      const i = Number(note.getAttribute("data-index")), spec = full.annotations && full.annotations[i];
      const r = note.getBoundingClientRect(), past = Math.max(r.right - frame.right, frame.left - r.left);
      if (!spec || past <= 1 || !(spec.font.size > 10)) continue;
      const size = Math.floor((spec.font.size * (r.width - 2 * past - 4)) / r.width);
      update[`annotations[${i}].font.size`] = Math.max(10, size);
    }
    if (!Object.keys(update).length) return;
    const copy = JSON.parse(JSON.stringify(gd.layout));
    for (const [key, value] of Object.entries(update)) {
      const path = key.split(/\\.|\\[|\\]\\.?/).filter(Boolean);
      let at = copy;
      for (const part of path.slice(0, -1)) at = at[part] = typeof at[part] === "object" && at[part] ? at[part] : {};
      at[path[path.length - 1]] = value;
    }
    if (typeof gd.layout.title === "string") copy.title.text = gd.layout.title;
    Plotly.react(gd, gd.data, copy);
  }

  let pending = false;
  let watched = null;
  const resized = new ResizeObserver(() => soon());  // the sidebar opened or closed: the column changed width
  function fitAll() {
    pending = false;
    const column = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (column && column !== watched) {
      if (watched) resized.unobserve(watched);
      resized.observe(column);
      watched = column;
    }
    document.querySelectorAll(".katex-display").forEach(fit);
    document.querySelectorAll(".js-plotly-plot").forEach((gd) => { stack(gd); fitTitles(gd); });
  }
  function soon() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(fitAll);
    }
  }
  new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", soon);
  document.fonts.addEventListener("loadingdone", soon);  // KaTeX's fonts arrive after the first layout
  document.fonts.ready.then(soon);
  soon();
}
"""
FIT_JS = (
    FIT_JS.replace("__SMALLEST__", str(SMALLEST_SCALE))
    .replace("__WRAP__", str(WRAP_SCALE))
    .replace("__STACK__", str(STACK_BELOW))
    .replace("__CSS__", json.dumps(CSS))
)

_FIT = st.components.v2.component("posenc_lab_fit_formulas", js=FIT_JS)


def fit_formulas_to_column() -> None:
    """Install (once per browser tab) the script that fits every display formula and chart to its column, and tell
    it the page's language."""
    _FIT(key="posenc_lab_fit_formulas", data=component_data({"lang": current_language()}))
