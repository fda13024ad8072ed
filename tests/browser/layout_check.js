// Run in the page by tests/browser/layout_check.py: every cut, ellipsised or overlapping text box, as short dicts.
(sliver) => {
  const defects = [];
  const words = (el) => (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 70);
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    if (el.closest('details:not([open])')) return false;  // inside a closed expander: not on the screen
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
    }
    return true;
  };
  const column = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!column) return [{kind: 'missing', what: 'no main column'}];
  for (const error of document.querySelectorAll('[data-testid="stException"]'))
    defects.push({kind: 'exception', what: words(error)});  // a page that failed has nothing left to check
  const box = column.getBoundingClientRect(), pad = getComputedStyle(column);
  const left = box.left + parseFloat(pad.paddingLeft), right = box.right - parseFloat(pad.paddingRight);

  // 1. cut: a formula or table that needs more width than it has, or anything sticking out of the column
  for (const el of column.querySelectorAll('.katex-display')) {
    if (shown(el) && el.scrollWidth > el.clientWidth + sliver)
      defects.push({kind: 'cut', what: 'formula ' + words(el), need: el.scrollWidth, have: el.clientWidth});
  }
  const tables = '.dvn-scroller, [data-testid="stTable"], [data-testid="stMarkdownContainer"] table';
  for (const el of column.querySelectorAll(tables)) {
    const outer = el.matches('.dvn-scroller') ? el : (el.closest('[data-testid="stTable"]') || el);
    // st.table scrolls sideways inside a div of its own: the block, and every scrolling box in it, must fit
    const boxes = [outer, ...[...outer.querySelectorAll('*')].filter((inner) => getComputedStyle(inner).overflowX !== 'visible')];
    const scroller = boxes.find((b) => shown(b) && b.scrollWidth > b.clientWidth + sliver);
    if (scroller)
      defects.push({kind: 'cut', what: 'table ' + words(outer.closest('[data-testid]') || outer).slice(0, 40),
                    need: scroller.scrollWidth, have: scroller.clientWidth});
  }
  for (const el of column.querySelectorAll('[data-testid="stElementContainer"] > *')) {
    const r = el.getBoundingClientRect();
    if (shown(el) && (r.right > right + 1 || r.left < left - 1))
      defects.push({kind: 'cut', what: 'element ' + words(el), by: Math.round(Math.max(r.right - right, left - r.left)),
                    testid: el.getAttribute('data-testid')});
  }

  // 2. ellipsis: a label whose text does not fit and is shortened with "…"
  const app = document.querySelector('[data-testid="stApp"]') || document.body;
  for (const el of app.querySelectorAll('p, span, label, div, a, th, td')) {
    if (el.clientWidth === 0) continue;
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1 && shown(el))
      defects.push({kind: 'ellipsis', what: words(el)});
  }

  // 3. Plotly's own text: boxes that overlap, and text past the chart's edge
  for (const chart of column.querySelectorAll('.js-plotly-plot')) {
    if (!shown(chart)) continue;
    const frame = chart.getBoundingClientRect();
    const name = words(chart.querySelector('.gtitle') || chart).slice(0, 40);
    const texts = [...chart.querySelectorAll('text')].filter((t) => t.textContent.trim() && shown(t));
    // a turned label (Plotly turns crowded tick labels by 30° or 90°): its angle and its line height
    const turn = (t) => {
      const found = /rotate\((-?[\d.]+)/.exec((t.getAttribute('transform') || '') + (t.parentElement.getAttribute('transform') || ''));
      return found ? Number(found[1]) : 0;
    };
    const boxes = texts.map((t) => ({r: t.getBoundingClientRect(), s: t.textContent.trim().slice(0, 30),
                                     kind: t.getAttribute('class') || t.parentElement.getAttribute('class') || 'text',
                                     angle: turn(t), size: parseFloat(getComputedStyle(t).fontSize) || 12}));
    for (const b of boxes) {
      if (b.r.left < frame.left - 1 || b.r.right > frame.right + 1 || b.r.top < frame.top - 1 || b.r.bottom > frame.bottom + 1)
        defects.push({kind: 'outside', chart: name, what: b.s, text: b.kind});
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        const angle = boxes[i].angle;
        if (angle !== 0 && angle === boxes[j].angle && boxes[i].kind === boxes[j].kind) {
          // two labels turned alike (one axis): their boxes overlap, the text does not, while the gap between
          // their lines, across the text, is at least one line of text
          const along = Math.abs((a.left + a.right) / 2 - (b.left + b.right) / 2);
          const across = Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2);
          const gap = Math.abs(along * Math.sin(angle * Math.PI / 180)) + Math.abs(across * Math.cos(angle * Math.PI / 180));
          if (gap >= 0.9 * boxes[i].size) continue;
        }
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > sliver && h > sliver)
          defects.push({kind: 'overlap', chart: name, what: boxes[i].s + ' / ' + boxes[j].s,
                        text: boxes[i].kind + ' / ' + boxes[j].kind});
      }
    }
  }
  return defects;
}
